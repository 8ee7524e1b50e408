//! Records grouped by the value of one data field (spec §4.6, `scoring.groupBy`).

use crate::js;
use crate::record::TaskRecord;
use serde_json::Value;
use std::collections::HashMap;

/// Records sharing one value of the grouping field.
#[derive(Debug, PartialEq)]
pub(crate) struct RecordGroup<'a> {
    /// The shared value; `None` for the records lacking the field.
    pub value: Option<&'a Value>,
    /// The group's records, in their original order.
    pub records: Vec<&'a TaskRecord>,
}

/// Splits records by the value of data field `key`, groups in order of first appearance.
/// Values are the same when their JavaScript JSON text is (`1` and `1.0` are, `1` and
/// `"1"` are not); records lacking the field form one group of their own.
pub(crate) fn group_by_data_value<'a>(
    records: &'a [TaskRecord],
    key: &str,
) -> Vec<RecordGroup<'a>> {
    let mut groups: Vec<RecordGroup<'a>> = Vec::new();
    let mut index_by_text: HashMap<Option<String>, usize> = HashMap::new();
    for record in records {
        let value = record.data.as_ref().and_then(|data| data.get(key));
        let index = *index_by_text
            .entry(value.map(javascript_json_text))
            .or_insert_with(|| {
                groups.push(RecordGroup {
                    value,
                    records: Vec::new(),
                });
                groups.len() - 1
            });
        groups[index].records.push(record);
    }
    groups
}

/// The text `JSON.stringify` gives a value: numbers are JavaScript doubles (`1.0` prints
/// as `1`, `-0` as `0`).
fn javascript_json_text(value: &Value) -> String {
    let mut text = String::new();
    write_javascript_json(value, &mut text);
    text
}

fn write_javascript_json(value: &Value, out: &mut String) {
    match value {
        Value::Number(number) => {
            let x = number.as_f64().unwrap_or(f64::NAN);
            out.push_str(&js::number_to_string(x));
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_javascript_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_javascript_json(item, out);
            }
            out.push('}');
        }
        Value::Null | Value::Bool(_) | Value::String(_) => out.push_str(&value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;
    use crate::scoring::test_support::record;
    use serde_json::json;

    fn values_and_sizes<'a>(groups: &[RecordGroup<'a>]) -> Vec<(Option<&'a Value>, usize)> {
        groups
            .iter()
            .map(|group| (group.value, group.records.len()))
            .collect()
    }

    #[test]
    fn groups_follow_first_appearance() {
        let records = [
            record(Status::Success, json!({"size": "4MB"})),
            record(Status::Success, json!({"size": "1MB"})),
            record(Status::Error, json!({"size": "4MB"})),
        ];
        let groups = group_by_data_value(&records, "size");
        assert_eq!(
            values_and_sizes(&groups),
            [(Some(&json!("4MB")), 2), (Some(&json!("1MB")), 1)]
        );
        assert!(std::ptr::eq(groups[0].records[1], &records[2]));
    }

    #[test]
    fn identity_is_javascript_json_text() {
        let records = [
            record(Status::Success, json!({"n": 1})),
            record(Status::Success, json!({"n": "1"})),
            record(Status::Success, json!({"n": 1.0})),
            record(Status::Success, json!({"n": [1.0, {"a": 2}]})),
            record(Status::Success, json!({"n": [1, {"a": 2.0}]})),
            record(Status::Success, json!({"n": null})),
            record(Status::Success, json!({"n": -0.0})),
            record(Status::Success, json!({"n": 0})),
        ];
        let groups = group_by_data_value(&records, "n");
        assert_eq!(
            values_and_sizes(&groups),
            [
                (Some(&json!(1)), 2),
                (Some(&json!("1")), 1),
                (Some(&json!([1.0, {"a": 2}])), 2),
                (Some(&Value::Null), 1),
                (Some(&json!(-0.0)), 2),
            ]
        );
    }

    #[test]
    fn records_lacking_the_field_share_a_group() {
        let records = [
            record(Status::Success, json!({"other": 1})),
            record(Status::Success, json!({"n": 2})),
            record(Status::Success, Value::Null),
        ];
        let groups = group_by_data_value(&records, "n");
        assert_eq!(values_and_sizes(&groups), [(None, 2), (Some(&json!(2)), 1)]);
    }

    #[test]
    fn json_text_matches_javascript() {
        assert_eq!(
            javascript_json_text(&json!({"a": [1.0, 2.5, "x\"y", true, null], "b": {}})),
            r#"{"a":[1,2.5,"x\"y",true,null],"b":{}}"#
        );
    }
}
