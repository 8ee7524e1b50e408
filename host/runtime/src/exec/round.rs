//! groupBy `round`: round `i` runs task `i` of every participant (at most `concurrency` at
//! once, started in participant order), with a fixed gap between rounds (spec §3.4). Once the
//! run's stop is thrown no task starts; the current round's running tasks finish.

use super::pacing::{flush_ticker, flushing_while};
use super::{
    spawn_slot, task_finished, warmup_finished, ExecPlan, Finishes, ParticipantRun, SlotFactory,
    TaskRunner,
};
use anyhow::Result;
use bench_model::events::{Finished, RunEvent, RunObserver};
use bench_model::record::WARMUP_PHASE;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// Runs all rounds, handing each finished task to the observer.
pub async fn run_rounds<F: SlotFactory>(
    participants: &[ParticipantRun<F>],
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let rounds = plan.schedule.len();
    observer.observe(RunEvent::RoundsStarted {
        participants: participants.len(),
        rounds,
    })?;
    let mut slots: Vec<Option<F::Runner>> = participants
        .iter()
        .map(|participant| Some(participant.slots.open_slot()))
        .collect();
    let mut finishes = vec![Finishes::default(); participants.len()];
    let mut ticker = flush_ticker();
    let permits = Arc::new(Semaphore::new((plan.concurrency as usize).max(1)));
    let stop = &plan.stop;
    for warm in 0..plan.warmup {
        for (index, slot) in slots.iter_mut().enumerate() {
            if stop.is_stopping() {
                break;
            }
            let slot = slot.as_mut().expect("slots are in place before the rounds");
            let task = slot.run(warm, Some(WARMUP_PHASE));
            let finished = flushing_while(task, &mut ticker, observer).await?;
            warmup_finished(observer, &participants[index].name, finished, rounds)?;
        }
    }
    let mut order = RoundOrder::new(participants.len(), plan.shuffle_seed);
    for round in 0..rounds {
        let order = order.next_round();
        if round > 0 && plan.stagger_delay_ms > 0.0 {
            observer.observe(RunEvent::Flush)?;
            let gap = tokio::time::sleep(Duration::from_secs_f64(plan.stagger_delay_ms / 1000.0));
            stop.unless_stopped(gap).await;
        }
        if stop.is_stopping() {
            break;
        }
        if plan.concurrency <= 1 {
            let phase = plan.schedule.phase_at(round);
            // One task at a time, in the round's order: run them inline.
            for &index in order {
                if stop.is_stopping() {
                    break;
                }
                let slot = slots[index]
                    .as_mut()
                    .expect("slots stay in place in sequential rounds");
                let task = slot.run(round as u32, phase);
                let finished = flushing_while(task, &mut ticker, observer).await?;
                let name = &participants[index].name;
                task_finished(observer, name, finished, rounds, &mut finishes[index])?;
            }
            continue;
        }
        let mut running: JoinSet<(usize, F::Runner, Finished)> = JoinSet::new();
        for &index in order {
            let Some(permit) = stop.unless_stopped(permits.clone().acquire_owned()).await else {
                break;
            };
            let permit = permit?;
            let mut slot = slots[index]
                .take()
                .expect("every slot is back before the next round");
            let schedule = plan.schedule.clone();
            let home = slot.home();
            spawn_slot(&mut running, home, async move {
                let phase = schedule.phase_at(round);
                let finished = slot.run(round as u32, phase).await;
                drop(permit);
                (index, slot, finished)
            });
        }
        while let Some(joined) = flushing_while(running.join_next(), &mut ticker, observer).await? {
            let (index, slot, finished) = joined?;
            slots[index] = Some(slot);
            let name = &participants[index].name;
            task_finished(observer, name, finished, rounds, &mut finishes[index])?;
        }
    }
    observer.observe(RunEvent::Flush)?;
    for (participant, finishes) in participants.iter().zip(finishes) {
        observer.observe(RunEvent::RoundParticipantFinished {
            participant: &participant.name,
            failed: finishes.succeeded < finishes.tasks,
        })?;
    }
    Ok(())
}

/// The order participants start in, round after round: declaration order, or with a seed
/// a new shuffle every round (the same seed gives the same orders).
struct RoundOrder {
    order: Vec<usize>,
    shuffle: Option<fastrand::Rng>,
}

impl RoundOrder {
    fn new(participants: usize, seed: Option<u64>) -> Self {
        Self {
            order: (0..participants).collect(),
            shuffle: seed.map(fastrand::Rng::with_seed),
        }
    }

    /// The next round's order.
    fn next_round(&mut self) -> &[usize] {
        if let Some(rng) = &mut self.shuffle {
            rng.shuffle(&mut self.order);
        }
        &self.order
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::test_support::*;
    use std::collections::BTreeMap;
    use tokio::time::Instant;

    /// The first start and the last end of every round.
    fn round_spans(ran: &[Ran]) -> Vec<(Instant, Instant)> {
        let mut spans: BTreeMap<u32, (Instant, Instant)> = BTreeMap::new();
        for task in ran {
            let span = spans
                .entry(task.index)
                .or_insert((task.started, task.ended));
            span.0 = span.0.min(task.started);
            span.1 = span.1.max(task.ended);
        }
        spans.into_values().collect()
    }

    #[tokio::test(start_paused = true)]
    async fn once_the_run_is_stopped_no_task_and_no_round_starts() {
        for (concurrency, started) in [(1, 2), (2, 3)] {
            let journal = Arc::default();
            let participants = [
                participant("a", &journal, takes(100)),
                participant("b", &journal, takes(100)),
                participant("c", &journal, takes(100)),
            ];
            let plan = plan(10, concurrency, 0.0);
            stop_scheduling_after(&plan, 150);
            let mut tape = Tape::default();
            run_rounds(&participants, &plan, &mut tape).await.unwrap();
            assert_eq!(
                journal.started().len(),
                started,
                "concurrency {concurrency}"
            );
            assert_eq!(
                tape.records.len(),
                started,
                "every started task is recorded"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_round_runs_task_i_of_every_participant_in_participant_order() {
        let journal = Arc::default();
        let participants = [
            participant("a", &journal, takes(5)),
            participant("b", &journal, takes(1)),
            participant("c", &journal, takes(3)),
        ];
        let plan = phased_plan(&[(Some("cold"), 1), (Some("warm"), 1)], 1, 0.0);
        let mut tape = Tape::default();
        run_rounds(&participants, &plan, &mut tape).await.unwrap();

        assert_eq!(
            journal.started(),
            [("a", 0), ("b", 0), ("c", 0), ("a", 1), ("b", 1), ("c", 1)]
        );
        for ran in journal.ran() {
            let phase = if ran.index == 0 { "cold" } else { "warm" };
            assert_eq!(ran.phase.as_deref(), Some(phase));
        }
        let slots: Vec<(&str, usize)> = journal
            .ran()
            .iter()
            .map(|ran| (ran.participant, ran.slot))
            .collect();
        assert_eq!(
            slots,
            [("a", 0), ("b", 1), ("c", 2), ("a", 0), ("b", 1), ("c", 2)],
            "each participant keeps its slot across rounds"
        );
        for name in ["a", "b", "c"] {
            let indexes: Vec<u32> = tape
                .records_of(name)
                .iter()
                .map(|record| record.task_index)
                .collect();
            assert_eq!(indexes, [0, 1], "{name}");
        }
        let finished = |name: &str, index| Seen::TaskFinished(name.into(), index, 2);
        assert_eq!(
            tape.without_flushes(),
            [
                Seen::RoundsStarted(3, 2),
                finished("a", 0),
                finished("b", 0),
                finished("c", 0),
                finished("a", 1),
                finished("b", 1),
                finished("c", 1),
                Seen::RoundParticipantFinished("a".into(), false),
                Seen::RoundParticipantFinished("b".into(), false),
                Seen::RoundParticipantFinished("c".into(), false),
            ]
        );
    }

    fn orders(seed: Option<u64>, concurrency: u32) -> Vec<Vec<&'static str>> {
        let journal: Arc<Journal> = Arc::default();
        let participants: Vec<_> = ["a", "b", "c", "d", "e"]
            .into_iter()
            .map(|name| participant(name, &journal, takes(3)))
            .collect();
        let mut plan = plan(6, concurrency, 0.0);
        plan.shuffle_seed = seed;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime
            .block_on(run_rounds(&participants, &plan, &mut Tape::default()))
            .unwrap();
        journal
            .started()
            .chunks(5)
            .map(|round| round.iter().map(|(name, _)| *name).collect())
            .collect()
    }

    #[test]
    fn a_shuffle_changes_the_order_every_round_and_a_seed_repeats_it() {
        let plain = orders(None, 1);
        assert!(plain
            .iter()
            .all(|order| order == &["a", "b", "c", "d", "e"]));
        for concurrency in [1, 2] {
            let shuffled = orders(Some(7), concurrency);
            assert_eq!(shuffled.len(), 6);
            for order in &shuffled {
                let mut sorted = order.clone();
                sorted.sort();
                assert_eq!(sorted, ["a", "b", "c", "d", "e"], "every participant once");
            }
            assert!(
                shuffled.windows(2).any(|pair| pair[0] != pair[1]),
                "the order differs between rounds: {shuffled:?}"
            );
            assert_eq!(
                shuffled,
                orders(Some(7), concurrency),
                "the seed repeats it"
            );
            assert_ne!(shuffled, orders(Some(8), concurrency));
        }
    }

    #[tokio::test(start_paused = true)]
    async fn each_participant_warms_up_before_the_first_round() {
        let journal = Arc::default();
        let participants = [
            participant("a", &journal, takes(5)),
            participant("b", &journal, takes(5)),
        ];
        let mut plan = plan(2, 2, 0.0);
        plan.warmup = 1;
        let mut tape = Tape::default();
        run_rounds(&participants, &plan, &mut tape).await.unwrap();
        let started: Vec<(&str, Option<String>)> = journal
            .ran()
            .iter()
            .map(|r| (r.participant, r.phase.clone()))
            .collect();
        assert_eq!(
            started[..2],
            [("a", Some("warmup".into())), ("b", Some("warmup".into()))]
        );
        assert_eq!(journal.ran().len(), 6);
    }

    #[tokio::test(start_paused = true)]
    async fn a_round_starts_only_after_the_previous_round_finished() {
        let journal = Arc::default();
        let participants: Vec<_> = ["a", "b", "c", "d"]
            .into_iter()
            .enumerate()
            .map(|(n, name)| {
                participant(name, &journal, move |index| Behaviour {
                    delay: ms(10 + (n as u64 * 17 + u64::from(index) * 29) % 40),
                    fails: false,
                    unopened: false,
                })
            })
            .collect();
        run_rounds(&participants, &plan(3, 2, 0.0), &mut Tape::default())
            .await
            .unwrap();

        assert_eq!(journal.max_in_flight(), 2);
        let spans = round_spans(&journal.ran());
        assert_eq!(spans.len(), 3);
        for pair in spans.windows(2) {
            assert!(
                pair[1].0 >= pair[0].1,
                "a round started before the last ended"
            );
        }
        let started = journal.started();
        for round in started.chunks(4) {
            let order: Vec<&str> = round.iter().map(|(name, _)| *name).collect();
            assert_eq!(order, ["a", "b", "c", "d"], "started in participant order");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn rounds_are_separated_by_the_stagger_gap() {
        for concurrency in [1, 3] {
            let journal = Arc::default();
            let participants = [
                participant("a", &journal, takes(30)),
                participant("b", &journal, takes(70)),
            ];
            let mut tape = Tape::default();
            run_rounds(&participants, &plan(3, concurrency, 50.0), &mut tape)
                .await
                .unwrap();
            let spans = round_spans(&journal.ran());
            for pair in spans.windows(2) {
                assert_eq!(pair[1].0 - pair[0].1, ms(50), "concurrency {concurrency}");
            }
            let flushes = tape.flushes();
            for pair in spans.windows(2) {
                assert!(
                    flushes.contains(&pair[0].1),
                    "flushed before the gap (concurrency {concurrency})"
                );
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_participant_with_a_failed_task_ends_failed() {
        let journal = Arc::default();
        let participants = [
            participant("a", &journal, takes(1)),
            participant("b", &journal, |index| Behaviour {
                delay: ms(1),
                fails: index == 1,
                unopened: false,
            }),
        ];
        let mut tape = Tape::default();
        run_rounds(&participants, &plan(2, 2, 0.0), &mut tape)
            .await
            .unwrap();
        assert_eq!(tape.records_of("b")[1].error_code.as_deref(), Some("trap"));
        let endings: Vec<Seen> = tape
            .without_flushes()
            .into_iter()
            .filter(|seen| matches!(seen, Seen::RoundParticipantFinished(..)))
            .collect();
        assert_eq!(
            endings,
            [
                Seen::RoundParticipantFinished("a".into(), false),
                Seen::RoundParticipantFinished("b".into(), true),
            ]
        );
    }
}
