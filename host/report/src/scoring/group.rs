//! Records grouped by the value of one data field (spec §4.6, `scoring.groupBy`), built one
//! record at a time.

use bench_model::js;
use serde_json::Value;
use std::collections::HashMap;

/// Where a record stands among one participant's records: by task index, ties in arrival
/// order. Scoring reads records in this order, so "first appearance" means the lowest task
/// index whatever order the tasks finished in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RecordOrder {
    /// The record's task index.
    pub task_index: u32,
    /// How many records of the participant arrived before it.
    pub arrival: u64,
}

/// Groups of records sharing one value of the grouping field, each holding a `T` (what is
/// kept of its records). Values are the same when their JavaScript JSON text is (`1` and
/// `1.0` are, `1` and `"1"` are not); records lacking the field form one group of their own.
#[derive(Debug)]
pub(crate) struct Groups<T> {
    groups: Vec<Group<T>>,
    index_by_text: HashMap<Option<String>, usize>,
}

#[derive(Debug)]
struct Group<T> {
    /// The group's earliest record so far.
    first: RecordOrder,
    /// That record's value of the field.
    value: Option<Value>,
    item: T,
}

impl<T> Default for Groups<T> {
    fn default() -> Self {
        Self {
            groups: Vec::new(),
            index_by_text: HashMap::new(),
        }
    }
}

impl<T> Groups<T> {
    /// What the group of `value` keeps (`new` makes it for the group's first record); the
    /// record is at `order`. A group shows the value of its earliest record.
    pub(crate) fn entry(
        &mut self,
        value: Option<&Value>,
        order: RecordOrder,
        new: impl FnOnce() -> T,
    ) -> &mut T {
        let text = value.map(javascript_json_text);
        let index = match self.index_by_text.get(&text) {
            Some(&index) => index,
            None => {
                self.groups.push(Group {
                    first: order,
                    value: value.cloned(),
                    item: new(),
                });
                self.index_by_text.insert(text, self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        let group = &mut self.groups[index];
        if order < group.first {
            group.first = order;
            group.value = value.cloned();
        }
        &mut group.item
    }

    /// Every group's value and item, in order of first appearance.
    pub(crate) fn into_ordered(self) -> Vec<(Option<Value>, T)> {
        let mut groups = self.groups;
        groups.sort_by_key(|group| group.first);
        groups
            .into_iter()
            .map(|group| (group.value, group.item))
            .collect()
    }
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
    use serde_json::json;

    /// Groups `values` (one per record, in task order unless `orders` says otherwise) and
    /// returns each group's value and its records' positions in `values`.
    fn grouped(values: &[Option<Value>], orders: &[u32]) -> Vec<(Option<Value>, Vec<usize>)> {
        let mut groups: Groups<Vec<usize>> = Groups::default();
        for (arrival, value) in values.iter().enumerate() {
            let order = RecordOrder {
                task_index: orders.get(arrival).copied().unwrap_or(arrival as u32),
                arrival: arrival as u64,
            };
            groups.entry(value.as_ref(), order, Vec::new).push(arrival);
        }
        groups.into_ordered()
    }

    fn values_and_sizes(groups: &[(Option<Value>, Vec<usize>)]) -> Vec<(Option<&Value>, usize)> {
        groups
            .iter()
            .map(|(value, records)| (value.as_ref(), records.len()))
            .collect()
    }

    #[test]
    fn groups_follow_first_appearance() {
        let groups = grouped(
            &[Some(json!("4MB")), Some(json!("1MB")), Some(json!("4MB"))],
            &[],
        );
        assert_eq!(
            values_and_sizes(&groups),
            [(Some(&json!("4MB")), 2), (Some(&json!("1MB")), 1)]
        );
        assert_eq!(groups[0].1, [0, 2]);
    }

    #[test]
    fn first_appearance_is_by_task_index_not_arrival() {
        // Task 2 finished first, then task 0, then task 1.
        let values = [Some(json!(1.0)), Some(json!("x")), Some(json!(1))];
        let groups = grouped(&values, &[2, 0, 1]);
        assert_eq!(
            values_and_sizes(&groups),
            [(Some(&json!("x")), 1), (Some(&json!(1)), 2)]
        );
        assert!(
            groups[1].0.as_ref().unwrap().is_i64(),
            "task 1's value names the group"
        );
    }

    #[test]
    fn identity_is_javascript_json_text() {
        let values = [
            json!(1),
            json!("1"),
            json!(1.0),
            json!([1.0, {"a": 2}]),
            json!([1, {"a": 2.0}]),
            Value::Null,
            json!(-0.0),
            json!(0),
        ]
        .map(Some);
        let groups = grouped(&values, &[]);
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
        let groups = grouped(&[None, Some(json!(2)), None], &[]);
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
