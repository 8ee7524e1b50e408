//! Units declared by a config's `display.metrics` list, looked up by metric key.

use serde_json::Value;

/// The `unit` of the `display.metrics` entry whose `key` is `key` (the last such entry, as
/// upstream builds a `Map` from the list); `None` when no entry has that key or the entry
/// declares no string unit. A `display_metrics` value that is not an array declares nothing.
pub(crate) fn display_unit<'a>(display_metrics: &'a Value, key: &str) -> Option<&'a str> {
    display_metrics
        .as_array()?
        .iter()
        .rev()
        .find(|entry| entry.get("key").and_then(Value::as_str) == Some(key))?
        .get("unit")?
        .as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_the_unit_of_the_entry_with_the_key() {
        let metrics = json!([
            {"key": "ttiMs", "label": "TTI", "unit": "ms"},
            {"key": "sizeMb", "label": "Size"}
        ]);
        assert_eq!(display_unit(&metrics, "ttiMs"), Some("ms"));
        assert_eq!(display_unit(&metrics, "sizeMb"), None);
        assert_eq!(display_unit(&metrics, "other"), None);
    }

    #[test]
    fn the_last_entry_with_a_key_wins() {
        let metrics = json!([{"key": "x", "unit": "ms"}, {"key": "x"}]);
        assert_eq!(display_unit(&metrics, "x"), None);
    }

    #[test]
    fn a_non_array_declares_nothing() {
        assert_eq!(display_unit(&json!({"key": "x", "unit": "ms"}), "x"), None);
    }
}
