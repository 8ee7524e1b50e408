//! `--export-csv`: one line per summary row and metric (a row without metrics still gets
//! one line, with empty metric fields), numbers at full precision.
//!
//! Scored: `participant,dimensions,metric,unit,median,p95,p99,success_rate,composite_score`
//! (`dimensions` is the row's dimensions as JSON). Unscored:
//! `participant,tasks,success_rate,metric,unit,samples,median,p95,p99`.

use super::Exporter;
use crate::summary::{Summary, Verdict};
use anyhow::Result;
use bench_model::js;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// Writes the summary as CSV.
pub(super) struct CsvExporter;

impl Exporter for CsvExporter {
    fn write(&self, summary: &Summary, _records: &Path, out: &mut dyn Write) -> Result<()> {
        let mut out = ::csv::Writer::from_writer(out);
        let number = js::number_to_string;
        match &summary.verdict {
            Verdict::Scored { results, .. } => {
                out.write_record([
                    "participant",
                    "dimensions",
                    "metric",
                    "unit",
                    "median",
                    "p95",
                    "p99",
                    "success_rate",
                    "composite_score",
                ])?;
                for row in results {
                    let dimensions = Value::Object(row.dimensions.clone()).to_string();
                    let metrics: Vec<[String; 5]> = row
                        .metrics
                        .iter()
                        .map(|m| {
                            [
                                m.name.clone(),
                                m.unit.clone(),
                                number(m.median),
                                number(m.p95),
                                number(m.p99),
                            ]
                        })
                        .collect();
                    for metric in or_one_empty(metrics) {
                        out.write_record(
                            [row.provider.clone(), dimensions.clone()]
                                .into_iter()
                                .chain(metric)
                                .chain([number(row.success_rate), number(row.composite_score)]),
                        )?;
                    }
                }
            }
            Verdict::Unscored(participants) => {
                out.write_record([
                    "participant",
                    "tasks",
                    "success_rate",
                    "metric",
                    "unit",
                    "samples",
                    "median",
                    "p95",
                    "p99",
                ])?;
                for participant in participants {
                    let metrics: Vec<[String; 6]> = participant
                        .metrics
                        .iter()
                        .map(|m| {
                            [
                                m.name.clone(),
                                m.unit.clone(),
                                m.samples.to_string(),
                                number(m.stats.median),
                                number(m.stats.p95),
                                number(m.stats.p99),
                            ]
                        })
                        .collect();
                    for metric in or_one_empty(metrics) {
                        out.write_record(
                            [
                                participant.participant.clone(),
                                participant.tasks.to_string(),
                                number(participant.success_rate()),
                            ]
                            .into_iter()
                            .chain(metric),
                        )?;
                    }
                }
            }
        }
        out.flush()?;
        Ok(())
    }
}

/// The metric fields of each line; one line of empty fields when there are none.
fn or_one_empty<const N: usize>(metrics: Vec<[String; N]>) -> Vec<[String; N]> {
    if metrics.is_empty() {
        vec![std::array::from_fn(|_| String::new())]
    } else {
        metrics
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::{MetricSummary, SummaryRow};
    use serde_json::json;

    #[test]
    fn quotes_fields_and_keeps_full_precision() {
        let summary = Summary {
            benchmark_slug: "s".into(),
            benchmark_name: "S".into(),
            run: Default::default(),
            verdict: Verdict::Scored {
                results: vec![
                    SummaryRow {
                        provider: "a,b".into(),
                        dimensions: json!({"size": "1MB"}).as_object().cloned().unwrap(),
                        metrics: vec![MetricSummary {
                            name: "ms".into(),
                            unit: "ms".into(),
                            median: 1.5,
                            p95: 2.0,
                            p99: 2.0,
                        }],
                        composite_score: 80.17,
                        success_rate: 0.8333333333333334,
                        skipped: false,
                    },
                    SummaryRow {
                        provider: "c".into(),
                        dimensions: Default::default(),
                        metrics: vec![],
                        composite_score: 0.0,
                        success_rate: 0.0,
                        skipped: true,
                    },
                ],
                scoring: json!({}),
            },
            load: None,
        };
        let mut bytes = Vec::new();
        CsvExporter
            .write(&summary, Path::new("unused"), &mut bytes)
            .unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(
            text,
            "participant,dimensions,metric,unit,median,p95,p99,success_rate,composite_score\n\
             \"a,b\",\"{\"\"size\"\":\"\"1MB\"\"}\",ms,ms,1.5,2,2,0.8333333333333334,80.17\n\
             c,{},,,,,,0,0\n"
        );
    }
}
