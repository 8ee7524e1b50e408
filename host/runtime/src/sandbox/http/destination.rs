//! The destination of a request, parsed once from its URI. The allowlist judges this value and
//! the connector connects to it, so both always see the same scheme, host and port.

use std::fmt;
use std::net::IpAddr;

/// The schemes bench sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Scheme {
    Http,
    Https,
}

impl Scheme {
    /// `http` or `https`, in any case.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        if text.eq_ignore_ascii_case("http") {
            Some(Self::Http)
        } else if text.eq_ignore_ascii_case("https") {
            Some(Self::Https)
        } else {
            None
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
        }
    }

    /// 80 or 443.
    pub(crate) fn default_port(self) -> u16 {
        match self {
            Self::Http => 80,
            Self::Https => 443,
        }
    }
}

/// A host: a name (lowercase, resolved by the connector) or an IP address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Host {
    Name(String),
    Ip(IpAddr),
}

impl Host {
    /// Parses a URI host: brackets around an IPv6 address are removed, names lowercased.
    pub(crate) fn parse(text: &str) -> Self {
        let bare = text
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
            .unwrap_or(text);
        match bare.parse() {
            Ok(ip) => Self::Ip(ip),
            Err(_) => Self::Name(bare.to_ascii_lowercase()),
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(name) => f.write_str(name),
            Self::Ip(IpAddr::V4(ip)) => write!(f, "{ip}"),
            Self::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
        }
    }
}

/// Where a request goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Destination {
    pub(crate) scheme: Scheme,
    pub(crate) host: Host,
    pub(crate) port: u16,
}

/// Why a request URI has no destination bench connects to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Refusal {
    /// No host: not a request anyone could send.
    Invalid,
    /// The authority carries userinfo (`user@host`); the destination after the `@`.
    Userinfo(Destination),
    /// A scheme other than http and https: `scheme://host:port` as the URI names it.
    Scheme(String),
}

impl Destination {
    /// The destination of a request URI. An authority with userinfo (`user@host`) is refused
    /// before anything else looks at it: the host after the `@` is not what a reader of the
    /// URL sees first, and a connector given the whole authority would go elsewhere.
    pub(crate) fn of(uri: &http::Uri) -> Result<Self, Refusal> {
        let authority = uri.authority().ok_or(Refusal::Invalid)?;
        let host = authority.host();
        if host.is_empty() {
            return Err(Refusal::Invalid);
        }
        let scheme_text = uri.scheme_str().unwrap_or("http");
        let Some(scheme) = Scheme::parse(scheme_text) else {
            let port = authority.port_u16().unwrap_or(80);
            return Err(Refusal::Scheme(format!(
                "{}://{}:{port}",
                scheme_text.to_ascii_lowercase(),
                Host::parse(host)
            )));
        };
        let destination = Self {
            scheme,
            host: Host::parse(host),
            port: authority
                .port_u16()
                .unwrap_or_else(|| scheme.default_port()),
        };
        if authority.as_str().contains('@') {
            return Err(Refusal::Userinfo(destination));
        }
        Ok(destination)
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}:{}", self.scheme.as_str(), self.host, self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(uri: &str) -> Result<Destination, Refusal> {
        Destination::of(&uri.parse().unwrap())
    }

    #[test]
    fn scheme_host_and_port_are_parsed_with_defaults() {
        let destination = of("HTTPS://API.Example.com/v1?q=1").unwrap();
        assert_eq!(destination.scheme, Scheme::Https);
        assert_eq!(destination.host, Host::Name("api.example.com".into()));
        assert_eq!(destination.port, 443);
        assert_eq!(destination.to_string(), "https://api.example.com:443");
        let destination = of("http://[::1]:8080/").unwrap();
        assert_eq!(destination.host, Host::Ip("::1".parse().unwrap()));
        assert_eq!(destination.to_string(), "http://[::1]:8080");
        assert_eq!(of("http://10.0.0.1/").unwrap().port, 80);
    }

    #[test]
    fn userinfo_is_refused_whatever_follows_it() {
        for uri in [
            "http://127.0.0.1:1@127.0.0.1:2/",
            "http://user@example.com/",
            "https://user:secret@example.com:8443/x",
        ] {
            assert!(matches!(of(uri), Err(Refusal::Userinfo(_))), "{uri}");
        }
        let Err(Refusal::Userinfo(after)) = of("http://127.0.0.1:1@127.0.0.1:2/") else {
            panic!("userinfo must be refused");
        };
        assert_eq!(after.to_string(), "http://127.0.0.1:2");
    }

    #[test]
    fn other_schemes_are_refused() {
        assert_eq!(
            of("ftp://example.com/"),
            Err(Refusal::Scheme("ftp://example.com:80".into()))
        );
    }
}
