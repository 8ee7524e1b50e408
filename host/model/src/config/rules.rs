//! The top-level config rules (spec §1.2) and the loader's participant checks (§5.1).
//!
//! Upstream reads properties of `null` in a few places and crashes with a `TypeError`
//! (a `null` phase, `shapes: null`, `scoring: null`, `success: null`); here a property of
//! a non-object simply reads as absent, so those inputs get the neighbouring rule's message.

use super::fields::{self, finite_number, get, non_blank, plain_object, positive_int};
use super::{display, scoring_section, Participant};
use crate::js;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// An optional integer knob `>= 1`: absent passes, anything else must be an integer.
fn optional_positive_int(value: Option<&Value>, field: &str) -> Result<(), String> {
    match value {
        None => Ok(()),
        Some(Value::Number(n)) => positive_int(field, n.as_f64().unwrap_or(f64::NAN)).map(drop),
        Some(other) => Err(format!(
            "{field} must be an integer >= 1 (got {})",
            js::value_to_string(other)
        )),
    }
}

/// An optional finite number `>= 0`.
fn is_valid_delay(value: Option<&Value>) -> bool {
    value.is_none() || finite_number(value).is_some_and(|x| x >= 0.0)
}

/// Spec §1.2, in order; the first failure wins.
pub(super) fn validate(config: &Map<String, Value>) -> Result<(), String> {
    let field = |key: &str| config.get(key);
    let non_empty = |key: &str| {
        field(key)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    if !non_empty("benchmarkSlug") {
        return Err("benchmarkSlug is required".into());
    }
    if !non_empty("benchmarkName") {
        return Err("benchmarkName is required".into());
    }
    if let Some(phases) = field("phases") {
        validate_phases(phases, field("iterations").is_some())?;
    }
    optional_positive_int(field("iterations"), "iterations")?;
    optional_positive_int(field("concurrency"), "concurrency")?;
    if !is_valid_delay(field("staggerDelayMs")) {
        return Err(format!(
            "staggerDelayMs must be a number >= 0 (got {})",
            js::optional_to_string(field("staggerDelayMs"))
        ));
    }
    if let Some(group_by) = field("groupBy") {
        if !group_by
            .as_str()
            .is_some_and(|g| g == "participant" || g == "round")
        {
            return Err(format!(
                "groupBy must be 'participant' or 'round' (got {})",
                js::value_to_string(group_by)
            ));
        }
    }
    if let Some(shapes) = field("shapes") {
        for (name, shape) in js::entries(shapes) {
            validate_shape(&name, &shape)?;
        }
    }
    if field("dimensions").is_some() && plain_object(field("dimensions")).is_none() {
        return Err("dimensions must be a plain object".into());
    }
    if let Some(scoring) = field("scoring") {
        scoring_section::validate(scoring, field("display"))?;
    }
    if let Some(flags) = field("customCliFlags") {
        let valid = flags.as_array().is_some_and(|flags| {
            flags
                .iter()
                .all(|f| f.as_str().is_some_and(|f| f.starts_with("--")))
        });
        if !valid {
            return Err(r#"customCliFlags must be an array of strings starting with "--""#.into());
        }
    }
    if let Some(display) = field("display") {
        display::validate(display, field("scoring").is_some())?;
    }
    Ok(())
}

fn validate_phases(phases: &Value, has_iterations: bool) -> Result<(), String> {
    if has_iterations {
        return Err("phases and iterations are mutually exclusive".into());
    }
    let phases = match phases.as_array() {
        Some(phases) if !phases.is_empty() => phases,
        _ => return Err("phases must be a non-empty array".into()),
    };
    let mut seen = HashSet::new();
    for phase in phases {
        let name = get(Some(phase), "name");
        let name = match name.and_then(Value::as_str) {
            Some(name) if !name.is_empty() => name,
            _ => return Err("each phase requires a non-empty name".into()),
        };
        if !seen.insert(name) {
            return Err(format!("duplicate phase name: {name}"));
        }
        let field = format!("phase '{name}' iterations");
        optional_positive_int(get(Some(phase), "iterations"), &field)?;
    }
    Ok(())
}

fn validate_shape(name: &str, shape: &Value) -> Result<(), String> {
    let slug = get(Some(shape), "slug");
    if !js::truthy(slug)
        || !slug.is_some_and(|s| fields::is_lowercase_slug(&js::value_to_string(s)))
    {
        return Err(format!(
            "shape '{name}' needs a lowercase slug (got {})",
            js::json_stringify(slug)
        ));
    }
    let display_name = get(Some(shape), "name");
    if display_name.is_some() && non_blank(display_name).is_none() {
        return Err(format!("shape '{name}' name must be a non-empty string"));
    }
    let delay = get(Some(shape), "staggerDelayMs");
    if !is_valid_delay(delay) {
        return Err(format!(
            "shape '{name}' staggerDelayMs must be a number >= 0 (got {})",
            js::optional_to_string(delay)
        ));
    }
    Ok(())
}

/// The loader's participant checks (after §1.2): an array of objects with unique,
/// non-empty names. `requiredEnvVars` that is missing or not an array counts as `[]`, and
/// non-string entries are ignored (0.5.0 behaviour; 0.3.0 crashes on such input).
pub(super) fn participants(config: &Map<String, Value>) -> Result<Vec<Participant>, String> {
    let Some(list) = config.get("participants").and_then(Value::as_array) else {
        return Err("config must declare participants (an array)".into());
    };
    let mut seen = HashSet::new();
    let mut participants = Vec::with_capacity(list.len());
    for (i, raw) in list.iter().enumerate() {
        let Some(name) = non_blank(get(Some(raw), "name")) else {
            return Err(format!("participants[{i}].name must be a non-empty string"));
        };
        if !seen.insert(name) {
            return Err(format!("duplicate participant name: {name}"));
        }
        let required_env_vars = get(Some(raw), "requiredEnvVars")
            .and_then(Value::as_array)
            .map(|vars| {
                vars.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        participants.push(Participant {
            name: name.to_owned(),
            required_env_vars,
            raw: raw.clone(),
        });
    }
    Ok(participants)
}
