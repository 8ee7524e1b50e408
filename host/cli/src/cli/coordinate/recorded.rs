//! What the coordinator has recorded of the tasks the workers sent: every task of the run
//! at most once, counted per participant (recorded, succeeded) and per worker. A batch
//! counts only when it holds consecutive tasks of one of the run's units; one that does
//! not is left out, saying why.

use anyhow::Result;
use bench_model::dispatch::{Accepted, RecordBatch, RunUnits, TaskLedger, WorkUnit};
use bench_model::events::{RunEvent, RunObserver};
use bench_model::record::TaskRecord;
use std::collections::{BTreeMap, HashMap};

/// How many tasks each worker recorded, by worker name.
pub(in crate::cli) type WorkerShares = BTreeMap<String, u64>;

/// The tasks a run recorded before its coordinator was resumed.
pub(in crate::cli) struct Prior {
    tasks: Tasks,
}

impl Prior {
    /// Nothing recorded yet, for `participants` running `tasks` tasks each.
    pub(in crate::cli) fn new(participants: &[String], tasks: usize) -> Self {
        Self {
            tasks: Tasks {
                ledger: TaskLedger::new(participants, tasks as u64),
                counts: HashMap::new(),
            },
        }
    }

    /// Counts a record already on disk.
    pub(in crate::cli) fn add(&mut self, participant: &str, record: &TaskRecord) {
        self.tasks.accept(participant, record);
    }

    /// Whether task `index` of `participant` was recorded before.
    #[cfg(test)]
    pub(in crate::cli) fn contains(&self, participant: &str, index: u32) -> bool {
        self.tasks.ledger.contains(participant, index)
    }
}

/// Each task once, and how many per participant.
struct Tasks {
    ledger: TaskLedger,
    /// Per participant: tasks recorded and how many succeeded.
    counts: HashMap<String, (usize, usize)>,
}

impl Tasks {
    /// Counts `record` unless its task is recorded already (or not the run's); whether it
    /// is new.
    fn accept(&mut self, participant: &str, record: &TaskRecord) -> bool {
        if self.ledger.accept(participant, record.task_index) != Accepted::New {
            return false;
        }
        let counts = self.counts.entry(participant.to_owned()).or_default();
        counts.0 += 1;
        counts.1 += usize::from(record.is_success());
        true
    }
}

/// What the run recorded, and of whose work.
pub(super) struct Recorded {
    /// The units the run hands out (a batch of any other is left out).
    units: RunUnits,
    tasks: Tasks,
    shares: WorkerShares,
    /// The schedule length.
    total: usize,
}

impl Recorded {
    /// Starts from what a resumed run recorded before, for `units` of `total` tasks each.
    pub(super) fn new(units: RunUnits, prior: Prior, total: usize) -> Self {
        Self {
            units,
            tasks: prior.tasks,
            shares: WorkerShares::new(),
            total,
        }
    }

    /// Hands a batch's new tasks to `observer`; why the batch is left out, when it is not
    /// one a worker running one of the run's units sends.
    pub(super) fn take_batch(
        &mut self,
        batch: RecordBatch,
        observer: &mut dyn RunObserver,
    ) -> Result<Option<String>> {
        if !self.units.holds(&batch.unit) {
            return Ok(Some(format!(
                "a record batch of unit {}, which this run does not have",
                batch.unit.key()
            )));
        }
        if let Err(reason) = batch.check_tasks() {
            return Ok(Some(format!(
                "a record batch that is not its unit's: {reason}"
            )));
        }
        for (participant, finished) in batch.into_finished() {
            if !self.tasks.accept(&participant, &finished.record) {
                continue;
            }
            if let Some(worker) = &finished.worker {
                *self.shares.entry(worker.clone()).or_default() += 1;
            }
            observer.observe(RunEvent::TaskFinished {
                participant: &participant,
                finished: &finished,
                total: self.total,
            })?;
        }
        Ok(None)
    }

    /// `units` without those whose every task is recorded (a resumed run).
    pub(super) fn unrecorded(&self, units: Vec<WorkUnit>) -> Vec<WorkUnit> {
        let ledger = &self.tasks.ledger;
        units
            .into_iter()
            .filter(|unit| {
                unit.indices()
                    .any(|index| !ledger.contains(&unit.participant, index))
            })
            .collect()
    }

    /// Whether task `index` of `participant` is recorded.
    pub(super) fn contains(&self, participant: &str, index: u32) -> bool {
        self.tasks.ledger.contains(participant, index)
    }

    /// A participant's tasks recorded, and how many of them succeeded.
    pub(super) fn counts(&self, participant: &str) -> (usize, usize) {
        self.tasks
            .counts
            .get(participant)
            .copied()
            .unwrap_or_default()
    }

    /// Each worker's share, taken out.
    pub(super) fn take_shares(&mut self) -> WorkerShares {
        std::mem::take(&mut self.shares)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::config::GroupBy;
    use bench_model::dispatch::participant_units;
    use bench_model::events::Finished;
    use bench_model::plan::{ExecPlan, LoadModel, Schedule};
    use bench_model::stop::RunStop;
    use std::sync::Arc;
    use std::time::SystemTime;

    fn plan(tasks: usize, concurrency: u32) -> ExecPlan {
        ExecPlan {
            schedule: Arc::new(Schedule::from_phases([(None, tasks)])),
            concurrency,
            stagger_delay_ms: 0.0,
            load: LoadModel::Iterations,
            warmup: 0,
            shuffle_seed: None,
            stop: RunStop::default(),
        }
    }

    fn record(index: u32, status: &str) -> TaskRecord {
        serde_json::from_value(serde_json::json!({
            "taskIndex": index, "status": status, "startedAt": "s", "completedAt": "c",
            "latencyMs": 1, "steps": []
        }))
        .unwrap()
    }

    /// A batch of `unit` from `worker` with `tasks` (index, status).
    fn batch(unit: &WorkUnit, worker: &str, tasks: &[(u32, &str)]) -> RecordBatch {
        let mut batch = RecordBatch::new("run", unit, worker);
        for (index, status) in tasks {
            let finished = Finished {
                record: record(*index, status),
                log: Vec::new(),
                worker: None,
            };
            assert!(batch.push(&unit.participant, finished).is_none());
        }
        batch
    }

    /// The task indexes the observer was handed, by participant.
    #[derive(Default)]
    struct Seen(Vec<(String, u32)>);

    impl RunObserver for Seen {
        fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
            if let RunEvent::TaskFinished {
                participant,
                finished,
                ..
            } = event
            {
                self.0
                    .push((participant.to_owned(), finished.record.task_index));
            }
            Ok(())
        }
    }

    /// Participant mode, `a` and `b`, 4 tasks each in 2 slots: units `…/0/2` and `…/1/2`.
    fn recorded(prior: Prior) -> (Recorded, Vec<WorkUnit>) {
        let names = ["a".to_owned(), "b".to_owned()];
        let plan = plan(4, 2);
        let units = RunUnits::new(&names, &plan, GroupBy::Participant);
        let a = participant_units("a", &plan, SystemTime::now());
        (Recorded::new(units, prior, 4), a)
    }

    fn prior() -> Prior {
        Prior::new(&["a".to_owned(), "b".to_owned()], 4)
    }

    #[test]
    fn each_task_is_handed_on_once_and_counted_for_its_worker() {
        let (mut recorded, units) = recorded(prior());
        let mut seen = Seen::default();
        let first = batch(&units[0], "w1", &[(0, "success"), (2, "error")]);
        assert_eq!(recorded.take_batch(first.clone(), &mut seen).unwrap(), None);
        let again = batch(&units[0], "w2", &[(0, "success"), (2, "error")]);
        assert_eq!(
            recorded.take_batch(again, &mut seen).unwrap(),
            None,
            "a unit sent again"
        );
        let other = batch(&units[1], "w2", &[(1, "success")]);
        assert_eq!(recorded.take_batch(other, &mut seen).unwrap(), None);
        assert_eq!(seen.0, [("a".into(), 0), ("a".into(), 2), ("a".into(), 1)]);
        assert_eq!(recorded.counts("a"), (3, 2));
        assert_eq!(recorded.counts("b"), (0, 0));
        assert!(recorded.contains("a", 2) && !recorded.contains("a", 3));
        assert_eq!(
            recorded.take_shares(),
            WorkerShares::from([("w1".into(), 2), ("w2".into(), 1)])
        );
    }

    #[test]
    fn a_batch_that_is_not_one_of_the_runs_units_is_left_out_saying_why() {
        let (mut recorded, units) = recorded(prior());
        let mut seen = Seen::default();
        let mut foreign = units[0].clone();
        foreign.step = 1;
        let left_out = recorded
            .take_batch(batch(&foreign, "w", &[(0, "success")]), &mut seen)
            .unwrap();
        assert_eq!(
            left_out.as_deref(),
            Some("a record batch of unit a/0/1, which this run does not have")
        );
        let repeating = batch(&units[0], "w", &[(0, "success"), (0, "success")]);
        let left_out = recorded.take_batch(repeating, &mut seen).unwrap();
        assert_eq!(
            left_out.as_deref(),
            Some("a record batch that is not its unit's: task 0 where unit a/0/2 runs task 2")
        );
        assert_eq!(seen.0, []);
        assert_eq!(recorded.counts("a"), (0, 0));
    }

    #[test]
    fn a_resumed_run_hands_out_only_units_with_tasks_missing() {
        let mut prior = prior();
        prior.add("a", &record(0, "success"));
        prior.add("a", &record(2, "error"));
        prior.add("a", &record(2, "success"));
        prior.add("a", &record(1, "success"));
        let (mut recorded, units) = recorded(prior);
        assert_eq!(
            recorded.counts("a"),
            (3, 2),
            "a task on disk twice counts once"
        );
        let left = recorded.unrecorded(units.clone());
        assert_eq!(left, [units[1].clone()], "unit a/0/2 is recorded whole");
        let mut seen = Seen::default();
        let rest = batch(&units[1], "w", &[(1, "success"), (3, "success")]);
        recorded.take_batch(rest, &mut seen).unwrap();
        assert_eq!(seen.0, [("a".into(), 3)], "task 1 was recorded before");
        assert_eq!(recorded.unrecorded(units), []);
    }
}
