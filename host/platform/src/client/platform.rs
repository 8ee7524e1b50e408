//! The seam under the client: a [`Platform`] takes one request to one endpoint and gives
//! back the answer as it came, or why there is none. The client above it builds the
//! requests, retries them, keeps the circuit breaker and reads the answers; the HTTP
//! implementation is in `http.rs`, and tests put a scripted platform in its place.

use super::ApiError;
use bytes::Bytes;
use reqwest::Method;
use std::future::Future;
use std::time::Duration;

/// What talks to a platform: one exchange per call, no retries.
pub(crate) trait Platform: Send + Sync + 'static {
    /// Sends `request` once: the answer, whatever its status, or an [`ApiError::Transport`]
    /// when none came (refused, reset, timed out…).
    fn exchange(
        &self,
        request: &Request<'_>,
    ) -> impl Future<Output = Result<Answer, ApiError>> + Send;
}

/// The endpoint a request goes to, named as upstream's client names its calls (spec §6.2),
/// or the path template of a read (§6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Endpoint {
    /// `PUT /benchmarks/{slug}`.
    UpsertBenchmark,
    /// `POST /benchmarks/{slug}/runs`.
    CreateRun,
    /// `PUT …/participants/{p}`.
    UpsertParticipant,
    /// `POST …/participants/{p}/workers`.
    PlanWorkers,
    /// `POST …/participants/{p}/workers/claim`.
    ClaimWorker,
    /// `POST …/workers/{w}/heartbeat`.
    Heartbeat,
    /// `POST …/workers/{w}/events`.
    SendTaskResults,
    /// `POST …/workers/{w}/artifacts`.
    CreateWorkerArtifact,
    /// `PUT <uploadUrl>`: a presigned URL, sent without credentials.
    UploadArtifact,
    /// `POST …/workers/{w}/complete`.
    Complete,
    /// `POST …/workers/{w}/fail`.
    Fail,
    /// `POST …/workers/{w}/release`.
    Release,
    /// `POST …/runs/{run}/summary`.
    SubmitRunSummary,
    /// `GET` of a read path, by its template.
    Read(&'static str),
}

impl Endpoint {
    /// Whether the request carries the caller's credentials (all but presigned uploads).
    pub(crate) fn is_authorized(self) -> bool {
        self != Endpoint::UploadArtifact
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Endpoint::UpsertBenchmark => "upsertBenchmark",
            Endpoint::CreateRun => "createRun",
            Endpoint::UpsertParticipant => "upsertParticipant",
            Endpoint::PlanWorkers => "planWorkers",
            Endpoint::ClaimWorker => "claimWorker",
            Endpoint::Heartbeat => "heartbeat",
            Endpoint::SendTaskResults => "sendTaskResults",
            Endpoint::CreateWorkerArtifact => "createWorkerArtifact",
            Endpoint::UploadArtifact => "the artifact upload",
            Endpoint::Complete => "complete",
            Endpoint::Fail => "fail",
            Endpoint::Release => "release",
            Endpoint::SubmitRunSummary => "submitRunSummary",
            Endpoint::Read(path) => return write!(formatter, "GET {path}"),
        };
        formatter.write_str(name)
    }
}

/// One request, as the client sends it on every attempt.
#[derive(Debug, Clone)]
pub(crate) struct Request<'a> {
    /// Where it goes.
    pub endpoint: Endpoint,
    /// Its method.
    pub method: Method,
    /// Its absolute URL.
    pub url: &'a str,
    /// Its `Content-Type`.
    pub content_type: &'a str,
    /// Its `Idempotency-Key`, for creates.
    pub idempotency_key: Option<&'a str>,
    /// Its body.
    pub body: Option<Bytes>,
}

/// The platform's answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    /// HTTP status code.
    pub status: u16,
    /// How long the platform asked to wait before asking again (`Retry-After` in seconds).
    pub retry_after: Option<Duration>,
    /// The body, as text.
    pub body: String,
}

impl Answer {
    /// Whether the status is 2xx.
    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}
