//! The scoring spec (spec §4.1) and how a config's serializable `scoring` object becomes
//! one (spec §4.8, `scoringConfigToSpec`).

use super::dimensions;
use super::units::display_unit;
use bench_model::js;
use bench_model::record::TaskRecord;
use serde_json::{Map, Value};

/// Weights of a metric's three statistics. Summed over every metric of a spec they must be
/// 1 (±0.01), so the composite score stays on a 0–100 scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Weight of the median's score.
    pub median: f64,
    /// Weight of the p95's score.
    pub p95: f64,
    /// Weight of the p99's score.
    pub p99: f64,
}

impl Weights {
    /// `(median + p95) + p99`: the share of the composite score this metric carries.
    pub fn total(&self) -> f64 {
        self.median + self.p95 + self.p99
    }
}

/// How one metric is sampled and scored.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricScoring {
    /// Metric name, as shown in summary rows.
    pub name: String,
    /// The record data field holding the samples; `None` reads the field named `name`.
    pub value_key: Option<String>,
    /// Unit shown in summary rows; `None` falls back to the display unit, then `""`.
    pub unit: Option<String>,
    /// The value scoring 100 (higher is better) or 0 (lower is better).
    pub ceiling: f64,
    /// The value at or below which a higher-is-better metric scores 0 (default 0); ignored
    /// when lower is better.
    pub floor: Option<f64>,
    /// Whether larger values are better (throughput) rather than smaller ones (latency).
    pub higher_is_better: bool,
    /// Weights of the median, p95 and p99 scores.
    pub weights: Weights,
    /// Share of samples trimmed from each end before the statistics; `None` means 0.05.
    pub trim: Option<f64>,
}

impl MetricScoring {
    /// The record data field holding this metric's samples.
    pub(crate) fn data_key(&self) -> &str {
        self.value_key.as_deref().unwrap_or(&self.name)
    }
}

/// Everything `score` needs: static dimensions, grouping, the success rule and the metrics.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScoringSpec {
    /// Static tags copied into every summary row's `dimensions`.
    pub dimensions: Option<Map<String, Value>>,
    /// A record data field whose distinct values each get their own summary row, after the
    /// row over all records. `None` (or empty) gives one row per participant.
    pub group_by: Option<String>,
    /// Data fields a successful record must also carry, each strictly equal to the given
    /// value (`24` is not `"24"`). `None`: a record passes when its status is success.
    pub require_data: Option<Map<String, Value>>,
    /// Scored metrics, in summary order.
    pub metrics: Vec<MetricScoring>,
}

impl ScoringSpec {
    /// The data field records are grouped by, when the spec groups them (an empty name does
    /// not group).
    pub(crate) fn group_key(&self) -> Option<&str> {
        self.group_by.as_deref().filter(|key| !key.is_empty())
    }

    /// Whether a record counts as passing: its status is success and, when the spec
    /// requires data, every required field is present and strictly equal to its value.
    pub(crate) fn passes(&self, record: &TaskRecord) -> bool {
        record.is_success()
            && self.require_data.as_ref().is_none_or(|required| {
                required.iter().all(|(key, expected)| {
                    let actual = record.data.as_ref().and_then(|data| data.get(key));
                    actual.is_some_and(|actual| strictly_equal(actual, expected))
                })
            })
    }
}

/// JavaScript `===` on JSON values: same type and same value; numbers compare as doubles;
/// two objects or arrays are never the same object.
fn strictly_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(a), Value::String(b)) => a == b,
        _ => false,
    }
}

/// Builds the spec of a config's `scoring` object (already checked by config validation):
/// the config's `dimensions`, `groupBy` when truthy, `success.requireData`, and each metric
/// named by its `key` (whose data field it reads) with its unit resolved as upstream does —
/// when `display.metrics` is declared, its unit for the key wins over the metric's own — and
/// always set, `""` when neither declares one. Missing or malformed fields never panic: a
/// missing number reads as NaN (as JavaScript reads `undefined` in arithmetic), a missing
/// optional number as absent, a missing list as empty.
pub(crate) fn scoring_config_to_spec(
    scoring: &Value,
    dimensions: Option<&Value>,
    display: Option<&Value>,
) -> ScoringSpec {
    let display_metrics = display.and_then(|display| display.get("metrics"));
    ScoringSpec {
        dimensions: dimensions
            .and_then(Value::as_object)
            .map(dimensions::normalized),
        group_by: scoring
            .get("groupBy")
            .filter(|group_by| is_truthy(group_by))
            .map(js::value_to_string),
        require_data: scoring
            .get("success")
            .filter(|success| is_truthy(success))
            .map(|success| {
                success
                    .get("requireData")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default()
            }),
        metrics: scoring
            .get("metrics")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|metric| metric_from_config(metric, display_metrics))
            .collect(),
    }
}

fn metric_from_config(metric: &Value, display_metrics: Option<&Value>) -> MetricScoring {
    let key = metric
        .get("key")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let own_unit = metric.get("unit").and_then(Value::as_str);
    let unit = match display_metrics {
        None => own_unit,
        Some(display_metrics) => display_unit(display_metrics, key).or(own_unit),
    };
    let weights = metric.get("weights");
    let weight = |name: &str| number_or_nan(weights.and_then(|weights| weights.get(name)));
    MetricScoring {
        name: key.to_owned(),
        value_key: None,
        unit: Some(unit.unwrap_or_default().to_owned()),
        ceiling: number_or_nan(metric.get("ceiling")),
        floor: metric.get("floor").and_then(Value::as_f64),
        higher_is_better: metric.get("higherIsBetter").is_some_and(is_truthy),
        weights: Weights {
            median: weight("median"),
            p95: weight("p95"),
            p99: weight("p99"),
        },
        trim: metric.get("trim").and_then(Value::as_f64),
    }
}

fn number_or_nan(value: Option<&Value>) -> f64 {
    value.and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// JavaScript truthiness of a JSON value.
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|x| x != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::test_support::record;
    use bench_model::record::Status;
    use serde_json::json;

    fn tti_config(unit: Option<&str>) -> Value {
        let mut metric = json!({
            "key": "ttiMs",
            "ceiling": 10000,
            "weights": {"median": 1, "p95": 0, "p99": 0}
        });
        if let Some(unit) = unit {
            metric["unit"] = json!(unit);
        }
        json!({ "metrics": [metric] })
    }

    fn unit_of(spec: &ScoringSpec) -> Option<&str> {
        spec.metrics[0].unit.as_deref()
    }

    #[test]
    fn un3_display_unit_fills_a_unitless_metric() {
        let display =
            json!({"metrics": [{"key": "ttiMs", "label": "Time to interactive", "unit": "ms"}]});
        let spec = scoring_config_to_spec(&tti_config(None), None, Some(&display));
        assert_eq!(spec.metrics[0].name, "ttiMs");
        assert_eq!(unit_of(&spec), Some("ms"));
    }

    #[test]
    fn un4_metric_unit_without_display() {
        let spec = scoring_config_to_spec(&tti_config(Some("ms")), None, None);
        assert_eq!(unit_of(&spec), Some("ms"));
    }

    #[test]
    fn un5_display_unit_overrides_the_metric_unit() {
        let display = json!({"metrics": [{"key": "ttiMs", "label": "TTI", "unit": "ms"}]});
        let spec = scoring_config_to_spec(&tti_config(Some("s")), None, Some(&display));
        assert_eq!(unit_of(&spec), Some("ms"));
    }

    #[test]
    fn un6_no_unit_anywhere_is_empty() {
        let spec = scoring_config_to_spec(&tti_config(None), None, None);
        assert_eq!(unit_of(&spec), Some(""));
        let display = json!({"overview": {"defaultMetric": "ttiMs"}});
        let spec = scoring_config_to_spec(&tti_config(None), None, Some(&display));
        assert_eq!(unit_of(&spec), Some(""));
    }

    #[test]
    fn un7_display_without_the_key_keeps_the_metric_unit() {
        let display = json!({"metrics": [{"key": "other", "label": "Other", "unit": "s"}]});
        let spec = scoring_config_to_spec(&tti_config(Some("ms")), None, Some(&display));
        assert_eq!(unit_of(&spec), Some("ms"));
        let display = json!({"metrics": [{"key": "ttiMs", "label": "TTI"}]});
        let spec = scoring_config_to_spec(&tti_config(Some("ms")), None, Some(&display));
        assert_eq!(unit_of(&spec), Some("ms"));
    }

    #[test]
    fn metric_fields_are_mapped() {
        let scoring = json!({
            "groupBy": "file_size",
            "metrics": [{
                "key": "throughputMbps", "label": "Throughput", "unit": "Mbps",
                "ceiling": 1000, "floor": 1, "higherIsBetter": true,
                "weights": {"median": 0.5, "p95": 0.3, "p99": 0.2}, "trim": 0.1
            }]
        });
        let spec =
            scoring_config_to_spec(&scoring, Some(&json!({"region": "eu", "cpus": 2.0})), None);
        assert_eq!(
            spec,
            ScoringSpec {
                dimensions: json!({"region": "eu", "cpus": 2}).as_object().cloned(),
                group_by: Some("file_size".into()),
                require_data: None,
                metrics: vec![MetricScoring {
                    name: "throughputMbps".into(),
                    value_key: None,
                    unit: Some("Mbps".into()),
                    ceiling: 1000.0,
                    floor: Some(1.0),
                    higher_is_better: true,
                    weights: Weights {
                        median: 0.5,
                        p95: 0.3,
                        p99: 0.2
                    },
                    trim: Some(0.1),
                }],
            }
        );
        assert_eq!(spec.metrics[0].data_key(), "throughputMbps");
    }

    #[test]
    fn falsy_group_by_and_absent_fields_are_left_out() {
        let scoring = json!({"groupBy": "", "metrics": [{"key": "x", "ceiling": 5, "weights": {"median": 1, "p95": 0, "p99": 0}}]});
        let spec = scoring_config_to_spec(&scoring, None, None);
        assert_eq!(spec.dimensions, None);
        assert_eq!(spec.group_by, None);
        assert_eq!(spec.require_data, None);
        let metric = &spec.metrics[0];
        assert_eq!(
            (metric.floor, metric.trim, metric.higher_is_better),
            (None, None, false)
        );
    }

    #[test]
    fn odd_input_does_not_panic() {
        assert_eq!(
            scoring_config_to_spec(&json!(null), None, None),
            ScoringSpec::default()
        );
        let spec = scoring_config_to_spec(
            &json!({"metrics": [7]}),
            Some(&json!([1])),
            Some(&json!("x")),
        );
        let metric = &spec.metrics[0];
        assert_eq!(metric.name, "");
        assert!(metric.ceiling.is_nan() && metric.weights.median.is_nan());
        assert_eq!(spec.dimensions, None);
    }

    fn verified_spec(require_data: Value) -> ScoringSpec {
        let scoring = json!({
            "success": {"requireData": require_data},
            "metrics": [{"key": "forkMs", "unit": "ms", "ceiling": 1000, "weights": {"median": 1, "p95": 0, "p99": 0}}]
        });
        scoring_config_to_spec(&scoring, None, None)
    }

    #[test]
    fn require_data_compares_strictly() {
        let spec = verified_spec(json!({"verified": true}));
        assert!(spec.passes(&record(
            Status::Success,
            json!({"verified": true, "forkMs": 100})
        )));
        assert!(!spec.passes(&record(Status::Success, json!({"verified": false}))));
        assert!(!spec.passes(&record(Status::Success, json!({"verified": "true"}))));
        assert!(!spec.passes(&record(Status::Success, json!({}))));
        assert!(!spec.passes(&record(Status::Success, Value::Null)));
    }

    #[test]
    fn sr3_a_number_is_not_its_string() {
        let spec = verified_spec(json!({"actionsCompleted": 24}));
        assert!(!spec.passes(&record(Status::Success, json!({"actionsCompleted": "24"}))));
        assert!(spec.passes(&record(Status::Success, json!({"actionsCompleted": 24}))));
        assert!(spec.passes(&record(Status::Success, json!({"actionsCompleted": 24.0}))));
    }

    #[test]
    fn sr4_an_error_record_never_passes() {
        let spec = verified_spec(json!({"verified": true}));
        assert!(!spec.passes(&record(Status::Error, json!({"verified": true}))));
        assert!(!ScoringSpec::default().passes(&record(Status::Error, json!({}))));
        assert!(ScoringSpec::default().passes(&record(Status::Success, Value::Null)));
    }
}
