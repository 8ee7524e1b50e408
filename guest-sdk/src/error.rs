//! Task failures.

use crate::bindings;
use crate::output::StepRecord;
use serde_json::Value;
use std::fmt;

/// A failed task (upstream `TaskError`): a message, an optional error code recorded as the
/// record's `errorCode`, optional data merged into the record, and pre-measured steps.
///
/// Any `std::error::Error` converts into a `TaskError` with `?`; it is recorded like an
/// exception upstream: errorCode `Error` and the message under `data.errorMessage`.
#[derive(Debug, Clone)]
pub struct TaskError(Box<Failure>);

#[derive(Debug, Clone)]
struct Failure {
    thrown: bool,
    code: Option<String>,
    message: String,
    data: Option<Value>,
    steps: Vec<StepRecord>,
}

impl TaskError {
    /// A task error with a message and no code (recorded as errorCode `TaskError`).
    pub fn new(message: impl Into<String>) -> Self {
        Self(Box::new(Failure {
            thrown: false,
            code: None,
            message: message.into(),
            data: None,
            steps: Vec::new(),
        }))
    }

    /// Sets the error code (e.g. `probe_failed`).
    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.0.code = Some(code.into());
        self
    }

    /// Sets data merged into the record's data (a JSON object).
    pub fn data(mut self, data: Value) -> Self {
        self.0.data = Some(data);
        self
    }

    /// Adds a pre-measured step.
    pub fn step(mut self, step: StepRecord) -> Self {
        self.0.steps.push(step);
        self
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The code a failed step records: the code, else `TaskError` (or `Error` for a
    /// converted error), as upstream derives it.
    pub(crate) fn step_code(&self) -> String {
        self.0
            .code
            .clone()
            .unwrap_or_else(|| if self.0.thrown { "Error" } else { "TaskError" }.to_owned())
    }

    pub(crate) fn into_wit(self) -> bindings::TaskError {
        let code = if self.0.thrown {
            Some(self.step_code())
        } else {
            self.0.code.clone()
        };
        let failure = *self.0;
        bindings::TaskError {
            thrown: failure.thrown,
            code,
            message: failure.message,
            data: failure.data.map(|data| data.to_string()),
            steps: failure
                .steps
                .into_iter()
                .map(StepRecord::into_wit)
                .collect(),
        }
    }
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.code {
            Some(code) => write!(f, "{code}: {}", self.0.message),
            None => f.write_str(&self.0.message),
        }
    }
}

impl<E: std::error::Error> From<E> for TaskError {
    fn from(error: E) -> Self {
        let mut converted = Self::new(error.to_string());
        converted.0.thrown = true;
        converted
    }
}
