//! A run's session driven by the fake task runner (no guest, no sandbox): what a local run,
//! a failing task, a stopped run, one shard and a resumed run leave in the results
//! directory and give as exit code, and what a worker's handed unit sends.

use super::close::CloseRules;
use super::execute::Mode;
use super::open::{open, Opening};
use super::watchers::start_metrics;
use super::RunSession;
use crate::cli::interrupt::INTERRUPTED_EXIT;
use bench_model::ceilings::EffectiveLimits;
use bench_model::config::GroupBy;
use bench_model::dispatch::participant_units;
use bench_model::plan::{test_manifest, ExecPlan, RunManifest, Shard, TaskCounts};
use bench_model::record::TaskRecord;
use bench_report::console::Console;
use bench_report::export::ExportPaths;
use bench_report::failures::{FailureGates, FAILED_TASKS_EXIT};
use bench_report::results::{for_each_record, read_manifest};
use bench_report::RunReporter;
use bench_runtime::exec::test_support::{participant, plan, takes, Behaviour, FakeSlots, Journal};
use bench_runtime::exec::{self, ParticipantRun};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::sync::mpsc;

/// A new run of `names`, each with `plan`'s tasks, to open in `dir`.
fn new_run(dir: &Path, names: &[&str], plan: &ExecPlan) -> Opening {
    let manifest = test_manifest(json!({
        "participants": names, "iterations": plan.schedule.len()
    }));
    opening(dir, manifest, names, plan, false)
}

fn opening(
    dir: &Path,
    manifest: RunManifest,
    names: &[&str],
    plan: &ExecPlan,
    resuming: bool,
) -> Opening {
    Opening {
        dir: dir.to_owned(),
        manifest,
        names: names.iter().map(|name| name.to_string()).collect(),
        resuming,
        exports: ExportPaths::default(),
        limits: EffectiveLimits::default(),
        stop: plan.stop.clone(),
    }
}

/// A quiet session of `opening`, watching.
fn session(opening: Opening, plan: &ExecPlan) -> RunSession {
    let (opened, results) = open(opening).unwrap();
    let metrics = start_metrics(&opened, GroupBy::Participant).unwrap();
    let reporter = RunReporter {
        console: Console::quiet(),
        results,
    };
    RunSession::watch(opened, reporter, metrics, None, false, plan.schedule.len()).unwrap()
}

/// Executes `participants` in `mode`, then closes the run with `gates`: its exit code.
async fn run(
    session: RunSession,
    mode: Mode,
    participants: &[ParticipantRun<FakeSlots>],
    plan: &ExecPlan,
    gates: &FailureGates,
) -> ExitCode {
    let executed = session
        .execute(mode, participants, plan, GroupBy::Participant)
        .await
        .unwrap();
    let rules = CloseRules {
        stop: &plan.stop,
        fail_under: None,
        require_upload: false,
        failure_gates: gates,
    };
    executed.close(&rules).await.unwrap()
}

/// The results directory of a test, inside `root`.
fn results_dir(root: &tempfile::TempDir) -> PathBuf {
    root.path().join("results")
}

/// Every record in `dir`'s `records.ndjson`, with its participant, sorted.
fn records(dir: &Path) -> Vec<(String, TaskRecord)> {
    let mut records = Vec::new();
    for_each_record(dir, |participant, record| {
        records.push((participant.to_owned(), record.clone()));
    })
    .unwrap();
    records.sort_by(|a, b| (&a.0, a.1.task_index).cmp(&(&b.0, b.1.task_index)));
    records
}

/// (participant, task index) of each record.
fn indices(records: &[(String, TaskRecord)]) -> Vec<(&str, u32)> {
    records
        .iter()
        .map(|(participant, record)| (participant.as_str(), record.task_index))
        .collect()
}

/// (participant, tasks) of each participant of `dir`'s `summary.json`.
fn summarized(dir: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let summary: Value = serde_json::from_str(&text).unwrap();
    summary["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|numbers| {
            let name = numbers["participant"].as_str().unwrap().to_owned();
            (name, numbers["tasks"].as_u64().unwrap())
        })
        .collect()
}

/// Task `failing` fails, every other one succeeds at once.
fn fails_at(failing: u32) -> impl Fn(u32) -> Behaviour + Send + Sync + 'static {
    move |index| Behaviour {
        delay: Duration::ZERO,
        fails: index == failing,
        unopened: false,
    }
}

#[tokio::test]
async fn a_local_run_writes_every_record_and_the_summary() {
    let root = tempfile::tempdir().unwrap();
    let dir = results_dir(&root);
    let plan = plan(3, 1, 0.0);
    let journal = Arc::new(Journal::default());
    let participants = [
        participant("a", &journal, takes(0)),
        participant("b", &journal, takes(0)),
    ];
    let session = session(new_run(&dir, &["a", "b"], &plan), &plan);
    let gates = FailureGates::default();
    let code = run(session, Mode::Local, &participants, &plan, &gates).await;
    assert_eq!(code, ExitCode::SUCCESS);
    let records = records(&dir);
    let all = [("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1), ("b", 2)];
    assert_eq!(indices(&records), all);
    assert!(records.iter().all(|(_, record)| record.is_success()));
    let summary = [("a".to_owned(), 3), ("b".to_owned(), 3)];
    assert_eq!(summarized(&dir), summary);
}

#[tokio::test]
async fn close_writes_the_end_of_run_json() {
    let root = tempfile::tempdir().unwrap();
    let dir = results_dir(&root);
    let plan = plan(2, 1, 0.0);
    let journal = Arc::new(Journal::default());
    let participants = [participant("a", &journal, fails_at(1))];
    let session = session(new_run(&dir, &["a"], &plan), &plan);
    assert!(read_manifest(&dir).unwrap().completed_at.is_none());
    let gates = FailureGates::default();
    let code = run(session, Mode::Local, &participants, &plan, &gates).await;
    assert_eq!(code, ExitCode::SUCCESS);
    let manifest = read_manifest(&dir).unwrap();
    assert!(manifest.completed_at.is_some());
    let counts = TaskCounts {
        total: 2,
        failed: 1,
    };
    assert_eq!(manifest.tasks, Some(counts));
    assert!(!manifest.interrupted);
}

#[tokio::test]
async fn a_failing_task_is_a_failed_record_and_the_exit_code_says_so() {
    let root = tempfile::tempdir().unwrap();
    let dir = results_dir(&root);
    let plan = plan(4, 1, 0.0);
    let journal = Arc::new(Journal::default());
    let participants = [participant("a", &journal, fails_at(2))];
    let session = session(new_run(&dir, &["a"], &plan), &plan);
    let gates = FailureGates {
        allow_all_failed: false,
        max_failure_rate: Some(0.1),
    };
    let code = run(session, Mode::Local, &participants, &plan, &gates).await;
    assert_eq!(code, ExitCode::from(FAILED_TASKS_EXIT));
    let failed: Vec<u32> = records(&dir)
        .iter()
        .filter(|(_, record)| !record.is_success())
        .map(|(_, record)| record.task_index)
        .collect();
    assert_eq!(failed, [2]);
}

#[tokio::test]
async fn a_run_whose_every_task_failed_fails() {
    let root = tempfile::tempdir().unwrap();
    let dir = results_dir(&root);
    let plan = plan(1, 1, 0.0);
    let journal = Arc::new(Journal::default());
    let participants = [participant("a", &journal, fails_at(0))];
    let session = session(new_run(&dir, &["a"], &plan), &plan);
    let gates = FailureGates::default();
    let code = run(session, Mode::Local, &participants, &plan, &gates).await;
    assert_eq!(code, ExitCode::from(FAILED_TASKS_EXIT));
}

#[tokio::test]
async fn a_stopped_run_runs_nothing_more_and_is_interrupted() {
    let root = tempfile::tempdir().unwrap();
    let dir = results_dir(&root);
    let plan = plan(3, 1, 0.0);
    let journal = Arc::new(Journal::default());
    let participants = [participant("a", &journal, takes(0))];
    let session = session(new_run(&dir, &["a"], &plan), &plan);
    plan.stop.stop_scheduling();
    let gates = FailureGates::default();
    let code = run(session, Mode::Local, &participants, &plan, &gates).await;
    assert_eq!(code, ExitCode::from(INTERRUPTED_EXIT));
    assert!(records(&dir).is_empty());
    let manifest = read_manifest(&dir).unwrap();
    assert!(manifest.interrupted && manifest.completed_at.is_some());
}

#[tokio::test]
async fn shard_mode_runs_only_its_share() {
    let root = tempfile::tempdir().unwrap();
    let dir = results_dir(&root);
    // Two slots per participant: slots 0 and 1 of "a", 2 and 3 of "b"; shard 1/2 runs the
    // second slot of each, tasks 1 and 3.
    let plan = plan(4, 2, 0.0);
    let journal = Arc::new(Journal::default());
    let participants = [
        participant("a", &journal, takes(0)),
        participant("b", &journal, takes(0)),
    ];
    let session = session(new_run(&dir, &["a", "b"], &plan), &plan);
    let shard = Shard { index: 1, count: 2 };
    let gates = FailureGates::default();
    let code = run(session, Mode::Shard(shard), &participants, &plan, &gates).await;
    assert_eq!(code, ExitCode::SUCCESS);
    let mut started = journal.started();
    started.sort();
    let share = [("a", 1), ("a", 3), ("b", 1), ("b", 3)];
    assert_eq!(started, share);
    assert_eq!(indices(&records(&dir)), share);
}

#[tokio::test]
async fn a_resumed_run_counts_its_records_and_skips_their_tasks() {
    let root = tempfile::tempdir().unwrap();
    let dir = results_dir(&root);
    let plan = plan(4, 2, 0.0);
    let journal = Arc::new(Journal::default());
    let participants = [
        participant("a", &journal, takes(0)),
        participant("b", &journal, takes(0)),
    ];
    let names = ["a", "b"];
    let first = session(new_run(&dir, &names, &plan), &plan);
    let shard = Shard { index: 1, count: 2 };
    let gates = FailureGates::default();
    run(first, Mode::Shard(shard), &participants, &plan, &gates).await;

    let mut manifest = read_manifest(&dir).unwrap();
    manifest.completed_at = None;
    let resumed = session(opening(&dir, manifest, &names, &plan, true), &plan);
    for name in names {
        for (index, recorded) in [(0, false), (1, true), (2, false), (3, true)] {
            let prior = resumed.prior.contains(name, index);
            assert_eq!(prior, recorded, "{name} {index}");
        }
    }
    let nothing: [ParticipantRun<FakeSlots>; 0] = [];
    let code = run(resumed, Mode::Local, &nothing, &plan, &gates).await;
    assert_eq!(code, ExitCode::SUCCESS);
    // The earlier records are kept, and the summary and run.json count them.
    assert_eq!(records(&dir).len(), 4);
    let summary = [("a".to_owned(), 2), ("b".to_owned(), 2)];
    assert_eq!(summarized(&dir), summary);
    let counts = TaskCounts {
        total: 4,
        failed: 0,
    };
    assert_eq!(read_manifest(&dir).unwrap().tasks, Some(counts));
}

#[tokio::test]
async fn a_worker_runs_the_unit_it_is_handed_and_sends_its_records() {
    let plan = plan(6, 2, 0.0);
    let journal = Arc::new(Journal::default());
    let fake = participant("a", &journal, takes(0));
    let units = participant_units("a", &plan, SystemTime::now());
    let unit = &units[1];
    let (sender, mut receiver) = mpsc::channel(16);
    let ran = exec::run_unit_in_new_slot(&fake.slots, unit, &plan, &sender).await;
    drop(sender);
    let mut sent = Vec::new();
    while let Some(finished) = receiver.recv().await {
        sent.push(finished.record.task_index);
    }
    assert_eq!(sent, [1, 3, 5]);
    assert_eq!(ran, 3);
    assert_eq!(journal.slots_opened(), 1);
}
