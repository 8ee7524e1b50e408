//! End-to-end: the command line as clap users expect it — every subcommand's own `--help`
//! (anywhere on the line, before any build), flags before or after the task, typos of
//! bench's flags caught before any build with a suggestion, `--quiet`, `--version` and shell
//! completions.

use crate::support::{
    bench::{run_bench, Run},
    guests::test_guest,
    results::records,
};
use tempfile::TempDir;

fn bench_in_temp(args: &[&str]) -> Run {
    let dir = TempDir::new().unwrap();
    run_bench(dir.path(), args)
}

#[test]
fn every_subcommand_has_its_own_help() {
    let abouts = [
        ("run", "Run a benchmark task"),
        ("check", "Validate a task's config"),
        ("inspect", "Show a task's exports and imports"),
        ("build", "Build a task project"),
        ("new", "Create a task project"),
        ("report", "Re-read a saved run"),
        ("compare", "Compare saved runs"),
        ("serve", "Serve a self-hosted benchmarks platform"),
        ("completions", "Print a shell completion script"),
    ];
    for (command, about) in abouts {
        let run = bench_in_temp(&[command, "--help"]);
        assert_eq!(run.code, Some(0), "{command}: {}", run.stderr);
        assert!(run.stdout.starts_with(about), "{command}: {}", run.stdout);
    }
    let run = bench_in_temp(&["run", "--help"]);
    let words = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    for usage in [
        "Usage: bench run <task.wasm | task-dir | task-file> [flags]",
        "--shape NAME use the config's shape NAME",
        "--iterations N tasks per participant",
        "-q, --quiet print only errors and the final summary",
        "--max-failure-rate FRACTION exit 2 when more than FRACTION",
    ] {
        assert!(words.contains(usage), "{usage}: {}", run.stdout);
    }
    let check = bench_in_temp(&["check", "--help"]);
    assert!(check
        .stdout
        .contains("Usage: bench check <task.wasm | task-dir | task-file> [flags]"));
}

#[test]
fn help_anywhere_on_the_line_answers_before_the_task_is_looked_at() {
    // The task does not exist: looking at it (or building it) would fail.
    for args in [
        &["run", "no-such-project", "--help"][..],
        &["run", "--iterations", "3", "-h"],
        &["inspect", "-h", "no-such-project"],
    ] {
        let run = bench_in_temp(args);
        assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
        assert!(
            run.stdout.contains("Benchmark identity (upstream):"),
            "{args:?}"
        );
        assert!(run.stderr.is_empty(), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn a_typo_of_a_bench_flag_is_caught_before_any_build_with_a_suggestion() {
    let run = bench_in_temp(&["run", "no-such-project", "--iteratons", "3"]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim_end(),
        "Benchmark failed: Unknown flag(s): --iteratons (did you mean --iterations?)"
    );
}

#[test]
fn flags_may_come_before_the_task_and_quiet_prints_only_the_summary() {
    let dir = TempDir::new().unwrap();
    let wasm = test_guest("sleeper");
    let wasm = wasm.to_str().unwrap();
    let run = run_bench(
        dir.path(),
        &["run", "--iterations", "2", "-q", wasm, "--out", "results"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(records(&dir.path().join("results")).len(), 2);
    for progress in ["Knobs:", "Participant:", "Task 1/2", "Done:"] {
        assert!(!run.stdout.contains(progress), "{progress}: {}", run.stdout);
    }
    assert!(
        run.stdout.contains('┌'),
        "the summary table: {}",
        run.stdout
    );
    assert_eq!(run.lines().last(), Some(&"Results: results"));

    let loud = run_bench(
        dir.path(),
        &["run", wasm, "--iterations", "2", "--out", "loud"],
    );
    assert_eq!(loud.code, Some(0), "{}", loud.stderr);
    assert!(loud.stdout.contains("  [local] Task 2/2: success"));
}

#[test]
fn version_names_bench_wasmtime_and_the_contract() {
    let run = bench_in_temp(&["--version"]);
    assert_eq!(run.code, Some(0));
    let lines = run.lines();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert_eq!(lines[0], format!("bench {}", env!("CARGO_PKG_VERSION")));
    assert!(lines[1].starts_with("wasmtime 48."), "{}", lines[1]);
    assert_eq!(lines[2], "contract bench:task@0.1.4");
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, opening) in [
        ("bash", "_bench() {"),
        ("zsh", "#compdef bench"),
        ("fish", "# Print an optspec"),
    ] {
        let run = bench_in_temp(&["completions", shell]);
        assert_eq!(run.code, Some(0), "{shell}: {}", run.stderr);
        assert!(
            run.stdout.starts_with(opening),
            "{shell}: {}",
            &run.stdout[..40]
        );
        assert!(
            run.stdout.contains("report"),
            "{shell} completes subcommands"
        );
        for flag in ["iterations", "task-timeout", "stop-grace", "export-html"] {
            assert!(
                run.stdout.contains(flag),
                "{shell} completes bench run's --{flag}"
            );
        }
    }
    let unknown = bench_in_temp(&["completions", "cmd"]);
    assert_eq!(unknown.code, Some(2), "clap rejects an unknown shell");
}

#[test]
fn only_task_commands_say_benchmark_failed() {
    let build = bench_in_temp(&["build", "no-such-project"]);
    assert_eq!(build.code, Some(1));
    assert!(build.stderr.starts_with("error: "), "{}", build.stderr);
    let report = bench_in_temp(&["report", "no-such-run"]);
    assert!(report.stderr.starts_with("error: "), "{}", report.stderr);
    let run = bench_in_temp(&["run", "no-such-project"]);
    assert!(
        run.stderr.starts_with("Benchmark failed: "),
        "{}",
        run.stderr
    );
}

#[test]
fn a_wrong_bench_sdk_dir_fails_bench_new_before_it_writes_anything() {
    let dir = TempDir::new().unwrap();
    let not_a_checkout = TempDir::new().unwrap();
    let run = crate::support::bench::run_command(
        crate::support::bench::bench(dir.path())
            .env("BENCH_SDK_DIR", not_a_checkout.path())
            .args(["new", "my-bench", "--lang", "ts"]),
    );
    assert_eq!(run.code, Some(1));
    let shown = std::fs::canonicalize(not_a_checkout.path()).unwrap();
    assert_eq!(
        run.stderr.trim_end(),
        format!(
            "error: BENCH_SDK_DIR ({}) is not a bench checkout: it has no guest-sdk/Cargo.toml, \
             guest-sdk/js/package.json, guest-sdk/python/bench_task; set BENCH_SDK_DIR to the \
             root of a bench repository checkout",
            shown.display()
        )
    );
    assert!(!dir.path().join("my-bench").exists());
}
