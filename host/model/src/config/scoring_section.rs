//! The serializable scoring config (spec §1.3): its validation, run inside the config
//! rules, and its typed values as scoring reads them (spec §4.8, `scoringConfigToSpec`).

use super::declared::Section;
use super::fields::{finite_number, get, non_blank, plain_object};
use crate::js;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// A config's `scoring` as scoring reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScoringSection {
    /// A record data field whose distinct values each get their own summary row (`groupBy`
    /// when truthy, as text).
    pub group_by: Option<String>,
    /// Data fields a successful record must also carry, each strictly equal to its value
    /// (`success.requireData`, when `success` is truthy).
    pub require_data: Option<Map<String, Value>>,
    /// The scored metrics, in declaration order.
    pub metrics: Vec<ScoredMetric>,
}

/// One `scoring.metrics` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredMetric {
    /// The record data field it scores (`""` when not declared).
    pub key: String,
    /// Its own unit, when it declares one as a string.
    pub unit: Option<String>,
    /// The value scoring 100 (higher is better) or 0 (lower is better); NaN when absent.
    pub ceiling: f64,
    /// The value at or below which a higher-is-better metric scores 0.
    pub floor: Option<f64>,
    /// `higherIsBetter`, read as JavaScript reads a condition.
    pub higher_is_better: bool,
    /// The weights of its median, p95 and p99.
    pub weights: Weights,
    /// The share of samples trimmed from each end.
    pub trim: Option<f64>,
}

/// Weights of a metric's three statistics. Summed over every metric of a spec they must be
/// 1 (±0.01), so the composite score stays on a 0–100 scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Weight of the median's score.
    pub median: f64,
    /// Weight of the p95's score.
    pub p95: f64,
    /// Weight of the p99's score.
    pub p99: f64,
}

impl Weights {
    /// `(median + p95) + p99`: the share of the composite score this metric carries.
    pub fn total(&self) -> f64 {
        self.median + self.p95 + self.p99
    }
}

impl ScoringSection {
    /// The metric declared for `key` (the last one, as upstream builds a `Map` of the list).
    pub fn metric(&self, key: &str) -> Option<&ScoredMetric> {
        self.metrics.iter().rev().find(|metric| metric.key == key)
    }
}

impl Section for ScoringSection {
    fn read(scoring: &Value) -> Self {
        Self {
            group_by: scoring
                .get("groupBy")
                .filter(|group_by| js::truthy(Some(group_by)))
                .map(js::value_to_string),
            require_data: scoring
                .get("success")
                .filter(|success| js::truthy(Some(success)))
                .map(|success| {
                    success
                        .get("requireData")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default()
                }),
            metrics: scoring
                .get("metrics")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(ScoredMetric::read)
                .collect(),
        }
    }
}

impl ScoredMetric {
    fn read(metric: &Value) -> Self {
        let weights = metric.get("weights");
        let weight = |name: &str| number_or_nan(weights.and_then(|weights| weights.get(name)));
        Self {
            key: metric
                .get("key")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            unit: metric.get("unit").and_then(Value::as_str).map(String::from),
            ceiling: number_or_nan(metric.get("ceiling")),
            floor: metric.get("floor").and_then(Value::as_f64),
            higher_is_better: js::truthy(metric.get("higherIsBetter")),
            weights: Weights {
                median: weight("median"),
                p95: weight("p95"),
                p99: weight("p99"),
            },
            trim: metric.get("trim").and_then(Value::as_f64),
        }
    }
}

/// A number, or NaN (as JavaScript reads `undefined` in arithmetic).
fn number_or_nan(value: Option<&Value>) -> f64 {
    value.and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// Checks `config.scoring`; `display` is `config.display`, consulted for unit conflicts.
pub(super) fn validate(scoring: &Value, display: Option<&Value>) -> Result<(), String> {
    let metrics = match get(Some(scoring), "metrics").and_then(Value::as_array) {
        Some(metrics) if !metrics.is_empty() => metrics,
        _ => return Err("scoring.metrics must be a non-empty array".into()),
    };
    if let Some(success) = get(Some(scoring), "success") {
        validate_success(success)?;
    }
    let display_metrics = get(display, "metrics").and_then(Value::as_array);
    let mut seen = HashSet::new();
    let mut total = 0.0;
    for (i, metric) in metrics.iter().enumerate() {
        if plain_object(Some(metric)).is_none() {
            return Err(format!("scoring.metrics[{i}] must be an object"));
        }
        let field = |key: &str| get(Some(metric), key);
        let Some(key) = non_blank(field("key")) else {
            return Err(format!(
                "scoring.metrics[{i}].key must be a non-empty string"
            ));
        };
        if !seen.insert(key) {
            return Err(format!("duplicate scoring metric key: {key}"));
        }
        if let Some(unit) = field("unit") {
            let Some(unit) = unit.as_str() else {
                return Err(format!("scoring.metrics[{i}].unit must be a string"));
            };
            let display_unit = display_metrics
                .and_then(|list| {
                    list.iter()
                        .find(|entry| get(Some(entry), "key").and_then(Value::as_str) == Some(key))
                })
                .and_then(|entry| get(Some(entry), "unit"));
            if let Some(display_unit) = display_unit.filter(|u| u.as_str() != Some(unit)) {
                // Upstream prints the scoring index for the display entry too (spec §11.6).
                return Err(format!(
                    "scoring.metrics[{i}].unit '{unit}' conflicts with display.metrics[{i}].unit '{}' for key '{key}'",
                    js::value_to_string(display_unit)
                ));
            }
        }
        finite(field("ceiling"), &format!("scoring.metrics[{i}].ceiling"))?;
        if field("floor").is_some() {
            finite(field("floor"), &format!("scoring.metrics[{i}].floor"))?;
        }
        let weights = field("weights");
        if plain_object(weights).is_none() {
            return Err(format!("scoring.metrics[{i}].weights must be an object"));
        }
        let weight = |name: &str| {
            finite(
                get(weights, name),
                &format!("scoring.metrics[{i}].weights.{name}"),
            )
        };
        let (median, p95, p99) = (weight("median")?, weight("p95")?, weight("p99")?);
        if median < 0.0 || p95 < 0.0 || p99 < 0.0 {
            return Err(format!("scoring.metrics[{i}].weights must be non-negative"));
        }
        total += (median + p95) + p99;
        if field("trim").is_some() {
            finite(field("trim"), &format!("scoring.metrics[{i}].trim"))?;
        }
    }
    if (total - 1.0_f64).abs() > 0.01 {
        return Err(format!(
            "scoring metric weights must sum to 1.0 (got {})",
            js::to_fixed(total, 3)
        ));
    }
    Ok(())
}

fn validate_success(success: &Value) -> Result<(), String> {
    let Some(require_data) = plain_object(get(Some(success), "requireData")) else {
        return Err("scoring.success.requireData must be a plain object".into());
    };
    if require_data.is_empty() {
        return Err("scoring.success.requireData must declare at least one data field".into());
    }
    for (key, value) in require_data {
        let kind = js::type_of(value);
        if !matches!(kind, "string" | "number" | "boolean") {
            return Err(format!(
                "scoring.success.requireData.{key} must be a string, number, or boolean (got {kind})"
            ));
        }
    }
    Ok(())
}

/// A finite number, or the upstream `must be a finite number (got <value>)` error.
fn finite(value: Option<&Value>, field: &str) -> Result<f64, String> {
    finite_number(value).ok_or_else(|| {
        format!(
            "{field} must be a finite number (got {})",
            js::optional_to_string(value)
        )
    })
}
