//! `--export-json`: the summary exactly as `summary.json` holds it.

use super::Exporter;
use crate::record::TaskRecord;
use crate::report::summary::Summary;
use anyhow::Result;

/// Writes the summary as pretty-printed JSON.
pub(super) struct JsonExporter;

impl Exporter for JsonExporter {
    fn serialize(
        &self,
        summary: &Summary,
        _records: &[(String, Vec<TaskRecord>)],
    ) -> Result<Vec<u8>> {
        Ok(summary.to_json_text().into_bytes())
    }
}
