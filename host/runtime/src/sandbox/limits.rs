//! Limits of one sandbox and why the host stops a task ([`StopCode`]).

use std::time::Duration;

/// Default memory limit of one sandbox.
pub(crate) const DEFAULT_MAX_MEMORY_BYTES: usize = 512 << 20;

/// Most bytes of measurements and returned data one task may record.
pub(crate) const MAX_RECORD_DATA_BYTES: usize = 1 << 20;

/// Most participant-log lines one task may produce before further lines are dropped.
pub(crate) const MAX_TASK_LOG_LINES: usize = 100_000;

/// Limits of one sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest linear memory, in bytes.
    pub max_memory_bytes: usize,
    /// Longest time one task may run.
    pub task_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            task_timeout: None,
        }
    }
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
    /// The task recorded more than [`MAX_RECORD_DATA_BYTES`] of data.
    DataTooLarge,
    /// The sandbox could not instantiate the task.
    InstantiationFailed,
    /// A step was still open when the task returned.
    Abandoned,
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
            Self::InstantiationFailed => "instantiation_failed",
            Self::Abandoned => "abandoned",
        }
    }

    /// What stopped a trapped task: [`MemoryLimit`](Self::MemoryLimit) when it hit the
    /// memory limit, else [`Trap`](Self::Trap).
    pub(crate) fn of_trap(error: &wasmtime::Error) -> Self {
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

    #[test]
    fn stop_codes_keep_their_record_strings() {
        let codes = [
            StopCode::Trap,
            StopCode::MemoryLimit,
            StopCode::TaskTimeout,
            StopCode::StepTimeout,
            StopCode::DataTooLarge,
            StopCode::InstantiationFailed,
            StopCode::Abandoned,
        ];
        assert_eq!(
            codes.map(StopCode::as_str),
            [
                "trap",
                "memory_limit",
                "task_timeout",
                "step_timeout",
                "data_too_large",
                "instantiation_failed",
                "abandoned"
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
}
