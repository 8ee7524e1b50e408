//! The dashboard's pages: each checks the reader's access, reads what it shows in one read
//! transaction (a run's records a slice at a time, on its turn of the heavy pages) and
//! renders it with the run page's generator of `bench-runtime`
//! ([`bench_report::page`]).

use super::session::{message_page, Reader};
use super::{page_headers, Dashboard, CHARTS_PATH, PAGE_PATH};
use crate::api::paths::fill;
use crate::api::types::{Benchmark, BenchmarkResult, Page, Run, RunResults};
use crate::serve::db::Store;
use crate::serve::refusal::Refusal;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, Uri};
use axum::response::{Html, IntoResponse, Response};
use bench_model::record::TaskRecord;
use bench_report::page::{
    self, render, LogTail, RunHeader, RunPage, Scripts, CHARTS_JS, LOG_TAIL_BYTES, MAX_LOGS,
    PAGE_JS,
};
use bench_report::summary_document::SummaryRun;
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
    script(CHARTS_JS)
}

/// `GET /assets/page.js`: the script that draws every page from its data.
pub(super) async fn page_script() -> Response {
    script(PAGE_JS)
}

/// A script of the pages, cached an hour.
fn script(text: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        text,
    )
        .into_response()
}

/// The reader of `org`'s page, or the answer that refuses it.
macro_rules! reader_or_return {
    ($dashboard:expr, $headers:expr, $org:expr, $uri:expr) => {
        match $dashboard.reader(&$headers, &$org, &$uri).await {
            Ok(reader) => reader,
            Err(answer) => return answer,
        }
    };
}
pub(super) use reader_or_return;

/// `GET /{org}/benchmarks`.
pub(super) async fn benchmarks(
    State(dashboard): State<Dashboard>,
    Path(org): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let reader = reader_or_return!(dashboard, headers, org, uri);
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
    page_answer("Benchmarks · bench", &data, &[], reader)
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
    let reader = reader_or_return!(dashboard, headers, org, uri);
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
        reader,
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
/// report, from the run's submitted summary and stored records (on a turn of the heavy
/// pages).
pub(super) async fn run(
    State(dashboard): State<Dashboard>,
    Path((org, slug, run_id)): Path<(String, String, String)>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let reader = reader_or_return!(dashboard, headers, org, uri);
    let _turn = match dashboard.heavy.turn(&org).await {
        Ok(turn) => turn,
        Err(busy) => return busy,
    };
    let database = dashboard.database.scoped(&org);
    let (wanted_slug, wanted_run) = (slug.clone(), run_id.clone());
    let reading = database
        .read(move |store| read_run(store, &wanted_slug, &wanted_run))
        .await;
    let mut reading = match reading {
        Ok(reading) => reading,
        Err(refusal) => return refused(&refusal),
    };
    let page = std::mem::take(&mut reading.page);
    let page = database
        .fold_task_records(&run_id, page, |page, participant, text| {
            // A stored record this runner cannot read is left out of the page.
            if let Ok(record) = serde_json::from_str::<TaskRecord>(text) {
                page.add(participant, &record);
            }
        })
        .await;
    let page = match page {
        Ok(page) => page,
        Err(refusal) => return refused(&refusal),
    };
    let title = reading.title.clone();
    let data = match tokio::task::spawn_blocking(move || reading.finish(page)).await {
        Ok(data) => data,
        Err(error) => return refused(&Refusal::internal(format!("The page failed: {error}"))),
    };
    let benchmarks = fill("/{org}/benchmarks", &[&org]);
    let benchmark = fill("/{org}/benchmarks/{slug}", &[&org, &slug]);
    page_answer(
        &title,
        &data,
        &[("Benchmarks", &benchmarks), (&slug, &benchmark)],
        reader,
    )
}

/// What a run page reads besides the run's records.
struct RunReading {
    /// The page, its participants named (in the summary's order).
    page: RunPage,
    header: RunHeader,
    summary: Value,
    /// The ends of the run's `system-metrics` uploads, one after another.
    metrics: Vec<u8>,
    logs: Vec<LogTail>,
    title: String,
}

impl RunReading {
    /// The page's data, once `page` took every record.
    fn finish(self, page: RunPage) -> Value {
        // Each upload's end is at most 4 MiB: no line is too long.
        let system = page::system_metrics(&self.metrics[..]).ok().flatten();
        let data = page.finish(&self.header, &self.summary, system, &self.logs);
        serde_json::to_value(data).expect("a page's data serializes")
    }
}

/// What the run page shows besides the run's records.
fn read_run(store: &Store, slug: &str, run_id: &str) -> Result<RunReading, Refusal> {
    let results = store.run_results(slug, run_id)?;
    let benchmark = store.get_benchmark(slug)?.benchmark;
    let mut page = RunPage::new();
    for row in overall_rows(&Value::Array(results.results.clone())) {
        if let Some(name) = row["provider"].as_str() {
            page.participant(name);
        }
    }
    let header = run_header(&results, &benchmark.name);
    let mut metrics: Vec<u8> = Vec::new();
    for (_, end, _) in store.artifact_ends(
        run_id,
        "system-metrics",
        METRICS_BYTES_PER_UPLOAD,
        METRICS_UPLOADS,
    )? {
        metrics.extend_from_slice(&end);
        metrics.push(b'\n');
    }
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
    Ok(RunReading {
        page,
        header,
        summary,
        metrics,
        logs,
        title,
    })
}

/// The header of a stored run: its `runConfig`, creation time and the git origin its
/// summary names.
fn run_header(results: &RunResults, benchmark_name: &str) -> RunHeader {
    let run = &results.run;
    let text = |value: &Value| value.as_str().map(str::to_owned);
    let origin = SummaryRun::from_stored(&results.summary).origin;
    RunHeader {
        benchmark_name: text(&run.config["benchmarkName"])
            .unwrap_or_else(|| benchmark_name.to_owned()),
        benchmark_slug: run.benchmark_slug.clone(),
        run_id: run.id.clone(),
        started_at: Some(run.created_at.clone()),
        completed_at: None,
        git_sha: origin.git_sha,
        git_ref: origin.git_ref,
        knobs: RunHeader::knobs_of(&run.config),
    }
}

/// A page of the dashboard: its bar of `links`, and a way to log out for a session.
pub(super) fn page_answer(
    title: &str,
    data: &Value,
    links: &[(&str, &str)],
    reader: Reader,
) -> Response {
    let mut links = links.to_vec();
    if reader == Reader::Session {
        links.push(("Log out", "/logout"));
    }
    let scripts = Scripts::Linked {
        charts: CHARTS_PATH,
        page: PAGE_PATH,
    };
    let html = render(title, data, scripts, &links);
    (page_headers(), Html(html)).into_response()
}

/// The page of a refused read (an unknown benchmark or run: 404).
pub(super) fn refused(refusal: &Refusal) -> Response {
    message_page(refusal.status, &refusal.message)
}
