//! End-to-end in headless Chromium: the one-file HTML report opened from a `file://` URL
//! with every network request refused, and the `bench serve` dashboard — the `View at` run
//! page behind its login, `--public-read`, the benchmark pages. Each page must show the
//! scores of `summary.json`, draw its charts and log no console error; a screenshot of each
//! is written under `target/tmp/screenshots/<test>/`.

use crate::support::{
    bench::run_bench_pinned,
    browser::{browse, screenshots},
    guests::example,
    results::read_json,
};
use serde_json::{json, Value};
use std::path::Path;
use tempfile::TempDir;

/// The (participant, score text) of every row of `summary.json`, in order, as the pages
/// print them.
fn summary_scores(summary: &Value) -> Vec<(String, String)> {
    summary["results"]
        .as_array()
        .expect("a scored summary")
        .iter()
        .map(|row| {
            let provider = row["provider"].as_str().unwrap().to_owned();
            (provider, row["compositeScore"].to_string())
        })
        .collect()
}

/// The (participant, score text) of every score row a page showed.
fn page_scores(visit: &Value) -> Vec<(String, String)> {
    visit["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let provider = row["provider"].as_str().unwrap().to_owned();
            (
                provider,
                row["score"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Asserts a page drew all its charts (each canvas has pixels) and logged no error.
fn assert_drawn_without_errors(visit: &Value, at_least: u64) {
    let canvases = visit["canvases"].as_u64().unwrap();
    assert!(canvases >= at_least, "{visit}");
    assert_eq!(
        visit["drawnCanvases"].as_u64().unwrap(),
        canvases,
        "{visit}"
    );
    assert_eq!(visit["errors"], json!([]), "{visit}");
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[test]
fn the_html_report_shows_the_scores_offline() {
    let dir = TempDir::new().unwrap();
    let component = example("rust-scored");
    let run = run_bench_pinned(
        dir.path(),
        &[
            "run",
            component.to_str().unwrap(),
            "--out",
            "results",
            "--export-html",
            "run.html",
        ],
        &[],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let results = dir.path().join("results");
    let again = run_bench_pinned(
        dir.path(),
        &["report", "results", "--html", "report.html"],
        &[],
    );
    assert_eq!(again.code, Some(0), "stderr: {}", again.stderr);
    let exported = std::fs::read(dir.path().join("run.html")).unwrap();
    assert_eq!(
        std::fs::read(dir.path().join("report.html")).unwrap(),
        exported,
        "bench report --html writes what bench run --export-html wrote"
    );

    let shots = screenshots("html_report");
    let answer = browse(&json!({
        "offline": true,
        "visits": [{
            "url": file_url(&dir.path().join("report.html")),
            "screenshot": shots.join("report.png"),
        }],
    }));
    assert_eq!(
        answer["network"],
        json!([]),
        "the page asked for the network"
    );
    let visit = &answer["visits"][0];
    assert_eq!(visit["heading"], "Rust scored");
    let summary = read_json(&results.join("summary.json"));
    assert_eq!(page_scores(visit), summary_scores(&summary));
    // Scores, three distributions (latency, uploadMs, throughputMbps), steps, timeline, system.
    assert_drawn_without_errors(visit, 6);
    assert!(shots.join("report.png").is_file());
}
