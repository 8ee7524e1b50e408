//! The records of a saved run that count: each task of the run's plan once. A
//! `records.ndjson` someone else wrote may repeat a task, or hold one the run never planned
//! (a participant it does not have, an index past its schedule). `bench report`, `bench
//! compare` and the exports leave those out, so nothing is counted twice, and say so
//! ([`PlannedRecords::warning`] names the first of them); `bench merge` refuses them.
//! Warm-up records of a run that warmed up (their indexes start from 0 on every slot) are
//! not tasks of the plan and pass as they are.

use bench_model::dispatch::{Accepted, TaskLedger};
use bench_model::plan::RunManifest;
use bench_model::record::TaskRecord;

/// Records left out that [`PlannedRecords::warning`] names, at most.
const NAMED: usize = 5;

/// Which records of one run were seen, and those left out.
#[derive(Debug)]
pub struct PlannedRecords {
    seen: TaskLedger,
    warmed_up: bool,
    repeated: u64,
    unplanned: u64,
    named: Vec<String>,
}

impl PlannedRecords {
    /// No record seen yet of the run of `manifest`. A run with a load model starts as many
    /// tasks as its time allows: only its repeated tasks are left out.
    pub fn new(manifest: &RunManifest) -> Self {
        let tasks = match manifest.load {
            Some(_) => u64::from(u32::MAX) + 1,
            None => manifest.run_config.tasks_per_participant(),
        };
        Self {
            seen: TaskLedger::new(&manifest.run_config.participants, tasks),
            warmed_up: manifest.warmup.is_some(),
            repeated: 0,
            unplanned: 0,
            named: Vec::new(),
        }
    }

    /// Why the record of `participant` on line `line` does not count (it repeats a task, or
    /// holds one the run did not plan), noted; `None` when it counts.
    pub fn check(&mut self, participant: &str, record: &TaskRecord, line: usize) -> Option<String> {
        self.check_task(participant, record.task_index, record.is_warmup(), line)
    }

    /// [`PlannedRecords::check`] of a record known by its task `index` and whether it is
    /// in phase `warmup`.
    pub fn check_task(
        &mut self,
        participant: &str,
        index: u32,
        warmup: bool,
        line: usize,
    ) -> Option<String> {
        if self.warmed_up && warmup {
            return None;
        }
        let why = match self.seen.accept(participant, index) {
            Accepted::New => return None,
            Accepted::Again => {
                self.repeated += 1;
                format!("line {line} repeats task {index} of {participant:?}")
            }
            Accepted::Unknown => {
                self.unplanned += 1;
                format!(
                    "line {line} holds task {index} of {participant:?}, which the run did not plan"
                )
            }
        };
        if self.named.len() < NAMED {
            self.named.push(why.clone());
        }
        Some(why)
    }

    /// What was left out, when anything was: `3 record(s) left out (2 repeating a task, 1
    /// not in the run's plan), not counted: line 12 repeats task 3 of "alpha"; …`.
    pub fn warning(&self) -> Option<String> {
        let left_out = self.repeated + self.unplanned;
        if left_out == 0 {
            return None;
        }
        let more = if left_out > self.named.len() as u64 {
            "; …"
        } else {
            ""
        };
        Some(format!(
            "{left_out} record(s) left out ({} repeating a task, {} not in the run's plan), not counted: {}{more}",
            self.repeated,
            self.unplanned,
            self.named.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::plan::test_manifest;
    use bench_model::record::Status;
    use serde_json::json;

    fn record(index: u32, phase: Option<&str>) -> TaskRecord {
        let mut record = TaskRecord::bare(index, Status::Success, 1.0);
        record.data = phase.and_then(|phase| json!({ "phase": phase }).as_object().cloned());
        record
    }

    #[test]
    fn a_repeated_or_unplanned_task_is_left_out_and_named() {
        let manifest = test_manifest(json!({}));
        let plan = manifest.run_config.tasks_per_participant() as u32;
        let name = manifest.run_config.participants[0].clone();
        let mut planned = PlannedRecords::new(&manifest);
        assert_eq!(planned.warning(), None);
        assert_eq!(planned.check(&name, &record(0, None), 1), None);
        assert_eq!(
            planned.check(&name, &record(0, None), 2).as_deref(),
            Some(format!("line 2 repeats task 0 of {name:?}").as_str())
        );
        assert!(planned.check(&name, &record(plan, None), 3).is_some());
        assert!(planned.check("stranger", &record(1, None), 4).is_some());
        let warning = planned.warning().unwrap();
        assert!(
            warning.starts_with(&format!(
                "3 record(s) left out (1 repeating a task, 2 not in the run's plan), not counted: line 2 repeats task 0 of {name:?}; line 3 holds task {plan} of {name:?}, which the run did not plan; line 4"
            )),
            "{warning}"
        );
        assert!(!warning.ends_with('…'));
        for line in 5..20 {
            planned.check(&name, &record(0, None), line);
        }
        assert!(planned.warning().unwrap().ends_with("; …"));
    }

    #[test]
    fn warm_up_records_of_a_run_that_warmed_up_pass() {
        let manifest = test_manifest(json!({"warmup": 2}));
        let name = manifest.run_config.participants[0].clone();
        let mut planned = PlannedRecords::new(&manifest);
        for line in 1..4 {
            assert_eq!(planned.check(&name, &record(0, Some("warmup")), line), None);
        }
        assert_eq!(planned.check(&name, &record(0, None), 4), None);
        let cold = test_manifest(json!({}));
        let mut planned = PlannedRecords::new(&cold);
        assert_eq!(planned.check(&name, &record(0, Some("warmup")), 1), None);
        assert!(
            planned
                .check(&name, &record(0, Some("warmup")), 2)
                .is_some(),
            "a task phase of that name is a task like any other"
        );
    }
}
