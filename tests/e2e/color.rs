//! End-to-end: `--color auto|always|never` and `NO_COLOR`. On a terminal the summary's
//! success column is coloured unless `NO_COLOR` is set; piped output has no escape codes
//! unless `--color always`, which also colours the error prefix.

use crate::progress::run_on_terminal_with;
use crate::support::{bench::run_bench, guests::test_guest};
use tempfile::TempDir;

/// The green (every task succeeded) success cell.
const GREEN_FULL_SUCCESS: &str = "\u{1b}[38;5;10m100%\u{1b}[39m";

fn run_args<'a>(wasm: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        wasm,
        "--iterations",
        "2",
        "--sleep-ms",
        "1",
        "--out",
        out,
    ]
}

#[test]
fn piped_output_is_plain_unless_color_always() {
    let dir = TempDir::new().unwrap();
    let wasm = test_guest("sleeper");
    let wasm = wasm.to_str().unwrap();

    let plain = run_bench(dir.path(), &run_args(wasm, "plain"));
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert!(plain.stdout.contains(" 100% "), "{}", plain.stdout);
    assert!(!plain.stdout.contains('\u{1b}') && !plain.stderr.contains('\u{1b}'));

    let mut always = run_args(wasm, "always");
    always.extend(["--color", "always"]);
    let colored = run_bench(dir.path(), &always);
    assert_eq!(colored.code, Some(0), "{}", colored.stderr);
    assert!(
        colored.stdout.contains(GREEN_FULL_SUCCESS),
        "{}",
        colored.stdout
    );
    // Only the status column is coloured.
    let rest = colored.stdout.replace(GREEN_FULL_SUCCESS, "100%");
    assert!(!rest.contains('\u{1b}'), "{rest}");

    let failed = run_bench(dir.path(), &["run", "no-such-task.wasm", "--color=always"]);
    assert_eq!(failed.code, Some(1));
    assert!(
        failed.stderr.starts_with("\u{1b}[")
            && failed
                .stderr
                .contains("Benchmark failed:\u{1b}[0m no-such-task.wasm"),
        "{:?}",
        failed.stderr
    );
    let never = run_bench(dir.path(), &["--color", "never", "report", "missing"]);
    assert_eq!(never.code, Some(1));
    assert!(never.stderr.starts_with("error: "), "{:?}", never.stderr);

    let bad = run_bench(dir.path(), &["run", wasm, "--color", "sometimes"]);
    assert_eq!(bad.code, Some(1));
    assert_eq!(
        bad.stderr,
        "Benchmark failed: --color expects auto, always or never (got \"sometimes\")\n"
    );
}

#[test]
fn a_terminal_is_coloured_unless_no_color_is_set() {
    let dir = TempDir::new().unwrap();
    let wasm = test_guest("sleeper");
    let wasm = wasm.to_str().unwrap();
    let run = run_on_terminal_with(&dir, &run_args(wasm, "auto"), &[]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(run.stdout.contains(GREEN_FULL_SUCCESS), "{}", run.stdout);

    let run = run_on_terminal_with(&dir, &run_args(wasm, "no-color"), &[("NO_COLOR", "1")]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(run.stdout.contains(" 100% "), "{}", run.stdout);
    assert!(!run.stdout.contains("38;5;10m"), "{}", run.stdout);
}
