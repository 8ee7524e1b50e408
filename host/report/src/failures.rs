//! The failure gates of a run: it fails (exit 2) when every task failed (unless
//! `--allow-all-failed`, upstream's behaviour) or when more than `--max-failure-rate` of its
//! tasks failed. The gates read the run's task counts; [`FirstFailure`] watches the tasks as
//! they finish and keeps the first failure to show why, so no record stays in memory.

use anyhow::Result;
use bench_model::events::{RunEvent, RunObserver};
use bench_model::js;
use bench_model::plan::TaskCounts;
use bench_model::record::TaskRecord;
use bench_model::text::escape_control;

/// The exit code of a run whose tasks failed past a gate.
pub const FAILED_TASKS_EXIT: u8 = 2;

/// The gates a run was given.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FailureGates {
    /// `--allow-all-failed`: a run whose every task failed still succeeds (upstream).
    pub allow_all_failed: bool,
    /// `--max-failure-rate`: the largest share of failed tasks (0 to 1) a run may have.
    pub max_failure_rate: Option<f64>,
}

/// The first task of a run that failed, as one line, taken as the tasks finish.
#[derive(Debug, Default)]
pub struct FirstFailure {
    line: Option<String>,
}

impl RunObserver for FirstFailure {
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        if let RunEvent::TaskFinished {
            participant,
            finished,
            ..
        } = event
        {
            self.see(participant, &finished.record);
        }
        Ok(())
    }
}

impl FirstFailure {
    fn see(&mut self, participant: &str, record: &TaskRecord) {
        if self.line.is_none() && !record.is_success() {
            self.line = Some(failure_line(participant, record));
        }
    }

    /// The one line saying why a run with `counts` fails its gates, or `None` when it
    /// passes them. A run without tasks passes.
    pub fn verdict(&self, counts: TaskCounts, gates: &FailureGates) -> Option<String> {
        let TaskCounts { total, failed } = counts;
        let first = self.line.as_deref().unwrap_or_default();
        if total > 0 && failed == total && !gates.allow_all_failed {
            let all = if total == 1 {
                "The only task failed".to_owned()
            } else {
                format!("All {total} tasks failed")
            };
            return Some(format!(
                "{all} (first: {first}); --allow-all-failed exits 0 all the same"
            ));
        }
        let rate = gates.max_failure_rate?;
        let share = failed as f64 / total.max(1) as f64;
        (share > rate).then(|| {
            format!(
                "{failed} of {total} tasks failed ({}%), more than --max-failure-rate {} allows \
                 (first: {first})",
                js::number_to_string((share * 1000.0).round() / 10.0),
                js::number_to_string(rate)
            )
        })
    }
}

/// `[participant] task n: code — message` (the message only when the record has one).
fn failure_line(participant: &str, record: &TaskRecord) -> String {
    let message = record.error_message();
    let code = record.error_label();
    let reason = match message {
        Some(message) if message != code => format!("{code} \u{2014} {message}"),
        _ => code.to_owned(),
    };
    format!(
        "[{}] task {}: {}",
        escape_control(participant),
        u64::from(record.task_index) + 1,
        escape_control(&reason)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::record::Status;
    use serde_json::json;

    fn record(index: u32, failure: Option<(&str, &str)>) -> TaskRecord {
        let (status, code, data) = match failure {
            None => (Status::Success, None, None),
            Some((code, message)) => (
                Status::Error,
                Some(code.to_owned()),
                json!({"errorMessage": message}).as_object().cloned(),
            ),
        };
        TaskRecord {
            error_code: code,
            data,
            ..TaskRecord::bare(index, status, 1.0)
        }
    }

    /// The run's counts and its first failure.
    fn tally(records: &[TaskRecord]) -> (TaskCounts, FirstFailure) {
        let mut counts = TaskCounts::default();
        let mut first = FirstFailure::default();
        for record in records {
            counts.add(record);
            first.see("local", record);
        }
        (counts, first)
    }

    fn verdict(
        (counts, first): &(TaskCounts, FirstFailure),
        gates: &FailureGates,
    ) -> Option<String> {
        first.verdict(*counts, gates)
    }

    const OOM: Option<(&str, &str)> = Some((
        "instantiation_failed",
        "could not instantiate the task: memory limit",
    ));

    #[test]
    fn a_run_whose_every_task_failed_fails_with_the_first_reason() {
        let all_failed = tally(&[record(0, OOM), record(1, OOM)]);
        assert_eq!(
            verdict(&all_failed, &FailureGates::default()).unwrap(),
            "All 2 tasks failed (first: [local] task 1: instantiation_failed \u{2014} could not \
             instantiate the task: memory limit); --allow-all-failed exits 0 all the same"
        );
        let allowed = FailureGates {
            allow_all_failed: true,
            ..FailureGates::default()
        };
        assert_eq!(verdict(&all_failed, &allowed), None);
        let one = tally(&[record(0, Some(("trap", "trap")))]);
        assert_eq!(
            verdict(&one, &FailureGates::default()).unwrap(),
            "The only task failed (first: [local] task 1: trap); --allow-all-failed exits 0 \
             all the same"
        );
    }

    #[test]
    fn some_failures_pass_unless_past_the_max_failure_rate() {
        let records: Vec<TaskRecord> = (0..20)
            .map(|index| record(index, (index % 10 == 3).then_some(("trap", "boom"))))
            .collect();
        let mixed = tally(&records);
        assert_eq!(verdict(&mixed, &FailureGates::default()), None);
        let gate = |rate| FailureGates {
            max_failure_rate: Some(rate),
            ..FailureGates::default()
        };
        assert_eq!(verdict(&mixed, &gate(0.1)), None, "10% is within 0.1");
        assert_eq!(
            verdict(&mixed, &gate(0.05)).unwrap(),
            "2 of 20 tasks failed (10%), more than --max-failure-rate 0.05 allows (first: \
             [local] task 4: trap \u{2014} boom)"
        );
        assert_eq!(
            verdict(&tally(&[]), &gate(0.0)),
            None,
            "no task, no failure"
        );
    }
}
