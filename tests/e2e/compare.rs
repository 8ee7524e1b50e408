//! End-to-end: `bench compare` on real runs of the `paced` guest, whose one step sleeps
//! `--delay-ms`: a run made 20 % slower (120 ms instead of 100 ms) is `slower` with an
//! interval above 1, a second run at 100 ms is `no change`, `--fail-on-regression` exits 99,
//! the exports and the job summary hold the comparison, and bad input is a clear error.

use crate::support::{
    bench::{run_bench, run_bench_pinned, Run},
    guests::test_guest,
    results::read_json,
};
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;
use tempfile::TempDir;

/// Three runs of 20 tasks made once, side by side (so they share the machine's load):
/// `a` and `same` sleep 100 ms per task, `slower` 120 ms.
fn runs() -> &'static Path {
    static RUNS: OnceLock<TempDir> = OnceLock::new();
    RUNS.get_or_init(|| {
        let wasm = test_guest("paced");
        let dir = TempDir::new().unwrap();
        std::thread::scope(|scope| {
            let started: Vec<_> = [("a", "100"), ("slower", "120"), ("same", "100")]
                .into_iter()
                .map(|(out, ms)| {
                    let wasm = wasm.to_str().unwrap();
                    let cwd = dir.path();
                    scope.spawn(move || {
                        let args = ["run", wasm, "--out", out, "--delay-ms", ms];
                        (out, run_bench_pinned(cwd, &args, &[]))
                    })
                })
                .collect();
            for run in started {
                let (out, run) = run.join().unwrap();
                assert_eq!(run.code, Some(0), "run {out}: {}", run.stderr);
            }
        });
        dir
    })
    .path()
}

/// `bench compare` in the runs' directory, without a job summary.
fn compare(args: &[&str]) -> Run {
    let mut full = vec!["compare"];
    full.extend_from_slice(args);
    run_bench_pinned(runs(), &full, &[])
}

/// The metrics of the first participant of the first candidate of an exported comparison.
fn metrics(comparison: &Value) -> &Vec<Value> {
    let participant = &comparison["candidates"][0]["participants"][0];
    assert_eq!(participant["participant"], "local");
    participant["metrics"].as_array().unwrap()
}

fn by_name<'a>(metrics: &'a [Value], name: &str) -> &'a Value {
    metrics
        .iter()
        .find(|metric| metric["metric"] == name)
        .unwrap_or_else(|| panic!("no metric {name} in {metrics:?}"))
}

/// A median as the tables print it: at most three decimals, no trailing zeros (the
/// latencies come from `durationUs`, to the nanosecond).
fn three_decimals(ms: f64) -> String {
    let text = format!("{ms:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[test]
fn a_run_made_20_percent_slower_is_slower_with_an_interval_above_one() {
    let out = TempDir::new().unwrap();
    let json = out.path().join("compare.json");
    let markdown = out.path().join("compare.md");
    let run = compare(&[
        "a",
        "slower",
        "--export-json",
        json.to_str().unwrap(),
        "--export-markdown",
        markdown.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let comparison = read_json(&json);
    assert_eq!(comparison["settings"]["resamples"], 10_000);
    assert_eq!(comparison["settings"]["seed"], 1);
    assert_eq!(comparison["baseline"]["dir"], "a");
    let metrics = metrics(&comparison);
    let names: Vec<(&str, &str)> = metrics
        .iter()
        .map(|m| (m["metric"].as_str().unwrap(), m["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("latencyMs", "latency"),
            ("waitedMs", "measure"),
            ("wait", "step")
        ]
    );
    for metric in metrics {
        let ratio = metric["ratio"].as_f64().unwrap();
        let (low, high) = (
            metric["ciLow"].as_f64().unwrap(),
            metric["ciHigh"].as_f64().unwrap(),
        );
        assert!((1.1..1.3).contains(&ratio), "{metric}");
        assert!(1.02 < low && low <= ratio && ratio <= high, "{metric}");
        assert!(metric["pValue"].as_f64().unwrap() < 0.001, "{metric}");
        assert_eq!(metric["verdict"], "slower", "{metric}");
        assert_eq!(metric["baseline"]["samples"], 20);
    }
    let scores = &comparison["candidates"][0]["participants"][0]["compositeScore"];
    assert!(
        scores["candidate"].as_f64() < scores["baseline"].as_f64(),
        "{scores}"
    );

    let latency = by_name(metrics, "latencyMs");
    let row = format!(
        "| local | latencyMs | {} ms | {} ms | {:.3} | [{:.3}, {:.3}] | &lt;0.001 | slower |",
        three_decimals(latency["baseline"]["median"].as_f64().unwrap()),
        three_decimals(latency["candidate"]["median"].as_f64().unwrap()),
        latency["ratio"].as_f64().unwrap(),
        latency["ciLow"].as_f64().unwrap(),
        latency["ciHigh"].as_f64().unwrap(),
    );
    let markdown = std::fs::read_to_string(&markdown).unwrap();
    assert!(
        markdown.starts_with("## Comparison\n\nA (baseline): a (run "),
        "{markdown}"
    );
    assert!(markdown.contains("\n### B: slower (run "), "{markdown}");
    assert!(
        markdown.contains(&format!("\n{row}\n")),
        "{row}\n{markdown}"
    );
    assert!(markdown.contains("| local | step wait | "), "{markdown}");
    assert!(
        markdown.contains("\n| Participant | A score | B score | B − A |\n"),
        "{markdown}"
    );

    assert!(run.stdout.starts_with("A: a (run "), "{}", run.stdout);
    let slower_rows = run
        .stdout
        .lines()
        .filter(|line| line.starts_with("│ local") && line.contains("┆ slower"))
        .count();
    assert_eq!(slower_rows, 3, "{}", run.stdout);
    assert!(run.stdout.ends_with(
        "Ratio of medians with a 95% bootstrap CI (10000 resamples, seed 1); Mann–Whitney U two-sided p; noise band ±2%.\n"
    ), "{}", run.stdout);
}

#[test]
fn two_runs_of_the_same_task_are_no_change_and_pass_the_regression_gate() {
    let out = TempDir::new().unwrap();
    let json = out.path().join("compare.json");
    let run = compare(&[
        "a",
        "same",
        "--fail-on-regression",
        "--export-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let comparison = read_json(&json);
    for metric in metrics(&comparison) {
        assert_eq!(metric["verdict"], "no-change", "{metric}");
        let (low, high) = (
            metric["ciLow"].as_f64().unwrap(),
            metric["ciHigh"].as_f64().unwrap(),
        );
        assert!(low < 1.02 && high > 0.98, "{metric}");
    }
    assert!(!run.stdout.contains("┆ slower"), "{}", run.stdout);
}

#[test]
fn fail_on_regression_exits_99_when_a_metric_is_slower_and_0_when_it_is_faster() {
    let run = compare(&["a", "same", "slower", "--fail-on-regression"]);
    assert_eq!(run.code, Some(99), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("\nC: slower (run "), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("a metric is slower than in A beyond the noise band (--fail-on-regression)"),
        "{}",
        run.stderr
    );

    let run = compare(&["slower", "a", "--fail-on-regression"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let faster_rows = run
        .lines()
        .iter()
        .filter(|l| l.contains("┆ faster"))
        .count();
    assert_eq!(faster_rows, 3, "{}", run.stdout);

    let wide = compare(&["a", "slower", "--threshold", "50%", "--fail-on-regression"]);
    assert_eq!(
        wide.code,
        Some(0),
        "a 50 % band takes in 20 %: {}",
        wide.stdout
    );
}

#[test]
fn the_comparison_is_added_to_the_github_job_summary() {
    let out = TempDir::new().unwrap();
    let summary = out.path().join("step-summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let run = run_bench_pinned(
        runs(),
        &["compare", "a", "slower"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("# earlier step\n## Comparison\n"),
        "{text}"
    );
    assert!(text.contains("| local | latencyMs | "), "{text}");
}

#[test]
fn missing_or_empty_directories_no_shared_participant_and_too_few_samples_are_errors() {
    let dir = TempDir::new().unwrap();
    let a = runs().join("a");
    let a = a.to_str().unwrap();
    let error_of = |args: &[&str]| {
        let mut full = vec!["compare"];
        full.extend_from_slice(args);
        let run = run_bench(dir.path(), &full);
        assert_eq!(run.code, Some(1), "{args:?}: {}", run.stdout);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        run.stderr
    };

    let error = error_of(&[a, "missing"]);
    assert_eq!(
        error,
        "error: missing is not a results directory (it does not exist)\n"
    );

    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let error = error_of(&[a, "empty"]);
    assert!(
        error.starts_with("error: empty holds no run: it has no records.ndjson"),
        "{error}"
    );

    let renamed = dir.path().join("renamed");
    std::fs::create_dir(&renamed).unwrap();
    let run_json = std::fs::read_to_string(runs().join("a/run.json")).unwrap();
    let records = std::fs::read_to_string(runs().join("a/records.ndjson")).unwrap();
    std::fs::write(
        renamed.join("run.json"),
        run_json.replace("\"local\"", "\"remote\""),
    )
    .unwrap();
    std::fs::write(
        renamed.join("records.ndjson"),
        records.replace("\"participant\":\"local\"", "\"participant\":\"remote\""),
    )
    .unwrap();
    let error = error_of(&[a, "renamed"]);
    let expected = format!(
        "error: {a} and renamed have no participant in common ({a}: local; renamed: remote)\n"
    );
    assert_eq!(error, expected);

    let wasm = test_guest("paced");
    let once = [
        "run",
        wasm.to_str().unwrap(),
        "--out",
        "once",
        "--iterations",
        "1",
        "--delay-ms",
        "1",
    ];
    let run = run_bench_pinned(dir.path(), &once, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let error = error_of(&[a, "once"]);
    assert_eq!(
        error,
        "error: participant local has 1 successful task(s) in once; a comparison needs at least 2 in each run\n"
    );

    let usage = run_bench(dir.path(), &["compare", a]);
    assert_eq!(
        usage.code,
        Some(2),
        "one directory is a usage error: {}",
        usage.stderr
    );
}
