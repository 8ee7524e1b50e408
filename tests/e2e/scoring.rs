//! End-to-end: `bench run` scores the real `examples/rust-scored` component, prints the
//! summary table, writes `summary.json` exactly as computed by hand below, and applies the
//! `--fail-under` gate.

use crate::support::{
    bench::{run_bench_pinned, Run},
    guests::example,
    results::{read_json, records, records_of},
};
use serde_json::{json, Value};
use std::path::Path;
use tempfile::TempDir;

/// Runs `examples/rust-scored` into `<tmp>/results` with pinned GitHub variables.
fn scored_run(args: &[&str]) -> (TempDir, Run) {
    let scored = example("rust-scored");
    let dir = TempDir::new().unwrap();
    let mut full = vec!["run", scored.to_str().unwrap(), "--out", "results"];
    full.extend_from_slice(args);
    let run = run_bench_pinned(dir.path(), &full, &[]);
    (dir, run)
}

fn metric(name: &str, unit: &str, median: u32, p95: u32, p99: u32) -> Value {
    json!({"name": name, "unit": unit, "median": median, "p95": p95, "p99": p99})
}

fn row(provider: &str, size: Option<&str>, metrics: [Value; 2], score: f64, rate: Value) -> Value {
    let mut dimensions = json!({"region": "local"});
    if let Some(size) = size {
        dimensions["size"] = json!(size);
    }
    json!({
        "provider": provider,
        "dimensions": dimensions,
        "metrics": metrics,
        "compositeScore": score,
        "successRate": rate,
        "skipped": false,
    })
}

/// Node.js's names for this host, as `summary.json` spells them.
fn node_platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

fn node_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    }
}

/// The summary of `examples/rust-scored`, computed by hand.
///
/// Task i (0..5) of a participant with base `b` ms and `m` Mbps reports
/// `uploadMs = b + 20i`, `throughputMbps = [m + 10i, m + 10i + 20]`, `size` 1MB (even i) or
/// 4MB (odd i) and `verified: true` — except `fast` task 5, which fails (`upload_failed`,
/// data `{size: 4MB}`), and `slow` task 4, which reports `verified: false`. Only successful,
/// verified records pass. Scores: uploadMs (lower is better, ceiling 1000) S(x) = 100(1 −
/// x/1000) with weights 0.5/0.2/0.1; throughputMbps (higher is better, floor 10, ceiling
/// 510) S(x) = (x − 10)/500·100 with weight 0.2 on the median. Fewer than 20 samples: no
/// trim; p95 = p99 = the sample at index ceil(0.95·n) − 1, the largest here.
///
/// * fast, all (b 100, m 200): 5 of 6 pass. uploadMs 100,120,140,160,180 → 140/180/180 →
///   0.5·86 + 0.2·82 + 0.1·82 = 67.6. throughput 200…260 (10 samples) → median
///   (230+230)/2 = 230, p95 260 → 0.2·44 = 8.8. (67.6 + 8.8)·5/6 = 63.666… → 63.67.
/// * fast, 1MB (tasks 0, 2, 4): uploadMs 100,140,180 → 140/180/180 → 67.6; throughput
///   200,220,220,240,240,260 → 230/260 → 8.8; 76.4·1 = 76.4.
/// * fast, 4MB (tasks 1, 3, 5; 5 failed): uploadMs 120,160 → median 140, p95 160 → 43 +
///   16.8 + 8.4 = 68.2; throughput 210,230,230,250 → 230/250 → 8.8; 77·2/3 = 51.33.
/// * slow, all (b 300, m 100; task 4 unverified): uploadMs 300,320,340,360,400 →
///   340/400/400 → 33 + 12 + 6 = 51; throughput 100…170 without task 4 → median 130, p95
///   170 → 0.2·24 = 4.8; 55.8·5/6 = 46.5.
/// * slow, 1MB (tasks 0, 2, 4): uploadMs 300,340 → 320/340 → 34 + 13.2 + 6.6 = 53.8;
///   throughput 100,120,120,140 → 120/140 → 4.4; 58.2·2/3 = 38.8.
/// * slow, 4MB (tasks 1, 3, 5): uploadMs 320,360,400 → 360/400 → 32 + 12 + 6 = 50;
///   throughput 110,130,130,150,150,170 → (130+150)/2 = 140, p95 170 → 5.2; 55.2.
fn expected_summary(run_json: &Value) -> Value {
    // JavaScript prints a rate of 1 as `1`, and 5/6 with every digit.
    let (all, five_sixths, two_thirds) = (json!(1), json!(5.0 / 6.0), json!(2.0 / 3.0));
    json!({
        "run": {
            "gitSha": "0123abc",
            "gitRef": "main",
            "triggeredBy": "push",
            "benchVersion": env!("CARGO_PKG_VERSION"),
            "wasmtimeVersion": run_json["host"]["wasmtimeVersion"],
            "platform": node_platform(),
            "arch": node_arch(),
        },
        "results": [
            row("fast", None, [metric("uploadMs", "ms", 140, 180, 180), metric("throughputMbps", "Mbps", 230, 260, 260)], 63.67, five_sixths.clone()),
            row("fast", Some("1MB"), [metric("uploadMs", "ms", 140, 180, 180), metric("throughputMbps", "Mbps", 230, 260, 260)], 76.4, all.clone()),
            row("fast", Some("4MB"), [metric("uploadMs", "ms", 140, 160, 160), metric("throughputMbps", "Mbps", 230, 250, 250)], 51.33, two_thirds.clone()),
            row("slow", None, [metric("uploadMs", "ms", 340, 400, 400), metric("throughputMbps", "Mbps", 130, 170, 170)], 46.5, five_sixths),
            row("slow", Some("1MB"), [metric("uploadMs", "ms", 320, 340, 340), metric("throughputMbps", "Mbps", 120, 140, 140)], 38.8, two_thirds),
            row("slow", Some("4MB"), [metric("uploadMs", "ms", 360, 400, 400), metric("throughputMbps", "Mbps", 140, 170, 170)], 55.2, all),
        ],
        "scoring": {
            "groupBy": "size",
            "success": {"requireData": {"verified": true}},
            "metrics": [
                {"key": "uploadMs", "ceiling": 1000, "higherIsBetter": false,
                 "weights": {"median": 0.5, "p95": 0.2, "p99": 0.1}},
                {"key": "throughputMbps", "unit": "Mbps", "ceiling": 510, "floor": 10,
                 "higherIsBetter": true, "weights": {"median": 0.2, "p95": 0, "p99": 0}},
            ],
        },
        "percentileMethod": "nearest-rank",
    })
}

fn summary_text(results: &Path) -> String {
    std::fs::read_to_string(results.join("summary.json")).expect("summary.json exists")
}

#[test]
fn summary_json_equals_the_hand_computed_scores() {
    let (dir, run) = scored_run(&[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let results = dir.path().join("results");
    let run_json = read_json(&results.join("run.json"));
    let expected = expected_summary(&run_json);
    let text = summary_text(&results);
    let actual: Value = serde_json::from_str(&text).unwrap();
    // Value equality also tells integers from floats: `75` is not `75.0`.
    assert_eq!(actual, expected);
    assert_eq!(
        text,
        format!("{}\n", serde_json::to_string_pretty(&expected).unwrap())
    );
    assert!(text.contains("\"compositeScore\": 46.5,"), "{text}");
    assert!(
        text.contains("\"successRate\": 0.8333333333333334,"),
        "{text}"
    );
    assert!(text.contains("\"median\": 140,"), "{text}");
    // The run's origin is kept in run.json, where `bench report` finds it again.
    assert_eq!(
        run_json["origin"],
        json!({"gitSha": "0123abc", "gitRef": "main", "triggeredBy": "push"})
    );
    // Records are on disk as usual: 12 tasks, one failed.
    assert_eq!(records(&results).len(), 12);
    assert_eq!(
        records_of(&results, "fast")[5]["errorCode"],
        "upload_failed"
    );
}

#[test]
fn the_summary_table_follows_the_upstream_lines() {
    let (_dir, run) = scored_run(&[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let all_done = run
        .stdout
        .find("All done. No platform run created.\n")
        .expect("All done line");
    let table = &run.stdout[all_done..];
    let lines: Vec<&str> = table.lines().collect();
    let header = lines.iter().find(|l| l.contains("participant")).unwrap();
    for title in [
        "region",
        "size",
        "uploadMs (ms)",
        "throughputMbps (Mbps)",
        "success",
        "score",
    ] {
        assert!(header.contains(title), "{header}");
    }
    assert!(table.contains("median / p95 / p99"), "{table}");
    let row_of = |cells: &[&str]| {
        lines
            .iter()
            .find(|line| cells.iter().all(|cell| line.contains(cell)))
            .unwrap_or_else(|| panic!("no row with {cells:?} in\n{table}"))
    };
    row_of(&[
        "fast",
        "local",
        "140 / 180 / 180",
        "230 / 260 / 260",
        "83.33%",
        "63.67",
    ]);
    row_of(&["fast", "4MB", "140 / 160 / 160", "66.67%", "51.33"]);
    row_of(&["slow", "1MB", "320 / 340 / 340", "38.8"]);
    assert!(lines.last().unwrap().starts_with("Results: "));
}

#[test]
fn fail_under_exits_99_naming_participants_below_the_bar() {
    let (dir, run) = scored_run(&["--fail-under", "50"]);
    assert_eq!(run.code, Some(99), "stderr: {}", run.stderr);
    assert_eq!(run.stderr.trim(), "slow scored 46.5, below --fail-under 50");
    // Everything is still written.
    assert!(summary_text(&dir.path().join("results")).contains("\"compositeScore\": 46.5"));
}

#[test]
fn fail_under_passes_when_every_overall_score_reaches_the_bar() {
    // slow's 1MB group scores 38.8: only the overall rows count.
    let (_dir, run) = scored_run(&["--fail-under=46.5"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(run.stderr, "");
}

#[test]
fn fail_under_needs_scoring_and_fails_before_running() {
    let hello = example("rust-hello");
    let dir = TempDir::new().unwrap();
    let run = run_bench_pinned(
        dir.path(),
        &[
            "run",
            hello.to_str().unwrap(),
            "--out",
            "results",
            "--fail-under",
            "50",
        ],
        &[],
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim(),
        "Benchmark failed: --fail-under needs a benchmark config with scoring (this one declares none)"
    );
    assert!(!dir.path().join("results").exists());
}

#[test]
fn a_scoring_spec_error_fails_with_the_upstream_message_after_the_records_are_saved() {
    let (dir, run) = scored_run(&[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let results = dir.path().join("results");
    // Weights that pass config validation, which adds each metric's total
    // (0.324 + 0.686 = 1.0099999999999998), but not the spec check, which adds weight by
    // weight (1.01, off by more than 0.01 in binary): the run ends in ScoringSpecError.
    let mut run_json = read_json(&results.join("run.json"));
    let weights = [[0.145, 0.0, 0.179], [0.315, 0.181, 0.19]];
    for (metric, [median, p95, p99]) in weights.iter().enumerate() {
        run_json["scoring"]["metrics"][metric]["weights"] =
            json!({"median": median, "p95": p95, "p99": p99});
    }
    std::fs::write(results.join("run.json"), run_json.to_string()).unwrap();
    std::fs::remove_file(results.join("summary.json")).unwrap();
    let report = run_bench_pinned(dir.path(), &["report", "results"], &[]);
    assert_eq!(report.code, Some(1));
    assert_eq!(
        report.stderr.trim(),
        "error: Scoring spec weights sum to 1.010, expected 1.0 (±0.01). Each \
         metric's weights.median + weights.p95 + weights.p99, summed across every declared \
         metric, must total 1.0 for compositeScore to stay a meaningful 0-100 scale. \
         Per-metric totals: uploadMs=0.324, throughputMbps=0.686"
    );
    assert!(!results.join("summary.json").exists());
    assert_eq!(records(&results).len(), 12);
}
