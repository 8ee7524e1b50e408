//! The display manifest (spec §1.4, variant B as published in 0.3.0): its validation (only
//! `metrics`, `steps` and `overview`; `defaultMetric` may also name a built-in default) and
//! the typed values of its metrics, which summaries and comparisons read.

use super::declared::Section;
use super::fields::{get, integer, non_blank, plain_object};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// A config's `display` as bench reads it: what it says of each metric.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DisplaySection {
    /// The `display.metrics` entries that name a key, in declaration order.
    pub metrics: Vec<DisplayMetric>,
}

/// One `display.metrics` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayMetric {
    /// The metric's key.
    pub key: String,
    /// Its unit, when declared as a string.
    pub unit: Option<String>,
    /// Whether its `direction` is `higher-better`.
    pub higher_is_better: bool,
}

impl DisplaySection {
    /// The entry of `key` (the last one, as upstream builds a `Map` from the list).
    pub fn metric(&self, key: &str) -> Option<&DisplayMetric> {
        self.metrics.iter().rev().find(|metric| metric.key == key)
    }

    /// The unit the entry of `key` declares.
    pub fn unit(&self, key: &str) -> Option<&str> {
        self.metric(key)?.unit.as_deref()
    }
}

impl Section for DisplaySection {
    fn read(display: &Value) -> Self {
        let entries = display.get("metrics").and_then(Value::as_array);
        let metrics = entries.into_iter().flatten().filter_map(|entry| {
            Some(DisplayMetric {
                key: entry.get("key")?.as_str()?.to_owned(),
                unit: entry.get("unit").and_then(Value::as_str).map(String::from),
                higher_is_better: entry.get("direction").and_then(Value::as_str)
                    == Some("higher-better"),
            })
        });
        Self {
            metrics: metrics.collect(),
        }
    }
}

const DISPLAY_KEYS: &[&str] = &["metrics", "steps", "overview"];
const METRIC_KEYS: &[&str] = &["key", "label", "unit", "direction", "decimals", "order"];
const STEP_KEYS: &[&str] = &["key", "label", "order"];
const OVERVIEW_KEYS: &[&str] = &["defaultMetric", "defaultLayout"];
const DIRECTIONS: &[&str] = &["higher-better", "lower-better"];
const LAYOUTS: &[&str] = &["ranking", "cards", "chart", "leaderboard"];
/// Metrics the platform knows without a `display.metrics` entry.
const BUILT_IN_METRICS: &[&str] = &["compositeScore", "task"];

/// Checks `config.display`; `has_scoring` tells whether `config.scoring` is declared.
pub(super) fn validate(display: &Value, has_scoring: bool) -> Result<(), String> {
    let Some(display) = plain_object(Some(display)) else {
        return Err("display must be an object".into());
    };
    reject_unexpected_keys(display, DISPLAY_KEYS, "display")?;
    let metric_keys = match display.get("metrics") {
        Some(metrics) => Some(validate_metrics(metrics)?),
        None => None,
    };
    if let Some(steps) = display.get("steps") {
        validate_steps(steps)?;
    }
    if let Some(overview) = display.get("overview") {
        validate_overview(overview, metric_keys.as_ref())?;
    }
    let default_metric = get(display.get("overview"), "defaultMetric");
    if default_metric.and_then(Value::as_str) == Some("compositeScore") && !has_scoring {
        return Err("display.overview.defaultMetric cannot be 'compositeScore' without config.scoring or config.onScore".into());
    }
    Ok(())
}

fn reject_unexpected_keys(
    object: &Map<String, Value>,
    allowed: &[&str],
    path: &str,
) -> Result<(), String> {
    match object.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(key) => Err(format!("{path} contains unexpected key: '{key}'")),
        None => Ok(()),
    }
}

/// A `display.<list>[i].<field>` that must be a non-empty string.
fn required_text<'a>(
    entry: &'a Map<String, Value>,
    path: &str,
    field: &str,
) -> Result<&'a str, String> {
    non_blank(entry.get(field)).ok_or_else(|| format!("{path}.{field} must be a non-empty string"))
}

/// A `display.<list>[i].<field>` that, when present, must be an integer `>= 0`.
fn optional_index(entry: &Map<String, Value>, path: &str, field: &str) -> Result<(), String> {
    let value = entry.get(field);
    if value.is_some() && !integer(value).is_some_and(|x| x >= 0.0) {
        return Err(format!("{path}.{field} must be a non-negative integer"));
    }
    Ok(())
}

/// Validates `display.metrics` and returns its keys.
fn validate_metrics(metrics: &Value) -> Result<HashSet<String>, String> {
    let Some(metrics) = metrics.as_array() else {
        return Err("display.metrics must be an array".into());
    };
    let mut keys = HashSet::new();
    for (i, metric) in metrics.iter().enumerate() {
        let path = format!("display.metrics[{i}]");
        let Some(metric) = plain_object(Some(metric)) else {
            return Err(format!("{path} must be an object"));
        };
        reject_unexpected_keys(metric, METRIC_KEYS, &path)?;
        let key = required_text(metric, &path, "key")?;
        if !keys.insert(key.to_owned()) {
            return Err(format!("duplicate display metric key: {key}"));
        }
        required_text(metric, &path, "label")?;
        if metric.get("unit").is_some_and(|unit| !unit.is_string()) {
            return Err(format!("{path}.unit must be a string"));
        }
        if let Some(direction) = metric.get("direction") {
            if !direction.as_str().is_some_and(|d| DIRECTIONS.contains(&d)) {
                return Err(format!(
                    "{path}.direction must be 'higher-better' or 'lower-better'"
                ));
            }
        }
        optional_index(metric, &path, "decimals")?;
        optional_index(metric, &path, "order")?;
    }
    Ok(keys)
}

fn validate_steps(steps: &Value) -> Result<(), String> {
    let Some(steps) = steps.as_array() else {
        return Err("display.steps must be an array".into());
    };
    let mut keys = HashSet::new();
    for (i, step) in steps.iter().enumerate() {
        let path = format!("display.steps[{i}]");
        let Some(step) = plain_object(Some(step)) else {
            return Err(format!("{path} must be an object"));
        };
        reject_unexpected_keys(step, STEP_KEYS, &path)?;
        let key = required_text(step, &path, "key")?;
        if !keys.insert(key) {
            return Err(format!("duplicate display step key: {key}"));
        }
        required_text(step, &path, "label")?;
        optional_index(step, &path, "order")?;
    }
    Ok(())
}

fn validate_overview(
    overview: &Value,
    metric_keys: Option<&HashSet<String>>,
) -> Result<(), String> {
    let Some(overview) = plain_object(Some(overview)) else {
        return Err("display.overview must be an object".into());
    };
    reject_unexpected_keys(overview, OVERVIEW_KEYS, "display.overview")?;
    if let Some(default_metric) = overview.get("defaultMetric") {
        let Some(metric) = non_blank(Some(default_metric)) else {
            return Err("display.overview.defaultMetric must be a non-empty string".into());
        };
        let declared = metric_keys.is_none_or(|keys| keys.contains(metric));
        if !declared && !BUILT_IN_METRICS.contains(&metric) {
            return Err(format!(
                "display.overview.defaultMetric '{metric}' is not declared in display.metrics and is not a known default (compositeScore, task)"
            ));
        }
    }
    if let Some(layout) = overview.get("defaultLayout") {
        if !layout.as_str().is_some_and(|l| LAYOUTS.contains(&l)) {
            return Err(
                "display.overview.defaultLayout must be 'ranking', 'cards', 'chart', or 'leaderboard'"
                    .into(),
            );
        }
    }
    Ok(())
}
