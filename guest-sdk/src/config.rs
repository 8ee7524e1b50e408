//! The benchmark config, built in Rust and serialized to the upstream JSON shape.

use serde::Serialize;
use serde_json::{Map, Value};

/// A benchmark config (upstream `defineBenchmarkConfig` fields). The host validates it.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchmarkConfig {
    benchmark_slug: String,
    benchmark_name: String,
    participants: Vec<Participant>,
    #[serde(skip_serializing_if = "Option::is_none")]
    iterations: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phases: Option<Vec<Phase>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    concurrency: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stagger_delay_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group_by: Option<GroupBy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_providers: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    shapes: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scoring: Option<Scoring>,
    #[serde(skip_serializing_if = "Option::is_none")]
    custom_cli_flags: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    display: Option<Value>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

impl BenchmarkConfig {
    /// A config with its platform identity (lowercase slug) and display name.
    pub fn new(slug: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            benchmark_slug: slug.into(),
            benchmark_name: name.into(),
            ..Self::default()
        }
    }

    /// Adds a participant.
    pub fn participant(mut self, participant: Participant) -> Self {
        self.participants.push(participant);
        self
    }

    /// Tasks per participant (mutually exclusive with phases).
    pub fn iterations(mut self, iterations: u32) -> Self {
        self.iterations = Some(iterations);
        self
    }

    /// Adds a named phase of `iterations` tasks; phases run in order.
    pub fn phase(mut self, name: impl Into<String>, iterations: u32) -> Self {
        self.phases.get_or_insert_with(Vec::new).push(Phase {
            name: name.into(),
            iterations,
        });
        self
    }

    /// Maximum tasks in flight per participant (participant mode) or per round (round mode).
    pub fn concurrency(mut self, concurrency: u32) -> Self {
        self.concurrency = Some(concurrency);
        self
    }

    /// Ramp delay between task starts (participant mode) or rounds (round mode).
    pub fn stagger_delay_ms(mut self, ms: f64) -> Self {
        self.stagger_delay_ms = Some(ms);
        self
    }

    /// Execution order across participants.
    pub fn group_by(mut self, group_by: GroupBy) -> Self {
        self.group_by = Some(group_by);
        self
    }

    /// Participants used when `--provider` is absent.
    pub fn default_providers<S: Into<String>>(
        mut self,
        names: impl IntoIterator<Item = S>,
    ) -> Self {
        self.default_providers = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Adds a named shape selected with `--shape`.
    pub fn shape(mut self, name: impl Into<String>, shape: Shape) -> Self {
        let value = serde_json::to_value(shape).expect("a shape always serializes");
        self.shapes.insert(name.into(), value);
        self
    }

    /// Static tags for summary rows and the run config (a JSON object).
    pub fn dimensions(mut self, dimensions: Value) -> Self {
        self.dimensions = Some(dimensions);
        self
    }

    /// How runs are scored.
    pub fn scoring(mut self, scoring: Scoring) -> Self {
        self.scoring = Some(scoring);
        self
    }

    /// Declares a pass-through CLI flag (starting with `--`) that the task reads itself.
    pub fn custom_cli_flag(mut self, flag: impl Into<String>) -> Self {
        self.custom_cli_flags
            .get_or_insert_with(Vec::new)
            .push(flag.into());
        self
    }

    /// The rendering manifest (`metrics`, `steps`, `overview`) as JSON.
    pub fn display(mut self, display: Value) -> Self {
        self.display = Some(display);
        self
    }

    /// Sets any other config field by its JSON name.
    pub fn field(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }
}

/// Execution order across participants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    /// Participants one after another (the default).
    Participant,
    /// Rounds interleaving one task of every participant.
    Round,
}

/// A named segment of the schedule.
#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    name: String,
    iterations: u32,
}

/// A participant: a name, the environment variables it needs, and custom fields the task
/// reads from `ctx.participant()`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Participant {
    name: String,
    required_env_vars: Vec<String>,
    #[serde(flatten)]
    fields: Map<String, Value>,
}

impl Participant {
    /// A participant with no required environment variables.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            required_env_vars: Vec::new(),
            fields: Map::new(),
        }
    }

    /// Requires an environment variable (the participant is skipped when it is unset); its
    /// value is visible to this participant's sandbox only.
    pub fn env(mut self, name: impl Into<String>) -> Self {
        self.required_env_vars.push(name.into());
        self
    }

    /// Adds a custom field.
    pub fn field(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.fields.insert(key.into(), value.into());
        self
    }
}

/// A named identity selected with `--shape`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shape {
    slug: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stagger_delay_ms: Option<f64>,
}

impl Shape {
    /// A shape reporting under another benchmark slug.
    pub fn new(slug: impl Into<String>) -> Self {
        Self {
            slug: slug.into(),
            name: None,
            stagger_delay_ms: None,
        }
    }

    /// The display name under this shape.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The stagger delay under this shape.
    pub fn stagger_delay_ms(mut self, ms: f64) -> Self {
        self.stagger_delay_ms = Some(ms);
        self
    }
}

/// How a run is scored (upstream `BenchmarkScoringConfig`).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scoring {
    #[serde(skip_serializing_if = "Option::is_none")]
    group_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    success: Option<Value>,
    metrics: Vec<ScoringMetric>,
}

impl Scoring {
    /// Scoring with no metrics yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a metric.
    pub fn metric(mut self, metric: ScoringMetric) -> Self {
        self.metrics.push(metric);
        self
    }

    /// Scores each distinct value of this record data key separately as well.
    pub fn group_by(mut self, key: impl Into<String>) -> Self {
        self.group_by = Some(key.into());
        self
    }

    /// Counts a record as successful only if its data has this value under `key`.
    pub fn require_data(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        let success = self
            .success
            .get_or_insert_with(|| serde_json::json!({ "requireData": {} }));
        if let Some(Value::Object(required)) = success.get_mut("requireData") {
            required.insert(key.into(), value.into());
        }
        self
    }
}

/// One scored metric: a record data key, its scale and the weights of its median, p95 and p99.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoringMetric {
    key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unit: Option<String>,
    ceiling: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    floor: Option<f64>,
    higher_is_better: bool,
    weights: Weights,
    #[serde(skip_serializing_if = "Option::is_none")]
    trim: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
struct Weights {
    median: f64,
    p95: f64,
    p99: f64,
}

impl ScoringMetric {
    /// A metric where smaller is better, scoring 0 at `ceiling` (all weight on the median).
    pub fn lower_is_better(key: impl Into<String>, ceiling: f64) -> Self {
        Self::new(key.into(), ceiling, false)
    }

    /// A metric where larger is better, scoring 100 at `ceiling` (all weight on the median).
    pub fn higher_is_better(key: impl Into<String>, ceiling: f64) -> Self {
        Self::new(key.into(), ceiling, true)
    }

    fn new(key: String, ceiling: f64, higher_is_better: bool) -> Self {
        Self {
            key,
            label: None,
            unit: None,
            ceiling,
            floor: None,
            higher_is_better,
            weights: Weights {
                median: 1.0,
                p95: 0.0,
                p99: 0.0,
            },
            trim: None,
        }
    }

    /// Weights of the median, p95 and p99 scores (all metrics' weights must sum to 1).
    pub fn weights(mut self, median: f64, p95: f64, p99: f64) -> Self {
        self.weights = Weights { median, p95, p99 };
        self
    }

    /// Display unit (e.g. `ms`).
    pub fn unit(mut self, unit: impl Into<String>) -> Self {
        self.unit = Some(unit.into());
        self
    }

    /// Display label.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Value at or below which a higher-is-better metric scores 0.
    pub fn floor(mut self, floor: f64) -> Self {
        self.floor = Some(floor);
        self
    }

    /// Fraction of samples trimmed from each end before statistics (default 0.05).
    pub fn trim(mut self, trim: f64) -> Self {
        self.trim = Some(trim);
        self
    }
}
