//! `--export-junit`: JUnit XML for CI test reports — one test suite per participant, one
//! test case per task record. A failed record is a `<failure>` whose `type` is its
//! errorCode and whose `message` is its `errorMessage` (or the errorCode when it has none);
//! the record's JSON is the failure's text. A scored run adds each participant's overall
//! composite score and success rate as suite properties.

use super::Exporter;
use crate::js;
use crate::record::TaskRecord;
use crate::report::summary::Summary;
use anyhow::Result;
use std::fmt::Write as _;

/// Writes the records as JUnit XML.
pub(super) struct JunitExporter;

impl Exporter for JunitExporter {
    fn serialize(
        &self,
        summary: &Summary,
        records: &[(String, Vec<TaskRecord>)],
    ) -> Result<Vec<u8>> {
        let all = records.iter().flat_map(|(_, records)| records);
        let overall = summary.overall_rows();
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            xml,
            "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" time=\"{}\">",
            escape(&summary.benchmark_name),
            all.clone().count(),
            all.clone().filter(|record| !record.is_success()).count(),
            seconds(all.map(|record| record.latency_ms).sum()),
        );
        for (participant, records) in records {
            let _ = writeln!(
                xml,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{}\">",
                escape(participant),
                records.len(),
                records.iter().filter(|record| !record.is_success()).count(),
                seconds(records.iter().map(|record| record.latency_ms).sum()),
            );
            if let Some(row) = overall.iter().find(|row| &row.provider == participant) {
                xml.push_str("    <properties>\n");
                for (name, value) in [
                    ("compositeScore", row.composite_score),
                    ("successRate", row.success_rate),
                ] {
                    let _ = writeln!(
                        xml,
                        "      <property name=\"{name}\" value=\"{}\"/>",
                        js::number_to_string(value)
                    );
                }
                xml.push_str("    </properties>\n");
            }
            let class = escape(&format!("{}.{participant}", summary.benchmark_slug));
            for record in records {
                test_case(&mut xml, &class, record);
            }
            xml.push_str("  </testsuite>\n");
        }
        xml.push_str("</testsuites>\n");
        Ok(xml.into_bytes())
    }
}

fn test_case(xml: &mut String, class: &str, record: &TaskRecord) {
    let phase = record
        .data
        .as_ref()
        .and_then(|data| data.get("phase"))
        .and_then(|phase| phase.as_str());
    let name = match phase {
        Some(phase) => format!("task {} ({phase})", record.task_index),
        None => format!("task {}", record.task_index),
    };
    let _ = write!(
        xml,
        "    <testcase name=\"{}\" classname=\"{class}\" time=\"{}\"",
        escape(&name),
        seconds(record.latency_ms)
    );
    if record.is_success() {
        xml.push_str("/>\n");
        return;
    }
    let message = record
        .data
        .as_ref()
        .and_then(|data| data.get("errorMessage"))
        .and_then(|message| message.as_str())
        .unwrap_or_else(|| record.error_label());
    let text = serde_json::to_string(record).unwrap_or_default();
    let _ = write!(
        xml,
        ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
        escape(record.error_label()),
        escape(message),
        escape(&text)
    );
}

fn seconds(ms: f64) -> String {
    js::number_to_string(ms / 1000.0)
}

/// Text safe in XML attributes and content; characters XML 1.0 cannot hold become U+FFFD.
fn escape(text: &str) -> String {
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
    use crate::record::Status;
    use crate::report::participants::ParticipantStats;
    use crate::report::summary::Verdict;
    use serde_json::json;

    #[test]
    fn failures_carry_code_and_message_and_text_is_escaped() {
        let summary = Summary {
            benchmark_slug: "s".into(),
            benchmark_name: "Q&A".into(),
            run: json!({}),
            verdict: Verdict::Unscored(vec![ParticipantStats {
                participant: "p".into(),
                tasks: 2,
                succeeded: 1,
                metrics: vec![],
            }]),
        };
        let record = |index, status, code: Option<&str>, data: serde_json::Value| TaskRecord {
            task_index: index,
            status,
            started_at: "a".into(),
            error_code: code.map(String::from),
            data: data.as_object().cloned(),
            completed_at: "b".into(),
            latency_ms: 1500.0,
            steps: vec![],
        };
        let records = vec![(
            "p".to_string(),
            vec![
                record(0, Status::Success, None, json!({"phase": "cold"})),
                record(
                    1,
                    Status::Error,
                    Some("trap"),
                    json!({"errorMessage": "bad \"<x>\"\u{1}"}),
                ),
            ],
        )];
        let xml = String::from_utf8(JunitExporter.serialize(&summary, &records).unwrap()).unwrap();
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
}
