//! End-to-end: a hostile task and hostile config data, built from source, tried as an
//! attacker would. Nothing is written outside the results directory, participant logs stay
//! distinct, bench's credentials are refused, one task cannot grow the host without bound,
//! a huge schedule starts at once, many participants run within a low open-file limit, and
//! guest text reaches the terminal escaped.

use crate::support::{
    bench::{
        bench, bench_with_open_files, run_bench, run_command, vm_hwm_kib, watched, Run, Watched,
    },
    guests::test_guest,
    results::{read_json, records_of},
};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The escaping participant of `hostile-names`, as JSON escapes it.
const ESCAPING: &str = "esc\u{1b}[2J\u{1b}]0;owned\u{7}";

/// Every file and directory under `dir`, relative to it, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            found.push(path.strip_prefix(dir).unwrap().display().to_string());
            if path.is_dir() {
                pending.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Runs `hostile-names` in `<tmp>/work/here` without `--out`.
fn run_hostile_names() -> (TempDir, PathBuf, Run) {
    let names = test_guest("hostile-names");
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().join("work").join("here");
    std::fs::create_dir_all(&cwd).unwrap();
    let run = run_bench(&cwd, &["run", names.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    (tmp, cwd, run)
}

/// The one run directory under `cwd/bench-results`.
fn only_results_dir(cwd: &Path) -> PathBuf {
    let base = cwd.join("bench-results");
    let slugs: Vec<_> = std::fs::read_dir(&base).unwrap().collect();
    assert_eq!(slugs.len(), 1, "{:?}", tree(&base));
    let slug_dir = slugs.into_iter().next().unwrap().unwrap().path();
    let runs: Vec<_> = std::fs::read_dir(&slug_dir).unwrap().collect();
    assert_eq!(runs.len(), 1, "{:?}", tree(&base));
    runs.into_iter().next().unwrap().unwrap().path()
}

#[test]
fn a_slug_climbing_out_writes_only_under_bench_results() {
    let (tmp, cwd, _run) = run_hostile_names();
    assert_eq!(
        tree(tmp.path())
            .iter()
            .filter(|path| !path.starts_with("work/here/bench-results/"))
            .collect::<Vec<_>>(),
        ["work", "work/here", "work/here/bench-results"]
    );
    let run_dir = only_results_dir(&cwd);
    let slug_dir = run_dir.parent().unwrap().file_name().unwrap();
    assert!(
        slug_dir.to_str().unwrap().starts_with("escaped-slug~"),
        "{slug_dir:?}"
    );
    let manifest = read_json(&run_dir.join("run.json"));
    assert_eq!(manifest["benchmarkSlug"], "../../escaped-slug");
    assert!(run_dir.join("summary.json").is_file());
}

#[test]
fn an_absolute_slug_override_is_refused_and_writes_nothing() {
    let hostile = test_guest("hostile");
    let tmp = TempDir::new().unwrap();
    let target = tmp.path().join("elsewhere").join("abs");
    let cwd = tmp.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let target = target.to_str().unwrap();
    let run = run_bench(
        &cwd,
        &["run", hostile.to_str().unwrap(), "--benchmark", target],
    );
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "--benchmark expects a lowercase benchmark slug (got \"{target}\")"
        )),
        "{}",
        run.stderr
    );
    assert_eq!(tree(tmp.path()), ["work"]);
}

#[test]
fn participants_whose_names_are_not_file_names_get_distinct_listed_logs() {
    let (_tmp, cwd, _run) = run_hostile_names();
    let run_dir = only_results_dir(&cwd);
    let manifest = read_json(&run_dir.join("run.json"));
    let long = "n".repeat(300);
    let log_files = manifest["logFiles"].as_object().expect("logFiles listed");
    assert_eq!(
        log_files.keys().map(String::as_str).collect::<Vec<_>>(),
        ["a/b", ESCAPING, long.as_str()]
    );
    let mut files: Vec<(String, String)> = ["a/b", "a_b", long.as_str(), ESCAPING]
        .into_iter()
        .map(|name| {
            let file = log_files
                .get(name)
                .and_then(Value::as_str)
                .map_or(format!("logs/{name}.log"), str::to_owned);
            let text = std::fs::read_to_string(run_dir.join(&file)).unwrap();
            assert_eq!(text.lines().count(), 1, "{file}: {text}");
            assert!(
                text.ends_with(&format!("[task 0] [info] written by {}\n", name.len())),
                "{file}: {text}"
            );
            (name.to_owned(), file)
        })
        .collect();
    files.sort_by(|a, b| a.1.cmp(&b.1));
    files.dedup_by(|a, b| a.1 == b.1);
    assert_eq!(files.len(), 4, "one file per participant: {files:?}");
    assert!(files.iter().all(|(_, file)| file.len() < 80), "{files:?}");
    assert_eq!(std::fs::read_dir(run_dir.join("logs")).unwrap().count(), 4);
    assert!(run_dir.join("summary.json").is_file());
}

#[test]
fn guest_control_characters_reach_the_console_escaped() {
    let (_tmp, cwd, run) = run_hostile_names();
    assert!(!run.stdout.contains('\u{1b}'), "{}", run.stdout);
    assert!(!run.stdout.contains('\u{7}'), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("  [esc\\x1b[2J\\x1b]0;owned\\x07] Task 1/1: FAILED — bad\\ncode\\x1b[2J\n"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("  Participant: esc\\x1b[2J\\x1b]0;owned\\x07\n"));
    let records = records_of(&only_results_dir(&cwd), ESCAPING);
    assert_eq!(records[0]["errorCode"], "bad\ncode\u{1b}[2J");
}

#[test]
fn bench_s_own_credentials_are_refused_in_check_and_run() {
    let thief = test_guest("hostile-credentials");
    let dir = TempDir::new().unwrap();
    let message = "participants[0].requiredEnvVars asks for BENCHMARKS_PLATFORM_API_KEY, one of \
                   bench's own variables (platform credentials and settings are never passed to \
                   a task)";
    for command in ["check", "run"] {
        let run = run_command(
            bench(dir.path())
                .args([command, thief.to_str().unwrap(), "--no-ingest"])
                .env("BENCHMARKS_PLATFORM_API_KEY", "platform-secret-value"),
        );
        assert_eq!(
            run.code,
            Some(1),
            "{command}: {}\n{}",
            run.stdout,
            run.stderr
        );
        assert!(run.stderr.contains(message), "{command}: {}", run.stderr);
        assert!(!run.stdout.contains("platform-secret-value"));
        assert!(!run.stderr.contains("platform-secret-value"));
    }
    assert!(!dir.path().join("bench-results").exists());
}

/// Host memory a flood may take: 128 MiB for bench itself plus the guest's memory limit.
const GUEST_MEMORY: &str = "256MiB";
const RSS_BOUND_KIB: u64 = (128 + 256) << 10;

/// Runs one attack of the `hostile` guest twice (two tasks, so the first flood's peak is
/// sampled while the second runs) and returns the attacker's records.
fn flood(attack: &str) -> (TempDir, Watched, Vec<Value>) {
    let hostile = test_guest("hostile");
    let dir = TempDir::new().unwrap();
    let watched = watched(
        dir.path(),
        &[
            "run",
            hostile.to_str().unwrap(),
            "--out",
            "results",
            "--max-memory",
            GUEST_MEMORY,
            "--attack",
            attack,
            // The attack fails the task on purpose: upstream's exit 0 all the same.
            "--allow-all-failed",
        ],
    );
    let run = &watched.run;
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    eprintln!("{attack}: VmHWM {} KiB", watched.peak_rss_kib);
    assert!(watched.peak_rss_kib > 0, "VmHWM was sampled");
    assert!(
        watched.peak_rss_kib < RSS_BOUND_KIB,
        "{attack}: VmHWM {} KiB",
        watched.peak_rss_kib
    );
    let attacker = records_of(&dir.path().join("results"), "attacker");
    assert_eq!(attacker.len(), 2);
    (dir, watched, attacker)
}

fn assert_failed(records: &[Value], code: &str, message: &str) {
    for record in records {
        assert_eq!(record["status"], "error", "{record}");
        assert_eq!(record["errorCode"], code, "{record}");
        assert_eq!(record["data"]["errorMessage"], message, "{record}");
    }
}

#[test]
fn a_million_steps_end_the_task_at_the_step_bound() {
    let (_dir, _watched, attacker) = flood("step-flood");
    assert_failed(
        &attacker,
        "too_many_steps",
        "the task started more than 10000 steps",
    );
}

#[test]
fn a_sixteen_mebibyte_step_name_is_cut() {
    let (_dir, _watched, attacker) = flood("long-step-name");
    let expected = format!("{}... (truncated, 16777216 bytes)", "n".repeat(1024));
    for record in &attacker {
        assert_eq!(record["status"], "success", "{record}");
        assert_eq!(record["steps"][0]["name"], expected.as_str());
    }
}

#[test]
fn a_sixty_four_mebibyte_log_message_ends_the_task() {
    let (dir, _watched, attacker) = flood("big-log");
    assert_failed(
        &attacker,
        "log_too_large",
        "the task logged a message of 67108864 bytes (at most 1048576 bytes)",
    );
    let log = dir.path().join("results").join("logs").join("attacker.log");
    assert!(std::fs::metadata(log).map_or(0, |m| m.len()) < 1 << 20);
}

#[test]
fn logging_past_the_task_budget_ends_the_task() {
    let (dir, _watched, attacker) = flood("log-volume");
    assert_failed(
        &attacker,
        "log_too_large",
        "the task logged more than 16777216 bytes",
    );
    let log = dir.path().join("results").join("logs").join("attacker.log");
    let bytes = std::fs::metadata(log).unwrap().len();
    assert!(bytes <= 2 * (16 << 20) + 4096, "{bytes}");
}

#[test]
fn a_billion_iterations_start_at_once_in_constant_memory() {
    let hostile = test_guest("hostile");
    let dir = TempDir::new().unwrap();
    let check = run_bench(
        dir.path(),
        &[
            "check",
            hostile.to_str().unwrap(),
            "--iterations",
            "1000000000",
        ],
    );
    assert_eq!(check.code, Some(0), "{}", check.stderr);
    assert!(check
        .stdout
        .contains("Knobs: iterations=1000000000, concurrency=1,"));
    let start = Instant::now();
    let mut child = bench(dir.path())
        .args([
            "run",
            hostile.to_str().unwrap(),
            "--out",
            "results",
            "--iterations",
            "1000000000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first_task = loop {
        let line = lines.next().expect("bench prints").unwrap();
        if line.contains("Task 1/1000000000") {
            break line;
        }
    };
    let started = start.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    let rss = vm_hwm_kib(&child).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    eprintln!("1e9 iterations: first task after {started:?}, VmHWM {rss} KiB");
    assert!(
        first_task.starts_with("  [attacker] Task 1/1000000000: success"),
        "{first_task}"
    );
    // Planning the iterations up front would take minutes and gigabytes; a start that only
    // waits for a loaded machine takes well under this.
    assert!(started < Duration::from_secs(5), "{started:?}");
    assert!(rss < 128 << 10, "VmHWM {rss} KiB");
}

#[test]
fn a_million_sandboxes_are_refused_before_the_run() {
    let hostile = test_guest("hostile");
    let dir = TempDir::new().unwrap();
    let args = [
        "run",
        hostile.to_str().unwrap(),
        "--iterations",
        "1000000",
        "--concurrency",
        "1000000",
    ];
    let run = run_bench(dir.path(), &args);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "this run would hold 1000000 sandboxes at once (--concurrency 1000000), more than \
             the 10000 allowed; lower concurrency, or raise the cap with --max-sandboxes \
             1000000"
        ),
        "{}",
        run.stderr
    );
    assert!(!dir.path().join("bench-results").exists());
}

#[test]
fn ten_thousand_participants_run_within_a_thousand_open_files() {
    let many = test_guest("many-participants");
    let dir = TempDir::new().unwrap();
    let run = run_command(bench_with_open_files(dir.path(), 1024).args([
        "run",
        many.to_str().unwrap(),
        "--out",
        "results",
    ]));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let results = dir.path().join("results");
    let records = std::fs::read_to_string(results.join("records.ndjson")).unwrap();
    assert_eq!(records.lines().count(), 10_000);
    assert!(!records.contains("\"error\""));
    assert_eq!(
        std::fs::read_dir(results.join("logs")).unwrap().count(),
        10_000
    );
    let last = std::fs::read_to_string(results.join("logs").join("p09999.log")).unwrap();
    assert!(last.ends_with("[task 0] [info] p09999\n"), "{last}");
    assert!(results.join("summary.json").is_file());
}
