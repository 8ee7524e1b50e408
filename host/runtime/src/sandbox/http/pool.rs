//! The keep-alive connections of one participant (shared by its slots, never by two
//! participants): hyper-util's pooled client over the checked connector, so connections are
//! kept per destination (scheme, host, port) as Node's `fetch` keeps them. Without keep-alive,
//! each request opens its own connection.
//!
//! Timeouts are wasi:http's request options (600 s each when unset, as wasmtime-wasi-http's
//! default sender): the connect timeout bounds resolution, connection and TLS handshake; the
//! first-byte timeout bounds the wait for the response head from when the request is handed to
//! the pool (a connection being opened for it included); the between-bytes timeout bounds each
//! wait for a body frame.

use super::allowlist::AllowedHost;
use super::connector::{CheckedConnector, ConnectError};
use super::denial::Denial;
use super::response_body::TimedBody;
use http_body_util::BodyExt;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use std::error::Error as _;
use std::fmt;
use std::future::Future;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody};

/// A timeout wasi:http leaves unset.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The longest timeout honoured (a guest's larger value is this).
const MAX_TIMEOUT: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// Idle connections kept per destination.
const MAX_IDLE_PER_DESTINATION: usize = 256;

/// How long an idle connection is kept.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Distinct connect timeouts served at once (each has its own client and idle connections).
const MAX_CLIENTS: usize = 4;

type PooledClient = Client<CheckedConnector, WasiBody>;

/// Why a request got no response.
#[derive(Debug)]
pub(crate) enum SendError {
    /// The destination's addresses are ones the participant may not reach.
    Denied(Denial),
    /// Anything else, as wasi:http reports it.
    Failed(Error),
}

/// One participant's connections.
pub(crate) struct ConnectionPool {
    rules: Arc<[AllowedHost]>,
    keep_alive: bool,
    /// One client per connect timeout in use (the connector owns the timeout).
    clients: Mutex<Vec<(Duration, PooledClient)>>,
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
            clients: Mutex::default(),
        }
    }

    pub(crate) fn keep_alive(&self) -> bool {
        self.keep_alive
    }

    /// Sends a judged request (its URI absolute, from its destination) and waits for the
    /// response head.
    pub(crate) fn send(
        &self,
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
        let client = self.client(timeout(|o| o.connect_timeout));
        async move {
            let response = tokio::time::timeout(first_byte, client.request(request))
                .await
                .map_err(|_| SendError::Failed(Error::ConnectionReadTimeout))?
                .map_err(|error| SendError::of_client(&error))?;
            Ok(response.map(|incoming| TimedBody::new(incoming, between_bytes).boxed_unsync()))
        }
    }

    fn client(&self, connect_timeout: Duration) -> PooledClient {
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, client)) = clients.iter().find(|(t, _)| *t == connect_timeout) {
            return client.clone();
        }
        if clients.len() == MAX_CLIENTS {
            clients.remove(0);
        }
        let idle = if self.keep_alive {
            MAX_IDLE_PER_DESTINATION
        } else {
            0
        };
        let client = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(IDLE_TIMEOUT)
            .pool_max_idle_per_host(idle)
            .build(CheckedConnector::new(self.rules.clone(), connect_timeout));
        clients.push((connect_timeout, client.clone()));
        client
    }
}

impl SendError {
    /// What a failed request becomes: a denial found by the connector, or the wasi:http
    /// error wasmtime-wasi-http's default sender reports for the same failure.
    fn of_client(error: &hyper_util::client::legacy::Error) -> Self {
        let mut cause = error.source();
        while let Some(current) = cause {
            if let Some(connect) = current.downcast_ref::<ConnectError>() {
                return Self::of_connect(connect);
            }
            if let Some(hyper) = current.downcast_ref::<hyper::Error>() {
                return Self::Failed(if hyper.is_timeout() {
                    Error::HttpResponseTimeout
                } else {
                    Error::HttpProtocolError
                });
            }
            cause = current.source();
        }
        Self::Failed(if error.is_connect() {
            Error::ConnectionRefused
        } else {
            Error::HttpProtocolError
        })
    }

    fn of_connect(error: &ConnectError) -> Self {
        let copy = |error: &io::Error| io::Error::new(error.kind(), error.to_string());
        Self::Failed(match error {
            ConnectError::Denied(denial) => return Self::Denied(denial.clone()),
            ConnectError::Unresolved(_) => Error::DnsError {
                rcode: Some("address not available".into()),
                info_code: None,
            },
            ConnectError::InvalidServerName => Error::DnsError {
                rcode: Some("invalid dns name".into()),
                info_code: None,
            },
            ConnectError::InvalidUri => Error::HttpRequestUriInvalid,
            ConnectError::Timeout => Error::ConnectionTimeout,
            ConnectError::Connect(error) => Error::Connect(copy(error)),
            ConnectError::Tls(error) => Error::Tls(copy(error)),
        })
    }
}
