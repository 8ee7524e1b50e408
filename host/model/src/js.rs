//! JavaScript number and value semantics that upstream messages and payloads depend on
//! (spec §10), in one place: `String(value)`, `Number.prototype.toString`, `Number(text)`,
//! `toFixed`, `Math.round`, integral numbers printed without a fraction, truthiness,
//! `typeof`, `JSON.stringify`, `Object.entries`, `String.prototype.trim` and ISO timestamps.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;
use std::cell::RefCell;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Formats a number exactly as JavaScript's `String(number)` does (ECMAScript
/// `Number::toString`, by `ryu-js`).
pub fn number_to_string(x: f64) -> String {
    ryu_js::Buffer::new().format(x).to_owned()
}

/// JavaScript `String(value)` for a JSON value (`null`, `true`, `1.5`, strings as-is,
/// arrays joined with commas, objects as `[object Object]`).
pub fn value_to_string(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_to_string(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => value_to_string(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

/// JavaScript `String(value)` for an optional JSON value (`undefined` when absent).
pub(crate) fn optional_to_string(value: Option<&Value>) -> String {
    value.map_or_else(|| "undefined".into(), value_to_string)
}

/// JavaScript `Number.prototype.toFixed(digits)`: rounds the exact binary value, ties away
/// from zero (`0.0625.toFixed(3) == "0.063"`, where Rust's `{:.3}` gives `0.062`).
pub fn to_fixed(x: f64, digits: usize) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return number_to_string(x);
    }
    // 1100 fractional digits print any f64 exactly.
    let exact = format!("{:.1100}", x.abs());
    let (int_part, frac_part) = exact.split_once('.').expect("fixed format has a point");
    let mut kept: Vec<u8> = int_part
        .bytes()
        .chain(frac_part.bytes().take(digits))
        .map(|b| b - b'0')
        .collect();
    let round_up = frac_part.as_bytes()[digits] >= b'5';
    if round_up {
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, 1);
                break;
            }
            i -= 1;
            if kept[i] == 9 {
                kept[i] = 0;
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let int_len = kept.len() - digits;
    let text: String = kept.iter().map(|d| char::from(b'0' + d)).collect();
    let body = if digits == 0 {
        text
    } else {
        format!("{}.{}", &text[..int_len], &text[int_len..])
    };
    let is_zero = body.bytes().all(|b| b == b'0' || b == b'.');
    if x < 0.0 && !is_zero {
        format!("-{body}")
    } else {
        body
    }
}

/// JavaScript `Math.round`: halves round toward +∞.
pub fn math_round(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let floor = x.floor();
    if x - floor >= 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

/// A JSON number that serializes as JavaScript prints it: integral values without `.0`.
/// Non-finite values become `null`, as `JSON.stringify` does.
pub fn number(x: f64) -> Value {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    if x.fract() == 0.0 && x.abs() <= MAX_SAFE {
        if x == 0.0 {
            return Value::from(0);
        }
        return Value::from(x as i64);
    }
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// Serde's `with` for an `f64` field written as [`number`] writes it (`null` when not
/// finite) and read back with `null` as NaN.
pub mod number_serde {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `x` as JavaScript's `JSON.stringify` would.
    pub fn serialize<S: Serializer>(x: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        super::number(*x).serialize(serializer)
    }

    /// Reads a number, or `null` as NaN.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN))
    }
}

/// Rewrites every number in a JSON value so integral floats print as integers.
pub fn normalize_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => *value = number(n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

/// An ISO-8601 UTC timestamp with milliseconds, as JavaScript's `toISOString()` prints it.
/// The text up to the second is formatted once per second (per thread) and reused; only the
/// milliseconds are added each time.
pub fn iso_timestamp(time: SystemTime) -> String {
    let mut text = String::with_capacity(ISO_TIMESTAMP_LEN);
    push_iso_timestamp(&mut text, time);
    text
}

/// The length of an [`iso_timestamp`] of a year from 0 to 9999 (`2026-01-01T00:00:00.000Z`).
pub const ISO_TIMESTAMP_LEN: usize = 24;

/// Appends [`iso_timestamp`]`(time)` to `text`, with no allocation of its own.
pub fn push_iso_timestamp(text: &mut String, time: SystemTime) {
    thread_local! {
        /// The last whole second formatted, and its text through the `.`.
        static SECOND: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
    }
    let Ok(since_epoch) = time.duration_since(UNIX_EPOCH) else {
        text.push_str(&chrono_iso_timestamp(time));
        return;
    };
    let second = since_epoch.as_secs();
    SECOND.with_borrow_mut(|(cached, prefix)| {
        if *cached != second {
            let whole = chrono_iso_timestamp(UNIX_EPOCH + Duration::from_secs(second));
            *prefix = whole.strip_suffix("000Z").unwrap_or(&whole).to_owned();
            *cached = second;
        }
        let millis = since_epoch.subsec_millis();
        text.push_str(prefix);
        text.push(char::from(b'0' + (millis / 100) as u8));
        text.push(char::from(b'0' + (millis / 10 % 10) as u8));
        text.push(char::from(b'0' + (millis % 10) as u8));
        text.push('Z');
    })
}

/// [`iso_timestamp`] formatted by `chrono` in full.
fn chrono_iso_timestamp(time: SystemTime) -> String {
    DateTime::<Utc>::from(time).to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// JavaScript's `String.prototype.trim` (its whitespace set differs from Rust's by U+FEFF
/// and U+0085).
pub fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| c == '\u{feff}' || (c.is_whitespace() && c != '\u{85}'))
}

/// JavaScript truthiness.
pub(crate) fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|x| x != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `typeof value`.
pub(crate) fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Null | Value::Array(_) | Value::Object(_) => "object",
    }
}

/// `JSON.stringify(value)`, `undefined` when absent.
pub(crate) fn json_stringify(value: Option<&Value>) -> String {
    value.map_or_else(
        || "undefined".into(),
        |value| {
            let mut value = value.clone();
            normalize_numbers(&mut value);
            value.to_string()
        },
    )
}

/// `Object.entries(value)`: own keys of an object, indexes of an array or string.
pub(crate) fn entries(value: &Value) -> Vec<(String, Value)> {
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

/// JavaScript `Number(text)`: trimmed; empty is 0; `0x`/`0o`/`0b` integers; signed
/// decimals with optional fraction and exponent; `Infinity`; anything else is NaN.
pub fn number_from_text(text: &str) -> f64 {
    let text = trim(text);
    if text.is_empty() {
        return 0.0;
    }
    let radix = match text.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = &text[2..];
        if digits.is_empty() {
            return f64::NAN;
        }
        return digits
            .chars()
            .try_fold(0.0, |total, c| {
                c.to_digit(radix)
                    .map(|d| total * f64::from(radix) + f64::from(d))
            })
            .unwrap_or(f64::NAN);
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let negative = text.starts_with('-');
    if unsigned == "Infinity" {
        return if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if !is_decimal_literal(unsigned) {
        return f64::NAN;
    }
    text.parse().unwrap_or(f64::NAN)
}

/// `digits [. digits] [e [+-] digits]` with at least one mantissa digit (`5.`, `.5` allowed).
fn is_decimal_literal(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = all_digits(whole) && all_digits(fraction) && whole.len() + fraction.len() > 0;
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_like_javascript() {
        let cases = [
            (1.5, "1.5"),
            (0.0, "0"),
            (-0.0, "0"),
            (-1.0, "-1"),
            (75.0, "75"),
            (0.8333333333333334, "0.8333333333333334"),
            (110.00000000000001, "110.00000000000001"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123456789012.0, "123456789012"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (1e20, "100000000000000000000"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (-0.1, "-0.1"),
        ];
        for (x, expected) in cases {
            assert_eq!(number_to_string(x), expected, "{x}");
        }
    }

    #[test]
    fn string_conversion_of_json_values() {
        assert_eq!(value_to_string(&json!("5")), "5");
        assert_eq!(value_to_string(&json!(null)), "null");
        assert_eq!(value_to_string(&json!([1, null, "a"])), "1,,a");
        assert_eq!(value_to_string(&json!({"a": 1})), "[object Object]");
        assert_eq!(optional_to_string(None), "undefined");
    }

    #[test]
    fn to_fixed_rounds_ties_away_from_zero() {
        assert_eq!(to_fixed(0.0625, 3), "0.063");
        assert_eq!(to_fixed(0.8, 3), "0.800");
        assert_eq!(to_fixed(1.0099999999999998, 3), "1.010");
        assert_eq!(to_fixed(1.4, 3), "1.400");
        assert_eq!(to_fixed(-0.0625, 3), "-0.063");
        assert_eq!(to_fixed(0.9995, 3), "1.000");
        assert_eq!(to_fixed(9.9996, 3), "10.000");
        assert_eq!(to_fixed(0.0, 3), "0.000");
    }

    #[test]
    fn math_round_halves_toward_positive_infinity() {
        assert_eq!(math_round(2.5), 3.0);
        assert_eq!(math_round(-2.5), -2.0);
        assert_eq!(math_round(0.49999999999999994), 0.0);
        assert_eq!(math_round(8016.666666666667), 8017.0);
    }

    #[test]
    fn integral_numbers_serialize_without_fraction() {
        assert_eq!(number(75.0).to_string(), "75");
        assert_eq!(number(0.5).to_string(), "0.5");
        assert_eq!(number(f64::NAN), Value::Null);
        let mut v = json!({"a": [1.0, 2.5], "b": {"c": 3.0}});
        normalize_numbers(&mut v);
        assert_eq!(v.to_string(), r#"{"a":[1,2.5],"b":{"c":3}}"#);
    }

    #[test]
    fn timestamps_reuse_the_second_and_match_chrono() {
        let base = UNIX_EPOCH + Duration::from_secs(1_764_532_537);
        let offsets_ms = [
            0, 1, 9, 10, 99, 100, 999, 1_000, 1_001, 999, 61_234, 86_400_000,
        ];
        for offset in offsets_ms {
            let time = base + Duration::from_millis(offset) + Duration::from_micros(700);
            assert_eq!(
                iso_timestamp(time),
                chrono_iso_timestamp(time),
                "{offset} ms"
            );
        }
        assert_eq!(iso_timestamp(base), "2025-11-30T19:55:37.000Z");
        let before_epoch = UNIX_EPOCH - Duration::from_millis(1_500);
        assert_eq!(iso_timestamp(before_epoch), "1969-12-31T23:59:58.500Z");
    }

    #[test]
    fn trim_matches_javascript_whitespace() {
        assert_eq!(trim("\u{feff}\t a \n\u{3000}"), "a");
        assert_eq!(trim("\u{85}a"), "\u{85}a");
    }
}
