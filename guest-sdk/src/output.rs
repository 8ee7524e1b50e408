//! What a successful task returns.

use crate::bindings::{self, bench::task::model};
use serde_json::Value;

/// A successful task result: data merged into the record, an optional latency override and
/// pre-measured steps.
#[derive(Debug, Clone, Default)]
pub struct TaskOutput {
    data: Option<Value>,
    latency_ms: Option<f64>,
    steps: Vec<StepRecord>,
}

impl TaskOutput {
    /// An empty result.
    pub fn new() -> Self {
        Self::default()
    }

    /// Data merged into the record's data (a JSON object); later keys win over measures.
    pub fn data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Overrides the host-measured task latency.
    pub fn latency_ms(mut self, ms: f64) -> Self {
        self.latency_ms = Some(ms);
        self
    }

    /// Adds a pre-measured step.
    pub fn step(mut self, step: StepRecord) -> Self {
        self.steps.push(step);
        self
    }

    pub(crate) fn into_wit(self) -> bindings::TaskOutput {
        bindings::TaskOutput {
            data: self.data.map(|data| data.to_string()),
            latency_ms: self.latency_ms,
            steps: self.steps.into_iter().map(StepRecord::into_wit).collect(),
        }
    }
}

/// A step the task measured itself (e.g. from timings a remote service reported).
#[derive(Debug, Clone)]
pub struct StepRecord {
    name: String,
    error_code: Option<String>,
    failed: bool,
    latency_ms: Option<f64>,
    started_at: Option<String>,
    completed_at: Option<String>,
    data: Option<Value>,
}

impl StepRecord {
    /// A successful step that took `latency_ms`.
    pub fn success(name: impl Into<String>, latency_ms: f64) -> Self {
        Self {
            name: name.into(),
            error_code: None,
            failed: false,
            latency_ms: Some(latency_ms),
            started_at: None,
            completed_at: None,
            data: None,
        }
    }

    /// A failed step with an error code.
    pub fn failure(name: impl Into<String>, error_code: impl Into<String>) -> Self {
        Self {
            failed: true,
            error_code: Some(error_code.into()),
            latency_ms: None,
            ..Self::success(name, 0.0)
        }
    }

    /// Sets the duration.
    pub fn latency_ms(mut self, ms: f64) -> Self {
        self.latency_ms = Some(ms);
        self
    }

    /// Sets ISO-8601 start and end times.
    pub fn times(mut self, started_at: impl Into<String>, completed_at: impl Into<String>) -> Self {
        self.started_at = Some(started_at.into());
        self.completed_at = Some(completed_at.into());
        self
    }

    /// Sets the step's data (a JSON object).
    pub fn data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub(crate) fn into_wit(self) -> model::StepRecord {
        model::StepRecord {
            name: self.name,
            status: if self.failed {
                model::Status::Error
            } else {
                model::Status::Success
            },
            started_at: self.started_at,
            completed_at: self.completed_at,
            latency_ms: self.latency_ms,
            data: self.data.map(|data| data.to_string()),
            error_code: self.error_code,
        }
    }
}
