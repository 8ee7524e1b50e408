//! The local results directory of one run: `run.json`, `records.ndjson` (one record per
//! line, written as each task finishes) and `logs/<participant>.log`.

use super::paths;
use crate::events::Finished;
use crate::plan::RunManifest;
use crate::record::TaskRecord;
use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The run manifest's file name in a results directory.
const RUN_JSON: &str = "run.json";

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
    /// bad path fails before any task runs.
    pub fn create(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir.join("logs"))
            .with_context(|| format!("cannot create the results directory {}", dir.display()))?;
        let records_path = dir.join("records.ndjson");
        let records = File::create(&records_path)
            .with_context(|| format!("cannot create {}", records_path.display()))?;
        Ok(Self {
            dir: dir.to_owned(),
            records: BufWriter::new(records),
            logs: HashMap::new(),
        })
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

/// The stem of a participant's log file (`logs/<stem>.log`): the name itself when it is
/// file-name safe and short, else a sanitised prefix and a hash, so distinct participants
/// never share a file.
pub fn file_name(participant: &str) -> String {
    paths::safe_component(participant)
}

/// The participants whose log file is not `logs/<name>.log` (their name is not a safe,
/// short file name), each with its file relative to the results directory; `run.json` lists
/// them.
pub fn renamed_log_files<'a>(
    participants: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, String> {
    participants
        .into_iter()
        .filter_map(|name| {
            let stem = file_name(name);
            (stem != name).then(|| (name.to_owned(), format!("logs/{stem}.log")))
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

/// Reads `records.ndjson` back.
pub(crate) fn read_records(dir: &Path) -> Result<Vec<RecordLine>> {
    let path = dir.join("records.ndjson");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(|(index, line)| {
            serde_json::from_str(line)
                .with_context(|| format!("{} line {} is not a record", path.display(), index + 1))
        })
        .collect()
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
        let manifest = test_manifest(json!({
            "display": {"metrics": []},
            "logFiles": {"a/b": "logs/a_b~0123456789abcdef.log"},
        }));
        writer.write_run_json(&manifest).unwrap();
        assert_eq!(read_manifest(dir.path()).unwrap(), manifest);
    }

    #[test]
    fn only_participants_without_a_safe_file_name_are_listed_as_renamed() {
        let long = "n".repeat(300);
        let renamed = renamed_log_files(["alpha", "a/b", "a_b", long.as_str()]);
        assert_eq!(
            renamed.keys().map(String::as_str).collect::<Vec<_>>(),
            ["a/b", long.as_str()]
        );
        assert_eq!(renamed["a/b"], format!("logs/{}.log", file_name("a/b")));
        assert_ne!(file_name("a/b"), file_name("a_b"));
        assert!(renamed[&long].len() < 80, "{}", renamed[&long]);
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
