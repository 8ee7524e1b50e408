//! The compare page: two runs of a benchmark picked from its runs, compared as
//! `bench compare` compares two results directories ([`bench_report::compare`]): on a turn
//! of the heavy pages, each run's stored records are streamed into its samples a slice at a
//! time (no record kept, no reader held while they are taken), then the two are compared
//! with the defaults of `bench compare` (±2 % noise band, 10 000 resamples, seed 1, 95 %
//! intervals).

use super::pages::{page_answer, reader_or_return, refused};
use super::Dashboard;
use crate::api::paths::fill;
use crate::api::types::{Page, Run};
use crate::serve::db::{Database, Store};
use crate::serve::refusal::Refusal;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use bench_model::config::Declared;
use bench_model::plan::{ComponentInfo, HostInfo, RunManifest};
use bench_model::record::TaskRecord;
use bench_report::compare::{
    self, BootstrapSettings, CompareSettings, RunSampleCollector, RunSamples,
};
use bench_report::summary_document::SummaryRun;
use serde::Deserialize;
use serde_json::{json, Value};

/// Runs offered to pick from (the newest).
const MAX_PICKABLE: u32 = 200;

/// `bench compare`'s defaults.
const SETTINGS: CompareSettings = CompareSettings {
    bootstrap: BootstrapSettings {
        resamples: 10_000,
        confidence: 0.95,
        seed: 1,
    },
    threshold: 0.02,
};

/// The runs picked: `?a=<baseline run id>&b=<candidate run id>`.
#[derive(Debug, Deserialize)]
pub(super) struct Picked {
    #[serde(default)]
    a: Option<String>,
    #[serde(default)]
    b: Option<String>,
}

/// `GET /{org}/benchmarks/{slug}/compare[?a=&b=]`.
pub(super) async fn compare_page(
    State(dashboard): State<Dashboard>,
    Path((org, slug)): Path<(String, String)>,
    Query(picked): Query<Picked>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let reader = reader_or_return!(dashboard, headers, org, uri);
    let database = dashboard.database.scoped(&org);
    let wanted = slug.clone();
    let page = Page {
        limit: Some(MAX_PICKABLE),
        offset: None,
    };
    let runs = match database
        .read(move |store| Ok(store.list_runs(&wanted, page)?.items))
        .await
    {
        Ok(runs) => runs,
        Err(refusal) => return refused(&refusal),
    };
    let choices: Vec<Value> = runs
        .iter()
        .map(|run| {
            let name = run.name.clone().unwrap_or_else(|| run.id.clone());
            json!({"id": run.id, "name": name, "createdAt": run.created_at})
        })
        .collect();
    let mut data = json!({
        "page": "compare",
        "benchmark": {"slug": slug},
        "runs": choices,
        "a": picked.a,
        "b": picked.b,
        "comparison": null,
    });
    if let (Some(a), Some(b)) = (picked.a, picked.b) {
        let _turn = match dashboard.heavy.turn(&org).await {
            Ok(turn) => turn,
            Err(busy) => return busy,
        };
        let runs = match collect_runs(&database, &slug, [a, b]).await {
            Ok(runs) => runs,
            Err(refusal) => return refused(&refusal),
        };
        let compared = tokio::task::spawn_blocking(move || {
            let runs = runs.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
            compare::compare_runs(&runs, &SETTINGS)
        })
        .await;
        match compared {
            Ok(Ok(comparison)) => {
                data["comparison"] = serde_json::to_value(&comparison).unwrap_or_default();
            }
            Ok(Err(error)) => data["error"] = json!(format!("{error:#}")),
            Err(error) => data["error"] = json!(format!("the comparison failed: {error}")),
        }
    }
    let benchmarks = fill("/{org}/benchmarks", &[&org]);
    let benchmark = fill("/{org}/benchmarks/{slug}", &[&org, &slug]);
    page_answer(
        &format!("Compare · {slug} · bench"),
        &data,
        &[("Benchmarks", &benchmarks), (&slug, &benchmark)],
        reader,
    )
}

/// The samples of runs `ids` of benchmark `slug`, each named by its run's name; a run
/// that cannot be compared (no records, not scorable) is an error of its own.
async fn collect_runs(
    database: &Database,
    slug: &str,
    ids: [String; 2],
) -> Result<Vec<anyhow::Result<RunSamples>>, Refusal> {
    let mut runs = Vec::new();
    for id in ids {
        let (wanted, run_id) = (slug.to_owned(), id.clone());
        let collector = database
            .read(move |store| start_collecting(store, &wanted, &run_id))
            .await?;
        let collector = database
            .fold_task_records(&id, collector, |collector, participant, text| {
                // Records this runner cannot read (another version's shape) are left out.
                if let Ok(record) = serde_json::from_str::<TaskRecord>(text) {
                    collector.add(participant, &record);
                }
            })
            .await?;
        runs.push(collector.finish());
    }
    Ok(runs)
}

/// The sample collector of run `id` of benchmark `slug`, no record taken yet.
fn start_collecting(store: &Store, slug: &str, id: &str) -> Result<RunSampleCollector, Refusal> {
    let config = store.get_benchmark(slug)?.benchmark.config;
    let results = store.run_results(slug, id)?;
    let run = &results.run;
    let name = run.name.clone().unwrap_or_else(|| run.id.clone());
    Ok(RunSampleCollector::new(
        manifest(run, &results.summary, &config)?,
        name,
    ))
}

/// The `run.json` of a stored run: its `runConfig`, the benchmark's display, and the host
/// and origin its summary names.
fn manifest(run: &Run, summary: &Value, config: &Value) -> Result<RunManifest, Refusal> {
    let run_config = serde_json::from_value(run.config.clone()).map_err(|error| {
        Refusal::bad_request(format!(
            "run {} has no configuration that can be compared: {error}",
            run.id
        ))
    })?;
    let summary_run = SummaryRun::from_stored(summary);
    Ok(RunManifest {
        run_config,
        display: config.get("display").cloned().map(Declared::new),
        run_id: run.id.clone(),
        started_at: run.created_at.clone(),
        component: ComponentInfo {
            path: String::new(),
            sha256: String::new(),
            size_bytes: 0,
        },
        host: HostInfo {
            bench_version: summary_run.bench_version,
            wasmtime_version: summary_run.wasmtime_version,
            os: summary_run.platform,
            arch: summary_run.arch,
        },
        origin: summary_run.origin,
        completed_at: None,
        tasks: None,
        log_files: Default::default(),
        interrupted: false,
        shard: None,
        load: None,
        warmup: None,
        shuffle_seed: None,
        instrument_floor: None,
    })
}
