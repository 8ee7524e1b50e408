//! `--export-json`: the summary exactly as `summary.json` holds it.

use super::Exporter;
use crate::summary::Summary;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// Writes the summary as pretty-printed JSON.
pub(super) struct JsonExporter;

impl Exporter for JsonExporter {
    fn write(&self, summary: &Summary, _records: &Path, out: &mut dyn Write) -> Result<()> {
        Ok(out.write_all(summary.to_json_text().as_bytes())?)
    }
}
