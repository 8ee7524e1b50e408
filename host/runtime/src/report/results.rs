//! The local results directory of one run: `run.json`, `records.ndjson` (one record per
//! line, written as each task finishes) and `logs/<participant>.log`.

use crate::events::Finished;
use crate::plan::RunManifest;
use crate::record::TaskRecord;
use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The run manifest's file name in a results directory.
const RUN_JSON: &str = "run.json";

/// The records file's name in a results directory.
pub(crate) const RECORDS_NDJSON: &str = "records.ndjson";

/// One line of `records.ndjson`: the participant, then the upstream record keys.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RecordLine {
    /// The participant's name.
    pub participant: String,
    /// The task record.
    #[serde(flatten)]
    pub record: TaskRecord,
}

#[derive(Serialize)]
struct RecordLineRef<'a> {
    participant: &'a str,
    #[serde(flatten)]
    record: &'a TaskRecord,
}

/// Writes one run's results directory.
pub struct ResultsWriter {
    dir: PathBuf,
    records: BufWriter<File>,
    logs: HashMap<String, ParticipantLog>,
}

/// One participant's log file and how many lines it holds (capped like upstream's worker log).
struct ParticipantLog {
    file: BufWriter<File>,
    lines: usize,
}

/// Most lines of one participant log; then `... (worker log truncated)` and nothing more.
pub(crate) const MAX_LOG_LINES: usize = 100_000;

impl ResultsWriter {
    /// Creates the directory, its `logs/` folder and an empty `records.ndjson` up front, so a
    /// bad path fails before any task runs. A directory that already holds a run is refused:
    /// its records and logs would be mixed with the new run's.
    pub fn create(dir: &Path) -> Result<Self> {
        Self::refuse_earlier_run(dir)?;
        std::fs::create_dir_all(dir.join("logs"))
            .with_context(|| format!("cannot create the results directory {}", dir.display()))?;
        let records_path = dir.join(RECORDS_NDJSON);
        let records = File::options()
            .write(true)
            .create_new(true)
            .open(&records_path)
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::AlreadyExists => earlier_run(dir),
                _ => anyhow::Error::new(error)
                    .context(format!("cannot create {}", records_path.display())),
            })?;
        Ok(Self {
            dir: dir.to_owned(),
            records: BufWriter::new(records),
            logs: HashMap::new(),
        })
    }

    /// Fails when `dir` already holds a run (its `run.json` or `records.ndjson`).
    pub fn refuse_earlier_run(dir: &Path) -> Result<()> {
        if [RUN_JSON, RECORDS_NDJSON]
            .iter()
            .any(|name| dir.join(name).exists())
        {
            return Err(earlier_run(dir));
        }
        Ok(())
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the run's manifest as `run.json` (pretty-printed, replacing any earlier
    /// version).
    pub fn write_run_json(&self, manifest: &RunManifest) -> Result<()> {
        let path = self.dir.join(RUN_JSON);
        std::fs::write(&path, manifest.to_json_text())
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// Appends a finished task's record and its log lines (written out by [`Self::flush`],
    /// which the executors call at least every 20 ms while tasks run).
    pub(crate) fn append(&mut self, participant: &str, finished: &Finished) -> Result<()> {
        let line = RecordLineRef {
            participant,
            record: &finished.record,
        };
        serde_json::to_writer(&mut self.records, &line)?;
        self.records.write_all(b"\n")?;
        if !finished.log.is_empty() {
            let log = self.log_file(participant)?;
            for line in &finished.log {
                if log.lines < MAX_LOG_LINES {
                    writeln!(log.file, "{line}")?;
                } else if log.lines == MAX_LOG_LINES {
                    writeln!(log.file, "... (worker log truncated)")?;
                } else {
                    break;
                }
                log.lines += 1;
            }
        }
        Ok(())
    }

    /// Writes out everything buffered (records and participant logs).
    pub fn flush(&mut self) -> Result<()> {
        self.records
            .flush()
            .context("cannot write records.ndjson")?;
        for log in self.logs.values_mut() {
            log.file.flush().context("cannot write a participant log")?;
        }
        Ok(())
    }

    fn log_file(&mut self, participant: &str) -> Result<&mut ParticipantLog> {
        if !self.logs.contains_key(participant) {
            let path = self
                .dir
                .join("logs")
                .join(format!("{}.log", file_name(participant)));
            let file = File::options()
                .create(true)
                .append(true)
                .open(&path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            self.logs.insert(
                participant.to_owned(),
                ParticipantLog {
                    file: BufWriter::new(file),
                    lines: 0,
                },
            );
        }
        Ok(self.logs.get_mut(participant).expect("inserted above"))
    }
}

/// The refusal of a results directory that holds a run.
fn earlier_run(dir: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "the results directory {} already holds a run; choose another --out directory or remove it",
        dir.display()
    )
}

/// A participant name made safe as a file name.
pub fn file_name(participant: &str) -> String {
    participant
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Reads a results directory's `run.json` back.
pub fn read_manifest(dir: &Path) -> Result<RunManifest> {
    let path = dir.join(RUN_JSON);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a run manifest", path.display()))
}

/// A results directory's `records.ndjson`, read one line at a time (nothing is kept).
pub(crate) struct RecordsFile {
    path: PathBuf,
    reader: BufReader<File>,
    line: String,
    /// Where the next line starts.
    offset: u64,
    /// The number of the line read last, counted from the start (until a seek).
    line_number: usize,
}

impl RecordsFile {
    /// Opens a records file (`<results dir>/records.ndjson`).
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let path = path.to_owned();
        let file = File::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
        Ok(Self {
            path,
            reader: BufReader::with_capacity(256 * 1024, file),
            line: String::new(),
            offset: 0,
            line_number: 0,
        })
    }

    /// The next record and the offset its line starts at; `None` at the end. Blank lines
    /// are skipped.
    pub(crate) fn next_record(&mut self) -> Result<Option<(u64, RecordLine)>> {
        loop {
            let start = self.offset;
            if !self.read_line()? {
                return Ok(None);
            }
            if !self.line.trim().is_empty() {
                let record = serde_json::from_str(&self.line).with_context(|| {
                    let path = self.path.display();
                    format!("{path} line {} is not a record", self.line_number)
                })?;
                return Ok(Some((start, record)));
            }
        }
    }

    /// The record whose line starts at `offset` (one [`Self::next_record`] gave); reading
    /// records in file order does not seek.
    pub(crate) fn record_at(&mut self, offset: u64) -> Result<RecordLine> {
        if offset != self.offset {
            self.reader
                .seek(SeekFrom::Start(offset))
                .with_context(|| format!("cannot read {}", self.path.display()))?;
            self.offset = offset;
        }
        if !self.read_line()? {
            anyhow::bail!("{} ends before byte {offset}", self.path.display());
        }
        serde_json::from_str(&self.line).with_context(|| {
            let path = self.path.display();
            format!("{path} at byte {offset} is not a record")
        })
    }

    /// Reads one line into `self.line`; false at the end of the file.
    fn read_line(&mut self) -> Result<bool> {
        self.line.clear();
        let read = self
            .reader
            .read_line(&mut self.line)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        self.offset += read as u64;
        self.line_number += 1;
        Ok(read > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_manifest;
    use serde_json::json;

    #[test]
    fn the_manifest_written_is_the_manifest_read() {
        let dir = tempfile::tempdir().unwrap();
        let writer = ResultsWriter::create(dir.path()).unwrap();
        let manifest = test_manifest(json!({"display": {"metrics": []}}));
        writer.write_run_json(&manifest).unwrap();
        assert_eq!(read_manifest(dir.path()).unwrap(), manifest);
    }

    #[test]
    fn a_missing_or_foreign_run_json_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let error = read_manifest(dir.path()).unwrap_err();
        assert!(
            format!("{error:#}").starts_with(&format!("cannot read {}: ", path.display())),
            "{error:#}"
        );
        std::fs::write(&path, r#"{"benchmarkSlug": "s"}"#).unwrap();
        let error = read_manifest(dir.path()).unwrap_err();
        assert!(
            format!("{error:#}")
                .starts_with(&format!("{} is not a run manifest: ", path.display())),
            "{error:#}"
        );
    }
}
