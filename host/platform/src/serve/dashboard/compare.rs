//! The compare page: two runs of a benchmark picked from its runs, compared as
//! `bench compare` compares two results directories ([`bench_runtime::compare`]). The two
//! runs are written out as results directories (`run.json` and `records.ndjson`, one stored
//! record at a time) in a temporary directory, compared with the defaults of
//! `bench compare` (±2 % noise band, 10 000 resamples, seed 1, 95 % intervals), then
//! removed.

use super::pages::{page_answer, refused};
use super::session::message_page;
use super::Dashboard;
use crate::api::paths::fill;
use crate::api::types::{Page, Run};
use crate::serve::db::Store;
use crate::serve::refusal::Refusal;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use bench_runtime::compare::{self, BootstrapSettings, CompareSettings};
use bench_runtime::plan::{ComponentInfo, HostInfo, Origin, RunManifest};
use bench_runtime::record::TaskRecord;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io::{BufWriter, Write};
use std::path::{Path as FilePath, PathBuf};

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

/// One line of `records.ndjson`.
#[derive(Serialize)]
struct RecordLine<'a> {
    participant: &'a str,
    #[serde(flatten)]
    record: &'a TaskRecord,
}

/// `GET /{org}/benchmarks/{slug}/compare[?a=&b=]`.
pub(super) async fn compare_page(
    State(dashboard): State<Dashboard>,
    Path((org, slug)): Path<(String, String)>,
    Query(picked): Query<Picked>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    if let Some(answer) = dashboard.refusal(&headers, &org, &uri) {
        return answer;
    }
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
        let (wanted, ids) = (slug.clone(), [a, b]);
        let dir = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(error) => {
                let message = format!("cannot make a temporary directory: {error}");
                return message_page(StatusCode::INTERNAL_SERVER_ERROR, &message);
            }
        };
        let root = dir.path().to_owned();
        let written = database
            .read(move |store| write_runs(store, &wanted, &ids, &root))
            .await;
        let (dirs, names) = match written {
            Ok(written) => written,
            Err(refusal) => return refused(&refusal),
        };
        let compared =
            tokio::task::spawn_blocking(move || compare::compare_dirs(&dirs, &SETTINGS)).await;
        drop(dir);
        match compared {
            Ok(Ok(mut comparison)) => {
                // Name the runs, not the temporary directories.
                comparison.baseline.dir = names[0].clone();
                for candidate in &mut comparison.candidates {
                    candidate.run.dir = names[1].clone();
                }
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
    )
}

/// Writes runs `ids` of benchmark `slug` as results directories `root/0`, `root/1`…;
/// returns them and the runs' names.
fn write_runs(
    store: &Store,
    slug: &str,
    ids: &[String],
    root: &FilePath,
) -> Result<(Vec<PathBuf>, Vec<String>), Refusal> {
    let config = store.get_benchmark(slug)?.benchmark.config;
    let mut dirs = Vec::new();
    let mut names = Vec::new();
    for (index, id) in ids.iter().enumerate() {
        let results = store.run_results(slug, id)?;
        let run = &results.run;
        let dir = root.join(index.to_string());
        let manifest = manifest(run, &results.summary, &config)?;
        write_run(store, &dir, &manifest)
            .map_err(|error| Refusal::internal(format!("cannot write run {id}: {error}")))?;
        dirs.push(dir);
        names.push(run.name.clone().unwrap_or_else(|| run.id.clone()));
    }
    Ok((dirs, names))
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
    let text = |key: &str| summary[key].as_str().map(str::to_owned);
    Ok(RunManifest {
        run_config,
        display: config.get("display").cloned(),
        run_id: run.id.clone(),
        started_at: run.created_at.clone(),
        component: ComponentInfo {
            path: String::new(),
            sha256: String::new(),
            size_bytes: 0,
        },
        host: HostInfo {
            bench_version: text("benchVersion").unwrap_or_default(),
            wasmtime_version: text("wasmtimeVersion").unwrap_or_default(),
            os: text("platform").unwrap_or_default(),
            arch: text("arch").unwrap_or_default(),
        },
        origin: Origin {
            git_sha: text("gitSha"),
            git_ref: text("gitRef"),
            triggered_by: text("triggeredBy").unwrap_or_else(|| "manual".into()),
        },
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

/// Writes `dir/run.json` and `dir/records.ndjson` (the stored records this runner can
/// read).
fn write_run(store: &Store, dir: &FilePath, manifest: &RunManifest) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("run.json"), serde_json::to_vec(manifest)?)?;
    let mut records = BufWriter::new(std::fs::File::create(dir.join("records.ndjson"))?);
    let mut failure: Option<std::io::Error> = None;
    let read = store.each_task_record(&manifest.run_id, |participant, text| {
        if failure.is_some() {
            return;
        }
        let Ok(record) = serde_json::from_str::<TaskRecord>(text) else {
            return;
        };
        let line = RecordLine {
            participant,
            record: &record,
        };
        let written = serde_json::to_writer(&mut records, &line)
            .map_err(std::io::Error::from)
            .and_then(|()| records.write_all(b"\n"));
        if let Err(error) = written {
            failure = Some(error);
        }
    });
    read.map_err(|refusal| std::io::Error::other(refusal.message))?;
    if let Some(error) = failure {
        return Err(error);
    }
    records.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_record_is_written_back_with_its_durations() {
        let stored = r#"{"taskIndex":0,"status":"success","startedAt":"s","completedAt":"c","latencyMs":1,"durationUs":1234.567,"steps":[{"name":"a","status":"success","latencyMs":0,"durationUs":2.5}]}"#;
        let record: TaskRecord = serde_json::from_str(stored).unwrap();
        let line = RecordLine {
            participant: "p",
            record: &record,
        };
        let written = serde_json::to_string(&line).unwrap();
        assert_eq!(written, format!(r#"{{"participant":"p",{}"#, &stored[1..]));
    }
}
