//! The `dimensions` object of summary rows (spec §4.5 step 5): the spec's static tags,
//! JSON-normalized, plus the group entry of a grouped row.

use bench_model::js;
use serde_json::{Map, Value};

/// A copy of `tags` as upstream's JSON round trip leaves it: integral numbers print without
/// a fraction.
pub(crate) fn normalized(tags: &Map<String, Value>) -> Map<String, Value> {
    tags.iter()
        .map(|(key, value)| (key.clone(), normalized_value(value)))
        .collect()
}

/// The dimensions of a group's row: `base` with `key` set to the group's value. A key that
/// is already present keeps its position and takes the new value, as a JavaScript spread
/// does; a `null` value is kept.
pub(crate) fn with_group_value(
    base: &Map<String, Value>,
    key: &str,
    value: &Value,
) -> Map<String, Value> {
    let mut dimensions = base.clone();
    dimensions.insert(key.to_owned(), normalized_value(value));
    dimensions
}

fn normalized_value(value: &Value) -> Value {
    let mut value = value.clone();
    js::normalize_numbers(&mut value);
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn integral_numbers_lose_their_fraction() {
        let tags = object(json!({"region": "eu", "cpus": 2.0, "ratio": 0.5}));
        assert_eq!(
            Value::Object(normalized(&tags)).to_string(),
            r#"{"region":"eu","cpus":2,"ratio":0.5}"#
        );
    }

    #[test]
    fn group_entry_is_appended_or_replaces_in_place() {
        let base = object(json!({"a": 1, "b": 2}));
        assert_eq!(
            Value::Object(with_group_value(&base, "size", &json!(4.0))).to_string(),
            r#"{"a":1,"b":2,"size":4}"#
        );
        assert_eq!(
            Value::Object(with_group_value(&base, "a", &Value::Null)).to_string(),
            r#"{"a":null,"b":2}"#
        );
    }
}
