//! End-to-end: `bench serve` against hostile clients — huge bodies without a key are
//! refused before they are read, slow connections neither pile up nor stop others — and
//! under load: a 200 000-record run is read page by page while writes go on.

use crate::support::platform::Server;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The size of each hostile body.
const HUGE: usize = 250_000_000;

/// Sends `head` announcing a [`HUGE`] body, then the body for as long as the server takes
/// it; returns the status it answered.
fn send_huge(port: u16, head: &str) -> u16 {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(stream, "{head}Content-Length: {HUGE}\r\n\r\n").unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let mut sent = 0;
    while sent < HUGE && stream.write_all(&chunk).is_ok() {
        sent += chunk.len();
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    text.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[test]
fn huge_bodies_without_a_key_or_a_valid_link_are_refused_unread() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let port = server.port;
    let heads = [
        "POST /api/v1/benchmarks/b/runs HTTP/1.1\r\nHost: x\r\n".to_owned(),
        "PUT /api/v1/benchmarks/b HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bp_wrong\r\n"
            .to_owned(),
        "PUT /api/v1/uploads/art_1.99999999999.00 HTTP/1.1\r\nHost: x\r\n".to_owned(),
        format!(
            "POST /api/v1/benchmarks/b/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n",
            server.key
        ),
    ];
    let senders: Vec<_> = heads
        .into_iter()
        .map(|head| std::thread::spawn(move || send_huge(port, &head)))
        .collect();
    let statuses: Vec<u16> = senders.into_iter().map(|t| t.join().unwrap()).collect();
    // No key, a wrong key, a forged link: refused; a valid key: over the JSON limit.
    assert_eq!(statuses, [401, 401, 404, 413]);
    let peak = server.peak_rss();
    assert!(peak < 64 << 20, "bench serve peaked at {} MiB", peak >> 20);
}

#[test]
fn slow_connections_do_not_stop_a_normal_client_and_are_cut_off() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    // 300 connections that send half a request head and then stall.
    let slow: Vec<TcpStream> = (0..300)
        .map(|_| {
            let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            stream
                .write_all(b"GET /api/v1/me HTTP/1.1\r\nHost: x\r\n")
                .unwrap();
            stream
        })
        .collect();
    let started = Instant::now();
    let (status, me) = server.get("/me");
    assert_eq!(status, 200, "{me}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a normal request took {:?}",
        started.elapsed()
    );
    // Each slow connection is closed once its head is overdue (10 s).
    for mut stream in slow {
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
    }
    let cut_after = started.elapsed();
    assert!(
        cut_after < Duration::from_secs(25),
        "slow connections were open for {cut_after:?}"
    );
}

/// One request with the server's key (one connection; no body for `Value::Null`): status
/// and JSON answer.
fn call(server: &Server, method: &str, path: &str, body: &Value) -> (u16, Value) {
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let body = match body {
        Value::Null => String::new(),
        body => body.to_string(),
    };
    write!(
        stream,
        "{method} /api/v1{path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.key,
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// A run of one participant with a claimed worker: `(run id, worker id, attempt id)`.
fn claimed_run(server: &Server, slug: &str, tasks: u64) -> (String, String, String) {
    let ok = |(status, body): (u16, Value)| {
        assert_eq!(status, 200, "{body}");
        body
    };
    ok(call(
        server,
        "PUT",
        &format!("/benchmarks/{slug}"),
        &json!({"name": slug}),
    ));
    let run = ok(call(
        server,
        "POST",
        &format!("/benchmarks/{slug}/runs"),
        &json!({"totalTasks": tasks, "workerCount": 1, "participants": ["p"]}),
    ));
    let run_id = run["run"]["id"].as_str().unwrap().to_owned();
    let workers = format!("/benchmarks/{slug}/runs/{run_id}/participants/p/workers");
    ok(call(server, "POST", &workers, &json!({})));
    let claim = ok(call(
        server,
        "POST",
        &format!("{workers}/claim"),
        &json!({}),
    ));
    let assignment = &claim["assignment"];
    (
        run_id,
        assignment["workerId"].as_str().unwrap().to_owned(),
        assignment["attemptId"].as_str().unwrap().to_owned(),
    )
}

/// Sends batch `sequence` of `records` task records starting at `first`.
fn send_batch(
    server: &Server,
    slug: &str,
    (run_id, worker_id, attempt_id): &(String, String, String),
    sequence: u64,
    first: u64,
    records: u64,
) {
    let records: Vec<Value> = (first..first + records)
        .map(|index| json!({"taskIndex": index, "status": "success", "durationMs": 1.5, "phase": "warm"}))
        .collect();
    let (status, body) = call(
        server,
        "POST",
        &format!("/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/events"),
        &json!({"type": "task_results", "attemptId": attempt_id, "sequenceNumber": sequence,
            "isFinal": false, "records": records}),
    );
    assert_eq!(status, 200, "{body}");
}

#[test]
fn a_200_000_record_run_is_read_in_pages_while_writes_go_on() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let big = claimed_run(&server, "big", 200_000);
    for batch in 0..400 {
        send_batch(&server, "big", &big, batch, batch * 500, 500);
    }
    let (run_id, _, _) = &big;
    let other = claimed_run(&server, "other", 1_000_000);
    std::thread::scope(|scope| {
        let reader = scope.spawn(|| {
            let mut cursor = String::new();
            let mut read = 0;
            loop {
                let (status, page) = call(
                    &server,
                    "GET",
                    &format!(
                        "/benchmarks/big/runs/{run_id}/iterations?type=tasks&limit=5000{cursor}"
                    ),
                    &Value::Null,
                );
                assert_eq!(status, 200, "{page}");
                read += page["items"].as_array().unwrap().len();
                match page["nextCursor"].as_str() {
                    Some(next) => cursor = format!("&cursor={next}"),
                    None => return read,
                }
            }
        });
        // Writes while the pages are read: none waits for the reads.
        let mut sequence = 0;
        while !reader.is_finished() {
            let started = Instant::now();
            send_batch(&server, "other", &other, sequence, sequence * 10, 10);
            let took = started.elapsed();
            assert!(took < Duration::from_secs(2), "a write took {took:?}");
            sequence += 1;
        }
        assert_eq!(reader.join().unwrap(), 200_000);
    });
    let peak = server.peak_rss();
    assert!(peak < 96 << 20, "bench serve peaked at {} MiB", peak >> 20);
}
