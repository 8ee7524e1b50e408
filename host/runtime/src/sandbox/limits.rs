//! Limits of one sandbox and of what one task may record, and why the host stops a task
//! ([`StopCode`], and [`BoundExceeded`] when the task crossed one of its bounds).

use bench_model::ceilings::{EffectiveLimits, LimitField, DEFAULT_MAX_MEMORY_BYTES};
use std::time::Duration;

/// Most participant-log lines one task may produce before further lines are dropped.
pub(crate) const MAX_TASK_LOG_LINES: usize = 100_000;

/// Limits of one sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest linear memory, in bytes.
    pub max_memory_bytes: usize,
    /// Longest time one task may run.
    pub task_timeout: Option<Duration>,
    /// What one task may record and return.
    pub task: TaskBounds,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            task_timeout: None,
            task: TaskBounds::default(),
        }
    }
}

impl From<&EffectiveLimits> for Limits {
    /// The limits of every sandbox of a run.
    fn from(limits: &EffectiveLimits) -> Self {
        Self {
            max_memory_bytes: limits.size(LimitField::Memory),
            task_timeout: limits
                .value(LimitField::TaskTimeout)
                .map(Duration::from_millis),
            task: TaskBounds {
                max_steps: limits.size(LimitField::Steps),
                max_step_name_bytes: limits.size(LimitField::StepNameBytes),
                max_log_message_bytes: limits.size(LimitField::LogMessageBytes),
                max_task_log_bytes: limits.size(LimitField::TaskLogBytes),
                max_data_bytes: limits.size(LimitField::DataBytes),
            },
        }
    }
}

/// Bounds on what one task records through `context` and returns, so one task cannot grow
/// the host without limit. Each default is bench's ceiling ([`bench_model::ceilings`]),
/// which the operator may raise and a task's config only lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskBounds {
    /// Most steps of one task (started through `context` plus returned); past it the task
    /// ends with [`StopCode::TooManySteps`].
    pub max_steps: usize,
    /// Longest step name kept, in bytes; a longer name is cut with a marker.
    pub max_step_name_bytes: usize,
    /// Longest log message (one `log` call, one step failure message, one field of a step
    /// outcome), in bytes; past it the task ends with [`StopCode::LogTooLarge`].
    pub max_log_message_bytes: usize,
    /// Most participant-log bytes of one task; past it the task ends with
    /// [`StopCode::LogTooLarge`].
    pub max_task_log_bytes: usize,
    /// Most bytes of measured and returned data (returned steps and error text included);
    /// past it the task ends with [`StopCode::DataTooLarge`] and its data is dropped.
    pub max_data_bytes: usize,
}

impl Default for TaskBounds {
    fn default() -> Self {
        Self {
            max_steps: 10_000,
            max_step_name_bytes: 1 << 10,
            max_log_message_bytes: 1 << 20,
            max_task_log_bytes: 16 << 20,
            max_data_bytes: 1 << 20,
        }
    }
}

/// A bound the task crossed: the host function that saw it traps the guest with this error,
/// and the task's record carries its code and message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct BoundExceeded {
    /// The record's errorCode.
    pub code: StopCode,
    /// What was crossed (the record's `errorMessage`).
    pub message: String,
}

/// Why the host stopped a task (or closed a step the task left open): the record's
/// `errorCode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCode {
    /// The guest trapped (a panic, `unreachable`, an exhausted stack…).
    Trap,
    /// The guest grew its memory past the sandbox's limit.
    MemoryLimit,
    /// The task ran longer than the task timeout.
    TaskTimeout,
    /// A step was still open after its `timeoutMs`.
    StepTimeout,
    /// The task recorded more data than [`TaskBounds::max_data_bytes`].
    DataTooLarge,
    /// The task recorded more steps than [`TaskBounds::max_steps`].
    TooManySteps,
    /// The task logged a message larger than [`TaskBounds::max_log_message_bytes`], or more
    /// than [`TaskBounds::max_task_log_bytes`] in all.
    LogTooLarge,
    /// The sandbox could not instantiate the task.
    InstantiationFailed,
    /// A step was still open when the task returned.
    Abandoned,
    /// The run was stopped (Ctrl-C) and the task was still running after the grace period.
    Interrupted,
}

impl StopCode {
    /// The code as records carry it (`trap`, `step_timeout`…).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Trap => "trap",
            Self::MemoryLimit => "memory_limit",
            Self::TaskTimeout => "task_timeout",
            Self::StepTimeout => "step_timeout",
            Self::DataTooLarge => "data_too_large",
            Self::TooManySteps => "too_many_steps",
            Self::LogTooLarge => "log_too_large",
            Self::InstantiationFailed => "instantiation_failed",
            Self::Abandoned => "abandoned",
            Self::Interrupted => "interrupted",
        }
    }

    /// What stopped a trapped task: the code of the bound it crossed, [`MemoryLimit`](Self::MemoryLimit)
    /// when it hit the memory limit, else [`Trap`](Self::Trap).
    pub(crate) fn of_trap(error: &wasmtime::Error) -> Self {
        if let Some(bound) = error.downcast_ref::<BoundExceeded>() {
            return bound.code;
        }
        let text = format!("{error:#}");
        if text.contains("forcing trap when growing memory") {
            Self::MemoryLimit
        } else {
            Self::Trap
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::ceilings::{Ceilings, ConfigLimits};

    #[test]
    fn a_run_s_limits_become_every_sandbox_s() {
        let mut requested = ConfigLimits::default();
        requested.request(LimitField::Memory, 64.0);
        requested.request(LimitField::Steps, 5.0);
        requested.request(LimitField::TaskTimeout, 250.5);
        let limits = Limits::from(&Ceilings::default().apply(&requested).unwrap());
        assert_eq!(limits.max_memory_bytes, 64 << 20);
        assert_eq!(limits.task.max_steps, 5);
        assert_eq!(limits.task_timeout, Some(Duration::from_millis(251)));
        assert_eq!(Limits::from(&EffectiveLimits::default()), Limits::default());
    }

    #[test]
    fn stop_codes_keep_their_record_strings() {
        let codes = [
            StopCode::Trap,
            StopCode::MemoryLimit,
            StopCode::TaskTimeout,
            StopCode::StepTimeout,
            StopCode::DataTooLarge,
            StopCode::TooManySteps,
            StopCode::LogTooLarge,
            StopCode::InstantiationFailed,
            StopCode::Abandoned,
            StopCode::Interrupted,
        ];
        assert_eq!(
            codes.map(StopCode::as_str),
            [
                "trap",
                "memory_limit",
                "task_timeout",
                "step_timeout",
                "data_too_large",
                "too_many_steps",
                "log_too_large",
                "instantiation_failed",
                "abandoned",
                "interrupted"
            ]
        );
    }

    #[test]
    fn a_failed_memory_grow_is_a_memory_limit_and_anything_else_a_trap() {
        let grow = wasmtime::Error::msg("forcing trap when growing memory to 67108864 bytes")
            .context("error while executing at wasm backtrace");
        assert_eq!(StopCode::of_trap(&grow), StopCode::MemoryLimit);
        let trap = wasmtime::Error::new(wasmtime::Trap::UnreachableCodeReached);
        assert_eq!(StopCode::of_trap(&trap), StopCode::Trap);
    }

    #[test]
    fn a_crossed_bound_keeps_its_code_through_the_trap() {
        let bound = BoundExceeded {
            code: StopCode::TooManySteps,
            message: "the task started more than 1 steps".into(),
        };
        let trap = wasmtime::Error::new(bound).context("error while executing at wasm backtrace");
        assert_eq!(StopCode::of_trap(&trap), StopCode::TooManySteps);
    }
}
