//! The summary as a table — one model, rendered for the console (comfy-table) and as
//! Markdown. Scored: participant, group dimensions, each metric's median / p95 / p99 with
//! its unit, success rate, composite score. Unscored: participant, tasks, success rate,
//! task latency and each numeric measure.

use super::summary::{Summary, Verdict};
use bench_model::js;
use bench_model::text::escape_control;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, Color, Table};
use serde_json::Value;

/// What a metric column's cells hold.
pub(crate) const STATS_DETAIL: &str = "median / p95 / p99";

/// A column heading: a title and an optional second line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Heading {
    /// First line (`participant`, `uploadMs (ms)`…).
    pub title: String,
    /// Second line (what the cells hold), if any.
    pub detail: Option<String>,
    /// Whether the column holds numbers (right-aligned on the console).
    pub numeric: bool,
}

/// A rendered summary: headings and rows of cell text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SummaryTable {
    /// Column headings.
    pub headings: Vec<Heading>,
    /// Rows of cells, one per heading.
    pub rows: Vec<Vec<String>>,
    /// The `success` column's index.
    pub success_column: usize,
    /// Each row's success rate (0 to 1), which colours its `success` cell.
    pub success_rates: Vec<f64>,
}

impl SummaryTable {
    /// The table of a summary.
    pub(crate) fn of(summary: &Summary) -> Self {
        match &summary.verdict {
            Verdict::Scored { results, .. } => {
                let mut dimension_keys: Vec<&str> = Vec::new();
                let mut metrics: Vec<(&str, &str)> = Vec::new();
                for row in results {
                    for key in row.dimensions.keys() {
                        push_new(&mut dimension_keys, key.as_str());
                    }
                    for metric in &row.metrics {
                        if !metrics.iter().any(|(name, _)| *name == metric.name) {
                            metrics.push((metric.name.as_str(), metric.unit.as_str()));
                        }
                    }
                }
                let mut headings = vec![text_heading("participant")];
                headings.extend(dimension_keys.iter().map(|key| text_heading(key)));
                headings.extend(
                    metrics
                        .iter()
                        .map(|(name, unit)| metric_heading(name, unit)),
                );
                let success_column = headings.len();
                headings.push(number_heading("success"));
                headings.push(number_heading("score"));
                let rows = results
                    .iter()
                    .map(|row| {
                        let mut cells = vec![row.provider.clone()];
                        cells.extend(dimension_keys.iter().map(|key| {
                            row.dimensions
                                .get(*key)
                                .map(dimension_text)
                                .unwrap_or_default()
                        }));
                        cells.extend(metrics.iter().map(|(name, _)| {
                            row.metrics
                                .iter()
                                .find(|metric| metric.name == *name)
                                .map_or_else(
                                    || "-".to_owned(),
                                    |m| stats_text(m.median, m.p95, m.p99),
                                )
                        }));
                        cells.push(rate_text(row.success_rate));
                        cells.push(js::number_to_string(row.composite_score));
                        cells
                    })
                    .collect();
                let success_rates = results.iter().map(|row| row.success_rate).collect();
                Self {
                    headings,
                    rows,
                    success_column,
                    success_rates,
                }
            }
            Verdict::Unscored(participants) => {
                let mut metrics: Vec<(&str, &str)> = Vec::new();
                for participant in participants {
                    for metric in &participant.metrics {
                        if !metrics.iter().any(|(name, _)| *name == metric.name) {
                            metrics.push((metric.name.as_str(), metric.unit.as_str()));
                        }
                    }
                }
                let mut headings = vec![
                    text_heading("participant"),
                    number_heading("tasks"),
                    number_heading("success"),
                ];
                headings.extend(
                    metrics
                        .iter()
                        .map(|(name, unit)| metric_heading(name, unit)),
                );
                let rows = participants
                    .iter()
                    .map(|participant| {
                        let mut cells = vec![
                            participant.participant.clone(),
                            participant.tasks.to_string(),
                            rate_text(participant.success_rate()),
                        ];
                        cells.extend(metrics.iter().map(|(name, _)| {
                            participant
                                .metrics
                                .iter()
                                .find(|metric| metric.name == *name)
                                .map_or_else(
                                    || "-".to_owned(),
                                    |m| stats_text(m.stats.median, m.stats.p95, m.stats.p99),
                                )
                        }));
                        cells
                    })
                    .collect();
                let success_rates = participants
                    .iter()
                    .map(|participant| participant.success_rate())
                    .collect();
                Self {
                    headings,
                    rows,
                    success_column: 2,
                    success_rates,
                }
            }
        }
    }

    /// The table for a terminal, framed with box-drawing characters; with `color`, each
    /// `success` cell is green (all succeeded), yellow (some failed) or red (all failed).
    pub(crate) fn render(&self, color: bool) -> String {
        let mut table = Table::new();
        table.load_preset(UTF8_FULL_CONDENSED);
        if color {
            table.enforce_styling().style_text_only();
        } else {
            table.force_no_tty();
        }
        table.set_header(self.headings.iter().map(|heading| {
            let title = escape_control(&heading.title);
            let text = match &heading.detail {
                Some(detail) => format!("{title}\n{}", escape_control(detail)),
                None => title.into_owned(),
            };
            Cell::new(text)
        }));
        for (row, rate) in self.rows.iter().zip(&self.success_rates) {
            table.add_row(row.iter().enumerate().map(|(index, cell)| {
                let cell = Cell::new(escape_control(cell));
                if color && index == self.success_column {
                    cell.fg(status_color(*rate))
                } else {
                    cell
                }
            }));
        }
        for (index, heading) in self.headings.iter().enumerate() {
            if heading.numeric {
                if let Some(column) = table.column_mut(index) {
                    column.set_cell_alignment(CellAlignment::Right);
                }
            }
        }
        table.to_string()
    }
}

/// The colour of a success rate: green when every task succeeded, red when none did,
/// yellow between.
fn status_color(rate: f64) -> Color {
    if rate >= 1.0 {
        Color::Green
    } else if rate <= 0.0 {
        Color::Red
    } else {
        Color::Yellow
    }
}

fn push_new<'a>(list: &mut Vec<&'a str>, item: &'a str) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn text_heading(title: &str) -> Heading {
    Heading {
        title: title.to_owned(),
        detail: None,
        numeric: false,
    }
}

fn number_heading(title: &str) -> Heading {
    Heading {
        numeric: true,
        ..text_heading(title)
    }
}

fn metric_heading(name: &str, unit: &str) -> Heading {
    let title = if unit.is_empty() {
        name.to_owned()
    } else {
        format!("{name} ({unit})")
    };
    Heading {
        title,
        detail: Some(STATS_DETAIL.to_owned()),
        numeric: true,
    }
}

/// A dimension value: strings as they are, anything else as JSON.
fn dimension_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `median / p95 / p99`, each rounded for reading.
fn stats_text(median: f64, p95: f64, p99: f64) -> String {
    format!(
        "{} / {} / {}",
        number_text(median),
        number_text(p95),
        number_text(p99)
    )
}

/// A number for reading: two decimals at most, three significant digits below 1.
pub(crate) fn number_text(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return js::number_to_string(x);
    }
    let decimals = if x.abs() >= 1.0 {
        2
    } else {
        // Three significant digits: 0.0123 keeps four decimals.
        (2 - x.abs().log10().floor() as i32).max(2) as usize
    };
    let rounded: f64 = js::to_fixed(x, decimals).parse().unwrap_or(x);
    js::number_to_string(rounded)
}

/// A success rate as a percentage with two decimals at most (`83.33%`).
pub(crate) fn rate_text(rate: f64) -> String {
    format!("{}%", number_text(rate * 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::participants::{MetricStats, ParticipantStats};
    use crate::scoring::{MetricSummary, Stats, SummaryRow};
    use serde_json::json;

    fn summary(verdict: Verdict) -> Summary {
        Summary {
            benchmark_slug: "s".into(),
            benchmark_name: "S".into(),
            run: Default::default(),
            verdict,
            load: None,
        }
    }

    fn row(
        provider: &str,
        dimensions: Value,
        metrics: Vec<MetricSummary>,
        score: f64,
    ) -> SummaryRow {
        SummaryRow {
            provider: provider.into(),
            dimensions: dimensions.as_object().cloned().unwrap_or_default(),
            metrics,
            composite_score: score,
            success_rate: 0.8333333333333334,
            skipped: false,
        }
    }

    fn metric(name: &str, unit: &str, median: f64) -> MetricSummary {
        MetricSummary {
            name: name.into(),
            unit: unit.into(),
            median,
            p95: 400.0,
            p99: 400.0,
        }
    }

    #[test]
    fn scored_rows_show_dimensions_metrics_success_and_score() {
        let table = SummaryTable::of(&summary(Verdict::Scored {
            results: vec![
                row(
                    "aws-s3",
                    json!({}),
                    vec![metric("uploadMs", "ms", 250.0)],
                    75.0,
                ),
                row(
                    "aws-s3",
                    json!({"file_size": "1MB"}),
                    vec![metric("uploadMs", "ms", 100.5), metric("sizeMb", "", 1.0)],
                    80.17,
                ),
            ],
            scoring: json!({}),
        }));
        let titles: Vec<&str> = table.headings.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "participant",
                "file_size",
                "uploadMs (ms)",
                "sizeMb",
                "success",
                "score"
            ]
        );
        assert_eq!(table.headings[2].detail.as_deref(), Some(STATS_DETAIL));
        assert_eq!(
            table.rows[0],
            ["aws-s3", "", "250 / 400 / 400", "-", "83.33%", "75"]
        );
        assert_eq!(
            table.rows[1],
            [
                "aws-s3",
                "1MB",
                "100.5 / 400 / 400",
                "1 / 400 / 400",
                "83.33%",
                "80.17"
            ]
        );
        let text = table.render(false);
        assert!(text.contains("uploadMs (ms)"), "{text}");
        assert!(text.contains("median / p95 / p99"), "{text}");
        assert!(text.contains("100.5 / 400 / 400"), "{text}");
    }

    #[test]
    fn unscored_rows_show_tasks_success_and_every_metric() {
        let stats = Stats {
            median: 12.346,
            p95: 20.0,
            p99: 21.0,
        };
        let table = SummaryTable::of(&summary(Verdict::Unscored(vec![ParticipantStats {
            participant: "alpha".into(),
            tasks: 3,
            succeeded: 2,
            metrics: vec![MetricStats {
                name: "latencyMs".into(),
                unit: "ms".into(),
                samples: 2,
                stats,
            }],
        }])));
        let titles: Vec<&str> = table.headings.iter().map(|h| h.title.as_str()).collect();
        assert_eq!(
            titles,
            ["participant", "tasks", "success", "latencyMs (ms)"]
        );
        assert_eq!(table.rows[0], ["alpha", "3", "66.67%", "12.35 / 20 / 21"]);
    }

    #[test]
    fn the_rendered_table_shows_control_characters_escaped() {
        let table = SummaryTable::of(&summary(Verdict::Unscored(vec![ParticipantStats {
            participant: "evil\u{1b}]0;owned\u{7}\nline".into(),
            tasks: 1,
            succeeded: 1,
            metrics: vec![MetricStats {
                name: "ms\u{1b}[2J".into(),
                unit: "u\r".into(),
                samples: 1,
                stats: Stats {
                    median: 1.0,
                    p95: 1.0,
                    p99: 1.0,
                },
            }],
        }])));
        let text = table.render(false);
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(text.contains("evil\\x1b]0;owned\\x07\\nline"), "{text}");
        assert!(text.contains("ms\\x1b[2J (u\\r)"), "{text}");
    }

    /// `text` without SGR escape sequences (`ESC [ … m`).
    fn without_colors(text: &str) -> String {
        let mut plain = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("\u{1b}[") {
            plain.push_str(&rest[..start]);
            let end = rest[start..].find('m').unwrap();
            rest = &rest[start + end + 1..];
        }
        plain.push_str(rest);
        plain
    }

    #[test]
    fn success_cells_are_coloured_by_rate_only_when_asked() {
        let participant = |name: &str, succeeded: usize| ParticipantStats {
            participant: name.into(),
            tasks: 4,
            succeeded,
            metrics: vec![],
        };
        let table = SummaryTable::of(&summary(Verdict::Unscored(vec![
            participant("all", 4),
            participant("some", 2),
            participant("none", 0),
        ])));
        let plain = table.render(false);
        assert!(!plain.contains('\u{1b}'), "{plain}");
        let colored = table.render(true);
        let lines: Vec<&str> = colored.lines().collect();
        let row = |name: &str| *lines.iter().find(|line| line.contains(name)).unwrap();
        // crossterm's SGR foreground codes: green 38;5;10, yellow 38;5;11, red 38;5;9.
        assert!(row("all").contains("\u{1b}[38;5;10m100%"), "{colored}");
        assert!(row("some").contains("\u{1b}[38;5;11m50%"), "{colored}");
        assert!(row("none").contains("\u{1b}[38;5;9m0%"), "{colored}");
        assert_eq!(without_colors(&colored), plain, "colours change no width");
    }

    #[test]
    fn numbers_are_rounded_for_reading() {
        assert_eq!(number_text(1234.5678), "1234.57");
        assert_eq!(number_text(0.012345), "0.0123");
        assert_eq!(number_text(0.5), "0.5");
        assert_eq!(number_text(0.0), "0");
        assert_eq!(number_text(-2.5), "-2.5");
        assert_eq!(number_text(f64::NAN), "NaN");
        assert_eq!(rate_text(1.0), "100%");
        assert_eq!(rate_text(0.0), "0%");
    }
}
