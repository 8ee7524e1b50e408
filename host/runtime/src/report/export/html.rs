//! `--html` / `--export-html`: the run page as one self-contained HTML file (data, chart
//! library and page script inline, nothing loaded at view time), built from the summary,
//! one pass over `records.ndjson` and what else the results directory holds (`run.json`,
//! `metrics.jsonl`, the participant logs).

use super::Exporter;
use crate::metrics::METRICS_FILE;
use crate::report::page::{self, LogTail, RunHeader, RunPage, Scripts};
use crate::report::results::{self, read_manifest, RecordsFile};
use crate::report::summary::Summary;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// Writes the HTML report.
pub(super) struct HtmlExporter;

impl Exporter for HtmlExporter {
    fn write(&self, summary: &Summary, records: &Path, out: &mut dyn Write) -> Result<()> {
        let dir = records.parent().unwrap_or(Path::new("."));
        let manifest = read_manifest(dir)?;
        let mut page = RunPage::new();
        for name in summary.participant_names() {
            page.participant(name);
        }
        let mut file = RecordsFile::open(records)?;
        while let Some((_, line)) = file.next_record()? {
            page.add(&line.participant, &line.record);
        }
        let logs: Vec<LogTail> = summary
            .participant_names()
            .into_iter()
            .take(page::MAX_LOGS)
            .filter_map(|name| {
                let file = manifest
                    .log_files
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| format!("logs/{}.log", results::file_name(name)));
                page::log_tail(name, &dir.join(file))
            })
            .collect();
        let system = page::system_metrics_file(&dir.join(METRICS_FILE));
        let header = RunHeader::of_manifest(&manifest);
        let data = page.finish(&header, &summary.to_json(), system, &logs);
        let title = format!("{} · {}", summary.benchmark_name, manifest.run_id);
        out.write_all(page::render(&title, &data, Scripts::Inline, &[]).as_bytes())?;
        Ok(())
    }
}
