//! End-to-end: export files (parsed back with CSV, XML and JSON parsers), the GitHub step
//! summary, the table of a run without scoring, and `bench report` on a saved run.

use crate::support::{
    bench::{run_bench_pinned, Run},
    guests::example,
    results::read_json,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Runs `examples/<example>` into `<tmp>/results` with pinned GitHub variables.
fn run_example(example_name: &str, args: &[&str], env: &[(&str, &str)]) -> (TempDir, Run) {
    let component = example(example_name);
    let dir = TempDir::new().unwrap();
    let mut full = vec!["run", component.to_str().unwrap(), "--out", "results"];
    full.extend_from_slice(args);
    let run = run_bench_pinned(dir.path(), &full, env);
    (dir, run)
}

const EXPORTS: [&str; 8] = [
    "--export-json",
    "out.json",
    "--export-csv",
    "out.csv",
    "--export-markdown",
    "out.md",
    "--export-junit",
    "out.xml",
];

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn csv_rows(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|record| record.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn scored_exports_parse_back() {
    let (dir, run) = run_example("rust-scored", &EXPORTS, &[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let root = dir.path();
    let summary = read_json(&root.join("results").join("summary.json"));

    // JSON: what summary.json holds.
    let exported: Value = serde_json::from_str(&read(root.join("out.json"))).unwrap();
    assert_eq!(exported, summary);

    // CSV: one line per summary row and metric.
    let (header, rows) = csv_rows(&read(root.join("out.csv")));
    assert_eq!(
        header,
        [
            "participant",
            "dimensions",
            "metric",
            "unit",
            "median",
            "p95",
            "p99",
            "success_rate",
            "composite_score"
        ]
    );
    assert_eq!(rows.len(), 12);
    assert_eq!(
        rows[0],
        [
            "fast",
            r#"{"region":"local"}"#,
            "uploadMs",
            "ms",
            "140",
            "180",
            "180",
            "0.8333333333333334",
            "63.67"
        ]
    );
    assert_eq!(
        rows[11],
        [
            "slow",
            r#"{"region":"local","size":"4MB"}"#,
            "throughputMbps",
            "Mbps",
            "140",
            "170",
            "170",
            "1",
            "55.2"
        ]
    );

    // JUnit: a suite per participant, a case per record, the failure with code and message.
    let xml = read(root.join("out.xml"));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suites = doc.root_element();
    assert_eq!(suites.tag_name().name(), "testsuites");
    assert_eq!(suites.attribute("name"), Some("Rust scored"));
    assert_eq!(suites.attribute("tests"), Some("12"));
    assert_eq!(suites.attribute("failures"), Some("1"));
    let suite_list: Vec<roxmltree::Node> = suites
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    let names: Vec<&str> = suite_list
        .iter()
        .map(|s| s.attribute("name").unwrap())
        .collect();
    assert_eq!(names, ["fast", "slow"]);
    let fast = suite_list[0];
    assert_eq!(fast.attribute("failures"), Some("1"));
    let cases: Vec<roxmltree::Node> = fast
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 6);
    assert_eq!(cases[0].attribute("name"), Some("task 0"));
    assert_eq!(cases[0].attribute("classname"), Some("rust-scored.fast"));
    let seconds: f64 = cases[0].attribute("time").unwrap().parse().unwrap();
    assert!((0.0..60.0).contains(&seconds));
    let failures: Vec<roxmltree::Node> = fast
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(failures.len(), 1);
    let failure = failures[0];
    assert_eq!(failure.parent().unwrap().attribute("name"), Some("task 5"));
    assert_eq!(failure.attribute("type"), Some("upload_failed"));
    assert_eq!(failure.attribute("message"), Some("upload_failed"));
    let record: Value = serde_json::from_str(failure.text().unwrap()).unwrap();
    assert_eq!(record["data"]["size"], "4MB");
    let score = fast
        .descendants()
        .find(|n| n.has_tag_name("property") && n.attribute("name") == Some("compositeScore"))
        .unwrap();
    assert_eq!(score.attribute("value"), Some("63.67"));

    // Markdown: a heading, the table, the percentile note.
    let markdown = read(root.join("out.md"));
    let lines: Vec<&str> = markdown.lines().collect();
    assert_eq!(lines[0], "## Rust scored");
    assert_eq!(
        lines[2],
        "| participant | region | size | uploadMs (ms)<br>median / p95 / p99 | \
         throughputMbps (Mbps)<br>median / p95 / p99 | success | score |"
    );
    assert_eq!(lines[3], "| --- | --- | --- | ---: | ---: | ---: | ---: |");
    assert_eq!(
        lines[4],
        "| fast | local |  | 140 / 180 / 180 | 230 / 260 / 260 | 83.33% | 63.67 |"
    );
    assert_eq!(lines.len(), 4 + 6 + 2);
}

#[test]
fn a_bad_export_path_fails_before_the_run_starts() {
    let (dir, run) = run_example("rust-scored", &["--export-csv", "missing/out.csv"], &[]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim(),
        "Benchmark failed: cannot create export file missing/out.csv: No such file or directory (os error 2)"
    );
    assert!(!run.stdout.contains("Task 1/"), "{}", run.stdout);
    assert!(!dir.path().join("results").exists());
}

#[test]
fn the_markdown_summary_is_appended_to_the_github_step_summary() {
    let step_summary = TempDir::new().unwrap();
    let path = step_summary.path().join("step.md");
    std::fs::write(&path, "# Earlier step\n").unwrap();
    let path_text = path.to_str().unwrap();
    let (dir, run) = run_example(
        "rust-scored",
        &["--export-markdown", "out.md"],
        &[("GITHUB_STEP_SUMMARY", path_text)],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let markdown = read(dir.path().join("out.md"));
    assert_eq!(read(path), format!("# Earlier step\n{markdown}"));
}

#[test]
fn a_run_without_scoring_prints_each_participants_numbers() {
    let (dir, run) = run_example("rust-hello", &["--export-csv", "out.csv"], &[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let table = &run.stdout[run.stdout.find("All done.").unwrap()..];
    let header = table.lines().find(|l| l.contains("participant")).unwrap();
    for title in [
        "tasks",
        "success",
        "latencyMs (ms)",
        "answer",
        "create.sandboxes",
    ] {
        assert!(header.contains(title), "{table}");
    }
    let alpha = table.lines().find(|l| l.contains("alpha")).unwrap();
    assert!(alpha.contains(" 3 ") && alpha.contains("100%"), "{alpha}");
    assert!(alpha.contains("42 / 42 / 42"), "{alpha}");

    let summary = read_json(&dir.path().join("results").join("summary.json"));
    let keys: Vec<&String> = summary.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["run", "participants", "percentileMethod"]);
    let alpha = &summary["participants"][0];
    assert_eq!(alpha["participant"], "alpha");
    assert_eq!(alpha["tasks"], 3);
    assert_eq!(alpha["successRate"], 1);
    let metrics: Vec<&str> = alpha["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        metrics,
        [
            "latencyMs",
            "answer",
            "create.sandboxes",
            "connect.handshakes",
            "exec.checksum"
        ]
    );
    assert_eq!(alpha["metrics"][4]["median"], 500500);

    let (header, rows) = csv_rows(&read(dir.path().join("out.csv")));
    assert_eq!(
        header,
        [
            "participant",
            "tasks",
            "success_rate",
            "metric",
            "unit",
            "samples",
            "median",
            "p95",
            "p99"
        ]
    );
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[1][..6], ["alpha", "3", "1", "answer", "", "3"]);
}

/// Runs `bench report` on a saved run, with other GitHub variables than the run had.
fn report(cwd: &Path, args: &[&str]) -> Run {
    let mut full = vec!["report", "results"];
    full.extend_from_slice(args);
    run_bench_pinned(
        cwd,
        &full,
        &[("GITHUB_SHA", "fedcba9"), ("GITHUB_EVENT_NAME", "schedule")],
    )
}

#[test]
fn report_reproduces_summary_json_byte_for_byte_and_re_exports() {
    let (dir, run) = run_example("rust-scored", &EXPORTS, &[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let root = dir.path();
    let results = root.join("results");
    let original = std::fs::read(results.join("summary.json")).unwrap();
    std::fs::remove_file(results.join("summary.json")).unwrap();

    let again = report(
        root,
        &[
            "--export-json",
            "again.json",
            "--export-csv",
            "again.csv",
            "--export-markdown",
            "again.md",
            "--export-junit",
            "again.xml",
        ],
    );
    assert_eq!(again.code, Some(0), "stderr: {}", again.stderr);
    assert_eq!(
        std::fs::read(results.join("summary.json")).unwrap(),
        original
    );
    for (first, second) in [
        ("out.json", "again.json"),
        ("out.csv", "again.csv"),
        ("out.md", "again.md"),
        ("out.xml", "again.xml"),
    ] {
        assert_eq!(read(root.join(first)), read(root.join(second)), "{second}");
    }
    // The same table as the run printed.
    let run_table =
        &run.stdout[run.stdout.find('┌').unwrap()..run.stdout.find("Results: ").unwrap()];
    assert!(again.stdout.contains(run_table), "{}", again.stdout);
}

#[test]
fn report_applies_the_fail_under_gate() {
    let (dir, run) = run_example("rust-scored", &[], &[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let below = report(dir.path(), &["--fail-under", "63.68"]);
    assert_eq!(below.code, Some(99));
    assert_eq!(
        below.stderr,
        "fast scored 63.67, below --fail-under 63.68\nslow scored 46.5, below --fail-under 63.68\n"
    );
    let above = report(dir.path(), &["--fail-under", "46"]);
    assert_eq!(above.code, Some(0), "stderr: {}", above.stderr);
    let bad = report(dir.path(), &["--fail-under", "high"]);
    assert_eq!(bad.code, Some(2));
    assert!(
        bad.stderr
            .contains(r#"--fail-under expects a number (got "high")"#),
        "{}",
        bad.stderr
    );
}

#[test]
fn report_of_a_directory_without_a_run_fails() {
    let dir = TempDir::new().unwrap();
    let run = run_bench_pinned(dir.path(), &["report", "nowhere"], &[]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim(),
        "error: cannot read the results directory nowhere: No such file or directory (os error 2)"
    );
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let run = run_bench_pinned(dir.path(), &["report", "empty"], &[]);
    assert_eq!(
        run.stderr.trim(),
        "error: cannot read empty/run.json: there is no such file"
    );
}
