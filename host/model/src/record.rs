//! Task and step records (spec §2.3, §2.6) and their upstream JSON shapes.
//!
//! Key order follows the order in which upstream's runner inserts the keys, so a record
//! serializes byte-for-byte as upstream's `JSON.stringify` would print it.

use crate::metric::{RESPONSE_TIME, SERVICE_TIME};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::time::Duration;

/// The phase of warm-up tasks (`--warmup`): recorded, left out of summary and scoring.
pub const WARMUP_PHASE: &str = "warmup";

/// A JSON object: the `data` of records and steps.
pub type Data = Map<String, Value>;

/// Whether a task or step succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Completed normally.
    Success,
    /// Failed.
    Error,
}

/// One step of a task (`TaskStepRecord`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
    /// Step name.
    pub name: String,
    /// Step status.
    pub status: Status,
    /// ISO start time (absent on some pre-measured steps).
    #[serde(default)]
    pub started_at: Option<String>,
    /// ISO end time (absent on some pre-measured steps).
    #[serde(default)]
    pub completed_at: Option<String>,
    /// Duration in milliseconds.
    #[serde(default)]
    pub latency_ms: Option<f64>,
    /// Monotonic duration in microseconds (nanosecond fraction, three decimals) of a step
    /// the host timed, from `step-start` to `step-end` or `step-fail` (or to the task's end
    /// for a step left open). Absent on steps the task returned with its own latency, and
    /// in records written before bench measured it.
    #[serde(default)]
    pub duration_us: Option<f64>,
    /// Guest CPU in microseconds (three decimals) the step spent: the time the sandbox's
    /// thread ran the guest between the step's start and end, time blocked in host I/O
    /// excluded. Present where `durationUs` is bench's; absent in older records.
    #[serde(default)]
    pub guest_cpu_us: Option<f64>,
    /// Parallel invocations of the step body.
    #[serde(default)]
    pub concurrency: Option<u32>,
    /// The step's timeout option.
    #[serde(default)]
    pub timeout_ms: Option<f64>,
    /// Measurements attached to the step.
    #[serde(default)]
    pub data: Option<Data>,
    /// Error code: absent, or (on the implicit `task` step) explicitly `null` on success.
    #[serde(default, deserialize_with = "present_or_null")]
    pub error_code: Option<Option<String>>,
    /// True for the implicit `task` step the host adds when a task recorded none; upstream
    /// prints its `errorCode` before its `data`.
    #[serde(skip)]
    pub implicit: bool,
}

impl StepRecord {
    /// The step's `durationUs` in milliseconds, when it has one.
    pub fn duration_ms(&self) -> Option<f64> {
        self.duration_us.map(|us| us / 1000.0)
    }

    /// The step's latency in milliseconds at the finest resolution the record has: its
    /// `durationUs` when present, else `latencyMs`.
    pub fn fine_latency_ms(&self) -> Option<f64> {
        self.duration_ms().or(self.latency_ms)
    }
}

fn present_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

impl Serialize for StepRecord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry("status", &self.status)?;
        if let Some(at) = &self.started_at {
            map.serialize_entry("startedAt", at)?;
        }
        if let Some(at) = &self.completed_at {
            map.serialize_entry("completedAt", at)?;
        }
        if let Some(ms) = self.latency_ms {
            map.serialize_entry("latencyMs", &crate::js::number(ms))?;
        }
        if let Some(us) = self.duration_us {
            map.serialize_entry("durationUs", &micros_number(us))?;
        }
        if let Some(us) = self.guest_cpu_us {
            map.serialize_entry("guestCpuUs", &micros_number(us))?;
        }
        if let Some(n) = self.concurrency {
            map.serialize_entry("concurrency", &n)?;
        }
        if let Some(ms) = self.timeout_ms {
            map.serialize_entry("timeoutMs", &crate::js::number(ms))?;
        }
        if self.implicit {
            if let Some(code) = &self.error_code {
                map.serialize_entry("errorCode", code)?;
            }
        }
        if let Some(data) = &self.data {
            map.serialize_entry("data", data)?;
        }
        if !self.implicit {
            if let Some(code) = &self.error_code {
                map.serialize_entry("errorCode", code)?;
            }
        }
        map.end()
    }
}

/// The record of one task (`TaskResultRecord`), in the runner-built key order:
/// taskIndex, status, startedAt, errorCode, data, completedAt, latencyMs, durationUs,
/// guestCpuUs, steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// 0-based schedule index.
    pub task_index: u32,
    /// Task status.
    pub status: Status,
    /// ISO start time.
    pub started_at: String,
    /// Error code of a failed task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// Measurements, returned data and the phase tag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Data>,
    /// ISO end time.
    pub completed_at: String,
    /// Task latency in milliseconds.
    #[serde(serialize_with = "crate::js::number_serde::serialize")]
    pub latency_ms: f64,
    /// Monotonic duration in microseconds (nanosecond fraction, three decimals) between the
    /// same start and end as `latencyMs`; bench's addition to upstream's record. Absent when
    /// the task returned its own latency, and in records written before bench measured it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_micros"
    )]
    pub duration_us: Option<f64>,
    /// Guest CPU in microseconds (three decimals) the task spent between the same start
    /// and end: the time the sandbox's thread ran the guest, time blocked in host I/O
    /// excluded. bench's addition; absent where the guest never ran (it could not be
    /// instantiated) and in older records.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_micros"
    )]
    pub guest_cpu_us: Option<f64>,
    /// Steps in completion order.
    pub steps: Vec<StepRecord>,
    /// When an open-model (arrival-rate) task was due and how long it took counted from
    /// then; absent in every other run, so their records keep upstream's shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival: Option<ArrivalTiming>,
}

/// The open-model timing of a task: the service time counts from the actual start, the
/// response time from the intended one, so a stalled target shows in the response time
/// even when the task itself started late.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArrivalTiming {
    /// ISO time the task was due on the arrival schedule.
    pub intended_start_at: String,
    /// How late the task started, in milliseconds (intended → actual start).
    #[serde(serialize_with = "crate::js::number_serde::serialize")]
    pub start_lag_ms: f64,
    /// Actual start → end, in milliseconds.
    #[serde(serialize_with = "crate::js::number_serde::serialize")]
    pub service_time_ms: f64,
    /// Intended start → end, in milliseconds.
    #[serde(serialize_with = "crate::js::number_serde::serialize")]
    pub response_time_ms: f64,
}

/// A monotonic duration in microseconds, its nanoseconds kept as the fraction.
pub fn micros(duration: Duration) -> f64 {
    duration.as_nanos() as f64 / 1000.0
}

/// Microseconds as a JSON number with at most three decimals (whole nanoseconds).
fn micros_number(us: f64) -> Value {
    crate::js::number((us * 1000.0).round() / 1000.0)
}

fn serialize_micros<S: Serializer>(us: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match us {
        Some(us) => micros_number(*us).serialize(serializer),
        None => serializer.serialize_none(),
    }
}

#[cfg(any(test, feature = "test-support"))]
impl TaskRecord {
    /// A record of task `task_index` with `status` and `latency_ms` and nothing else.
    pub fn bare(task_index: u32, status: Status, latency_ms: f64) -> Self {
        Self {
            task_index,
            status,
            started_at: String::new(),
            error_code: None,
            data: None,
            completed_at: String::new(),
            latency_ms,
            duration_us: None,
            guest_cpu_us: None,
            steps: vec![],
            arrival: None,
        }
    }
}

impl TaskRecord {
    /// The task's latency in milliseconds at the finest resolution the record has: its
    /// `durationUs` when present, else `latencyMs`.
    pub fn fine_latency_ms(&self) -> f64 {
        self.duration_ms().unwrap_or(self.latency_ms)
    }

    /// The task's `durationUs` in milliseconds, when it has one.
    pub fn duration_ms(&self) -> Option<f64> {
        self.duration_us.map(|us| us / 1000.0)
    }

    /// Whether the task succeeded.
    pub fn is_success(&self) -> bool {
        self.status == Status::Success
    }

    /// Whether the task ran in the warm-up phase.
    pub fn is_warmup(&self) -> bool {
        self.data
            .as_ref()
            .and_then(|data| data.get("phase"))
            .is_some_and(|phase| phase == WARMUP_PHASE)
    }

    /// `responseTimeMs` or `serviceTimeMs` of a task that ran on an arrival schedule: the
    /// metrics scoring reads from the record's timing when its data has no such key.
    pub fn arrival_metric(&self, key: &str) -> Option<f64> {
        let arrival = self.arrival.as_ref()?;
        match key {
            RESPONSE_TIME => Some(arrival.response_time_ms),
            SERVICE_TIME => Some(arrival.service_time_ms),
            _ => None,
        }
    }

    /// The console/summary label of a failure: `errorCode ?? 'unknown error'`.
    pub fn error_label(&self) -> &str {
        self.error_code.as_deref().unwrap_or("unknown error")
    }

    /// A failure's message: its data's `errorMessage`, when that is a string.
    pub fn error_message(&self) -> Option<&str> {
        self.data.as_ref()?.get("errorMessage")?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(name: &str) -> StepRecord {
        StepRecord {
            name: name.into(),
            status: Status::Success,
            started_at: Some("a".into()),
            completed_at: Some("b".into()),
            latency_ms: Some(3.0),
            duration_us: None,
            guest_cpu_us: None,
            concurrency: None,
            timeout_ms: None,
            data: json!({"ops": 5}).as_object().cloned(),
            error_code: None,
            implicit: false,
        }
    }

    #[test]
    fn record_keys_follow_upstream_insertion_order() {
        let record = TaskRecord {
            task_index: 10,
            status: Status::Success,
            started_at: "s".into(),
            error_code: None,
            data: json!({"phase": "cold"}).as_object().cloned(),
            completed_at: "c".into(),
            latency_ms: 12.0,
            duration_us: None,
            guest_cpu_us: None,
            steps: vec![step("probe")],
            arrival: None,
        };
        assert_eq!(
            serde_json::to_string(&record).unwrap(),
            r#"{"taskIndex":10,"status":"success","startedAt":"s","data":{"phase":"cold"},"completedAt":"c","latencyMs":12,"steps":[{"name":"probe","status":"success","startedAt":"a","completedAt":"b","latencyMs":3,"data":{"ops":5}}]}"#
        );
    }

    #[test]
    fn open_model_timing_comes_last_and_only_when_present() {
        let mut record = TaskRecord::bare(3, Status::Success, 12.0);
        let closed = serde_json::to_string(&record).unwrap();
        assert!(!closed.contains("arrival"), "{closed}");
        record.arrival = Some(ArrivalTiming {
            intended_start_at: "i".into(),
            start_lag_ms: 0.5,
            service_time_ms: 12.0,
            response_time_ms: 12.5,
        });
        let open = serde_json::to_string(&record).unwrap();
        assert!(
            open.ends_with(r#""steps":[],"arrival":{"intendedStartAt":"i","startLagMs":0.5,"serviceTimeMs":12,"responseTimeMs":12.5}}"#),
            "{open}"
        );
        let back: TaskRecord = serde_json::from_str(&open).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.arrival_metric("responseTimeMs"), Some(12.5));
        assert_eq!(back.arrival_metric("latencyMs"), None);
    }

    #[test]
    fn implicit_step_prints_null_error_code_before_data() {
        let mut implicit = step("task");
        implicit.implicit = true;
        implicit.error_code = Some(None);
        implicit.data = None;
        assert_eq!(
            serde_json::to_string(&implicit).unwrap(),
            r#"{"name":"task","status":"success","startedAt":"a","completedAt":"b","latencyMs":3,"errorCode":null}"#
        );
        let back: StepRecord =
            serde_json::from_str(&serde_json::to_string(&implicit).unwrap()).unwrap();
        assert_eq!(back.error_code, Some(None));
    }

    #[test]
    fn durations_follow_latency_with_at_most_three_decimals() {
        let mut record = TaskRecord::bare(1, Status::Success, 1.0);
        record.duration_us = Some(micros(Duration::from_nanos(1_234_567)));
        let mut timed = step("probe");
        timed.duration_us = Some(2.000_499_9);
        let mut whole = step("whole");
        whole.duration_us = Some(micros(Duration::from_micros(3)));
        record.steps = vec![timed, whole];
        assert_eq!(
            serde_json::to_string(&record).unwrap(),
            r#"{"taskIndex":1,"status":"success","startedAt":"","completedAt":"","latencyMs":1,"durationUs":1234.567,"steps":[{"name":"probe","status":"success","startedAt":"a","completedAt":"b","latencyMs":3,"durationUs":2,"data":{"ops":5}},{"name":"whole","status":"success","startedAt":"a","completedAt":"b","latencyMs":3,"durationUs":3,"data":{"ops":5}}]}"#
        );
        let back: TaskRecord =
            serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
        assert_eq!(back.duration_us, Some(1234.567));
        assert_eq!(back.fine_latency_ms(), 1.234567);
        assert_eq!(back.steps[0].fine_latency_ms(), Some(0.002));
        let odd = micros_number(7.100_6);
        assert_eq!(odd.to_string(), "7.101");
    }

    #[test]
    fn records_without_durations_still_read() {
        let old = r#"{"taskIndex":0,"status":"success","startedAt":"s","completedAt":"c","latencyMs":4,"steps":[{"name":"task","status":"success","latencyMs":4,"errorCode":null}]}"#;
        let record: TaskRecord = serde_json::from_str(old).unwrap();
        assert_eq!(record.duration_us, None);
        assert_eq!(record.fine_latency_ms(), 4.0);
        assert_eq!(record.steps[0].duration_us, None);
        assert_eq!(record.steps[0].fine_latency_ms(), Some(4.0));
        assert_eq!(record.guest_cpu_us, None);
        assert_eq!(record.steps[0].guest_cpu_us, None);
    }

    #[test]
    fn guest_cpu_follows_the_duration_and_reads_back() {
        let mut record = TaskRecord::bare(2, Status::Success, 1.0);
        record.duration_us = Some(1500.0);
        record.guest_cpu_us = Some(micros(Duration::from_nanos(1_200_456)));
        let mut timed = step("probe");
        timed.duration_us = Some(900.0);
        timed.guest_cpu_us = Some(850.25);
        record.steps = vec![timed];
        let text = serde_json::to_string(&record).unwrap();
        assert_eq!(
            text,
            r#"{"taskIndex":2,"status":"success","startedAt":"","completedAt":"","latencyMs":1,"durationUs":1500,"guestCpuUs":1200.456,"steps":[{"name":"probe","status":"success","startedAt":"a","completedAt":"b","latencyMs":3,"durationUs":900,"guestCpuUs":850.25,"data":{"ops":5}}]}"#
        );
        let back: TaskRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back.guest_cpu_us, Some(1200.456));
        assert_eq!(back.steps[0].guest_cpu_us, Some(850.25));
    }
}
