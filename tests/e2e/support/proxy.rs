//! An HTTP proxy on 127.0.0.1 in front of a server: it records every exchange and can
//! inject failures and delays, or swallow requests without ever answering.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request the proxy saw.
#[derive(Debug, Clone)]
pub(crate) struct Exchange {
    /// HTTP method.
    pub(crate) method: String,
    /// Path and query.
    pub(crate) path: String,
    /// The request line and headers, as sent.
    pub(crate) head: String,
    /// Request body (JSON text for API calls).
    pub(crate) body: String,
    /// The status answered (0 when the connection was dropped).
    pub(crate) status: u16,
}

impl Exchange {
    /// The request body as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

#[derive(Default)]
struct ProxyState {
    fail: Vec<(String, usize)>,
    delay: Duration,
    blackhole: bool,
    journal: Vec<Exchange>,
}

/// An HTTP proxy on 127.0.0.1 in front of a server: it records every request, and can
/// answer 500 instead of forwarding, delay each request, or accept connections and read
/// requests without ever answering.
pub(crate) struct Proxy {
    /// Its port.
    port: u16,
    state: Arc<Mutex<ProxyState>>,
    stop: Arc<AtomicBool>,
    upstream: Arc<AtomicU16>,
}

impl Proxy {
    /// A proxy forwarding to `127.0.0.1:upstream` (0: nowhere until [`Proxy::forward_to`]).
    pub(crate) fn start(upstream: u16) -> Proxy {
        let upstream = Arc::new(AtomicU16::new(upstream));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(ProxyState::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (accept_state, accept_stop) = (state.clone(), stop.clone());
        let connection_stop = stop.clone();
        let connection_upstream = upstream.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (state, stop) = (accept_state.clone(), connection_stop.clone());
                let upstream = connection_upstream.load(Ordering::Relaxed);
                std::thread::spawn(move || proxy_connection(stream, upstream, &state, &stop));
            }
        });
        Proxy {
            port,
            state,
            stop,
            upstream,
        }
    }

    /// Forwards later connections to `127.0.0.1:upstream`.
    pub(crate) fn forward_to(&self, upstream: u16) {
        self.upstream.store(upstream, Ordering::Relaxed);
    }

    /// The URL `bench` should use.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Answers 500 to the next `count` requests whose path contains `path_part`.
    pub(crate) fn fail_next(&self, path_part: &str, count: usize) {
        self.state
            .lock()
            .unwrap()
            .fail
            .push((path_part.to_owned(), count));
    }

    /// Delays every request by `delay` before forwarding it.
    pub(crate) fn set_delay(&self, delay: Duration) {
        self.state.lock().unwrap().delay = delay;
    }

    /// Reads every request and never answers it (until [`Proxy::heal`], when it drops the
    /// connection): a platform that hangs.
    pub(crate) fn set_blackhole(&self) {
        self.state.lock().unwrap().blackhole = true;
    }

    /// Forwards every request at once again (no delay, no blackhole).
    pub(crate) fn heal(&self) {
        let mut state = self.state.lock().unwrap();
        state.blackhole = false;
        state.delay = Duration::ZERO;
    }

    /// Every request so far.
    pub(crate) fn journal(&self) -> Vec<Exchange> {
        self.state.lock().unwrap().journal.clone()
    }

    /// Requests whose path ends with `suffix` (query ignored).
    pub(crate) fn requests(&self, method: &str, suffix: &str) -> Vec<Exchange> {
        self.journal()
            .into_iter()
            .filter(|e| e.method == method && e.path.split('?').next().unwrap().ends_with(suffix))
            .collect()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Reads one request (head and Content-Length body); `None` at end of stream.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<(String, Vec<u8>)> {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())
                .flatten()
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((head, body))
}

fn proxy_connection(
    client: TcpStream,
    upstream: u16,
    state: &Mutex<ProxyState>,
    stop: &AtomicBool,
) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut client = client;
    while let Some((head, body)) = read_request(&mut reader) {
        let request_line = head.lines().next().unwrap_or_default().to_owned();
        let mut words = request_line.split(' ');
        let method = words.next().unwrap_or_default().to_owned();
        let path = words.next().unwrap_or_default().to_owned();
        let (fail, delay, blackhole) = {
            let mut state = state.lock().unwrap();
            let rule = state
                .fail
                .iter_mut()
                .find(|(part, count)| *count > 0 && path.contains(part.as_str()));
            let fail = rule.map(|(_, count)| *count -= 1).is_some();
            (fail, state.delay, state.blackhole)
        };
        if blackhole {
            while state.lock().unwrap().blackhole && !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
            }
            return;
        }
        std::thread::sleep(delay);
        let (status, response) = if fail {
            let text = r#"{"error":{"code":"internal","message":"injected failure"}}"#;
            let response = format!(
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}",
                text.len()
            );
            (500, Some(response.into_bytes()))
        } else {
            match forward(upstream, &head, &body) {
                Some(response) => {
                    let text = String::from_utf8_lossy(&response);
                    let status = text
                        .split(' ')
                        .nth(1)
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(0);
                    (status, Some(response))
                }
                None => (0, None),
            }
        };
        state.lock().unwrap().journal.push(Exchange {
            method,
            path,
            head: head.clone(),
            body: String::from_utf8_lossy(&body).into_owned(),
            status,
        });
        match response {
            Some(response) if client.write_all(&response).is_ok() => {}
            _ => return,
        }
    }
}

/// Sends one request upstream with `Connection: close` and returns the whole response.
fn forward(upstream: u16, head: &str, body: &[u8]) -> Option<Vec<u8>> {
    let mut server = TcpStream::connect(("127.0.0.1", upstream)).ok()?;
    let mut request: String = head
        .lines()
        .filter(|line| !line.to_ascii_lowercase().starts_with("connection:"))
        .map(|line| format!("{line}\r\n"))
        .collect();
    request.push_str("Connection: close\r\n\r\n");
    server.write_all(request.as_bytes()).ok()?;
    server.write_all(body).ok()?;
    let mut response = Vec::new();
    server.read_to_end(&mut response).ok()?;
    (!response.is_empty()).then_some(response)
}
