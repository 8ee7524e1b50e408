//! `--export-junit`: JUnit XML for CI test reports — one test suite per participant, one
//! test case per task record. A failed record is a `<failure>` whose `type` is its
//! errorCode and whose `message` is its `errorMessage` (or the errorCode when it has none);
//! the record's JSON is the failure's text. A scored run adds each participant's overall
//! composite score and success rate as suite properties.

use super::Exporter;
use crate::results::{read_manifest, RecordsFile};
use crate::summary::Summary;
use anyhow::Result;
use bench_model::js;
use bench_model::record::TaskRecord;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Writes the records as JUnit XML.
pub(super) struct JunitExporter;

/// Where one record's line is and what the suite totals need of it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    task_index: u32,
    failed: bool,
    latency_ms: f64,
    offset: u64,
}

impl Exporter for JunitExporter {
    /// Reads `records.ndjson` twice: once for an index of every record (24 bytes each,
    /// sorted by task index per participant), then each record again while writing its
    /// test case.
    fn write(&self, summary: &Summary, records: &Path, out: &mut dyn Write) -> Result<()> {
        let manifest = read_manifest(records.parent().unwrap_or(Path::new(".")))?;
        let mut file = RecordsFile::planned(records, &manifest)?;
        let mut names: Vec<String> = summary
            .participant_names()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let mut index_by_name: HashMap<String, usize> = names
            .iter()
            .enumerate()
            .map(|(index, name)| (name.clone(), index))
            .collect();
        let mut suites: Vec<Vec<Entry>> = vec![Vec::new(); names.len()];
        while let Some((offset, line)) = file.next_record()? {
            let suite = *index_by_name
                .entry(line.participant.clone())
                .or_insert_with(|| {
                    names.push(line.participant.clone());
                    suites.push(Vec::new());
                    suites.len() - 1
                });
            suites[suite].push(Entry {
                task_index: line.record.task_index,
                failed: !line.record.is_success(),
                latency_ms: line.record.latency_ms,
                offset,
            });
        }
        for entries in &mut suites {
            entries.sort_by_key(|entry| entry.task_index);
        }
        let all = suites.iter().flatten();
        let overall = summary.overall_rows();
        writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
        writeln!(
            out,
            "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" time=\"{}\">",
            escape_xml(&summary.benchmark_name),
            all.clone().count(),
            all.clone().filter(|entry| entry.failed).count(),
            seconds(all.map(|entry| entry.latency_ms).sum()),
        )?;
        for (participant, entries) in names.iter().zip(&suites) {
            writeln!(
                out,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{}\">",
                escape_xml(participant),
                entries.len(),
                entries.iter().filter(|entry| entry.failed).count(),
                seconds(entries.iter().map(|entry| entry.latency_ms).sum()),
            )?;
            if let Some(row) = overall.iter().find(|row| &row.provider == participant) {
                writeln!(out, "    <properties>")?;
                for (name, value) in [
                    ("compositeScore", row.composite_score),
                    ("successRate", row.success_rate),
                ] {
                    writeln!(
                        out,
                        "      <property name=\"{name}\" value=\"{}\"/>",
                        js::number_to_string(value)
                    )?;
                }
                writeln!(out, "    </properties>")?;
            }
            let class = escape_xml(&format!("{}.{participant}", summary.benchmark_slug));
            for entry in entries {
                let line = file.record_at(entry.offset)?;
                test_case(out, &class, &line.record)?;
            }
            writeln!(out, "  </testsuite>")?;
        }
        writeln!(out, "</testsuites>")?;
        Ok(())
    }
}

fn test_case(out: &mut dyn Write, class: &str, record: &TaskRecord) -> Result<()> {
    let phase = record
        .data
        .as_ref()
        .and_then(|data| data.get("phase"))
        .and_then(|phase| phase.as_str());
    let name = match phase {
        Some(phase) => format!("task {} ({phase})", record.task_index),
        None => format!("task {}", record.task_index),
    };
    write!(
        out,
        "    <testcase name=\"{}\" classname=\"{class}\" time=\"{}\"",
        escape_xml(&name),
        seconds(record.latency_ms)
    )?;
    if record.is_success() {
        writeln!(out, "/>")?;
        return Ok(());
    }
    let message = record
        .error_message()
        .unwrap_or_else(|| record.error_label());
    let text = serde_json::to_string(record).unwrap_or_default();
    write!(
        out,
        ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
        escape_xml(record.error_label()),
        escape_xml(message),
        escape_xml(&text)
    )?;
    Ok(())
}

fn seconds(ms: f64) -> String {
    js::number_to_string(ms / 1000.0)
}

/// Text safe in XML attributes and content; characters XML 1.0 cannot hold become U+FFFD.
fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if u32::from(c) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::participants::ParticipantStats;
    use crate::results::RecordLine;
    use crate::summary::Verdict;
    use bench_model::record::Status;
    use serde_json::json;

    /// The JUnit XML of `summary` over a records file holding `lines`, in that order (the
    /// run planned 10 tasks for each participant they name).
    fn junit(summary: &Summary, lines: Vec<(&str, TaskRecord)>) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records.ndjson");
        let mut participants: Vec<&str> = lines.iter().map(|(name, _)| *name).collect();
        participants.dedup();
        let manifest = bench_model::plan::test_manifest(
            json!({"iterations": 10, "participants": participants}),
        );
        std::fs::write(dir.path().join("run.json"), manifest.to_json_text()).unwrap();
        let mut text = String::new();
        for (participant, record) in lines {
            let participant = participant.to_owned();
            text.push_str(
                &serde_json::to_string(&RecordLine {
                    participant,
                    record,
                })
                .unwrap(),
            );
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        let mut xml = Vec::new();
        JunitExporter.write(summary, &path, &mut xml).unwrap();
        String::from_utf8(xml).unwrap()
    }

    #[test]
    fn failures_carry_code_and_message_and_text_is_escaped() {
        let summary = Summary {
            benchmark_slug: "s".into(),
            benchmark_name: "Q&A".into(),
            run: Default::default(),
            verdict: Verdict::Unscored(vec![ParticipantStats {
                participant: "p".into(),
                tasks: 2,
                succeeded: 1,
                metrics: vec![],
            }]),
            load: None,
        };
        let record = |index, status, code: Option<&str>, data: serde_json::Value| TaskRecord {
            task_index: index,
            status,
            started_at: "a".into(),
            error_code: code.map(String::from),
            data: data.as_object().cloned(),
            completed_at: "b".into(),
            latency_ms: 1500.0,
            duration_us: None,
            guest_cpu_us: None,
            steps: vec![],
            arrival: None,
        };
        let failed = record(
            1,
            Status::Error,
            Some("trap"),
            json!({"errorMessage": "bad \"<x>\"\u{1}"}),
        );
        let xml = junit(
            &summary,
            vec![
                ("p", failed),
                (
                    "p",
                    record(0, Status::Success, None, json!({"phase": "cold"})),
                ),
            ],
        );
        assert!(
            xml.contains(r#"<testsuites name="Q&amp;A" tests="2" failures="1" time="3">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testcase name="task 0 (cold)" classname="s.p" time="1.5"/>"#),
            "{xml}"
        );
        let failure = "<failure type=\"trap\" message=\"bad &quot;&lt;x&gt;&quot;\u{FFFD}\">";
        assert!(xml.contains(failure), "{xml}");
        assert!(!xml.contains("<properties>"));
    }

    #[test]
    fn suites_follow_the_summary_and_cases_the_task_order() {
        let stats = |participant: &str| ParticipantStats {
            participant: participant.into(),
            tasks: 0,
            succeeded: 0,
            metrics: vec![],
        };
        let summary = Summary {
            benchmark_slug: "s".into(),
            benchmark_name: "S".into(),
            run: Default::default(),
            verdict: Verdict::Unscored(vec![stats("b"), stats("a"), stats("idle")]),
            load: None,
        };
        let record = |index| TaskRecord {
            task_index: index,
            status: Status::Success,
            started_at: "a".into(),
            error_code: None,
            data: None,
            completed_at: "b".into(),
            latency_ms: 250.0,
            duration_us: None,
            guest_cpu_us: None,
            steps: vec![],
            arrival: None,
        };
        let xml = junit(
            &summary,
            vec![
                ("a", record(2)),
                ("b", record(1)),
                ("a", record(0)),
                ("x", record(0)),
                ("b", record(0)),
                ("a", record(1)),
            ],
        );
        let outline: Vec<&str> = xml
            .lines()
            .filter_map(|line| {
                let name = line.split("name=\"").nth(1)?;
                Some(&name[..name.find('"')?])
            })
            .collect();
        assert_eq!(
            outline,
            [
                "S", "b", "task 0", "task 1", "a", "task 0", "task 1", "task 2", "idle", "x",
                "task 0"
            ]
        );
        assert!(xml.contains(r#"<testsuites name="S" tests="6" failures="0" time="1.5">"#));
        assert!(xml.contains(
            r#"<testsuite name="idle" tests="0" failures="0" errors="0" skipped="0" time="0">"#
        ));
    }
}
