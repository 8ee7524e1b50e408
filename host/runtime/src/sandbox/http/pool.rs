//! The keep-alive connections of one participant (shared by its slots, never by two
//! participants), kept per destination (scheme, host, port) as Node's `fetch` keeps them, and
//! per runtime: a connection serves the slots of the slot thread that opened it.
//! Without keep-alive, each request opens its own connection.
//!
//! A connection has no task of its own: hyper's HTTP/1 connection is driven by whoever
//! waits on it — the request's future until the response head, then the response body as
//! the guest reads it — so a request and its body cost no hop to a connection task and
//! back. A connection whose response was read to the end goes back to the pool; one
//! dropped half-read is closed. An idle connection is looked at before reuse: one the server
//! closed meanwhile, or idle for longer than [`IDLE_TIMEOUT`], is dropped.
//!
//! Timeouts are wasi:http's request options (600 s each when unset, as wasmtime-wasi-http's
//! default sender): the connect timeout bounds resolution, connection and TLS handshake; the
//! first-byte timeout bounds the wait for the response head from when the request is handed to
//! the pool (a connection being opened for it included); the between-bytes timeout bounds each
//! wait for a body frame.

use super::allowlist::AllowedHost;
use super::connector::{CheckedConnector, CheckedStream, ConnectError};
use super::denial::Denial;
use super::destination::Destination;
use super::response_body::TimedBody;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::fmt;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};
use tokio::runtime::{self, Handle};
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody};

/// A timeout wasi:http leaves unset.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The longest timeout honoured (a guest's larger value is this).
const MAX_TIMEOUT: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// Idle connections kept per destination.
const MAX_IDLE_PER_DESTINATION: usize = 256;

/// Idle connections kept in all (each holds a file descriptor).
const MAX_IDLE: usize = 256;

/// How long an idle connection is kept.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// How far a connection's read buffer grows, and so about how large a frame of a response
/// body gets (hyper reads into all the room its buffer has, which can be up to about twice
/// this): hyper's default (about 400 KiB) cut a 16 MiB body into 40 frames, each a host call
/// and a copy in the guest that reads it. An idle connection may keep its buffer, so the
/// [`MAX_IDLE`] connections hold at most about 512 MiB.
const READ_BUFFER_MAX: usize = 1 << 20;

/// Why a request got no response.
#[derive(Debug)]
pub(crate) enum SendError {
    /// The destination's addresses are ones the participant may not reach.
    Denied(Denial),
    /// Anything else, as wasi:http reports it.
    Failed(Error),
}

/// One open HTTP/1 connection: where requests go in, the future that drives it, and the
/// runtime whose I/O driver its socket is registered with.
struct Connection {
    sender: http1::SendRequest<WasiBody>,
    driver: http1::Connection<TokioIo<CheckedStream>, WasiBody>,
    home: Option<runtime::Id>,
}

impl Connection {
    /// Drives the connection; `Ready` once it has ended (closed or failed).
    fn poll_drive(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.driver).poll(cx).map(drop)
    }

    /// Whether the connection can take another request now.
    fn is_reusable(&mut self) -> bool {
        !self.sender.is_closed()
            && self
                .poll_drive(&mut Context::from_waker(Waker::noop()))
                .is_pending()
            && self.sender.is_ready()
    }
}

/// An idle connection and since when.
struct Idle {
    connection: Connection,
    since: Instant,
}

/// One participant's connections.
pub(crate) struct ConnectionPool {
    rules: Arc<[AllowedHost]>,
    keep_alive: bool,
    idle: Mutex<IdleConnections>,
}

/// Idle connections by destination and by the runtime they belong to: a slot takes only
/// its own runtime's (its slot thread's), whose driver wakes it without another thread, and
/// which a busy thread elsewhere cannot hold up.
#[derive(Default)]
struct IdleConnections {
    by_destination: HashMap<(Option<runtime::Id>, Arc<Destination>), Vec<Idle>>,
    count: usize,
}

impl fmt::Debug for ConnectionPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectionPool")
            .field("keep_alive", &self.keep_alive)
            .finish_non_exhaustive()
    }
}

impl ConnectionPool {
    pub(crate) fn new(rules: Arc<[AllowedHost]>, keep_alive: bool) -> Self {
        Self {
            rules,
            keep_alive,
            idle: Mutex::default(),
        }
    }

    pub(crate) fn keep_alive(&self) -> bool {
        self.keep_alive
    }

    /// Sends a judged request to `destination` (its URI in origin form, `/path?query`) and
    /// waits for the response head.
    pub(crate) fn send(
        self: &Arc<Self>,
        destination: Arc<Destination>,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
    ) -> impl Future<Output = Result<http::Response<WasiBody>, SendError>> + Send + 'static {
        let timeout = |pick: fn(&RequestOptions) -> Option<Duration>| {
            options
                .as_ref()
                .and_then(pick)
                .unwrap_or(DEFAULT_TIMEOUT)
                .min(MAX_TIMEOUT)
        };
        let first_byte = timeout(|o| o.first_byte_timeout);
        let between_bytes = timeout(|o| o.between_bytes_timeout);
        let connect_timeout = timeout(|o| o.connect_timeout);
        let pool = self.clone();
        let exchange = async move {
            let mut connection = match pool.checkout(&destination) {
                Some(connection) => connection,
                None => match pool.connect(&destination, connect_timeout).await {
                    Ok(connection) => connection,
                    Err(error) => {
                        // The guest may still be writing the body: what it writes is taken
                        // and dropped, so its writes end as usual and it learns of the
                        // failure from the response (StarlingMonkey traps on a failed write).
                        tokio::spawn(discard(request.into_body()));
                        return Err(error);
                    }
                },
            };
            let response = connection.sender.send_request(request);
            tokio::pin!(response);
            let head = poll_fn(|cx| {
                if let Poll::Ready(head) = response.as_mut().poll(cx) {
                    return Poll::Ready(head);
                }
                match connection.poll_drive(cx) {
                    Poll::Pending => Poll::Pending,
                    // The connection ended: the response has its error by now.
                    Poll::Ready(()) => response.as_mut().poll(cx),
                }
            })
            .await
            .map_err(|error| SendError::Failed(of_hyper(&error)))?;
            let (parts, incoming) = head.into_parts();
            let body = PooledBody {
                incoming: TimedBody::new(incoming, between_bytes),
                connection: Some(connection),
                destination,
                pool,
            };
            Ok(http::Response::from_parts(parts, body.into_wasi()))
        };
        async move {
            tokio::time::timeout(first_byte, exchange)
                .await
                .map_err(|_| SendError::Failed(Error::ConnectionReadTimeout))?
        }
    }

    /// An idle connection of this runtime to `destination` that can take a request, if
    /// there is one.
    fn checkout(&self, destination: &Arc<Destination>) -> Option<Connection> {
        let key = (current_runtime(), destination.clone());
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let IdleConnections {
            by_destination,
            count,
        } = &mut *idle;
        let connections = by_destination.get_mut(&key)?;
        let mut found = None;
        while let Some(mut idle) = connections.pop() {
            *count -= 1;
            if idle.since.elapsed() < IDLE_TIMEOUT && idle.connection.is_reusable() {
                found = Some(idle.connection);
                break;
            }
        }
        if connections.is_empty() {
            by_destination.remove(&key);
        }
        found
    }

    /// Keeps a connection whose exchange is over for the next request, when it can take one.
    fn checkin(&self, destination: Arc<Destination>, mut connection: Connection) {
        if !self.keep_alive || !connection.is_reusable() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.count >= MAX_IDLE {
            return;
        }
        let connections = idle
            .by_destination
            .entry((connection.home, destination))
            .or_default();
        if connections.len() < MAX_IDLE_PER_DESTINATION {
            connections.push(Idle {
                connection,
                since: Instant::now(),
            });
            idle.count += 1;
        }
    }

    /// Opens a checked connection to `destination` and runs the HTTP/1 handshake.
    async fn connect(
        &self,
        destination: &Destination,
        connect_timeout: Duration,
    ) -> Result<Connection, SendError> {
        let stream = CheckedConnector::new(self.rules.clone(), connect_timeout)
            .connect(destination)
            .await
            .map_err(|error| of_connect(&error))?;
        let (sender, driver) = http1::Builder::new()
            .max_buf_size(READ_BUFFER_MAX)
            .handshake(TokioIo::new(stream))
            .await
            .map_err(|error| SendError::Failed(of_hyper(&error)))?;
        Ok(Connection {
            sender,
            driver,
            home: current_runtime(),
        })
    }
}

/// The runtime the caller runs on (none outside one).
fn current_runtime() -> Option<runtime::Id> {
    Handle::try_current().ok().map(|handle| handle.id())
}

/// A response body that drives its connection while it is read, and gives the connection
/// back to the pool once the body has ended.
struct PooledBody {
    incoming: TimedBody,
    connection: Option<Connection>,
    destination: Arc<Destination>,
    pool: Arc<ConnectionPool>,
}

impl PooledBody {
    fn into_wasi(self) -> WasiBody {
        if self.incoming.is_end_stream() {
            // Nothing to read (a HEAD, a 204): the connection is free now.
            let Self {
                connection,
                destination,
                pool,
                incoming,
            } = self;
            if let Some(connection) = connection {
                pool.checkin(destination, connection);
            }
            return incoming.boxed_unsync();
        }
        self.boxed_unsync()
    }
}

impl Body for PooledBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let this = self.get_mut();
        if let Some(connection) = &mut this.connection {
            if connection.poll_drive(cx).is_ready() {
                // Ended: what it had read is in the body's channel, the rest is an error.
                this.connection = None;
            }
        }
        let frame = Pin::new(&mut this.incoming).poll_frame(cx);
        if let Poll::Ready(None) = frame {
            if let Some(connection) = this.connection.take() {
                this.pool.checkin(this.destination.clone(), connection);
            }
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.incoming.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.incoming.size_hint()
    }
}

/// Reads a request body that will not be sent to its end, dropping what it holds.
async fn discard(mut body: WasiBody) {
    while let Some(Ok(_)) = body.frame().await {}
}

/// What a failed exchange becomes: the wasi:http error wasmtime-wasi-http's default sender
/// reports for the same failure.
fn of_hyper(error: &hyper::Error) -> Error {
    if error.is_timeout() {
        Error::HttpResponseTimeout
    } else {
        Error::HttpProtocolError
    }
}

/// What a failed connection becomes: a denial found by the connector, or the wasi:http
/// error of the same failure.
fn of_connect(error: &ConnectError) -> SendError {
    let copy = |error: &io::Error| io::Error::new(error.kind(), error.to_string());
    SendError::Failed(match error {
        ConnectError::Denied(denial) => return SendError::Denied(denial.clone()),
        ConnectError::Unresolved(_) => Error::DnsError {
            rcode: Some("address not available".into()),
            info_code: None,
        },
        ConnectError::InvalidServerName => Error::DnsError {
            rcode: Some("invalid dns name".into()),
            info_code: None,
        },
        ConnectError::Timeout => Error::ConnectionTimeout,
        ConnectError::Connect(error) => Error::Connect(copy(error)),
        ConnectError::Tls(error) => Error::Tls(copy(error)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// A server answering `hello` to each request; it closes a connection after
    /// `per_connection` responses. Returns its port and the connections it accepted.
    async fn server(per_connection: usize) -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = accepted.clone();
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buffer = vec![0; 4096];
                    for _ in 0..per_connection {
                        let mut read = 0;
                        while !buffer[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                            match stream.read(&mut buffer[read..]).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => read += n,
                            }
                        }
                        let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello";
                        if stream.write_all(answer).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        (port, accepted)
    }

    async fn get(pool: &Arc<ConnectionPool>, port: u16) -> Bytes {
        let uri: http::Uri = format!("http://127.0.0.1:{port}/").parse().unwrap();
        let destination = Arc::new(Destination::of(&uri).unwrap());
        let request = http::Request::get("/")
            .header(http::header::HOST, format!("127.0.0.1:{port}"))
            .body(WasiBody::default())
            .unwrap();
        let response = pool.send(destination, request, None).await.unwrap();
        response.into_body().collect().await.unwrap().to_bytes()
    }

    fn pool(port: u16, keep_alive: bool) -> Arc<ConnectionPool> {
        let rule = AllowedHost::parse(&format!("http://127.0.0.1:{port}")).unwrap();
        Arc::new(ConnectionPool::new(vec![rule].into(), keep_alive))
    }

    #[tokio::test]
    async fn a_large_body_comes_whole_in_frames_bounded_by_the_read_buffer() {
        const SIZE: usize = 16 << 20;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buffer = vec![0; 4096];
            let _ = stream.read(&mut buffer).await;
            let mut answer =
                format!("HTTP/1.1 200 OK\r\ncontent-length: {SIZE}\r\n\r\n").into_bytes();
            answer.resize(answer.len() + SIZE, b'a');
            stream.write_all(&answer).await.unwrap();
        });
        let pool = pool(port, true);
        let uri: http::Uri = format!("http://127.0.0.1:{port}/").parse().unwrap();
        let request = http::Request::get("/")
            .header(http::header::HOST, format!("127.0.0.1:{port}"))
            .body(WasiBody::default())
            .unwrap();
        let destination = Arc::new(Destination::of(&uri).unwrap());
        let mut body = pool
            .send(destination, request, None)
            .await
            .unwrap()
            .into_body();
        let mut sizes = Vec::new();
        while let Some(frame) = body.frame().await {
            sizes.push(frame.unwrap().into_data().unwrap().len());
        }
        assert_eq!(sizes.iter().sum::<usize>(), SIZE);
        assert!(
            sizes.iter().all(|&size| size <= 4 * READ_BUFFER_MAX),
            "{sizes:?}"
        );
        // hyper's own limit kept every frame under about 500 KiB.
        assert!(sizes.iter().any(|&size| size > 768 << 10), "{sizes:?}");
    }

    #[tokio::test]
    async fn a_read_response_frees_its_connection_for_the_next_request() {
        let (port, accepted) = server(usize::MAX).await;
        let pool = pool(port, true);
        for _ in 0..3 {
            assert_eq!(get(&pool, port).await, "hello");
        }
        assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_connection_the_server_closed_while_idle_is_replaced() {
        let (port, accepted) = server(1).await;
        let pool = pool(port, true);
        assert_eq!(get(&pool, port).await, "hello");
        // Let the server's close reach this side.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(get(&pool, port).await, "hello");
        assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn without_keep_alive_no_connection_is_kept() {
        let (port, accepted) = server(usize::MAX).await;
        let pool = pool(port, false);
        assert_eq!(get(&pool, port).await, "hello");
        assert_eq!(get(&pool, port).await, "hello");
        assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 2);
    }
}
