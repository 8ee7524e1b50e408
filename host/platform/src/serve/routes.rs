//! HTTP side of the self-hosted platform: `/api/v1/...` paths are matched segment by
//! segment onto [`Store`] operations, behind bearer API-key auth. A POST carrying an
//! `Idempotency-Key` header is answered once and replayed afterwards, so a client that
//! retries a create whose answer it lost gets the same run, worker or artifact.

use super::db::{Refusal, Store};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Shared state of the server.
pub struct App {
    /// The database.
    pub store: Mutex<Store>,
}

/// The one handler: authenticates, replays idempotent answers, dispatches.
pub async fn handle(
    State(app): State<Arc<App>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(rest) = uri.path().strip_prefix("/api/v1/") else {
        return refusal(Refusal::new(404, "not_found", "Not found."));
    };
    let segments: Vec<String> = rest.split('/').map(percent_decode).collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let query = parse_query(uri.query().unwrap_or(""));
    let origin = format!(
        "http://{}/api/v1",
        headers
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .unwrap_or("127.0.0.1")
    );
    let Ok(store) = app.store.lock() else {
        return refusal(Refusal::new(
            500,
            "internal",
            "The database lock is poisoned.",
        ));
    };
    // Presigned transfers carry their own secret token instead of a key.
    match (&method, segments.as_slice()) {
        (&Method::PUT, ["uploads", token]) => {
            return match store.upload(token, &body) {
                Ok(()) => json_response(200, &json!({ "ok": true })),
                Err(error) => refusal(error),
            };
        }
        (&Method::GET, ["downloads", token]) => {
            return match store.download(token) {
                Ok((content_type, bytes)) => {
                    ([(header::CONTENT_TYPE, content_type)], bytes).into_response()
                }
                Err(error) => refusal(error),
            };
        }
        _ => {}
    }
    let key = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let prefix = match key.map(|key| store.check_key(key)) {
        Some(Ok(Some(prefix))) => prefix,
        Some(Err(error)) => return refusal(error),
        _ => {
            return refusal(Refusal::new(
                401,
                "unauthorized",
                "Invalid or missing API key. Create one with `bench serve --create-key`.",
            ))
        }
    };
    let body: Value = if body.is_empty() {
        Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(value) => value,
            Err(error) => return refusal(Refusal::bad_request(format!("invalid JSON: {error}"))),
        }
    };
    let idempotency = match (&method, headers.get("idempotency-key")) {
        (&Method::POST, Some(value)) => value
            .to_str()
            .ok()
            .map(|value| format!("{prefix} {} {value}", uri.path())),
        _ => None,
    };
    if let Some(key) = &idempotency {
        match store.replay(key) {
            Ok(Some((status, answer))) => return json_response(status, &answer),
            Ok(None) => {}
            Err(error) => return refusal(error),
        }
    }
    let request = Request {
        method: &method,
        segments: &segments,
        query: &query,
        body: &body,
        origin: &origin,
        key_prefix: &prefix,
    };
    match dispatch(&store, &request) {
        Ok(answer) => {
            if let Some(key) = &idempotency {
                if let Err(error) = store.remember(key, 200, &answer) {
                    return refusal(error);
                }
            }
            json_response(200, &answer)
        }
        Err(error) => refusal(error),
    }
}

struct Request<'a> {
    method: &'a Method,
    segments: &'a [&'a str],
    query: &'a [(String, String)],
    body: &'a Value,
    origin: &'a str,
    key_prefix: &'a str,
}

impl Request<'_> {
    fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    fn number(&self, name: &str, default: i64) -> Result<i64, Refusal> {
        match self.query(name) {
            None => Ok(default),
            Some(text) => text
                .parse()
                .map_err(|_| Refusal::bad_request(format!("{name} must be a number"))),
        }
    }
}

fn dispatch(store: &Store, request: &Request<'_>) -> Result<Value, Refusal> {
    use Method as M;
    let body = request.body;
    let limit = request.number("limit", 50)?;
    let offset = request.number("offset", 0)?;
    match (request.method.clone(), request.segments) {
        (M::GET, ["me"]) => Ok(store.me(request.key_prefix)),
        (M::GET, ["benchmarks"]) => store.list_benchmarks(limit, offset),
        (M::GET, ["benchmarks", slug]) => store.get_benchmark(slug),
        (M::PUT, ["benchmarks", slug]) => store.upsert_benchmark(slug, body),
        (M::GET, ["benchmarks", slug, "results"]) => store.benchmark_results(slug, limit, offset),
        (M::GET, ["benchmarks", slug, "runs"]) => store.list_runs(slug, limit, offset),
        (M::POST, ["benchmarks", slug, "runs"]) => store.create_run(slug, body),
        (M::GET, ["benchmarks", slug, "runs", run]) => store.get_run(slug, run),
        (M::GET, ["benchmarks", slug, "runs", run, "results"]) => store.run_results(slug, run),
        (M::POST, ["benchmarks", slug, "runs", run, "summary"]) => {
            store.submit_summary(slug, run, body)
        }
        (M::GET, ["benchmarks", slug, "runs", run, "iterations"]) => {
            match request.query("type").unwrap_or("tasks") {
                "tasks" => store.task_records(slug, run, request.query("participant")),
                other => Err(Refusal::bad_request(format!(
                    "iterations of type '{other}' are not kept by this platform"
                ))),
            }
        }
        (M::GET, ["benchmarks", slug, "runs", run, "participants"]) => {
            store.list_participants(slug, run)
        }
        (M::PUT, ["benchmarks", slug, "runs", run, "participants", name]) => {
            store.upsert_participant(slug, run, name, body)
        }
        (M::GET, ["benchmarks", slug, "runs", run, "participants", name, "workers"]) => {
            store.list_workers(slug, run, name)
        }
        (M::POST, ["benchmarks", slug, "runs", run, "participants", name, "workers"]) => {
            store.plan_workers(slug, run, name, body)
        }
        (M::POST, ["benchmarks", slug, "runs", run, "participants", name, "workers", "claim"]) => {
            store.claim_worker(slug, run, name, body)
        }
        (M::GET, ["benchmarks", slug, "runs", run, "artifacts"]) => {
            store.list_artifacts(slug, run, None)
        }
        (M::GET, ["benchmarks", slug, "runs", run, "workers", worker, "artifacts"]) => {
            store.list_artifacts(slug, run, Some(worker))
        }
        (M::POST, ["benchmarks", slug, "runs", run, "workers", worker, "artifacts"]) => {
            let (artifact, token) = store.create_artifact(slug, run, worker, body)?;
            let upload_url = format!("{}/uploads/{token}", request.origin);
            Ok(
                json!({ "artifactId": artifact["id"], "uploadUrl": upload_url, "artifact": artifact }),
            )
        }
        (M::GET, ["benchmarks", slug, "runs", run, "workers", _, "artifacts", artifact]) => {
            let (artifact, token) = store.get_artifact(slug, run, artifact)?;
            let download_url = format!("{}/downloads/{token}", request.origin);
            Ok(json!({ "artifact": artifact, "downloadUrl": download_url }))
        }
        (M::POST, ["benchmarks", slug, "runs", run, "workers", worker, "heartbeat"]) => {
            store.heartbeat(slug, run, worker, body)
        }
        (M::POST, ["benchmarks", slug, "runs", run, "workers", worker, "events"]) => {
            store.task_results(slug, run, worker, body)
        }
        (M::POST, ["benchmarks", slug, "runs", run, "workers", worker, outcome])
            if ["complete", "fail", "release"].contains(outcome) =>
        {
            store.finish_worker(slug, run, worker, outcome, body)
        }
        _ => Err(Refusal::new(404, "not_found", "Not found.")),
    }
}

fn json_response(status: u16, body: &Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn refusal(refusal: Refusal) -> Response {
    let body = json!({ "error": { "code": refusal.code, "message": refusal.message } });
    json_response(refusal.status, &body)
}

fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (
                percent_decode(key),
                percent_decode(&value.replace('+', " ")),
            )
        })
        .collect()
}

/// Decodes `%XX` escapes (invalid escapes are kept as they are).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| text.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_queries_are_decoded() {
        assert_eq!(percent_decode("a%20b%2Fc"), "a b/c");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%C3%A9"), "é");
        assert_eq!(
            parse_query("type=tasks&participant=a%20b&x"),
            [
                ("type".to_owned(), "tasks".to_owned()),
                ("participant".to_owned(), "a b".to_owned()),
                ("x".to_owned(), String::new()),
            ]
        );
    }
}
