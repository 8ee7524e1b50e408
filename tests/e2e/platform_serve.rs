//! End-to-end: `bench serve` against hostile clients — huge bodies without a key are
//! refused before they are read, and slow connections neither pile up nor stop others.

use crate::support::platform::Server;
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
