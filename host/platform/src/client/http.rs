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
    use crate::client::Endpoint;
    use reqwest::Method;
    use std::io::{BufRead, BufReader, Read, Write};

    /// A server on 127.0.0.1 that answers one request with `answer`; its URL, and the
    /// request's head (lowercase) and body once it came.
    fn answering_once(answer: &'static str) -> (String, std::thread::JoinHandle<(String, String)>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut head, mut length) = (String::new(), 0);
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" {
                    break;
                }
                let line = line.to_ascii_lowercase();
                if let Some(value) = line.strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap();
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let mut stream = stream;
            stream.write_all(answer.as_bytes()).unwrap();
            (head, String::from_utf8(body).unwrap())
        });
        (url, server)
    }

    fn platform() -> HttpPlatform {
        HttpPlatform::new("bp_key".into(), Some("acme".into()), Some("org_1".into())).unwrap()
    }

    #[tokio::test]
    async fn an_api_request_carries_the_credential_org_and_key_and_its_answer_comes_back_whole() {
        let (url, server) = answering_once(
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
        );
        let request = Request {
            endpoint: Endpoint::CreateRun,
            method: Method::POST,
            url: &format!("{url}/api/v1/benchmarks/s/runs"),
            content_type: "application/json",
            idempotency_key: Some("bench:1:run"),
            body: Some(bytes::Bytes::from_static(b"{\"totalTasks\":1}")),
        };
        let answer = platform().exchange(&request).await.unwrap();
        assert_eq!(
            answer,
            Answer {
                status: 429,
                retry_after: Some(Duration::from_secs(3)),
                body: "{}".into()
            }
        );
        let (head, body) = server.join().unwrap();
        assert!(
            head.starts_with("post /api/v1/benchmarks/s/runs http/1.1\r\n"),
            "{head}"
        );
        for header in [
            "authorization: bearer bp_key",
            "x-org-slug: acme",
            "idempotency-key: bench:1:run",
            "content-type: application/json",
        ] {
            assert!(
                head.contains(&format!("{header}\r\n")),
                "{header} in {head}"
            );
        }
        assert!(!head.contains("x-organization-id"), "the slug wins: {head}");
        assert_eq!(body, r#"{"totalTasks":1}"#);
    }

    #[tokio::test]
    async fn a_presigned_upload_carries_no_credential() {
        let (url, server) =
            answering_once("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        let request = Request {
            endpoint: Endpoint::UploadArtifact,
            method: Method::PUT,
            url: &format!("{url}/uploads/t1"),
            content_type: "text/plain",
            idempotency_key: None,
            body: Some(bytes::Bytes::from_static(b"log")),
        };
        let answer = platform().exchange(&request).await.unwrap();
        assert!(answer.is_success());
        let (head, body) = server.join().unwrap();
        assert!(head.contains("content-type: text/plain\r\n"), "{head}");
        assert!(
            !head.contains("authorization") && !head.contains("x-org"),
            "{head}"
        );
        assert_eq!(body, "log");
    }

    #[test]
    fn retry_after_is_read_in_seconds_only() {
        assert_eq!(retry_after("7"), Some(Duration::from_secs(7)));
        assert_eq!(retry_after(" 0 "), Some(Duration::ZERO));
        assert_eq!(retry_after("Wed, 21 Oct 2026 07:28:00 GMT"), None);
        assert_eq!(retry_after("-1"), None);
    }
}
