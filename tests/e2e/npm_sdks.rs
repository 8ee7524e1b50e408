//! End-to-end: popular npm SDKs of HTTP APIs, imported unchanged by one JavaScript task
//! (tests/guests-js/sdks, its packages pinned in the repository's package-lock.json), each
//! make one real call, the AWS SDK's to moto's S3-compatible server and the others to a fake
//! of their provider's API that this test serves on a loopback port, and their answers come
//! back parsed. Each participant of the task is one SDK; they share one built component.
//! Pointed at a closed port, an SDK's call fails with its own error: the instance does not
//! trap (StarlingMonkey trapped when the host refused the writes of a request body whose
//! connection had failed).

use crate::support::{
    bench::run_bench,
    fake_api::{FakeApi, Request, Response},
    guests::built_project,
    moto::MotoServer,
    results::{log_lines, records},
    root,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use tempfile::TempDir;

const PROJECT: &str = "tests/guests-js/sdks";

/// The fake provider APIs, one path prefix each; Azure blobs are kept between requests.
fn provider_api(blobs: &Mutex<HashMap<String, Vec<u8>>>, request: &Request) -> Response {
    let path = request.path();
    let chat = |provider: &str| {
        Response::json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{ "index": 0, "finish_reason": "stop",
                "message": { "role": "assistant", "content": format!("hi from {provider}") } }],
            "usage": { "prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3 },
        }))
    };
    match (request.method.as_str(), path) {
        ("POST", "/openai/v1/chat/completions") => chat("openai"),
        ("POST", "/groq/openai/v1/chat/completions") => chat("groq"),
        ("POST", "/mistral/v1/chat/completions") => chat("mistral"),
        ("POST", "/anthropic/v1/messages") => Response::json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{ "type": "text", "text": "hi from anthropic" }],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": { "input_tokens": 1, "output_tokens": 2 },
        })),
        ("POST", "/v1/customers") => Response::json(json!({
            "id": "cus_123", "object": "customer",
            "email": form_value(&request.body, "email"),
        }))
        .header("request-id", "req_1"),
        ("POST", "/browserbase/v1/sessions") => Response::json(json!({
            "id": "sess_1", "status": "RUNNING", "projectId": request.json()["projectId"],
        })),
        ("POST", "/runloop/v1/devboxes") => Response::json(json!({
            "id": "dbx_1", "status": "provisioning", "name": request.json()["name"],
        })),
        ("GET", "/github/repos/bench/bench") => {
            Response::json(json!({ "full_name": "bench/bench", "stargazers_count": 7 }))
        }
        ("POST", "/axios/echo") => Response::json(json!({
            "body": request.json(), "client": request.header("x-client"),
        })),
        ("PUT", blob) if blob.starts_with("/azure/") => {
            blobs
                .lock()
                .unwrap()
                .insert(blob.to_owned(), request.body.clone());
            azure_headers(Response::with_status(201, "text/plain", ""))
        }
        ("GET" | "HEAD", blob) if blob.starts_with("/azure/") => {
            let body = blobs.lock().unwrap().get(blob).cloned().unwrap_or_default();
            azure_headers(Response::with_status(200, "text/plain", body))
                .header("x-ms-blob-type", "BlockBlob")
        }
        _ => Response::with_status(
            404,
            "application/json",
            format!("{{\"error\":\"no route {path}\"}}"),
        ),
    }
}

fn azure_headers(response: Response) -> Response {
    response
        .header("etag", "\"0x1\"")
        .header("last-modified", "Mon, 01 Dec 2025 00:00:00 GMT")
        .header("x-ms-request-id", "r1")
        .header("x-ms-version", "2025-01-05")
}

/// The value of `name` in a form-encoded body.
fn form_value(body: &[u8], name: &str) -> Option<String> {
    url_form(body)
        .find(|(key, _)| key == name)
        .map(|(_, value)| value)
}

fn url_form(body: &[u8]) -> impl Iterator<Item = (String, String)> + '_ {
    std::str::from_utf8(body)
        .unwrap_or("")
        .split('&')
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            let decode = |text: &str| {
                text.replace("%40", "@")
                    .replace("%5B", "[")
                    .replace("%5D", "]")
            };
            Some((decode(key), decode(value)))
        })
}

#[test]
fn npm_sdks_make_one_real_call_each_and_read_the_answer() {
    let blobs = Mutex::new(HashMap::new());
    let api = FakeApi::start(move |request| provider_api(&blobs, request));
    let s3 = MotoServer::start();
    built_project(PROJECT);
    let dir = TempDir::new().unwrap();
    let project = root().join(PROJECT);
    let run = run_bench(
        dir.path(),
        &[
            "run",
            project.to_str().unwrap(),
            "--out",
            "results",
            "--api",
            &api.origin(),
            "--s3",
            &s3.url(),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let results = dir.path().join("results");
    let answers: HashMap<String, Value> = records(&results)
        .into_iter()
        .map(|record| {
            let participant = record["participant"].as_str().unwrap();
            let log = log_lines(&results, participant);
            assert_eq!(record["status"], "success", "{record} {log:?}");
            (participant.to_owned(), record["data"]["answer"].clone())
        })
        .collect();
    let expected = [
        (
            "aws_s3",
            json!({ "same": true, "length": 262147, "contentType": "application/octet-stream", "keys": ["a/b.bin"] }),
        ),
        ("openai", json!({ "text": "hi from openai" })),
        ("anthropic", json!({ "text": "hi from anthropic" })),
        ("groq", json!({ "text": "hi from groq" })),
        ("mistral", json!({ "text": "hi from mistral" })),
        (
            "stripe",
            json!({ "id": "cus_123", "email": "ada@example.com" }),
        ),
        (
            "browserbase",
            json!({ "id": "sess_1", "status": "RUNNING" }),
        ),
        (
            "runloop",
            json!({ "id": "dbx_1", "status": "provisioning" }),
        ),
        ("azure_blob", json!({ "text": "hello azure" })),
        ("octokit", json!({ "fullName": "bench/bench", "stars": 7 })),
        (
            "axios_client",
            json!({ "status": 200, "echoed": { "body": { "ping": 1 }, "client": "axios" } }),
        ),
    ];
    for (sdk, answer) in &expected {
        assert_eq!(answers.get(*sdk), Some(answer), "{sdk}: {answers:?}");
    }
    assert_eq!(answers.len(), expected.len(), "{answers:?}");
    let requests = api.requests();
    let stripe = requests
        .iter()
        .find(|request| request.path() == "/v1/customers")
        .unwrap();
    assert_eq!(
        form_value(&stripe.body, "metadata[plan]").as_deref(),
        Some("pro")
    );
    assert_eq!(stripe.header("authorization"), Some("Bearer sk_test_123"));
    let openai = requests
        .iter()
        .find(|request| request.path() == "/openai/v1/chat/completions")
        .unwrap();
    assert_eq!(openai.json()["messages"][0]["content"], "Say hi");
}

#[test]
fn an_sdk_pointed_at_a_closed_port_fails_its_task_with_its_own_error() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let origin = format!("http://127.0.0.1:{closed}");
    built_project(PROJECT);
    let dir = TempDir::new().unwrap();
    let project = root().join(PROJECT);
    run_bench(
        dir.path(),
        &[
            "run",
            project.to_str().unwrap(),
            "--provider",
            "openai",
            "--iterations",
            "8",
            "--out",
            "results",
            "--api",
            &origin,
            "--s3",
            &origin,
        ],
    );
    let results = dir.path().join("results");
    let records = records(&results);
    assert_eq!(records.len(), 8);
    let log = log_lines(&results, "openai");
    for record in &records {
        assert_eq!(record["status"], "error", "{record}");
        assert_ne!(record["errorCode"], "trap", "{record} {log:?}");
    }
    assert!(
        log.iter().any(|line| line.contains("Connection error.")),
        "{log:?}"
    );
}
