//! End-to-end: under the summary table a run prints its elapsed time and tasks/s and each
//! participant's latency (mean ± σ, min, median, p95, p99, max); `bench report` prints the
//! same lines.

use crate::support::{bench::run_bench, guests::test_guest};
use tempfile::TempDir;

fn timing_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|line| line.starts_with("Elapsed: ") || line.starts_with("  local: latency "))
        .collect()
}

#[test]
fn the_summary_shows_elapsed_time_throughput_and_latency_spread() {
    let dir = TempDir::new().unwrap();
    let wasm = test_guest("sleeper");
    let args = [
        "run",
        wasm.to_str().unwrap(),
        "--iterations",
        "10",
        "--sleep-ms",
        "20",
    ];
    let run = run_bench(dir.path(), &[&args[..], &["--out", "results"]].concat());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines = timing_lines(&run.stdout);
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].ends_with(" for 10 tasks") || lines[0].contains(" for 10 tasks ("));
    assert!(lines[0].contains(" tasks/s)"), "{}", lines[0]);
    let latency = lines[1];
    assert!(latency.contains(" ms \u{b1} "), "{latency}");
    for order in [" (min ", ", median ", ", p95 ", ", p99 ", ", max "] {
        assert!(latency.contains(order), "{order}: {latency}");
    }
    assert!(latency.ends_with(", 10 successful tasks)"), "{latency}");
    let next = run
        .lines()
        .iter()
        .position(|line| *line == lines[1])
        .unwrap()
        + 1;
    assert!(
        run.lines()[next].starts_with("Results: "),
        "under the table"
    );

    let report = run_bench(dir.path(), &["report", "results"]);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    assert_eq!(timing_lines(&report.stdout), lines);
}
