//! The load model of a run: the config's `executor` with the `--duration`, `--rate`,
//! `--stages`, `--pre-allocated` and `--max-sandboxes` flags laid over it, and the arrival
//! schedule of the open models (when each task is due, how many start per stage).

use super::PlanError;
use crate::ceilings::LimitField;
use crate::config::{BenchmarkConfig, ExecutorKind, GroupBy, Stage};
use crate::js;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// The load flags of `bench run`; `None` when not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadOverrides {
    /// `--duration`.
    pub duration: Option<Duration>,
    /// `--rate`, in tasks per second (selects `constant-arrival-rate`).
    pub rate: Option<f64>,
    /// `--stages` (selects `ramping-arrival-rate`).
    pub stages: Option<Vec<Stage>>,
    /// `--pre-allocated`.
    pub pre_allocated: Option<u32>,
    /// `--max-sandboxes` (also the run's sandbox cap).
    pub max_sandboxes: Option<u64>,
}

/// How a participant's tasks are started.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadModel {
    /// Upstream's model: the schedule's tasks on `concurrency` slots.
    Iterations,
    /// Closed model bounded by time: `concurrency` slots start tasks until it ends.
    Duration(Duration),
    /// Open model: tasks start on an arrival schedule, each in a free sandbox.
    ArrivalRate(ArrivalPlan),
}

impl LoadModel {
    /// The executor's config name.
    pub fn kind(&self) -> ExecutorKind {
        match self {
            Self::Iterations => ExecutorKind::Iterations,
            Self::Duration(_) => ExecutorKind::Duration,
            Self::ArrivalRate(plan) => plan.kind,
        }
    }
}

/// An open-model run: when tasks are due and the sandboxes that serve them.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrivalPlan {
    /// `constant-arrival-rate` or `ramping-arrival-rate`.
    pub kind: ExecutorKind,
    /// The arrival rate over time.
    pub profile: RateProfile,
    /// Sandboxes opened before the first arrival.
    pub pre_allocated: u32,
    /// The most sandboxes the executor grows to; an arrival finding none free is dropped.
    pub max_sandboxes: u32,
}

/// An arrival rate over time: it starts at `start_rate` and moves linearly to each stage's
/// target over the stage's duration. Task `i` is due when `i` tasks have arrived, i.e. when
/// the integral of the rate reaches `i` (task 0 at the start).
#[derive(Debug, Clone, PartialEq)]
pub struct RateProfile {
    /// The rate at the start, in tasks per second.
    pub start_rate: f64,
    /// The stages in order (a constant rate is one stage whose target is its start rate).
    pub stages: Vec<Stage>,
}

/// Float slack when counting arrivals, so `100/s × 3s` is exactly 300.
const EPSILON: f64 = 1e-9;

impl RateProfile {
    /// A constant `rate` for `duration`.
    pub fn constant(rate: f64, duration: Duration) -> Self {
        Self {
            start_rate: rate,
            stages: vec![Stage {
                duration,
                target: rate,
            }],
        }
    }

    /// How many tasks start in each stage.
    pub fn stage_counts(&self) -> Vec<u64> {
        let mut arrived = 0.0;
        let mut from = self.start_rate;
        self.stages
            .iter()
            .map(|stage| {
                let before = arrived;
                arrived += (from + stage.target) / 2.0 * stage.duration.as_secs_f64();
                from = stage.target;
                arrivals_below(arrived) - arrivals_below(before)
            })
            .collect()
    }

    /// How many tasks start in all.
    pub fn expected_tasks(&self) -> u64 {
        self.stage_counts().iter().sum()
    }

    /// The highest rate, in tasks per second.
    pub fn peak_rate(&self) -> f64 {
        self.stages
            .iter()
            .map(|stage| stage.target)
            .fold(self.start_rate, f64::max)
    }

    /// How long the arrivals last.
    pub fn duration(&self) -> Duration {
        self.stages.iter().map(|stage| stage.duration).sum()
    }

    /// When each task is due, counted from the first arrival, in order (to the microsecond).
    pub fn arrivals(&self) -> impl Iterator<Item = Duration> + '_ {
        let mut stages = self.stages.iter();
        let mut stage = stages.next();
        let (mut stage_start, mut arrived_before, mut from) = (0.0, 0.0, self.start_rate);
        (0u64..).map_while(move |index| loop {
            let current = stage?;
            let length = current.duration.as_secs_f64();
            let in_stage = (from + current.target) / 2.0 * length;
            let wanted = index as f64 - arrived_before;
            if wanted < in_stage - EPSILON {
                let offset = time_to_arrive(wanted.max(0.0), from, current.target, length);
                return Some(whole_micros(stage_start + offset.min(length)));
            }
            stage_start += length;
            arrived_before += in_stage;
            from = current.target;
            stage = stages.next();
        })
    }
}

/// `seconds` to the microsecond, so a grid of whole milliseconds stays whole.
fn whole_micros(seconds: f64) -> Duration {
    Duration::from_micros((seconds * 1e6).round() as u64)
}

/// How many whole arrivals (0, 1, 2…) come before the running count reaches `arrived`.
fn arrivals_below(arrived: f64) -> u64 {
    (arrived - EPSILON).ceil().max(0.0) as u64
}

/// Seconds into a stage (rate `from` → `to` over `length` s) until `count` tasks arrived:
/// the root of `a t² + from t = count` with `a = (to − from) / 2 length`, in the form that
/// stays exact when `a` is zero.
fn time_to_arrive(count: f64, from: f64, to: f64, length: f64) -> f64 {
    if count == 0.0 {
        return 0.0;
    }
    let a = (to - from) / (2.0 * length);
    2.0 * count / (from + (from * from + 4.0 * a * count).max(0.0).sqrt())
}

/// Lays the load flags over the config's `executor` and checks the result against the
/// run: the executor the flags imply (`--stages`: ramping, `--rate`: constant,
/// `--duration` alone: time-bounded) wins over the declared one.
pub(super) fn resolve_load(
    config: &BenchmarkConfig,
    flags: &LoadOverrides,
    concurrency: u32,
    group_by: GroupBy,
) -> Result<LoadModel, PlanError> {
    let declared = &config.executor;
    let invalid = |message: String| Err(PlanError::InvalidKnob(message));
    if flags.rate.is_some() && flags.stages.is_some() {
        return invalid("--rate and --stages select different executors; give one".into());
    }
    let declared_kind = declared.kind.unwrap_or(ExecutorKind::Iterations);
    let kind = if flags.stages.is_some() {
        ExecutorKind::RampingArrivalRate
    } else if flags.rate.is_some() {
        ExecutorKind::ConstantArrivalRate
    } else if flags.duration.is_some() && declared_kind == ExecutorKind::Iterations {
        ExecutorKind::Duration
    } else {
        declared_kind
    };
    // The declared rate, duration and stages do not carry over to another executor.
    let same = kind == declared_kind;
    let duration = flags.duration.or(declared.duration.filter(|_| same));
    if kind != ExecutorKind::Iterations && config.phases.is_some() {
        return invalid(format!(
            "executor '{}' runs for a time; it cannot run a config with phases",
            kind.as_str()
        ));
    }
    if kind != ExecutorKind::Iterations && group_by == GroupBy::Round {
        return invalid(format!(
            "executor '{}' runs participants one after another; groupBy 'round' cannot be used with it",
            kind.as_str()
        ));
    }
    if !kind.is_open() && flags.pre_allocated.is_some() {
        return invalid("--pre-allocated applies only to arrival-rate executors".into());
    }
    let model = match kind {
        ExecutorKind::Iterations => return Ok(LoadModel::Iterations),
        ExecutorKind::Duration => {
            let Some(duration) = duration else {
                return invalid("executor 'duration' needs --duration".into());
            };
            return Ok(LoadModel::Duration(duration));
        }
        ExecutorKind::ConstantArrivalRate => {
            let rate = flags.rate.or(declared.rate.filter(|_| same));
            let (Some(rate), Some(duration)) = (rate, duration) else {
                return invalid(
                    "executor 'constant-arrival-rate' needs --rate and --duration".into(),
                );
            };
            if rate <= 0.0 {
                return invalid("--rate must be more than 0/s for 'constant-arrival-rate'".into());
            }
            RateProfile::constant(rate, duration)
        }
        ExecutorKind::RampingArrivalRate => {
            if flags.duration.is_some() {
                return invalid(
                    "--duration does not apply to 'ramping-arrival-rate' (its stages set the length)"
                        .into(),
                );
            }
            let stages = flags
                .stages
                .clone()
                .or_else(|| declared.stages.clone().filter(|_| same));
            let Some(stages) = stages else {
                return invalid("executor 'ramping-arrival-rate' needs --stages".into());
            };
            RateProfile {
                start_rate: declared.rate.filter(|_| same).unwrap_or(0.0),
                stages,
            }
        }
    };
    let expected = model.expected_tasks();
    if expected > u64::from(u32::MAX) {
        return invalid(format!(
            "executor '{}' would start {expected} tasks per participant, more than {}",
            kind.as_str(),
            u32::MAX
        ));
    }
    let pre_allocated = flags
        .pre_allocated
        .or(declared.pre_allocated)
        .unwrap_or(concurrency)
        .max(1);
    let max_sandboxes = flags
        .max_sandboxes
        .or(declared.max_sandboxes.map(u64::from))
        .or(config
            .sandbox
            .limits
            .get(LimitField::Sandboxes)
            .map(|most| most as u64))
        .map_or(pre_allocated, |max| u32::try_from(max).unwrap_or(u32::MAX));
    if pre_allocated > max_sandboxes {
        return invalid(format!(
            "{pre_allocated} pre-allocated sandboxes are more than the {max_sandboxes} allowed \
             (--max-sandboxes, executor.maxSandboxes or limits.maxSandboxes)"
        ));
    }
    Ok(LoadModel::ArrivalRate(ArrivalPlan {
        kind,
        profile: model,
        pre_allocated,
        max_sandboxes,
    }))
}

impl LoadModel {
    /// The plan in one line, as `bench check` and the run's header show it (`None` for
    /// upstream's model, which the knobs line already describes).
    pub fn describe(&self, concurrency: u32) -> Option<String> {
        let text = match self {
            Self::Iterations => return None,
            Self::Duration(duration) => format!(
                "duration {} on {concurrency} slot(s) (closed model; tasks per participant depend on their latency), {concurrency} sandbox(es) at most",
                duration_text(*duration)
            ),
            Self::ArrivalRate(arrivals) => {
                let profile = &arrivals.profile;
                let shape = match arrivals.kind {
                    ExecutorKind::RampingArrivalRate => {
                        let stages: Vec<String> = profile
                            .stages
                            .iter()
                            .map(|stage| {
                                format!("{}:{}", duration_text(stage.duration), rate_text(stage.target))
                            })
                            .collect();
                        let counts: Vec<String> =
                            profile.stage_counts().iter().map(u64::to_string).collect();
                        format!(
                            "from {} through {} ({} per stage, peak {})",
                            rate_text(profile.start_rate),
                            stages.join(","),
                            counts.join("+"),
                            rate_text(profile.peak_rate())
                        )
                    }
                    _ => format!(
                        "{} for {}",
                        rate_text(profile.start_rate),
                        duration_text(profile.duration())
                    ),
                };
                format!(
                    "{} {shape}: {} tasks per participant (open model), {} to {} sandboxes",
                    arrivals.kind.as_str(),
                    profile.expected_tasks(),
                    arrivals.pre_allocated,
                    arrivals.max_sandboxes
                )
            }
        };
        Some(text)
    }
}

/// The load model as `run.json` keeps it (absent for upstream's model): what the
/// summary needs to put the achieved rate beside the intended one, and the arrivals each
/// participant dropped (written when the run ends).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadManifest {
    /// The executor's config name.
    pub executor: String,
    /// How long each participant's arrivals (or its closed loop) last, in milliseconds.
    #[serde(serialize_with = "js::number_serde::serialize")]
    pub duration_ms: f64,
    /// Tasks each participant is due to start (open models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intended_tasks: Option<u64>,
    /// Sandboxes opened before the first arrival (open models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_allocated: Option<u32>,
    /// The most sandboxes the executor grows to (open models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sandboxes: Option<u32>,
    /// Arrivals each participant dropped for want of a free sandbox (open models, once
    /// the run is over).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dropped: BTreeMap<String, u64>,
}

impl LoadManifest {
    /// The manifest entry of a load model (`None` for upstream's).
    pub fn of(load: &LoadModel) -> Option<Self> {
        let entry = match load {
            LoadModel::Iterations => return None,
            LoadModel::Duration(duration) => Self {
                executor: ExecutorKind::Duration.as_str().to_owned(),
                duration_ms: duration.as_secs_f64() * 1000.0,
                intended_tasks: None,
                pre_allocated: None,
                max_sandboxes: None,
                dropped: BTreeMap::new(),
            },
            LoadModel::ArrivalRate(arrivals) => Self {
                executor: arrivals.kind.as_str().to_owned(),
                duration_ms: arrivals.profile.duration().as_secs_f64() * 1000.0,
                intended_tasks: Some(arrivals.profile.expected_tasks()),
                pre_allocated: Some(arrivals.pre_allocated),
                max_sandboxes: Some(arrivals.max_sandboxes),
                dropped: BTreeMap::new(),
            },
        };
        Some(entry)
    }

    /// Whether tasks started on an arrival schedule (their records carry response times).
    pub fn is_open(&self) -> bool {
        self.intended_tasks.is_some()
    }
}

/// A rate as the plan shows it (`200/s`).
fn rate_text(rate: f64) -> String {
    format!("{}/s", js::number_to_string(rate))
}

/// A duration as the plan shows it (`500ms`, `1.5s`, `2m`).
fn duration_text(duration: Duration) -> String {
    let ms = duration.as_secs_f64() * 1000.0;
    if ms < 1000.0 {
        format!("{}ms", js::number_to_string(ms))
    } else if ms % 60_000.0 == 0.0 {
        format!("{}m", js::number_to_string(ms / 60_000.0))
    } else {
        format!("{}s", js::number_to_string(ms / 1000.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_config;
    use crate::plan::{resolve, Overrides};
    use serde_json::{json, Value};

    fn load_of(executor: Option<Value>, load: LoadOverrides) -> Result<LoadModel, String> {
        let mut config = json!({
            "benchmarkSlug": "s", "benchmarkName": "n", "iterations": 5, "concurrency": 2,
            "participants": [{ "name": "a" }],
        });
        if let Some(executor) = executor {
            config["executor"] = executor;
        }
        let config = parse_config(&config.to_string()).unwrap();
        let overrides = Overrides {
            load,
            ..Overrides::default()
        };
        resolve(&config, &overrides)
            .map(|run| run.load)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_plan_reads_in_one_line() {
        assert_eq!(LoadModel::Iterations.describe(2), None);
        assert_eq!(
            LoadModel::Duration(Duration::from_millis(1500)).describe(2).unwrap(),
            "duration 1.5s on 2 slot(s) (closed model; tasks per participant depend on their latency), 2 sandbox(es) at most"
        );
        let constant = ArrivalPlan {
            kind: ExecutorKind::ConstantArrivalRate,
            profile: RateProfile::constant(100.0, secs(3)),
            pre_allocated: 1,
            max_sandboxes: 10,
        };
        assert_eq!(
            LoadModel::ArrivalRate(constant).describe(1).unwrap(),
            "constant-arrival-rate 100/s for 3s: 300 tasks per participant (open model), 1 to 10 sandboxes"
        );
        let ramping = ArrivalPlan {
            kind: ExecutorKind::RampingArrivalRate,
            profile: RateProfile {
                start_rate: 0.0,
                stages: vec![stage(30, 10.0), stage(120, 200.0), stage(30, 0.0)],
            },
            pre_allocated: 2,
            max_sandboxes: 50,
        };
        assert_eq!(
            LoadModel::ArrivalRate(ramping).describe(1).unwrap(),
            "ramping-arrival-rate from 0/s through 30s:10/s,2m:200/s,30s:0/s (150+12600+3000 per stage, peak 200/s): 15750 tasks per participant (open model), 2 to 50 sandboxes"
        );
    }

    #[test]
    fn without_executor_or_flags_upstreams_model_runs() {
        assert_eq!(
            load_of(None, LoadOverrides::default()),
            Ok(LoadModel::Iterations)
        );
    }

    #[test]
    fn load_flags_select_the_executor_and_win_over_the_config() {
        let duration = LoadOverrides {
            duration: Some(secs(3)),
            ..LoadOverrides::default()
        };
        assert_eq!(
            load_of(None, duration.clone()),
            Ok(LoadModel::Duration(secs(3)))
        );
        let rate = LoadOverrides {
            rate: Some(100.0),
            ..duration.clone()
        };
        let Ok(LoadModel::ArrivalRate(arrivals)) = load_of(None, rate.clone()) else {
            panic!("an arrival-rate run");
        };
        assert_eq!(arrivals.kind, ExecutorKind::ConstantArrivalRate);
        assert_eq!(arrivals.profile.expected_tasks(), 300);
        assert_eq!(
            (arrivals.pre_allocated, arrivals.max_sandboxes),
            (2, 2),
            "concurrency pre-allocated, no growth unless allowed"
        );
        let declared = json!({
            "type": "constant-arrival-rate", "rate": 10, "duration": "1m",
            "preAllocated": 4, "maxSandboxes": 40,
        });
        let Ok(LoadModel::ArrivalRate(arrivals)) = load_of(Some(declared.clone()), duration) else {
            panic!("an arrival-rate run");
        };
        assert_eq!(
            arrivals.profile.expected_tasks(),
            30,
            "--duration 3s at 10/s"
        );
        assert_eq!((arrivals.pre_allocated, arrivals.max_sandboxes), (4, 40));
        let stages = LoadOverrides {
            stages: Some(vec![stage(10, 10.0)]),
            max_sandboxes: Some(8),
            ..LoadOverrides::default()
        };
        let Ok(LoadModel::ArrivalRate(arrivals)) = load_of(Some(declared), stages) else {
            panic!("an arrival-rate run");
        };
        assert_eq!(arrivals.kind, ExecutorKind::RampingArrivalRate);
        assert_eq!(
            arrivals.profile.start_rate, 0.0,
            "the constant rate does not carry over"
        );
        assert_eq!((arrivals.pre_allocated, arrivals.max_sandboxes), (4, 8));
    }

    #[test]
    fn a_load_that_cannot_run_is_refused_with_its_reason() {
        let flags = |rate: Option<f64>, duration: Option<u64>| LoadOverrides {
            rate,
            duration: duration.map(secs),
            ..LoadOverrides::default()
        };
        let cases = [
            (
                None,
                flags(Some(5.0), None),
                "executor 'constant-arrival-rate' needs --rate and --duration",
            ),
            (
                None,
                LoadOverrides {
                    rate: Some(5.0),
                    stages: Some(vec![stage(1, 1.0)]),
                    ..LoadOverrides::default()
                },
                "--rate and --stages select different executors; give one",
            ),
            (
                None,
                LoadOverrides {
                    pre_allocated: Some(3),
                    ..LoadOverrides::default()
                },
                "--pre-allocated applies only to arrival-rate executors",
            ),
            (
                None,
                LoadOverrides {
                    pre_allocated: Some(3),
                    max_sandboxes: Some(2),
                    ..flags(Some(5.0), Some(1))
                },
                "3 pre-allocated sandboxes are more than the 2 allowed (--max-sandboxes, executor.maxSandboxes or limits.maxSandboxes)",
            ),
            (
                Some(json!({ "type": "ramping-arrival-rate", "stages": "1s:1/s" })),
                flags(None, Some(1)),
                "--duration does not apply to 'ramping-arrival-rate' (its stages set the length)",
            ),
            (
                None,
                flags(Some(100_000.0), Some(7 * 24 * 3600)),
                "executor 'constant-arrival-rate' would start 60480000000 tasks per participant, more than 4294967295",
            ),
        ];
        for (executor, load, expected) in cases {
            assert_eq!(load_of(executor, load).unwrap_err(), expected);
        }
    }

    #[test]
    fn time_bounded_executors_need_participant_mode_and_no_phases() {
        let config = parse_config(
            &json!({
                "benchmarkSlug": "s", "benchmarkName": "n", "groupBy": "round",
                "participants": [{ "name": "a" }],
                "executor": { "type": "duration", "duration": "1s" },
            })
            .to_string(),
        )
        .unwrap();
        assert_eq!(
            resolve(&config, &Overrides::default()).unwrap_err().to_string(),
            "executor 'duration' runs participants one after another; groupBy 'round' cannot be used with it"
        );
        let config = parse_config(
            &json!({
                "benchmarkSlug": "s", "benchmarkName": "n",
                "phases": [{ "name": "cold", "iterations": 1 }],
                "participants": [{ "name": "a" }],
            })
            .to_string(),
        )
        .unwrap();
        let overrides = Overrides {
            load: LoadOverrides {
                duration: Some(secs(1)),
                ..LoadOverrides::default()
            },
            ..Overrides::default()
        };
        assert_eq!(
            resolve(&config, &overrides).unwrap_err().to_string(),
            "executor 'duration' runs for a time; it cannot run a config with phases"
        );
    }

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    fn stage(seconds: u64, target: f64) -> Stage {
        Stage {
            duration: secs(seconds),
            target,
        }
    }

    #[test]
    fn a_constant_rate_starts_on_its_grid() {
        let profile = RateProfile::constant(100.0, secs(3));
        assert_eq!(profile.expected_tasks(), 300);
        let arrivals: Vec<Duration> = profile.arrivals().collect();
        assert_eq!(arrivals.len(), 300);
        for (i, at) in arrivals.iter().enumerate() {
            let grid = Duration::from_millis(10 * i as u64);
            assert!(at.abs_diff(grid) < Duration::from_micros(1), "{i}: {at:?}");
        }
        assert_eq!(RateProfile::constant(2.5, secs(1)).expected_tasks(), 3);
    }

    #[test]
    fn ramps_are_linear_between_targets() {
        // 0 → 10/s over 10 s: 50 tasks, ever closer together; 10/s for 10 s: 100;
        // 10 → 0/s over 10 s: 50.
        let profile = RateProfile {
            start_rate: 0.0,
            stages: vec![stage(10, 10.0), stage(10, 10.0), stage(10, 0.0)],
        };
        assert_eq!(profile.stage_counts(), [50, 100, 50]);
        let arrivals: Vec<Duration> = profile.arrivals().collect();
        assert_eq!(arrivals.len(), 200);
        // n(t) = t²/2 in the first stage: task 8 is due at 4 s.
        assert!(arrivals[8].abs_diff(secs(4)) < Duration::from_micros(1));
        assert!(arrivals[50].abs_diff(secs(10)) < Duration::from_micros(1));
        assert!(arrivals[60].abs_diff(secs(11)) < Duration::from_micros(1));
        assert!(arrivals.windows(2).all(|pair| pair[0] < pair[1]));
        let per_stage = |from: u64, to: u64| {
            arrivals
                .iter()
                .filter(|at| **at >= secs(from) && **at < secs(to))
                .count() as u64
        };
        assert_eq!(
            [per_stage(0, 10), per_stage(10, 20), per_stage(20, 30)],
            [50, 100, 50]
        );
        assert_eq!(profile.peak_rate(), 10.0);
        assert_eq!(profile.duration(), secs(30));
    }

    #[test]
    fn an_idle_stage_only_passes_time() {
        let profile = RateProfile {
            start_rate: 0.0,
            stages: vec![stage(5, 0.0), stage(1, 0.0), stage(2, 4.0)],
        };
        // 0 → 4/s over 2 s: 4 arrivals, the first at 5 s + 1 s.
        assert_eq!(profile.stage_counts(), [0, 0, 4]);
        let first = profile.arrivals().next().unwrap();
        assert_eq!(first, secs(6));
    }
}
