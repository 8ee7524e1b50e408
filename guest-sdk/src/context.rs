//! The task context: timed steps, measurements and logging, backed by the host.

use crate::bindings::bench::task::context as host;
use crate::bindings::bench::task::model;
use crate::bindings::TaskInput;
use crate::TaskError;
use serde_json::Value;
use std::cell::OnceCell;

pub use model::Level;

/// Options of one step.
#[derive(Debug, Clone, Copy, Default)]
pub struct StepOptions {
    timeout_ms: Option<u32>,
    capture_output: Option<bool>,
}

impl StepOptions {
    /// Default options: no timeout, outcomes logged.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fails the step (and the task, errorCode `step_timeout`) when it runs longer than
    /// `ms`; the host stops the work.
    pub fn timeout_ms(mut self, ms: u32) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// Whether the step's outcome is written to the participant log (default true).
    pub fn capture_output(mut self, capture: bool) -> Self {
        self.capture_output = Some(capture);
        self
    }

    fn into_wit(self) -> model::StepOptions {
        model::StepOptions {
            timeout_ms: self.timeout_ms,
            concurrency: None,
            capture_output: self.capture_output,
        }
    }
}

/// What a command-like step produced; written to the participant log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepOutcome {
    /// Captured standard output.
    pub stdout: Option<String>,
    /// Captured standard error.
    pub stderr: Option<String>,
    /// An error description.
    pub error: Option<String>,
    /// The exit code.
    pub exit_code: Option<i32>,
}

impl StepOutcome {
    fn to_wit(&self) -> model::StepOutcome {
        model::StepOutcome {
            stdout: self.stdout.clone(),
            stderr: self.stderr.clone(),
            error: self.error.clone(),
            exit_code: self.exit_code,
        }
    }
}

/// What the host passed to this task, and the way to report steps, measurements and logs.
#[derive(Debug)]
pub struct Context {
    participant_json: String,
    participant: OnceCell<Value>,
    task_index: u32,
    phase: Option<String>,
    args: Vec<(String, String)>,
}

impl Context {
    pub(crate) fn from_input(input: TaskInput) -> Self {
        Self {
            participant_json: input.participant,
            participant: OnceCell::new(),
            task_index: input.task_index,
            phase: input.phase,
            args: input.args,
        }
    }

    /// The participant object from the config, custom fields included.
    pub fn participant(&self) -> &Value {
        self.participant
            .get_or_init(|| serde_json::from_str(&self.participant_json).unwrap_or(Value::Null))
    }

    /// The participant's name.
    pub fn participant_name(&self) -> &str {
        self.participant()["name"].as_str().unwrap_or_default()
    }

    /// 0-based index of this task in the participant's schedule.
    pub fn task_index(&self) -> u32 {
        self.task_index
    }

    /// The phase this task belongs to, if the config declares phases.
    pub fn phase(&self) -> Option<&str> {
        self.phase.as_deref()
    }

    /// The value of a custom CLI flag (declared with `custom_cli_flag`), if given.
    pub fn arg(&self, flag: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(name, _)| name == flag)
            .map(|(_, value)| value.as_str())
    }

    /// Runs `body` as a named, timed step and returns its value. An error (including one
    /// raised with `?`) ends the step as failed and is returned.
    pub fn step<T>(
        &self,
        name: &str,
        body: impl FnOnce() -> Result<T, TaskError>,
    ) -> Result<T, TaskError> {
        self.step_with(name, StepOptions::new(), body)
    }

    /// [`Context::step`] with options (e.g. a timeout).
    pub fn step_with<T>(
        &self,
        name: &str,
        options: StepOptions,
        body: impl FnOnce() -> Result<T, TaskError>,
    ) -> Result<T, TaskError> {
        let id = host::step_start(name, options.into_wit());
        finish_step(id, body(), |_| None)
    }

    /// Runs a command-like step whose outcome (stdout, stderr, error) goes to the
    /// participant log, and returns the outcome.
    pub fn step_outcome(
        &self,
        name: &str,
        options: StepOptions,
        body: impl FnOnce() -> Result<StepOutcome, TaskError>,
    ) -> Result<StepOutcome, TaskError> {
        let id = host::step_start(name, options.into_wit());
        finish_step(id, body(), |outcome| Some(outcome.to_wit()))
    }

    /// Attaches measurements (a JSON object) to the active step, or to the task when no step
    /// is active. Repeated calls merge; later keys win.
    pub fn measure(&self, data: Value) {
        let Value::Object(map) = data else {
            self.log_with(Level::Warn, "measure expects a JSON object; ignored", None);
            return;
        };
        let items: Vec<(String, model::Value)> = map
            .into_iter()
            .map(|(key, value)| (key, to_wit_value(value)))
            .collect();
        host::measure(&items);
    }

    /// Attaches one measurement.
    pub fn measure_value(&self, key: &str, value: impl Into<Value>) {
        host::measure(&[(key.to_owned(), to_wit_value(value.into()))]);
    }

    /// Logs a line at `info` level.
    pub fn log(&self, message: &str) {
        self.log_with(Level::Info, message, None);
    }

    /// Logs a line at `debug` level.
    pub fn debug(&self, message: &str) {
        self.log_with(Level::Debug, message, None);
    }

    /// Logs a line at `warn` level.
    pub fn warn(&self, message: &str) {
        self.log_with(Level::Warn, message, None);
    }

    /// Logs a line at `error` level.
    pub fn error(&self, message: &str) {
        self.log_with(Level::Error, message, None);
    }

    /// Logs a line at `level` with optional metadata (a JSON object).
    pub fn log_with(&self, level: Level, message: &str, meta: Option<Value>) {
        let meta = meta.map(|meta| meta.to_string());
        host::log(level, message, meta.as_deref());
    }
}

fn finish_step<T>(
    id: u32,
    result: Result<T, TaskError>,
    outcome: impl FnOnce(&T) -> Option<model::StepOutcome>,
) -> Result<T, TaskError> {
    match &result {
        Ok(value) => host::step_end(id, outcome(value).as_ref()),
        Err(error) => host::step_fail(id, Some(&error.step_code()), error.message()),
    }
    result
}

fn to_wit_value(value: Value) -> model::Value {
    match value {
        Value::Number(n) => model::Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => model::Value::Text(s),
        Value::Bool(b) => model::Value::Flag(b),
        Value::Array(items) if items.iter().all(Value::is_number) => {
            model::Value::Numbers(items.iter().filter_map(Value::as_f64).collect())
        }
        other => model::Value::Json(other.to_string()),
    }
}
