//! A scripted [`Platform`] for tests: each endpoint answers as a small platform would —
//! a run, a worker per participant, batches stored once per `(attemptId, sequenceNumber)`,
//! artifacts with an upload URL — unless a test scripted its next calls otherwise (an
//! error status, a `Retry-After`, no answer, an answer lost after the platform took the
//! request, another body). It keeps every request it got.

use super::platform::{Answer, Endpoint, Platform, Request};
use super::ApiError;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How long a scripted [`Scripted::Timeout`] takes: the HTTP client's answer timeout.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(30);

/// How the fake answers one call of an endpoint.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scripted {
    /// An error status with a refusal body; the platform keeps nothing.
    Status(u16),
    /// An error status with `Retry-After: <seconds>`; the platform keeps nothing.
    RetryAfter(u16, u64),
    /// No answer within [`TIMEOUT`]; the request never reached the platform.
    Timeout,
    /// The platform takes the request, but its answer is lost (connection reset).
    Lost,
    /// 200 with this body, the platform keeping nothing.
    Body(String),
}

/// A request as the fake got it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Received {
    /// Where it went.
    pub endpoint: Endpoint,
    /// Its URL.
    pub url: String,
    /// Its `Idempotency-Key`.
    pub idempotency_key: Option<String>,
    /// Its body, parsed (null without one, or when it is not JSON).
    pub body: Value,
}

#[derive(Default)]
struct State {
    scripts: HashMap<Endpoint, VecDeque<Scripted>>,
    received: Vec<Received>,
    /// Stored batches: `(attemptId, sequenceNumber)` → records.
    batches: BTreeMap<(String, u64), Vec<Value>>,
}

/// The scripted platform.
#[derive(Default)]
pub(crate) struct FakePlatform {
    state: Mutex<State>,
}

impl FakePlatform {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The next calls of `endpoint` answer as `answers` say, in order; later ones as usual.
    pub(crate) fn script(&self, endpoint: Endpoint, answers: impl IntoIterator<Item = Scripted>) {
        self.state()
            .scripts
            .entry(endpoint)
            .or_default()
            .extend(answers);
    }

    /// Every request of `endpoint` received, in order.
    pub(crate) fn received(&self, endpoint: Endpoint) -> Vec<Received> {
        let state = self.state();
        let all = state.received.iter();
        all.filter(|request| request.endpoint == endpoint)
            .cloned()
            .collect()
    }

    /// Every request received, by endpoint, in order.
    pub(crate) fn endpoints(&self) -> Vec<Endpoint> {
        let state = self.state();
        state
            .received
            .iter()
            .map(|request| request.endpoint)
            .collect()
    }

    /// The records stored for `attempt_id`, batch after batch.
    pub(crate) fn stored(&self, attempt_id: &str) -> Vec<Value> {
        let state = self.state();
        let batches = state.batches.iter();
        batches
            .filter(|((attempt, _), _)| attempt == attempt_id)
            .flat_map(|(_, records)| records.clone())
            .collect()
    }

    /// What the platform answers when nothing is scripted, keeping what it takes.
    fn answer(state: &mut State, request: &Received) -> String {
        let body = &request.body;
        match request.endpoint {
            Endpoint::CreateRun => {
                json!({"run": {"id": "run_1", "name": "S #1"}, "organizationSlug": "acme"})
                    .to_string()
            }
            Endpoint::ClaimWorker => {
                let participant = segment_after(&request.url, "participants");
                json!({"assignment": {
                    "workerId": format!("w-{participant}"),
                    "attemptId": format!("att-{participant}"),
                    "participant": participant,
                    "taskRange": {"start": 0}
                }})
                .to_string()
            }
            Endpoint::SendTaskResults => {
                let attempt = body["attemptId"].as_str().unwrap_or_default().to_owned();
                let sequence = body["sequenceNumber"].as_u64().unwrap_or_default();
                let records = body["records"].as_array().cloned().unwrap_or_default();
                let accepted = records.len();
                let duplicate = state.batches.contains_key(&(attempt.clone(), sequence));
                state.batches.entry((attempt, sequence)).or_insert(records);
                let accepted = if duplicate { 0 } else { accepted };
                json!({"accepted": accepted, "eventBatchId": format!("evb_{sequence}"),
                    "queued": false, "duplicate": duplicate})
                .to_string()
            }
            Endpoint::CreateWorkerArtifact => {
                let id = state.received.len();
                json!({"artifactId": format!("art_{id}"),
                    "uploadUrl": format!("https://uploads.test/art_{id}"),
                    "artifact": {"kind": body["kind"]}})
                .to_string()
            }
            Endpoint::UploadArtifact => String::new(),
            _ => "{}".into(),
        }
    }
}

/// The path segment after `name` in `url` (empty when there is none).
fn segment_after(url: &str, name: &str) -> String {
    let mut segments = url.split('/');
    segments.find(|segment| *segment == name);
    segments.next().unwrap_or_default().to_owned()
}

/// Tests keep the fake to look at what it got, and give the client a handle to it.
impl Platform for Arc<FakePlatform> {
    async fn exchange(&self, request: &Request<'_>) -> Result<Answer, ApiError> {
        self.as_ref().exchange(request).await
    }
}

impl Platform for FakePlatform {
    async fn exchange(&self, request: &Request<'_>) -> Result<Answer, ApiError> {
        let received = Received {
            endpoint: request.endpoint,
            url: request.url.to_owned(),
            idempotency_key: request.idempotency_key.map(str::to_owned),
            body: (request.body.as_deref())
                .and_then(|body| serde_json::from_slice(body).ok())
                .unwrap_or_default(),
        };
        let scripted = {
            let mut state = self.state();
            state.received.push(received.clone());
            let script = state.scripts.get_mut(&request.endpoint);
            script.and_then(VecDeque::pop_front)
        };
        let refusal = |status: u16, retry_after: Option<u64>| Answer {
            status,
            retry_after: retry_after.map(Duration::from_secs),
            body: json!({"error": {"code": "scripted", "message": format!("scripted {status}")}})
                .to_string(),
        };
        match scripted {
            Some(Scripted::Status(status)) => Ok(refusal(status, None)),
            Some(Scripted::RetryAfter(status, seconds)) => Ok(refusal(status, Some(seconds))),
            Some(Scripted::Timeout) => {
                tokio::time::sleep(TIMEOUT).await;
                Err(ApiError::Transport("operation timed out".into()))
            }
            Some(Scripted::Lost) => {
                Self::answer(&mut self.state(), &received);
                Err(ApiError::Transport("connection reset by peer".into()))
            }
            Some(Scripted::Body(body)) => Ok(Answer {
                status: 200,
                retry_after: None,
                body,
            }),
            None => Ok(Answer {
                status: 200,
                retry_after: None,
                body: Self::answer(&mut self.state(), &received),
            }),
        }
    }
}
