//! The comparison as tables — one model per candidate, rendered for the terminal
//! (comfy-table) here and as Markdown by `export`: a row per participant and metric, then
//! the composite scores side by side when both runs are scored.

use super::comparison::{CandidateComparison, Comparison, MetricComparison};
use super::run_letter;
use super::sample::RunInfo;
use bench_model::text::escape_control;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, Table};

/// Headings and text cells of one table; `numeric` columns are right-aligned.
pub(crate) struct TextTable {
    pub headings: Vec<(String, bool)>,
    pub rows: Vec<Vec<String>>,
}

/// The metric table of the candidate that is run `letter` (`B`, `C`, …).
pub(crate) fn metric_table(
    candidate: &CandidateComparison,
    letter: char,
    confidence: f64,
) -> TextTable {
    let headings = [
        ("Participant".to_owned(), false),
        ("Metric".to_owned(), false),
        ("A median".to_owned(), true),
        (format!("{letter} median"), true),
        (format!("{letter}/A"), true),
        (format!("{} CI", percent(confidence)), true),
        ("p".to_owned(), true),
        ("Verdict".to_owned(), false),
    ];
    let rows = candidate
        .participants
        .iter()
        .flat_map(|participant| {
            participant
                .metrics
                .iter()
                .map(|metric| metric_row(&participant.participant, metric))
        })
        .collect();
    TextTable {
        headings: headings.into(),
        rows,
    }
}

fn metric_row(participant: &str, metric: &MetricComparison) -> Vec<String> {
    let with_unit = |x: f64| match metric.unit.as_str() {
        "" => number(x),
        unit => format!("{} {unit}", number(x)),
    };
    vec![
        participant.to_owned(),
        metric.label(),
        with_unit(metric.baseline.median),
        with_unit(metric.candidate.median),
        format!("{:.3}", metric.ratio),
        format!("[{:.3}, {:.3}]", metric.ci_low, metric.ci_high),
        p_value(metric.p_value),
        metric.verdict.to_string(),
    ]
}

/// The composite scores of the participants scored in both runs, or `None` when there are
/// none.
pub(crate) fn score_table(candidate: &CandidateComparison, letter: char) -> Option<TextTable> {
    let rows: Vec<Vec<String>> = candidate
        .participants
        .iter()
        .filter_map(|participant| {
            let scores = participant.composite_score?;
            Some(vec![
                participant.participant.clone(),
                number(scores.baseline),
                number(scores.candidate),
                signed(scores.candidate - scores.baseline),
            ])
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let headings = vec![
        ("Participant".to_owned(), false),
        ("A score".to_owned(), true),
        (format!("{letter} score"), true),
        (format!("{letter} − A"), true),
    ];
    Some(TextTable { headings, rows })
}

/// How a run is named in headings: its directory, run id and commit.
pub(crate) fn describe(run: &RunInfo) -> String {
    let mut text = format!("{} (run {}", run.dir, run.run_id);
    if let Some(sha) = &run.git_sha {
        let short: String = sha.chars().take(12).collect();
        text.push_str(&format!(", commit {short}"));
    }
    text.push(')');
    text
}

/// The line that says how the numbers were computed.
pub(crate) fn method_line(comparison: &Comparison) -> String {
    let settings = &comparison.settings;
    format!(
        "Ratio of medians with a {} bootstrap CI ({} resamples, seed {}); Mann–Whitney U two-sided p; noise band ±{}.",
        percent(settings.bootstrap.confidence),
        settings.bootstrap.resamples,
        settings.bootstrap.seed,
        percent(settings.threshold)
    )
}

/// The whole comparison for a terminal: the baseline, then per candidate its heading, its
/// metric table, its score table and its notes, then how the numbers were computed.
pub fn render(comparison: &Comparison) -> String {
    let mut text = format!("A: {}\n", escape_control(&describe(&comparison.baseline)));
    let confidence = comparison.settings.bootstrap.confidence;
    for (index, candidate) in comparison.candidates.iter().enumerate() {
        let letter = run_letter(index + 1);
        text.push_str(&format!(
            "\n{letter}: {}\n",
            escape_control(&describe(&candidate.run))
        ));
        text.push_str(&framed(&metric_table(candidate, letter, confidence)));
        text.push('\n');
        if let Some(scores) = score_table(candidate, letter) {
            text.push_str("Composite scores:\n");
            text.push_str(&framed(&scores));
            text.push('\n');
        }
        for note in &candidate.notes {
            text.push_str(&format!("Note: {}\n", escape_control(note)));
        }
    }
    text.push('\n');
    text.push_str(&method_line(comparison));
    text.push('\n');
    text
}

/// A table framed with box-drawing characters.
fn framed(model: &TextTable) -> String {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header(model.headings.iter().map(|(title, _)| Cell::new(title)));
    for row in &model.rows {
        table.add_row(row.iter().map(|cell| Cell::new(escape_control(cell))));
    }
    for (index, (_, numeric)) in model.headings.iter().enumerate() {
        if *numeric {
            if let Some(column) = table.column_mut(index) {
                column.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
    table.to_string()
}

/// A number with at most three decimals (three significant digits below 1), without
/// trailing zeros.
pub(crate) fn number(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let decimals = if x.abs() >= 1.0 || x == 0.0 {
        3
    } else {
        (2 - x.abs().log10().floor() as i32).clamp(3, 12) as usize
    };
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// A difference with its sign.
fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", number(x))
    } else {
        number(x)
    }
}

/// A share as a percentage: `0.95` → `95%`.
fn percent(share: f64) -> String {
    format!("{}%", number(share * 100.0))
}

/// A p-value with three decimals, or `<0.001`.
fn p_value(p: f64) -> String {
    if p < 0.001 {
        "<0.001".into()
    } else {
        format!("{p:.3}")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::compare::{
        BootstrapSettings, CompareSettings, Direction, MetricKind, ParticipantComparison,
        SampleSummary, ScorePair, Verdict,
    };

    fn run(dir: &str, id: &str) -> RunInfo {
        RunInfo {
            dir: dir.into(),
            run_id: id.into(),
            benchmark_slug: "s".into(),
            started_at: "t".into(),
            git_sha: None,
            git_ref: None,
        }
    }

    /// A comparison of run `b` (with a commit) against run `a`: one participant, its latency
    /// 20 % slower and a step unchanged, scored in both runs, with a note.
    pub(crate) fn example() -> Comparison {
        let metric =
            |metric: &str, kind, a: f64, b: f64, ci: (f64, f64), p, verdict| MetricComparison {
                metric: metric.into(),
                kind,
                unit: "ms".into(),
                direction: Direction::LowerIsBetter,
                baseline: SampleSummary {
                    samples: 20,
                    median: a,
                },
                candidate: SampleSummary {
                    samples: 20,
                    median: b,
                },
                ratio: b / a,
                ci_low: ci.0,
                ci_high: ci.1,
                p_value: p,
                verdict,
            };
        Comparison {
            settings: CompareSettings {
                bootstrap: BootstrapSettings {
                    resamples: 10_000,
                    confidence: 0.95,
                    seed: 1,
                },
                threshold: 0.02,
            },
            baseline: run("runs/a", "id-a"),
            candidates: vec![CandidateComparison {
                run: RunInfo {
                    git_sha: Some("0123456789abcdef".into()),
                    ..run("runs/b", "id-b")
                },
                participants: vec![ParticipantComparison {
                    participant: "local".into(),
                    metrics: vec![
                        metric(
                            "latencyMs",
                            MetricKind::Latency,
                            100.5,
                            120.6,
                            (1.18, 1.22),
                            1e-9,
                            Verdict::Slower,
                        ),
                        metric(
                            "wait",
                            MetricKind::Step,
                            50.0,
                            50.0,
                            (0.99, 1.01),
                            0.8123,
                            Verdict::NoChange,
                        ),
                    ],
                    composite_score: Some(ScorePair {
                        baseline: 80.0,
                        candidate: 75.5,
                    }),
                }],
                notes: vec!["participant gone is only in runs/a".into()],
            }],
        }
    }

    #[test]
    fn the_terminal_shows_each_run_its_metrics_scores_notes_and_method() {
        let text = render(&example());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "A: runs/a (run id-a)");
        assert_eq!(lines[2], "B: runs/b (run id-b, commit 0123456789ab)");
        assert!(text.contains("│ Participant ┆ Metric    ┆ A median ┆ B median ┆   B/A ┆         95% CI ┆      p ┆ Verdict   │"), "{text}");
        assert!(text.contains("│ local       ┆ latencyMs ┆ 100.5 ms ┆ 120.6 ms ┆ 1.200 ┆ [1.180, 1.220] ┆ <0.001 ┆ slower    │"), "{text}");
        assert!(text.contains("│ local       ┆ step wait ┆    50 ms ┆    50 ms ┆ 1.000 ┆ [0.990, 1.010] ┆  0.812 ┆ no change │"), "{text}");
        assert!(
            text.contains("│ local       ┆      80 ┆    75.5 ┆  -4.5 │"),
            "{text}"
        );
        assert!(
            text.contains("\nNote: participant gone is only in runs/a\n"),
            "{text}"
        );
        assert!(text.ends_with(
            "\nRatio of medians with a 95% bootstrap CI (10000 resamples, seed 1); Mann–Whitney U two-sided p; noise band ±2%.\n"
        ), "{text}");
    }

    #[test]
    fn numbers_keep_three_decimals_or_three_significant_digits() {
        let cases = [
            (100.0, "100"),
            (101.25, "101.25"),
            (1.23456, "1.235"),
            (0.012345, "0.0123"),
            (0.0, "0"),
            (-4.5, "-4.5"),
            (f64::INFINITY, "-"),
        ];
        for (x, text) in cases {
            assert_eq!(number(x), text, "{x}");
        }
        assert_eq!(signed(2.0), "+2");
        assert_eq!(percent(0.02), "2%");
    }
}
