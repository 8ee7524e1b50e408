//! Validation of the serializable scoring config (spec §1.3), run inside the config rules.

use super::fields::{finite_number, get, non_blank, plain_object};
use crate::js;
use serde_json::Value;
use std::collections::HashSet;

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
