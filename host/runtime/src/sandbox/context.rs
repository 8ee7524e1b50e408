//! Host side of the WIT `context` interface: the [`TaskRecorder`] stamps step times with the
//! host clocks, keeps the active-step stack, merges measurements and writes log lines in the
//! canonical participant-log format (spec §8.1).

use crate::js;
use crate::record::{Data, Status, StepRecord};
use crate::sandbox::limits::{StopCode, MAX_RECORD_DATA_BYTES, MAX_TASK_LOG_LINES};
use crate::sandbox::SandboxState;
use bench_contract::bench::task::context::Host;
use bench_contract::bench::task::model::{self, Level, StepOptions, StepOutcome};
use serde_json::Value;
use std::time::{Instant, SystemTime};
use tokio::sync::watch;

/// The earliest deadline among the open steps that have a timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepDeadline {
    /// When the step times out.
    pub at: Instant,
    /// The step's name.
    pub step: String,
    /// The step's timeout option.
    pub timeout_ms: u32,
}

impl StepDeadline {
    /// The upstream timeout message: `Step "<name>" timed out after <ms>ms`.
    pub fn message(&self) -> String {
        format!(
            "Step \"{}\" timed out after {}ms",
            self.step, self.timeout_ms
        )
    }
}

#[derive(Debug)]
struct OpenStep {
    id: u32,
    name: String,
    started_at: SystemTime,
    start: Instant,
    options: StepOptions,
    data: Option<Data>,
    previous_active: Option<u32>,
}

/// Records the steps, measurements and log lines of the task running in one sandbox.
#[derive(Debug)]
pub struct TaskRecorder {
    task_index: u32,
    next_step_id: u32,
    open: Vec<OpenStep>,
    active: Option<u32>,
    finished: Vec<StepRecord>,
    measures: Data,
    measured_bytes: usize,
    log: Vec<String>,
    log_dropped: usize,
    deadline: watch::Sender<Option<StepDeadline>>,
}

impl Default for TaskRecorder {
    fn default() -> Self {
        Self {
            task_index: 0,
            next_step_id: 0,
            open: Vec::new(),
            active: None,
            finished: Vec::new(),
            measures: Data::new(),
            measured_bytes: 0,
            log: Vec::new(),
            log_dropped: 0,
            deadline: watch::channel(None).0,
        }
    }
}

/// What a task recorded through its context.
#[derive(Debug, Default)]
pub struct RecordedTask {
    /// Steps in completion order.
    pub steps: Vec<StepRecord>,
    /// Task-level measurements.
    pub measures: Data,
    /// Bytes of measurements the task tried to record (steps and task level); past
    /// [`MAX_RECORD_DATA_BYTES`] further measurements were not kept.
    pub measured_bytes: usize,
}

impl TaskRecorder {
    /// Starts recording a task; `task_index` prefixes its log lines.
    pub fn begin(&mut self, task_index: u32) {
        self.task_index = task_index;
        self.open.clear();
        self.active = None;
        self.finished.clear();
        self.measures.clear();
        self.measured_bytes = 0;
        self.publish_deadline();
    }

    /// Watches the deadline of the open steps (to interrupt a task whose step timed out).
    pub fn watch_deadline(&self) -> watch::Receiver<Option<StepDeadline>> {
        self.deadline.subscribe()
    }

    /// Ends the task: steps still open are closed as failed with `code` (innermost first, as
    /// their failures would propagate), and everything recorded is returned.
    pub fn finish(&mut self, code: StopCode, message: &str) -> RecordedTask {
        while let Some(step) = self.open.pop() {
            self.close_step(
                step,
                Status::Error,
                Some(code.as_str().to_owned()),
                Some(message),
                None,
            );
        }
        self.active = None;
        self.publish_deadline();
        RecordedTask {
            steps: std::mem::take(&mut self.finished),
            measures: std::mem::take(&mut self.measures),
            measured_bytes: self.measured_bytes,
        }
    }

    /// Takes the participant-log lines written since the last call (with a note when lines
    /// over [`MAX_TASK_LOG_LINES`] were dropped).
    pub fn take_log(&mut self) -> Vec<String> {
        let dropped = std::mem::take(&mut self.log_dropped);
        if dropped > 0 {
            let note = format!(
                "[task {}] ... ({dropped} log lines dropped)",
                self.task_index
            );
            self.log.push(format!("{} {note}", now_iso()));
        }
        std::mem::take(&mut self.log)
    }

    /// Appends a line to the participant log, stamped and prefixed with the task index.
    pub fn log_line(&mut self, text: &str) {
        let line = format!("{} [task {}] {text}", now_iso(), self.task_index);
        self.push_log(line);
    }

    fn push_log(&mut self, line: String) {
        if self.log.len() < MAX_TASK_LOG_LINES {
            self.log.push(line);
        } else {
            self.log_dropped += 1;
        }
    }

    fn close_step(
        &mut self,
        step: OpenStep,
        status: Status,
        error_code: Option<String>,
        error_message: Option<&str>,
        outcome: Option<&StepOutcome>,
    ) {
        let completed_at = SystemTime::now();
        self.active = step.previous_active;
        self.log_line(&step.name);
        if let Some(outcome) = outcome.filter(|_| step.options.capture_output != Some(false)) {
            self.log_outcome(outcome);
        }
        if let Some(message) = error_message {
            self.log_block("  error: ", message);
        }
        self.finished.push(StepRecord {
            name: step.name,
            status,
            started_at: Some(js::iso_timestamp(step.started_at)),
            completed_at: Some(js::iso_timestamp(completed_at)),
            latency_ms: Some(step.start.elapsed().as_millis() as f64),
            concurrency: step.options.concurrency,
            timeout_ms: step.options.timeout_ms.map(f64::from),
            data: step.data,
            error_code: error_code.map(Some),
            implicit: false,
        });
    }

    fn log_outcome(&mut self, outcome: &StepOutcome) {
        if let Some(stdout) = outcome.stdout.as_deref().filter(|s| !s.trim().is_empty()) {
            self.log_block("  ", stdout.trim_end());
        }
        if let Some(stderr) = outcome.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
            self.log_block("  stderr: ", stderr.trim_end());
        }
        if let Some(error) = outcome.error.as_deref().filter(|s| !s.is_empty()) {
            self.log_block("  error: ", error);
        }
    }

    fn log_block(&mut self, prefix: &str, text: &str) {
        for line in text.lines() {
            self.push_log(format!("{prefix}{line}"));
        }
    }

    fn take_open(&mut self, id: u32) -> Option<OpenStep> {
        let index = self.open.iter().position(|step| step.id == id)?;
        let step = self.open.remove(index);
        self.publish_deadline();
        Some(step)
    }

    fn publish_deadline(&self) {
        let deadline = self
            .open
            .iter()
            .filter_map(|step| {
                let ms = step.options.timeout_ms?;
                Some(StepDeadline {
                    at: step.start + std::time::Duration::from_millis(ms.into()),
                    step: step.name.clone(),
                    timeout_ms: ms,
                })
            })
            .min_by_key(|deadline| deadline.at);
        self.deadline.send_if_modified(|current| {
            let changed = *current != deadline;
            *current = deadline;
            changed
        });
    }
}

impl Host for SandboxState {
    fn step_start(&mut self, name: String, options: StepOptions) -> u32 {
        let recorder = &mut self.recorder;
        let id = recorder.next_step_id;
        recorder.next_step_id = recorder.next_step_id.wrapping_add(1);
        let has_timeout = options.timeout_ms.is_some();
        recorder.open.push(OpenStep {
            id,
            name,
            started_at: SystemTime::now(),
            start: Instant::now(),
            options,
            data: None,
            previous_active: recorder.active,
        });
        recorder.active = Some(id);
        if has_timeout {
            recorder.publish_deadline();
        }
        id
    }

    fn step_end(&mut self, id: u32, outcome: Option<StepOutcome>) {
        if let Some(step) = self.recorder.take_open(id) {
            self.recorder
                .close_step(step, Status::Success, None, None, outcome.as_ref());
        }
    }

    fn step_fail(&mut self, id: u32, code: Option<String>, message: String) {
        if let Some(step) = self.recorder.take_open(id) {
            let code = code.unwrap_or_else(|| "Error".to_owned());
            self.recorder
                .close_step(step, Status::Error, Some(code), Some(&message), None);
        }
    }

    fn measure(&mut self, data: Vec<(String, model::Value)>) {
        let recorder = &mut self.recorder;
        let size: usize = data
            .iter()
            .map(|(key, value)| key.len() + value_size(value))
            .sum();
        recorder.measured_bytes = recorder.measured_bytes.saturating_add(size);
        if recorder.measured_bytes > MAX_RECORD_DATA_BYTES {
            return;
        }
        let active = recorder
            .active
            .and_then(|id| recorder.open.iter_mut().find(|step| step.id == id));
        let target = match active {
            Some(step) => step.data.get_or_insert_with(Data::new),
            None => &mut recorder.measures,
        };
        for (key, value) in data {
            target.insert(key, to_json(value));
        }
    }

    fn log(&mut self, level: Level, message: String, meta: Option<String>) {
        let suffix = meta
            .and_then(|meta| serde_json::from_str::<Value>(&meta).ok())
            .filter(|meta| meta.as_object().is_some_and(|m| !m.is_empty()))
            .map(|meta| format!(" {meta}"))
            .unwrap_or_default();
        let level = match level {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        };
        if message.contains('\n') {
            // Upstream only recognises the `[task N]` prefix on single-line messages.
            let task = self.recorder.task_index;
            let line = format!("{} [{level}] [task {task}] {message}{suffix}", now_iso());
            self.recorder.push_log(line);
        } else {
            self.recorder
                .log_line(&format!("[{level}] {message}{suffix}"));
        }
    }
}

impl bench_contract::bench::task::model::Host for SandboxState {}

/// Roughly how many bytes a measured value takes in a record.
fn value_size(value: &model::Value) -> usize {
    match value {
        model::Value::Number(_) | model::Value::Flag(_) => 8,
        model::Value::Numbers(xs) => 8 * xs.len(),
        model::Value::Text(text) | model::Value::Json(text) => text.len(),
    }
}

/// Converts a measured value to JSON (integral numbers print without a fraction).
fn to_json(value: model::Value) -> Value {
    match value {
        model::Value::Number(x) => js::number(x),
        model::Value::Numbers(xs) => Value::Array(xs.into_iter().map(js::number).collect()),
        model::Value::Text(text) => Value::String(text),
        model::Value::Flag(flag) => Value::Bool(flag),
        model::Value::Json(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

fn now_iso() -> String {
    js::iso_timestamp(SystemTime::now())
}
