//! What a worker sends back: a batch of finished tasks of one unit, with the worker's
//! name. A batch is untrusted input to the coordinator: its size is bounded and every task
//! in it is checked against the run ([`TaskLedger`](super::TaskLedger)).

use super::WorkUnit;
use crate::events::Finished;
use crate::record::TaskRecord;
use anyhow::{bail, Context as _, Result};
use serde::{Deserialize, Serialize};

/// The largest batch a coordinator reads (NATS's default message limit).
pub const MAX_BATCH_BYTES: usize = 1024 * 1024;

/// Finished tasks of one unit, in the order they ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordBatch {
    /// The run.
    pub run_id: String,
    /// The unit's [`WorkUnit::key`].
    pub unit: String,
    /// The worker that ran them.
    pub worker: String,
    /// The tasks.
    pub tasks: Vec<TaskEntry>,
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

impl RecordBatch {
    /// An empty batch of `unit`'s tasks run by `worker`.
    pub fn new(run_id: &str, unit: &WorkUnit, worker: &str) -> Self {
        Self {
            run_id: run_id.to_owned(),
            unit: unit.key(),
            worker: worker.to_owned(),
            tasks: Vec::new(),
        }
    }

    /// Adds a finished task of `participant`.
    pub fn push(&mut self, participant: &str, finished: Finished) {
        self.tasks.push(TaskEntry {
            participant: participant.to_owned(),
            record: finished.record,
            log: finished.log,
        });
    }

    /// The message id that lets the transport drop a batch sent twice:
    /// `<run>/<participant>/<first taskIndex>` (batches of a unit are cut at the same
    /// task positions on every attempt).
    pub fn message_id(&self) -> Option<String> {
        let first = self.tasks.first()?;
        Some(format!(
            "{}/{}/{}",
            self.run_id, first.participant, first.record.task_index
        ))
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
    fn a_batch_round_trips_and_names_its_first_task() {
        let mut batch = RecordBatch::new("run-1", &unit(), "w1");
        assert_eq!(batch.message_id(), None);
        for index in [2, 5] {
            let finished = Finished {
                record: TaskRecord::bare(index, Status::Success, 1.5),
                log: vec![format!("line {index}")],
                worker: None,
            };
            batch.push("a", finished);
        }
        assert_eq!(batch.unit, "a/2/3");
        assert_eq!(batch.message_id().as_deref(), Some("run-1/a/2"));
        let read = RecordBatch::from_bytes(&batch.to_bytes()).unwrap();
        let tasks: Vec<(String, u32, Vec<String>, Option<String>)> = read
            .into_finished()
            .map(|(p, f)| (p, f.record.task_index, f.log, f.worker))
            .collect();
        assert_eq!(
            tasks[1],
            ("a".into(), 5, vec!["line 5".into()], Some("w1".into()))
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
