//! What a worker sends back: a batch of finished tasks of one unit, with the worker's
//! name. A batch is untrusted input to the coordinator: its size is bounded, it must hold
//! consecutive tasks of its unit ([`RecordBatch::check_tasks`]), the unit must be one of
//! the run's ([`RunUnits`](super::RunUnits)) and every task is checked against the run
//! ([`TaskLedger`](super::TaskLedger)).

use super::WorkUnit;
use crate::events::Finished;
use crate::record::{Data, Status, TaskRecord};
use anyhow::{bail, Context as _, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest batch a coordinator reads (NATS's default message limit).
pub const MAX_BATCH_BYTES: usize = 1024 * 1024;

/// Most tasks in one batch.
const TASKS_PER_BATCH: usize = 64;

/// Most bytes of the tasks of one batch (room is left for the envelope): also the most one
/// task may take; a larger one travels without its log, or as a failed record.
const TASK_BYTES_PER_BATCH: usize = 768 * 1024;

/// The errorCode of a task whose record is too large to send.
const RECORD_TOO_LARGE: &str = "record_too_large";

/// Finished tasks of one unit, in the order they ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordBatch {
    /// The run.
    pub run_id: String,
    /// The unit the tasks belong to.
    pub unit: WorkUnit,
    /// The worker that ran them.
    pub worker: String,
    /// The tasks.
    pub tasks: Vec<TaskEntry>,
    /// What the tasks take as JSON.
    #[serde(skip)]
    bytes: usize,
}

/// One finished task as it travels: its participant, record and log lines.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskEntry {
    /// The participant's name.
    pub participant: String,
    /// The record (timed inside the worker).
    pub record: TaskRecord,
    /// Lines for the participant log.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<String>,
}

impl TaskEntry {
    /// The entry of a finished task, made to fit in a batch: a task larger than
    /// [`TASK_BYTES_PER_BATCH`] travels without its log lines (one line says so), and if
    /// it is still too large, as a failed record that says why.
    fn fitted(participant: &str, finished: Finished) -> Self {
        let mut entry = Self {
            participant: participant.to_owned(),
            record: finished.record,
            log: finished.log,
        };
        if entry.size() <= TASK_BYTES_PER_BATCH {
            return entry;
        }
        let index = entry.record.task_index;
        entry.log = vec![format!(
            "[task {index}] [warn] the task's log lines were too large to send from the worker and are left out"
        )];
        if entry.size() <= TASK_BYTES_PER_BATCH {
            return entry;
        }
        let record = &mut entry.record;
        record.status = Status::Error;
        record.error_code = Some(RECORD_TOO_LARGE.to_owned());
        record.steps.clear();
        let phase = record
            .data
            .as_ref()
            .and_then(|data| data.get("phase").cloned());
        let mut data = Data::new();
        data.insert(
            "errorMessage".into(),
            Value::String(format!(
                "the task's record is larger than the {TASK_BYTES_PER_BATCH} bytes a worker can send"
            )),
        );
        if let Some(phase) = phase {
            data.insert("phase".into(), phase);
        }
        record.data = Some(data);
        entry
    }

    /// The entry's size as JSON.
    fn size(&self) -> usize {
        serde_json::to_vec(self).map_or(usize::MAX, |bytes| bytes.len())
    }
}

impl RecordBatch {
    /// An empty batch of `unit`'s tasks run by `worker`.
    pub fn new(run_id: &str, unit: &WorkUnit, worker: &str) -> Self {
        Self {
            run_id: run_id.to_owned(),
            unit: unit.clone(),
            worker: worker.to_owned(),
            tasks: Vec::new(),
            bytes: 0,
        }
    }

    /// Adds a finished task of `participant`; returns the tasks before it as a batch to
    /// send first when they are a full batch ([`TASKS_PER_BATCH`] tasks or
    /// [`TASK_BYTES_PER_BATCH`] bytes). Batches are cut at the same tasks on every attempt
    /// of a unit whose records are the same size.
    pub fn push(&mut self, participant: &str, finished: Finished) -> Option<RecordBatch> {
        let entry = TaskEntry::fitted(participant, finished);
        let size = entry.size();
        let full = self.tasks.len() >= TASKS_PER_BATCH || self.bytes + size > TASK_BYTES_PER_BATCH;
        let ready = (full && !self.tasks.is_empty()).then(|| self.take());
        self.tasks.push(entry);
        self.bytes += size;
        ready
    }

    /// The tasks so far as a batch of their own; this one goes on empty.
    pub fn take(&mut self) -> RecordBatch {
        let batch = RecordBatch {
            run_id: self.run_id.clone(),
            unit: self.unit.clone(),
            worker: self.worker.clone(),
            tasks: std::mem::take(&mut self.tasks),
            bytes: self.bytes,
        };
        self.bytes = 0;
        batch
    }

    /// The first and last taskIndex of the batch (`None` when empty).
    pub fn task_range(&self) -> Option<(u32, u32)> {
        let first = self.tasks.first()?.record.task_index;
        let last = self.tasks.last()?.record.task_index;
        Some((first, last))
    }

    /// Refuses a batch that is not a run of consecutive tasks of its unit (what a worker
    /// running the unit sends): empty, another participant's task, an index the unit does
    /// not have or out of order.
    pub fn check_tasks(&self) -> Result<(), String> {
        let unit = &self.unit;
        let Some(first) = self.tasks.first() else {
            return Err("an empty batch".into());
        };
        let step = unit.step.max(1);
        let start = first.record.task_index;
        let offset = start
            .checked_sub(unit.first)
            .filter(|distance| distance % step == 0)
            .map(|distance| distance / step)
            .ok_or_else(|| format!("task {start} is not one of unit {}", unit.key()))?;
        if u64::from(offset) + self.tasks.len() as u64 > u64::from(unit.count) {
            return Err(format!(
                "{} tasks from task {start} run past the end of unit {}",
                self.tasks.len(),
                unit.key()
            ));
        }
        for (n, task) in self.tasks.iter().enumerate() {
            if task.participant != unit.participant {
                return Err(format!(
                    "a task of \"{}\" in a batch of unit {}",
                    task.participant,
                    unit.key()
                ));
            }
            let expected = u64::from(start) + n as u64 * u64::from(step);
            if u64::from(task.record.task_index) != expected {
                return Err(format!(
                    "task {} where unit {} runs task {expected}",
                    task.record.task_index,
                    unit.key()
                ));
            }
        }
        Ok(())
    }

    /// The batch as JSON bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a record batch serializes")
    }

    /// Reads a batch, refusing one larger than [`MAX_BATCH_BYTES`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() > MAX_BATCH_BYTES {
            bail!(
                "a record batch of {} bytes is larger than the {MAX_BATCH_BYTES}-byte limit",
                bytes.len()
            );
        }
        serde_json::from_slice(bytes).context("a record batch is not valid JSON of a batch")
    }

    /// Each task as the coordinator's observers see it, noting the worker.
    pub fn into_finished(self) -> impl Iterator<Item = (String, Finished)> {
        let worker = self.worker;
        self.tasks.into_iter().map(move |task| {
            let finished = Finished {
                record: task.record,
                log: task.log,
                worker: Some(worker.clone()),
            };
            (task.participant, finished)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;

    fn unit() -> WorkUnit {
        WorkUnit {
            participant: "a".into(),
            first: 2,
            step: 3,
            count: 2,
            ramp_anchor_ms: None,
        }
    }

    #[test]
    fn a_batch_round_trips_and_names_its_tasks() {
        let mut batch = RecordBatch::new("run-1", &unit(), "w1");
        assert_eq!(batch.task_range(), None);
        for index in [2, 5] {
            let mut record = TaskRecord::bare(index, Status::Success, 1.5);
            record.duration_us = Some(1500.25 + f64::from(index));
            let finished = Finished {
                record,
                log: vec![format!("line {index}")],
                worker: None,
            };
            assert!(batch.push("a", finished).is_none());
        }
        assert_eq!(batch.unit, unit());
        assert_eq!(batch.task_range(), Some((2, 5)));
        assert_eq!(batch.check_tasks(), Ok(()));
        let read = RecordBatch::from_bytes(&batch.to_bytes()).unwrap();
        let (participant, last) = read.into_finished().last().unwrap();
        assert_eq!(participant, "a");
        assert_eq!(last.record.task_index, 5);
        assert_eq!(
            last.record.duration_us,
            Some(1505.25),
            "the duration travels"
        );
        assert_eq!(last.log, ["line 5"]);
        assert_eq!(last.worker.as_deref(), Some("w1"));
    }

    fn finished(index: u32, log_bytes: usize, data_bytes: usize) -> Finished {
        let mut record = TaskRecord::bare(index, Status::Success, 1.0);
        let mut data = Data::new();
        data.insert("phase".into(), "warm".into());
        data.insert("blob".into(), "x".repeat(data_bytes).into());
        record.data = Some(data);
        Finished {
            record,
            log: vec!["l".repeat(log_bytes)],
            worker: None,
        }
    }

    #[test]
    fn batches_are_cut_at_64_tasks_or_768_kib() {
        let mut batch = RecordBatch::new("r", &unit(), "w");
        let mut sent = Vec::new();
        for index in 0..130 {
            sent.extend(batch.push("a", finished(index, 0, 0)));
        }
        let sizes: Vec<usize> = sent.iter().map(|b| b.tasks.len()).collect();
        assert_eq!((sizes, batch.tasks.len()), (vec![64, 64], 2));
        assert_eq!(sent[1].task_range(), Some((64, 127)));

        let mut batch = RecordBatch::new("r", &unit(), "w");
        let big = 300 * 1024;
        let sent: Vec<RecordBatch> = (0..5)
            .filter_map(|i| batch.push("a", finished(i, 0, big)))
            .collect();
        assert_eq!(
            sent.iter().map(|b| b.tasks.len()).collect::<Vec<_>>(),
            [2, 2]
        );
        assert!(sent.iter().all(|b| b.to_bytes().len() <= MAX_BATCH_BYTES));
    }

    #[test]
    fn a_task_too_large_to_send_loses_its_log_then_its_record() {
        let mut batch = RecordBatch::new("r", &unit(), "w");
        batch.push("a", finished(0, 900 * 1024, 10));
        let entry = &batch.tasks[0];
        assert!(entry.record.is_success());
        assert!(
            entry.log[0].contains("log lines were too large to send"),
            "{:?}",
            entry.log
        );

        batch.push("a", finished(1, 10, 900 * 1024));
        let record = &batch.tasks[1].record;
        assert_eq!(record.status, Status::Error);
        assert_eq!(record.error_code.as_deref(), Some("record_too_large"));
        let data = record.data.as_ref().unwrap();
        assert_eq!(data["phase"], "warm");
        assert!(data["errorMessage"]
            .as_str()
            .unwrap()
            .contains("larger than the 786432 bytes"));
        assert!(batch.take().to_bytes().len() <= MAX_BATCH_BYTES);
    }

    #[test]
    fn a_batch_holds_consecutive_tasks_of_its_unit_only() {
        let with = |indices: &[u32], participant: &str| {
            let mut batch = RecordBatch::new("r", &unit(), "w");
            for index in indices {
                batch.push(participant, finished(*index, 0, 0));
            }
            batch.check_tasks()
        };
        // unit(): indices 2 and 5.
        assert_eq!(with(&[5], "a"), Ok(()));
        assert_eq!(with(&[], "a"), Err("an empty batch".into()));
        assert_eq!(
            with(&[3], "a"),
            Err("task 3 is not one of unit a/2/3".into())
        );
        assert_eq!(
            with(&[1], "a"),
            Err("task 1 is not one of unit a/2/3".into())
        );
        assert_eq!(
            with(&[5, 8], "a"),
            Err("2 tasks from task 5 run past the end of unit a/2/3".into())
        );
        assert_eq!(
            with(&[5, 2], "a").unwrap_err(),
            "2 tasks from task 5 run past the end of unit a/2/3"
        );
        assert_eq!(
            with(&[2], "b"),
            Err("a task of \"b\" in a batch of unit a/2/3".into())
        );
        let long = WorkUnit { count: 3, ..unit() };
        let mut batch = RecordBatch::new("r", &long, "w");
        for index in [2, 8] {
            batch.push("a", finished(index, 0, 0));
        }
        assert_eq!(
            batch.check_tasks(),
            Err("task 8 where unit a/2/3 runs task 5".into())
        );
    }

    #[test]
    fn an_oversized_or_foreign_batch_is_refused() {
        let huge = vec![b' '; MAX_BATCH_BYTES + 1];
        let error = RecordBatch::from_bytes(&huge).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("larger than the 1048576-byte limit"),
            "{error}"
        );
        let error = RecordBatch::from_bytes(b"{\"runId\": 3}").unwrap_err();
        assert!(
            error.to_string().contains("not valid JSON of a batch"),
            "{error}"
        );
    }
}
