//! Reads `records.ndjson` for the delivery, never more than one line (and one batch) at a
//! time: [`RecordsTail`] follows the file as it grows and says whose each new record is and
//! whether it succeeded; [`read_batch`] reads a participant's records again, from a known
//! place in the file, as the JSON text of a batch. The platform is sent what this reads —
//! records the results writer has already put on disk — each exactly as written (key order
//! kept) but for its `participant` key.

use anyhow::{bail, Context as _, Result};
use bench_model::record::WARMUP_PHASE;
use bench_report::input::{self, ResultsDir, MAX_LINE_BYTES};
use serde::Deserialize;
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The records file of a results directory.
pub(crate) const RECORDS_FILE: &str = "records.ndjson";

/// What the delivery needs to know of a record as it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RecordLine {
    /// Whose record it is.
    pub(crate) participant: String,
    /// Whether its status is `success`.
    pub(crate) success: bool,
    /// Its task.
    pub(crate) task_index: Option<u32>,
    /// Whether it is in phase `warmup`.
    pub(crate) warmup: bool,
    /// Its line's number in the file (from 1).
    pub(crate) line: usize,
}

/// The keys of a record line the tail reads; the others are skipped unparsed.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Head {
    participant: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    task_index: Option<u32>,
    #[serde(default)]
    data: Option<HeadData>,
}

/// The key of a record's `data` the tail reads.
#[derive(Deserialize)]
struct HeadData {
    #[serde(default)]
    phase: Option<Value>,
}

impl Head {
    /// Whether the record is in phase `warmup`.
    fn is_warmup(&self) -> bool {
        self.data
            .as_ref()
            .and_then(|data| data.phase.as_ref())
            .is_some_and(|phase| phase == WARMUP_PHASE)
    }
}

/// A reader of the complete lines appended to a results directory's `records.ndjson`.
pub(crate) struct RecordsTail {
    dir: PathBuf,
    path: PathBuf,
    reader: Option<BufReader<File>>,
    /// The start of a line whose end is not written yet.
    partial: Vec<u8>,
    /// Complete lines read so far.
    lines: usize,
}

impl RecordsTail {
    /// A reader positioned at the start of `<dir>/records.ndjson`.
    pub(crate) fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_owned(),
            path: dir.join(RECORDS_FILE),
            reader: None,
            partial: Vec::new(),
            lines: 0,
        }
    }

    /// Calls `each` with every record line completed since the last call, in file order.
    /// A line that is not a record is an error naming its line number.
    pub(crate) fn read_new(&mut self, mut each: impl FnMut(RecordLine)) -> Result<()> {
        if self.reader.is_none() {
            match open_records(&self.dir)? {
                Some(file) => self.reader = Some(BufReader::new(file)),
                None => return Ok(()),
            }
        }
        let reader = self.reader.as_mut().expect("opened above");
        loop {
            let room = (MAX_LINE_BYTES + 1).saturating_sub(self.partial.len()) as u64;
            let read = reader
                .by_ref()
                .take(room)
                .read_until(b'\n', &mut self.partial)
                .with_context(|| format!("cannot read {}", self.path.display()))?;
            if !self.partial.ends_with(b"\n") {
                if self.partial.len() > MAX_LINE_BYTES {
                    return Err(input::too_long(&self.path, self.lines + 1));
                }
                if read == 0 {
                    return Ok(());
                }
                continue;
            }
            self.lines += 1;
            if !is_blank(&self.partial) {
                let head: Head = serde_json::from_slice(&self.partial)
                    .map_err(|error| not_a_record(&self.path, self.lines, &error))?;
                each(RecordLine {
                    success: head.status.as_deref() == Some("success"),
                    task_index: head.task_index,
                    warmup: head.is_warmup(),
                    line: self.lines,
                    participant: head.participant,
                });
            }
            self.partial.clear();
        }
    }

    /// The number of the last line when it is not complete yet (a file cut short ends
    /// with one), as of the last [`RecordsTail::read_new`].
    pub(crate) fn incomplete_line(&self) -> Option<usize> {
        (!is_blank(&self.partial)).then_some(self.lines + 1)
    }
}

/// `<dir>/records.ndjson`, opened inside the results directory; `None` when it is missing.
fn open_records(dir: &Path) -> Result<Option<File>> {
    ResultsDir::open(dir)?.open_file(RECORDS_FILE)
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// `<path> line <n> is not a record: <what> (column <c>)`.
fn not_a_record(path: &Path, line: usize, error: &serde_json::Error) -> anyhow::Error {
    let message = error.to_string();
    let what = message.split(" at line ").next().unwrap_or(&message);
    anyhow::anyhow!(
        "{} line {line} is not a record: {what} (column {})",
        path.display(),
        error.column()
    )
}

/// A place in `records.ndjson` from which a participant's records are read: the byte
/// offset of a line, its number, and how many of the participant's records come before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Checkpoint {
    /// Where the line starts.
    pub(crate) offset: u64,
    /// Lines before it.
    pub(crate) line: usize,
    /// The participant's records before it.
    pub(crate) index: usize,
}

/// A participant's records as a batch sends them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BatchText {
    /// The records as JSON, separated by commas (the inside of the `records` array).
    pub(crate) json: Vec<u8>,
    /// How many records it holds.
    pub(crate) count: usize,
    /// Where the participant's next record is looked for.
    pub(crate) next: Checkpoint,
}

/// Which records [`read_batch`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BatchRange<'a> {
    /// Whose records.
    pub(crate) participant: &'a str,
    /// The first (its index among the participant's records).
    pub(crate) from: usize,
    /// One past the last.
    pub(crate) to: usize,
    /// Stop before the text would exceed this many bytes (it holds at least one record).
    pub(crate) max_bytes: usize,
    /// Added to each record's `taskIndex` (the start of the worker's range).
    pub(crate) shift: u64,
    /// Warm-up records are left out (the run warmed up).
    pub(crate) skip_warmups: bool,
}

/// Reads records `range.from..range.to` of a participant from `<dir>/records.ndjson`,
/// starting at `at` (whose `index` is at most `range.from`), each without its
/// `participant` key and with its `taskIndex` shifted; fewer when `max_bytes` is reached.
pub(crate) fn read_batch(dir: &Path, at: Checkpoint, range: BatchRange<'_>) -> Result<BatchText> {
    let path = dir.join(RECORDS_FILE);
    let cannot_read = || format!("cannot read {}", path.display());
    let mut file = open_records(dir)?
        .ok_or_else(|| anyhow::anyhow!("cannot read {}: there is no such file", path.display()))?;
    file.seek(SeekFrom::Start(at.offset))
        .with_context(cannot_read)?;
    let mut reader = BufReader::new(file);
    let mut cursor = at;
    let mut batch = BatchText {
        json: Vec::new(),
        count: 0,
        next: at,
    };
    let mut line = Vec::new();
    while cursor.index < range.to {
        line.clear();
        let read = match input::read_line(&mut reader, &mut line).with_context(cannot_read)? {
            input::Line::TooLong => return Err(input::too_long(&path, cursor.line + 1)),
            input::Line::End => 0,
            input::Line::Read(read) => read,
        };
        if read == 0 || !line.ends_with(b"\n") {
            bail!(
                "{} ends before record {} of {}",
                path.display(),
                range.to,
                range.participant
            );
        }
        let line_start = cursor.offset;
        cursor.offset += read as u64;
        cursor.line += 1;
        if is_blank(&line) {
            continue;
        }
        let head: Head = serde_json::from_slice(&line)
            .map_err(|error| not_a_record(&path, cursor.line, &error))?;
        if head.participant != range.participant || (range.skip_warmups && head.is_warmup()) {
            continue;
        }
        if cursor.index >= range.from {
            let record = record_text(&line, range.shift)
                .map_err(|error| not_a_record(&path, cursor.line, &error))?;
            let separator = usize::from(batch.count > 0);
            if batch.count > 0 && batch.json.len() + separator + record.len() > range.max_bytes {
                batch.next = Checkpoint {
                    offset: line_start,
                    line: cursor.line - 1,
                    index: cursor.index,
                };
                return Ok(batch);
            }
            if separator == 1 {
                batch.json.push(b',');
            }
            batch.json.extend_from_slice(&record);
            batch.count += 1;
        }
        cursor.index += 1;
        batch.next = cursor;
    }
    Ok(batch)
}

/// A record line as sent: without its `participant` key, `taskIndex` shifted by `shift`.
fn record_text(line: &[u8], shift: u64) -> serde_json::Result<Vec<u8>> {
    let mut record: Value = serde_json::from_slice(line)?;
    if let Some(map) = record.as_object_mut() {
        map.shift_remove("participant");
        if shift > 0 {
            if let Some(index) = map.get("taskIndex").and_then(Value::as_u64) {
                map.insert("taskIndex".into(), Value::from(index + shift));
            }
        }
    }
    serde_json::to_vec(&record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines(tail: &mut RecordsTail) -> Vec<RecordLine> {
        let mut lines = Vec::new();
        tail.read_new(|line| lines.push(line)).unwrap();
        lines
    }

    fn line(participant: &str, success: bool, task_index: u32, line: usize) -> RecordLine {
        RecordLine {
            participant: participant.into(),
            success,
            task_index: Some(task_index),
            warmup: false,
            line,
        }
    }

    #[test]
    fn only_complete_lines_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut tail = RecordsTail::new(dir.path());
        assert!(lines(&mut tail).is_empty(), "no file yet");
        let mut file = File::create(dir.path().join(RECORDS_FILE)).unwrap();
        let complete = r#"{"participant":"a","taskIndex":0,"status":"success","steps":[]}"#;
        write!(file, "{complete}\n\n{{\"participant\":\"b\",\"taskIn").unwrap();
        assert_eq!(lines(&mut tail), [line("a", true, 0, 1)]);
        assert_eq!(tail.incomplete_line(), Some(3));
        writeln!(file, r#"dex":1,"status":"error"}}"#).unwrap();
        assert_eq!(lines(&mut tail), [line("b", false, 1, 3)]);
        assert_eq!(tail.incomplete_line(), None);
        assert!(lines(&mut tail).is_empty());
    }

    #[test]
    fn a_line_that_is_not_a_record_is_named_by_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let text = "{\"participant\":\"a\"}\n{\"participant\":\"a\"}\nnot json\n";
        std::fs::write(dir.path().join(RECORDS_FILE), text).unwrap();
        let error = RecordsTail::new(dir.path()).read_new(drop).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{} line 3 is not a record: expected ident (column 2)",
                dir.path().join(RECORDS_FILE).display()
            )
        );
        std::fs::write(dir.path().join(RECORDS_FILE), "{\"taskIndex\":0}\n").unwrap();
        let error = RecordsTail::new(dir.path()).read_new(drop).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("line 1 is not a record: missing field `participant` (column 15)"),
            "{error}"
        );
    }

    /// Round-mode records: `a` and `b` interleaved, 3 each.
    fn interleaved(dir: &Path) {
        let mut text = String::new();
        for index in 0..3 {
            for participant in ["a", "b"] {
                text.push_str(&format!(
                    "{{\"participant\":\"{participant}\",\"taskIndex\":{index},\"status\":\"success\"}}\n"
                ));
            }
        }
        std::fs::write(dir.join(RECORDS_FILE), text).unwrap();
    }

    #[test]
    fn a_batch_is_one_participants_records_as_sent() {
        let dir = tempfile::tempdir().unwrap();
        interleaved(dir.path());
        let range = BatchRange {
            participant: "b",
            from: 1,
            to: 3,
            max_bytes: usize::MAX,
            shift: 10,
            skip_warmups: false,
        };
        let batch = read_batch(dir.path(), Checkpoint::default(), range).unwrap();
        assert_eq!(
            String::from_utf8(batch.json).unwrap(),
            r#"{"taskIndex":11,"status":"success"},{"taskIndex":12,"status":"success"}"#
        );
        assert_eq!(batch.count, 2);
        assert_eq!(batch.next.index, 3);
        assert_eq!(batch.next.line, 6);
    }

    #[test]
    fn a_batch_stops_at_its_byte_limit_and_resumes_where_it_stopped() {
        let dir = tempfile::tempdir().unwrap();
        interleaved(dir.path());
        let one = r#"{"taskIndex":0,"status":"success"}"#.len();
        let range = |from| BatchRange {
            participant: "a",
            from,
            to: 3,
            max_bytes: one + 1,
            shift: 0,
            skip_warmups: false,
        };
        let first = read_batch(dir.path(), Checkpoint::default(), range(0)).unwrap();
        assert_eq!(first.count, 1);
        assert_eq!(first.next.index, 1);
        let rest = read_batch(
            dir.path(),
            first.next,
            BatchRange {
                max_bytes: usize::MAX,
                ..range(1)
            },
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(rest.json).unwrap(),
            r#"{"taskIndex":1,"status":"success"},{"taskIndex":2,"status":"success"}"#
        );
        let tiny = read_batch(
            dir.path(),
            Checkpoint::default(),
            BatchRange {
                max_bytes: 1,
                ..range(0)
            },
        )
        .unwrap();
        assert_eq!(tiny.count, 1, "at least one record");
        let missing = read_batch(
            dir.path(),
            Checkpoint::default(),
            BatchRange {
                to: 4,
                max_bytes: usize::MAX,
                ..range(0)
            },
        );
        assert!(missing
            .unwrap_err()
            .to_string()
            .ends_with("ends before record 4 of a"));
    }

    #[test]
    fn warm_up_records_are_left_out_of_batches_of_a_run_that_warmed_up() {
        let dir = tempfile::tempdir().unwrap();
        let text = "{\"participant\":\"a\",\"taskIndex\":0,\"data\":{\"phase\":\"warmup\"}}\n\
                    {\"participant\":\"a\",\"taskIndex\":0,\"data\":{\"phase\":\"cold\"}}\n";
        std::fs::write(dir.path().join(RECORDS_FILE), text).unwrap();
        let mut tail = RecordsTail::new(dir.path());
        let warmups: Vec<bool> = lines(&mut tail).iter().map(|line| line.warmup).collect();
        assert_eq!(warmups, [true, false]);
        let range = |skip_warmups| BatchRange {
            participant: "a",
            from: 0,
            to: 1,
            max_bytes: usize::MAX,
            shift: 0,
            skip_warmups,
        };
        let batch = read_batch(dir.path(), Checkpoint::default(), range(true)).unwrap();
        assert_eq!(
            String::from_utf8(batch.json).unwrap(),
            r#"{"taskIndex":0,"data":{"phase":"cold"}}"#
        );
        let batch = read_batch(dir.path(), Checkpoint::default(), range(false)).unwrap();
        assert!(String::from_utf8(batch.json).unwrap().contains("warmup"));
    }

    #[test]
    fn an_uploaded_record_keeps_its_keys_and_durations_as_written() {
        let line = br#"{"participant":"p","taskIndex":2,"status":"success","startedAt":"s","completedAt":"c","latencyMs":1,"durationUs":1234.567,"steps":[{"name":"a","status":"success","latencyMs":0,"durationUs":0.001}]}"#;
        let sent = String::from_utf8(record_text(line, 10).unwrap()).unwrap();
        assert_eq!(
            sent,
            r#"{"taskIndex":12,"status":"success","startedAt":"s","completedAt":"c","latencyMs":1,"durationUs":1234.567,"steps":[{"name":"a","status":"success","latencyMs":0,"durationUs":0.001}]}"#
        );
    }
}
