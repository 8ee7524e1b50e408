//! `--export-json` and `--export-markdown` (also what the GitHub step summary gets): the
//! comparison as pretty JSON, or as Markdown tables for a pull-request comment.

use super::comparison::Comparison;
use super::run_letter;
use super::table::{describe, method_line, metric_table, score_table, TextTable};
use crate::export::markdown::escape_markdown;

/// The comparison as pretty-printed JSON with a final newline.
pub fn json(comparison: &Comparison) -> String {
    let mut text = serde_json::to_string_pretty(comparison).expect("a comparison serializes");
    text.push('\n');
    text
}

/// The comparison as Markdown: a heading, the baseline, then per candidate its metric table,
/// its score table and its notes, then how the numbers were computed.
pub fn markdown(comparison: &Comparison) -> String {
    let mut text = format!(
        "## Comparison\n\nA (baseline): {}\n",
        escape_markdown(&describe(&comparison.baseline))
    );
    let confidence = comparison.settings.bootstrap.confidence;
    for (index, candidate) in comparison.candidates.iter().enumerate() {
        let letter = run_letter(index + 1);
        text.push_str(&format!(
            "\n### {letter}: {}\n\n",
            escape_markdown(&describe(&candidate.run))
        ));
        text.push_str(&table(&metric_table(candidate, letter, confidence)));
        if let Some(scores) = score_table(candidate, letter) {
            text.push_str("\nComposite scores:\n\n");
            text.push_str(&table(&scores));
        }
        if !candidate.notes.is_empty() {
            text.push('\n');
        }
        for note in &candidate.notes {
            text.push_str(&format!("- {}\n", escape_markdown(note)));
        }
    }
    text.push_str(&format!(
        "\n_{}_\n",
        escape_markdown(&method_line(comparison))
    ));
    text
}

/// A Markdown table.
fn table(model: &TextTable) -> String {
    let headings: Vec<String> = model
        .headings
        .iter()
        .map(|(title, _)| escape_markdown(title))
        .collect();
    let rules: Vec<&str> = model
        .headings
        .iter()
        .map(|(_, numeric)| if *numeric { "---:" } else { "---" })
        .collect();
    let mut text = line(&headings);
    text.push_str(&line(&rules));
    for row in &model.rows {
        let cells: Vec<String> = row.iter().map(|cell| escape_markdown(cell)).collect();
        text.push_str(&line(&cells));
    }
    text
}

fn line<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<&str> = cells.iter().map(AsRef::as_ref).collect();
    format!("| {} |\n", cells.join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::table::tests::example;

    #[test]
    fn markdown_has_a_heading_per_run_and_a_table_per_candidate() {
        let text = markdown(&example());
        let expected = "## Comparison

A (baseline): runs/a (run id-a)

### B: runs/b (run id-b, commit 0123456789ab)

| Participant | Metric | A median | B median | B/A | 95% CI | p | Verdict |
| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |
| local | latencyMs | 100.5 ms | 120.6 ms | 1.200 | [1.180, 1.220] | &lt;0.001 | slower |
| local | step wait | 50 ms | 50 ms | 1.000 | [0.990, 1.010] | 0.812 | no change |

Composite scores:

| Participant | A score | B score | B − A |
| --- | ---: | ---: | ---: |
| local | 80 | 75.5 | -4.5 |

- participant gone is only in runs/a

_Ratio of medians with a 95% bootstrap CI (10000 resamples, seed 1); Mann–Whitney U two-sided p; noise band ±2%._
";
        assert_eq!(text, expected);
    }

    #[test]
    fn json_is_the_comparison_itself() {
        let comparison = example();
        let value: serde_json::Value = serde_json::from_str(&json(&comparison)).unwrap();
        assert_eq!(value, serde_json::to_value(&comparison).unwrap());
        let metric = &value["candidates"][0]["participants"][0]["metrics"][0];
        assert_eq!(metric["ciLow"], 1.18);
        assert_eq!(metric["kind"], "latency");
        assert_eq!(metric["verdict"], "slower");
        assert_eq!(value["settings"]["resamples"], 10_000);
        assert_eq!(value["candidates"][0]["run"]["gitSha"], "0123456789abcdef");
    }
}
