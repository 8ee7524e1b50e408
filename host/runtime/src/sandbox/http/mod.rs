//! Outbound HTTP (wasi:http): deny by default. Every request — redirects included, since the
//! guest issues each one itself — is judged in one place, the send hook, by its real
//! destination (the request URI's scheme, host and port, parsed once: `destination`), never by
//! a header; an authority with userinfo is refused before judging. The connector then
//! resolves the name in the host and reaches a loopback, private or link-local address only
//! when a rule names it (`address`, `connector`), and the participant's connections are kept
//! alive per destination (`pool`) unless keep-alive is off. Each sandbox remembers its recent
//! decisions per destination (`decisions`).

mod address;
mod allowlist;
mod connector;
mod decisions;
mod denial;
mod destination;
pub(crate) mod fields;
mod pool;
mod response_body;

pub use allowlist::AllowedHost;
pub(crate) use connector::CheckedStream;
pub use denial::DenialNotices;

use connector::{CheckedConnector, ConnectError};
use decisions::DecisionCache;
use denial::{Denial, DenialLog, Undeliverable};
use destination::Destination;
use pool::{ConnectionPool, SendError};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use wasmtime_wasi_http::{Error, RequestOptions, Result, WasiBody, WasiHttpHooks};

/// The outbound-HTTP grant of one participant, with its connections (shared by the
/// participant's slots through clones).
#[derive(Debug, Clone)]
pub struct HttpPolicy {
    allowed: Arc<[AllowedHost]>,
    notices: Arc<DenialNotices>,
    connections: Arc<ConnectionPool>,
}

impl Default for HttpPolicy {
    fn default() -> Self {
        Self::new(Vec::new(), true, Arc::default())
    }
}

impl HttpPolicy {
    /// A grant of `allowed` destinations; `keep_alive` keeps connections open between
    /// requests; `notices` are the run's console notices of denied requests.
    pub fn new(allowed: Vec<AllowedHost>, keep_alive: bool, notices: Arc<DenialNotices>) -> Self {
        let allowed: Arc<[AllowedHost]> = allowed.into();
        Self {
            connections: Arc::new(ConnectionPool::new(allowed.clone(), keep_alive)),
            allowed,
            notices,
        }
    }

    /// Destinations the participant may reach.
    pub fn allowed(&self) -> &[AllowedHost] {
        &self.allowed
    }

    /// Whether connections are kept alive between requests.
    pub fn keep_alive(&self) -> bool {
        self.connections.keep_alive()
    }

    /// The destination of a request the allowlist lets go out: the one decision every
    /// outbound connection of the participant goes through (its addresses are checked
    /// when the connection is opened).
    pub(crate) fn judge(&self, uri: &http::Uri) -> Result<Destination, Undeliverable> {
        let destination = Destination::of(uri)?;
        if self.allowed.iter().any(|rule| rule.allows(&destination)) {
            Ok(destination)
        } else {
            Err(Undeliverable::Denied(Denial::not_allowed(&destination)))
        }
    }
}

/// The send hook of one sandbox: enforces its policy and remembers denials for its log.
#[derive(Debug)]
pub struct OutboundHttp {
    policy: HttpPolicy,
    decisions: DecisionCache,
    denials: DenialLog,
}

impl OutboundHttp {
    /// A hook enforcing `policy`.
    pub fn new(policy: HttpPolicy) -> Self {
        Self {
            denials: DenialLog::new(policy.notices.clone()),
            decisions: DecisionCache::default(),
            policy,
        }
    }

    /// Takes the denials since the last call: the destination, and why when it is not
    /// the allowlist.
    pub(crate) fn take_denied(&mut self) -> Vec<String> {
        self.denials.take()
    }

    /// Opens a connection to the destination of `uri` (`http` or `https`) for a protocol
    /// that starts over HTTP (WebSocket), under the rules of every request: the allowlist
    /// through this sandbox's decisions, then the checked connector (addresses, TLS for the
    /// URI's own name) within `connect_timeout`. A denial is logged as a request's.
    pub(crate) fn open(
        &mut self,
        uri: &http::Uri,
        connect_timeout: Duration,
    ) -> impl Future<Output = Result<CheckedStream, OpenError>> + Send + 'static {
        let policy = &self.policy;
        let decision = self
            .decisions
            .decide(uri, |uri| policy.judge(uri).map(Arc::new));
        let connector = CheckedConnector::new(self.policy.allowed.clone(), connect_timeout);
        let denials = self.denials.clone();
        async move {
            let destination = match decision {
                Ok(destination) => destination,
                Err(Undeliverable::Invalid) => return Err(OpenError::Invalid),
                Err(Undeliverable::Denied(denial)) => {
                    denials.record(&denial);
                    return Err(OpenError::Denied(denial.notice()));
                }
            };
            connector
                .connect(&destination)
                .await
                .map_err(|error| match error {
                    ConnectError::Denied(denial) => {
                        denials.record(&denial);
                        OpenError::Denied(denial.notice())
                    }
                    other => OpenError::Failed(other.to_string()),
                })
        }
    }
}

/// Why [`OutboundHttp::open`] opened no connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OpenError {
    /// The URI has no host.
    Invalid,
    /// The outbound rules refused it: the console notice's text (destination, reason, the
    /// rule that would allow it).
    Denied(String),
    /// Resolution, connection or TLS failed.
    Failed(String),
}

type ResponseIo = Box<dyn Future<Output = Result<()>> + Send>;
type SendFuture = Box<dyn Future<Output = Result<(http::Response<WasiBody>, ResponseIo)>> + Send>;

impl WasiHttpHooks for OutboundHttp {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: ResponseIo,
    ) -> SendFuture {
        _ = fut;
        let policy = &self.policy;
        let decision = self
            .decisions
            .decide(request.uri(), |uri| policy.judge(uri).map(Arc::new));
        let destination = match decision {
            Ok(destination) => destination,
            Err(Undeliverable::Invalid) => {
                return Box::new(async { Err(Error::HttpRequestUriInvalid) });
            }
            Err(Undeliverable::Denied(denial)) => {
                self.denials.record(&denial);
                return Box::new(async { Err(Error::HttpRequestDenied) });
            }
        };
        let (mut parts, body) = request.into_parts();
        parts.uri = origin_form(&parts.uri);
        let sent = self.policy.connections.send(
            destination,
            http::Request::from_parts(parts, body),
            options,
        );
        let denials = self.denials.clone();
        Box::new(async move {
            match sent.await {
                // The pool's connection task drives the connection; nothing is left to await.
                Ok(response) => Ok((response, Box::new(async { Ok(()) }) as ResponseIo)),
                Err(SendError::Denied(denial)) => {
                    denials.record(&denial);
                    Err(Error::HttpRequestDenied)
                }
                Err(SendError::Failed(error)) => Err(error),
            }
        })
    }
}

/// The request target sent on the connection: the path and query alone (`/` when empty);
/// the destination is the connection's, the `host` header wasmtime-wasi-http's.
fn origin_form(uri: &http::Uri) -> http::Uri {
    match uri.path_and_query() {
        Some(path_and_query) if path_and_query.as_str().starts_with('/') => {
            http::Uri::from(path_and_query.clone())
        }
        _ => http::Uri::from_static("/"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(patterns: &[&str]) -> HttpPolicy {
        let allowed = patterns
            .iter()
            .map(|p| AllowedHost::parse(p).unwrap())
            .collect();
        HttpPolicy::new(allowed, true, Arc::default())
    }

    fn judge(policy: &HttpPolicy, uri: &str) -> Result<String, String> {
        match policy.judge(&uri.parse().unwrap()) {
            Ok(destination) => Ok(destination.to_string()),
            Err(Undeliverable::Denied(denial)) => Err(denial.to_string()),
            Err(Undeliverable::Invalid) => Err("invalid".into()),
        }
    }

    #[test]
    fn the_judged_destination_is_the_uri_s_own() {
        let policy = policy(&["http://127.0.0.1:*"]);
        assert_eq!(
            judge(&policy, "http://127.0.0.1:8080/x"),
            Ok("http://127.0.0.1:8080".into())
        );
        assert_eq!(
            judge(&policy, "https://example.com/"),
            Err("https://example.com:443".into())
        );
    }

    #[test]
    fn userinfo_is_denied_before_the_allowlist_is_asked() {
        let policy = policy(&["*", "http://127.0.0.1:*"]);
        let denied = judge(&policy, "http://127.0.0.1:1@127.0.0.1:2/").unwrap_err();
        assert_eq!(
            denied,
            "http://127.0.0.1:2: the URL carries userinfo (name@host), which bench never sends"
        );
    }

    #[test]
    fn the_request_target_is_the_path_and_query() {
        let target = |uri: &str| origin_form(&uri.parse().unwrap()).to_string();
        assert_eq!(target("http://a.test:8080/x/y?q=1"), "/x/y?q=1");
        assert_eq!(target("http://a.test"), "/");
        assert_eq!(target("https://a.test/"), "/");
    }

    #[test]
    fn denials_are_kept_for_the_task_log() {
        let mut hook = OutboundHttp::new(policy(&[]));
        let request = http::Request::get("http://10.1.2.3:81/")
            .body(WasiBody::default())
            .unwrap();
        drop(hook.send_request(request, None, Box::new(async { Ok(()) })));
        assert_eq!(hook.take_denied(), ["http://10.1.2.3:81"]);
        assert!(hook.take_denied().is_empty());
        // A cached decision is still a denial, logged again.
        let request = http::Request::get("http://10.1.2.3:81/other")
            .body(WasiBody::default())
            .unwrap();
        drop(hook.send_request(request, None, Box::new(async { Ok(()) })));
        assert_eq!(hook.take_denied(), ["http://10.1.2.3:81"]);
    }
}
