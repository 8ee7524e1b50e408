//! The platform API client (spec §6.1): JSON bodies, typed answers, upstream error
//! messages — plus what upstream lacks: bounded retries with exponential backoff and
//! jitter for failures worth retrying (no answer, 408, 429, 5xx; a longer `Retry-After` is
//! waited out), and a circuit breaker (`breaker.rs`) that bounds the failures of all calls
//! together. Requests go through a [`Platform`] (`platform.rs`; over HTTP in `http.rs`);
//! the typed calls of each endpoint are in `endpoints.rs`.

mod breaker;
mod endpoints;
#[cfg(test)]
pub(crate) mod fake;
mod http;
mod platform;

pub use endpoints::Assignment;
pub use endpoints::CreatedRun;
pub(crate) use endpoints::WorkerTarget;

use super::auth::Auth;
use bench_model::text::escape_control;
use breaker::Breaker;
use bytes::Bytes;
pub(crate) use http::HttpPlatform;
pub(crate) use platform::{Endpoint, Platform, Request};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::{Duration, Instant};

/// How hard one call tries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Retry {
    /// Attempts in all (at least 1).
    pub attempts: u32,
    /// Delay before the second attempt; doubled for each further attempt.
    pub base_delay: Duration,
    /// Longest delay between attempts.
    pub max_delay: Duration,
    /// How long failed attempts (and the backoff after them) of all calls of a client may
    /// take together before its circuit breaker opens.
    pub budget: Duration,
}

impl Retry {
    /// One attempt only.
    pub(crate) const ONCE: Retry = Retry {
        attempts: 1,
        base_delay: Duration::ZERO,
        max_delay: Duration::ZERO,
        budget: RETRY_BUDGET,
    };

    /// The delay before attempt `n + 1` (n >= 1): `base × 2^(n-1)`, capped, times a random
    /// factor in [0.5, 1).
    pub(crate) fn delay(&self, n: u32) -> Duration {
        let exponential = self
            .base_delay
            .saturating_mul(1 << (n - 1).min(16))
            .min(self.max_delay);
        exponential.mul_f64(0.5 + random_unit() / 2.0)
    }
}

impl Default for Retry {
    /// 5 attempts, 250 ms doubling up to 4 s: about 4 s of waiting at most; a minute of
    /// failures in all.
    fn default() -> Self {
        Self {
            attempts: 5,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(4),
            budget: RETRY_BUDGET,
        }
    }
}

/// A uniformly distributed number in [0, 1), from the operating system's generator (0
/// when it fails: the delay is then the shortest, never wrong).
fn random_unit() -> f64 {
    let random = getrandom::u64().unwrap_or_default();
    (random >> 11) as f64 / (1u64 << 53) as f64
}

/// A failed platform call; `Display` is upstream's message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ApiError {
    /// The platform answered with a non-2xx status: upstream's message, then the reason the
    /// platform gave (`: <message> (<code>)`), when its answer names one.
    #[error("Benchmark API request failed: {status} {status_text}{}", reason(body))]
    Status {
        /// HTTP status code.
        status: u16,
        /// Its reason phrase.
        status_text: String,
        /// The response body, as text.
        body: String,
    },
    /// No answer (connection refused, reset, timed out…).
    #[error("fetch failed: {0}")]
    Transport(String),
    /// A presigned artifact upload failed.
    #[error("Benchmark artifact upload failed with {0}")]
    Upload(u16),
    /// The platform answered 2xx with something that is not the expected JSON.
    #[error("{0}")]
    Protocol(String),
    /// The platform answered with something other than what was sent: a replayed create of
    /// another run, a batch it says it already has that was never sent…
    #[error("The platform's answer does not match what was sent: {0}")]
    Mismatch(String),
    /// What was to be sent could not be read from the results directory.
    #[error("{0}")]
    Local(String),
    /// The circuit breaker is open: the client gave up on the platform.
    #[error("the platform is unreachable: {0}")]
    Unavailable(String),
}

impl ApiError {
    /// Whether another attempt may succeed: no answer, 408, 429 or 5xx.
    pub(crate) fn is_retryable(&self) -> bool {
        match self {
            ApiError::Transport(_) | ApiError::Unavailable(_) => true,
            ApiError::Status { status, .. } | ApiError::Upload(status) => {
                *status == 408 || *status == 429 || *status >= 500
            }
            ApiError::Protocol(_) | ApiError::Mismatch(_) | ApiError::Local(_) => false,
        }
    }
}

/// Longest reason of a refusal printed, in characters.
const MAX_REASON_CHARS: usize = 500;

/// `: <message> (<code>)` of an error answer `{ "error": { "code", "message" } }` (escaped
/// for the terminal, cut to [`MAX_REASON_CHARS`]); empty for any other body.
fn reason(body: &str) -> String {
    let Ok(answer) = serde_json::from_str::<serde_json::Value>(body) else {
        return String::new();
    };
    let error = &answer["error"];
    let Some(message) = error["message"].as_str().or(answer["message"].as_str()) else {
        return String::new();
    };
    let mut text: String = message.chars().take(MAX_REASON_CHARS).collect();
    if let Some(code) = error["code"].as_str() {
        text.push_str(&format!(" ({})", code.chars().take(64).collect::<String>()));
    }
    format!(": {}", escape_control(&text))
}

/// The default [`Retry::budget`].
const RETRY_BUDGET: Duration = Duration::from_secs(60);

/// A platform API client bound to one `apiBaseUrl`: it builds each endpoint's request,
/// sends it through its [`Platform`] as often as [`Retry`] allows, and reads the answer.
pub(crate) struct Client<P = HttpPlatform> {
    platform: P,
    api_base_url: String,
    retry: Retry,
    breaker: Breaker,
}

const NO_TOKEN: &str = "A platform API key or OAuth token is required. Set BENCHMARKS_PLATFORM_API_KEY or BENCHMARKS_PLATFORM_TOKEN in your environment, or pass apiKey/token to createBenchmarkClient. Create an API key at https://platform.computesdk.com in your organization settings (Settings → API keys).";

impl Client {
    /// A client over HTTP for resolved auth, retrying as `retry` says.
    pub(crate) fn new(auth: &Auth, retry: Retry) -> Result<Self, ApiError> {
        let bearer = auth
            .bearer()
            .ok_or_else(|| ApiError::Protocol(NO_TOKEN.into()))?
            .to_owned();
        let platform = HttpPlatform::new(bearer, auth.org_slug.clone(), auth.org_id.clone())?;
        Ok(Client::over(platform, &auth.api_base_url, retry))
    }
}

/// A failed attempt: the error, and how long the platform asked to wait before the next.
struct Failed {
    error: ApiError,
    retry_after: Option<Duration>,
}

impl From<ApiError> for Failed {
    fn from(error: ApiError) -> Self {
        Failed {
            error,
            retry_after: None,
        }
    }
}

impl<P: Platform> Client<P> {
    /// A client of the platform at `api_base_url` reached through `platform`.
    pub(crate) fn over(platform: P, api_base_url: &str, retry: Retry) -> Self {
        Self {
            platform,
            api_base_url: api_base_url.trim_end_matches('/').to_owned(),
            retry,
            breaker: Breaker::new(retry.budget),
        }
    }

    /// The `apiBaseUrl`.
    pub(crate) fn api_base_url(&self) -> &str {
        &self.api_base_url
    }

    /// Why the client gave up on the platform, once it did.
    pub(crate) fn unavailable(&self) -> Option<String> {
        self.breaker.open_reason()
    }

    /// When the platform last answered with a success or a definite refusal.
    pub(crate) fn last_answer(&self) -> Option<Instant> {
        self.breaker.last_answer()
    }

    /// Sends a request to `apiBaseUrl + path` with a JSON body and reads the JSON answer
    /// (`{}` for an empty body) as `A`, retrying as configured. `idempotency_key` is sent as
    /// `Idempotency-Key`, so a retried create returns what the first attempt created.
    pub(crate) async fn call<A: DeserializeOwned>(
        &self,
        endpoint: Endpoint,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
        idempotency_key: Option<&str>,
    ) -> Result<A, ApiError> {
        let body = encode(body)?;
        self.send(endpoint, method, path, body, idempotency_key, self.retry)
            .await
            .map(|(answer, _)| answer)
    }

    /// [`Client::call`] with a body already encoded as JSON and no idempotency key; the
    /// answer and how many attempts it took (after more than one, an earlier attempt may
    /// have reached the platform).
    pub(crate) async fn call_encoded<A: DeserializeOwned>(
        &self,
        endpoint: Endpoint,
        method: Method,
        path: &str,
        body: Bytes,
    ) -> Result<(A, u32), ApiError> {
        self.send(endpoint, method, path, Some(body), None, self.retry)
            .await
    }

    /// [`Client::call`] with a single attempt (heartbeats: the next one follows soon).
    pub(crate) async fn call_once<A: DeserializeOwned>(
        &self,
        endpoint: Endpoint,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
    ) -> Result<A, ApiError> {
        let body = encode(body)?;
        self.send(endpoint, method, path, body, None, Retry::ONCE)
            .await
            .map(|(answer, _)| answer)
    }

    async fn send<A: DeserializeOwned>(
        &self,
        endpoint: Endpoint,
        method: Method,
        path: &str,
        body: Option<Bytes>,
        idempotency_key: Option<&str>,
        retry: Retry,
    ) -> Result<(A, u32), ApiError> {
        let url = format!("{}{path}", self.api_base_url);
        let request = Request {
            endpoint,
            method,
            url: &url,
            content_type: "application/json",
            idempotency_key,
            body,
        };
        let (text, attempts) = self.with_retries(retry, &request).await?;
        Ok((decode(endpoint, &text)?, attempts))
    }

    /// PUTs raw bytes to a presigned upload URL (no credentials).
    pub(crate) async fn upload(
        &self,
        url: &str,
        content_type: &str,
        body: Bytes,
    ) -> Result<(), ApiError> {
        let request = Request {
            endpoint: Endpoint::UploadArtifact,
            method: Method::PUT,
            url,
            content_type,
            idempotency_key: None,
            body: Some(body),
        };
        self.with_retries(self.retry, &request).await.map(drop)
    }

    /// Sends `request` once: the body of a 2xx answer, or why it failed.
    async fn attempt(&self, request: &Request<'_>) -> Result<String, Failed> {
        let answer = self.platform.exchange(request).await?;
        if answer.is_success() {
            return Ok(answer.body);
        }
        let error = match request.endpoint {
            Endpoint::UploadArtifact => ApiError::Upload(answer.status),
            _ => status_error(answer.status, answer.body),
        };
        Err(Failed {
            error,
            retry_after: answer.retry_after,
        })
    }

    /// Sends `request` until it succeeds, fails for good or runs out of attempts, waiting
    /// between attempts the backoff or the platform's `Retry-After`, whichever is longer;
    /// the answer's body and how many attempts it took.
    async fn with_retries(
        &self,
        retry: Retry,
        request: &Request<'_>,
    ) -> Result<(String, u32), ApiError> {
        let attempts = retry.attempts.max(1);
        let mut n = 1;
        loop {
            if let Some(reason) = self.breaker.open_reason() {
                return Err(ApiError::Unavailable(reason));
            }
            let started = tokio::time::Instant::now();
            let Failed { error, retry_after } = match self.attempt(request).await {
                Ok(body) => {
                    self.breaker.answered();
                    return Ok((body, n));
                }
                Err(failed) => failed,
            };
            if !error.is_retryable() {
                self.breaker.answered();
                return Err(error);
            }
            let message = error.to_string();
            if n == attempts {
                self.breaker.spend(started.elapsed(), &message);
                self.breaker.exhausted(&message);
                return Err(error);
            }
            let delay = retry.delay(n).max(retry_after.unwrap_or_default());
            if !self.breaker.spend(started.elapsed() + delay, &message) {
                return Err(error);
            }
            tokio::time::sleep(delay).await;
            n += 1;
        }
    }
}

/// A request body as JSON.
fn encode(body: Option<&(impl Serialize + ?Sized)>) -> Result<Option<Bytes>, ApiError> {
    body.map(|body| serde_json::to_vec(body).map(Bytes::from))
        .transpose()
        .map_err(|error| ApiError::Protocol(format!("Cannot encode the request: {error}")))
}

/// An answer of `endpoint` (`{}` when empty) read as `A`: fields it does not know are
/// ignored; one it needs that is missing or of another type is named by its path.
fn decode<A: DeserializeOwned>(endpoint: Endpoint, text: &str) -> Result<A, ApiError> {
    let text = if text.trim().is_empty() { "{}" } else { text };
    let invalid = |error: serde_json::Error| {
        ApiError::Protocol(format!(
            "The platform answered {endpoint} with invalid JSON: {error}"
        ))
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let answer = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let field = error.path().to_string();
        let error = error.into_inner();
        if error.is_syntax() || error.is_eof() {
            return invalid(error);
        }
        let at = match field.as_str() {
            "." => String::new(),
            field => format!(" at `{field}`"),
        };
        ApiError::Protocol(format!(
            "The platform's answer to {endpoint} does not fit the API{at}: {error}"
        ))
    })?;
    deserializer.end().map_err(invalid)?;
    Ok(answer)
}

fn status_error(status: u16, body: String) -> ApiError {
    let reason = StatusCode::from_u16(status)
        .ok()
        .and_then(|status| status.canonical_reason());
    ApiError::Status {
        status,
        status_text: reason.unwrap_or("").to_owned(),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fake::{FakePlatform, Scripted};
    use std::sync::Arc;

    #[test]
    fn backoff_doubles_is_capped_and_jittered() {
        let retry = Retry::default();
        for n in 1..8 {
            let full = (retry.base_delay * (1 << (n - 1))).min(retry.max_delay);
            let delay = retry.delay(n);
            assert!(delay >= full / 2 && delay < full, "attempt {n}: {delay:?}");
        }
    }

    #[test]
    fn only_unanswered_and_server_side_failures_are_retried() {
        let status = |status| ApiError::Status {
            status,
            status_text: String::new(),
            body: String::new(),
        };
        assert!(status(500).is_retryable());
        assert!(status(503).is_retryable());
        assert!(status(429).is_retryable());
        assert!(!status(401).is_retryable());
        assert!(!status(404).is_retryable());
        assert!(ApiError::Transport("refused".into()).is_retryable());
        assert_eq!(
            status(401).to_string(),
            "Benchmark API request failed: 401 "
        );
        let refused = ApiError::Status {
            status: 400,
            status_text: "Bad Request".into(),
            body: r#"{"error":{"code":"bad_request","message":"totalTasks must be at most 1\u001b[2J"}}"#.into(),
        };
        assert_eq!(
            refused.to_string(),
            "Benchmark API request failed: 400 Bad Request: totalTasks must be at most 1\\x1b[2J (bad_request)"
        );
    }

    #[tokio::test]
    async fn an_unreachable_platform_fails_after_bounded_attempts() {
        // A port nobody listens on: bind, then drop.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let auth = Auth {
            api_base_url: format!("http://127.0.0.1:{port}/api/v1"),
            api_key: Some("k".into()),
            ..Auth::default()
        };
        let retry = Retry {
            attempts: 3,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(20),
            budget: Duration::from_secs(60),
        };
        let client = Client::new(&auth, retry).unwrap();
        let started = std::time::Instant::now();
        let error = client
            .call::<serde_json::Value>(Endpoint::Read("/me"), Method::GET, "/me", None::<&()>, None)
            .await
            .unwrap_err();
        assert!(matches!(error, ApiError::Transport(_)), "{error}");
        assert_eq!(client.unavailable(), None, "one call gave up");
        let again = client
            .call::<serde_json::Value>(Endpoint::Read("/me"), Method::GET, "/me", None::<&()>, None)
            .await
            .unwrap_err();
        assert!(matches!(again, ApiError::Transport(_)), "{again}");
        let reason = client.unavailable().expect("two calls in a row gave up");
        assert!(
            reason.starts_with("2 calls in a row got no answer"),
            "{reason}"
        );
        let open = client
            .call::<serde_json::Value>(Endpoint::Read("/me"), Method::GET, "/me", None::<&()>, None)
            .await
            .unwrap_err();
        assert_eq!(open, ApiError::Unavailable(reason));
        assert!(open.is_retryable(), "deliver later");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    /// A client of a scripted platform, retrying quickly.
    fn scripted(
        endpoint: Endpoint,
        answers: impl IntoIterator<Item = Scripted>,
    ) -> Client<Arc<FakePlatform>> {
        let platform = Arc::new(FakePlatform::default());
        platform.script(endpoint, answers);
        let retry = Retry {
            attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
            budget: Duration::from_secs(60),
        };
        Client::over(platform, "http://platform.test/api/v1/", retry)
    }

    async fn read_run(
        client: &Client<Arc<FakePlatform>>,
    ) -> Result<crate::api::types::RunAnswer, ApiError> {
        client.get(crate::api::paths::RUN, &["s", "r 1"], &[]).await
    }

    #[tokio::test]
    async fn an_answer_that_does_not_fit_names_the_endpoint_and_the_field() {
        let body = |text: &str| [Scripted::Body(text.into())];
        let client = scripted(
            Endpoint::Read(crate::api::paths::RUN),
            body(r#"{"run":{"id":5}}"#),
        );
        assert_eq!(
            read_run(&client).await.unwrap_err().to_string(),
            "The platform's answer to GET /benchmarks/{slug}/runs/{run_id} does not fit the API at `run.id`: invalid type: integer `5`, expected a string at line 1 column 14"
        );
        let client = scripted(
            Endpoint::ClaimWorker,
            body(r#"{"assignment":{"taskRange":{"start":"0"}}}"#),
        );
        let claim = client
            .claim_worker("s", "r", "a", &Default::default(), "k")
            .await
            .unwrap_err();
        assert!(
            claim.to_string().starts_with(
                "The platform's answer to claimWorker does not fit the API at `assignment.taskRange.start`: invalid type: string \"0\", expected u64"
            ),
            "{claim}"
        );
        assert!(!claim.is_retryable());
        let client = scripted(
            Endpoint::Read(crate::api::paths::RUN),
            body(r#"{"run":{"id":"r"}} trailing"#),
        );
        assert!(read_run(&client)
            .await
            .unwrap_err()
            .to_string()
            .starts_with("The platform answered GET /benchmarks/{slug}/runs/{run_id} with invalid JSON: trailing characters"));
    }

    #[tokio::test]
    async fn unknown_fields_are_ignored_and_an_empty_answer_is_an_empty_object() {
        let client = scripted(
            Endpoint::Read(crate::api::paths::RUN),
            [Scripted::Body(
                r#"{"run":{"id":"r","shard":{"region":"eu"}},"links":[]}"#.into(),
            )],
        );
        assert_eq!(read_run(&client).await.unwrap().run.id, "r");
        let client = scripted(Endpoint::Complete, [Scripted::Body(" ".into())]);
        let target = ("s", "r", "w");
        let body = crate::api::types::FinishWorker {
            attempt_id: "a".into(),
            error_code: None,
            error_message: None,
        };
        let finished = client
            .finish_worker(target, crate::api::types::WorkerOutcome::Complete, &body)
            .await;
        assert_eq!(finished, Ok(()));
        let sent = client.platform.received(Endpoint::Complete);
        assert_eq!(
            sent[0].url,
            "http://platform.test/api/v1/benchmarks/s/runs/r/workers/w/complete"
        );
    }

    #[tokio::test]
    async fn calls_that_run_out_of_attempts_twice_in_a_row_open_the_breaker() {
        let client = scripted(Endpoint::Read("/me"), vec![Scripted::Status(502); 6]);
        let me = || client.get::<serde_json::Value>("/me", &[], &[]);
        assert!(matches!(
            me().await,
            Err(ApiError::Status { status: 502, .. })
        ));
        assert_eq!(client.unavailable(), None, "one call gave up");
        assert!(me().await.is_err());
        assert_eq!(
            client.unavailable().as_deref(),
            Some("2 calls in a row got no answer (last: Benchmark API request failed: 502 Bad Gateway: scripted 502 (scripted))")
        );
        assert!(matches!(me().await, Err(ApiError::Unavailable(_))));
        assert_eq!(
            client.platform.received(Endpoint::Read("/me")).len(),
            6,
            "3 attempts each, none once open"
        );
    }

    #[tokio::test]
    async fn heartbeats_get_one_attempt_and_a_refused_upload_is_not_retried() {
        let client = scripted(Endpoint::Heartbeat, [Scripted::Status(503)]);
        let heartbeat = crate::api::types::Heartbeat {
            attempt_id: "a".into(),
            progress: Default::default(),
        };
        assert!(client.heartbeat(("s", "r", "w"), &heartbeat).await.is_err());
        assert_eq!(client.platform.received(Endpoint::Heartbeat).len(), 1);
        let client = scripted(Endpoint::UploadArtifact, [Scripted::Status(403)]);
        let error = client
            .upload(
                "https://uploads.test/x",
                "text/plain",
                Bytes::from_static(b"x"),
            )
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "Benchmark artifact upload failed with 403"
        );
        assert_eq!(client.platform.received(Endpoint::UploadArtifact).len(), 1);
    }
}
