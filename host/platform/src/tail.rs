//! Reads `records.ndjson` as it grows. The platform is sent what this reads — records the
//! results writer has already put on disk, however it buffers — each split into its
//! participant and the record exactly as written (key order kept).

use anyhow::{Context as _, Result};
use serde_json::Value;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A reader of the complete lines appended to a results directory's `records.ndjson`.
pub(crate) struct RecordsTail {
    path: PathBuf,
    file: Option<File>,
    partial: Vec<u8>,
}

impl RecordsTail {
    /// A reader positioned at the start of `<dir>/records.ndjson`.
    pub(crate) fn new(dir: &Path) -> Self {
        Self {
            path: dir.join("records.ndjson"),
            file: None,
            partial: Vec::new(),
        }
    }

    /// The records of the lines completed since the last call, as `(participant, record)`.
    pub(crate) fn read_new(&mut self) -> Result<Vec<(String, Value)>> {
        if self.file.is_none() {
            match File::open(&self.path) {
                Ok(file) => self.file = Some(file),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
                Err(error) => {
                    return Err(error)
                        .with_context(|| format!("cannot read {}", self.path.display()))
                }
            }
        }
        let file = self.file.as_mut().expect("opened above");
        file.read_to_end(&mut self.partial)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        let Some(end) = self.partial.iter().rposition(|&byte| byte == b'\n') else {
            return Ok(Vec::new());
        };
        let complete: Vec<u8> = self.partial.drain(..=end).collect();
        complete
            .split(|&byte| byte == b'\n')
            .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
            .map(|line| {
                split_participant(line).with_context(|| {
                    format!("{} has a line that is not a record", self.path.display())
                })
            })
            .collect()
    }
}

/// `{"participant": p, ...record}` → `(p, record)`, the record's keys in their order.
fn split_participant(line: &[u8]) -> Result<(String, Value)> {
    let mut value: Value = serde_json::from_slice(line)?;
    let map = value
        .as_object_mut()
        .context("a record line must be a JSON object")?;
    let participant = match map.shift_remove("participant") {
        Some(Value::String(name)) => name,
        _ => anyhow::bail!("a record line must name its participant"),
    };
    Ok((participant, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn only_complete_lines_are_read_with_their_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut tail = RecordsTail::new(dir.path());
        assert!(tail.read_new().unwrap().is_empty(), "no file yet");
        let mut file = File::create(dir.path().join("records.ndjson")).unwrap();
        let complete = r#"{"participant":"a","taskIndex":0,"status":"success","steps":[{"name":"task","status":"success","errorCode":null,"data":{"x":1}}]}"#;
        let partial = r#"{"participant":"b","taskIn"#;
        write!(file, "{complete}\n{partial}").unwrap();
        let first = tail.read_new().unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].0, "a");
        assert_eq!(
            first[0].1.to_string(),
            r#"{"taskIndex":0,"status":"success","steps":[{"name":"task","status":"success","errorCode":null,"data":{"x":1}}]}"#
        );
        writeln!(file, r#"dex":1,"status":"error"}}"#).unwrap();
        let second = tail.read_new().unwrap();
        assert_eq!(second.len(), 1);
        assert_eq!(second[0].0, "b");
        assert_eq!(
            second[0].1.to_string(),
            r#"{"taskIndex":1,"status":"error"}"#
        );
        assert!(tail.read_new().unwrap().is_empty());
    }

    #[test]
    fn a_line_without_participant_is_an_error() {
        assert!(split_participant(br#"{"taskIndex":0}"#).is_err());
        assert!(split_participant(b"[1]").is_err());
    }
}
