//! Host side of the WIT `context` interface, implemented by the [`TaskRecorder`] alone (the
//! linker hands it the store's recorder, nothing else of the sandbox): it stamps step times
//! with the host clocks, keeps the active-step stack, merges measurements and writes log
//! lines in the canonical participant-log format (spec §8.1), within the task's
//! [`TaskBounds`]: a task that crosses one is ended by a trap carrying [`BoundExceeded`].

use crate::sandbox::cpu::GuestCpu;
use crate::sandbox::limits::{BoundExceeded, StopCode, TaskBounds, MAX_TASK_LOG_LINES};
use bench_contract::bench::task::context::Host;
use bench_contract::bench::task::model::{self, Level, StepOptions, StepOutcome};
use bench_model::clock::{self, whole_ms_between, Moment};
use bench_model::js;
use bench_model::record::{micros, Data, Status, StepRecord};
use serde_json::Value;
use std::fmt::Write as _;
use std::time::{Instant, SystemTime};
use tokio::sync::watch;

/// The earliest deadline among the open steps that have a timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StepDeadline {
    /// When the step times out.
    pub at: Instant,
    /// The step's name.
    pub step: String,
    /// The step's timeout option.
    pub timeout_ms: u32,
}

impl StepDeadline {
    /// The upstream timeout message: `Step "<name>" timed out after <ms>ms`.
    pub(crate) fn message(&self) -> String {
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
    start: Moment,
    cpu_at_start: std::time::Duration,
    options: StepOptions,
    data: Option<Data>,
    previous_active: Option<u32>,
}

/// Records the steps, measurements and log lines of the task running in one sandbox.
#[derive(Debug)]
pub struct TaskRecorder {
    bounds: TaskBounds,
    task_index: u32,
    next_step_id: u32,
    steps_started: usize,
    open: Vec<OpenStep>,
    active: Option<u32>,
    finished: Vec<StepRecord>,
    measures: Data,
    measured_bytes: usize,
    log: Vec<String>,
    log_bytes: usize,
    log_dropped: usize,
    deadline: watch::Sender<Option<StepDeadline>>,
    cpu: GuestCpu,
}

impl Default for TaskRecorder {
    fn default() -> Self {
        Self::new(TaskBounds::default())
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
    /// [`TaskBounds::max_data_bytes`] further measurements were not kept.
    pub measured_bytes: usize,
    /// The guest CPU the task spent (None when it never ran: it could not be instantiated).
    pub guest_cpu: Option<std::time::Duration>,
}

impl TaskRecorder {
    /// A recorder whose tasks are held to `bounds`.
    pub fn new(bounds: TaskBounds) -> Self {
        Self {
            bounds,
            task_index: 0,
            next_step_id: 0,
            steps_started: 0,
            open: Vec::new(),
            active: None,
            finished: Vec::new(),
            measures: Data::new(),
            measured_bytes: 0,
            log: Vec::new(),
            log_bytes: 0,
            log_dropped: 0,
            deadline: watch::channel(None).0,
            cpu: GuestCpu::default(),
        }
    }

    /// The guest CPU meter of this sandbox's tasks (the future running the guest adds to it).
    pub(crate) fn guest_cpu(&self) -> GuestCpu {
        self.cpu.clone()
    }

    /// Starts recording a task; `task_index` prefixes its log lines.
    pub fn begin(&mut self, task_index: u32) {
        self.task_index = task_index;
        self.steps_started = 0;
        self.log_bytes = 0;
        self.open.clear();
        self.active = None;
        self.finished.clear();
        self.measures.clear();
        self.measured_bytes = 0;
        self.cpu.reset();
        self.publish_deadline();
    }

    /// Watches the deadline of the open steps (to interrupt a task whose step timed out).
    pub(crate) fn watch_deadline(&self) -> watch::Receiver<Option<StepDeadline>> {
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
            guest_cpu: Some(self.cpu.now()),
        }
    }

    /// Takes the participant-log lines written since the last call (with a note when lines
    /// over [`MAX_TASK_LOG_LINES`] were dropped).
    pub(crate) fn take_log(&mut self) -> Vec<String> {
        let dropped = std::mem::take(&mut self.log_dropped);
        if dropped > 0 {
            let note = format!(
                "[task {}] ... ({dropped} log lines dropped)",
                self.task_index
            );
            self.log
                .push(format!("{} {note}", js::iso_timestamp(clock::wall_now())));
        }
        std::mem::take(&mut self.log)
    }

    /// Appends a line to the participant log, stamped and prefixed with the task index.
    pub(crate) fn log_line(&mut self, text: &str) {
        self.log_line_at(clock::wall_now(), text);
    }

    /// [`Self::log_line`] stamped `at`, built in one allocation.
    fn log_line_at(&mut self, at: SystemTime, text: &str) {
        let mut line = String::with_capacity(js::ISO_TIMESTAMP_LEN + 20 + text.len());
        js::push_iso_timestamp(&mut line, at);
        let _ = write!(line, " [task {}] ", self.task_index);
        line.push_str(text);
        self.push_log(line);
    }

    /// Keeps a line unless the task is past its line cap or its log-byte budget.
    fn push_log(&mut self, line: String) {
        let bytes = self.log_bytes.saturating_add(line.len());
        if self.log.len() < MAX_TASK_LOG_LINES && bytes <= self.bounds.max_task_log_bytes {
            self.log.push(line);
        } else {
            self.log_dropped += 1;
        }
        self.log_bytes = bytes;
    }

    /// Ends the task once it has logged more than its budget.
    fn check_log_budget(&self) -> wasmtime::Result<()> {
        let max = self.bounds.max_task_log_bytes;
        if self.log_bytes <= max {
            return Ok(());
        }
        Err(exceeded(
            StopCode::LogTooLarge,
            format!("the task logged more than {max} bytes"),
        ))
    }

    /// Ends the task when one message is larger than a log message may be.
    fn check_message(&self, what: &str, text: &str) -> wasmtime::Result<()> {
        let max = self.bounds.max_log_message_bytes;
        if text.len() <= max {
            return Ok(());
        }
        Err(exceeded(
            StopCode::LogTooLarge,
            format!(
                "the task logged {what} of {} bytes (at most {max} bytes)",
                text.len()
            ),
        ))
    }

    fn close_step(
        &mut self,
        step: OpenStep,
        status: Status,
        error_code: Option<String>,
        error_message: Option<&str>,
        outcome: Option<&StepOutcome>,
    ) {
        let end = Moment::now();
        let elapsed = end.at - step.start.at;
        let guest_cpu = self.cpu.now().saturating_sub(step.cpu_at_start);
        self.active = step.previous_active;
        self.log_line_at(end.wall, &step.name);
        if let Some(outcome) = outcome.filter(|_| step.options.capture_output != Some(false)) {
            self.log_outcome(outcome);
        }
        if let Some(message) = error_message {
            self.log_block("  error: ", message);
        }
        self.finished.push(StepRecord {
            name: step.name,
            status,
            started_at: Some(js::iso_timestamp(step.start.wall)),
            completed_at: Some(js::iso_timestamp(end.wall)),
            latency_ms: Some(whole_ms_between(step.start.wall, end.wall)),
            duration_us: Some(micros(elapsed)),
            guest_cpu_us: Some(micros(guest_cpu)),
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
                    at: step.start.at + std::time::Duration::from_millis(ms.into()),
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

impl Host for TaskRecorder {
    fn step_start(&mut self, name: String, options: StepOptions) -> wasmtime::Result<u32> {
        let max = self.bounds.max_steps;
        if self.steps_started >= max {
            return Err(exceeded(
                StopCode::TooManySteps,
                format!("the task started more than {max} steps"),
            ));
        }
        self.steps_started += 1;
        let id = self.next_step_id;
        self.next_step_id = self.next_step_id.wrapping_add(1);
        let has_timeout = options.timeout_ms.is_some();
        self.open.push(OpenStep {
            id,
            name: bounded_name(name, self.bounds.max_step_name_bytes),
            start: Moment::now(),
            cpu_at_start: self.cpu.now(),
            options,
            data: None,
            previous_active: self.active,
        });
        self.active = Some(id);
        if has_timeout {
            self.publish_deadline();
        }
        Ok(id)
    }

    fn step_end(&mut self, id: u32, outcome: Option<StepOutcome>) -> wasmtime::Result<()> {
        if let Some(outcome) = &outcome {
            let fields = [&outcome.stdout, &outcome.stderr, &outcome.error];
            for text in fields.into_iter().flatten() {
                self.check_message("a step outcome", text)?;
            }
        }
        if let Some(step) = self.take_open(id) {
            self.close_step(step, Status::Success, None, None, outcome.as_ref());
        }
        self.check_log_budget()
    }

    fn step_fail(
        &mut self,
        id: u32,
        code: Option<String>,
        message: String,
    ) -> wasmtime::Result<()> {
        self.check_message("a step failure message", &message)?;
        if let Some(step) = self.take_open(id) {
            let code = code.map_or_else(
                || "Error".to_owned(),
                |code| bounded_name(code, self.bounds.max_step_name_bytes),
            );
            self.close_step(step, Status::Error, Some(code), Some(&message), None);
        }
        self.check_log_budget()
    }

    fn measure(&mut self, data: Vec<(String, model::Value)>) -> wasmtime::Result<()> {
        let size: usize = data
            .iter()
            .map(|(key, value)| key.len() + value_size(value))
            .sum();
        self.measured_bytes = self.measured_bytes.saturating_add(size);
        if self.measured_bytes > self.bounds.max_data_bytes {
            return Ok(());
        }
        let active = self
            .active
            .and_then(|id| self.open.iter_mut().find(|step| step.id == id));
        let target = match active {
            Some(step) => step.data.get_or_insert_with(Data::new),
            None => &mut self.measures,
        };
        for (key, value) in data {
            target.insert(key, to_json(value));
        }
        Ok(())
    }

    fn log(&mut self, level: Level, message: String, meta: Option<String>) -> wasmtime::Result<()> {
        self.check_message("a message", &message)?;
        if let Some(meta) = &meta {
            self.check_message("a meta object", meta)?;
        }
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
            let task = self.task_index;
            let stamp = js::iso_timestamp(clock::wall_now());
            let line = format!("{stamp} [{level}] [task {task}] {message}{suffix}");
            self.push_log(line);
        } else {
            self.log_line(&format!("[{level}] {message}{suffix}"));
        }
        self.check_log_budget()
    }
}

impl model::Host for TaskRecorder {}

fn exceeded(code: StopCode, message: String) -> wasmtime::Error {
    wasmtime::Error::new(BoundExceeded { code, message })
}

/// A step name (or error code) cut to at most `max` bytes, on a character boundary, with a
/// marker saying how long it was.
pub(crate) fn bounded_name(mut name: String, max: usize) -> String {
    if name.len() <= max {
        return name;
    }
    let length = name.len();
    let cut = (0..=max)
        .rev()
        .find(|&index| name.is_char_boundary(index))
        .unwrap_or(0);
    name.truncate(cut);
    name.push_str(&format!("... (truncated, {length} bytes)"));
    name
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use bench_contract::bench::task::model::Value as Measured;

    const MAX_DATA: usize = 1 << 20;

    fn options(timeout_ms: Option<u32>) -> StepOptions {
        StepOptions {
            timeout_ms,
            concurrency: None,
            capture_output: None,
        }
    }

    fn recorder(task_index: u32) -> TaskRecorder {
        let mut recorder = TaskRecorder::default();
        recorder.begin(task_index);
        recorder
    }

    fn number(key: &str, x: f64) -> Vec<(String, Measured)> {
        vec![(key.to_owned(), Measured::Number(x))]
    }

    /// The log lines without their timestamps.
    fn unstamped(lines: Vec<String>) -> Vec<String> {
        lines
            .into_iter()
            .map(|line| match line.split_once(' ') {
                Some((stamp, rest)) if stamp.ends_with('Z') => rest.to_owned(),
                _ => line,
            })
            .collect()
    }

    fn data(step: &StepRecord) -> Value {
        Value::Object(step.data.clone().unwrap_or_default())
    }

    #[test]
    fn steps_nest_and_close_in_completion_order() {
        let mut recorder = recorder(0);
        let outer = recorder.step_start("outer".into(), options(None)).unwrap();
        let inner = recorder.step_start("inner".into(), options(None)).unwrap();
        recorder.step_end(inner, None).unwrap();
        recorder.step_end(outer, None).unwrap();
        let recorded = recorder.finish(StopCode::Abandoned, "unused");
        let names: Vec<&str> = recorded.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["inner", "outer"]);
        for step in &recorded.steps {
            assert_eq!(step.status, Status::Success);
            assert_eq!(step.error_code, None);
            assert!(step.started_at.is_some() && step.completed_at.is_some());
        }
    }

    #[test]
    fn an_unknown_or_closed_step_id_is_ignored() {
        let mut recorder = recorder(0);
        let step = recorder.step_start("once".into(), options(None)).unwrap();
        recorder.step_end(step, None).unwrap();
        recorder.step_end(step, None).unwrap();
        recorder
            .step_fail(step + 7, None, "nothing open".into())
            .unwrap();
        let recorded = recorder.finish(StopCode::Abandoned, "unused");
        assert_eq!(recorded.steps.len(), 1);
        assert_eq!(recorded.steps[0].status, Status::Success);
    }

    #[test]
    fn measures_land_on_the_active_step() {
        let mut recorder = recorder(0);
        recorder.measure(number("before", 1.0)).unwrap();
        let outer = recorder.step_start("outer".into(), options(None)).unwrap();
        recorder.measure(number("a", 2.0)).unwrap();
        let inner = recorder.step_start("inner".into(), options(None)).unwrap();
        recorder.measure(number("b", 3.5)).unwrap();
        recorder.step_end(inner, None).unwrap();
        recorder.measure(number("c", 4.0)).unwrap();
        recorder.step_end(outer, None).unwrap();
        recorder.measure(number("after", 5.0)).unwrap();
        let recorded = recorder.finish(StopCode::Abandoned, "unused");
        assert_eq!(data(&recorded.steps[0]), serde_json::json!({"b": 3.5}));
        assert_eq!(
            data(&recorded.steps[1]),
            serde_json::json!({"a": 2, "c": 4})
        );
        assert_eq!(
            Value::Object(recorded.measures),
            serde_json::json!({"before": 1, "after": 5})
        );
    }

    #[test]
    fn a_failed_step_records_its_code_and_logs_the_error() {
        let mut recorder = recorder(4);
        let step = recorder.step_start("fetch".into(), options(None)).unwrap();
        recorder
            .step_fail(step, None, "connection refused".into())
            .unwrap();
        let coded = recorder.step_start("parse".into(), options(None)).unwrap();
        recorder
            .step_fail(coded, Some("bad_json".into()), "line 1\nline 2".into())
            .unwrap();
        let recorded = recorder.finish(StopCode::Abandoned, "unused");
        assert_eq!(recorded.steps[0].status, Status::Error);
        assert_eq!(recorded.steps[0].error_code, Some(Some("Error".into())));
        assert_eq!(recorded.steps[1].error_code, Some(Some("bad_json".into())));
        assert_eq!(
            unstamped(recorder.take_log()),
            [
                "[task 4] fetch",
                "  error: connection refused",
                "[task 4] parse",
                "  error: line 1",
                "  error: line 2",
            ]
        );
    }

    #[test]
    fn log_lines_carry_the_task_index_level_and_meta() {
        let mut recorder = recorder(3);
        recorder
            .log(Level::Info, "hello".into(), Some(r#"{"k":1}"#.into()))
            .unwrap();
        recorder
            .log(Level::Warn, "empty meta".into(), Some("{}".into()))
            .unwrap();
        recorder
            .log(Level::Error, "two\nlines".into(), None)
            .unwrap();
        let step = recorder.step_start("run".into(), options(None)).unwrap();
        let outcome = StepOutcome {
            stdout: Some("out\n".into()),
            stderr: Some("  ".into()),
            error: None,
            exit_code: Some(0),
        };
        recorder.step_end(step, Some(outcome)).unwrap();
        assert_eq!(
            unstamped(recorder.take_log()),
            [
                r#"[task 3] [info] hello {"k":1}"#,
                "[task 3] [warn] empty meta",
                "[error] [task 3] two\nlines",
                "[task 3] run",
                "  out",
            ]
        );
        assert!(recorder.take_log().is_empty(), "taking the log empties it");
    }

    #[test]
    fn log_lines_past_the_cap_are_dropped_with_a_note() {
        let mut recorder = recorder(1);
        for _ in 0..MAX_TASK_LOG_LINES + 2 {
            recorder.log_line("spam");
        }
        let log = recorder.take_log();
        assert_eq!(log.len(), MAX_TASK_LOG_LINES + 1);
        assert_eq!(
            unstamped(vec![log.last().unwrap().clone()]),
            ["[task 1] ... (2 log lines dropped)"]
        );
    }

    #[test]
    fn the_earliest_open_step_deadline_is_published() {
        let mut recorder = recorder(0);
        let deadline = recorder.watch_deadline();
        assert_eq!(*deadline.borrow(), None);
        let outer = recorder
            .step_start("outer".into(), options(Some(60_000)))
            .unwrap();
        let shown = deadline.borrow().clone().unwrap();
        assert_eq!((shown.step.as_str(), shown.timeout_ms), ("outer", 60_000));
        let untimed = recorder
            .step_start("untimed".into(), options(None))
            .unwrap();
        let inner = recorder
            .step_start("inner".into(), options(Some(10)))
            .unwrap();
        let shown = deadline.borrow().clone().unwrap();
        assert_eq!((shown.step.as_str(), shown.timeout_ms), ("inner", 10));
        assert_eq!(shown.message(), "Step \"inner\" timed out after 10ms");
        recorder.step_end(inner, None).unwrap();
        recorder.step_end(untimed, None).unwrap();
        assert_eq!(deadline.borrow().as_ref().unwrap().step, "outer");
        recorder.step_end(outer, None).unwrap();
        assert_eq!(*deadline.borrow(), None);
    }

    #[test]
    fn finish_closes_open_steps_innermost_first_with_the_stop_code() {
        let mut recorder = recorder(2);
        let deadline = recorder.watch_deadline();
        recorder.step_start("outer".into(), options(None)).unwrap();
        recorder
            .step_start("inner".into(), options(Some(5)))
            .unwrap();
        let message = "Step \"inner\" timed out after 5ms";
        let recorded = recorder.finish(StopCode::StepTimeout, message);
        let closed: Vec<(&str, Status, Option<Option<String>>)> = recorded
            .steps
            .iter()
            .map(|s| (s.name.as_str(), s.status, s.error_code.clone()))
            .collect();
        let code = Some(Some("step_timeout".to_owned()));
        assert_eq!(
            closed,
            [
                ("inner", Status::Error, code.clone()),
                ("outer", Status::Error, code)
            ]
        );
        assert_eq!(*deadline.borrow(), None, "no deadline after the task ended");
        assert_eq!(
            unstamped(recorder.take_log()),
            [
                "[task 2] inner",
                &format!("  error: {message}"),
                "[task 2] outer",
                &format!("  error: {message}"),
            ]
        );
    }

    #[test]
    fn measurements_past_one_mebibyte_are_counted_but_not_kept() {
        let mut recorder = recorder(0);
        let half = "x".repeat(MAX_DATA / 2);
        recorder
            .measure(vec![("a".into(), Measured::Text(half.clone()))])
            .unwrap();
        recorder
            .measure(vec![("numbers".into(), Measured::Numbers(vec![1.0; 4]))])
            .unwrap();
        let step = recorder.step_start("big".into(), options(None)).unwrap();
        recorder
            .measure(vec![("b".into(), Measured::Text(half))])
            .unwrap();
        recorder.step_end(step, None).unwrap();
        let recorded = recorder.finish(StopCode::Abandoned, "unused");
        let expected = 1 + MAX_DATA / 2 + "numbers".len() + 32 + 1 + MAX_DATA / 2;
        assert_eq!(recorded.measured_bytes, expected);
        assert!(recorded.measured_bytes > MAX_DATA);
        assert_eq!(
            recorded.measures.keys().collect::<Vec<_>>(),
            ["a", "numbers"]
        );
        assert_eq!(
            recorded.steps[0].data, None,
            "the measurement over the limit is dropped"
        );
    }

    #[test]
    fn begin_starts_the_next_task_from_scratch() {
        let mut recorder = recorder(0);
        recorder
            .step_start("left open".into(), options(Some(1000)))
            .unwrap();
        recorder.measure(number("stale", 1.0)).unwrap();
        recorder.begin(1);
        assert_eq!(*recorder.watch_deadline().borrow(), None);
        recorder.measure(number("fresh", 2.0)).unwrap();
        let recorded = recorder.finish(StopCode::Abandoned, "unused");
        assert!(recorded.steps.is_empty());
        assert_eq!(
            Value::Object(recorded.measures),
            serde_json::json!({"fresh": 2})
        );
        assert_eq!(recorded.measured_bytes, "fresh".len() + 8);
    }

    fn bounded(bounds: TaskBounds) -> TaskRecorder {
        let mut recorder = TaskRecorder::new(bounds);
        recorder.begin(0);
        recorder
    }

    fn bound_of(error: wasmtime::Error) -> BoundExceeded {
        error.downcast::<BoundExceeded>().unwrap()
    }

    #[test]
    fn a_step_past_the_step_bound_ends_the_task() {
        let mut recorder = bounded(TaskBounds {
            max_steps: 2,
            ..TaskBounds::default()
        });
        for _ in 0..2 {
            let step = recorder.step_start("s".into(), options(None)).unwrap();
            recorder.step_end(step, None).unwrap();
        }
        let error = recorder
            .step_start("third".into(), options(None))
            .unwrap_err();
        assert_eq!(
            bound_of(error),
            BoundExceeded {
                code: StopCode::TooManySteps,
                message: "the task started more than 2 steps".into(),
            }
        );
    }

    #[test]
    fn long_step_names_and_codes_are_cut_with_a_marker() {
        let mut recorder = bounded(TaskBounds {
            max_step_name_bytes: 5,
            ..TaskBounds::default()
        });
        let step = recorder.step_start("ééééé".into(), options(None)).unwrap();
        recorder
            .step_fail(step, Some("code_too_long".into()), "m".into())
            .unwrap();
        let recorded = recorder.finish(StopCode::Abandoned, "unused");
        assert_eq!(recorded.steps[0].name, "éé... (truncated, 10 bytes)");
        assert_eq!(
            recorded.steps[0].error_code,
            Some(Some("code_... (truncated, 13 bytes)".into()))
        );
    }

    #[test]
    fn a_message_past_the_message_bound_ends_the_task_unlogged() {
        let mut recorder = bounded(TaskBounds {
            max_log_message_bytes: 8,
            ..TaskBounds::default()
        });
        recorder.log(Level::Info, "12345678".into(), None).unwrap();
        let error = recorder
            .log(Level::Info, "123456789".into(), None)
            .unwrap_err();
        assert_eq!(
            bound_of(error),
            BoundExceeded {
                code: StopCode::LogTooLarge,
                message: "the task logged a message of 9 bytes (at most 8 bytes)".into(),
            }
        );
        let step = recorder.step_start("s".into(), options(None)).unwrap();
        let error = recorder.step_fail(step, None, "x".repeat(9)).unwrap_err();
        assert_eq!(bound_of(error).code, StopCode::LogTooLarge);
        assert_eq!(recorder.take_log().len(), 1);
    }

    #[test]
    fn logging_past_the_task_log_budget_ends_the_task() {
        let mut recorder = bounded(TaskBounds {
            max_task_log_bytes: 200,
            ..TaskBounds::default()
        });
        recorder.log(Level::Info, "x".repeat(60), None).unwrap();
        let error = recorder
            .log(Level::Info, "y".repeat(200), None)
            .unwrap_err();
        assert_eq!(
            bound_of(error),
            BoundExceeded {
                code: StopCode::LogTooLarge,
                message: "the task logged more than 200 bytes".into(),
            }
        );
        let log = recorder.take_log();
        assert_eq!(log.len(), 2);
        assert!(
            log[1].ends_with("[task 0] ... (1 log lines dropped)"),
            "{log:?}"
        );
    }
}
