//! End-to-end in headless Chromium: the one-file HTML report opened from a `file://` URL
//! with every network request refused, and the `bench serve` dashboard — the `View at` run
//! page behind its login, `--public-read`, the benchmark pages. Each page must show the
//! scores of `summary.json`, draw its charts and log no console error; a screenshot of each
//! is written under `target/tmp/screenshots/<test>/`.

use crate::support::{
    bench::{run_bench_pinned, run_command},
    browser::{browse, screenshots},
    guests::example,
    platform::{platform_bench, Server},
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
    assert_drawn_without_errors(visit, 7);
    assert_eq!(
        visit["sections"],
        json!([
            "scores-section",
            "distributions",
            "steps",
            "timeline",
            "failures",
            "system",
            "logs"
        ])
    );
    assert!(shots.join("report.png").is_file());
}

/// `bench serve` with `flags`, and a scored run of `examples/rust-scored` reported to it:
/// the server, the run's `summary.json` and its `View at` URL.
fn served_run(dir: &Path, flags: &[&str]) -> (Server, Value, String) {
    let server = Server::start_with(dir, None, flags);
    let (summary, view_at) = report_run(dir, &server, "results");
    (server, summary, view_at)
}

/// A scored run of `examples/rust-scored` into `dir/out`, reported to `server`: its
/// `summary.json` and its `View at` URL.
fn report_run(dir: &Path, server: &Server, out: &str) -> (Value, String) {
    let component = example("rust-scored");
    let run = run_command(platform_bench(dir, &server.url(), &server.key).args([
        "run",
        component.to_str().unwrap(),
        "--out",
        out,
    ]));
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let view_at = run
        .lines()
        .into_iter()
        .find_map(|line| line.strip_prefix("View at: "))
        .unwrap_or_else(|| panic!("no View at line in:\n{}", run.stdout))
        .to_owned();
    let prefix = format!("{}/local/benchmarks/rust-scored/runs/run_", server.url());
    assert!(view_at.starts_with(&prefix), "{view_at}");
    let summary = read_json(&dir.join(out).join("summary.json"));
    (summary, view_at)
}

#[test]
fn the_view_at_page_needs_a_login_then_shows_the_run() {
    let dir = TempDir::new().unwrap();
    let (server, summary, view_at) = served_run(dir.path(), &[]);
    let benchmark = format!("{}/local/benchmarks/rust-scored", server.url());
    let benchmarks = format!("{}/local/benchmarks", server.url());
    let shots = screenshots("dashboard_login");
    let answer = browse(&json!({"visits": [
        {"url": view_at, "screenshot": shots.join("login.png")},
        {"url": view_at, "login": server.key, "screenshot": shots.join("run.png")},
        {"url": benchmark, "screenshot": shots.join("benchmark.png")},
        {"url": benchmarks, "screenshot": shots.join("benchmarks.png")},
    ]}));
    let [login, run, benchmark_page, list] = [0, 1, 2, 3].map(|i| &answer["visits"][i]);

    // Without the cookie: the login page, which comes back here.
    let back_here = format!(
        "{}/login?next=%2Flocal%2Fbenchmarks%2Frust%2Dscored%2Fruns%2F",
        server.url()
    );
    assert!(
        login["url"].as_str().unwrap().starts_with(&back_here),
        "{login}"
    );
    assert_eq!(login["loginForm"], true);
    assert_eq!(login["errors"], json!([]));

    // Logged in: the run page, with summary.json's scores and every chart drawn.
    assert_eq!(run["url"], view_at.as_str());
    assert_eq!(run["status"], 200);
    assert_eq!(run["loginForm"], false);
    assert_eq!(page_scores(run), summary_scores(&summary));
    // Scores, three distributions, steps, timeline and the system metrics uploaded.
    assert_drawn_without_errors(run, 7);
    assert_eq!(
        run["sections"],
        json!([
            "scores-section",
            "distributions",
            "steps",
            "timeline",
            "failures",
            "system",
            "logs"
        ])
    );

    // The benchmark page: runs over time linking to the run, the latest leaderboard.
    let overall: Vec<(String, String)> = summary_scores(&summary)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| summary["results"][i]["dimensions"].get("size").is_none())
        .map(|(_, row)| row)
        .collect();
    assert_eq!(overall.len(), 2);
    assert_eq!(page_scores(benchmark_page), overall);
    assert_drawn_without_errors(benchmark_page, 1);
    assert!(benchmark_page["links"]
        .as_array()
        .unwrap()
        .contains(&json!(view_at)));

    // The list of benchmarks links to it.
    assert!(list["links"]
        .as_array()
        .unwrap()
        .contains(&json!(benchmark)));
    assert_eq!(list["errors"], json!([]));
    for shot in ["login", "run", "benchmark", "benchmarks"] {
        assert!(shots.join(format!("{shot}.png")).is_file());
    }
}

#[test]
fn public_read_opens_the_run_page_without_a_login() {
    let dir = TempDir::new().unwrap();
    let (_server, summary, view_at) = served_run(dir.path(), &["--public-read"]);
    let shots = screenshots("dashboard_public_read");
    let answer = browse(&json!({"visits": [
        {"url": view_at, "screenshot": shots.join("run.png")},
    ]}));
    let run = &answer["visits"][0];
    assert_eq!(run["url"], view_at.as_str());
    assert_eq!(run["loginForm"], false);
    assert_eq!(page_scores(run), summary_scores(&summary));
    assert_drawn_without_errors(run, 6);
    assert!(shots.join("run.png").is_file());
}

#[test]
fn the_html_report_of_an_unscored_run_lists_its_participants() {
    let dir = TempDir::new().unwrap();
    let component = example("rust-hello");
    let args = ["run", component.to_str().unwrap(), "--out", "results"];
    let run = run_bench_pinned(
        dir.path(),
        &[&args[..], &["--export-html", "run.html"]].concat(),
        &[],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let summary = read_json(&dir.path().join("results").join("summary.json"));
    let participants: Vec<&str> = summary["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["participant"].as_str().unwrap())
        .collect();
    let shots = screenshots("html_report_unscored");
    let answer = browse(&json!({
        "offline": true,
        "visits": [{"url": file_url(&dir.path().join("run.html")), "screenshot": shots.join("report.png")}],
    }));
    assert_eq!(answer["network"], json!([]));
    let visit = &answer["visits"][0];
    let shown: Vec<&str> = visit["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["provider"].as_str().unwrap())
        .collect();
    assert!(!participants.is_empty());
    assert_eq!(shown, participants);
    // The latency distribution and the timeline at least.
    assert_drawn_without_errors(visit, 2);
}

#[test]
fn the_compare_page_compares_two_runs_as_bench_compare_does() {
    let dir = TempDir::new().unwrap();
    let (server, _, first) = served_run(dir.path(), &["--public-read"]);
    let (_, second) = report_run(dir.path(), &server, "again");
    let id = |url: &str| url.rsplit('/').next().unwrap().to_owned();
    let compare = format!(
        "{}/local/benchmarks/rust-scored/compare?a={}&b={}",
        server.url(),
        id(&first),
        id(&second)
    );
    let shots = screenshots("dashboard_compare");
    let answer = browse(&json!({"visits": [
        {"url": compare, "screenshot": shots.join("compare.png")},
    ]}));
    let page = &answer["visits"][0];
    assert_eq!(page["errors"], json!([]), "{page}");
    assert_eq!(page["sections"], json!(["pick", "comparison"]), "{page}");
    let verdicts = page["verdicts"].as_array().unwrap();
    // Per participant: latency and the two scored measures at least.
    assert!(verdicts.len() >= 6, "{page}");
    // The guest's measures are the same in both runs.
    assert!(verdicts
        .iter()
        .all(|v| ["faster", "slower", "no-change"].contains(&v.as_str().unwrap())));
    assert!(verdicts.iter().any(|v| v == "no-change"), "{page}");
    assert!(shots.join("compare.png").is_file());
}
