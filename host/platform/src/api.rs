//! The platform endpoints `bench` calls (spec §6.2 write path, §6.3 read path): paths,
//! request bodies and the parts of the answers it uses.

use super::client::{segment, ApiError, Client};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A worker assignment from `claimWorker`.
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

/// The run `createRun` returned.
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

/// `/benchmarks/{slug}`.
pub fn benchmark(slug: &str) -> String {
    format!("/benchmarks/{}", segment(slug))
}

/// `/benchmarks/{slug}/runs/{runId}`.
pub fn run(slug: &str, run_id: &str) -> String {
    format!("{}/runs/{}", benchmark(slug), segment(run_id))
}

fn participant(slug: &str, run_id: &str, name: &str) -> String {
    format!("{}/participants/{}", run(slug, run_id), segment(name))
}

fn worker(slug: &str, run_id: &str, worker_id: &str) -> String {
    format!("{}/workers/{}", run(slug, run_id), segment(worker_id))
}

/// `<apiBaseUrl without /api/v1>/<org>/benchmarks/<slug>/runs/<runId>`.
pub fn dashboard_url(api_base_url: &str, org: &str, slug: &str, run_id: &str) -> String {
    let root = api_base_url
        .strip_suffix("/api/v1/")
        .or_else(|| api_base_url.strip_suffix("/api/v1"))
        .unwrap_or(api_base_url);
    format!("{root}/{org}/benchmarks/{slug}/runs/{run_id}")
}

impl Client {
    /// `PUT /benchmarks/{slug}` with `{ name, config? }`.
    pub async fn upsert_benchmark(&self, slug: &str, body: &Value) -> Result<Value, ApiError> {
        self.call(Method::PUT, &benchmark(slug), Some(body), None)
            .await
    }

    /// `POST /benchmarks/{slug}/runs`; `organizationSlug` of the answer names the dashboard.
    pub async fn create_run(
        &self,
        slug: &str,
        body: &Value,
        idempotency_key: &str,
    ) -> Result<CreatedRun, ApiError> {
        let answer = self
            .call(
                Method::POST,
                &format!("{}/runs", benchmark(slug)),
                Some(body),
                Some(idempotency_key),
            )
            .await?;
        let run = &answer["run"];
        let id = run["id"].as_str().ok_or_else(|| {
            ApiError::Protocol("The platform created a run without an id.".into())
        })?;
        let org = answer["organizationSlug"].as_str().unwrap_or("undefined");
        Ok(CreatedRun {
            id: id.to_owned(),
            name: run["name"].as_str().unwrap_or("undefined").to_owned(),
            dashboard_url: dashboard_url(self.api_base_url(), org, slug, id),
        })
    }

    /// `PUT .../participants/{p}` with `{ totalTasks }` (shared runs).
    pub async fn upsert_participant(
        &self,
        slug: &str,
        run_id: &str,
        name: &str,
        total_tasks: u64,
    ) -> Result<Value, ApiError> {
        let body = json!({ "totalTasks": total_tasks });
        self.call(
            Method::PUT,
            &participant(slug, run_id, name),
            Some(&body),
            None,
        )
        .await
    }

    /// `POST .../participants/{p}/workers` (participant mode `{}`; round mode
    /// `{ workerCount: 1, targetConcurrency }`).
    pub async fn plan_workers(
        &self,
        slug: &str,
        run_id: &str,
        name: &str,
        body: &Value,
        idempotency_key: &str,
    ) -> Result<Value, ApiError> {
        let path = format!("{}/workers", participant(slug, run_id, name));
        self.call(Method::POST, &path, Some(body), Some(idempotency_key))
            .await
    }

    /// `POST .../participants/{p}/workers/claim`: the assignment, or `None` when every
    /// worker is taken.
    pub async fn claim_worker(
        &self,
        slug: &str,
        run_id: &str,
        name: &str,
        body: &Value,
        idempotency_key: &str,
    ) -> Result<Option<Assignment>, ApiError> {
        let path = format!("{}/workers/claim", participant(slug, run_id, name));
        let answer = self
            .call(Method::POST, &path, Some(body), Some(idempotency_key))
            .await?;
        let assignment = &answer["assignment"];
        if assignment.is_null() {
            return Ok(None);
        }
        let text = |direct: &str, nested: &str| {
            assignment[direct]
                .as_str()
                .or_else(|| assignment[nested]["id"].as_str())
                .map(String::from)
        };
        match (text("workerId", "worker"), text("attemptId", "attempt")) {
            (Some(worker_id), Some(attempt_id)) => Ok(Some(Assignment {
                worker_id,
                attempt_id,
                task_range_start: assignment["taskRange"]["start"].as_u64().unwrap_or(0),
            })),
            _ => Err(ApiError::Protocol(
                "The platform answered the claim without a worker or attempt id.".into(),
            )),
        }
    }

    /// `POST .../workers/{w}/heartbeat` (one attempt).
    pub async fn heartbeat(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let path = format!("{}/heartbeat", worker(slug, run_id, worker_id));
        self.call_once(Method::POST, &path, Some(body)).await
    }

    /// `POST .../workers/{w}/events` with a `task_results` batch.
    pub async fn send_task_results(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let path = format!("{}/events", worker(slug, run_id, worker_id));
        self.call(Method::POST, &path, Some(body), None).await
    }

    /// `POST .../workers/{w}/artifacts` (with `metadata.sizeBytes`), then PUT the body to
    /// the returned upload URL.
    pub async fn upload_artifact(
        &self,
        target: (&str, &str, &str),
        artifact: &Value,
        body: &[u8],
        idempotency_key: &str,
    ) -> Result<(), ApiError> {
        let (slug, run_id, worker_id) = target;
        let path = format!("{}/artifacts", worker(slug, run_id, worker_id));
        let answer = self
            .call(Method::POST, &path, Some(artifact), Some(idempotency_key))
            .await?;
        let url = answer["uploadUrl"]
            .as_str()
            .or_else(|| answer["artifact"]["uploadUrl"].as_str())
            .ok_or_else(|| {
                ApiError::Protocol("Benchmark artifact upload URL is missing.".into())
            })?;
        let content_type = artifact["contentType"]
            .as_str()
            .unwrap_or("application/octet-stream");
        self.upload(url, content_type, body).await
    }

    /// `POST .../workers/{w}/complete` or `/fail`.
    pub async fn finish_worker(
        &self,
        slug: &str,
        run_id: &str,
        worker_id: &str,
        outcome: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let path = format!("{}/{outcome}", worker(slug, run_id, worker_id));
        self.call(Method::POST, &path, Some(body), None).await
    }

    /// `POST .../runs/{r}/summary` with `{ run, results, scoring? }`.
    pub async fn submit_run_summary(
        &self,
        slug: &str,
        run_id: &str,
        body: &Value,
    ) -> Result<Value, ApiError> {
        let path = format!("{}/summary", run(slug, run_id));
        self.call(Method::POST, &path, Some(body), None).await
    }

    /// `GET` of a read path (§6.3) with optional query parameters.
    pub async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Value, ApiError> {
        let query: Vec<String> = query
            .iter()
            .map(|(key, value)| format!("{key}={}", segment(value)))
            .collect();
        let path = if query.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{}", query.join("&"))
        };
        self.call(Method::GET, &path, None, None).await
    }
}

/// Read paths of the platform commands.
pub mod paths {
    pub use super::{benchmark, run};

    /// `/benchmarks/{slug}/runs`.
    pub fn runs(slug: &str) -> String {
        format!("{}/runs", benchmark(slug))
    }

    /// `/benchmarks/{slug}/results`.
    pub fn benchmark_results(slug: &str) -> String {
        format!("{}/results", benchmark(slug))
    }

    /// `/benchmarks/{slug}/runs/{runId}/results`.
    pub fn run_results(slug: &str, run_id: &str) -> String {
        format!("{}/results", run(slug, run_id))
    }

    /// `/benchmarks/{slug}/runs/{runId}/artifacts`.
    pub fn run_artifacts(slug: &str, run_id: &str) -> String {
        format!("{}/artifacts", run(slug, run_id))
    }

    /// `/benchmarks/{slug}/runs/{runId}/workers/{workerId}/artifacts`.
    pub fn worker_artifacts(slug: &str, run_id: &str, worker_id: &str) -> String {
        format!("{}/artifacts", super::worker(slug, run_id, worker_id))
    }

    /// `/benchmarks/{slug}/runs/{runId}/iterations` (task records).
    pub fn run_iterations(slug: &str, run_id: &str) -> String {
        format!("{}/iterations", run(slug, run_id))
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

    #[test]
    fn paths_encode_each_segment() {
        assert_eq!(
            participant("s", "run 1", "a/b"),
            "/benchmarks/s/runs/run%201/participants/a%2Fb"
        );
        assert_eq!(worker("s", "r", "w"), "/benchmarks/s/runs/r/workers/w");
    }
}
