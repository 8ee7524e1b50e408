//! Exports of a run's summary to files, one format per file behind one trait. Every export
//! file is created before the run starts, so a bad path fails in the first second rather
//! than after the last task; the content is written at the end, straight to the file.
//! Formats that list every task (JUnit, HTML) read the records back from `records.ndjson`, as
//! `bench report` does, so no record is kept in memory for them.

mod csv;
mod html;
mod json;
mod junit;
pub(crate) mod markdown;

pub use markdown::markdown;

use super::summary::Summary;
use anyhow::{Context as _, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes a run's summary (and, for some formats, its records) in one export format.
trait Exporter {
    /// Writes the file content to `out`; `records` is the run's `records.ndjson`.
    fn write(&self, summary: &Summary, records: &Path, out: &mut dyn Write) -> Result<()>;
}

/// The export files asked for (`--export-json FILE`, `--export-csv FILE`,
/// `--export-markdown FILE`, `--export-junit FILE`, `--export-html FILE`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportPaths {
    /// The summary as JSON (what `summary.json` holds).
    pub json: Option<PathBuf>,
    /// One CSV line per summary row and metric.
    pub csv: Option<PathBuf>,
    /// The summary table in Markdown.
    pub markdown: Option<PathBuf>,
    /// JUnit XML: one test suite per participant, one test case per task.
    pub junit: Option<PathBuf>,
    /// The run page as one self-contained HTML file.
    pub html: Option<PathBuf>,
}

/// The export files of one run, created up front.
pub struct ExportManager {
    exports: Vec<(Box<dyn Exporter>, PathBuf)>,
}

impl ExportManager {
    /// Creates (or truncates) every requested export file now.
    pub fn create(paths: &ExportPaths) -> Result<Self> {
        let wanted: [(Option<&PathBuf>, Box<dyn Exporter>); 5] = [
            (paths.json.as_ref(), Box::new(json::JsonExporter)),
            (paths.csv.as_ref(), Box::new(csv::CsvExporter)),
            (
                paths.markdown.as_ref(),
                Box::new(markdown::MarkdownExporter),
            ),
            (paths.junit.as_ref(), Box::new(junit::JunitExporter)),
            (paths.html.as_ref(), Box::new(html::HtmlExporter)),
        ];
        let mut exports = Vec::new();
        for (path, exporter) in wanted {
            if let Some(path) = path {
                File::create(path)
                    .with_context(|| format!("cannot create export file {}", path.display()))?;
                exports.push((exporter, path.clone()));
            }
        }
        Ok(Self { exports })
    }

    /// Writes every export file; `records` is the run's `records.ndjson`.
    pub fn write_all(&self, summary: &Summary, records: &Path) -> Result<()> {
        for (exporter, path) in &self.exports {
            let cannot_write = || format!("cannot write export file {}", path.display());
            let file = File::create(path).with_context(cannot_write)?;
            let mut out = BufWriter::new(file);
            exporter
                .write(summary, records, &mut out)
                .with_context(cannot_write)?;
            out.flush().with_context(cannot_write)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_created_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let paths = ExportPaths {
            json: Some(dir.path().join("s.json")),
            junit: Some(dir.path().join("s.xml")),
            ..ExportPaths::default()
        };
        ExportManager::create(&paths).unwrap();
        assert_eq!(std::fs::read(dir.path().join("s.json")).unwrap(), b"");
        assert!(dir.path().join("s.xml").is_file());
        assert!(!dir.path().join("s.csv").exists());
    }

    #[test]
    fn a_bad_path_fails_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let paths = ExportPaths {
            csv: Some(dir.path().join("missing").join("s.csv")),
            ..ExportPaths::default()
        };
        let error = ExportManager::create(&paths).err().unwrap();
        let message = format!("{error:#}");
        assert!(
            message.starts_with("cannot create export file ") && message.contains("s.csv: "),
            "{message}"
        );
    }
}
