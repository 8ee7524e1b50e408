//! Outbound HTTP (wasi:http): deny by default. Every request — redirects included, since the
//! guest issues each one itself — is judged in one place, the send hook, by its real
//! destination (the request URI's scheme, host and port, which is where the connection goes),
//! never by a header.

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex};
use wasmtime_wasi_http::{Error, RequestOptions, Result, WasiBody, WasiHttpHooks};

/// One allowed destination.
///
/// Patterns: `https://api.example.com` (that scheme, its default port), `http://127.0.0.1:8080`,
/// `http://127.0.0.1:*` (any port), `api.example.com` (http or https, default ports),
/// `*.example.com` (any subdomain), `*` (anywhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHost {
    pattern: String,
    scheme: Option<String>,
    host: String,
    port: PortRule,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PortRule {
    SchemeDefault,
    Any,
    Exactly(u16),
}

impl AllowedHost {
    /// Parses a pattern; the error names what is wrong with it.
    pub fn parse(pattern: &str) -> Result<Self, String> {
        let invalid = |why: &str| format!("allowed host \"{pattern}\" {why}");
        let (scheme, rest) = match pattern.split_once("://") {
            Some((scheme, rest)) => {
                let scheme = scheme.to_ascii_lowercase();
                if scheme != "http" && scheme != "https" {
                    return Err(invalid("must use http or https"));
                }
                (Some(scheme), rest)
            }
            None => (None, pattern),
        };
        let authority = rest.trim_end_matches('/');
        if authority.contains('/') || authority.contains('@') {
            return Err(invalid("must be scheme://host[:port] without a path"));
        }
        let (host, port) = split_host_port(authority);
        let port = match port {
            None if host == "*" => PortRule::Any,
            None => PortRule::SchemeDefault,
            Some("*") => PortRule::Any,
            Some(port) => PortRule::Exactly(
                port.parse()
                    .map_err(|_| invalid("has a port that is neither a number nor *"))?,
            ),
        };
        if host.is_empty() {
            return Err(invalid("has no host"));
        }
        Ok(Self {
            pattern: pattern.to_owned(),
            scheme,
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    fn allows(&self, scheme: &str, host: &str, port: u16) -> bool {
        let scheme_ok = self.scheme.as_deref().is_none_or(|s| s == scheme);
        let host_ok = self.host == "*"
            || self.host == host
            || self
                .host
                .strip_prefix("*.")
                .is_some_and(|domain| host.ends_with(&format!(".{domain}")));
        let port_ok = match self.port {
            PortRule::Any => true,
            PortRule::Exactly(allowed) => allowed == port,
            PortRule::SchemeDefault => port == default_port(scheme),
        };
        scheme_ok && host_ok && port_ok
    }
}

/// Splits `host[:port]`, keeping IPv6 brackets out of the port.
fn split_host_port(authority: &str) -> (&str, Option<&str>) {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']').unwrap_or((rest, ""));
        return (host, after.strip_prefix(':'));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    }
}

fn default_port(scheme: &str) -> u16 {
    if scheme == "https" {
        443
    } else {
        80
    }
}

/// Says once per destination, for the whole run, that a request was denied.
#[derive(Debug, Default)]
pub struct DenialNotices {
    reported: Mutex<HashSet<String>>,
}

impl DenialNotices {
    fn report(&self, destination: &str) {
        let mut reported = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        if reported.insert(destination.to_owned()) {
            eprintln!("denied request to {destination} (allow it with --allow-host {destination})");
        }
    }
}

/// The outbound-HTTP grant of one participant.
#[derive(Debug, Clone, Default)]
pub struct HttpPolicy {
    /// Destinations the participant may reach.
    pub allowed: Vec<AllowedHost>,
    /// Run-wide denial notices.
    pub notices: Arc<DenialNotices>,
}

impl HttpPolicy {
    /// Whether a request to `scheme://host:port` may go out.
    pub fn allows(&self, scheme: &str, host: &str, port: u16) -> bool {
        self.allowed
            .iter()
            .any(|rule| rule.allows(scheme, host, port))
    }
}

/// The send hook of one sandbox: enforces its policy and remembers denials for its log.
#[derive(Debug, Default)]
pub struct OutboundHttp {
    policy: HttpPolicy,
    denied: Vec<String>,
}

impl OutboundHttp {
    /// A hook enforcing `policy`.
    pub fn new(policy: HttpPolicy) -> Self {
        Self {
            policy,
            denied: Vec::new(),
        }
    }

    /// Takes the destinations denied since the last call.
    pub(crate) fn take_denied(&mut self) -> Vec<String> {
        std::mem::take(&mut self.denied)
    }

    /// The destination of a request as `scheme://host:port`, if it is allowed; else the
    /// denied destination.
    fn judge(&self, uri: &http::Uri) -> Result<(), String> {
        let scheme = uri.scheme_str().unwrap_or("http").to_ascii_lowercase();
        let host = uri
            .host()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let port = uri.port_u16().unwrap_or_else(|| default_port(&scheme));
        if self.policy.allows(&scheme, &host, port) {
            Ok(())
        } else if host.contains(':') {
            Err(format!("{scheme}://[{host}]:{port}"))
        } else {
            Err(format!("{scheme}://{host}:{port}"))
        }
    }
}

type ResponseIo = Box<dyn Future<Output = Result<()>> + Send>;

impl WasiHttpHooks for OutboundHttp {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: ResponseIo,
    ) -> Box<dyn Future<Output = Result<(http::Response<WasiBody>, ResponseIo)>> + Send> {
        _ = fut;
        if let Err(destination) = self.judge(request.uri()) {
            self.policy.notices.report(&destination);
            self.denied.push(destination);
            return Box::new(async { Err(Error::HttpRequestDenied) });
        }
        Box::new(async move {
            use http_body_util::BodyExt;
            let (response, io) = wasmtime_wasi_http::default_send_request(request, options).await?;
            Ok((
                response.map(BodyExt::boxed_unsync),
                Box::new(io) as ResponseIo,
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(patterns: &[&str]) -> OutboundHttp {
        let allowed = patterns
            .iter()
            .map(|p| AllowedHost::parse(p).unwrap())
            .collect();
        OutboundHttp::new(HttpPolicy {
            allowed,
            notices: Default::default(),
        })
    }

    fn judge(hook: &OutboundHttp, url: &str) -> Result<(), String> {
        hook.judge(&url.parse().unwrap())
    }

    #[test]
    fn nothing_is_allowed_by_default() {
        assert_eq!(
            judge(&policy(&[]), "https://example.com/"),
            Err("https://example.com:443".into())
        );
    }

    #[test]
    fn scheme_host_and_port_must_all_match() {
        let hook = policy(&["https://api.example.com", "http://127.0.0.1:*"]);
        assert_eq!(judge(&hook, "https://api.example.com/v1"), Ok(()));
        assert_eq!(judge(&hook, "https://api.example.com:443/v1"), Ok(()));
        assert!(judge(&hook, "http://api.example.com/").is_err());
        assert!(judge(&hook, "https://api.example.com:8443/").is_err());
        assert!(judge(&hook, "https://evil.api.example.com/").is_err());
        assert_eq!(judge(&hook, "http://127.0.0.1:9999/x"), Ok(()));
        assert!(judge(&hook, "http://127.0.0.2:9999/x").is_err());
    }

    #[test]
    fn wildcards_and_schemeless_patterns() {
        let hook = policy(&["*.example.com", "localhost:8080"]);
        assert_eq!(judge(&hook, "https://a.example.com/"), Ok(()));
        assert_eq!(judge(&hook, "http://b.a.example.com/"), Ok(()));
        assert!(judge(&hook, "https://example.com.evil.net/").is_err());
        assert!(judge(&hook, "https://notexample.com/").is_err());
        assert_eq!(judge(&hook, "http://localhost:8080/"), Ok(()));
        assert!(judge(&hook, "http://localhost:8081/").is_err());
        assert_eq!(judge(&policy(&["*"]), "https://anything.test:1/"), Ok(()));
    }

    #[test]
    fn bad_patterns_are_explained() {
        assert_eq!(
            AllowedHost::parse("ftp://x").unwrap_err(),
            "allowed host \"ftp://x\" must use http or https"
        );
        assert_eq!(
            AllowedHost::parse("http://x/path").unwrap_err(),
            "allowed host \"http://x/path\" must be scheme://host[:port] without a path"
        );
        assert_eq!(
            AllowedHost::parse("http://x:port").unwrap_err(),
            "allowed host \"http://x:port\" has a port that is neither a number nor *"
        );
    }
}
