//! The dashboard's pages: each checks the reader's access, reads what it shows in one read
//! transaction and renders it with the run page's generator of `bench-runtime`
//! ([`bench_runtime::report::page`]).

use super::session::message_page;
use super::{Dashboard, CHARTS_PATH};
use crate::api::paths::fill;
use crate::api::types::{Benchmark, BenchmarkResult, Page, Run, RunResults};
use crate::serve::db::Store;
use crate::serve::refusal::Refusal;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, Uri};
use axum::response::{Html, IntoResponse, Response};
use bench_runtime::record::TaskRecord;
use bench_runtime::report::page::{
    self, render, LogTail, RunHeader, RunPage, Scripts, CHARTS_JS, LOG_TAIL_BYTES, MAX_LOGS,
};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Most benchmarks listed.
const MAX_BENCHMARKS: u32 = 500;

/// Most runs on a benchmark's page (the newest).
const MAX_RUNS: u32 = 200;

/// System-metrics uploads a run page reads (the first ones)…
const METRICS_UPLOADS: usize = 16;

/// …and the bytes it reads of each (its end: the lines of a cut first line are skipped).
const METRICS_BYTES_PER_UPLOAD: u64 = 4 << 20;

/// `GET /assets/echarts.min.js`: the chart library.
pub(super) async fn charts() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        CHARTS_JS,
    )
        .into_response()
}

/// `GET /{org}/benchmarks`.
pub(super) async fn benchmarks(
    State(dashboard): State<Dashboard>,
    Path(org): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    if let Some(answer) = dashboard.refusal(&headers, &org, &uri) {
        return answer;
    }
    let page = Page {
        limit: Some(MAX_BENCHMARKS),
        offset: None,
    };
    let listed = dashboard
        .database
        .scoped(&org)
        .read(move |store| store.list_benchmarks(page))
        .await;
    let benchmarks: Vec<Benchmark> = match listed {
        Ok(items) => items.items,
        Err(refusal) => return refused(&refusal),
    };
    let rows: Vec<Value> = benchmarks
        .iter()
        .map(|benchmark| {
            json!({
                "slug": benchmark.slug,
                "name": benchmark.name,
                "updatedAt": benchmark.updated_at,
                "url": fill("/{org}/benchmarks/{slug}", &[&org, &benchmark.slug]),
            })
        })
        .collect();
    let data = json!({"page": "benchmarks", "benchmarks": rows});
    page_answer("Benchmarks · bench", &data, &[])
}

/// What a benchmark's page reads.
struct BenchmarkReading {
    benchmark: Benchmark,
    runs: Vec<Run>,
    results: Vec<BenchmarkResult>,
}

/// `GET /{org}/benchmarks/{slug}`: the composite score of each participant over the runs,
/// and the latest scored run's leaderboard.
pub(super) async fn benchmark(
    State(dashboard): State<Dashboard>,
    Path((org, slug)): Path<(String, String)>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    if let Some(answer) = dashboard.refusal(&headers, &org, &uri) {
        return answer;
    }
    let wanted = slug.clone();
    let reading = dashboard
        .database
        .scoped(&org)
        .read(move |store| read_benchmark(store, &wanted))
        .await;
    let reading = match reading {
        Ok(reading) => reading,
        Err(refusal) => return refused(&refusal),
    };
    let created: HashMap<&str, &str> = reading
        .runs
        .iter()
        .map(|run| (run.id.as_str(), run.created_at.as_str()))
        .collect();
    let run_url = |id: &str| fill("/{org}/benchmarks/{slug}/runs/{run_id}", &[&org, &slug, id]);
    // Oldest first, for the chart.
    let runs: Vec<Value> = reading
        .results
        .iter()
        .rev()
        .map(|result| {
            let scores: Map<String, Value> = overall_rows(&result.results)
                .into_iter()
                .filter_map(|row| {
                    let provider = row["provider"].as_str()?.to_owned();
                    Some((provider, row["compositeScore"].clone()))
                })
                .collect();
            json!({
                "id": result.run_id,
                "name": result.run_name,
                "createdAt": created.get(result.run_id.as_str()),
                "url": run_url(&result.run_id),
                "scores": scores,
            })
        })
        .collect();
    let leaderboard = reading.results.first().map(|latest| {
        json!({
            "id": latest.run_id,
            "name": latest.run_name,
            "url": run_url(&latest.run_id),
            "rows": overall_rows(&latest.results),
        })
    });
    let name = &reading.benchmark.name;
    let data = json!({
        "page": "benchmark",
        "benchmark": {"slug": slug, "name": name},
        "runs": runs,
        "leaderboard": leaderboard,
        "compareUrl": fill("/{org}/benchmarks/{slug}/compare", &[&org, &slug]),
    });
    let benchmarks = fill("/{org}/benchmarks", &[&org]);
    page_answer(
        &format!("{name} · bench"),
        &data,
        &[("Benchmarks", &benchmarks)],
    )
}

fn read_benchmark(store: &Store, slug: &str) -> Result<BenchmarkReading, Refusal> {
    let benchmark = store.get_benchmark(slug)?.benchmark;
    let page = Page {
        limit: Some(MAX_RUNS),
        offset: None,
    };
    let runs = store.list_runs(slug, page)?.items;
    let results = store
        .benchmark_results(slug, page)?
        .items
        .into_iter()
        .filter(|result| {
            result
                .results
                .as_array()
                .is_some_and(|rows| !rows.is_empty())
        })
        .collect();
    Ok(BenchmarkReading {
        benchmark,
        runs,
        results,
    })
}

/// Each participant's row over all its records: the first of its rows.
fn overall_rows(results: &Value) -> Vec<Value> {
    let mut rows: Vec<Value> = Vec::new();
    for row in results.as_array().into_iter().flatten() {
        if rows
            .last()
            .is_none_or(|last| last["provider"] != row["provider"])
        {
            rows.push(row.clone());
        }
    }
    rows
}

/// `GET /{org}/benchmarks/{slug}/runs/{run_id}`: the run page — the content of the HTML
/// report, from the run's submitted summary and stored records.
pub(super) async fn run(
    State(dashboard): State<Dashboard>,
    Path((org, slug, run_id)): Path<(String, String, String)>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    if let Some(answer) = dashboard.refusal(&headers, &org, &uri) {
        return answer;
    }
    let (wanted_slug, wanted_run) = (slug.clone(), run_id.clone());
    let reading = dashboard
        .database
        .scoped(&org)
        .read(move |store| read_run(store, &wanted_slug, &wanted_run))
        .await;
    let (data, title) = match reading {
        Ok(reading) => reading,
        Err(refusal) => return refused(&refusal),
    };
    let benchmarks = fill("/{org}/benchmarks", &[&org]);
    let benchmark = fill("/{org}/benchmarks/{slug}", &[&org, &slug]);
    page_answer(
        &title,
        &data,
        &[("Benchmarks", &benchmarks), (&slug, &benchmark)],
    )
}

/// The run page's data and title.
fn read_run(store: &Store, slug: &str, run_id: &str) -> Result<(Value, String), Refusal> {
    let results = store.run_results(slug, run_id)?;
    let benchmark = store.get_benchmark(slug)?.benchmark;
    let mut page = RunPage::new();
    for row in overall_rows(&Value::Array(results.results.clone())) {
        if let Some(name) = row["provider"].as_str() {
            page.participant(name);
        }
    }
    store.each_task_record(run_id, |participant, text| {
        // A stored record this runner cannot read is left out of the page.
        if let Ok(record) = serde_json::from_str::<TaskRecord>(text) {
            page.add(participant, &record);
        }
    })?;
    let header = run_header(&results, &benchmark.name);
    let mut lines: Vec<u8> = Vec::new();
    for (_, end, _) in store.artifact_ends(
        run_id,
        "system-metrics",
        METRICS_BYTES_PER_UPLOAD,
        METRICS_UPLOADS,
    )? {
        lines.extend_from_slice(&end);
        lines.push(b'\n');
    }
    // Each upload's end is at most 4 MiB: no line is too long.
    let system = page::system_metrics(&lines[..]).ok().flatten();
    let logs: Vec<LogTail> = store
        .artifact_ends(run_id, "coordinator.log", LOG_TAIL_BYTES, MAX_LOGS)?
        .into_iter()
        .map(|(participant, end, cut)| LogTail::of_end(&participant, &end, cut))
        .collect();
    let summary = if results.results.is_empty() {
        json!({})
    } else {
        json!({"run": results.summary, "results": results.results, "scoring": results.scoring})
    };
    let title = format!(
        "{} · bench",
        results.run.name.as_deref().unwrap_or(&results.run.id)
    );
    Ok((page.finish(&header, &summary, system, &logs), title))
}

/// The header of a stored run: its `runConfig`, creation time and the git origin its
/// summary names.
fn run_header(results: &RunResults, benchmark_name: &str) -> RunHeader {
    let run = &results.run;
    let text = |value: &Value| value.as_str().map(str::to_owned);
    RunHeader {
        benchmark_name: text(&run.config["benchmarkName"])
            .unwrap_or_else(|| benchmark_name.to_owned()),
        benchmark_slug: run.benchmark_slug.clone(),
        run_id: run.id.clone(),
        started_at: Some(run.created_at.clone()),
        completed_at: None,
        git_sha: text(&results.summary["gitSha"]),
        git_ref: text(&results.summary["gitRef"]),
        knobs: RunHeader::knobs_of(&run.config),
    }
}

/// A page of the dashboard.
pub(super) fn page_answer(title: &str, data: &Value, links: &[(&str, &str)]) -> Response {
    let html = render(
        title,
        data,
        Scripts::Linked {
            charts: CHARTS_PATH,
        },
        links,
    );
    ([(header::CACHE_CONTROL, "no-store")], Html(html)).into_response()
}

/// The page of a refused read (an unknown benchmark or run: 404).
pub(super) fn refused(refusal: &Refusal) -> Response {
    message_page(refusal.status, &refusal.message)
}
