//! The platform HTTP transport (spec §6.1): bearer auth, org headers, JSON bodies, upstream
//! error messages — plus what upstream lacks: bounded retries with exponential backoff and
//! jitter for failures worth retrying (no answer, 408, 429, 5xx), short connect timeouts,
//! and a circuit breaker (`breaker.rs`) that bounds the failures of all calls together. The
//! typed calls of each endpoint are in `endpoints.rs`.

mod breaker;
mod endpoints;

pub use endpoints::Assignment;
pub use endpoints::CreatedRun;
pub(crate) use endpoints::WorkerTarget;

use super::auth::Auth;
use bench_model::text::escape_control;
use breaker::Breaker;
use bytes::Bytes;
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

/// Longest wait for one response.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest wait for a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The default [`Retry::budget`].
const RETRY_BUDGET: Duration = Duration::from_secs(60);

/// A platform API client bound to one `apiBaseUrl` and credential.
pub(crate) struct Client {
    http: reqwest::Client,
    api_base_url: String,
    bearer: String,
    org_slug: Option<String>,
    org_id: Option<String>,
    retry: Retry,
    breaker: Breaker,
}

const NO_TOKEN: &str = "A platform API key or OAuth token is required. Set BENCHMARKS_PLATFORM_API_KEY or BENCHMARKS_PLATFORM_TOKEN in your environment, or pass apiKey/token to createBenchmarkClient. Create an API key at https://platform.computesdk.com in your organization settings (Settings → API keys).";

impl Client {
    /// A client for resolved auth, retrying as `retry` says.
    pub(crate) fn new(auth: &Auth, retry: Retry) -> Result<Self, ApiError> {
        let bearer = auth
            .bearer()
            .ok_or_else(|| ApiError::Protocol(NO_TOKEN.into()))?
            .to_owned();
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!("bench/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| ApiError::Transport(error.to_string()))?;
        Ok(Self {
            http,
            api_base_url: auth.api_base_url.trim_end_matches('/').to_owned(),
            bearer,
            org_slug: auth.org_slug.clone(),
            org_id: auth.org_id.clone(),
            retry,
            breaker: Breaker::new(retry.budget),
        })
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
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
        idempotency_key: Option<&str>,
    ) -> Result<A, ApiError> {
        let body = encode(body)?;
        self.send(method, path, body, idempotency_key, self.retry)
            .await
            .map(|(answer, _)| answer)
    }

    /// [`Client::call`] with a body already encoded as JSON and no idempotency key; the
    /// answer and how many attempts it took (after more than one, an earlier attempt may
    /// have reached the platform).
    pub(crate) async fn call_encoded<A: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Bytes,
    ) -> Result<(A, u32), ApiError> {
        self.send(method, path, Some(body), None, self.retry).await
    }

    /// [`Client::call`] with a single attempt (heartbeats: the next one follows soon).
    pub(crate) async fn call_once<A: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
    ) -> Result<A, ApiError> {
        let body = encode(body)?;
        self.send(method, path, body, None, Retry::ONCE)
            .await
            .map(|(answer, _)| answer)
    }

    async fn send<A: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<Bytes>,
        idempotency_key: Option<&str>,
        retry: Retry,
    ) -> Result<(A, u32), ApiError> {
        let url = format!("{}{path}", self.api_base_url);
        let (text, attempts) = self
            .with_retries(retry, || async {
                let mut request = self
                    .http
                    .request(method.clone(), &url)
                    .header("Content-Type", "application/json")
                    .bearer_auth(&self.bearer);
                if let Some(slug) = &self.org_slug {
                    request = request.header("X-Org-Slug", slug);
                } else if let Some(id) = &self.org_id {
                    request = request.header("X-Organization-Id", id);
                }
                if let Some(key) = idempotency_key {
                    request = request.header("Idempotency-Key", key);
                }
                if let Some(body) = &body {
                    request = request.body(body.clone());
                }
                let response = request.send().await.map_err(transport)?;
                let status = response.status();
                let text = response.text().await.map_err(transport)?;
                if !status.is_success() {
                    return Err(status_error(status, text));
                }
                Ok(text)
            })
            .await?;
        let text = if text.trim().is_empty() { "{}" } else { &text };
        let answer = serde_json::from_str(text).map_err(|error| {
            ApiError::Protocol(format!("The platform answered with invalid JSON: {error}"))
        })?;
        Ok((answer, attempts))
    }

    /// PUTs raw bytes to a presigned upload URL (no auth header).
    pub(crate) async fn upload(
        &self,
        url: &str,
        content_type: &str,
        body: Bytes,
    ) -> Result<(), ApiError> {
        self.with_retries(self.retry, || async {
            let response = self
                .http
                .put(url)
                .header("Content-Type", content_type)
                .body(body.clone())
                .send()
                .await
                .map_err(transport)?;
            if !response.status().is_success() {
                return Err(ApiError::Upload(response.status().as_u16()));
            }
            Ok(())
        })
        .await
        .map(drop)
    }

    /// Runs `attempt` until it succeeds, fails for good or runs out of attempts; the value
    /// and how many attempts it took.
    async fn with_retries<T, F, Fut>(&self, retry: Retry, attempt: F) -> Result<(T, u32), ApiError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<T, ApiError>>,
    {
        let attempts = retry.attempts.max(1);
        let mut n = 1;
        loop {
            if let Some(reason) = self.breaker.open_reason() {
                return Err(ApiError::Unavailable(reason));
            }
            let started = Instant::now();
            let error = match attempt().await {
                Ok(value) => {
                    self.breaker.answered();
                    return Ok((value, n));
                }
                Err(error) => error,
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
            let delay = retry.delay(n);
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

fn transport(error: reqwest::Error) -> ApiError {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message = cause.to_string();
        source = cause.source();
    }
    ApiError::Transport(message)
}

fn status_error(status: StatusCode, body: String) -> ApiError {
    ApiError::Status {
        status: status.as_u16(),
        status_text: status.canonical_reason().unwrap_or("").to_owned(),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            .call::<serde_json::Value>(Method::GET, "/me", None::<&()>, None)
            .await
            .unwrap_err();
        assert!(matches!(error, ApiError::Transport(_)), "{error}");
        assert_eq!(client.unavailable(), None, "one call gave up");
        let again = client
            .call::<serde_json::Value>(Method::GET, "/me", None::<&()>, None)
            .await
            .unwrap_err();
        assert!(matches!(again, ApiError::Transport(_)), "{again}");
        let reason = client.unavailable().expect("two calls in a row gave up");
        assert!(
            reason.starts_with("2 calls in a row got no answer"),
            "{reason}"
        );
        let open = client
            .call::<serde_json::Value>(Method::GET, "/me", None::<&()>, None)
            .await
            .unwrap_err();
        assert_eq!(open, ApiError::Unavailable(reason));
        assert!(open.is_retryable(), "deliver later");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
