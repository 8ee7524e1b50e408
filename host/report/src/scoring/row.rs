//! Summary rows (upstream `BenchmarkScoreResult`) and their JSON shape: keys in upstream's
//! order, numbers printed as JavaScript prints them (`75`, not `75.0`).

use bench_model::js;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The statistics of one scored metric in a summary row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    /// Metric name.
    pub name: String,
    /// Unit (`""` when none is declared).
    pub unit: String,
    /// Median of the (trimmed) samples.
    #[serde(with = "js::number_serde")]
    pub median: f64,
    /// Nearest-rank 95th percentile.
    #[serde(with = "js::number_serde")]
    pub p95: f64,
    /// Nearest-rank 99th percentile.
    #[serde(with = "js::number_serde")]
    pub p99: f64,
}

/// The scores of one participant, or of one group of its records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRow {
    /// Participant name.
    pub provider: String,
    /// The spec's static tags, plus the group field and value on a grouped row.
    pub dimensions: Map<String, Value>,
    /// Metrics that had samples, in spec order.
    pub metrics: Vec<MetricSummary>,
    /// Weighted 0–100 score scaled by the success rate, rounded to 2 decimals.
    #[serde(with = "js::number_serde")]
    pub composite_score: f64,
    /// Passing records / all records (0 without records), not rounded.
    #[serde(with = "js::number_serde")]
    pub success_rate: f64,
    /// True when the participant (or group) has no records.
    pub skipped: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row() -> SummaryRow {
        SummaryRow {
            provider: "aws-s3".into(),
            dimensions: json!({"file_size": "1MB"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            metrics: vec![MetricSummary {
                name: "uploadMs".into(),
                unit: "ms".into(),
                median: 250.0,
                p95: 400.5,
                p99: 400.0,
            }],
            composite_score: 75.0,
            success_rate: 0.8333333333333334,
            skipped: false,
        }
    }

    const ROW_JSON: &str = r#"{"provider":"aws-s3","dimensions":{"file_size":"1MB"},"metrics":[{"name":"uploadMs","unit":"ms","median":250,"p95":400.5,"p99":400}],"compositeScore":75,"successRate":0.8333333333333334,"skipped":false}"#;

    #[test]
    fn serializes_in_upstream_key_order_with_javascript_numbers() {
        assert_eq!(serde_json::to_string(&row()).unwrap(), ROW_JSON);
    }

    #[test]
    fn a_saved_row_reads_back() {
        assert_eq!(serde_json::from_str::<SummaryRow>(ROW_JSON).unwrap(), row());
    }

    #[test]
    fn non_finite_scores_print_as_null_and_read_back_as_nan() {
        let row = SummaryRow {
            composite_score: f64::NAN,
            ..row()
        };
        let text = serde_json::to_string(&row).unwrap();
        assert!(text.contains(r#""compositeScore":null"#));
        let back: SummaryRow = serde_json::from_str(&text).unwrap();
        assert!(back.composite_score.is_nan());
    }
}
