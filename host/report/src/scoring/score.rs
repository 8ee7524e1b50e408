//! Scoring (spec §4.4–§4.6): each statistic on a 0–100 scale, weighted per metric, summed
//! per participant (and per group of its records) and scaled by the success rate.

use super::dimensions;
use super::row::{MetricSummary, SummaryRow};
use super::samples::{GroupSamples, ParticipantSamples};
use super::spec::{MetricScoring, ScoringSpec};
use super::stats::{compute_stats, Stats, DEFAULT_TRIM};
use super::validate::{validate_scoring_spec, ScoringSpecError};
use bench_model::config::DisplaySection;
use bench_model::js;
use serde_json::{Map, Value};

/// Scores one statistic. Higher is better: 0 at or below `floor` (default 0), 100 at or
/// above `ceiling`, linear between. Lower is better: `max(0, 100 × (1 − stat / ceiling))`,
/// with no upper clamp (a negative stat scores above 100) and `floor` ignored; a zero
/// ceiling gives what JavaScript gives (0, +∞ or NaN).
pub(crate) fn score_stat(stat: f64, metric: &MetricScoring) -> f64 {
    if metric.higher_is_better {
        let floor = metric.floor.unwrap_or(0.0);
        if stat <= floor {
            0.0
        } else if stat >= metric.ceiling {
            100.0
        } else {
            (stat - floor) / (metric.ceiling - floor) * 100.0
        }
    } else {
        let score = 100.0 * (1.0 - stat / metric.ceiling);
        // JavaScript's `Math.max(0, NaN)` is NaN, where Rust's `f64::max` would give 0.
        if score.is_nan() {
            score
        } else {
            score.max(0.0)
        }
    }
}

/// `w.median·S(median) + w.p95·S(p95) + w.p99·S(p99)`, added left to right.
fn weighted_metric_score(stats: &Stats, metric: &MetricScoring) -> f64 {
    let weights = &metric.weights;
    weights.median * score_stat(stats.median, metric)
        + weights.p95 * score_stat(stats.p95, metric)
        + weights.p99 * score_stat(stats.p99, metric)
}

/// Scores every participant's samples: after validating the spec (the only error), one row
/// over all of a participant's records, then — when the spec groups by a data field and
/// the participant has records — one row per distinct value of that field, in order of
/// first appearance (records lacking the field get a row whose dimensions equal the first
/// row's, as upstream's). `display` is the config's display manifest, consulted for the unit
/// of metrics that declare none.
pub fn score(
    participants: Vec<ParticipantSamples>,
    spec: &ScoringSpec,
    display: Option<&DisplaySection>,
) -> Result<Vec<SummaryRow>, ScoringSpecError> {
    validate_scoring_spec(spec)?;
    let scorer = GroupScorer {
        spec,
        base_dimensions: spec
            .dimensions
            .as_ref()
            .map(dimensions::normalized)
            .unwrap_or_default(),
        display,
    };
    let group_key = spec.group_key();
    let mut rows = Vec::new();
    for participant in participants {
        let provider = participant.provider.as_str();
        rows.push(scorer.row(provider, participant.all, None));
        if let Some(key) = group_key {
            for (value, group) in participant.groups {
                let group_entry = value.as_ref().map(|value| (key, value));
                rows.push(scorer.row(provider, group, group_entry));
            }
        }
    }
    Ok(rows)
}

/// What scoring one group of records needs besides the records.
struct GroupScorer<'a> {
    spec: &'a ScoringSpec,
    base_dimensions: Map<String, Value>,
    display: Option<&'a DisplaySection>,
}

impl GroupScorer<'_> {
    /// The summary row of one group of records; `group_entry` is the grouping field and its
    /// value on a grouped row.
    fn row(
        &self,
        provider: &str,
        group: GroupSamples,
        group_entry: Option<(&str, &Value)>,
    ) -> SummaryRow {
        let success_rate = if group.records == 0 {
            0.0
        } else {
            group.passing as f64 / group.records as f64
        };

        let mut metric_scores_sum = 0.0;
        let mut metrics = Vec::new();
        for (metric, mut samples) in self.spec.metrics.iter().zip(group.columns) {
            // Without samples a metric neither shows nor counts; the other weights are not
            // renormalized.
            if samples.is_empty() {
                continue;
            }
            let stats = compute_stats(&mut samples, metric.trim.unwrap_or(DEFAULT_TRIM));
            metric_scores_sum += weighted_metric_score(&stats, metric);
            metrics.push(MetricSummary {
                name: metric.name.clone(),
                unit: self.unit(metric),
                median: stats.median,
                p95: stats.p95,
                p99: stats.p99,
            });
        }

        let composite_score = if success_rate == 0.0 {
            0.0
        } else {
            js::math_round(metric_scores_sum * success_rate * 100.0) / 100.0
        };
        let dimensions = match group_entry {
            Some((key, value)) => dimensions::with_group_value(&self.base_dimensions, key, value),
            None => self.base_dimensions.clone(),
        };
        SummaryRow {
            provider: provider.to_owned(),
            dimensions,
            metrics,
            composite_score,
            success_rate,
            skipped: group.records == 0,
        }
    }

    /// The metric's own unit, else the display unit for its name, else `""`.
    fn unit(&self, metric: &MetricScoring) -> String {
        let display = || self.display.and_then(|display| display.unit(&metric.name));
        metric
            .unit
            .as_deref()
            .or_else(display)
            .unwrap_or_default()
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::spec::scoring_config_to_spec;
    use crate::scoring::test_support::{higher_is_better, lower_is_better, record, score_records};
    use bench_model::config::{ScoringSection, Section};
    use bench_model::record::Status;
    use bench_model::record::TaskRecord;
    use serde_json::json;

    fn success(data: Value) -> TaskRecord {
        record(Status::Success, data)
    }

    fn error(data: Value) -> TaskRecord {
        record(Status::Error, data)
    }

    fn spec(metrics: Vec<MetricScoring>) -> ScoringSpec {
        ScoringSpec {
            metrics,
            ..ScoringSpec::default()
        }
    }

    fn score_one(records: Vec<TaskRecord>, spec: &ScoringSpec) -> Vec<SummaryRow> {
        score_records(&[("p".to_owned(), records)], spec, None).expect("a valid spec")
    }

    fn metric_summary(name: &str, unit: &str, [median, p95, p99]: [f64; 3]) -> MetricSummary {
        MetricSummary {
            name: name.into(),
            unit: unit.into(),
            median,
            p95,
            p99,
        }
    }

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn score_stat_table() {
        let lower_1000 = lower_is_better("x", 1000.0, [1.0, 0.0, 0.0]);
        let lower_10000 = lower_is_better("x", 10000.0, [1.0, 0.0, 0.0]);
        let higher = higher_is_better("x", Some(1.0), 1000.0, [1.0, 0.0, 0.0]);
        let higher_from_zero = higher_is_better("x", None, 1000.0, [1.0, 0.0, 0.0]);
        let table = [
            (&lower_1000, 100.0, 90.0),
            (&lower_1000, 250.0, 75.0),
            (&lower_10000, 12000.0, 0.0),
            (&lower_1000, -100.0, 110.00000000000001),
            (&higher, 500.5, 50.0),
            (&higher, 0.5, 0.0),
            (&higher, 1.0, 0.0),
            (&higher, 2000.0, 100.0),
            (&higher_from_zero, 250.0, 25.0),
        ];
        for (metric, stat, expected) in table {
            assert_eq!(score_stat(stat, metric), expected, "{stat} with {metric:?}");
        }
    }

    #[test]
    fn lower_is_better_ignores_floor() {
        let metric = MetricScoring {
            floor: Some(500.0),
            ..lower_is_better("x", 1000.0, [1.0, 0.0, 0.0])
        };
        assert_eq!(score_stat(100.0, &metric), 90.0);
    }

    #[test]
    fn zero_ceiling_behaves_as_javascript() {
        let metric = lower_is_better("x", 0.0, [1.0, 0.0, 0.0]);
        assert!(score_stat(0.0, &metric).is_nan());
        assert_eq!(score_stat(5.0, &metric), 0.0);
        assert_eq!(score_stat(-5.0, &metric), f64::INFINITY);
    }

    fn upload_spec() -> ScoringSpec {
        ScoringSpec {
            group_by: Some("file_size".into()),
            metrics: vec![MetricScoring {
                unit: Some("ms".into()),
                ..lower_is_better("uploadMs", 1000.0, [1.0, 0.0, 0.0])
            }],
            ..ScoringSpec::default()
        }
    }

    #[test]
    fn sg1_a_row_for_all_records_then_one_per_group() {
        let records = vec![
            success(json!({"file_size": "1MB", "uploadMs": 100})),
            success(json!({"file_size": "4MB", "uploadMs": 400})),
        ];
        let rows = score_records(&[("aws-s3".to_owned(), records)], &upload_spec(), None).unwrap();
        let expected_row = |dimensions: Value, stats: [f64; 3], composite_score: f64| SummaryRow {
            provider: "aws-s3".into(),
            dimensions: object(dimensions),
            metrics: vec![metric_summary("uploadMs", "ms", stats)],
            composite_score,
            success_rate: 1.0,
            skipped: false,
        };
        assert_eq!(
            rows,
            [
                expected_row(json!({}), [250.0, 400.0, 400.0], 75.0),
                expected_row(json!({"file_size": "1MB"}), [100.0; 3], 90.0),
                expected_row(json!({"file_size": "4MB"}), [400.0; 3], 60.0),
            ]
        );
        assert_eq!(
            serde_json::to_string(&rows[0]).unwrap(),
            r#"{"provider":"aws-s3","dimensions":{},"metrics":[{"name":"uploadMs","unit":"ms","median":250,"p95":400,"p99":400}],"compositeScore":75,"successRate":1,"skipped":false}"#
        );
    }

    #[test]
    fn sg2_failures_lower_the_success_rate_of_every_row() {
        let records = vec![
            success(json!({"file_size": "1MB", "uploadMs": 100})),
            error(json!({"file_size": "1MB"})),
        ];
        let rows = score_one(records, &upload_spec());
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].dimensions, object(json!({"file_size": "1MB"})));
        for row in &rows {
            assert_eq!(row.success_rate, 0.5);
            assert_eq!(row.metrics, [metric_summary("uploadMs", "ms", [100.0; 3])]);
            assert_eq!(row.composite_score, 45.0);
        }
    }

    #[test]
    fn sg3_a_participant_without_records_is_one_skipped_row() {
        let rows =
            score_records(&[("aws-s3".to_owned(), Vec::new())], &upload_spec(), None).unwrap();
        assert_eq!(
            rows,
            [SummaryRow {
                provider: "aws-s3".into(),
                dimensions: Map::new(),
                metrics: Vec::new(),
                composite_score: 0.0,
                success_rate: 0.0,
                skipped: true,
            }]
        );
        assert_eq!(
            serde_json::to_string(&rows[0]).unwrap(),
            r#"{"provider":"aws-s3","dimensions":{},"metrics":[],"compositeScore":0,"successRate":0,"skipped":true}"#
        );
    }

    #[test]
    fn records_lacking_the_group_field_repeat_the_all_row_dimensions() {
        let spec = ScoringSpec {
            dimensions: Some(object(
                json!({"region": "eu", "file_size": "any", "cpus": 2.0}),
            )),
            ..upload_spec()
        };
        let records = vec![
            success(json!({"uploadMs": 300})),
            success(json!({"file_size": 1, "uploadMs": 100})),
            success(json!({"file_size": null, "uploadMs": 200})),
        ];
        let rows = score_one(records, &spec);
        let dimensions: Vec<String> = rows
            .iter()
            .map(|row| Value::Object(row.dimensions.clone()).to_string())
            .collect();
        assert_eq!(
            dimensions,
            [
                r#"{"region":"eu","file_size":"any","cpus":2}"#,
                r#"{"region":"eu","file_size":"any","cpus":2}"#,
                r#"{"region":"eu","file_size":1,"cpus":2}"#,
                r#"{"region":"eu","file_size":null,"cpus":2}"#,
            ]
        );
        assert_eq!(
            rows[1].metrics,
            [metric_summary("uploadMs", "ms", [300.0; 3])]
        );
    }

    #[test]
    fn participants_keep_their_order_and_an_empty_group_key_does_not_group() {
        let spec = ScoringSpec {
            group_by: Some(String::new()),
            ..upload_spec()
        };
        let participants = [
            (
                "b".to_owned(),
                vec![success(json!({"file_size": "1MB", "uploadMs": 100}))],
            ),
            (
                "a".to_owned(),
                vec![success(json!({"file_size": "1MB", "uploadMs": 100}))],
            ),
        ];
        let rows = score_records(&participants, &spec, None).unwrap();
        let providers: Vec<&str> = rows.iter().map(|row| row.provider.as_str()).collect();
        assert_eq!(providers, ["b", "a"]);
    }

    fn duration_spec(unit: Option<&str>) -> ScoringSpec {
        spec(vec![MetricScoring {
            unit: unit.map(str::to_owned),
            ..lower_is_better("durationMs", 500.0, [1.0, 0.0, 0.0])
        }])
    }

    fn duration_row(spec: &ScoringSpec) -> SummaryRow {
        let display = DisplaySection::read(
            &json!({"metrics": [{"key": "durationMs", "label": "Duration", "unit": "ms"}]}),
        );
        let records = vec![success(json!({"durationMs": 100}))];
        let rows = score_records(&[("p".to_owned(), records)], spec, Some(&display)).unwrap();
        rows.into_iter().next().expect("one row")
    }

    #[test]
    fn un1_display_unit_fills_a_unitless_metric() {
        let row = duration_row(&duration_spec(None));
        assert_eq!(
            row.metrics,
            [metric_summary("durationMs", "ms", [100.0; 3])]
        );
        assert_eq!(row.composite_score, 80.0);
    }

    #[test]
    fn un2_metric_unit_beats_display() {
        assert_eq!(duration_row(&duration_spec(Some("s"))).metrics[0].unit, "s");
    }

    #[test]
    fn un8_an_empty_unit_is_not_replaced() {
        assert_eq!(duration_row(&duration_spec(Some(""))).metrics[0].unit, "");
    }

    #[test]
    fn no_unit_anywhere_is_empty() {
        let rows = score_one(
            vec![success(json!({"durationMs": 100}))],
            &duration_spec(None),
        );
        assert_eq!(rows[0].metrics[0].unit, "");
    }

    fn tigris_records() -> Vec<TaskRecord> {
        vec![
            success(json!({"verified": true, "forkMs": 100})),
            success(json!({"verified": false, "forkMs": 900})),
        ]
    }

    fn fork_config(success_rule: Option<Value>) -> ScoringSection {
        let mut scoring = json!({
            "metrics": [{"key": "forkMs", "unit": "ms", "ceiling": 1000, "weights": {"median": 1, "p95": 0, "p99": 0}}]
        });
        if let Some(rule) = success_rule {
            scoring["success"] = rule;
        }
        ScoringSection::read(&scoring)
    }

    #[test]
    fn sr1_require_data_filters_passing_records() {
        let spec = scoring_config_to_spec(
            &fork_config(Some(json!({"requireData": {"verified": true}}))),
            None,
            None,
        );
        let rows = score_records(&[("tigris".to_owned(), tigris_records())], &spec, None).unwrap();
        assert_eq!(rows[0].success_rate, 0.5);
        assert_eq!(
            rows[0].metrics,
            [metric_summary("forkMs", "ms", [100.0; 3])]
        );
        assert_eq!(rows[0].composite_score, 45.0);
    }

    #[test]
    fn sr2_without_a_success_rule_every_success_passes() {
        let spec = scoring_config_to_spec(&fork_config(None), None, None);
        let rows = score_records(&[("tigris".to_owned(), tigris_records())], &spec, None).unwrap();
        assert_eq!(rows[0].success_rate, 1.0);
        assert_eq!(
            rows[0].metrics,
            [metric_summary("forkMs", "ms", [500.0, 900.0, 900.0])]
        );
        assert_eq!(rows[0].composite_score, 50.0);
    }

    fn tti_spec() -> ScoringSpec {
        spec(vec![lower_is_better("ttiMs", 10000.0, [0.6, 0.25, 0.15])])
    }

    fn tti_records(values: &[f64]) -> Vec<TaskRecord> {
        values
            .iter()
            .map(|ms| success(json!({"ttiMs": ms})))
            .collect()
    }

    #[test]
    fn cs1_composite_of_a_fully_successful_run() {
        let rows = score_one(
            tti_records(&[100.0, 200.0, 300.0, 400.0, 500.0]),
            &tti_spec(),
        );
        assert_eq!(rows[0].success_rate, 1.0);
        assert_eq!(
            rows[0].metrics,
            [metric_summary("ttiMs", "", [300.0, 500.0, 500.0])]
        );
        assert_eq!(rows[0].composite_score, 96.2);
    }

    #[test]
    fn cs2_composite_scaled_by_an_unrounded_success_rate() {
        let mut records = tti_records(&[100.0, 200.0, 300.0, 400.0, 500.0]);
        records.push(error(json!({"ttiMs": 50})));
        let rows = score_one(records, &tti_spec());
        assert_eq!(rows[0].success_rate, 0.8333333333333334);
        assert_eq!(
            rows[0].metrics,
            [metric_summary("ttiMs", "", [300.0, 500.0, 500.0])]
        );
        assert_eq!(rows[0].composite_score, 80.17);
        let text = serde_json::to_string(&rows[0]).unwrap();
        assert!(text.ends_with(
            r#""compositeScore":80.17,"successRate":0.8333333333333334,"skipped":false}"#
        ));
    }

    #[test]
    fn cs3_stats_beyond_the_ceiling_score_zero() {
        let rows = score_one(tti_records(&[12000.0, 8000.0]), &tti_spec());
        assert_eq!(rows[0].success_rate, 1.0);
        assert_eq!(
            rows[0].metrics,
            [metric_summary("ttiMs", "", [10000.0, 12000.0, 12000.0])]
        );
        assert_eq!(rows[0].composite_score, 0.0);
    }

    #[test]
    fn cs10_no_passing_records_scores_zero_without_skipping() {
        let spec = spec(vec![lower_is_better("x", 1000.0, [1.0, 0.0, 0.0])]);
        let rows = score_one(vec![error(json!({"x": 1})), error(json!({"x": 2}))], &spec);
        assert_eq!(rows[0].success_rate, 0.0);
        assert!(rows[0].metrics.is_empty());
        assert_eq!(rows[0].composite_score, 0.0);
        assert!(!rows[0].skipped);
    }

    #[test]
    fn metrics_without_samples_are_dropped_without_renormalizing() {
        let spec = spec(vec![
            lower_is_better("a", 1000.0, [0.5, 0.0, 0.0]),
            lower_is_better("b", 1000.0, [0.5, 0.0, 0.0]),
        ]);
        let rows = score_one(vec![success(json!({"b": 100}))], &spec);
        assert_eq!(rows[0].metrics, [metric_summary("b", "", [100.0; 3])]);
        assert_eq!(rows[0].composite_score, 45.0);
    }

    #[test]
    fn value_key_and_trim_are_honoured() {
        let metric = MetricScoring {
            value_key: Some("samples".into()),
            trim: Some(0.25),
            ..lower_is_better("latency", 1000.0, [1.0, 0.0, 0.0])
        };
        let rows = score_one(
            vec![success(json!({"samples": [1, 500, 600, 1000]}))],
            &spec(vec![metric]),
        );
        assert_eq!(
            rows[0].metrics,
            [metric_summary("latency", "", [550.0, 600.0, 600.0])]
        );
        assert_eq!(rows[0].composite_score, 45.0);
    }

    #[test]
    fn an_invalid_spec_is_an_error() {
        let spec = spec(vec![lower_is_better("ttiMs", 1000.0, [0.5, 0.2, 0.1])]);
        let error = score(Vec::new(), &spec, None).unwrap_err();
        assert!(error
            .to_string()
            .starts_with("Scoring spec weights sum to 0.800"));
    }
}
