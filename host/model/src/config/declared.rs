//! A config section read into typed values and kept as the author declared it: the typed
//! values are what bench acts on, the declared JSON is what run.json, summary.json and the
//! platform carry on, key for key.

use crate::js;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::ops::Deref;

/// A section that reads itself out of its declared JSON without failing: what is missing or
/// malformed reads as absent (or NaN for a number), as upstream's JavaScript reads it. A
/// config's sections were validated before; a run.json read back from disk may hold anything.
pub trait Section: Sized {
    /// The typed values of `declared`.
    fn read(declared: &Value) -> Self;
}

/// A section's typed values (through `Deref`) beside its declared JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared<T> {
    typed: T,
    declared: Value,
}

impl<T: Section> Declared<T> {
    /// Reads `declared` into its typed values and keeps it.
    pub fn new(declared: Value) -> Self {
        Self {
            typed: T::read(&declared),
            declared,
        }
    }
}

impl<T> Declared<T> {
    /// The section as the author declared it.
    pub fn declared(&self) -> &Value {
        &self.declared
    }

    /// The same section with its declared numbers as a JSON round trip in JavaScript leaves
    /// them (integral numbers without a fraction); the typed values are unchanged.
    pub fn with_normalized_numbers(mut self) -> Self {
        js::normalize_numbers(&mut self.declared);
        self
    }
}

impl<T> Deref for Declared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.typed
    }
}

impl<T> Serialize for Declared<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.declared.serialize(serializer)
    }
}

impl<'de, T: Section> Deserialize<'de> for Declared<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A section that reads one optional string.
    #[derive(Debug, Clone, PartialEq)]
    struct Named(Option<String>);

    impl Section for Named {
        fn read(declared: &Value) -> Self {
            Self(
                declared
                    .get("name")
                    .and_then(Value::as_str)
                    .map(String::from),
            )
        }
    }

    #[test]
    fn the_declared_json_round_trips_with_keys_bench_does_not_read() {
        let text = r#"{"name":"a","extra":[1.5,{"deep":true}]}"#;
        let section: Declared<Named> = serde_json::from_str(text).unwrap();
        assert_eq!(*section, Named(Some("a".into())));
        assert_eq!(serde_json::to_string(&section).unwrap(), text);
    }

    #[test]
    fn a_malformed_section_reads_as_absent_values() {
        let section = Declared::<Named>::new(json!(["not", "an", "object"]));
        assert_eq!(*section, Named(None));
        assert_eq!(section.declared(), &json!(["not", "an", "object"]));
    }

    #[test]
    fn normalizing_numbers_keeps_the_typed_values() {
        let section =
            Declared::<Named>::new(json!({"name": "a", "n": 2.0})).with_normalized_numbers();
        assert_eq!(
            serde_json::to_string(&section).unwrap(),
            r#"{"name":"a","n":2}"#
        );
        assert_eq!(*section, Named(Some("a".into())));
    }
}
