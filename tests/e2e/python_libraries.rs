//! End-to-end: the Python libraries people use work in the sandbox, over wasi:http, with
//! no import of the SDK's adapters in the task (`tests/guests-python/libraries`, one
//! component for every case): `requests`, `urllib3`, `httpx` (sync and async) against a
//! local server, `boto3` against moto's S3 server (its downloads' CRC32 checks answered
//! from the host's reading of the body); what the sandbox refuses (a denied host,
//! a socket, a process, a file outside the grants) is an exception the task catches, with
//! bench's reason in its message; many requests in one instance leave no handle behind.

use crate::guest_http::run_task;
use crate::support::{
    http_server::serve,
    moto::MotoServer,
    results::{step, step_names},
};
use serde_json::{json, Value};

const PROJECT: &str = "tests/guests-python/libraries";

/// The record of one task of `case` against `url`.
fn run_case(case: &str, url: &str, args: &[&str]) -> Value {
    let (run, records) = run_task(PROJECT, url, &[&["--case", case], args].concat());
    let record = records.into_iter().next().expect("one record");
    assert_eq!(record["status"], "success", "{record}\n{}", run.stderr);
    record
}

#[test]
fn requests_gets_and_posts_and_urllib3_streams() {
    let url = format!("http://127.0.0.1:{}/echo", serve(3));
    let record = run_case("requests", &url, &[]);
    assert_eq!(
        record["data"],
        json!({"text": "hello", "server": "test", "echoed": 100_000})
    );
    assert_eq!(step_names(&record), ["get", "post"]);
    assert_eq!(step(&record, "get")["data"]["status"], 200);
    let record = run_case("urllib3", &url, &[]);
    assert_eq!(
        record["data"],
        json!({"status": 200, "chunks": 3, "text": "hello"})
    );
}

#[test]
fn httpx_sends_from_a_client_and_from_an_async_client() {
    let url = format!("http://127.0.0.1:{}/", serve(3));
    let record = run_case("httpx", &url, &[]);
    assert_eq!(
        record["data"],
        json!({"sync": "hello", "server": "test", "async": "hello", "echoed": 5000})
    );
}

#[test]
fn boto3_creates_a_bucket_and_puts_and_gets_an_object_on_a_local_s3_server() {
    let moto = MotoServer::start();
    let record = run_case("boto3", &moto.url(), &[]);
    assert_eq!(
        record["data"],
        json!({"same": true, "bytes": 1_048_576, "keys": ["one"]})
    );
    assert_eq!(step_names(&record), ["create", "put", "get"]);
}

#[test]
fn boto3_checks_the_crc32_of_its_downloads_without_handing_them_back_to_the_host() {
    // 48 downloads of 4 MiB: handed back for botocore's CRC32 checks, their copies (which
    // the sandbox's Python never frees) would take 192 MiB.
    let moto = MotoServer::start();
    let record = run_case(
        "boto3-downloads",
        &moto.url(),
        &["--requests", "48", "--max-memory", "160MiB"],
    );
    assert_eq!(
        record["data"],
        json!({"gets": 48, "same": 48, "checked": 48})
    );
}

#[test]
fn what_the_sandbox_refuses_is_an_exception_the_task_catches() {
    let cases = [
        (
            "denied",
            "ConnectionError",
            "bench denied the request to http://127.0.0.2:9: it is not allowed by the \
             benchmark config's allowedHosts or --allow-host",
        ),
        (
            "httpx-denied",
            "ConnectError",
            "bench denied the request to http://127.0.0.2:9",
        ),
        (
            "socket",
            "PermissionError",
            "bench: the sandbox has no sockets",
        ),
        (
            "subprocess",
            "PermissionError",
            "bench: a task cannot start processes",
        ),
        (
            "file",
            "PermissionError",
            "bench: /etc/passwd is outside the sandbox: no directory is granted to the task \
             (grant one with --allow-dir",
        ),
    ];
    for (case, caught, reason) in cases {
        let record = run_case(case, "http://127.0.0.1:9/", &[]);
        assert_eq!(record["data"]["caught"], caught, "{case}: {record}");
        let message = record["data"]["message"].as_str().unwrap();
        assert!(message.contains(reason), "{case}: {message}");
    }
}

#[test]
fn a_thousand_requests_in_one_instance_leave_no_handle_or_object_behind() {
    let requests = 1000;
    let url = format!("http://127.0.0.1:{}/", serve(requests));
    let record = run_case("soak", &url, &["--requests", &requests.to_string()]);
    let data = &record["data"];
    assert_eq!(data["requests"], requests);
    assert_eq!(
        data["late"]["handle"], data["early"]["handle"],
        "a new resource's handle grew: {data}"
    );
    let objects = |mark: &str| data[mark]["objects"].as_i64().unwrap();
    assert!(
        objects("late") - objects("early") < 500,
        "900 requests left objects behind: {data}"
    );
}
