//! Reading config values as upstream's validators do: property reads that treat a
//! non-object as having no properties, and type-strict number and string tests.

use crate::js;
use serde_json::{Map, Value};

/// A property read (`value.key`): absent unless `value` is an object holding `key`.
pub(super) fn get<'a>(value: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    value?.as_object()?.get(key)
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
    value?.as_str().filter(|s| !js::trim(s).is_empty())
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

/// `^[a-z0-9][a-z0-9-]*$`.
pub fn is_lowercase_slug(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
