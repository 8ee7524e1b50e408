//! The content of a run's page, shared by the one-file HTML report (`bench report --html`,
//! `bench run --export-html`) and the run page of the `bench serve` dashboard: the run's
//! header and summary, plus what one pass over its records gives — each participant's
//! distribution of every metric, its per-step latency, a task timeline and the failures
//! grouped by `errorCode`. Everything kept is bounded, whatever the number of records or
//! what a task put in them: samples are even samples of fixed size (and the page says when
//! it shows a sample), metric and step names, error codes and messages are capped in number
//! and length.

mod data;
mod document;
mod sample;

pub use data::{
    Distribution, FailureCode, FailureGroups, MetricDistribution, PageData, ParticipantSteps,
    StepMeans, TaskCounts, Timeline,
};
pub use document::{escape_html, render, Scripts, CHARTS_JS, PAGE_JS, STYLES};

use super::input::{self, Line, MAX_LINE_BYTES};
use bench_model::metric::LATENCY;
use bench_model::plan::RunManifest;
use bench_model::record::TaskRecord;
use chrono::DateTime;
use sample::EvenSample;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, Read, Seek, SeekFrom};

/// Most tasks drawn on the timeline (an even sample of them beyond).
const MAX_TIMELINE_TASKS: usize = 2_000;

/// Most samples a distribution is computed from, per participant and metric.
const MAX_DISTRIBUTION_SAMPLES: usize = 20_000;

/// Most metrics (numeric `data` keys) with a distribution; later keys are counted only.
const MAX_METRICS: usize = 16;

/// Most step names in the per-step breakdown; later names are counted only.
const MAX_STEPS: usize = 32;

/// Most error codes listed with their messages; the failures of later codes are counted
/// together.
const MAX_ERROR_CODES: usize = 32;

/// Example messages kept per error code.
const EXAMPLES_PER_CODE: usize = 3;

/// Longest name, error code or message kept, in characters.
const MAX_TEXT_CHARS: usize = 500;

/// Most system-metrics samples drawn.
const MAX_SYSTEM_SAMPLES: usize = 1_000;

/// Most participant logs a page shows.
pub const MAX_LOGS: usize = 32;

/// The end of each participant log shown, in bytes.
pub const LOG_TAIL_BYTES: u64 = 32 * 1024;

/// The distribution of the records' `guestCpuUs` (in milliseconds), beside the latency's.
const GUEST_CPU: &str = "guestCpuMs";

/// Who ran, when, at which commit and with which knobs: the page's header.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunHeader {
    /// The benchmark's name.
    pub benchmark_name: String,
    /// The benchmark's slug.
    pub benchmark_slug: String,
    /// The run's id.
    pub run_id: String,
    /// ISO start time, when known.
    pub started_at: Option<String>,
    /// ISO end time, when known.
    pub completed_at: Option<String>,
    /// The commit, when known.
    pub git_sha: Option<String>,
    /// The branch or ref, when known.
    pub git_ref: Option<String>,
    /// The run's settings: its `runConfig` without the names, participants and scoring.
    pub knobs: Map<String, Value>,
}

impl RunHeader {
    /// The header of a local run.
    pub fn of_manifest(manifest: &RunManifest) -> Self {
        let run_config = serde_json::to_value(&manifest.run_config).unwrap_or_default();
        Self {
            benchmark_name: manifest.run_config.benchmark_name.clone(),
            benchmark_slug: manifest.run_config.benchmark_slug.clone(),
            run_id: manifest.run_id.clone(),
            started_at: Some(manifest.started_at.clone()),
            completed_at: manifest.completed_at.clone(),
            git_sha: manifest.origin.git_sha.clone(),
            git_ref: manifest.origin.git_ref.clone(),
            knobs: Self::knobs_of(&run_config),
        }
    }

    /// The knobs of a `runConfig` object: every key but the benchmark's names, the
    /// participants and the scoring spec.
    pub fn knobs_of(run_config: &Value) -> Map<String, Value> {
        let mut knobs = run_config.as_object().cloned().unwrap_or_default();
        for key in [
            "benchmarkSlug",
            "benchmarkName",
            "participants",
            "scoring",
            "display",
        ] {
            knobs.remove(key);
        }
        knobs
    }
}

/// One participant's log, or its end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogTail {
    /// The participant.
    pub participant: String,
    /// The last lines (at most [`LOG_TAIL_BYTES`]).
    pub text: String,
    /// Whether earlier lines were left out.
    pub cut: bool,
}

/// A run's page content, filled one record at a time.
#[derive(Debug)]
pub struct RunPage {
    participants: Vec<ParticipantContent>,
    index_by_name: HashMap<String, usize>,
    metric_names: Vec<String>,
    step_names: Vec<String>,
    /// Metric and step names beyond the caps, counted.
    names_left_out: u64,
    timeline: EvenSample<TimelineTask>,
    failures: Failures,
    /// Whether a successful record had no `durationUs` (an older record, a latency the task
    /// gave itself): then every latency shown is `latencyMs`.
    coarse_latency: bool,
    /// Whether a step with a latency had no `durationUs`: then every step mean is of
    /// `latencyMs`.
    coarse_steps: bool,
}

#[derive(Debug)]
struct ParticipantContent {
    name: String,
    tasks: u64,
    succeeded: u64,
    /// One sample per entry of `metric_names` (latency first, from `latencyMs`).
    distributions: Vec<EvenSample<f64>>,
    /// The latency sample from `durationUs`, in milliseconds (the same tasks).
    fine_latency: EvenSample<f64>,
    /// Per entry of `step_names`: how many steps with a latency, and their sum.
    steps: Vec<StepTotals>,
}

/// How many steps of one name had a latency, and their sums.
#[derive(Debug, Clone, Copy, Default)]
struct StepTotals {
    count: u64,
    /// Of `latencyMs`.
    sum: f64,
    /// Of `durationUs`, in milliseconds.
    fine_sum: f64,
}

#[derive(Debug, Clone)]
struct TimelineTask {
    participant: usize,
    task_index: u32,
    start_ms: f64,
    end_ms: f64,
    ok: bool,
}

#[derive(Debug, Default)]
struct Failures {
    by_code: BTreeMap<String, FailureGroup>,
    /// Failures whose code came after [`MAX_ERROR_CODES`] others.
    other_codes: u64,
}

#[derive(Debug, Default)]
struct FailureGroup {
    count: u64,
    examples: Vec<String>,
}

impl Default for RunPage {
    fn default() -> Self {
        Self::new()
    }
}

impl RunPage {
    /// An empty page.
    pub fn new() -> Self {
        Self {
            participants: Vec::new(),
            index_by_name: HashMap::new(),
            metric_names: vec![LATENCY.to_owned()],
            step_names: Vec::new(),
            names_left_out: 0,
            timeline: EvenSample::new(MAX_TIMELINE_TASKS),
            failures: Failures::default(),
            coarse_latency: false,
            coarse_steps: false,
        }
    }

    /// Adds a participant with no records yet (participants appear in the order they are
    /// first named).
    pub fn participant(&mut self, name: &str) {
        self.index(name);
    }

    /// Takes what the page shows of one record of `participant`.
    pub fn add(&mut self, participant: &str, record: &TaskRecord) {
        let index = self.index(participant);
        let ok = record.is_success();
        let content = &mut self.participants[index];
        content.tasks += 1;
        if ok {
            content.succeeded += 1;
            content.distributions[0].offer(record.latency_ms);
            content.fine_latency.offer(record.fine_latency_ms());
            self.coarse_latency |= record.duration_us.is_none();
            if let Some(us) = record.guest_cpu_us.filter(|us| us.is_finite()) {
                if let Some(metric) = self.metric(GUEST_CPU) {
                    self.participants[index].distributions[metric].offer(us / 1000.0);
                }
            }
            for (key, value) in record.data.iter().flatten() {
                let numbers = numbers(value);
                if numbers.is_empty() {
                    continue;
                }
                let Some(metric) = self.metric(key) else {
                    continue;
                };
                let sample = &mut self.participants[index].distributions[metric];
                numbers.into_iter().for_each(|x| sample.offer(x));
            }
            for step in &record.steps {
                let Some(latency) = step.latency_ms.filter(|ms| ms.is_finite()) else {
                    continue;
                };
                self.coarse_steps |= step.duration_us.is_none();
                if let Some(step_index) = self.step(&step.name) {
                    let totals = &mut self.participants[index].steps[step_index];
                    totals.count += 1;
                    totals.sum += latency;
                    totals.fine_sum += step.fine_latency_ms().unwrap_or(latency);
                }
            }
        } else {
            self.failures
                .add(record.error_label(), record.error_message());
        }
        if let (Some(start_ms), Some(end_ms)) =
            (epoch_ms(&record.started_at), epoch_ms(&record.completed_at))
        {
            self.timeline.offer(TimelineTask {
                participant: index,
                task_index: record.task_index,
                start_ms,
                end_ms,
                ok,
            });
        }
    }

    /// The page's data: `header`, `summary` (what `summary.json` holds), the system
    /// metrics samples (`metrics.jsonl` lines, see [`system_metrics`]) and the participant
    /// logs, with what the records gave.
    pub fn finish<'a>(
        mut self,
        header: &'a RunHeader,
        summary: &'a Value,
        system: Option<Value>,
        logs: &'a [LogTail],
    ) -> PageData<'a> {
        if !self.coarse_latency {
            for participant in &mut self.participants {
                let fine = EvenSample::new(MAX_DISTRIBUTION_SAMPLES);
                participant.distributions[0] =
                    std::mem::replace(&mut participant.fine_latency, fine);
            }
        }
        let names: Vec<String> = self.participants.iter().map(|p| p.name.clone()).collect();
        let distributions = self
            .metric_names
            .iter()
            .enumerate()
            .map(|(metric, name)| MetricDistribution {
                metric: name.clone(),
                participants: self
                    .participants
                    .iter()
                    .map(|p| distribution(&p.name, p.distributions[metric].clone()))
                    .collect(),
            })
            .filter(|metric| metric.participants.iter().any(|row| row.count != 0))
            .collect();
        let coarse_steps = self.coarse_steps;
        let steps = self
            .participants
            .iter()
            .map(|p| ParticipantSteps {
                participant: p.name.clone(),
                mean_ms: p
                    .steps
                    .iter()
                    .map(|totals| {
                        let sum = if coarse_steps {
                            totals.sum
                        } else {
                            totals.fine_sum
                        };
                        (totals.count != 0).then(|| round3(sum / totals.count as f64))
                    })
                    .collect(),
                counts: p.steps.iter().map(|totals| totals.count).collect(),
            })
            .collect();
        PageData {
            header,
            summary,
            tasks: TaskCounts {
                total: self.participants.iter().map(|p| p.tasks).sum(),
                succeeded: self.participants.iter().map(|p| p.succeeded).sum(),
            },
            distributions,
            steps: StepMeans {
                names: self.step_names,
                participants: steps,
            },
            names_left_out: self.names_left_out,
            timeline: timeline(self.timeline, names.len()),
            failures: self.failures.groups(),
            participants: names,
            system,
            logs,
        }
    }

    fn index(&mut self, name: &str) -> usize {
        if let Some(&index) = self.index_by_name.get(name) {
            return index;
        }
        self.participants.push(ParticipantContent {
            name: name.to_owned(),
            tasks: 0,
            succeeded: 0,
            distributions: (0..self.metric_names.len())
                .map(|_| EvenSample::new(MAX_DISTRIBUTION_SAMPLES))
                .collect(),
            fine_latency: EvenSample::new(MAX_DISTRIBUTION_SAMPLES),
            steps: vec![StepTotals::default(); self.step_names.len()],
        });
        self.index_by_name
            .insert(name.to_owned(), self.participants.len() - 1);
        self.participants.len() - 1
    }

    /// The index of metric `key`, added when there is room.
    fn metric(&mut self, key: &str) -> Option<usize> {
        if let Some(index) = self.metric_names.iter().position(|name| name == key) {
            return Some(index);
        }
        if self.metric_names.len() > MAX_METRICS {
            self.names_left_out += 1;
            return None;
        }
        self.metric_names.push(clip(key));
        for participant in &mut self.participants {
            let sample = EvenSample::new(MAX_DISTRIBUTION_SAMPLES);
            participant.distributions.push(sample);
        }
        Some(self.metric_names.len() - 1)
    }

    /// The index of step `name`, added when there is room.
    fn step(&mut self, name: &str) -> Option<usize> {
        if let Some(index) = self.step_names.iter().position(|known| known == name) {
            return Some(index);
        }
        if self.step_names.len() >= MAX_STEPS {
            self.names_left_out += 1;
            return None;
        }
        self.step_names.push(clip(name));
        for participant in &mut self.participants {
            participant.steps.push(StepTotals::default());
        }
        Some(self.step_names.len() - 1)
    }
}

impl Failures {
    fn add(&mut self, code: &str, message: Option<&str>) {
        let code = clip(code);
        if !self.by_code.contains_key(&code) && self.by_code.len() >= MAX_ERROR_CODES {
            self.other_codes += 1;
            return;
        }
        let group = self.by_code.entry(code).or_default();
        group.count += 1;
        if let Some(message) = message {
            let message = clip(message);
            if group.examples.len() < EXAMPLES_PER_CODE && !group.examples.contains(&message) {
                group.examples.push(message);
            }
        }
    }

    fn groups(&self) -> FailureGroups {
        let mut groups: Vec<(&String, &FailureGroup)> = self.by_code.iter().collect();
        groups.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
        FailureGroups {
            groups: groups
                .into_iter()
                .map(|(code, group)| FailureCode {
                    error_code: code.clone(),
                    count: group.count,
                    examples: group.examples.clone(),
                })
                .collect(),
            other_codes: self.other_codes,
        }
    }
}

/// The numbers of a `data` value: a finite number, or the finite numbers of an array.
fn numbers(value: &Value) -> Vec<f64> {
    match value {
        Value::Number(n) => n.as_f64().filter(|x| x.is_finite()).into_iter().collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_f64)
            .filter(|x| x.is_finite())
            .collect(),
        _ => Vec::new(),
    }
}

/// A participant's five-number summary of a sample (nearest-rank quartiles).
fn distribution(participant: &str, sample: EvenSample<f64>) -> Distribution {
    let seen = sample.seen();
    let sampled = sample.is_sampled();
    let mut values = sample.into_kept();
    values.sort_by(f64::total_cmp);
    let rank = |q: f64| {
        let n = values.len();
        let index = ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
        round3(values[index])
    };
    let five_numbers = (!values.is_empty()).then(|| {
        [
            round3(values[0]),
            rank(0.25),
            rank(0.5),
            rank(0.75),
            round3(values[values.len() - 1]),
        ]
    });
    Distribution {
        participant: participant.to_owned(),
        count: seen,
        sampled,
        five_numbers,
    }
}

/// The timeline: tasks in milliseconds from the first start, each on the first lane of its
/// participant free at its start (so lanes show how many ran at once).
fn timeline(sample: EvenSample<TimelineTask>, participants: usize) -> Timeline {
    let seen = sample.seen();
    let sampled = sample.is_sampled();
    let mut tasks = sample.into_kept();
    tasks.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    let origin = tasks.first().map_or(0.0, |task| task.start_ms);
    let mut lanes: Vec<Vec<f64>> = vec![Vec::new(); participants];
    let rows = tasks
        .iter()
        .map(|task| {
            let ends = &mut lanes[task.participant];
            let lane = match ends.iter().position(|&end| end <= task.start_ms) {
                Some(lane) => lane,
                None => {
                    ends.push(task.start_ms);
                    ends.len() - 1
                }
            };
            ends[lane] = task.end_ms.max(task.start_ms);
            let (start, end) = (task.start_ms - origin, task.end_ms - origin);
            (task.participant, lane, task.task_index, start, end, task.ok)
        })
        .collect();
    Timeline {
        total: seen,
        sampled,
        lanes: lanes.iter().map(Vec::len).collect(),
        tasks: rows,
    }
}

/// Milliseconds since the epoch of an ISO timestamp.
fn epoch_ms(iso: &str) -> Option<f64> {
    DateTime::parse_from_rfc3339(iso)
        .ok()
        .map(|time| time.timestamp_millis() as f64)
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `text`, cut to [`MAX_TEXT_CHARS`] characters.
fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The system metrics of a run's `metrics.jsonl` lines (see [`crate::metrics`]): an even
/// sample of at most [`MAX_SYSTEM_SAMPLES`] points of seconds since the first sample,
/// process CPU (% of one core, over the time since the previous point) and resident memory
/// (MB). Lines that are not samples are skipped, reading stops at an unreadable one;
/// `None` when there is no sample. A line longer than [`MAX_LINE_BYTES`] is an error.
pub fn system_metrics(mut lines: impl BufRead) -> anyhow::Result<Option<Value>> {
    let mut sample = EvenSample::new(MAX_SYSTEM_SAMPLES);
    let mut line = Vec::new();
    for number in 1.. {
        match input::read_line(&mut lines, &mut line) {
            Ok(Line::Read(_)) => {}
            Ok(Line::End) | Err(_) => break,
            Ok(Line::TooLong) => {
                anyhow::bail!("line {number} is longer than {} MiB", MAX_LINE_BYTES >> 20)
            }
        }
        let Ok(point) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        let (Some(uptime_ms), Some(user), Some(system)) = (
            point["uptimeMs"].as_f64(),
            point["cpuUserUs"].as_f64(),
            point["cpuSystemUs"].as_f64(),
        ) else {
            continue;
        };
        sample.offer((uptime_ms, user + system, point["memRssMb"].as_f64()));
    }
    let points = sample.into_kept();
    let Some(&(first, _, _)) = points.first() else {
        return Ok(None);
    };
    let mut previous: Option<(f64, f64)> = None;
    let rows: Vec<Value> = points
        .iter()
        .map(|&(uptime_ms, cpu_us, rss_mb)| {
            let cpu = previous
                .filter(|(at, _)| uptime_ms > *at)
                .map(|(at, used)| round3((cpu_us - used) / ((uptime_ms - at) * 1000.0) * 100.0));
            previous = Some((uptime_ms, cpu_us));
            json!([round3((uptime_ms - first) / 1000.0), cpu, rss_mb])
        })
        .collect();
    Ok(Some(
        json!({"columns": ["seconds", "cpuPercent", "rssMb"], "points": rows}),
    ))
}

impl LogTail {
    /// The tail of a log from its last bytes; `cut` when earlier bytes were left out, and
    /// then the first, partial line goes too.
    pub fn of_end(participant: &str, end: &[u8], cut: bool) -> Self {
        let mut text = String::from_utf8_lossy(end).into_owned();
        if cut {
            match text.find('\n') {
                Some(newline) => drop(text.drain(..=newline)),
                None => text.clear(),
            }
        }
        Self {
            participant: participant.to_owned(),
            text,
            cut,
        }
    }
}

/// The last [`LOG_TAIL_BYTES`] of a participant log (from a line start), or `None` when it
/// cannot be read.
pub fn log_tail(participant: &str, mut file: File) -> Option<LogTail> {
    let size = file.metadata().ok()?.len();
    let cut = size > LOG_TAIL_BYTES;
    file.seek(SeekFrom::Start(size.saturating_sub(LOG_TAIL_BYTES)))
        .ok()?;
    let mut bytes = Vec::new();
    file.take(LOG_TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    Some(LogTail::of_end(participant, &bytes, cut))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::record::{Status, StepRecord};

    fn record(index: u32, status: Status, data: Value, start: &str, end: &str) -> TaskRecord {
        TaskRecord {
            task_index: index,
            status,
            started_at: start.into(),
            error_code: (status != Status::Success).then(|| "boom".into()),
            data: data.as_object().cloned(),
            completed_at: end.into(),
            latency_ms: 10.0 * f64::from(index + 1),
            duration_us: None,
            guest_cpu_us: None,
            steps: vec![StepRecord {
                name: "upload".into(),
                status: Status::Success,
                started_at: None,
                completed_at: None,
                latency_ms: Some(f64::from(index)),
                duration_us: None,
                guest_cpu_us: None,
                concurrency: None,
                timeout_ms: None,
                data: None,
                error_code: None,
                implicit: false,
            }],
            arrival: None,
        }
    }

    #[test]
    fn the_page_holds_distributions_steps_a_timeline_and_failures() {
        let mut page = RunPage::new();
        page.participant("b");
        let t = |s: u32| format!("2026-01-01T00:00:0{s}.000Z");
        page.add(
            "a",
            &record(0, Status::Success, json!({"ms": [1, 2]}), &t(0), &t(2)),
        );
        page.add(
            "a",
            &record(
                1,
                Status::Success,
                json!({"ms": 3, "tag": "x"}),
                &t(1),
                &t(3),
            ),
        );
        page.add(
            "a",
            &record(
                2,
                Status::Error,
                json!({"errorMessage": "no"}),
                &t(2),
                &t(4),
            ),
        );
        page.add("b", &record(3, Status::Error, json!({}), &t(5), &t(6)));
        let header = RunHeader {
            benchmark_name: "N".into(),
            ..RunHeader::default()
        };
        let data =
            serde_json::to_value(page.finish(&header, &json!({"results": []}), None, &[])).unwrap();
        assert_eq!(data["participants"], json!(["b", "a"]));
        assert_eq!(data["tasks"], json!({"total": 4, "succeeded": 2}));
        assert_eq!(data["header"]["benchmarkName"], "N");
        assert_eq!(data["distributions"][0]["metric"], "latencyMs");
        assert_eq!(
            data["distributions"][1]["participants"][1],
            json!({"participant": "a", "count": 3, "sampled": false, "box": [1.0, 1.0, 2.0, 3.0, 3.0]})
        );
        assert_eq!(data["distributions"].as_array().unwrap().len(), 2);
        assert_eq!(data["steps"]["names"], json!(["upload"]));
        assert_eq!(data["steps"]["participants"][1]["meanMs"], json!([0.5]));
        assert_eq!(data["steps"]["participants"][0]["meanMs"], json!([null]));
        assert_eq!(
            data["failures"]["groups"],
            json!([{"errorCode": "boom", "count": 2, "examples": ["no"]}])
        );
        // a's first two tasks overlap: two lanes; b's task starts 5 s after the first.
        assert_eq!(data["timeline"]["lanes"], json!([1, 2]));
        assert_eq!(
            data["timeline"]["tasks"][1],
            json!([1, 1, 1, 1000.0, 3000.0, true])
        );
        assert_eq!(
            data["timeline"]["tasks"][3],
            json!([0, 0, 3, 5000.0, 6000.0, false])
        );
    }

    fn timed(index: u32, duration_us: Option<f64>, step_us: Option<f64>) -> TaskRecord {
        let mut record = record(index, Status::Success, json!({}), "", "");
        record.latency_ms = 0.0;
        record.duration_us = duration_us;
        record.steps[0].latency_ms = Some(0.0);
        record.steps[0].duration_us = step_us;
        record
    }

    #[test]
    fn guest_cpu_is_a_distribution_beside_the_latency_when_records_have_it() {
        let mut page = RunPage::new();
        let mut busy = timed(0, Some(900.0), Some(900.0));
        busy.guest_cpu_us = Some(600.0);
        page.add("a", &busy);
        page.add("b", &timed(1, Some(900.0), Some(900.0)));
        let data =
            serde_json::to_value(page.finish(&RunHeader::default(), &Value::Null, None, &[]))
                .unwrap();
        let metrics: Vec<&Value> = data["distributions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|metric| &metric["metric"])
            .collect();
        assert_eq!(metrics, [&json!("latencyMs"), &json!("guestCpuMs")]);
        let rows = &data["distributions"][1]["participants"];
        assert_eq!(rows[0]["box"], json!([0.6, 0.6, 0.6, 0.6, 0.6]));
        assert_eq!(rows[1]["count"], 0, "an older record has no guest CPU");
    }

    #[test]
    fn latencies_show_microseconds_when_every_record_has_them() {
        let mut page = RunPage::new();
        page.add("a", &timed(0, Some(120.0), Some(40.0)));
        page.add("b", &timed(1, Some(250.0), Some(60.0)));
        let data =
            serde_json::to_value(page.finish(&RunHeader::default(), &Value::Null, None, &[]))
                .unwrap();
        let boxes = &data["distributions"][0]["participants"];
        assert_eq!(boxes[0]["box"], json!([0.12, 0.12, 0.12, 0.12, 0.12]));
        assert_eq!(boxes[1]["box"], json!([0.25, 0.25, 0.25, 0.25, 0.25]));
        assert_eq!(data["steps"]["participants"][1]["meanMs"], json!([0.06]));

        let mut page = RunPage::new();
        page.add("a", &timed(0, Some(120.0), Some(40.0)));
        page.add("b", &timed(1, None, None));
        let data =
            serde_json::to_value(page.finish(&RunHeader::default(), &Value::Null, None, &[]))
                .unwrap();
        let boxes = &data["distributions"][0]["participants"];
        assert_eq!(
            boxes[0]["box"],
            json!([0.0, 0.0, 0.0, 0.0, 0.0]),
            "all or none"
        );
        assert_eq!(data["steps"]["participants"][0]["meanMs"], json!([0.0]));
    }

    #[test]
    fn untrusted_names_and_messages_are_bounded() {
        let mut page = RunPage::new();
        for i in 0..100 {
            let mut data = Map::new();
            data.insert(format!("m{i}"), json!(i));
            let mut failed = record(
                0,
                Status::Error,
                json!({"errorMessage": "x".repeat(9999)}),
                "",
                "",
            );
            failed.error_code = Some(format!("code{i}"));
            page.add("p", &failed);
            page.add(
                "p",
                &record(0, Status::Success, Value::Object(data), "", ""),
            );
        }
        let data =
            serde_json::to_value(page.finish(&RunHeader::default(), &Value::Null, None, &[]))
                .unwrap();
        assert_eq!(
            data["distributions"].as_array().unwrap().len(),
            MAX_METRICS + 1
        );
        assert_eq!(data["namesLeftOut"], 100 - MAX_METRICS as u64);
        let groups = data["failures"]["groups"].as_array().unwrap();
        assert_eq!(groups.len(), MAX_ERROR_CODES);
        assert_eq!(data["failures"]["otherCodes"], 100 - MAX_ERROR_CODES as u64);
        let example = groups[0]["examples"][0].as_str().unwrap();
        assert_eq!(example.chars().count(), MAX_TEXT_CHARS + 1);
        assert_eq!(data["timeline"]["total"], 0);
    }

    #[test]
    fn system_metrics_become_cpu_and_memory_points() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        std::fs::write(
            &path,
            "{\"uptimeMs\":1000,\"cpuUserUs\":0,\"cpuSystemUs\":0,\"memRssMb\":10}\n\
             not json\n\
             {\"uptimeMs\":2000,\"cpuUserUs\":400000,\"cpuSystemUs\":100000,\"memRssMb\":12}\n",
        )
        .unwrap();
        let file = std::io::BufReader::new(File::open(&path).unwrap());
        assert_eq!(
            system_metrics(file).unwrap().unwrap()["points"],
            json!([[0.0, null, 10.0], [1.0, 50.0, 12.0]])
        );
        assert_eq!(system_metrics(&b"{}\n"[..]).unwrap(), None);
        let mut long = b"{}\n".to_vec();
        long.resize(MAX_LINE_BYTES + 8, b' ');
        assert_eq!(
            system_metrics(&long[..]).unwrap_err().to_string(),
            "line 2 is longer than 16 MiB"
        );
    }

    #[test]
    fn a_long_log_shows_its_last_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.log");
        let lines: Vec<String> = (0..10_000).map(|i| format!("line {i}")).collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let tail = log_tail("p", File::open(&path).unwrap()).unwrap();
        assert!(tail.cut);
        assert!(tail.text.len() <= LOG_TAIL_BYTES as usize);
        assert!(tail.text.starts_with("line "));
        assert!(tail.text.ends_with("line 9999\n"));
    }
}
