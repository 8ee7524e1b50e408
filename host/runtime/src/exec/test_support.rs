//! A fake [`TaskRunner`] for the executors' unit tests and those of the crates above them
//! (the `test-support` feature; no guest, no sandbox): each task
//! sleeps for a chosen time on tokio's clock (pause it for deterministic time), then
//! succeeds or fails as told, and a shared [`Journal`] says when each task ran and how many
//! ran at once.

use super::outcome::{build_record, TaskEnd, Timing};
use super::{ExecPlan, ParticipantRun, RoomCheck, SlotFactory, TaskRunner};
use crate::sandbox::context::RecordedTask;
use crate::sandbox::limits::StopCode;
use anyhow::Result;
use bench_contract::bench::task::model::TaskOutput;
use bench_model::events::{Finished, RunEvent, RunObserver};
use bench_model::plan::{LoadModel, Schedule};
use bench_model::record::TaskRecord;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// What one fake task does.
#[derive(Debug, Clone, Copy)]
pub struct Behaviour {
    /// How long it runs.
    pub delay: Duration,
    /// Whether it ends as a trap.
    pub fails: bool,
    /// Whether its slot cannot open its sandbox for it (an instantiation failure).
    pub unopened: bool,
}

/// One task the fake ran.
#[derive(Debug, Clone)]
pub struct Ran {
    /// The participant it ran for.
    pub participant: &'static str,
    /// The slot that ran it, numbered in opening order (across participants).
    pub slot: usize,
    /// Its schedule index.
    pub index: u32,
    /// The phase it was given.
    pub phase: Option<String>,
    /// When it started, on tokio's clock.
    pub started: Instant,
    /// When it ended, on tokio's clock.
    pub ended: Instant,
}

/// What the fakes of one test did.
#[derive(Debug, Default)]
pub struct Journal {
    state: Mutex<JournalState>,
}

#[derive(Debug, Default)]
struct JournalState {
    started: Vec<(&'static str, u32)>,
    ran: Vec<Ran>,
    slots_opened: usize,
    /// Slots whose first task started (whose sandbox is "instantiated") and that were not
    /// dropped since.
    instantiated: usize,
    in_flight: usize,
    max_in_flight: usize,
}

impl Journal {
    /// (participant, index) in the order the tasks started.
    pub fn started(&self) -> Vec<(&'static str, u32)> {
        self.lock().started.clone()
    }

    /// Every finished task, in finishing order.
    pub fn ran(&self) -> Vec<Ran> {
        self.lock().ran.clone()
    }

    /// How many slots were opened.
    pub fn slots_opened(&self) -> usize {
        self.lock().slots_opened
    }

    /// The sandboxes open now: slots that ran a task and were not dropped.
    pub fn sandboxes_open(&self) -> usize {
        self.lock().instantiated
    }

    /// The most tasks that ran at once.
    pub fn max_in_flight(&self) -> usize {
        self.lock().max_in_flight
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, JournalState> {
        self.state.lock().unwrap()
    }
}

type BehaviourOf = Arc<dyn Fn(u32) -> Behaviour + Send + Sync>;

/// The slots of one fake participant.
#[derive(Clone)]
pub struct FakeSlots {
    participant: &'static str,
    behaviour: BehaviourOf,
    journal: Arc<Journal>,
    /// How many sandboxes the run has memory for (`None`: no bound); a test may change it
    /// while the run goes on (the sandboxes "grew").
    room_for: Option<Arc<AtomicUsize>>,
}

/// One slot of a fake participant.
pub struct FakeRunner {
    slots: FakeSlots,
    slot: usize,
    unopened: bool,
    instantiated: bool,
}

impl SlotFactory for FakeSlots {
    type Runner = FakeRunner;

    fn open_slot(&self) -> FakeRunner {
        let mut state = self.journal.lock();
        state.slots_opened += 1;
        FakeRunner {
            slots: self.clone(),
            slot: state.slots_opened - 1,
            unopened: false,
            instantiated: false,
        }
    }

    fn room_check(&self) -> Option<RoomCheck> {
        let (journal, room_for) = (self.journal.clone(), self.room_for.clone()?);
        Some(Arc::new(move || {
            room_for
                .load(Ordering::Relaxed)
                .saturating_sub(journal.lock().instantiated)
        }))
    }
}

impl TaskRunner for FakeRunner {
    async fn run(&mut self, index: u32, phase: Option<&str>) -> Finished {
        let behaviour = (self.slots.behaviour)(index);
        let started = Instant::now();
        {
            let mut state = self.slots.journal.lock();
            state.started.push((self.slots.participant, index));
            if !self.instantiated {
                self.instantiated = true;
                state.instantiated += 1;
            }
            state.in_flight += 1;
            state.max_in_flight = state.max_in_flight.max(state.in_flight);
        }
        tokio::time::sleep(behaviour.delay).await;
        let ended = Instant::now();
        {
            let mut state = self.slots.journal.lock();
            state.in_flight -= 1;
            state.ran.push(Ran {
                participant: self.slots.participant,
                slot: self.slot,
                index,
                phase: phase.map(str::to_owned),
                started,
                ended,
            });
        }
        self.unopened = behaviour.unopened;
        let ending = if behaviour.unopened {
            TaskEnd::Stopped {
                code: StopCode::InstantiationFailed,
                message: "could not instantiate the task".into(),
            }
        } else if behaviour.fails {
            TaskEnd::Stopped {
                code: StopCode::Trap,
                message: "task trapped: unreachable".into(),
            }
        } else {
            TaskEnd::Output(TaskOutput {
                data: None,
                latency_ms: None,
                steps: Vec::new(),
            })
        };
        let elapsed = ended - started;
        let timing = Timing {
            started_at: SystemTime::UNIX_EPOCH,
            completed_at: SystemTime::UNIX_EPOCH + elapsed,
            elapsed,
        };
        let record = build_record(index, phase, timing, RecordedTask::default(), ending);
        Finished {
            record,
            log: vec![format!("[task {index}] done")],
            worker: None,
        }
    }

    fn could_not_open(&self) -> bool {
        self.unopened
    }
}

impl Drop for FakeRunner {
    fn drop(&mut self) {
        if self.instantiated {
            self.slots.journal.lock().instantiated -= 1;
        }
    }
}

/// A fake participant whose task `i` behaves as `behaviour(i)`.
pub fn participant(
    name: &'static str,
    journal: &Arc<Journal>,
    behaviour: impl Fn(u32) -> Behaviour + Send + Sync + 'static,
) -> ParticipantRun<FakeSlots> {
    ParticipantRun {
        name: name.to_owned(),
        slots: FakeSlots {
            participant: name,
            behaviour: Arc::new(behaviour),
            journal: journal.clone(),
            room_for: None,
        },
    }
}

/// A fake participant, as [`participant`], in a run with memory for `sandboxes` sandboxes
/// (read at each check: storing another number there is the sandboxes growing or shrinking).
pub fn participant_with_room(
    name: &'static str,
    journal: &Arc<Journal>,
    sandboxes: &Arc<AtomicUsize>,
    behaviour: impl Fn(u32) -> Behaviour + Send + Sync + 'static,
) -> ParticipantRun<FakeSlots> {
    let mut fake = participant(name, journal, behaviour);
    fake.slots.room_for = Some(sandboxes.clone());
    fake
}

/// Every task takes `ms` milliseconds and succeeds.
pub fn takes(ms: u64) -> impl Fn(u32) -> Behaviour + Send + Sync + 'static {
    move |_| Behaviour {
        delay: Duration::from_millis(ms),
        fails: false,
        unopened: false,
    }
}

/// A plan of `iterations` untagged tasks.
pub fn plan(iterations: usize, concurrency: u32, stagger_delay_ms: f64) -> ExecPlan {
    phased_plan(&[(None, iterations)], concurrency, stagger_delay_ms)
}

/// A plan of these phases with counts.
pub fn phased_plan(
    phases: &[(Option<&str>, usize)],
    concurrency: u32,
    stagger_delay_ms: f64,
) -> ExecPlan {
    let phases = phases
        .iter()
        .map(|(phase, count)| (phase.map(str::to_owned), *count));
    ExecPlan {
        schedule: Arc::new(Schedule::from_phases(phases)),
        concurrency,
        stagger_delay_ms,
        load: LoadModel::Iterations,
        warmup: 0,
        shuffle_seed: None,
        stop: Default::default(),
    }
}

/// A [`RunEvent`] as the [`Tape`] keeps it (owned, records reduced to their indexes).
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    /// The participant.
    ParticipantStarted(String),
    /// The participant, the task index and the schedule length.
    TaskFinished(String, u32, usize),
    /// The participant and the index of a dropped arrival.
    TaskDropped(String, u32),
    /// The participant, its finished tasks and how many succeeded.
    ParticipantFinished(String, usize, usize),
    /// Participants and rounds.
    RoundsStarted(usize, usize),
    /// The participant and whether it failed.
    RoundParticipantFinished(String, bool),
    /// A flush.
    Flush,
}

/// An observer that keeps every event with the time it arrived, and every record.
#[derive(Debug, Default)]
pub struct Tape {
    /// Every event, on tokio's clock.
    pub events: Vec<(Instant, Seen)>,
    /// Every finished task's participant and record, in the order they were reported.
    pub records: Vec<(String, TaskRecord)>,
}

impl Tape {
    /// The records of one participant, sorted by task index.
    pub fn records_of(&self, participant: &str) -> Vec<TaskRecord> {
        let mut records: Vec<TaskRecord> = self
            .records
            .iter()
            .filter(|(name, _)| name == participant)
            .map(|(_, record)| record.clone())
            .collect();
        records.sort_by_key(|record| record.task_index);
        records
    }

    /// The events, flushes left out.
    pub fn without_flushes(&self) -> Vec<Seen> {
        self.events
            .iter()
            .map(|(_, seen)| seen.clone())
            .filter(|seen| *seen != Seen::Flush)
            .collect()
    }

    /// When each flush arrived.
    pub fn flushes(&self) -> Vec<Instant> {
        self.events
            .iter()
            .filter(|(_, seen)| *seen == Seen::Flush)
            .map(|(at, _)| *at)
            .collect()
    }
}

impl RunObserver for Tape {
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        let seen = match event {
            RunEvent::ParticipantStarted { participant } => {
                Seen::ParticipantStarted(participant.into())
            }
            RunEvent::TaskFinished {
                participant,
                finished,
                total,
            } => {
                self.records
                    .push((participant.into(), finished.record.clone()));
                Seen::TaskFinished(participant.into(), finished.record.task_index, total)
            }
            RunEvent::TaskDropped { participant, index } => {
                Seen::TaskDropped(participant.into(), index)
            }
            RunEvent::ParticipantFinished {
                participant,
                tasks,
                succeeded,
            } => Seen::ParticipantFinished(participant.into(), tasks, succeeded),
            RunEvent::RoundsStarted {
                participants,
                rounds,
            } => Seen::RoundsStarted(participants, rounds),
            RunEvent::RoundParticipantFinished {
                participant,
                failed,
            } => Seen::RoundParticipantFinished(participant.into(), failed),
            RunEvent::Flush => Seen::Flush,
        };
        self.events.push((Instant::now(), seen));
        Ok(())
    }
}

/// `n` milliseconds.
pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Stops scheduling in `plan`'s run after `after_ms` milliseconds (of the paused clock).
pub fn stop_scheduling_after(plan: &ExecPlan, after_ms: u64) {
    let stop = plan.stop.clone();
    tokio::spawn(async move {
        tokio::time::sleep(ms(after_ms)).await;
        stop.stop_scheduling();
    });
}
