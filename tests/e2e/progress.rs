//! End-to-end: on a terminal (a pseudo-terminal made by util-linux `script`) a run draws a
//! progress bar instead of upstream's per-task lines, unless `--per-task-lines`; piped
//! output keeps the lines and has no terminal control sequences.

use crate::support::{
    bench::{bench, run_bench, Run},
    guests::test_guest,
};
use std::process::Command;
use tempfile::TempDir;

/// Runs `bench` with `args` under a pseudo-terminal; stdout is what the terminal showed.
pub(crate) fn run_on_terminal(dir: &TempDir, args: &[&str]) -> Run {
    run_on_terminal_with(dir, args, &[])
}

/// [`run_on_terminal`] with `env` set for bench.
pub(crate) fn run_on_terminal_with(dir: &TempDir, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut template = bench(dir.path());
    template.envs(env.iter().copied());
    let program = template.get_program().to_str().unwrap().to_owned();
    let words = std::iter::once(program.as_str()).chain(args.iter().copied());
    let line = shlex::try_join(words).unwrap();
    let mut command = Command::new("script");
    command
        .args(["-qec", &line, "/dev/null"])
        .current_dir(dir.path());
    for (key, value) in template.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command.output().expect("script runs").into()
}

#[test]
fn a_terminal_shows_a_progress_bar_instead_of_task_lines() {
    let dir = TempDir::new().unwrap();
    let wasm = test_guest("sleeper");
    let wasm = wasm.to_str().unwrap();
    let args = ["run", wasm, "--iterations", "20", "--sleep-ms", "20"];

    let mut on_terminal = args.to_vec();
    on_terminal.extend(["--out", "tty"]);
    let run = run_on_terminal(&dir, &on_terminal);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(
        run.stdout.contains("= 20/20 "),
        "a full bar: {}",
        run.stdout
    );
    assert!(
        run.stdout.contains(" tasks/s ETA "),
        "tasks per second: {}",
        run.stdout
    );
    // The live median in a unit that fits, from the tasks' µs-fine durations.
    let mut median = run.stdout.rsplit("p50 ").next().unwrap().split_whitespace();
    let (value, unit) = (median.next().unwrap(), median.next().unwrap());
    assert_eq!(unit, "ms", "{}", run.stdout);
    assert!(value.parse::<f64>().unwrap() >= 20.0, "{}", run.stdout);
    assert!(!run.stdout.contains("Task 1/20"), "{}", run.stdout);
    assert!(run.stdout.contains("  Done: 20/20 succeeded."));
    assert!(run.stdout.contains("Results: tty"));

    let mut lines = args.to_vec();
    lines.extend(["--out", "lines", "--per-task-lines"]);
    let run = run_on_terminal(&dir, &lines);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(run.stdout.contains("  [local] Task 20/20: success"));
    assert!(!run.stdout.contains("= 20/20 "), "{}", run.stdout);

    let mut piped = args.to_vec();
    piped.extend(["--out", "piped"]);
    let run = run_bench(dir.path(), &piped);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let task_lines = run
        .lines()
        .into_iter()
        .filter(|l| l.contains("] Task "))
        .count();
    assert_eq!(task_lines, 20);
    assert!(!run.stdout.contains('\u{1b}') && !run.stderr.contains('\u{1b}'));
}
