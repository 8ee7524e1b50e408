//! A small HTTP/1.1 server on a loopback port for the tests whose guests make requests: a
//! GET answers `hello` (with an `X-Server: test` header), a GET of `/slow` answers it after
//! [`SLOW`], a POST echoes its body. Each connection carries one request; the server stops
//! after `connections` of them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// How long a GET of `/slow` waits before it answers.
pub(crate) const SLOW: Duration = Duration::from_millis(300);

/// Serves `connections` requests (each on its own thread), then stops accepting; returns
/// the port.
pub(crate) fn serve(connections: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(connections) {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || answer(stream));
        }
    });
    port
}

fn answer(stream: TcpStream) {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    let mut length = 0;
    let _ = reader.read_line(&mut request_line);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    if !request_line.starts_with("POST") {
        if request_line.starts_with("GET /slow") {
            std::thread::sleep(SLOW);
        }
        body = b"hello".to_vec();
    }
    let mut response = format!(
        "HTTP/1.1 200 OK\r\nX-Server: test\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    let _ = reader.into_inner().write_all(&response);
}

/// The connection once the request's head has been read (a server that answers every
/// request alike).
pub(crate) fn past_request_head(stream: TcpStream) -> TcpStream {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
    }
    reader.into_inner()
}
