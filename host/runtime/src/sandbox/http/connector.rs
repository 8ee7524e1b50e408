//! Opens the connections of outbound requests: resolves the destination's name in the host,
//! keeps only the addresses the participant may reach (a loopback, private or link-local
//! address only when a rule names it), connects to one of those (no second resolution) and,
//! for https, runs TLS for the destination's own name (SNI and certificate), with the same
//! roots as wasmtime-wasi-http's default sender.

use super::address::special_range;
use super::allowlist::AllowedHost;
use super::denial::Denial;
use super::destination::{Destination, Host, Scheme};
use rustls::pki_types::ServerName;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// Why a connection was not opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConnectError {
    /// Every address of the destination is one the participant may not reach.
    #[error("denied request to {0}")]
    Denied(Denial),
    /// The name did not resolve.
    #[error("could not resolve the host: {0}")]
    Unresolved(io::Error),
    /// The host is not a valid TLS server name.
    #[error("the host is not a valid TLS server name")]
    InvalidServerName,
    /// Resolution, connection and TLS handshake took longer than the connect timeout.
    #[error("connect timeout")]
    Timeout,
    /// No address accepted the connection.
    #[error("could not connect: {0}")]
    Connect(io::Error),
    /// The TLS handshake failed.
    #[error("TLS handshake failed: {0}")]
    Tls(io::Error),
}

/// The connector of one participant's pool, for one connect timeout.
#[derive(Debug, Clone)]
pub(crate) struct CheckedConnector {
    rules: Arc<[AllowedHost]>,
    connect_timeout: Duration,
}

impl CheckedConnector {
    pub(crate) fn new(rules: Arc<[AllowedHost]>, connect_timeout: Duration) -> Self {
        Self {
            rules,
            connect_timeout,
        }
    }

    /// Opens a connection to `destination` within the connect timeout.
    pub(crate) async fn connect(
        &self,
        destination: &Destination,
    ) -> Result<CheckedStream, ConnectError> {
        tokio::time::timeout(self.connect_timeout, self.open(destination))
            .await
            .map_err(|_| ConnectError::Timeout)?
    }

    async fn open(&self, destination: &Destination) -> Result<CheckedStream, ConnectError> {
        let addresses = self.reachable_addresses(destination).await?;
        let tcp = connect_any(&addresses).await?;
        tcp.set_nodelay(true).map_err(ConnectError::Connect)?;
        match destination.scheme {
            Scheme::Http => Ok(CheckedStream::Plain(tcp)),
            Scheme::Https => {
                let name = server_name(&destination.host)?;
                let tls = tokio_rustls::TlsConnector::from(tls_config())
                    .connect(name, tcp)
                    .await
                    .map_err(ConnectError::Tls)?;
                Ok(CheckedStream::Tls(Box::new(tls)))
            }
        }
    }

    /// The destination's addresses the participant may reach: every public one, and a
    /// special one (loopback, private…) only when a rule names it for this scheme and port.
    async fn reachable_addresses(
        &self,
        destination: &Destination,
    ) -> Result<Vec<SocketAddr>, ConnectError> {
        let port = destination.port;
        let resolved: Vec<SocketAddr> = match &destination.host {
            Host::Ip(ip) => vec![SocketAddr::new(*ip, port)],
            Host::Name(name) => tokio::net::lookup_host((name.as_str(), port))
                .await
                .map_err(ConnectError::Unresolved)?
                .collect(),
        };
        let mut refused = None;
        let reachable: Vec<SocketAddr> = resolved
            .into_iter()
            .filter(|address| match special_range(address.ip()) {
                None => true,
                Some(range) => {
                    let named = self
                        .rules
                        .iter()
                        .any(|rule| rule.names_address(destination.scheme, address.ip(), port));
                    if !named {
                        refused.get_or_insert((address.ip(), range));
                    }
                    named
                }
            })
            .collect();
        match (reachable.is_empty(), refused) {
            (false, _) => Ok(reachable),
            (true, Some((address, range))) => Err(ConnectError::Denied(Denial::special_address(
                destination,
                address,
                range,
            ))),
            (true, None) => Err(ConnectError::Unresolved(io::Error::new(
                io::ErrorKind::NotFound,
                "the name has no address",
            ))),
        }
    }
}

/// Connects to the first address that accepts.
async fn connect_any(addresses: &[SocketAddr]) -> Result<TcpStream, ConnectError> {
    let mut last_error = None;
    for address in addresses {
        match TcpStream::connect(address).await {
            Ok(stream) => return Ok(stream),
            Err(error) => last_error = Some(error),
        }
    }
    Err(ConnectError::Connect(last_error.unwrap_or_else(|| {
        io::Error::new(io::ErrorKind::NotFound, "no address to connect to")
    })))
}

/// The name TLS verifies: the destination's own host, never the address connected to.
fn server_name(host: &Host) -> Result<ServerName<'static>, ConnectError> {
    match host {
        Host::Ip(ip) => Ok(ServerName::from(*ip)),
        Host::Name(name) => {
            ServerName::try_from(name.clone()).map_err(|_| ConnectError::InvalidServerName)
        }
    }
}

/// The process's TLS client configuration: the webpki roots, as wasmtime-wasi-http's default
/// sender uses, with the ring provider.
fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.into(),
            };
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("ring supports rustls's default protocol versions")
                .with_root_certificates(roots)
                .with_no_client_auth();
            Arc::new(config)
        })
        .clone()
}

/// A connection to a checked address, plain or TLS.
pub(crate) enum CheckedStream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl AsyncRead for CheckedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for CheckedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Self::Plain(stream) => stream.is_write_vectored(),
            Self::Tls(stream) => stream.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_flush(cx),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    fn connector(patterns: &[&str]) -> CheckedConnector {
        let rules: Vec<AllowedHost> = patterns
            .iter()
            .map(|p| AllowedHost::parse(p).unwrap())
            .collect();
        CheckedConnector::new(rules.into(), Duration::from_secs(5))
    }

    async fn connect(connector: &mut CheckedConnector, uri: &str) -> Result<(), ConnectError> {
        let destination = Destination::of(&uri.parse().unwrap()).unwrap();
        connector.connect(&destination).await.map(drop)
    }

    #[tokio::test]
    async fn loopback_is_reached_only_through_a_rule_naming_it() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let uri = format!("http://127.0.0.1:{port}");
        let denied = connect(&mut connector(&["*"]), &uri).await.unwrap_err();
        assert_eq!(
            denied.to_string(),
            format!(
                "denied request to http://127.0.0.1:{port}: 127.0.0.1 is a loopback address, \
                 reachable only through a rule naming that address"
            )
        );
        let by_name = format!("http://localhost:{port}");
        assert!(matches!(
            connect(&mut connector(&["*"]), &by_name).await,
            Err(ConnectError::Denied(_))
        ));
        connect(&mut connector(&["http://127.0.0.1:*"]), &uri)
            .await
            .unwrap();
        // `localhost` resolves to loopback addresses, which the explicit rule names.
        connect(&mut connector(&["*", "http://127.0.0.1:*"]), &by_name)
            .await
            .unwrap();
        assert!(matches!(
            connect(&mut connector(&["http://127.0.0.1:1"]), &uri).await,
            Err(ConnectError::Denied(_))
        ));
    }

    #[tokio::test]
    async fn metadata_and_private_addresses_are_denied_without_connecting() {
        let mut wildcard = connector(&["*"]);
        for uri in [
            "http://169.254.169.254",
            "http://10.0.0.1:8080",
            "http://[::ffff:127.0.0.1]:80",
            "http://[fd00::1]:80",
            "http://0.0.0.0:80",
        ] {
            assert!(
                matches!(
                    connect(&mut wildcard, uri).await,
                    Err(ConnectError::Denied(_))
                ),
                "{uri}"
            );
        }
    }

    #[tokio::test]
    async fn tls_verifies_the_requested_name_on_the_checked_address() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let acceptor =
                tokio_rustls::LazyConfigAcceptor::new(rustls::server::Acceptor::default(), stream);
            let start = acceptor.await.unwrap();
            start.client_hello().server_name().map(str::to_owned)
        });
        let mut connector = connector(&["https://localhost:*"]);
        let result = connect(&mut connector, &format!("https://localhost:{port}")).await;
        assert!(
            matches!(result, Err(ConnectError::Tls(_))),
            "no certificate was offered: {result:?}"
        );
        assert_eq!(server.await.unwrap().as_deref(), Some("localhost"));
    }
}
