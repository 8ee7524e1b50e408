//! The benchmarks platform (spec §5.3–5.5, §6): auth, the HTTP client, live reporting of
//! `bench run`, the delivery ledger behind `bench upload`, and the read commands.
//!
//! `bench run` reports to a platform when one is configured — `BENCHMARKS_PLATFORM_URL`,
//! `BENCHMARKS_PLATFORM_API_KEY` or `BENCHMARKS_PLATFORM_TOKEN` is set, or
//! `~/.benchsdk/credentials.json` exists — unless `--no-ingest`/`--dry-run` or
//! `BENCHSDK_NO_INGEST` keep it local. The results directory is always written first and
//! stays authoritative; the platform gets a copy.

pub mod api;
pub mod auth;
pub mod client;
pub mod commands;
mod deliverer;
pub mod delivery;
mod files;
pub mod reporter;
#[cfg(feature = "server")]
pub mod serve;
pub mod spool;
pub mod tail;
pub mod upload;

use api::types::{BenchmarkConfig, CreateRun, RunSummary, UpsertBenchmark};
use bench_model::plan::RunManifest;
use bench_report::input::ResultsDir;
use spool::{Ledger, ParticipantLedger};
use std::path::Path;

/// Whether `bench run` should report to a platform (see the module docs).
pub fn is_configured(env: &auth::Env) -> bool {
    env.url.is_some()
        || env.api_key.is_some()
        || env.token.is_some()
        || auth::has_saved_credentials()
}

/// The auth of `bench run`: `None` when no platform is configured or `--no-ingest` keeps
/// the run local; otherwise resolved before anything runs, as upstream does.
pub async fn run_auth(no_ingest: bool) -> Result<Option<auth::Auth>, auth::AuthError> {
    if no_ingest || !is_configured(&auth::Env::from_process()) {
        return Ok(None);
    }
    auth::resolve(&auth::Overrides::default()).await.map(Some)
}

/// The delivery plan of a run, from its manifest: the `upsertBenchmark` body (when
/// `upsert`), the `createRun` body (own run, or shared with `run_key`) whose `config` is the
/// manifest's `runConfig`, and one entry per participant.
pub fn new_ledger(
    manifest: &RunManifest,
    api_base_url: &str,
    upsert: bool,
    run_key: Option<&str>,
) -> anyhow::Result<Ledger> {
    let run_config = &manifest.run_config;
    let total = run_config.tasks_per_participant();
    let upsert = upsert.then(|| {
        let config = BenchmarkConfig {
            scoring: run_config
                .scoring
                .as_ref()
                .map(|scoring| scoring.declared().clone()),
            display: manifest
                .display
                .as_ref()
                .map(|display| display.declared().clone()),
        };
        UpsertBenchmark {
            name: run_config.benchmark_name.clone(),
            config: (!config.is_empty()).then_some(config),
        }
    });
    let config = serde_json::to_value(run_config).unwrap_or_default();
    let create_run = match run_key {
        Some(key) => CreateRun::shared(key, config),
        None => CreateRun::own(total, run_config.participants.clone(), config),
    };
    api::bounds::check_run(&create_run)
        .map_err(|message| anyhow::anyhow!("the platform cannot store this run: {message}"))?;
    Ok(Ledger {
        api_base_url: api_base_url.to_owned(),
        benchmark_slug: run_config.benchmark_slug.clone(),
        local_run_id: manifest.run_id.clone(),
        delivery_id: spool::new_delivery_id()?,
        group_by: run_config.group_by.as_str().to_owned(),
        upsert,
        create_run,
        run: None,
        participants: run_config
            .participants
            .iter()
            .map(|name| ParticipantLedger::new(name, total, run_key.is_some()))
            .collect(),
        shared_metrics_uploaded: false,
        summary: None,
        summary_submitted: false,
        time_bounded: manifest.load.is_some(),
        warmed_up: manifest.warmup.is_some(),
    })
}

/// The `submitRunSummary` body from a results directory's `summary.json` (read inside the
/// directory, its size bounded), when the run was scored: `{ run, results, scoring?, load? }`.
pub fn summary_body(dir: &Path) -> Option<RunSummary> {
    ResultsDir::open(dir)
        .ok()?
        .read_json("summary.json", "a run summary")
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manifest() -> RunManifest {
        serde_json::from_value(json!({
            "benchmarkSlug": "s", "benchmarkName": "n",
            "phaseIterations": 5,
            "phases": [{"name": "cold", "iterations": 5}, {"name": "warm", "iterations": 5}],
            "concurrency": 2, "staggerDelayMs": 0, "groupBy": "participant",
            "dimensions": {"file_size": "10MB"},
            "participants": ["e2b", "modal"],
            "display": {"metrics": []},
            "runId": "20260101T000000Z-0001", "startedAt": "x",
            "component": {"path": "task.wasm", "sha256": "00", "sizeBytes": 1},
            "host": {"benchVersion": "0.1.0", "wasmtimeVersion": "48.0.8", "os": "linux", "arch": "x86_64"},
        }))
        .unwrap()
    }

    #[test]
    fn an_own_run_sends_totals_and_the_upstream_run_config() {
        let ledger = new_ledger(&manifest(), "http://h/api/v1", true, None).unwrap();
        assert_eq!(
            serde_json::to_string(&ledger.create_run).unwrap(),
            r#"{"totalTasks":10,"workerCount":1,"participants":["e2b","modal"],"config":{"benchmarkSlug":"s","benchmarkName":"n","phaseIterations":5,"phases":[{"name":"cold","iterations":5},{"name":"warm","iterations":5}],"concurrency":2,"staggerDelayMs":0,"groupBy":"participant","dimensions":{"file_size":"10MB"},"participants":["e2b","modal"]}}"#
        );
        assert_eq!(
            serde_json::to_string(&ledger.upsert.unwrap()).unwrap(),
            r#"{"name":"n","config":{"display":{"metrics":[]}}}"#
        );
        assert_eq!(ledger.participants.len(), 2);
        assert!(ledger.participants[0].registered);
        assert_eq!(ledger.local_run_id, "20260101T000000Z-0001");
    }

    #[test]
    fn a_run_the_platform_cannot_store_is_refused_before_anything_is_sent() {
        let mut crowded = manifest();
        crowded.run_config.participants = (0..1001).map(|i| format!("p{i}")).collect();
        assert_eq!(
            new_ledger(&crowded, "http://h/api/v1", true, None)
                .unwrap_err()
                .to_string(),
            "the platform cannot store this run: participants must be at most 1000 (got 1001)"
        );
    }

    #[test]
    fn a_shared_run_sends_only_its_key_and_config() {
        let ledger = new_ledger(&manifest(), "http://h/api/v1", false, Some("ci-123")).unwrap();
        assert_eq!(ledger.create_run.run_key.as_deref(), Some("ci-123"));
        assert_eq!(ledger.create_run.total_tasks, None);
        assert_eq!(ledger.upsert, None);
        assert!(!ledger.participants[1].registered);
        assert_eq!(ledger.participants[1].total_tasks, 10);
    }

    #[test]
    fn the_summary_comes_from_a_scored_summary_json() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(summary_body(dir.path()), None);
        std::fs::write(
            dir.path().join("summary.json"),
            r#"{"run":{"triggeredBy":"manual"},"results":[{"provider":"a"}],"scoring":{"metrics":[]},"percentileMethod":"x"}"#,
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&summary_body(dir.path()).unwrap()).unwrap(),
            r#"{"run":{"triggeredBy":"manual"},"results":[{"provider":"a"}],"scoring":{"metrics":[]}}"#
        );
        std::fs::write(
            dir.path().join("summary.json"),
            r#"{"run":{},"results":[],"percentileMethod":"x","load":{"executor":"constant-arrival-rate","participants":[{"participant":"a","dropped":3}]}}"#,
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&summary_body(dir.path()).unwrap()).unwrap(),
            r#"{"run":{},"results":[],"load":{"executor":"constant-arrival-rate","participants":[{"participant":"a","dropped":3}]}}"#,
            "the load section (dropped tasks, rates) is uploaded"
        );
        std::fs::write(
            dir.path().join("summary.json"),
            r#"{"run":{},"participants":[]}"#,
        )
        .unwrap();
        assert_eq!(summary_body(dir.path()), None);
    }
}
