//! `--export-markdown` (and the GitHub step summary): a heading with the benchmark's name,
//! the summary table, and a note on how percentiles are computed.

use super::Exporter;
use crate::summary::{Summary, PERCENTILE_METHOD};
use crate::table::SummaryTable;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// Writes the summary as Markdown.
pub(super) struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn write(&self, summary: &Summary, _records: &Path, out: &mut dyn Write) -> Result<()> {
        Ok(out.write_all(markdown(summary).as_bytes())?)
    }
}

/// The Markdown summary of a run.
pub fn markdown(summary: &Summary) -> String {
    let table = SummaryTable::of(summary);
    let mut text = format!("## {}\n\n", escape_markdown(&summary.benchmark_name));
    let headings: Vec<String> = table
        .headings
        .iter()
        .map(|heading| match &heading.detail {
            Some(detail) => format!(
                "{}<br>{}",
                escape_markdown(&heading.title),
                escape_markdown(detail)
            ),
            None => escape_markdown(&heading.title),
        })
        .collect();
    text.push_str(&line(&headings));
    let rules: Vec<String> = table
        .headings
        .iter()
        .map(|heading| if heading.numeric { "---:" } else { "---" }.to_owned())
        .collect();
    text.push_str(&line(&rules));
    for row in &table.rows {
        let cells: Vec<String> = row.iter().map(|cell| escape_markdown(cell)).collect();
        text.push_str(&line(&cells));
    }
    text.push_str(&format!(
        "\nPercentiles: {PERCENTILE_METHOD}, over trimmed samples.\n"
    ));
    if let Some(load) = &summary.load {
        text.push('\n');
        for line in load.lines() {
            text.push_str(&format!("{}  \n", escape_markdown(line.trim_start())));
        }
    }
    text
}

fn line(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

/// Text safe inside a table cell: pipes escaped, line breaks as `<br>`, HTML tags disarmed.
pub(crate) fn escape_markdown(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace("\r\n", "<br>")
        .replace('\n', "<br>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::participants::ParticipantStats;
    use crate::summary::Verdict;

    #[test]
    fn a_heading_a_table_and_a_note() {
        let summary = Summary {
            benchmark_slug: "s".into(),
            benchmark_name: "A|B <test>".into(),
            run: Default::default(),
            verdict: Verdict::Unscored(vec![ParticipantStats {
                participant: "x|y".into(),
                tasks: 2,
                succeeded: 2,
                metrics: vec![],
            }]),
            load: None,
        };
        assert_eq!(
            markdown(&summary),
            "## A\\|B &lt;test&gt;\n\n\
             | participant | tasks | success |\n\
             | --- | ---: | ---: |\n\
             | x\\|y | 2 | 100% |\n\
             \nPercentiles: nearest-rank, over trimmed samples.\n"
        );
    }
}
