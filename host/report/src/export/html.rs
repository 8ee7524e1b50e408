//! `--html` / `--export-html`: the run page as one self-contained HTML file (data, chart
//! library and page script inline, nothing loaded at view time), built from the summary,
//! one pass over `records.ndjson` and what else the results directory holds (`run.json`,
//! `metrics.jsonl`, the participant logs).

use super::Exporter;
use crate::input::ResultsDir;
use crate::metrics::METRICS_FILE;
use crate::page::{self, LogTail, RunHeader, RunPage, Scripts};
use crate::results::{self, read_manifest, RecordsFile};
use crate::summary::Summary;
use anyhow::{Context as _, Result};
use std::io::{BufReader, Write};
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
        let mut file = RecordsFile::planned(records, &manifest)?;
        while let Some((_, line)) = file.next_record()? {
            page.add(&line.participant, &line.record);
        }
        let results = ResultsDir::open(dir)?;
        let mut logs: Vec<LogTail> = Vec::new();
        for name in summary.participant_names().into_iter().take(page::MAX_LOGS) {
            let relative = manifest
                .log_files
                .get(name)
                .cloned()
                .unwrap_or_else(|| format!("logs/{}.log", results::file_name(name)));
            let log = results.open_file(&relative).with_context(|| {
                format!("run.json's logFiles names {relative:?} as the log of {name:?}")
            })?;
            logs.extend(log.and_then(|file| page::log_tail(name, file)));
        }
        let system = match results.open_file(METRICS_FILE)? {
            Some(file) => page::system_metrics(BufReader::new(file))
                .with_context(|| format!("cannot read {}", dir.join(METRICS_FILE).display()))?,
            None => None,
        };
        let header = RunHeader::of_manifest(&manifest);
        let summary_json = summary.to_json();
        let data = page.finish(&header, &summary_json, system, &logs);
        let title = format!("{} · {}", summary.benchmark_name, manifest.run_id);
        out.write_all(page::render(&title, &data, Scripts::Inline, &[]).as_bytes())?;
        Ok(())
    }
}
