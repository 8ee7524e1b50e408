//! End-to-end: the run's budgets hold against hostile guests and hostile results folders. A
//! flood of wasi:http fields counts against the sandbox's memory; a sandbox that keeps its
//! resources gets a fresh instance before its table is full; the sandboxes together stay
//! within the host memory budget, and slots whose sandbox would pass it retire while the
//! others run the schedule; a run reaching its disk budget stops cleanly with its
//! records and summary; a compile bomb is refused before it is compiled; a results folder
//! holding planted symlinks is never written through.

use crate::sandbox::attack;
use crate::support::bench::{bench, run_bench, run_command};
use crate::support::guests::test_guest;
use crate::support::results::{read_json, records_of};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

#[test]
fn a_flood_of_http_fields_is_held_to_the_sandbox_memory() {
    let outcome = attack("fields-flood", &["--max-memory", "64MiB"]);
    for record in &outcome.attacker {
        assert_eq!(record["errorCode"], "memory_limit", "{record}");
        let message = record["data"]["errorMessage"].as_str().unwrap();
        assert!(
            message.starts_with(
                "task exceeded its memory limit: growing its HTTP header fields (held in the \
                 host) by "
            ),
            "{message}"
        );
        assert!(
            message.contains("would pass the sandbox's memory limit of 67108864 bytes"),
            "{message}"
        );
    }
}

#[test]
fn a_sandbox_keeping_its_resources_gets_a_fresh_instance_before_it_runs_out() {
    // 200 resources kept a task: without a fresh instance, task 328 would find the table
    // full (65 536) and trap.
    let hostile = test_guest("hostile");
    let dir = TempDir::new().unwrap();
    let args = [
        "run",
        hostile.to_str().unwrap(),
        "--out",
        "results",
        "--attack",
        "handle-leak",
        "--provider",
        "attacker",
        "--iterations",
        "400",
    ];
    let run = run_bench(dir.path(), &args);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let records = records_of(&dir.path().join("results"), "attacker");
    assert_eq!(records.len(), 400);
    let failed: Vec<&serde_json::Value> = records
        .iter()
        .filter(|record| record["status"] != "success")
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
}

#[test]
fn the_sandboxes_of_a_run_stay_within_the_host_memory_budget() {
    let outcome = attack(
        "memory",
        &["--max-memory", "1GiB", "--max-host-memory", "96MiB"],
    );
    for record in &outcome.attacker {
        assert_eq!(record["errorCode"], "memory_limit", "{record}");
        let message = record["data"]["errorMessage"].as_str().unwrap();
        assert!(
            message.contains(
                "would pass the run's host memory budget of 100663296 bytes for all sandboxes"
            ) && message.contains("set by --max-host-memory"),
            "{message}"
        );
    }
}

#[test]
fn slots_past_the_host_memory_budget_retire_and_the_others_run_every_task() {
    // Eight slots, room for one sandbox (a sandbox's linear memory is about 1.1 MiB): the
    // slots that cannot open theirs fail one task each and retire.
    let sleeper = test_guest("sleeper");
    let dir = TempDir::new().unwrap();
    let args = [
        "run",
        sleeper.to_str().unwrap(),
        "--out",
        "results",
        "--iterations",
        "40",
        "--concurrency",
        "8",
        "--sleep-ms",
        "20",
        "--max-host-memory",
        "2MiB",
    ];
    let run = run_bench(dir.path(), &args);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let records = records_of(&dir.path().join("results"), "local");
    assert_eq!(records.len(), 40, "every task has its record");
    let failed: Vec<&serde_json::Value> = records
        .iter()
        .filter(|record| record["status"] != "success")
        .collect();
    assert!(
        (1..=7).contains(&failed.len()),
        "{} of 40 failed: {}",
        failed.len(),
        run.stdout
    );
    let warning = format!(
        "Warning: local: {} of 40 tasks found no sandbox (could not instantiate the task: ",
        failed.len()
    );
    assert!(run.stderr.contains(&warning), "{}", run.stderr);
    for record in failed {
        assert_unopened_past_the_budget(record, 2 << 20);
    }
}

/// Asserts `record` is a task whose sandbox could not be opened within a host memory budget
/// of `budget` bytes.
pub(crate) fn assert_unopened_past_the_budget(record: &serde_json::Value, budget: u64) {
    assert_eq!(record["errorCode"], "instantiation_failed", "{record}");
    let message = record["data"]["errorMessage"].as_str().unwrap();
    let past = format!("would pass the run's host memory budget of {budget} bytes");
    assert!(message.contains(&past), "{message}");
}

#[test]
fn a_run_reaching_its_disk_budget_stops_with_its_records_and_summary() {
    let hostile = test_guest("hostile");
    let dir = TempDir::new().unwrap();
    let run = run_command(
        bench(dir.path())
            .args([
                "run",
                hostile.to_str().unwrap(),
                "--out",
                "results",
                "--attack",
                "log-volume",
                "--group-by",
                "round",
                "--iterations",
                "5",
                "--disk-budget",
                "24MiB",
            ])
            .env("BENCH_TEST_SECRET", "s3cret"),
    );
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "Benchmark stopped: its results reached the disk budget of 24 MiB (set by \
             --disk-budget; raise it with --disk-budget SIZE); the records of every task that \
             ran are kept, and the summary covers them"
        ),
        "{}",
        run.stderr
    );
    let results = dir.path().join("results");
    let holder = records_of(&results, "holder");
    assert!(!holder.is_empty(), "the well-behaved participant ran");
    assert_eq!(holder[0]["status"], "success", "{}", holder[0]);
    let attacker = records_of(&results, "attacker");
    assert!(
        attacker.len() < 5,
        "the run stopped: {} tasks",
        attacker.len()
    );
    let summary = read_json(&results.join("summary.json"));
    assert_eq!(summary["interrupted"], true);
    let log = std::fs::read_to_string(results.join("logs/attacker.log")).unwrap();
    assert!(
        log.ends_with("... (disk budget reached: the run was stopped)\n"),
        "{}",
        &log[log.len().saturating_sub(200)..]
    );
    let written: u64 = [
        "records.ndjson",
        "logs/attacker.log",
        "logs/holder.log",
        "metrics.jsonl",
    ]
    .iter()
    .filter_map(|file| std::fs::metadata(results.join(file)).ok())
    .map(|metadata| metadata.len())
    .sum();
    assert!(written < 25 << 20, "{written} bytes written");
}

/// A component with one function of `bytes` bytes of `nop`s.
/// A component of one function of `bytes` bytes. Its export is named anew for every call,
/// so no earlier run's compiled copy is in the cache (a compile abandoned past its time
/// limit may still finish and be cached while the process exits). Compiling 7 MiB of it
/// takes about 200 ms here, so a time limit well under that is crossed on any machine.
fn compile_bomb(dir: &Path, bytes: usize) -> PathBuf {
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let text = format!(
        "(component (core module (func (export \"bomb-{nonce}\") {})))",
        "nop ".repeat(bytes)
    );
    let path = dir.join("bomb.wasm");
    std::fs::write(&path, wat::parse_str(text).unwrap()).unwrap();
    path
}

#[test]
fn a_compile_bomb_is_refused_before_it_is_compiled() {
    let dir = TempDir::new().unwrap();
    let bomb = compile_bomb(dir.path(), 7 << 20);
    let bomb = bomb.to_str().unwrap();
    let run = run_bench(dir.path(), &["check", bomb]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "{bomb} cannot be compiled: function 0 of core module 0 is 7340034 bytes, more than \
             the 2097152 bytes bench compiles in one function (set by bench's default; raise it \
             with --max-function-size 7340034B)"
        )),
        "{}",
        run.stderr
    );
    let run = run_bench(
        dir.path(),
        &[
            "check",
            bomb,
            "--max-function-size",
            "8MiB",
            "--compile-timeout",
            "40ms",
        ],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "{bomb} cannot be compiled: compiling the component took more than 40 ms (set by \
             --compile-timeout; raise it with --compile-timeout 80ms)"
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn planted_symlinks_in_the_results_folder_are_never_written_through() {
    let hostile = test_guest("hostile");
    let dir = TempDir::new().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    let out = dir.path().join("results");
    std::fs::create_dir_all(out.join("logs")).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("logs/attacker.log")).unwrap();
    let run = run_bench(
        dir.path(),
        &["run", hostile.to_str().unwrap(), "--out", "results"],
    );
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "results/logs/attacker.log is a symlink: bench never writes results through a link \
             it did not create"
        ),
        "{}",
        run.stderr
    );
    std::fs::remove_file(out.join("logs/attacker.log")).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("run.json")).unwrap();
    let run = run_bench(
        dir.path(),
        &["run", hostile.to_str().unwrap(), "--out", "results"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("already holds a run"), "{}", run.stderr);
    let linked = dir.path().join("linked-out");
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), &linked).unwrap();
    let run = run_bench(
        dir.path(),
        &["run", hostile.to_str().unwrap(), "--out", "linked-out"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("linked-out is a symlink"),
        "{}",
        run.stderr
    );
    assert!(!dir.path().join("elsewhere").exists());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
}
