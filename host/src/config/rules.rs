//! The top-level config rules (spec §1.2) and the loader's participant checks (§5.1), plus
//! the JavaScript value tests they are written in.
//!
//! Upstream reads properties of `null` in a few places and crashes with a `TypeError`
//! (a `null` phase, `shapes: null`, `scoring: null`, `success: null`); here a property of
//! a non-object simply reads as absent, so those inputs get the neighbouring rule's message.

use super::{display, scoring, Participant};
use crate::js;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// JavaScript's `String.prototype.trim` (its whitespace set differs from Rust's by U+FEFF
/// and U+0085).
pub(crate) fn js_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c == '\u{feff}' || (c.is_whitespace() && c != '\u{85}'))
}

/// Checks an integer knob `>= 1` that must also fit a `u32`; the error names `field`.
/// Upstream has no upper bound (its schedule would not fit in memory); bench reports one.
pub(crate) fn positive_int(field: &str, x: f64) -> Result<u32, String> {
    if x.fract() != 0.0 || x < 1.0 {
        return Err(format!(
            "{field} must be an integer >= 1 (got {})",
            js::number_to_string(x)
        ));
    }
    if x > f64::from(u32::MAX) {
        return Err(format!(
            "{field} must be an integer between 1 and {} (got {})",
            u32::MAX,
            js::number_to_string(x)
        ));
    }
    Ok(x as u32)
}

/// A property read (`value.key`): absent unless `value` is an object holding `key`.
pub(super) fn get<'a>(value: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    value?.as_object()?.get(key)
}

/// JavaScript truthiness.
fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|x| x != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `typeof value`.
pub(super) fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Null | Value::Array(_) | Value::Object(_) => "object",
    }
}

/// A non-null, non-array object.
pub(super) fn plain_object(value: Option<&Value>) -> Option<&Map<String, Value>> {
    value?.as_object()
}

/// A number for which `Number.isFinite` holds (type-strict: `"5"` is not one).
pub(super) fn finite_number(value: Option<&Value>) -> Option<f64> {
    value?.as_f64().filter(|x| x.is_finite())
}

/// A number for which `Number.isInteger` holds.
pub(super) fn integer(value: Option<&Value>) -> Option<f64> {
    finite_number(value).filter(|x| x.fract() == 0.0)
}

/// A string that is not empty after trimming.
pub(super) fn non_blank(value: Option<&Value>) -> Option<&str> {
    value?.as_str().filter(|s| !js_trim(s).is_empty())
}

/// `JSON.stringify(value)`, `undefined` when absent.
fn json_text(value: Option<&Value>) -> String {
    value.map_or_else(
        || "undefined".into(),
        |value| {
            let mut value = value.clone();
            js::normalize_numbers(&mut value);
            value.to_string()
        },
    )
}

/// `Object.entries(value)`: own keys of an object, indexes of an array or string.
pub(super) fn entries(value: &Value) -> Vec<(String, Value)> {
    match value {
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v.clone()))
            .collect(),
        Value::String(s) => s
            .encode_utf16()
            .enumerate()
            .map(|(i, unit)| {
                let text = String::from_utf16_lossy(&[unit]);
                (i.to_string(), Value::String(text))
            })
            .collect(),
        Value::Null | Value::Bool(_) | Value::Number(_) => Vec::new(),
    }
}

/// `^[a-z0-9][a-z0-9-]*$`.
pub(crate) fn is_lowercase_slug(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

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
        for (name, shape) in entries(shapes) {
            validate_shape(&name, &shape)?;
        }
    }
    if field("dimensions").is_some() && plain_object(field("dimensions")).is_none() {
        return Err("dimensions must be a plain object".into());
    }
    if let Some(scoring) = field("scoring") {
        scoring::validate(scoring, field("display"))?;
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
    if !truthy(slug) || !slug.is_some_and(|s| is_lowercase_slug(&js::value_to_string(s))) {
        return Err(format!(
            "shape '{name}' needs a lowercase slug (got {})",
            json_text(slug)
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
