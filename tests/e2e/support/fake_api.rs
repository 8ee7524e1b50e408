//! A loopback HTTP/1.1 server standing in for a provider's API: each request (keep-alive
//! connections, `Content-Length` or chunked bodies, `Expect: 100-continue`) goes to a
//! handler that answers it (a HEAD gets the headers of its answer, without the body), and
//! the server keeps a journal of what it was asked.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request as the server received it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) method: String,
    /// Path and query.
    pub(crate) target: String,
    /// Header names in lowercase, in the order they came.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Request {
    /// The first value of header `name` (lowercase).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header == name)
            .map(|(_, value)| value.as_str())
    }

    /// The path without the query.
    pub(crate) fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The body as JSON (`Null` when it is not).
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// An answer: status, headers and body.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Response {
    /// A `200` with a JSON body.
    pub(crate) fn json(body: serde_json::Value) -> Self {
        Self::with_status(200, "application/json", body.to_string())
    }

    /// An answer of `status` with a body of `content_type`.
    pub(crate) fn with_status(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.into(),
        }
    }

    /// This answer with one more header.
    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// The server: its port and the requests it answered.
pub(crate) struct FakeApi {
    port: u16,
    journal: Arc<Mutex<Vec<Request>>>,
}

impl FakeApi {
    /// Starts a server on a free loopback port answering with `handler`.
    pub(crate) fn start(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let journal = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let kept = journal.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (handler, journal) = (handler.clone(), kept.clone());
                std::thread::spawn(move || serve(stream, &*handler, &journal));
            }
        });
        Self { port, journal }
    }

    /// `http://127.0.0.1:<port>` (no trailing slash).
    pub(crate) fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests answered so far.
    pub(crate) fn requests(&self) -> Vec<Request> {
        self.journal.lock().unwrap().clone()
    }
}

/// Answers the requests of one connection until the client closes it.
fn serve(stream: TcpStream, handler: &Handler, journal: &Mutex<Vec<Request>>) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader, &mut writer) {
        let response = handler(&request);
        let body: &[u8] = if request.method == "HEAD" {
            &[]
        } else {
            &response.body
        };
        journal.lock().unwrap().push(request);
        let mut head = format!("HTTP/1.1 {} Fake\r\n", response.status);
        for (name, value) in &response.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("content-length: {}\r\n\r\n", response.body.len()));
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(body).is_err() {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>, writer: &mut TcpStream) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        if header.trim().is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut request = Request {
        method,
        target,
        headers,
        body: Vec::new(),
    };
    if request
        .header("expect")
        .is_some_and(|expect| expect.eq_ignore_ascii_case("100-continue"))
    {
        writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").ok()?;
    }
    if request
        .header("transfer-encoding")
        .is_some_and(|coding| coding.contains("chunked"))
    {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            request.body.extend_from_slice(&chunk[..size]);
        }
    } else {
        let length = request
            .header("content-length")
            .and_then(|length| length.parse().ok())
            .unwrap_or(0);
        request.body = vec![0; length];
        reader.read_exact(&mut request.body).ok()?;
    }
    Some(request)
}
