//! bench's `executor` config field (not in upstream): how a participant's tasks are
//! started. Absent, upstream's model runs (a fixed iteration count on `concurrency`
//! slots); otherwise a closed model bounded by time (`duration`) or an open model at a
//! fixed (`constant-arrival-rate`) or ramping (`ramping-arrival-rate`) arrival rate, as k6's
//! executors of the same names. Also the text forms the `--rate`, `--duration` and
//! `--stages` flags share with it (`200/s`, `60s`, `30s:10/s,2m:200/s`), and bench's one
//! duration grammar, which every flag, variable and file key taking a duration reads.

use super::fields::positive_int;
use crate::js;
use serde_json::{Map, Value};
use std::time::Duration;

/// The highest arrival rate a run may ask for, in tasks per second.
const MAX_RATE_PER_SECOND: f64 = 100_000.0;
/// The longest a time-bounded run (or all its stages together) may last.
const MAX_RUN_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);
/// The most stages a ramping run may declare.
const MAX_STAGES: usize = 1000;
/// The most sandboxes an arrival-rate executor may pre-allocate or grow to.
const MAX_EXECUTOR_SANDBOXES: f64 = 100_000_000.0;

/// Which executor starts the tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutorKind {
    /// Upstream's model: `iterations` tasks on `concurrency` slots.
    Iterations,
    /// Closed model bounded by time: `concurrency` slots start tasks until `duration` ends.
    Duration,
    /// Open model: tasks start at `rate` per second for `duration`.
    ConstantArrivalRate,
    /// Open model: the rate ramps linearly through `stages`.
    RampingArrivalRate,
}

impl ExecutorKind {
    const ALL: [Self; 4] = [
        Self::Iterations,
        Self::Duration,
        Self::ConstantArrivalRate,
        Self::RampingArrivalRate,
    ];

    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Iterations => "iterations",
            Self::Duration => "duration",
            Self::ConstantArrivalRate => "constant-arrival-rate",
            Self::RampingArrivalRate => "ramping-arrival-rate",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    /// Whether tasks start on an arrival schedule (open model) rather than when a slot is free.
    pub fn is_open(self) -> bool {
        matches!(self, Self::ConstantArrivalRate | Self::RampingArrivalRate)
    }
}

/// One stage of a ramping arrival rate: the rate moves linearly to `target` over `duration`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stage {
    /// How long the stage lasts.
    pub duration: Duration,
    /// The rate at the end of the stage, in tasks per second.
    pub target: f64,
}

/// The `executor` object as declared (fields that are absent are `None`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExecutorConfig {
    /// `type`; `None` when no executor is declared.
    pub kind: Option<ExecutorKind>,
    /// `rate`: tasks per second (the start rate of a ramping executor).
    pub rate: Option<f64>,
    /// `duration`.
    pub duration: Option<Duration>,
    /// `stages` of a ramping executor.
    pub stages: Option<Vec<Stage>>,
    /// `preAllocated`: sandboxes created before the first arrival.
    pub pre_allocated: Option<u32>,
    /// `maxSandboxes`: the most sandboxes an arrival-rate executor grows to.
    pub max_sandboxes: Option<u32>,
}

/// Reads and validates the config's `executor` field (absent: an empty [`ExecutorConfig`]).
pub(super) fn read(config: &Map<String, Value>) -> Result<ExecutorConfig, String> {
    let Some(executor) = config.get("executor") else {
        return Ok(ExecutorConfig::default());
    };
    let Some(executor) = executor.as_object() else {
        return Err("executor must be a plain object".into());
    };
    if let Some(key) = executor.keys().find(|key| !FIELDS.contains(&key.as_str())) {
        return Err(format!(
            "executor.{key} is not a known field (known: {})",
            FIELDS.join(", ")
        ));
    }
    let kind = match executor.get("type") {
        None => return Err("executor.type is required".into()),
        Some(kind) => kind.as_str().and_then(ExecutorKind::parse).ok_or_else(|| {
            format!(
                "executor.type must be one of {} (got {})",
                quoted_kinds(),
                js::value_to_string(kind)
            )
        })?,
    };
    let declared = ExecutorConfig {
        kind: Some(kind),
        rate: executor.get("rate").map(config_rate).transpose()?,
        duration: executor.get("duration").map(config_duration).transpose()?,
        stages: executor.get("stages").map(config_stages).transpose()?,
        pre_allocated: executor
            .get("preAllocated")
            .map(|value| sandbox_count("executor.preAllocated", value))
            .transpose()?,
        max_sandboxes: executor
            .get("maxSandboxes")
            .map(|value| sandbox_count("executor.maxSandboxes", value))
            .transpose()?,
    };
    for field in FIELDS.iter().skip(1) {
        if executor.contains_key(*field) && !applies(kind, field) {
            return Err(format!(
                "executor.{field} does not apply to type '{}'",
                kind.as_str()
            ));
        }
    }
    let required: &[&str] = match kind {
        ExecutorKind::Iterations => &[],
        ExecutorKind::Duration => &["duration"],
        ExecutorKind::ConstantArrivalRate => &["rate", "duration"],
        ExecutorKind::RampingArrivalRate => &["stages"],
    };
    if let Some(missing) = required
        .iter()
        .find(|field| !executor.contains_key(**field))
    {
        return Err(format!(
            "executor.{missing} is required for type '{}'",
            kind.as_str()
        ));
    }
    if kind == ExecutorKind::ConstantArrivalRate && declared.rate == Some(0.0) {
        return Err("executor.rate must be a rate > 0 like 200/s (got 0)".into());
    }
    if let (Some(pre), Some(max)) = (declared.pre_allocated, declared.max_sandboxes) {
        if pre > max {
            return Err(format!(
                "executor.preAllocated ({pre}) must not exceed executor.maxSandboxes ({max})"
            ));
        }
    }
    Ok(declared)
}

/// The fields of `executor`, `type` first.
const FIELDS: [&str; 6] = [
    "type",
    "rate",
    "duration",
    "stages",
    "preAllocated",
    "maxSandboxes",
];

/// Whether `field` may be declared for an executor of this kind.
fn applies(kind: ExecutorKind, field: &str) -> bool {
    match kind {
        ExecutorKind::Iterations => false,
        ExecutorKind::Duration => field == "duration",
        ExecutorKind::ConstantArrivalRate => field != "stages",
        ExecutorKind::RampingArrivalRate => field != "duration",
    }
}

fn quoted_kinds() -> String {
    let names: Vec<String> = ExecutorKind::ALL
        .iter()
        .map(|kind| format!("'{}'", kind.as_str()))
        .collect();
    names.join(", ")
}

/// A rate: a number of tasks per second, or text like `200/s` or `30/m`.
fn config_rate(value: &Value) -> Result<f64, String> {
    let rate = match value {
        Value::Number(n) => n.as_f64().filter(|x| rate_in_bounds(*x)),
        Value::String(text) => parse_rate(text).ok(),
        _ => None,
    };
    rate.ok_or_else(|| {
        format!(
            "executor.rate must be a rate >= 0 like 200/s, at most {}/s (got {})",
            js::number_to_string(MAX_RATE_PER_SECOND),
            js::value_to_string(value)
        )
    })
}

fn config_duration(value: &Value) -> Result<Duration, String> {
    value
        .as_str()
        .and_then(|text| parse_duration(text).ok())
        .ok_or_else(|| {
            format!(
                "executor.duration must be a duration like 60s, 500ms or 2m, at most 7 days (got {})",
                js::value_to_string(value)
            )
        })
}

/// Stages as an array of `{ "duration": "30s", "target": 10 }` or as `30s:10/s,2m:200/s`.
fn config_stages(value: &Value) -> Result<Vec<Stage>, String> {
    let stages = match value {
        Value::String(text) => parse_stages(text).map_err(|e| format!("executor.stages {e}"))?,
        Value::Array(list) if !list.is_empty() && list.len() <= MAX_STAGES => list
            .iter()
            .enumerate()
            .map(|(i, stage)| {
                let field = |key: &str| stage.as_object().and_then(|s| s.get(key));
                let duration = field("duration")
                    .and_then(Value::as_str)
                    .and_then(|text| parse_duration(text).ok())
                    .ok_or_else(|| {
                        format!(
                            "executor.stages[{i}].duration must be a duration like 30s (got {})",
                            js::optional_to_string(field("duration"))
                        )
                    })?;
                let target = match field("target") {
                    Some(Value::Number(n)) => n.as_f64().filter(|x| rate_in_bounds(*x)),
                    Some(Value::String(text)) => parse_rate(text).ok(),
                    _ => None,
                }
                .ok_or_else(|| {
                    format!(
                        "executor.stages[{i}].target must be a rate >= 0 like 200/s (got {})",
                        js::optional_to_string(field("target"))
                    )
                })?;
                Ok(Stage { duration, target })
            })
            .collect::<Result<Vec<_>, String>>()?,
        _ => {
            return Err(format!(
                "executor.stages must be 1 to {MAX_STAGES} stages like [{{\"duration\": \"30s\", \"target\": 10}}] (got {})",
                js::value_to_string(value)
            ))
        }
    };
    total_duration(&stages)
        .map(|_| stages)
        .ok_or_else(|| "executor.stages must last at most 7 days in all".into())
}

/// Checks a sandbox count `>= 1` with the executors' upper bound.
fn sandbox_count(field: &str, value: &Value) -> Result<u32, String> {
    let count = match value {
        Value::Number(n) => positive_int(field, n.as_f64().unwrap_or(f64::NAN))?,
        other => {
            return Err(format!(
                "{field} must be an integer >= 1 (got {})",
                js::value_to_string(other)
            ))
        }
    };
    if f64::from(count) > MAX_EXECUTOR_SANDBOXES {
        return Err(format!(
            "{field} must be an integer from 1 to {} (got {count})",
            js::number_to_string(MAX_EXECUTOR_SANDBOXES)
        ));
    }
    Ok(count)
}

fn rate_in_bounds(rate: f64) -> bool {
    rate.is_finite() && (0.0..=MAX_RATE_PER_SECOND).contains(&rate)
}

/// Parses a rate in tasks per second: `200/s`, `30/m`, `2/h` or a bare number (per
/// second); from 0 to [`MAX_RATE_PER_SECOND`].
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let text = js::trim(text);
    let (count, per) = match text.split_once('/') {
        Some((count, unit)) => (count, unit),
        None => (text, "s"),
    };
    let seconds = match per {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => f64::NAN,
    };
    let rate = count
        .trim()
        .parse::<f64>()
        .map_or(f64::NAN, |n| n / seconds);
    if rate_in_bounds(rate) {
        Ok(rate + 0.0)
    } else {
        Err(format!(
            "expects a rate like 200/s or 30/m, at most {}/s (got \"{text}\")",
            js::number_to_string(MAX_RATE_PER_SECOND)
        ))
    }
}

/// How [`read_duration`] takes a number written without a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BareNumber {
    /// Refused: a run's `duration` and its stages need a unit (`60` could be seconds).
    Refused,
    /// Milliseconds, as the time limits and waits always took them (`--task-timeout 250`).
    Millis,
}

/// bench's one duration grammar: a decimal number and a unit, `ms`, `s`, `m` or `h`
/// (`500ms`, `1.5s`, `2m`, `1h`), or a number alone as `bare` says; more than zero. `None`
/// when the text is none (the caller's message names its flag or field).
pub fn read_duration(text: &str, bare: BareNumber) -> Option<Duration> {
    const NANOS_PER_SECOND: u128 = 1_000_000_000;
    let text = js::trim(text);
    let number = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let nanos_per_unit: u128 = match (&text[number.len()..], bare) {
        ("ms", _) | ("", BareNumber::Millis) => 1_000_000,
        ("s", _) => 1_000_000_000,
        ("m", _) => 60_000_000_000,
        ("h", _) => 3_600_000_000_000,
        _ => return None,
    };
    let number = number.strip_prefix('+').unwrap_or(number);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return None;
    }
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut nanos = whole.checked_mul(nanos_per_unit)?;
    // Exact decimals (no float: `0.3s` is 300 ms); digits past a nanosecond are dropped.
    let mut place = nanos_per_unit;
    for digit in fraction.bytes() {
        place /= 10;
        nanos = nanos.checked_add(u128::from(digit - b'0') * place)?;
    }
    let seconds = u64::try_from(nanos / NANOS_PER_SECOND).ok()?;
    let subsec = u32::try_from(nanos % NANOS_PER_SECOND).ok()?;
    Some(Duration::new(seconds, subsec)).filter(|duration| !duration.is_zero())
}

/// Parses a run's or a stage's duration: [`read_duration`] with a unit (`500ms`, `60s`,
/// `1.5s`, `2m`, `1h`), at most [`MAX_RUN_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    read_duration(text, BareNumber::Refused)
        .filter(|duration| *duration <= MAX_RUN_DURATION)
        .ok_or_else(|| {
            format!(
                "expects a duration like 60s, 500ms or 2m, at most 7 days (got \"{}\")",
                js::trim(text)
            )
        })
}

/// Parses stages written `DURATION:RATE,…` (`30s:10/s,2m:200/s,30s:0/s`).
pub fn parse_stages(text: &str) -> Result<Vec<Stage>, String> {
    let stages = text
        .split(',')
        .map(|stage| {
            let (duration, target) = stage.split_once(':').ok_or_else(|| {
                format!("expects stages like 30s:10/s,2m:200/s (got \"{stage}\")")
            })?;
            Ok(Stage {
                duration: parse_duration(duration)?,
                target: parse_rate(target)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    if stages.len() > MAX_STAGES {
        return Err(format!(
            "expects at most {MAX_STAGES} stages (got {})",
            stages.len()
        ));
    }
    total_duration(&stages)
        .map(|_| stages)
        .ok_or_else(|| "expects stages lasting at most 7 days in all".into())
}

/// How long the stages last together, unless that is more than [`MAX_RUN_DURATION`].
fn total_duration(stages: &[Stage]) -> Option<Duration> {
    let total: Duration = stages.iter().map(|stage| stage.duration).sum();
    (total <= MAX_RUN_DURATION).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_json(executor: Value) -> Result<ExecutorConfig, String> {
        read(json!({ "executor": executor }).as_object().unwrap())
    }

    fn error(executor: Value) -> String {
        read_json(executor).unwrap_err()
    }

    #[test]
    fn one_duration_grammar_with_or_without_bare_milliseconds() {
        let ms = |text| read_duration(text, BareNumber::Millis);
        assert_eq!(ms("250"), Some(Duration::from_millis(250)));
        assert_eq!(ms("+250"), Some(Duration::from_millis(250)));
        assert_eq!(ms("0.3s"), Some(Duration::from_millis(300)));
        assert_eq!(ms("1.5ms"), Some(Duration::from_micros(1500)));
        assert_eq!(ms("2.5m"), Some(Duration::from_secs(150)));
        assert_eq!(ms("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(ms("5."), Some(Duration::from_millis(5)));
        assert_eq!(read_duration("250", BareNumber::Refused), None);
        assert_eq!(
            read_duration("1.5s", BareNumber::Refused),
            Some(Duration::from_millis(1500))
        );
        for bad in [
            "",
            "0",
            "0.0s",
            "-5",
            "ms",
            "1.2.3s",
            "1e3",
            "1S",
            "1d",
            "fast",
            "1_000",
            "99999999999999999999999h",
        ] {
            assert_eq!(ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn rates_durations_and_stages_have_one_text_form() {
        assert_eq!(parse_rate("200/s"), Ok(200.0));
        assert_eq!(parse_rate("30/m"), Ok(0.5));
        assert_eq!(parse_rate(" 12 "), Ok(12.0));
        assert_eq!(parse_rate("0/s"), Ok(0.0));
        for bad in ["fast", "-1/s", "200/d", "1e9/s", "NaN/s", ""] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration(" .5m "), Ok(Duration::from_secs(30)));
        for bad in [
            "60", "0s", "-1s", "8d", "200h", "s", "1.5", "1e3s", "1 s", ".",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_stages("30s:10/s,2m:200/s,30s:0/s").unwrap(),
            [
                Stage {
                    duration: Duration::from_secs(30),
                    target: 10.0
                },
                Stage {
                    duration: Duration::from_secs(120),
                    target: 200.0
                },
                Stage {
                    duration: Duration::from_secs(30),
                    target: 0.0
                },
            ]
        );
        assert_eq!(
            parse_stages("30s"),
            Err(r#"expects stages like 30s:10/s,2m:200/s (got "30s")"#.into())
        );
        assert_eq!(
            parse_stages("30s:fast"),
            Err(r#"expects a rate like 200/s or 30/m, at most 100000/s (got "fast")"#.into())
        );
    }

    #[test]
    fn a_declared_executor_is_read_with_its_fields() {
        assert_eq!(
            read(&Map::new()).unwrap(),
            ExecutorConfig::default(),
            "absent"
        );
        let constant = read_json(json!({
            "type": "constant-arrival-rate", "rate": "200/s", "duration": "60s",
            "preAllocated": 5, "maxSandboxes": 50,
        }))
        .unwrap();
        assert_eq!(
            constant,
            ExecutorConfig {
                kind: Some(ExecutorKind::ConstantArrivalRate),
                rate: Some(200.0),
                duration: Some(Duration::from_secs(60)),
                stages: None,
                pre_allocated: Some(5),
                max_sandboxes: Some(50),
            }
        );
        let ramping = read_json(json!({
            "type": "ramping-arrival-rate",
            "stages": [{ "duration": "30s", "target": 10 }, { "duration": "1m", "target": "0/s" }],
        }))
        .unwrap();
        assert_eq!(ramping.stages.unwrap().len(), 2);
        let as_text = read_json(json!({ "type": "ramping-arrival-rate", "stages": "1s:5/s" }));
        assert_eq!(as_text.unwrap().stages.unwrap()[0].target, 5.0);
        let duration = read_json(json!({ "type": "duration", "duration": "2m" })).unwrap();
        assert_eq!(duration.duration, Some(Duration::from_secs(120)));
    }

    #[test]
    fn a_bad_executor_is_named_in_upstreams_style() {
        let cases = [
            (json!([]), "executor must be a plain object"),
            (json!({}), "executor.type is required"),
            (
                json!({ "type": "open" }),
                "executor.type must be one of 'iterations', 'duration', 'constant-arrival-rate', 'ramping-arrival-rate' (got open)",
            ),
            (
                json!({ "type": "duration", "vus": 3 }),
                "executor.vus is not a known field (known: type, rate, duration, stages, preAllocated, maxSandboxes)",
            ),
            (
                json!({ "type": "duration" }),
                "executor.duration is required for type 'duration'",
            ),
            (
                json!({ "type": "duration", "duration": "1m", "rate": 5 }),
                "executor.rate does not apply to type 'duration'",
            ),
            (
                json!({ "type": "constant-arrival-rate", "duration": "1m" }),
                "executor.rate is required for type 'constant-arrival-rate'",
            ),
            (
                json!({ "type": "constant-arrival-rate", "rate": 0, "duration": "1m" }),
                "executor.rate must be a rate > 0 like 200/s (got 0)",
            ),
            (
                json!({ "type": "constant-arrival-rate", "rate": "fast", "duration": "1m" }),
                "executor.rate must be a rate >= 0 like 200/s, at most 100000/s (got fast)",
            ),
            (
                json!({ "type": "constant-arrival-rate", "rate": 5, "duration": 60 }),
                "executor.duration must be a duration like 60s, 500ms or 2m, at most 7 days (got 60)",
            ),
            (
                json!({ "type": "ramping-arrival-rate", "stages": [] }),
                r#"executor.stages must be 1 to 1000 stages like [{"duration": "30s", "target": 10}] (got )"#,
            ),
            (
                json!({ "type": "ramping-arrival-rate", "stages": [{ "duration": "1s", "target": -1 }] }),
                "executor.stages[0].target must be a rate >= 0 like 200/s (got -1)",
            ),
            (
                json!({ "type": "ramping-arrival-rate", "stages": [{ "target": 1 }] }),
                "executor.stages[0].duration must be a duration like 30s (got undefined)",
            ),
            (
                json!({ "type": "ramping-arrival-rate", "stages": "100h:1/s,100h:1/s" }),
                "executor.stages expects stages lasting at most 7 days in all",
            ),
            (
                json!({ "type": "constant-arrival-rate", "rate": 1, "duration": "1s", "preAllocated": 0 }),
                "executor.preAllocated must be an integer >= 1 (got 0)",
            ),
            (
                json!({ "type": "constant-arrival-rate", "rate": 1, "duration": "1s", "maxSandboxes": 1e9 }),
                "executor.maxSandboxes must be an integer from 1 to 100000000 (got 1000000000)",
            ),
            (
                json!({ "type": "constant-arrival-rate", "rate": 1, "duration": "1s", "preAllocated": 3, "maxSandboxes": 2 }),
                "executor.preAllocated (3) must not exceed executor.maxSandboxes (2)",
            ),
        ];
        for (executor, expected) in cases {
            assert_eq!(error(executor.clone()), expected, "{executor}");
        }
    }
}
