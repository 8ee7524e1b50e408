//! End-to-end: outbound HTTP keeps connections alive per participant and destination (and
//! opens one per request with `--http-keep-alive=false`), every request is still judged with
//! pooling on, an authority with userinfo is refused, and `*` never reaches a loopback address
//! while a rule naming it does; the Rust SDK reads bodies whole (chunked, large, cut short).
//! The test server counts the connections it accepts.

use crate::support::{
    bench::{run_bench, Run},
    guests::test_guest,
    results::{log_lines, records_of},
};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tempfile::TempDir;

/// A loopback HTTP/1.1 server that keeps connections open and answers every GET `hello`.
struct Server {
    port: u16,
    connections: Arc<AtomicUsize>,
    requests: Arc<AtomicUsize>,
}

impl Server {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(AtomicUsize::new(0));
        let (accepted, served) = (connections.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                accepted.fetch_add(1, Ordering::SeqCst);
                let served = served.clone();
                std::thread::spawn(move || serve_connection(stream, &served));
            }
        });
        Self {
            port,
            connections,
            requests,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Answers requests on one connection until the client closes it: `hello`, or by path a
/// chunked body (`/chunked`), 3 MiB (`/big`), or 10 of 100 announced bytes and the connection
/// closed (`/cut`).
fn serve_connection(stream: TcpStream, served: &AtomicUsize) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                break;
            }
        }
        served.fetch_add(1, Ordering::SeqCst);
        let path = request_line.split(' ').nth(1).unwrap_or("/");
        let answer: Vec<u8> = match path {
            "/chunked" => b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
                3\r\nabc\r\n4\r\ndefg\r\n5\r\nhijkl\r\n0\r\n\r\n"
                .to_vec(),
            "/big" => {
                let mut answer = b"HTTP/1.1 200 OK\r\nContent-Length: 3145728\r\n\r\n".to_vec();
                answer.resize(answer.len() + (3 << 20), b'x');
                answer
            }
            "/cut" => {
                let _ =
                    writer.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
                return;
            }
            _ => b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".to_vec(),
        };
        if writer.write_all(&answer).is_err() {
            return;
        }
    }
}

struct ClientRun {
    _dir: TempDir,
    run: Run,
    results: std::path::PathBuf,
}

impl ClientRun {
    fn records(&self, participant: &str) -> Vec<Value> {
        records_of(&self.results, participant)
    }
}

/// Runs the `http-client` guest fetching `urls` in order.
fn fetch(urls: &[&str], extra: &[&str]) -> ClientRun {
    let guest = test_guest("http-client");
    let dir = TempDir::new().unwrap();
    let urls = urls.join(",");
    let mut args = vec![
        "run",
        guest.to_str().unwrap(),
        "--out",
        "results",
        "--urls",
        &urls,
        // Denied requests fail the task on purpose.
        "--allow-all-failed",
    ];
    args.extend_from_slice(extra);
    let run = run_bench(dir.path(), &args);
    assert_eq!(
        run.code,
        Some(0),
        "stdout: {}\nstderr: {}",
        run.stdout,
        run.stderr
    );
    ClientRun {
        results: dir.path().join("results"),
        _dir: dir,
        run,
    }
}

/// The body lengths a task read, in order.
fn body_lengths(record: &Value) -> Vec<u64> {
    record["data"]["statuses"]
        .as_array()
        .unwrap_or_else(|| panic!("no statuses: {record}"))
        .iter()
        .map(|s| s["bytes"].as_u64().unwrap())
        .collect()
}

#[test]
fn bodies_are_read_whole_chunked_large_or_cut_short() {
    let server = Server::start();
    let base = format!("http://127.0.0.1:{}", server.port);
    let [chunked, big, hello, cut] =
        ["/chunked", "/big", "/", "/cut"].map(|path| format!("{base}{path}"));
    let provider = ["--provider", "client", "--allow-host", &base];
    let whole = fetch(&[&chunked, &big, &hello], &provider);
    let record = &whole.records("client")[0];
    assert_eq!(record["status"], "success", "{record}");
    assert_eq!(body_lengths(record), [12, 3 << 20, 5]);

    // A body cut short fails its task (the guest's error data says what it had read).
    let broken = fetch(&[&hello, &cut], &provider);
    let record = &broken.records("client")[0];
    assert_eq!(record["errorCode"], "http_error", "{record}");
    assert_eq!(record["data"]["completed"][0]["bytes"], 5, "{record}");
}

fn statuses(record: &Value) -> Vec<u64> {
    record["data"]["statuses"]
        .as_array()
        .unwrap_or_else(|| panic!("no statuses: {record}"))
        .iter()
        .map(|s| s["status"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_participant_s_requests_share_one_keep_alive_connection() {
    let server = Server::start();
    let url = server.url();
    let allow = format!("http://127.0.0.1:{}", server.port);
    let outcome = fetch(
        &[&url, &url],
        &[
            "--provider",
            "client",
            "--allow-host",
            &allow,
            "--iterations",
            "3",
        ],
    );
    let records = outcome.records("client");
    assert_eq!(records.len(), 3);
    for record in &records {
        assert_eq!(record["status"], "success", "{record}");
        assert_eq!(statuses(record), [200, 200]);
    }
    assert_eq!(server.requests(), 6);
    assert_eq!(
        server.connections(),
        1,
        "two requests per task, three tasks"
    );
}

#[test]
fn without_keep_alive_each_request_opens_its_own_connection() {
    let server = Server::start();
    let url = server.url();
    let allow = format!("http://127.0.0.1:{}", server.port);
    let outcome = fetch(
        &[&url, &url],
        &[
            "--provider",
            "client",
            "--allow-host",
            &allow,
            "--http-keep-alive=false",
        ],
    );
    assert_eq!(statuses(&outcome.records("client")[0]), [200, 200]);
    assert_eq!(server.requests(), 2);
    assert_eq!(server.connections(), 2);
}

#[test]
fn participants_never_share_a_connection() {
    let server = Server::start();
    let url = server.url();
    let allow = format!("http://127.0.0.1:{}", server.port);
    let outcome = fetch(&[&url, &url], &["--allow-host", &allow]);
    for participant in ["client", "wildcard"] {
        assert_eq!(statuses(&outcome.records(participant)[0]), [200, 200]);
    }
    assert_eq!(server.connections(), 2, "one per participant");
}

#[test]
fn a_denied_host_is_still_denied_with_a_pooled_connection_open() {
    let server = Server::start();
    let url = server.url();
    let allow = format!("http://127.0.0.1:{}", server.port);
    // Same server, a name the allowlist does not hold: judged per request, not per connection.
    let other_name = format!("http://localhost:{}/", server.port);
    let outcome = fetch(
        &[&url, &other_name],
        &["--provider", "client", "--allow-host", &allow],
    );
    let record = &outcome.records("client")[0];
    assert_eq!(record["errorCode"], "http_request_denied", "{record}");
    assert_eq!(record["data"]["completed"][0]["status"], 200);
    assert_eq!(server.requests(), 1);
    let notice = format!(
        "denied request to http://localhost:{0} (allow it with --allow-host http://localhost:{0})",
        server.port
    );
    assert_eq!(
        outcome.run.stderr.matches(&notice).count(),
        1,
        "{}",
        outcome.run.stderr
    );
}

#[test]
fn an_authority_with_userinfo_is_denied() {
    let server = Server::start();
    let allow = format!("http://127.0.0.1:{}", server.port);
    // Judged as the part after `@`, which the allowlist holds; refused all the same.
    let url = format!("http://127.0.0.1:9@127.0.0.1:{}/", server.port);
    let outcome = fetch(&[&url], &["--provider", "client", "--allow-host", &allow]);
    let record = &outcome.records("client")[0];
    assert_eq!(record["errorCode"], "http_request_denied", "{record}");
    let notice = format!(
        "denied request to http://127.0.0.1:{}: the URL carries userinfo (name@host), which \
         bench never sends",
        server.port
    );
    assert!(
        outcome.run.stderr.contains(&notice),
        "{}",
        outcome.run.stderr
    );
    assert!(
        log_lines(&outcome.results, "client")
            .iter()
            .any(|line| line.ends_with(&format!("[warn] {notice}"))),
        "the participant log says why"
    );
    assert_eq!(server.connections(), 0, "nothing was reached");
}

#[test]
fn a_wildcard_does_not_reach_loopback_while_an_explicit_rule_does() {
    let server = Server::start();
    let url = server.url();
    let by_name = format!("http://localhost:{}/", server.port);

    for target in [&url, &by_name] {
        let outcome = fetch(&[target], &["--provider", "wildcard"]);
        let record = &outcome.records("wildcard")[0];
        assert_eq!(record["errorCode"], "http_request_denied", "{record}");
        assert!(
            outcome.run.stderr.contains("is a loopback address"),
            "{}",
            outcome.run.stderr
        );
    }
    assert_eq!(server.connections(), 0, "nothing was reached");
    let hint = format!(
        "(allow it with --allow-host http://127.0.0.1:{})",
        server.port
    );
    let outcome = fetch(&[&url], &["--provider", "wildcard"]);
    assert!(outcome.run.stderr.contains(&hint), "{}", outcome.run.stderr);

    let outcome = fetch(
        &[&url, &by_name],
        &[
            "--provider",
            "wildcard",
            "--allow-host",
            "http://127.0.0.1:*",
        ],
    );
    let record = &outcome.records("wildcard")[0];
    assert_eq!(record["status"], "success", "{record}");
    assert_eq!(statuses(record), [200, 200]);
}
