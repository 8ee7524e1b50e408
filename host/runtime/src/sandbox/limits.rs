//! Limits of one sandbox and how a stopped task is classified.

use std::time::Duration;

/// Default memory limit of one sandbox.
pub const DEFAULT_MAX_MEMORY_BYTES: usize = 512 << 20;

/// Most bytes of measurements and returned data one task may record.
pub const MAX_RECORD_DATA_BYTES: usize = 1 << 20;

/// Most participant-log lines one task may produce before further lines are dropped.
pub const MAX_TASK_LOG_LINES: usize = 100_000;

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

/// The errorCode of a trapped task: `memory_limit` when it hit the memory limit, else `trap`.
pub fn trap_code(error: &wasmtime::Error) -> &'static str {
    let text = format!("{error:#}");
    if text.contains("forcing trap when growing memory") {
        "memory_limit"
    } else {
        "trap"
    }
}
