//! The warning of a participant whose tasks found no sandbox: tasks that failed with
//! `instantiation_failed`, their sandbox not opened (e.g. past the run's host memory
//! budget). The executor retires such slots, and an open model stops opening sandboxes, so
//! the run goes on with fewer sandboxes than it asked for; the warning says so, with how
//! many tasks it cost and why. Taken from the records, so `bench report` prints the same.

use bench_model::record::TaskRecord;
use bench_model::text::escape_control;

/// The error code of a task whose sandbox could not be opened.
const INSTANTIATION_FAILED: &str = "instantiation_failed";

/// One participant's tasks that found no sandbox.
#[derive(Debug, Default)]
pub(crate) struct Unopened {
    tasks: u64,
    /// The first one's message.
    first: Option<String>,
}

impl Unopened {
    /// Counts `record` when its sandbox could not be opened: its code says so and no guest
    /// ran (a task may return that code itself, but then it has guest CPU).
    pub(crate) fn add(&mut self, record: &TaskRecord) {
        if record.error_code.as_deref() != Some(INSTANTIATION_FAILED)
            || record.guest_cpu_us.is_some()
        {
            return;
        }
        self.tasks += 1;
        if self.first.is_none() {
            self.first = record.error_message().map(str::to_owned);
        }
    }

    /// The warning for `participant`, which had `tasks` tasks, when any found no sandbox.
    pub(crate) fn warning(&self, participant: &str, tasks: u64) -> Option<String> {
        if self.tasks == 0 {
            return None;
        }
        let why = match &self.first {
            Some(message) => format!(" ({})", escape_control(message)),
            None => String::new(),
        };
        Some(format!(
            "Warning: {}: {} of {tasks} tasks found no sandbox{why}; the sandboxes that opened ran the others",
            escape_control(participant),
            self.tasks
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::record::Status;
    use serde_json::json;

    fn failed(code: &str, message: &str) -> TaskRecord {
        TaskRecord {
            error_code: Some(code.to_owned()),
            data: json!({ "errorMessage": message }).as_object().cloned(),
            ..TaskRecord::bare(0, Status::Error, 1.0)
        }
    }

    #[test]
    fn tasks_without_a_sandbox_are_counted_with_the_first_reason() {
        let mut unopened = Unopened::default();
        unopened.add(&TaskRecord::bare(0, Status::Success, 1.0));
        unopened.add(&failed("trap", "task trapped"));
        unopened.add(&failed(INSTANTIATION_FAILED, "past the budget\x1b[2J"));
        unopened.add(&failed(INSTANTIATION_FAILED, "another reason"));
        assert_eq!(
            unopened.warning("local", 40).as_deref(),
            Some(
                "Warning: local: 2 of 40 tasks found no sandbox (past the budget\\x1b[2J); \
                 the sandboxes that opened ran the others"
            )
        );
    }

    #[test]
    fn no_warning_when_every_sandbox_opened() {
        let mut unopened = Unopened::default();
        unopened.add(&failed("trap", "task trapped"));
        // A task that returned the code itself ran in its sandbox.
        unopened.add(&TaskRecord {
            guest_cpu_us: Some(12.0),
            ..failed(INSTANTIATION_FAILED, "returned by the task")
        });
        assert_eq!(unopened.warning("local", 2), None);
    }
}
