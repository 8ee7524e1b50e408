//! The local results directory of one run: `run.json`, `records.ndjson` (one record per
//! line, written as each task finishes) and `logs/<participant>.log`, each log capped in
//! lines and bytes and written through a bounded set of open files, everything counted
//! against the run's disk budget and written without following links ([`super::files`]).

use super::disk_budget::DiskBudget;
use super::input::{self, Line, ResultsDir};
use super::planned::PlannedRecords;
use super::{files, paths};
use anyhow::{Context as _, Result};
use bench_model::events::Finished;
use bench_model::plan::RunManifest;
use bench_model::record::TaskRecord;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// The worker that ran the task (distributed runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    worker: Option<&'a str>,
}

/// Writes one run's results directory.
pub struct ResultsWriter {
    dir: PathBuf,
    records: BufWriter<File>,
    logs: HashMap<String, ParticipantLog>,
    /// The participants whose log file is open, by when it was last written (oldest first).
    open_logs: BTreeMap<u64, String>,
    writes: u64,
    max_log_bytes: u64,
    budget: Arc<DiskBudget>,
}

/// One participant's log: its file while open, and how much it holds (capped like
/// upstream's worker log, in lines and in bytes).
struct ParticipantLog {
    path: PathBuf,
    file: Option<BufWriter<File>>,
    last_write: u64,
    lines: usize,
    bytes: u64,
    truncated: bool,
}

/// Most lines of one participant log; then `... (worker log truncated)` and nothing more.
pub(crate) const MAX_LOG_LINES: usize = 100_000;

/// Most participant logs open at once; the least recently written is closed first.
const MAX_OPEN_LOGS: usize = 64;

/// The line that ends a participant log past its cap.
const TRUNCATED: &str = "... (worker log truncated)";

/// The line that ends a participant log when the run reached its disk budget.
const BUDGET_REACHED: &str = "... (disk budget reached: the run was stopped)";

impl ResultsWriter {
    /// Creates the directory, its `logs/` folder and an empty `records.ndjson` up front, so a
    /// bad path fails before any task runs; each participant log holds at most
    /// `max_log_bytes`, and everything written counts against `budget`. A directory whose
    /// `records.ndjson` exists is refused (its records and logs would be mixed with the new
    /// run's), and so is one that is or holds a symlink; callers check
    /// [`Self::refuse_earlier_run`] before they create anything.
    pub fn create(dir: &Path, max_log_bytes: u64, budget: Arc<DiskBudget>) -> Result<Self> {
        files::create_results_dir(dir)?;
        let records_path = dir.join(RECORDS_NDJSON);
        let records = files::create_new(&records_path).map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists => earlier_run(dir),
            _ => anyhow::Error::new(error)
                .context(format!("cannot create {}", records_path.display())),
        })?;
        Ok(Self::writing_to(dir, records, max_log_bytes, budget))
    }

    /// Reopens the results directory of a run that stopped before its end, to go on with
    /// it: records and logs are appended to; a record line cut off by the stop is removed.
    pub fn reopen(dir: &Path, max_log_bytes: u64, budget: Arc<DiskBudget>) -> Result<Self> {
        files::create_results_dir(dir)?;
        let records_path = dir.join(RECORDS_NDJSON);
        let mut records = File::options()
            .read(true)
            .append(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&records_path)
            .with_context(|| format!("cannot reopen {}", records_path.display()))?;
        let length = records
            .metadata()
            .with_context(|| format!("cannot read {}", records_path.display()))?
            .len();
        let whole = whole_lines_length(&mut records, length)
            .with_context(|| format!("cannot read {}", records_path.display()))?;
        if whole < length {
            records
                .set_len(whole)
                .with_context(|| format!("cannot cut {}", records_path.display()))?;
        }
        Ok(Self::writing_to(dir, records, max_log_bytes, budget))
    }

    /// A writer appending records to `records` in `dir`, no participant log open yet.
    fn writing_to(dir: &Path, records: File, max_log_bytes: u64, budget: Arc<DiskBudget>) -> Self {
        Self {
            dir: dir.to_owned(),
            records: BufWriter::new(records),
            logs: HashMap::new(),
            open_logs: BTreeMap::new(),
            writes: 0,
            max_log_bytes,
            budget,
        }
    }

    /// Fails when `dir` already holds a run (its `run.json` or `records.ndjson`, or a link
    /// by either name), or is a symlink.
    pub fn refuse_earlier_run(dir: &Path) -> Result<()> {
        files::refuse_link(dir)?;
        if [RUN_JSON, RECORDS_NDJSON]
            .iter()
            .any(|name| dir.join(name).symlink_metadata().is_ok())
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
        write_manifest(&self.dir, manifest)
    }

    /// Appends a finished task's record and its log lines (written out by [`Self::flush`],
    /// which the executors call at least every 20 ms while tasks run).
    pub(crate) fn append(&mut self, participant: &str, finished: &Finished) -> Result<()> {
        let line = RecordLineRef {
            participant,
            record: &finished.record,
            worker: finished.worker.as_deref(),
        };
        let mut counted = CountingWriter::new(&mut self.records);
        serde_json::to_writer(&mut counted, &line)?;
        counted.write_all(b"\n")?;
        self.budget.charge(counted.written);
        let max_bytes = self.max_log_bytes;
        if finished.log.is_empty() || self.logs.get(participant).is_some_and(|l| l.truncated) {
            return Ok(());
        }
        let budget = self.budget.clone();
        let log = self.open_log(participant)?;
        let file = log.file.as_mut().expect("an opened log has its file");
        for line in &finished.log {
            let line_bytes = line.len() as u64 + 1;
            let bytes = log.bytes.saturating_add(line_bytes);
            let end = if log.lines >= MAX_LOG_LINES || bytes > max_bytes {
                Some(TRUNCATED)
            } else if !budget.admit(line_bytes) {
                Some(BUDGET_REACHED)
            } else {
                None
            };
            if let Some(end) = end {
                writeln!(file, "{end}")?;
                budget.charge(end.len() as u64 + 1);
                log.truncated = true;
                break;
            }
            writeln!(file, "{line}")?;
            log.lines += 1;
            log.bytes = bytes;
        }
        Ok(())
    }

    /// Writes out everything buffered (records and participant logs).
    pub fn flush(&mut self) -> Result<()> {
        self.records
            .flush()
            .context("cannot write records.ndjson")?;
        for name in self.open_logs.values() {
            let file = self.logs.get_mut(name).and_then(|log| log.file.as_mut());
            if let Some(file) = file {
                file.flush().context("cannot write a participant log")?;
            }
        }
        Ok(())
    }

    /// The participant's log with its file open (opened on demand, closing the least
    /// recently written one when [`MAX_OPEN_LOGS`] are open), marked as written now.
    fn open_log(&mut self, participant: &str) -> Result<&mut ParticipantLog> {
        self.writes += 1;
        let now = self.writes;
        let log = match self.logs.get_mut(participant) {
            Some(log) => log,
            None => {
                let path = log_path(&self.dir, participant);
                let log = ParticipantLog {
                    path,
                    file: None,
                    last_write: 0,
                    lines: 0,
                    bytes: 0,
                    truncated: false,
                };
                self.logs.entry(participant.to_owned()).or_insert(log)
            }
        };
        if log.file.is_some() {
            self.open_logs.remove(&log.last_write);
        } else {
            if self.open_logs.len() >= MAX_OPEN_LOGS {
                let (_, oldest) = self.open_logs.pop_first().expect("open logs are not empty");
                let closed = self.logs.get_mut(&oldest).and_then(|l| l.file.take());
                if let Some(mut file) = closed {
                    file.flush().context("cannot write a participant log")?;
                }
            }
            let log = self.logs.get_mut(participant).expect("added above");
            log.file = Some(BufWriter::new(files::append(&log.path)?));
        }
        let log = self.logs.get_mut(participant).expect("added above");
        log.last_write = now;
        self.open_logs.insert(now, participant.to_owned());
        Ok(log)
    }
}

/// The refusal of a results directory that holds a run.
fn earlier_run(dir: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "the results directory {} already holds a run; choose another --out directory or remove it",
        dir.display()
    )
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

/// Writes `manifest` as `dir/run.json` (pretty-printed, replacing any earlier version).
pub(crate) fn write_manifest(dir: &Path, manifest: &RunManifest) -> Result<()> {
    files::write(&dir.join(RUN_JSON), manifest.to_json_text().as_bytes())
}

/// A writer that counts the bytes written through it.
struct CountingWriter<W> {
    inner: W,
    written: u64,
}

impl<W: Write> CountingWriter<W> {
    fn new(inner: W) -> Self {
        Self { inner, written: 0 }
    }
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.written += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The log file of `participant` in the results directory `dir`.
pub(crate) fn log_path(dir: &Path, participant: &str) -> PathBuf {
    dir.join("logs")
        .join(format!("{}.log", file_name(participant)))
}

/// Calls `each` with the participant and record of every record in `dir`'s
/// `records.ndjson`, in file order (nothing is kept).
pub fn for_each_record(dir: &Path, mut each: impl FnMut(&str, &TaskRecord)) -> Result<()> {
    let mut records = RecordsFile::open(&dir.join(RECORDS_NDJSON))?;
    while let Some((_, line)) = records.next_record()? {
        each(&line.participant, &line.record);
    }
    Ok(())
}

/// Reads a results directory's `run.json` back (confined to the directory, its size
/// bounded: see [`ResultsDir`]).
pub fn read_manifest(dir: &Path) -> Result<RunManifest> {
    let path = dir.join(RUN_JSON);
    let manifest = ResultsDir::open(dir)?.read_json(RUN_JSON, "a run manifest")?;
    manifest.ok_or_else(|| anyhow::anyhow!("cannot read {}: there is no such file", path.display()))
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
    /// With a plan, only each task of it once is read ([`RecordsFile::planned`]).
    plan: Option<PlannedRecords>,
}

impl RecordsFile {
    /// [`RecordsFile::open`], reading only the records of the run of `manifest` that count:
    /// each task of its plan once ([`PlannedRecords`]); [`RecordsFile::left_out`] then says
    /// what was not.
    pub(crate) fn planned(path: &Path, manifest: &RunManifest) -> Result<Self> {
        let mut file = Self::open(path)?;
        file.plan = Some(PlannedRecords::new(manifest));
        Ok(file)
    }

    /// The warning about the records a planned reading left out: `<path>: 3 record(s) left
    /// out …`; `None` when it left nothing out.
    pub(crate) fn left_out(&self) -> Option<String> {
        let warning = self.plan.as_ref()?.warning()?;
        Some(format!("{}: {warning}", self.path.display()))
    }

    /// Opens a records file (`<results dir>/records.ndjson`), inside its directory.
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let path = path.to_owned();
        let (dir, name) = ResultsDir::of_file(&path)?;
        let file = dir.open_file(&name)?.ok_or_else(|| {
            anyhow::anyhow!("cannot read {}: there is no such file", path.display())
        })?;
        Ok(Self {
            path,
            reader: BufReader::with_capacity(256 * 1024, file),
            line: String::new(),
            offset: 0,
            line_number: 0,
            plan: None,
        })
    }

    /// The next record and the offset its line starts at; `None` at the end. Blank lines
    /// are skipped, and so is a last line cut off without its newline (a run killed while
    /// writing it), with a warning: every whole record before it counts.
    pub(crate) fn next_record(&mut self) -> Result<Option<(u64, RecordLine)>> {
        loop {
            let start = self.offset;
            if !self.read_line()? {
                return Ok(None);
            }
            if self.line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<RecordLine>(&self.line) {
                Ok(record) => {
                    let number = self.line_number;
                    let counts = self.plan.as_mut().is_none_or(|plan| {
                        plan.check(&record.participant, &record.record, number)
                            .is_none()
                    });
                    if counts {
                        return Ok(Some((start, record)));
                    }
                }
                Err(_) if !self.line.ends_with('\n') => {
                    eprintln!(
                        "[bench] {} ends in a cut-off line {} (the run stopped while writing it); it is left out",
                        self.path.display(),
                        self.line_number
                    );
                    return Ok(None);
                }
                Err(error) => {
                    let path = self.path.display();
                    return Err(anyhow::Error::new(error)
                        .context(format!("{path} line {} is not a record", self.line_number)));
                }
            }
        }
    }

    /// The number of the line [`Self::next_record`] read last (from 1).
    pub(crate) fn line_number(&self) -> usize {
        self.line_number
    }

    /// The text of the line [`Self::next_record`] read last, with its newline.
    pub(crate) fn line(&self) -> &str {
        &self.line
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

    /// Reads one line (at most [`input::MAX_LINE_BYTES`]) into `self.line`; false at the
    /// end of the file.
    fn read_line(&mut self) -> Result<bool> {
        let mut bytes = std::mem::take(&mut self.line).into_bytes();
        let read = input::read_line(&mut self.reader, &mut bytes)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        self.line_number += 1;
        let read = match read {
            Line::End => return Ok(false),
            Line::TooLong => return Err(input::too_long(&self.path, self.line_number)),
            Line::Read(read) => read,
        };
        self.offset += read as u64;
        self.line = String::from_utf8(bytes).map_err(|_| {
            let path = self.path.display();
            anyhow::anyhow!("{path} line {} is not UTF-8 text", self.line_number)
        })?;
        Ok(true)
    }
}

/// The length of `file`'s whole lines: up to and including its last newline (0 when it has
/// none). Reads backwards from the end in blocks, so a long records file is not read whole.
fn whole_lines_length(file: &mut File, length: u64) -> std::io::Result<u64> {
    const BLOCK: u64 = 64 * 1024;
    let mut block = vec![0; BLOCK as usize];
    let mut end = length;
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let read = &mut block[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(read)?;
        if let Some(newline) = read.iter().rposition(|byte| *byte == b'\n') {
            return Ok(start + newline as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::plan::test_manifest;
    use serde_json::json;

    #[test]
    fn a_cut_off_last_line_is_left_out_and_a_broken_line_before_it_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORDS_NDJSON);
        let whole = r#"{"participant":"p","taskIndex":0,"status":"success","startedAt":"a","errorCode":null,"completedAt":"b","latencyMs":1,"steps":[]}"#;
        std::fs::write(&path, format!("{whole}\n{{\"taskIndex\":1,\"sta")).unwrap();
        let mut file = RecordsFile::open(&path).unwrap();
        assert!(file.next_record().unwrap().is_some());
        assert!(file.next_record().unwrap().is_none());

        std::fs::write(&path, format!("{{\"taskIndex\":1,\"sta\n{whole}\n")).unwrap();
        let mut file = RecordsFile::open(&path).unwrap();
        let error = file.next_record().unwrap_err().to_string();
        assert!(
            error.ends_with("records.ndjson line 1 is not a record"),
            "{error}"
        );
    }

    #[test]
    fn whole_lines_end_at_the_last_newline_even_blocks_before_the_end() {
        let length = |text: &[u8]| {
            let mut file = tempfile::tempfile().unwrap();
            file.write_all(text).unwrap();
            whole_lines_length(&mut file, text.len() as u64).unwrap()
        };
        assert_eq!(length(b""), 0);
        assert_eq!(length(b"{\"cut"), 0);
        assert_eq!(length(b"a\nb\n"), 4);
        assert_eq!(length(b"a\nb\ncut"), 4);
        let mut long = b"first\nsecond\n".to_vec();
        long.extend(std::iter::repeat_n(b'x', 200_000));
        assert_eq!(length(&long), 13, "a cut-off line over three blocks long");
        assert_eq!(length(&vec![b'x'; 200_000]), 0);
    }

    #[test]
    fn a_reopened_directory_drops_a_cut_off_record_and_appends() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer =
            ResultsWriter::create(dir.path(), 1 << 20, DiskBudget::unlimited()).unwrap();
        writer.append("a", &finished(&[])).unwrap();
        writer.flush().unwrap();
        drop(writer);
        let path = dir.path().join(RECORDS_NDJSON);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"participant\":\"a\",\"taskI");
        std::fs::write(&path, text).unwrap();
        let mut writer =
            ResultsWriter::reopen(dir.path(), 1 << 20, DiskBudget::unlimited()).unwrap();
        writer.append("b", &finished(&[])).unwrap();
        writer.flush().unwrap();
        let mut seen = Vec::new();
        for_each_record(dir.path(), |participant, record| {
            seen.push((participant.to_owned(), record.task_index))
        })
        .unwrap();
        assert_eq!(seen, [("a".to_owned(), 0), ("b".to_owned(), 0)]);
    }

    #[test]
    fn the_manifest_written_is_the_manifest_read() {
        let dir = tempfile::tempdir().unwrap();
        let writer = ResultsWriter::create(dir.path(), 1 << 20, DiskBudget::unlimited()).unwrap();
        let manifest = test_manifest(json!({
            "display": {"metrics": []},
            "logFiles": {"a/b": "logs/a_b~0123456789abcdef.log"},
        }));
        writer.write_run_json(&manifest).unwrap();
        assert_eq!(read_manifest(dir.path()).unwrap(), manifest);
    }

    fn finished(log: &[&str]) -> Finished {
        Finished {
            record: TaskRecord {
                task_index: 0,
                status: bench_model::record::Status::Success,
                started_at: String::new(),
                error_code: None,
                data: None,
                completed_at: String::new(),
                latency_ms: 0.0,
                duration_us: None,
                guest_cpu_us: None,
                steps: Vec::new(),
                arrival: None,
            },
            log: log.iter().map(|line| line.to_string()).collect(),
            worker: None,
        }
    }

    fn log_text(dir: &Path, participant: &str) -> String {
        std::fs::read_to_string(dir.join(format!("logs/{}.log", file_name(participant)))).unwrap()
    }

    #[test]
    fn more_participants_than_open_files_keep_every_line_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer =
            ResultsWriter::create(dir.path(), 1 << 20, DiskBudget::unlimited()).unwrap();
        let names: Vec<String> = (0..MAX_OPEN_LOGS * 3).map(|i| format!("p{i}")).collect();
        for round in 0..3 {
            for name in &names {
                writer
                    .append(name, &finished(&[&format!("{name} line {round}")]))
                    .unwrap();
            }
        }
        assert_eq!(writer.open_logs.len(), MAX_OPEN_LOGS);
        writer.flush().unwrap();
        for name in &names {
            assert_eq!(
                log_text(dir.path(), name),
                format!("{name} line 0\n{name} line 1\n{name} line 2\n")
            );
        }
    }

    #[test]
    fn a_participant_log_stops_at_its_byte_cap_with_a_marker() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = ResultsWriter::create(dir.path(), 12, DiskBudget::unlimited()).unwrap();
        writer.append("a", &finished(&["12345", "67890"])).unwrap();
        writer.append("a", &finished(&["x"])).unwrap();
        writer.append("a", &finished(&["y"])).unwrap();
        writer.flush().unwrap();
        assert_eq!(
            log_text(dir.path(), "a"),
            "12345\n67890\n... (worker log truncated)\n"
        );
    }

    #[test]
    fn reaching_the_disk_budget_stops_the_run_and_ends_the_logs_with_a_marker() {
        let dir = tempfile::tempdir().unwrap();
        let stop = bench_model::stop::RunStop::default();
        let budget = DiskBudget::new(Some(600), stop.clone());
        let mut writer = ResultsWriter::create(dir.path(), 1 << 20, budget.clone()).unwrap();
        let line = "l".repeat(99);
        writer.append("a", &finished(&[&line])).unwrap();
        assert!(!stop.is_stopping());
        writer
            .append("a", &finished(&[&line, &line, &line, &line]))
            .unwrap();
        writer.append("a", &finished(&[&line])).unwrap();
        writer.flush().unwrap();
        assert!(stop.is_stopping(), "used {}", budget.used());
        assert_eq!(budget.reached(), Some(600));
        let log = log_text(dir.path(), "a");
        assert!(
            log.ends_with("\n... (disk budget reached: the run was stopped)\n"),
            "{log}"
        );
        let records = std::fs::read_to_string(dir.path().join(RECORDS_NDJSON)).unwrap();
        assert_eq!(records.lines().count(), 3, "every record is kept whole");
    }

    #[test]
    fn a_results_directory_holding_a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let results = dir.path().join("results");
        std::fs::create_dir(&results).unwrap();
        std::os::unix::fs::symlink(&victim, results.join(RUN_JSON)).unwrap();
        assert!(ResultsWriter::refuse_earlier_run(&results).is_err());
        std::fs::remove_file(results.join(RUN_JSON)).unwrap();
        std::os::unix::fs::symlink(&victim, results.join("metrics.jsonl")).unwrap();
        assert!(ResultsWriter::create(&results, 1 << 20, DiskBudget::unlimited()).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
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
