//! `bench report <results-dir>`: re-reads a saved run's `run.json` and `records.ndjson`,
//! then ends it again — summary table, `summary.json` (the same bytes as the run wrote),
//! exports and the `--fail-under` gate — without running anything.

use super::console::Console;
use super::export::{ExportManager, ExportPaths};
use super::finish::{finish, RunResults};
use super::gate;
use super::results::{read_manifest, read_records, RecordLine};
use crate::record::TaskRecord;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// Re-reports the run saved in `dir`.
pub fn report(dir: &Path, exports: &ExportPaths, fail_under: Option<f64>) -> Result<ExitCode> {
    let manifest = read_manifest(dir)?;
    gate::ensure_scored(manifest.run_config.scoring.is_some(), fail_under)?;
    let exports = ExportManager::create(exports)?;
    let records = by_participant(&manifest.run_config.participants, read_records(dir)?);
    let results = RunResults {
        manifest: &manifest,
        records: &records,
        dir,
        exports: &exports,
        fail_under,
    };
    finish(&mut Console::default(), &results)
}

/// The records of each participant of the run (in its order; names found only in the
/// records follow in order of appearance), each sorted by task index as the executors
/// hand them over.
fn by_participant(
    participants: &[String],
    lines: Vec<RecordLine>,
) -> Vec<(String, Vec<TaskRecord>)> {
    let mut grouped: Vec<(String, Vec<TaskRecord>)> = participants
        .iter()
        .map(|name| (name.clone(), Vec::new()))
        .collect();
    for line in lines {
        match grouped
            .iter_mut()
            .find(|(name, _)| *name == line.participant)
        {
            Some((_, records)) => records.push(line.record),
            None => grouped.push((line.participant, vec![line.record])),
        }
    }
    for (_, records) in &mut grouped {
        records.sort_by_key(|record| record.task_index);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;

    fn line(participant: &str, task_index: u32) -> RecordLine {
        RecordLine {
            participant: participant.into(),
            record: TaskRecord {
                task_index,
                status: Status::Success,
                started_at: String::new(),
                error_code: None,
                data: None,
                completed_at: String::new(),
                latency_ms: 1.0,
                steps: vec![],
            },
        }
    }

    #[test]
    fn records_are_grouped_in_run_order_and_sorted_by_task_index() {
        let participants = vec!["b".to_string(), "a".to_string(), "idle".to_string()];
        let lines = vec![line("a", 1), line("b", 0), line("a", 0), line("x", 0)];
        let grouped = by_participant(&participants, lines);
        let shape: Vec<(&str, Vec<u32>)> = grouped
            .iter()
            .map(|(name, records)| {
                (
                    name.as_str(),
                    records.iter().map(|r| r.task_index).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                ("b", vec![0]),
                ("a", vec![0, 1]),
                ("idle", vec![]),
                ("x", vec![0])
            ]
        );
    }
}
