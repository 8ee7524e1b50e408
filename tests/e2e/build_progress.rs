//! End-to-end: building a task shows its steps — one `[build] <step>` line each on stderr
//! when piped, a spinner naming the step (and the component's first compile) on a
//! terminal, nothing with `-q` — and a build that has nothing to do shows none.

use crate::one_file::{task_source, unique_name};
use crate::progress::run_on_terminal_with;
use crate::support::bench::{bench, run_command, Run};
use std::path::Path;
use tempfile::TempDir;

/// The JavaScript builds here use the interpreter whatever the test run sets: the AOT step
/// is `js_aot`'s.
const NO_AOT: (&str, &str) = ("BENCH_WEVAL", "off");

fn run_bench(cwd: &Path, args: &[&str]) -> Run {
    run_command(bench(cwd).env(NO_AOT.0, NO_AOT.1).args(args))
}

/// The `[build]` lines of stderr (bench's one-time toolchain install left out).
fn build_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("[build] "))
        // Once per cache, whichever test builds JavaScript first.
        .filter(|line| *line != "[build] installing the JavaScript toolchain (once)")
        .collect()
}

#[test]
fn piped_builds_print_one_line_per_step_and_quiet_ones_none() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("hello.bench.js");
    let name = unique_name(&dir);
    let source = task_source("js/task.bench.js", &name);
    std::fs::write(&file, &source).unwrap();

    let run = run_bench(dir.path(), &["run", "hello.bench.js", "--out", "first"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        build_lines(&run.stderr),
        ["[build] esbuild", "[build] componentize-js"],
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("[build]"), "{}", run.stdout);

    let run = run_bench(dir.path(), &["run", "hello.bench.js", "--out", "again"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(build_lines(&run.stderr).is_empty(), "{}", run.stderr);

    std::fs::write(&file, source.replace(&name, &format!("{name} quiet"))).unwrap();
    let run = run_bench(
        dir.path(),
        &["run", "hello.bench.js", "-q", "--out", "quiet"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "", "quiet");
}

#[test]
fn a_terminal_shows_a_spinner_naming_each_step() {
    let dir = TempDir::new().unwrap();
    let name = unique_name(&dir);
    std::fs::write(
        dir.path().join("hello.bench.ts"),
        task_source("ts/task.bench.ts", &name),
    )
    .unwrap();
    let run = run_on_terminal_with(
        &dir,
        &["run", "hello.bench.ts", "--out", "results"],
        &[NO_AOT],
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    for step in [
        "componentize-js (",
        "compiling component (cached next time) (",
    ] {
        assert!(run.stdout.contains(step), "{step}: {}", run.stdout);
    }
    assert!(!run.stdout.contains("[build]"), "{}", run.stdout);
    assert!(run.stdout.contains("Results: results"), "{}", run.stdout);
}
