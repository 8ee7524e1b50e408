//! End-to-end: a Python task's response body of a known length is read whole by the host
//! (`bench:task/bodies`) and handed over in one piece, through urllib3 (and so `requests`'
//! and boto3's whole reads) and the SDK's helper alike (`tests/guests-python/bodies`): every
//! byte arrives, as it does read in pieces; a body past the sandbox's memory stops the task
//! with `memory_limit`, and one cut short is an incomplete response. The body comes with its
//! CRC-32, which answers `zlib.crc32` of that very body (and nothing else) without handing
//! it back to the host; a response read and dropped is freed at once.

use crate::support::http_server::past_request_head;
use crate::support::{bench::run_bench, guests::built_project, results::records, root};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::net::TcpListener;
use tempfile::TempDir;

const PROJECT: &str = "tests/guests-python/bodies";

/// Answers every GET on a loopback port with `Content-Length: announced` and the bytes of
/// `body` (fewer than announced: a body cut short), one connection per request.
fn serve(body: Vec<u8>, announced: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let body = std::sync::Arc::new(body);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let body = body.clone();
            std::thread::spawn(move || {
                let mut stream = past_request_head(stream);
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {announced}\r\nConnection: close\r\n\r\n"
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            });
        }
    });
    format!("http://127.0.0.1:{port}/")
}

/// The record of one task reading `url` the way `read` names.
fn read(url: &str, read: &str, extra: &[&str]) -> Value {
    built_project(PROJECT);
    let dir = TempDir::new().unwrap();
    let project = root().join(PROJECT);
    let mut args = vec![
        "run",
        project.to_str().unwrap(),
        "--url",
        url,
        "--read",
        read,
        "--out",
        "results",
    ];
    args.extend_from_slice(extra);
    run_bench(dir.path(), &args);
    let mut all = records(&dir.path().join("results"));
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0)
}

#[test]
fn a_body_of_known_length_arrives_whole_with_every_byte() {
    let body: Vec<u8> = (0..(5 << 20) + 7).map(|i: u32| (i % 251) as u8).collect();
    let digest = hex::encode(Sha256::digest(&body));
    let url = serve(body.clone(), body.len());
    for way in ["urllib3", "raw", "pieces"] {
        let record = read(&url, way, &[]);
        assert_eq!(record["status"], "success", "{way}: {record}");
        assert_eq!(record["data"]["bytes"], body.len(), "{way}: {record}");
        assert_eq!(record["data"]["sha256"], digest.as_str(), "{way}: {record}");
    }
}

#[test]
fn a_body_past_the_memory_limit_stops_the_task_with_memory_limit() {
    let url = serve(vec![b'x'; 96 << 20], 96 << 20);
    for way in ["urllib3", "raw"] {
        let record = read(&url, way, &["--max-memory", "64MiB"]);
        assert_eq!(record["status"], "error", "{way}: {record}");
        assert_eq!(record["errorCode"], "memory_limit", "{way}: {record}");
        let message = record["data"]["errorMessage"].as_str().unwrap_or_default();
        assert!(
            message.contains("growing a body read whole by"),
            "{way}: {record}"
        );
    }
}

/// CRC-32 (zlib's) of `data` continuing from `initial`.
fn crc32(initial: u32, data: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new_with_initial(initial);
    crc.update(data);
    crc.finalize()
}

#[test]
fn the_crc32_of_a_body_read_whole_is_the_hosts_and_any_other_is_computed() {
    let body: Vec<u8> = (0..(1 << 20) + 7).map(|i: u32| (i % 251) as u8).collect();
    let url = serve(body.clone(), body.len());
    let record = read(&url, "crc32", &[]);
    assert_eq!(record["status"], "success", "{record}");
    let whole = crc32(0, &body);
    let expected = [
        ("body", whole),
        ("binascii", whole),
        ("from1", crc32(1, &body)),
        ("fromAllOnes", crc32(u32::MAX, &body)),
        ("from2To32", whole),
        ("slice", crc32(0, &body[1..])),
        ("view", whole),
        ("copy", whole),
        ("bytearray", whole),
        (
            "reversed",
            crc32(0, &body.iter().rev().copied().collect::<Vec<u8>>()),
        ),
        ("equalToAll", crc32(0, &vec![0; body.len()])),
        ("afterAnother", whole),
        ("twice", whole),
    ];
    for (case, crc) in expected {
        assert_eq!(record["data"][case], crc, "{case}: {record}");
    }
}

#[test]
fn checking_the_crc32_of_bodies_read_whole_does_not_hand_them_back_to_the_host() {
    // 32 bodies of 8 MiB: handed back for their CRC-32s, their copies (which the sandbox's
    // Python never frees) would take 256 MiB.
    let body: Vec<u8> = (0..8 << 20).map(|i: u32| (i % 251) as u8).collect();
    let url = serve(body.clone(), body.len());
    let record = read(
        &url,
        "crc32-loop",
        &["--times", "32", "--max-memory", "128MiB"],
    );
    assert_eq!(record["status"], "success", "{record}");
    assert_eq!(record["data"]["crc32"], crc32(0, &body), "{record}");
}

#[test]
fn a_response_read_and_dropped_is_freed_at_once() {
    let url = serve(vec![b'x'; 1 << 20], 1 << 20);
    let record = read(&url, "dropped", &["--times", "20"]);
    assert_eq!(record["status"], "success", "{record}");
    assert_eq!(
        record["data"]["alive"],
        Value::from(vec![0; 20]),
        "{record}"
    );
}

#[test]
fn a_body_cut_short_is_an_incomplete_response() {
    let url = serve(vec![b'x'; 1000], 1 << 20);
    let record = read(&url, "raw", &[]);
    assert_eq!(record["status"], "error", "{record}");
    assert_eq!(record["errorCode"], "http_response_incomplete", "{record}");
}
