//! The load section of a summary (runs with an `executor` other than upstream's): per
//! participant the tasks started and, on an arrival schedule, the ones intended and
//! dropped, with the achieved rate beside the intended one, and how late the tasks started
//! (p50, p99, max of the records' `startLagMs`; a warning names the tasks that started more
//! than [`LATE_START_MS`] late: the arrivals were held up, and their response times
//! include the wait). Built from `run.json` (its `load` entry, with the dropped arrivals)
//! and the tally, so `bench report` prints the same.

use super::tally::RunTally;
use crate::summary_document::{LoadSection, ParticipantLoadNumbers, StartLagNumbers};
use bench_model::js;
use bench_model::metric::{LATENCY, RESPONSE_TIME};
use bench_model::plan::LoadManifest;
use bench_model::text::escape_control;

/// A task that started more than this many milliseconds after it was due is a late start.
pub const LATE_START_MS: f64 = 10.0;

/// How a run with a load model went.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadSummary {
    /// The executor's config name.
    pub executor: String,
    /// The planned duration of each participant's load, in milliseconds.
    pub duration_ms: f64,
    /// Whether tasks started on an arrival schedule.
    pub open: bool,
    /// One entry per participant, in summary order.
    pub participants: Vec<ParticipantLoad>,
}

/// How one participant's load went.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticipantLoad {
    /// The participant.
    pub participant: String,
    /// Tasks that started (every one has a record).
    pub started: u64,
    /// Tasks due on the arrival schedule (open models).
    pub intended: Option<u64>,
    /// Arrivals dropped for want of a free sandbox (open models).
    pub dropped: Option<u64>,
    /// How late the started tasks started (open models with records).
    pub start_lag: Option<StartLag>,
}

/// How late one participant's tasks started after they were due, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StartLag {
    /// The median start lag.
    pub p50: f64,
    /// The 99th percentile (nearest rank).
    pub p99: f64,
    /// The largest start lag.
    pub max: f64,
    /// Tasks that started more than [`LATE_START_MS`] late.
    pub late: u64,
}

impl StartLag {
    /// The figures of these start lags (`None` without any).
    fn of(lags: &[f64]) -> Option<Self> {
        let mut sorted = lags.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank =
            |p: f64| sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1];
        let max = *sorted.last()?;
        Some(Self {
            p50: rank(0.5),
            p99: rank(0.99),
            max,
            late: sorted.iter().filter(|lag| **lag > LATE_START_MS).count() as u64,
        })
    }

    fn to_numbers(self) -> StartLagNumbers {
        StartLagNumbers {
            p50: self.p50,
            p99: self.p99,
            max: self.max,
        }
    }
}

impl LoadSummary {
    /// The load section of a run, if it ran with a load model.
    pub(crate) fn of(load: Option<&LoadManifest>, tally: &RunTally) -> Option<Self> {
        let load = load?;
        let open = load.is_open();
        let participants = tally
            .tasks()
            .zip(tally.start_lags())
            .map(|((participant, started), lags)| ParticipantLoad {
                participant: participant.to_owned(),
                started,
                intended: load.intended_tasks,
                dropped: open.then(|| load.dropped.get(participant).copied().unwrap_or(0)),
                start_lag: StartLag::of(lags),
            })
            .collect();
        Some(Self {
            executor: load.executor.clone(),
            duration_ms: load.duration_ms,
            open,
            participants,
        })
    }

    /// Tasks per second over the planned duration.
    fn rate(&self, tasks: u64) -> f64 {
        let per_second = tasks as f64 * 1000.0 / self.duration_ms.max(f64::MIN_POSITIVE);
        (per_second * 100.0).round() / 100.0
    }

    /// The `load` section of `summary.json`.
    pub(crate) fn to_section(&self) -> LoadSection {
        let participants = self
            .participants
            .iter()
            .map(|load| {
                let open = load.intended.zip(load.dropped);
                ParticipantLoadNumbers {
                    participant: load.participant.clone(),
                    started: load.started,
                    achieved_rate: self.rate(load.started),
                    intended: open.map(|(intended, _)| intended),
                    dropped: open.map(|(_, dropped)| dropped),
                    intended_rate: open.map(|(intended, _)| self.rate(intended)),
                    start_lag_ms: load.start_lag.map(StartLag::to_numbers),
                    late_starts: load.start_lag.map(|lag| lag.late),
                }
            })
            .collect();
        let latency = if self.open { RESPONSE_TIME } else { LATENCY };
        LoadSection {
            executor: self.executor.clone(),
            duration_ms: self.duration_ms,
            latency_metric: latency.to_owned(),
            participants,
        }
    }

    /// The lines under the timing lines: one per participant.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "Load: {}{}",
            self.executor,
            if self.open {
                " (open model: latency figures are response times, from the intended start)"
            } else {
                " (closed model)"
            }
        )];
        for load in &self.participants {
            let name = escape_control(&load.participant);
            let achieved = js::number_to_string(self.rate(load.started));
            let mut line = match (load.intended, load.dropped) {
                (Some(intended), Some(dropped)) => format!(
                    "  {name}: {} of {intended} tasks started, {dropped} dropped; {achieved}/s achieved of {}/s intended",
                    load.started,
                    js::number_to_string(self.rate(intended)),
                ),
                _ => format!("  {name}: {} tasks started, {achieved}/s", load.started),
            };
            if let Some(lag) = load.start_lag {
                line.push_str(&format!(
                    "; start lag p50 {} ms, p99 {} ms, max {} ms",
                    js::number_to_string(lag.p50),
                    js::number_to_string(lag.p99),
                    js::number_to_string(lag.max),
                ));
            }
            lines.push(line);
        }
        lines
    }

    /// A warning for each participant with late starts.
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.participants
            .iter()
            .filter_map(|load| {
                let lag = load.start_lag.filter(|lag| lag.late > 0)?;
                Some(format!(
                    "Warning: {}: {} of {} tasks started more than {} ms after they were due (up to {} ms late): the arrivals were held up (the machine was busy, or the process paused); their response times include the wait",
                    escape_control(&load.participant),
                    lag.late,
                    load.started,
                    js::number_to_string(LATE_START_MS),
                    js::number_to_string(lag.max),
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::Summary;
    use bench_model::metric::SERVICE_TIME;
    use bench_model::plan::test_manifest;
    use bench_model::record::{ArrivalTiming, Status, TaskRecord};
    use serde_json::json;

    fn timed(index: u32, response_ms: f64, service_ms: f64) -> TaskRecord {
        let mut record = TaskRecord::bare(index, Status::Success, service_ms.floor());
        record.arrival = Some(ArrivalTiming {
            intended_start_at: String::new(),
            start_lag_ms: response_ms - service_ms,
            service_time_ms: service_ms,
            response_time_ms: response_ms,
        });
        record
    }

    fn open_manifest() -> bench_model::plan::RunManifest {
        test_manifest(json!({
            "participants": ["a", "b"],
            "load": {
                "executor": "constant-arrival-rate", "durationMs": 2000, "intendedTasks": 4,
                "preAllocated": 1, "maxSandboxes": 2, "dropped": {"a": 1, "b": 0},
            },
        }))
    }

    #[test]
    fn an_open_run_shows_started_dropped_and_both_rates() {
        let manifest = open_manifest();
        let mut tally = RunTally::new(&manifest);
        for index in 0..3 {
            tally.add("a", &timed(index, 1200.0, 10.0));
        }
        for index in 0..4 {
            tally.add("b", &timed(index, 11.0, 10.0));
        }
        let summary = Summary::new(&manifest, tally).unwrap();
        let load = summary.load.as_ref().unwrap();
        assert_eq!(
            serde_json::to_value(load.to_section()).unwrap(),
            json!({
                "executor": "constant-arrival-rate", "durationMs": 2000,
                "latencyMetric": "responseTimeMs",
                "participants": [
                    {"participant": "a", "started": 3, "achievedRate": 1.5, "intended": 4, "dropped": 1, "intendedRate": 2,
                     "startLagMs": {"p50": 1190, "p99": 1190, "max": 1190}, "lateStarts": 3},
                    {"participant": "b", "started": 4, "achievedRate": 2, "intended": 4, "dropped": 0, "intendedRate": 2,
                     "startLagMs": {"p50": 1, "p99": 1, "max": 1}, "lateStarts": 0},
                ],
            })
        );
        assert_eq!(
            load.lines(),
            [
                "Load: constant-arrival-rate (open model: latency figures are response times, from the intended start)",
                "  a: 3 of 4 tasks started, 1 dropped; 1.5/s achieved of 2/s intended; start lag p50 1190 ms, p99 1190 ms, max 1190 ms",
                "  b: 4 of 4 tasks started, 0 dropped; 2/s achieved of 2/s intended; start lag p50 1 ms, p99 1 ms, max 1 ms",
            ]
        );
        assert_eq!(
            load.warnings(),
            ["Warning: a: 3 of 3 tasks started more than 10 ms after they were due (up to 1190 ms late): the arrivals were held up (the machine was busy, or the process paused); their response times include the wait"]
        );
        assert_eq!(
            summary.to_json()["load"],
            serde_json::to_value(load.to_section()).unwrap()
        );
        let text = summary.to_json_text();
        let read = crate::summary_document::SummaryDocument::from_json_text(&text).unwrap();
        assert_eq!(read.load.as_ref(), Some(&load.to_section()));
        assert_eq!(read.to_json_text(), text);
        // The response time leads the numbers, the service time beside it.
        let crate::summary::Verdict::Unscored(participants) = &summary.verdict else {
            panic!("unscored");
        };
        let a = &participants[0].metrics;
        let names: Vec<&str> = a.iter().map(|metric| metric.name.as_str()).collect();
        assert_eq!(names, [RESPONSE_TIME, SERVICE_TIME, "latencyMs"]);
        assert_eq!((a[0].stats.median, a[1].stats.median), (1200.0, 10.0));
    }

    #[test]
    fn start_lag_percentiles_are_nearest_ranks() {
        let lags: Vec<f64> = (1..=200).map(f64::from).collect();
        let lag = StartLag::of(&lags).unwrap();
        assert_eq!(
            (lag.p50, lag.p99, lag.max, lag.late),
            (100.0, 198.0, 200.0, 190)
        );
        assert_eq!(StartLag::of(&[]), None);
        assert_eq!(StartLag::of(&[0.02]).unwrap().p99, 0.02);
    }

    #[test]
    fn a_closed_run_has_no_load_section_and_a_duration_run_only_its_rate() {
        let closed = test_manifest(json!({}));
        let summary = Summary::new(&closed, RunTally::new(&closed)).unwrap();
        assert_eq!(summary.load, None);
        assert!(summary.to_json().get("load").is_none());
        let duration = test_manifest(json!({"load": {"executor": "duration", "durationMs": 1000}}));
        let mut tally = RunTally::new(&duration);
        tally.add("a", &TaskRecord::bare(0, Status::Success, 5.0));
        let summary = Summary::new(&duration, tally).unwrap();
        assert_eq!(
            summary.load.unwrap().lines(),
            ["Load: duration (closed model)", "  a: 1 tasks started, 1/s"]
        );
    }

    #[test]
    fn scoring_reads_response_and_service_times_of_open_runs() {
        let manifest = test_manifest(json!({
            "participants": ["a"],
            "scoring": {"metrics": [
                {"key": "responseTimeMs", "ceiling": 2000, "weights": {"median": 1, "p95": 0, "p99": 0}},
                {"key": "serviceTimeMs", "ceiling": 2000, "weights": {"median": 0, "p95": 0, "p99": 0}},
            ]},
        }));
        let mut tally = RunTally::new(&manifest);
        tally.add("a", &timed(0, 1000.0, 4.0));
        let summary = Summary::new(&manifest, tally).unwrap();
        let row = summary.overall_rows()[0];
        let medians: Vec<f64> = row.metrics.iter().map(|metric| metric.median).collect();
        assert_eq!(medians, [1000.0, 4.0]);
    }
}
