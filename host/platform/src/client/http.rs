//! The [`Platform`] over HTTP (spec §6.1): reqwest with short connect and answer timeouts,
//! bearer auth and the org header on every API request, none on presigned uploads.

use super::platform::{Answer, Platform, Request};
use super::ApiError;
use std::time::Duration;

/// Longest wait for one response.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest wait for a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A platform reached over HTTP with one credential.
pub(crate) struct HttpPlatform {
    http: reqwest::Client,
    bearer: String,
    org_slug: Option<String>,
    org_id: Option<String>,
}

impl HttpPlatform {
    /// A platform called with `bearer`, acting on the organization `org_slug` (else
    /// `org_id`) when one is named.
    pub(crate) fn new(
        bearer: String,
        org_slug: Option<String>,
        org_id: Option<String>,
    ) -> Result<Self, ApiError> {
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!("bench/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| ApiError::Transport(error.to_string()))?;
        Ok(Self {
            http,
            bearer,
            org_slug,
            org_id,
        })
    }
}

impl Platform for HttpPlatform {
    async fn exchange(&self, request: &Request<'_>) -> Result<Answer, ApiError> {
        let mut builder = self
            .http
            .request(request.method.clone(), request.url)
            .header("Content-Type", request.content_type);
        if request.endpoint.is_authorized() {
            builder = builder.bearer_auth(&self.bearer);
            if let Some(slug) = &self.org_slug {
                builder = builder.header("X-Org-Slug", slug);
            } else if let Some(id) = &self.org_id {
                builder = builder.header("X-Organization-Id", id);
            }
        }
        if let Some(key) = request.idempotency_key {
            builder = builder.header("Idempotency-Key", key);
        }
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        let response = builder.send().await.map_err(transport)?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(retry_after);
        let body = response.text().await.map_err(transport)?;
        Ok(Answer {
            status,
            retry_after,
            body,
        })
    }
}

/// A `Retry-After` of delay-seconds; `None` for an HTTP date or anything else.
fn retry_after(value: &str) -> Option<Duration> {
    value.trim().parse().ok().map(Duration::from_secs)
}

/// The innermost cause of a failed exchange, which names what went wrong.
fn transport(error: reqwest::Error) -> ApiError {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message = cause.to_string();
        source = cause.source();
    }
    ApiError::Transport(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_read_in_seconds_only() {
        assert_eq!(retry_after("7"), Some(Duration::from_secs(7)));
        assert_eq!(retry_after(" 0 "), Some(Duration::ZERO));
        assert_eq!(retry_after("Wed, 21 Oct 2026 07:28:00 GMT"), None);
        assert_eq!(retry_after("-1"), None);
    }
}
