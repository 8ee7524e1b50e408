//! The typed calls of the endpoints `bench` uses (spec §6.2 write path, §6.3 read path),
//! and what the client keeps of their answers.

use super::{ApiError, Client, Endpoint, Platform};
use crate::api::paths::{self, encode_component, fill};
use crate::api::types::{
    ClaimAnswer, ClaimWorker, CreateArtifact, CreateArtifactAnswer, CreateRun, CreateRunAnswer,
    FinishWorker, Heartbeat, PlanWorkers, RunSummary, TaskResults, TaskResultsAnswer,
    UpsertBenchmark, UpsertParticipant, WorkerOutcome,
};
use bytes::Bytes;
use reqwest::Method;
use serde::de::{DeserializeOwned, IgnoredAny};
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

impl<P: Platform> Client<P> {
    /// A write whose answer only says it was taken.
    async fn acknowledged(
        &self,
        endpoint: Endpoint,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
        idempotency_key: Option<&str>,
    ) -> Result<(), ApiError> {
        self.call::<IgnoredAny>(endpoint, method, path, body, idempotency_key)
            .await
            .map(drop)
    }

    /// `upsertBenchmark`.
    pub(crate) async fn upsert_benchmark(
        &self,
        slug: &str,
        body: &UpsertBenchmark,
    ) -> Result<(), ApiError> {
        let path = fill(paths::BENCHMARK, &[slug]);
        self.acknowledged(
            Endpoint::UpsertBenchmark,
            Method::PUT,
            &path,
            Some(body),
            None,
        )
        .await
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
            .call(
                Endpoint::CreateRun,
                Method::POST,
                &path,
                Some(body),
                Some(idempotency_key),
            )
            .await?;
        check_created_run(body, &answer)?;
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
        self.acknowledged(
            Endpoint::UpsertParticipant,
            Method::PUT,
            &path,
            Some(&body),
            None,
        )
        .await
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
        self.acknowledged(
            Endpoint::PlanWorkers,
            Method::POST,
            &path,
            Some(body),
            Some(idempotency_key),
        )
        .await
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
            .call(
                Endpoint::ClaimWorker,
                Method::POST,
                &path,
                Some(body),
                Some(idempotency_key),
            )
            .await?;
        let Some(assignment) = answer.assignment else {
            return Ok(None);
        };
        if !assignment.participant.is_empty() && assignment.participant != name {
            return Err(ApiError::Mismatch(format!(
                "the claim for participant {name} assigned a worker of {}",
                assignment.participant
            )));
        }
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
        self.call_once::<IgnoredAny>(Endpoint::Heartbeat, Method::POST, &path, Some(body))
            .await
            .map(drop)
    }

    /// `sendTaskResults` of `batch` with `records_json` as its records (see
    /// [`TaskResults::encode_with`]). `resent` says whether this batch may have reached the
    /// platform before (an earlier call sent it); only then may the platform call it a
    /// duplicate.
    pub(crate) async fn send_task_results(
        &self,
        (slug, run_id, worker_id): WorkerTarget<'_>,
        batch: &TaskResults,
        records_json: &[u8],
        resent: bool,
    ) -> Result<(), ApiError> {
        let path = fill(paths::WORKER_EVENTS, &[slug, run_id, worker_id]);
        let body = Bytes::from(batch.encode_with(records_json));
        let (answer, attempts): (TaskResultsAnswer, u32) = self
            .call_encoded(Endpoint::SendTaskResults, Method::POST, &path, body)
            .await?;
        if answer.duplicate && !resent && attempts == 1 {
            return Err(ApiError::Mismatch(format!(
                "batch {} of attempt {} was never sent before, yet the platform already has it (another run with the same ids?)",
                batch.sequence_number, batch.attempt_id
            )));
        }
        Ok(())
    }

    /// `createWorkerArtifact` (with `metadata.sizeBytes`), then PUT the body to the
    /// returned upload URL.
    pub(crate) async fn upload_artifact(
        &self,
        (slug, run_id, worker_id): WorkerTarget<'_>,
        artifact: &CreateArtifact,
        body: Bytes,
        idempotency_key: &str,
    ) -> Result<(), ApiError> {
        let path = fill(paths::WORKER_ARTIFACTS, &[slug, run_id, worker_id]);
        let answer: CreateArtifactAnswer = self
            .call(
                Endpoint::CreateWorkerArtifact,
                Method::POST,
                &path,
                Some(artifact),
                Some(idempotency_key),
            )
            .await?;
        let kind = &answer.artifact.kind;
        if !kind.is_empty() && *kind != artifact.kind {
            return Err(ApiError::Mismatch(format!(
                "a {} artifact was created, the platform answered with a {kind} artifact",
                artifact.kind
            )));
        }
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
        self.acknowledged(
            finish_endpoint(outcome),
            Method::POST,
            &path,
            Some(body),
            None,
        )
        .await
    }

    /// `submitRunSummary`.
    pub(crate) async fn submit_run_summary(
        &self,
        slug: &str,
        run_id: &str,
        body: &RunSummary,
    ) -> Result<(), ApiError> {
        let path = fill(paths::RUN_SUMMARY, &[slug, run_id]);
        self.acknowledged(
            Endpoint::SubmitRunSummary,
            Method::POST,
            &path,
            Some(body),
            None,
        )
        .await
    }

    /// `GET` of the read path `template` (§6.3) filled with `segments`, with optional
    /// query parameters; the answer read as `A`.
    pub(crate) async fn get<A: DeserializeOwned>(
        &self,
        template: &'static str,
        segments: &[&str],
        query: &[(&str, String)],
    ) -> Result<A, ApiError> {
        let path = fill(template, segments);
        let query: Vec<String> = query
            .iter()
            .map(|(key, value)| format!("{key}={}", encode_component(value)))
            .collect();
        let path = if query.is_empty() {
            path
        } else {
            format!("{path}?{}", query.join("&"))
        };
        let endpoint = Endpoint::Read(template);
        self.call(endpoint, Method::GET, &path, None::<&()>, None)
            .await
    }
}

/// The endpoint of a worker's ending.
fn finish_endpoint(outcome: WorkerOutcome) -> Endpoint {
    match outcome {
        WorkerOutcome::Complete => Endpoint::Complete,
        WorkerOutcome::Fail => Endpoint::Fail,
        WorkerOutcome::Release => Endpoint::Release,
    }
}

/// Checks that a `createRun` answer (perhaps replayed for its idempotency key) is the run
/// that was asked for: its key, task count, participants and (for a run of its own)
/// configuration, where the answer names them.
fn check_created_run(sent: &CreateRun, answer: &CreateRunAnswer) -> Result<(), ApiError> {
    let run = &answer.run;
    let mismatch = |what: &str| {
        Err(ApiError::Mismatch(format!(
            "run {} was created with another {what} (an idempotency key shared with another run?)",
            run.id
        )))
    };
    if let (Some(sent), Some(answered)) = (&sent.run_key, &run.run_key) {
        if sent != answered {
            return mismatch("run key");
        }
    }
    if let (Some(sent), Some(answered)) = (sent.total_tasks, run.total_tasks) {
        if sent != answered {
            return mismatch("task count");
        }
    }
    if let Some(sent) = &sent.participants {
        let answered: Vec<&str> = answer
            .participants
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        if !answered.is_empty() && answered != *sent {
            return mismatch("participant list");
        }
    }
    // A shared run keeps the configuration of the invocation that created it.
    let own = sent.run_key.is_none();
    if let (true, Value::Object(sent), Value::Object(answered)) = (own, &sent.config, &run.config) {
        if sent
            .iter()
            .any(|(key, value)| answered.get(key) != Some(value))
        {
            return mismatch("configuration");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::types::{Participant, Run};
    use crate::client::fake::{FakePlatform, Scripted};
    use crate::client::Retry;
    use serde_json::json;

    #[test]
    fn a_created_run_must_be_the_run_that_was_asked_for() {
        let sent = CreateRun::own(3, vec!["a".into(), "b".into()], json!({"concurrency": 1}));
        let participant = |name: &str| Participant {
            name: name.into(),
            total_tasks: 3,
            created_at: String::new(),
        };
        let answer = |total: u64, names: &[&str], config: Value| CreateRunAnswer {
            run: Run {
                id: "r".into(),
                total_tasks: Some(total),
                config,
                ..Run::default()
            },
            participants: names.iter().map(|name| participant(name)).collect(),
            organization_slug: None,
        };
        let same = answer(3, &["a", "b"], json!({"concurrency": 1, "extra": true}));
        assert_eq!(check_created_run(&sent, &same), Ok(()));
        assert_eq!(
            check_created_run(&sent, &CreateRunAnswer::default()),
            Ok(())
        );
        let message =
            |answer: CreateRunAnswer| check_created_run(&sent, &answer).unwrap_err().to_string();
        assert_eq!(
            message(answer(4, &["a", "b"], json!({}))),
            "The platform's answer does not match what was sent: run r was created with another task count (an idempotency key shared with another run?)"
        );
        assert!(message(answer(3, &["a"], json!({}))).contains("participant list"));
        assert!(
            message(answer(3, &["a", "b"], json!({"concurrency": 2}))).contains("configuration")
        );
        let shared = CreateRun::shared("k1", json!({"participants": ["a"]}));
        let mut joined = CreateRunAnswer::default();
        joined.run.run_key = Some("k1".into());
        joined.run.config = json!({"participants": ["b"]});
        assert_eq!(
            check_created_run(&shared, &joined),
            Ok(()),
            "a sibling's config"
        );
        let mut other_key = CreateRunAnswer::default();
        other_key.run.run_key = Some("k2".into());
        assert!(check_created_run(&shared, &other_key)
            .unwrap_err()
            .to_string()
            .contains("run key"));
    }

    /// A client of a platform whose next answer to `endpoint` is 200 with `body`.
    fn answering(endpoint: Endpoint, body: &str) -> Client<FakePlatform> {
        let platform = FakePlatform::default();
        platform.script(endpoint, [Scripted::Body(body.into())]);
        Client::over(platform, "http://platform.test/api/v1", Retry::ONCE)
    }

    #[tokio::test]
    async fn a_batch_never_sent_cannot_be_a_duplicate() {
        let duplicate = r#"{"accepted":0,"eventBatchId":"evb_1","queued":false,"duplicate":true}"#;
        let client = answering(Endpoint::SendTaskResults, duplicate);
        let batch = TaskResults {
            kind: crate::api::types::EventKind::TaskResults,
            attempt_id: "att_1".into(),
            sequence_number: 0,
            is_final: true,
            records: Vec::new(),
        };
        let records = br#"{"taskIndex":0}"#;
        let error = client
            .send_task_results(("s", "r", "w"), &batch, records, false)
            .await
            .unwrap_err();
        assert!(matches!(error, ApiError::Mismatch(_)), "{error}");
        assert!(error
            .to_string()
            .contains("batch 0 of attempt att_1 was never sent before"));
        assert!(!error.is_retryable());
        client.platform.script(
            Endpoint::SendTaskResults,
            [Scripted::Body(duplicate.into())],
        );
        let resent = client
            .send_task_results(("s", "r", "w"), &batch, records, true)
            .await;
        assert_eq!(resent, Ok(()), "a batch sent before may be a duplicate");
    }

    #[tokio::test]
    async fn a_claim_for_another_participant_is_refused() {
        let client = answering(
            Endpoint::ClaimWorker,
            r#"{"assignment":{"workerId":"w","attemptId":"a","participant":"beta","taskRange":{"start":0,"end":1,"count":1}}}"#,
        );
        let error = client
            .claim_worker("s", "r", "alpha", &ClaimWorker::default(), "k")
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "The platform's answer does not match what was sent: the claim for participant alpha assigned a worker of beta"
        );
    }

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
