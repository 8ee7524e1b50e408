//! The benchmark config a task component declares (spec §1): parsed from the JSON its
//! `config` export returns, validated exactly as upstream's `defineBenchmarkConfig` (0.3.0,
//! display variant B) and the `bench run` loader, then turned into typed values.

mod declared;
mod display;
mod executor_section;
mod fields;
mod rules;
mod sandbox_section;
mod scoring_section;
#[cfg(test)]
mod tests;

use crate::js;
use crate::text::escape_control;
use serde_json::{Map, Value};

pub use declared::{Declared, Section};
pub use display::{DisplayMetric, DisplaySection};
pub use executor_section::{
    parse_duration, parse_rate, parse_stages, read_duration, BareNumber, ExecutorConfig,
    ExecutorKind, Stage,
};
pub use fields::is_lowercase_slug;
pub(crate) use fields::positive_int;
pub use sandbox_section::SandboxConfig;
pub use scoring_section::{ScoredMetric, ScoringSection, Weights};

/// Why a config was rejected; `Display` is upstream's exact message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The text is not JSON (serde's message carries the position).
    #[error("config is not valid JSON: {0}")]
    InvalidJson(String),
    /// The JSON breaks a validation rule (first failure wins).
    #[error("{0}")]
    Invalid(String),
}

/// How tasks are ordered across participants; serialized in upstream's spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    /// Each participant runs all its tasks before the next participant starts.
    Participant,
    /// Every participant runs its Nth task before anyone runs its (N+1)th.
    Round,
}

impl GroupBy {
    /// Parses upstream's spelling (`participant` or `round`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "participant" => Some(Self::Participant),
            "round" => Some(Self::Round),
            _ => None,
        }
    }

    /// Upstream's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Participant => "participant",
            Self::Round => "round",
        }
    }
}

/// One system under test.
#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    /// Unique, non-empty name (what `--provider` selects).
    pub name: String,
    /// Environment variables that must be non-empty for the participant to run.
    pub required_env_vars: Vec<String>,
    /// The whole participant object, handed to the task as declared.
    pub raw: Value,
}

impl Participant {
    /// This participant's own `allowedHosts` (bench field; validated).
    pub fn allowed_hosts(&self) -> Vec<String> {
        sandbox_section::strings(self.raw.get("allowedHosts"))
    }

    /// This participant's own `passEnv` (bench field; validated).
    pub fn pass_env(&self) -> Vec<String> {
        sandbox_section::strings(self.raw.get("passEnv"))
    }
}

/// A named run segment.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// Phase name, tagged onto every record of the phase.
    pub name: String,
    /// Declared iterations; absent passes validation but fails when knobs are merged.
    pub iterations: Option<u32>,
}

/// A named benchmark identity selected with `--shape`.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Platform slug the shape reports under.
    pub slug: String,
    /// Display name (defaults to the slug when applied).
    pub name: Option<String>,
    /// Stagger delay replacing the config's when the shape is applied.
    pub stagger_delay_ms: Option<f64>,
}

/// A validated benchmark config.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkConfig {
    /// Platform identity.
    pub benchmark_slug: String,
    /// Display name.
    pub benchmark_name: String,
    /// Participants in declaration order.
    pub participants: Vec<Participant>,
    /// Tasks per participant (exclusive with `phases`).
    pub iterations: Option<u32>,
    /// Named segments run in order.
    pub phases: Option<Vec<Phase>>,
    /// Max tasks in flight.
    pub concurrency: Option<u32>,
    /// Ramp delay in milliseconds.
    pub stagger_delay_ms: Option<f64>,
    /// Ordering across participants.
    pub group_by: Option<GroupBy>,
    /// Participant names used when `--provider` is absent.
    pub default_providers: Option<Vec<String>>,
    /// Shapes in declaration order.
    pub shapes: Vec<(String, Shape)>,
    /// Static tags for summary rows and the run config.
    pub dimensions: Option<Map<String, Value>>,
    /// The validated serializable scoring spec.
    pub scoring: Option<Declared<ScoringSection>>,
    /// The validated display manifest.
    pub display: Option<Declared<DisplaySection>>,
    /// Pass-through flags the task reads itself.
    pub custom_cli_flags: Vec<String>,
    /// bench's sandbox grants and limits (`allowedHosts`, `passEnv`, `httpKeepAlive`, `limits`).
    pub sandbox: SandboxConfig,
    /// bench's `executor`: how tasks are started (absent: upstream's iteration count).
    pub executor: ExecutorConfig,
    /// The whole config as declared.
    pub raw: Value,
}

/// Parses and validates the JSON text a task component returns from its `config` export.
pub fn parse_config(json: &str) -> Result<BenchmarkConfig, ConfigError> {
    let raw: Value =
        serde_json::from_str(json).map_err(|e| ConfigError::InvalidJson(e.to_string()))?;
    let Some(object) = raw.as_object() else {
        return Err(ConfigError::Invalid("config must be a JSON object".into()));
    };
    // Messages quote the config's own text: control characters in it are shown escaped.
    let invalid = |message: String| ConfigError::Invalid(escape_control(&message).into_owned());
    rules::validate(object).map_err(invalid)?;
    sandbox_section::validate(object).map_err(invalid)?;
    let executor = executor_section::read(object).map_err(invalid)?;
    let participants = rules::participants(object).map_err(invalid)?;
    Ok(typed(object, participants, executor, raw.clone()))
}

/// Reads the typed values out of a config that passed validation.
fn typed(
    config: &Map<String, Value>,
    participants: Vec<Participant>,
    executor: ExecutorConfig,
    raw: Value,
) -> BenchmarkConfig {
    let string = |key: &str| config.get(key).map(js::value_to_string).unwrap_or_default();
    let count = |value: Option<&Value>| value.and_then(Value::as_f64).map(|x| x as u32);
    let phases = config
        .get("phases")
        .and_then(Value::as_array)
        .map(|phases| {
            phases
                .iter()
                .map(|phase| Phase {
                    name: string_field(phase, "name").unwrap_or_default(),
                    iterations: count(phase.get("iterations")),
                })
                .collect()
        });
    let shapes = config
        .get("shapes")
        .map(js::entries)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, shape)| {
            let shape = Shape {
                slug: shape
                    .get("slug")
                    .map(js::value_to_string)
                    .unwrap_or_default(),
                name: string_field(&shape, "name"),
                stagger_delay_ms: shape.get("staggerDelayMs").and_then(Value::as_f64),
            };
            (name, shape)
        })
        .collect();
    BenchmarkConfig {
        benchmark_slug: string("benchmarkSlug"),
        benchmark_name: string("benchmarkName"),
        participants,
        iterations: count(config.get("iterations")),
        phases,
        concurrency: count(config.get("concurrency")),
        stagger_delay_ms: config.get("staggerDelayMs").and_then(Value::as_f64),
        group_by: config
            .get("groupBy")
            .and_then(Value::as_str)
            .and_then(GroupBy::parse),
        default_providers: config
            .get("defaultProviders")
            .and_then(Value::as_array)
            .map(|names| names.iter().map(js::value_to_string).collect()),
        shapes,
        dimensions: config.get("dimensions").and_then(Value::as_object).cloned(),
        scoring: config.get("scoring").cloned().map(Declared::new),
        display: config.get("display").cloned().map(Declared::new),
        custom_cli_flags: config
            .get("customCliFlags")
            .and_then(Value::as_array)
            .map(|flags| {
                flags
                    .iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
        sandbox: sandbox_section::typed(config),
        executor,
        raw,
    }
}

fn string_field(object: &Value, key: &str) -> Option<String> {
    object.get(key).and_then(Value::as_str).map(String::from)
}
