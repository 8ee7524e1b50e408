//! End-to-end: a JavaScript task that fetches in every task keeps working in one reused
//! instance. StarlingMonkey's own `fetch` took a handle per body chunk and never dropped a
//! response's handles, so the instance trapped at wasmtime's 100 000-handle limit; bench's
//! handle janitor (added to the engine when the task is built) drops them.
//!
//! The server answers with 4 000 small chunks, each read (and, without the janitor, each
//! leaking a pollable) on its own: 40 tasks need 160 000 handles if none is dropped.

use crate::support::{bench::run_bench, guests::built_project, results::records, root};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use tempfile::TempDir;

const PROJECT: &str = "tests/guests-js/fetch";
const CHUNKS: usize = 4_000;
const CHUNK: &[u8] = b"8\r\nabcdefgh\r\n";

/// Answers every GET on a loopback port with a body of [`CHUNKS`] 8-byte chunks, one
/// connection per request.
fn serve_chunked() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                }
                let mut response =
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                        .to_vec();
                for _ in 0..CHUNKS {
                    response.extend_from_slice(CHUNK);
                }
                response.extend_from_slice(b"0\r\n\r\n");
                let _ = reader.into_inner().write_all(&response);
            });
        }
    });
    port
}

#[test]
fn one_instance_reads_thousands_of_body_chunks_per_task_without_running_out_of_handles() {
    built_project(PROJECT);
    let port = serve_chunked();
    let dir = TempDir::new().unwrap();
    let project = root().join(PROJECT);
    let url = format!("http://127.0.0.1:{port}/");
    let run = run_bench(
        dir.path(),
        &[
            "run",
            project.to_str().unwrap(),
            "--iterations",
            "40",
            "--url",
            &url,
            "--out",
            "results",
        ],
    );
    let records = records(&dir.path().join("results"));
    let failed: Vec<_> = records
        .iter()
        .filter(|record| record["status"] != "success")
        .collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", run.stderr);
    assert_eq!(records.len(), 40);
    for record in &records {
        assert_eq!(record["data"]["bytes"], CHUNKS * 8, "{record}");
    }
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}
