//! The scoring spec (spec §4.1) and how a config's serializable `scoring` object becomes
//! one (spec §4.8, `scoringConfigToSpec`).

use super::dimensions;
use bench_model::config::{DisplaySection, ScoredMetric, ScoringSection, Weights};
use bench_model::record::TaskRecord;
use serde_json::{Map, Value};

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

/// Builds the spec of a config's `scoring` section: the config's `dimensions`, the
/// section's grouping and success rule, and each metric named by its `key` (whose data field
/// it reads) with its unit resolved as upstream does — when `display.metrics` declares a unit
/// for the key, it wins over the metric's own — and always set, `""` when neither declares one.
pub(crate) fn scoring_config_to_spec(
    scoring: &ScoringSection,
    dimensions: Option<&Map<String, Value>>,
    display: Option<&DisplaySection>,
) -> ScoringSpec {
    ScoringSpec {
        dimensions: dimensions.map(dimensions::normalized),
        group_by: scoring.group_by.clone(),
        require_data: scoring.require_data.clone(),
        metrics: scoring
            .metrics
            .iter()
            .map(|metric| metric_from_config(metric, display))
            .collect(),
    }
}

fn metric_from_config(metric: &ScoredMetric, display: Option<&DisplaySection>) -> MetricScoring {
    let unit = display
        .and_then(|display| display.unit(&metric.key))
        .or(metric.unit.as_deref());
    MetricScoring {
        name: metric.key.clone(),
        value_key: None,
        unit: Some(unit.unwrap_or_default().to_owned()),
        ceiling: metric.ceiling,
        floor: metric.floor,
        higher_is_better: metric.higher_is_better,
        weights: metric.weights,
        trim: metric.trim,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::test_support::record;
    use bench_model::config::Section;
    use bench_model::record::Status;
    use serde_json::json;

    /// The spec of declared `scoring`, `dimensions` and `display` JSON.
    fn spec_of(
        scoring: &Value,
        dimensions: Option<&Value>,
        display: Option<&Value>,
    ) -> ScoringSpec {
        let display = display.map(DisplaySection::read);
        scoring_config_to_spec(
            &ScoringSection::read(scoring),
            dimensions.and_then(Value::as_object),
            display.as_ref(),
        )
    }

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
        let spec = spec_of(&tti_config(None), None, Some(&display));
        assert_eq!(spec.metrics[0].name, "ttiMs");
        assert_eq!(unit_of(&spec), Some("ms"));
    }

    #[test]
    fn un4_metric_unit_without_display() {
        let spec = spec_of(&tti_config(Some("ms")), None, None);
        assert_eq!(unit_of(&spec), Some("ms"));
    }

    #[test]
    fn un5_display_unit_overrides_the_metric_unit() {
        let display = json!({"metrics": [{"key": "ttiMs", "label": "TTI", "unit": "ms"}]});
        let spec = spec_of(&tti_config(Some("s")), None, Some(&display));
        assert_eq!(unit_of(&spec), Some("ms"));
    }

    #[test]
    fn un6_no_unit_anywhere_is_empty() {
        let spec = spec_of(&tti_config(None), None, None);
        assert_eq!(unit_of(&spec), Some(""));
        let display = json!({"overview": {"defaultMetric": "ttiMs"}});
        let spec = spec_of(&tti_config(None), None, Some(&display));
        assert_eq!(unit_of(&spec), Some(""));
    }

    #[test]
    fn un7_display_without_the_key_keeps_the_metric_unit() {
        let display = json!({"metrics": [{"key": "other", "label": "Other", "unit": "s"}]});
        let spec = spec_of(&tti_config(Some("ms")), None, Some(&display));
        assert_eq!(unit_of(&spec), Some("ms"));
        let display = json!({"metrics": [{"key": "ttiMs", "label": "TTI"}]});
        let spec = spec_of(&tti_config(Some("ms")), None, Some(&display));
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
        let spec = spec_of(&scoring, Some(&json!({"region": "eu", "cpus": 2.0})), None);
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
        let spec = spec_of(&scoring, None, None);
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
        assert_eq!(spec_of(&json!(null), None, None), ScoringSpec::default());
        let spec = spec_of(
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
        spec_of(&scoring, None, None)
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
