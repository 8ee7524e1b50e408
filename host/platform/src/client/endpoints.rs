//! The typed calls of the endpoints `bench` uses (spec §6.2 write path, §6.3 read path),
//! and what the client keeps of their answers.

use super::{ApiError, Client};
use crate::api::paths::{self, encode_component, fill};
use crate::api::types::{
    ClaimAnswer, ClaimWorker, CreateArtifact, CreateArtifactAnswer, CreateRun, CreateRunAnswer,
    FinishWorker, Heartbeat, PlanWorkers, RunSummary, TaskResults, UpsertBenchmark,
    UpsertParticipant, WorkerOutcome,
};
use reqwest::Method;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The run `createRun` answered, as the delivery ledger keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedRun {
    /// Run id.
    pub id: String,
    /// Run name, or `undefined` (printed literally, as upstream) when absent.
    pub name: String,
    /// The run's dashboard page.
    pub dashboard_url: String,
}

/// A worker `claimWorker` assigned, as the delivery ledger keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Assignment {
    /// The claimed worker.
    pub worker_id: String,
    /// This claim's attempt.
    pub attempt_id: String,
    /// First platform task index of the worker's range.
    pub task_range_start: u64,
}

/// A worker of a run: `(benchmark slug, run id, worker id)`.
pub(crate) type WorkerTarget<'a> = (&'a str, &'a str, &'a str);

/// `<apiBaseUrl without /api/v1>/<org>/benchmarks/<slug>/runs/<runId>`.
fn dashboard_url(api_base_url: &str, org: &str, slug: &str, run_id: &str) -> String {
    let root = api_base_url
        .strip_suffix("/api/v1/")
        .or_else(|| api_base_url.strip_suffix(paths::API_ROOT))
        .unwrap_or(api_base_url);
    format!("{root}/{org}/benchmarks/{slug}/runs/{run_id}")
}

impl Client {
    /// `upsertBenchmark`.
    pub(crate) async fn upsert_benchmark(
        &self,
        slug: &str,
        body: &UpsertBenchmark,
    ) -> Result<(), ApiError> {
        let path = fill(paths::BENCHMARK, &[slug]);
        self.call::<IgnoredAny>(Method::PUT, &path, Some(body), None)
            .await
            .map(drop)
    }

    /// `createRun`; `organizationSlug` of the answer names the dashboard.
    pub(crate) async fn create_run(
        &self,
        slug: &str,
        body: &CreateRun,
        idempotency_key: &str,
    ) -> Result<CreatedRun, ApiError> {
        let path = fill(paths::RUNS, &[slug]);
        let answer: CreateRunAnswer = self
            .call(Method::POST, &path, Some(body), Some(idempotency_key))
            .await?;
        let run = answer.run;
        if run.id.is_empty() {
            return Err(ApiError::Protocol(
                "The platform created a run without an id.".into(),
            ));
        }
        let org = answer.organization_slug.as_deref().unwrap_or("undefined");
        Ok(CreatedRun {
            dashboard_url: dashboard_url(self.api_base_url(), org, slug, &run.id),
            name: run.name.unwrap_or_else(|| "undefined".into()),
            id: run.id,
        })
    }

    /// `upsertParticipant` (shared runs).
    pub(crate) async fn upsert_participant(
        &self,
        slug: &str,
        run_id: &str,
        name: &str,
        total_tasks: u64,
    ) -> Result<(), ApiError> {
        let path = fill(paths::PARTICIPANT, &[slug, run_id, name]);
        let body = UpsertParticipant { total_tasks };
        self.call::<IgnoredAny>(Method::PUT, &path, Some(&body), None)
            .await
            .map(drop)
    }

    /// `planWorkers`.
    pub(crate) async fn plan_workers(
        &self,
        slug: &str,
        run_id: &str,
        name: &str,
        body: &PlanWorkers,
        idempotency_key: &str,
    ) -> Result<(), ApiError> {
        let path = fill(paths::PARTICIPANT_WORKERS, &[slug, run_id, name]);
        self.call::<IgnoredAny>(Method::POST, &path, Some(body), Some(idempotency_key))
            .await
            .map(drop)
    }

    /// `claimWorker`: the assignment, or `None` when every worker is taken.
    pub(crate) async fn claim_worker(
        &self,
        slug: &str,
        run_id: &str,
        name: &str,
        body: &ClaimWorker,
        idempotency_key: &str,
    ) -> Result<Option<Assignment>, ApiError> {
        let path = fill(paths::WORKER_CLAIM, &[slug, run_id, name]);
        let answer: ClaimAnswer = self
            .call(Method::POST, &path, Some(body), Some(idempotency_key))
            .await?;
        let Some(assignment) = answer.assignment else {
            return Ok(None);
        };
        match (assignment.worker_id(), assignment.attempt_id()) {
            (Some(worker_id), Some(attempt_id)) => Ok(Some(Assignment {
                worker_id: worker_id.to_owned(),
                attempt_id: attempt_id.to_owned(),
                task_range_start: assignment.task_range.start,
            })),
            _ => Err(ApiError::Protocol(
                "The platform answered the claim without a worker or attempt id.".into(),
            )),
        }
    }

    /// `heartbeat` (one attempt).
    pub(crate) async fn heartbeat(
        &self,
        (slug, run_id, worker_id): WorkerTarget<'_>,
        body: &Heartbeat,
    ) -> Result<(), ApiError> {
        let path = fill(paths::WORKER_HEARTBEAT, &[slug, run_id, worker_id]);
        self.call_once::<IgnoredAny>(Method::POST, &path, Some(body))
            .await
            .map(drop)
    }

    /// `sendTaskResults`.
    pub(crate) async fn send_task_results(
        &self,
        (slug, run_id, worker_id): WorkerTarget<'_>,
        body: &TaskResults,
    ) -> Result<(), ApiError> {
        let path = fill(paths::WORKER_EVENTS, &[slug, run_id, worker_id]);
        self.call::<IgnoredAny>(Method::POST, &path, Some(body), None)
            .await
            .map(drop)
    }

    /// `createWorkerArtifact` (with `metadata.sizeBytes`), then PUT the body to the
    /// returned upload URL.
    pub(crate) async fn upload_artifact(
        &self,
        (slug, run_id, worker_id): WorkerTarget<'_>,
        artifact: &CreateArtifact,
        body: &[u8],
        idempotency_key: &str,
    ) -> Result<(), ApiError> {
        let path = fill(paths::WORKER_ARTIFACTS, &[slug, run_id, worker_id]);
        let answer: CreateArtifactAnswer = self
            .call(Method::POST, &path, Some(artifact), Some(idempotency_key))
            .await?;
        let url = answer.upload_url().ok_or_else(|| {
            ApiError::Protocol("Benchmark artifact upload URL is missing.".into())
        })?;
        let content_type = artifact
            .content_type
            .as_deref()
            .unwrap_or("application/octet-stream");
        self.upload(url, content_type, body).await
    }

    /// `complete`, `fail` or `release`.
    pub(crate) async fn finish_worker(
        &self,
        (slug, run_id, worker_id): WorkerTarget<'_>,
        outcome: WorkerOutcome,
        body: &FinishWorker,
    ) -> Result<(), ApiError> {
        let path = fill(outcome.path(), &[slug, run_id, worker_id]);
        self.call::<IgnoredAny>(Method::POST, &path, Some(body), None)
            .await
            .map(drop)
    }

    /// `submitRunSummary`.
    pub(crate) async fn submit_run_summary(
        &self,
        slug: &str,
        run_id: &str,
        body: &RunSummary,
    ) -> Result<(), ApiError> {
        let path = fill(paths::RUN_SUMMARY, &[slug, run_id]);
        self.call::<IgnoredAny>(Method::POST, &path, Some(body), None)
            .await
            .map(drop)
    }

    /// `GET` of a read path (§6.3) with optional query parameters; the answer as it came.
    pub(crate) async fn get(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Value, ApiError> {
        let query: Vec<String> = query
            .iter()
            .map(|(key, value)| format!("{key}={}", encode_component(value)))
            .collect();
        let path = if query.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{}", query.join("&"))
        };
        self.call(Method::GET, &path, None::<&()>, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashboard_url_drops_the_api_path() {
        assert_eq!(
            dashboard_url(
                "https://platform.computesdk.com/api/v1",
                "acme",
                "sandbox-tti-local",
                "run-1"
            ),
            "https://platform.computesdk.com/acme/benchmarks/sandbox-tti-local/runs/run-1"
        );
        assert_eq!(
            dashboard_url("http://127.0.0.1:9/api/v1/", "local", "s", "r"),
            "http://127.0.0.1:9/local/benchmarks/s/runs/r"
        );
    }
}
