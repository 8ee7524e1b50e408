//! Building a task record from what the task recorded and how it ended (spec §2.6,
//! runner-built variant).

use crate::sandbox::context::RecordedTask;
use crate::sandbox::limits::StopCode;
use bench_contract::bench::task::model::{self, TaskError, TaskOutput};
use bench_model::clock::{whole_ms_between, Moment};
use bench_model::js;
use bench_model::record::{micros, Data, Status, StepRecord, TaskRecord};
use serde_json::Value;
use std::time::{Duration, SystemTime};

/// How a task ended.
#[derive(Debug)]
pub(crate) enum TaskEnd {
    /// `run` returned `ok`.
    Output(TaskOutput),
    /// `run` returned `err`.
    Failed(TaskError),
    /// The host stopped the task: a trap, a timeout, a failed instantiation.
    Stopped {
        /// Why (the record's errorCode).
        code: StopCode,
        /// One line saying what happened (recorded as `errorMessage`).
        message: String,
    },
}

/// Timing of one task, from one clock read at its start and one at its end
/// ([`bench_model::clock::Moment`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    /// Wall-clock start.
    pub started_at: SystemTime,
    /// Wall-clock end.
    pub completed_at: SystemTime,
    /// Monotonic duration from start to end.
    pub elapsed: Duration,
}

impl Timing {
    /// The timing of a task that started at `start` and ends now.
    pub(crate) fn ending_now(start: Moment) -> Self {
        let end = Moment::now();
        Self {
            started_at: start.wall,
            completed_at: end.wall,
            elapsed: end.at - start.at,
        }
    }
}

/// Builds the record of one task.
pub(crate) fn build_record(
    task_index: u32,
    phase: Option<&str>,
    timing: Timing,
    recorded: RecordedTask,
    ending: TaskEnd,
) -> TaskRecord {
    let RecordedTask {
        mut steps,
        measures,
        guest_cpu,
        ..
    } = recorded;
    let guest_cpu_us = guest_cpu.map(micros);
    let mut data = measures.clone();
    let mut latency_ms = whole_ms_between(timing.started_at, timing.completed_at);
    let mut duration_us = Some(micros(timing.elapsed));
    let (status, error_code) = match ending {
        TaskEnd::Output(output) => {
            merge_json_object(&mut data, output.data.as_deref());
            if let Some(ms) = output.latency_ms.filter(|ms| ms.is_finite()) {
                latency_ms = ms;
                duration_us = None;
            }
            steps.extend(output.steps.into_iter().map(step_from_wit));
            (Status::Success, None)
        }
        TaskEnd::Failed(error) if !error.thrown => {
            merge_json_object(&mut data, error.data.as_deref());
            steps.extend(error.steps.into_iter().map(step_from_wit));
            (
                Status::Error,
                Some(error.code.unwrap_or_else(|| "TaskError".into())),
            )
        }
        TaskEnd::Failed(error) => {
            data.insert("errorMessage".into(), Value::String(error.message));
            (
                Status::Error,
                Some(error.code.unwrap_or_else(|| "ERROR".into())),
            )
        }
        TaskEnd::Stopped { code, message } => {
            data.insert("errorMessage".into(), Value::String(message));
            (Status::Error, Some(code.as_str().to_owned()))
        }
    };
    let started_at = js::iso_timestamp(timing.started_at);
    let completed_at = js::iso_timestamp(timing.completed_at);
    if steps.is_empty() {
        steps.push(StepRecord {
            name: "task".into(),
            status,
            started_at: Some(started_at.clone()),
            completed_at: Some(completed_at.clone()),
            latency_ms: Some(latency_ms),
            duration_us,
            guest_cpu_us,
            concurrency: None,
            timeout_ms: None,
            data: (!measures.is_empty()).then_some(measures),
            error_code: Some(error_code.clone()),
            implicit: true,
        });
    }
    if let Some(phase) = phase {
        data.shift_remove("phase");
        data.insert("phase".into(), Value::String(phase.to_owned()));
    }
    TaskRecord {
        task_index,
        status,
        started_at,
        error_code,
        data: (!data.is_empty()).then_some(data),
        completed_at,
        latency_ms,
        duration_us,
        guest_cpu_us,
        steps,
        arrival: None,
    }
}

/// Shallow-merges a JSON object (as text) into `data`; anything else is ignored.
fn merge_json_object(data: &mut Data, json: Option<&str>) {
    if let Some(Value::Object(object)) = json.and_then(|text| serde_json::from_str(text).ok()) {
        for (key, mut value) in object {
            js::normalize_numbers(&mut value);
            data.insert(key, value);
        }
    }
}

fn step_from_wit(step: model::StepRecord) -> StepRecord {
    let data = step
        .data
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|mut value| {
            js::normalize_numbers(&mut value);
            value.as_object().cloned()
        });
    StepRecord {
        name: step.name,
        status: match step.status {
            model::Status::Success => Status::Success,
            model::Status::Error => Status::Error,
        },
        started_at: step.started_at,
        completed_at: step.completed_at,
        latency_ms: step.latency_ms,
        duration_us: None,
        guest_cpu_us: None,
        concurrency: None,
        timeout_ms: None,
        data,
        error_code: step.error_code.map(Some),
        implicit: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn timing() -> Timing {
        Timing {
            // 1.9 ms → 8.912345 ms: 7 whole milliseconds apart, as upstream counts.
            started_at: SystemTime::UNIX_EPOCH + Duration::from_micros(1_900),
            completed_at: SystemTime::UNIX_EPOCH + Duration::from_nanos(8_912_345),
            elapsed: Duration::from_nanos(7_012_345),
        }
    }

    fn measured(value: Value) -> RecordedTask {
        RecordedTask {
            measures: value.as_object().cloned().unwrap_or_default(),
            ..RecordedTask::default()
        }
    }

    #[test]
    fn success_merges_measures_then_data_then_phase_last() {
        let output = TaskOutput {
            data: Some(r#"{"phase":"mine","i":0}"#.into()),
            latency_ms: Some(11.0),
            steps: Vec::new(),
        };
        let record = build_record(
            2,
            Some("cold"),
            timing(),
            measured(json!({"bytes": 10})),
            TaskEnd::Output(output),
        );
        assert_eq!(
            Value::Object(record.data.clone().unwrap()),
            json!({"bytes": 10, "i": 0, "phase": "cold"})
        );
        assert_eq!(record.latency_ms, 11.0);
        assert_eq!(record.duration_us, None, "the task timed itself");
        let implicit = &record.steps[0];
        assert_eq!(
            (implicit.latency_ms, implicit.duration_us),
            (Some(11.0), None)
        );
        assert!(implicit.implicit);
        assert_eq!(implicit.error_code, Some(None));
        assert_eq!(
            Value::Object(implicit.data.clone().unwrap()),
            json!({"bytes": 10})
        );
    }

    #[test]
    fn task_error_has_code_and_data_but_no_message() {
        let error = TaskError {
            thrown: false,
            code: Some("probe_failed".into()),
            message: "boom".into(),
            data: Some(r#"{"mode":"cold"}"#.into()),
            steps: Vec::new(),
        };
        let record = build_record(
            0,
            None,
            timing(),
            RecordedTask::default(),
            TaskEnd::Failed(error),
        );
        assert_eq!(record.error_code.as_deref(), Some("probe_failed"));
        assert_eq!(Value::Object(record.data.unwrap()), json!({"mode": "cold"}));
        assert_eq!(record.latency_ms, 7.0);
        assert_eq!(record.duration_us, Some(7012.345));
        assert_eq!(record.steps[0].duration_us, Some(7012.345));
    }

    #[test]
    fn task_error_without_code_is_recorded_as_task_error() {
        let error = TaskError {
            thrown: false,
            code: None,
            message: "boom".into(),
            data: None,
            steps: Vec::new(),
        };
        let record = build_record(
            0,
            None,
            timing(),
            RecordedTask::default(),
            TaskEnd::Failed(error),
        );
        assert_eq!(record.error_code.as_deref(), Some("TaskError"));
        assert_eq!(record.data, None);
    }

    #[test]
    fn thrown_error_records_its_message() {
        let error = TaskError {
            thrown: true,
            code: Some("TypeError".into()),
            message: "x is undefined".into(),
            data: None,
            steps: Vec::new(),
        };
        let record = build_record(
            0,
            Some("warm"),
            timing(),
            RecordedTask::default(),
            TaskEnd::Failed(error),
        );
        assert_eq!(record.error_code.as_deref(), Some("TypeError"));
        assert_eq!(
            Value::Object(record.data.unwrap()),
            json!({"errorMessage": "x is undefined", "phase": "warm"})
        );
        assert_eq!(record.steps[0].error_code, Some(Some("TypeError".into())));
    }
}
