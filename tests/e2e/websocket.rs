//! End-to-end: Rust, JavaScript and Python tasks talk to a local WebSocket server through
//! the host (`bench:task/websocket`): each sends a text and a binary message, gets the
//! echoes and closes; a destination the allowlist does not name is refused with bench's
//! reason; a server message past the bound fails the task with a clear error; a connection
//! a task leaves open is closed by the host when the task ends (the server sees 1001); the
//! npm `ws` package's client (through `isomorphic-ws`) works unchanged in a JS task; a task
//! that lets a server flood its connections without reading fails at its memory limit and
//! the host's memory stays bounded.

use crate::support::{
    bench::watched,
    guests::{built_project, test_guest},
    results::{records_of, run_records},
};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tempfile::TempDir;
use tokio_tungstenite::tungstenite::Message;

/// Past the host's 16 MiB message bound.
const OVERSIZED: usize = (16 << 20) + 1;

/// What a [`Server`] does with each connection.
#[derive(Clone, Copy)]
enum Serve {
    /// First sends `greeting` bytes as one binary message (when there are some), then
    /// echoes text and binary messages.
    Echo { greeting: usize },
    /// Sends 1 MiB binary messages as fast as the connection takes them.
    Flood,
}

/// A WebSocket server on 127.0.0.1; the close codes it receives are kept.
struct Server {
    port: u16,
    closes: Arc<Mutex<Vec<u16>>>,
    _runtime: tokio::runtime::Runtime,
}

impl Server {
    /// An echo server, first sending `greeting` bytes.
    fn start(greeting: usize) -> Self {
        Self::serving(Serve::Echo { greeting })
    }

    fn serving(serve: Serve) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let closes: Arc<Mutex<Vec<u16>>> = Arc::default();
        let seen = closes.clone();
        runtime.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let seen = seen.clone();
                tokio::spawn(async move {
                    let Ok(mut socket) = tokio_tungstenite::accept_async(stream).await else {
                        return;
                    };
                    let greeting = match serve {
                        Serve::Echo { greeting } => greeting,
                        Serve::Flood => {
                            let chunk = vec![7u8; 1 << 20];
                            while socket.send(Message::binary(chunk.clone())).await.is_ok() {}
                            return;
                        }
                    };
                    if greeting > 0 {
                        let _ = socket.send(Message::binary(vec![7; greeting])).await;
                    }
                    while let Some(Ok(message)) = socket.next().await {
                        match message {
                            Message::Close(frame) => {
                                seen.lock()
                                    .unwrap()
                                    .push(frame.map_or(1005, |f| f.code.into()));
                            }
                            Message::Text(_) | Message::Binary(_) => {
                                let _ = socket.send(message).await;
                            }
                            _ => {}
                        }
                    }
                });
            }
        });
        Self {
            port,
            closes,
            _runtime: runtime,
        }
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}/", self.port)
    }

    fn allow(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The close codes received so far, waiting up to 5 s for `count` of them.
    fn closes(&self, count: usize) -> Vec<u16> {
        for _ in 0..500 {
            if self.closes.lock().unwrap().len() >= count {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        self.closes.lock().unwrap().clone()
    }
}

/// The Rust, JavaScript and Python websocket tasks.
fn tasks() -> [(&'static str, PathBuf); 3] {
    [
        ("rust", test_guest("websocket")),
        ("js", built_project("tests/guests-js/websocket")),
        ("python", built_project("tests/guests-python/websocket")),
    ]
}

/// The one record of a run of `task` with `args`.
fn run(task: &Path, args: &[&str]) -> Value {
    let mut records = run_records(task, args);
    assert_eq!(records.len(), 1, "{records:?}");
    records.remove(0)
}

/// The one record of a run of `task` in `mode` against `server`, allowed to reach it.
fn run_against(task: &Path, server: &Server, mode: &str) -> Value {
    let (allow, url) = (server.allow(), server.url());
    run(
        task,
        &["--allow-host", &allow, "--ws-url", &url, "--ws-mode", mode],
    )
}

fn message(record: &Value) -> &str {
    record["data"]["errorMessage"].as_str().unwrap_or_default()
}

#[test]
fn every_language_echoes_text_and_binary_and_closes() {
    let server = Server::start(0);
    for (language, task) in tasks() {
        let before = server.closes(0).len();
        let record = run_against(&task, &server, "echo");
        assert_eq!(record["status"], "success", "{language}: {record}");
        let data = &record["data"];
        assert_eq!(
            data["text"],
            json!({ "text": "hello" }),
            "{language}: {data}"
        );
        assert_eq!(
            data["binary"],
            json!({ "binary": [0, 1, 2, 255] }),
            "{language}"
        );
        assert_eq!(data["closed"]["code"], 1000, "{language}: {data}");
        assert_eq!(data["closed"]["reason"], "done", "{language}: {data}");
        if language == "js" {
            // readyState: CONNECTING, OPEN, CLOSING after close(), CLOSED after the event.
            assert_eq!(data["states"], json!([0, 1, 2, 3]), "{data}");
            assert_eq!(data["onmessage"], 2, "{data}");
            assert_eq!(data["closed"]["wasClean"], true, "{data}");
        }
        assert_eq!(server.closes(before + 1)[before..], [1000], "{language}");
    }
}

#[test]
fn the_npm_ws_package_and_isomorphic_ws_connect_through_the_host() {
    let server = Server::start(0);
    let record = run_against(
        &built_project("tests/guests-js/websocket"),
        &server,
        "ws-package",
    );
    assert_eq!(record["status"], "success", "{record}");
    assert_eq!(
        record["data"],
        json!({
            "text": { "text": "hello", "isBinary": false, "isBuffer": true },
            "binary": { "binary": [0, 1, 2, 255], "isBinary": true },
            "closed": { "code": 1000, "reason": "done" },
            "same": true,
        })
    );
    assert_eq!(server.closes(1), [1000]);
}

#[test]
fn connections_left_open_are_closed_when_the_task_ends_and_hostile_cases_fail_clearly() {
    let server = Server::start(0);
    let oversized = Server::start(OVERSIZED);
    for (language, task) in tasks() {
        let before = server.closes(0).len();
        let record = run_against(&task, &server, "leave");
        assert_eq!(record["status"], "success", "{language}: {record}");
        assert_eq!(record["data"]["echo"], json!({ "text": "left open" }));
        assert_eq!(
            server.closes(before + 1)[before..],
            [1001],
            "{language}: the host closes what the task left open"
        );

        let denied = run(&task, &["--ws-url", "ws://ws.example.test/feed"]);
        assert_eq!(denied["status"], "error", "{language}: {denied}");
        assert!(
            message(&denied).contains(
                "denied request to http://ws.example.test:80 (allow it with --allow-host \
                 http://ws.example.test:80)"
            ),
            "{language}: {denied}"
        );

        let big = run_against(&task, &oversized, "receive");
        assert_eq!(big["status"], "error", "{language}: {big}");
        assert!(
            message(&big).contains("the server sent a message past the 16 MiB bound"),
            "{language}: {big}"
        );
    }
}

/// Memory of the flooded sandbox, and the host memory bench may take beside it.
const FLOODED_MEMORY: &str = "32MiB";
const FLOOD_RSS_BOUND_KIB: u64 = (128 + 32) << 10;

#[test]
fn connections_flooded_while_the_task_does_not_read_fail_at_the_memory_limit() {
    let server = Server::serving(Serve::Flood);
    let task = test_guest("websocket");
    let dir = TempDir::new().unwrap();
    let (allow, url) = (server.allow(), server.url());
    let watched = watched(
        dir.path(),
        &[
            "run",
            task.to_str().unwrap(),
            "--out",
            "results",
            "--iterations",
            "2",
            "--max-memory",
            FLOODED_MEMORY,
            "--allow-host",
            &allow,
            "--ws-url",
            &url,
            "--ws-mode",
            "hoard",
            "--allow-all-failed",
        ],
    );
    let run = &watched.run;
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    eprintln!("hoard: VmHWM {} KiB", watched.peak_rss_kib);
    // 16 connections of 16 MiB queued each would hold 256 MiB in the host.
    assert!(
        watched.peak_rss_kib < FLOOD_RSS_BOUND_KIB,
        "VmHWM {} KiB",
        watched.peak_rss_kib
    );
    let records = records_of(&dir.path().join("results"), "p");
    assert_eq!(
        records.len(),
        2,
        "the run goes on after the first task fails"
    );
    for record in &records {
        assert_eq!(record["status"], "error", "{record}");
        let message = message(record);
        assert!(
            message.contains("task exceeded its memory limit: growing its received WebSocket messages (held in the host) by")
                && message.contains("would pass the sandbox's memory limit of 33554432 bytes"),
            "{record}"
        );
    }
}
