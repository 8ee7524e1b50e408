//! Allowed destinations: the rules of `allowedHosts` and `--allow-host`, and the two questions
//! asked of them — may a request go to this destination, and does a rule name this address
//! (which is what unlocks a loopback, private or link-local address).

use super::destination::{Destination, Host, Scheme};
use ipnet::IpNet;
use std::net::IpAddr;

/// One allowed destination.
///
/// Patterns: `https://api.example.com` (that scheme, its default port), `http://127.0.0.1:8080`,
/// `http://127.0.0.1:*` (any port), `http://10.0.0.0/8:*` (an address range),
/// `api.example.com` (http or https, default ports), `*.example.com` (any subdomain), `*`
/// (anywhere public).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHost {
    pattern: String,
    scheme: Option<Scheme>,
    host: HostPattern,
    port: PortRule,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HostPattern {
    /// `*`.
    Any,
    /// `*.example.com`: the domain, without `*.`.
    Subdomains(String),
    /// A name, lowercase.
    Name(String),
    /// An IP address.
    Address(IpAddr),
    /// An address range, `10.0.0.0/8` or `[fd00::/8]`.
    Range(IpNet),
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
            Some((scheme, rest)) => (
                Some(Scheme::parse(scheme).ok_or_else(|| invalid("must use http or https"))?),
                rest,
            ),
            None => (None, pattern),
        };
        let authority = rest.trim_end_matches('/');
        if authority.contains('@') {
            return Err(invalid("must be scheme://host[:port] without a path"));
        }
        let (host, port) = split_host_port(authority);
        let host = match host.to_ascii_lowercase() {
            host if host.is_empty() => return Err(invalid("has no host")),
            host if host == "*" => HostPattern::Any,
            host if host.contains('/') => HostPattern::Range(
                host.parse()
                    .map_err(|_| invalid("must be scheme://host[:port] without a path"))?,
            ),
            host => match host.parse() {
                Ok(address) => HostPattern::Address(address),
                Err(_) => match host.strip_prefix("*.") {
                    Some(domain) => HostPattern::Subdomains(domain.to_owned()),
                    None => HostPattern::Name(host),
                },
            },
        };
        let port = match port {
            None if host == HostPattern::Any => PortRule::Any,
            None => PortRule::SchemeDefault,
            Some("*") => PortRule::Any,
            Some(port) => PortRule::Exactly(
                port.parse()
                    .map_err(|_| invalid("has a port that is neither a number nor *"))?,
            ),
        };
        Ok(Self {
            pattern: pattern.to_owned(),
            scheme,
            host,
            port,
        })
    }

    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether a request to `destination` may go out (its addresses are checked after
    /// resolution, by [`AllowedHost::names_address`]).
    pub(crate) fn allows(&self, destination: &Destination) -> bool {
        let host_ok = match (&self.host, &destination.host) {
            (HostPattern::Any, _) => true,
            (HostPattern::Subdomains(domain), Host::Name(name)) => is_subdomain(name, domain),
            (HostPattern::Name(allowed), Host::Name(name)) => allowed == name,
            (HostPattern::Address(allowed), Host::Ip(ip)) => allowed == ip,
            (HostPattern::Range(range), Host::Ip(ip)) => range.contains(ip),
            _ => false,
        };
        host_ok && self.scheme_and_port_match(destination.scheme, destination.port)
    }

    /// Whether this rule names `address` explicitly for `scheme` and `port`: its IP, a range
    /// holding it, or `localhost` for a loopback address. `*` and `*.example.com` name no
    /// address.
    pub(crate) fn names_address(&self, scheme: Scheme, address: IpAddr, port: u16) -> bool {
        let address = address.to_canonical();
        let named = match &self.host {
            HostPattern::Address(allowed) => allowed.to_canonical() == address,
            HostPattern::Range(range) => range.contains(&address),
            HostPattern::Name(name) => name == "localhost" && address.is_loopback(),
            HostPattern::Any | HostPattern::Subdomains(_) => false,
        };
        named && self.scheme_and_port_match(scheme, port)
    }

    /// Whether everything `asked` lets out (destinations and the addresses it names), this
    /// rule lets out too: how a worker operator's rules bound a run's. Conservative: `*`
    /// covers names, never addresses or ranges (it unlocks no private address).
    pub fn covers(&self, asked: &AllowedHost) -> bool {
        let scheme_ok = match (self.scheme, asked.scheme) {
            (None, _) => true,
            (Some(own), Some(other)) => own == other,
            (Some(_), None) => false,
        };
        let host_ok = match (&self.host, &asked.host) {
            (
                HostPattern::Any,
                HostPattern::Any | HostPattern::Name(_) | HostPattern::Subdomains(_),
            ) => true,
            (HostPattern::Subdomains(domain), HostPattern::Subdomains(other)) => {
                other == domain || is_subdomain(other, domain)
            }
            (HostPattern::Subdomains(domain), HostPattern::Name(name)) => {
                is_subdomain(name, domain)
            }
            (HostPattern::Name(own), HostPattern::Name(other)) => own == other,
            (HostPattern::Address(own), HostPattern::Address(other)) => {
                own.to_canonical() == other.to_canonical()
            }
            (HostPattern::Range(range), HostPattern::Address(address)) => range.contains(address),
            (HostPattern::Range(range), HostPattern::Range(other)) => range.contains(other),
            _ => false,
        };
        let default_port = |port| {
            asked
                .scheme
                .is_some_and(|scheme| scheme.default_port() == port)
        };
        let port_ok = match (self.port, asked.port) {
            (PortRule::Any, _) | (PortRule::SchemeDefault, PortRule::SchemeDefault) => true,
            (PortRule::Exactly(own), PortRule::Exactly(other)) => own == other,
            (PortRule::Exactly(own), PortRule::SchemeDefault) => default_port(own),
            (PortRule::SchemeDefault, PortRule::Exactly(other)) => default_port(other),
            (_, PortRule::Any) => false,
        };
        scheme_ok && host_ok && port_ok
    }

    fn scheme_and_port_match(&self, scheme: Scheme, port: u16) -> bool {
        let port_ok = match self.port {
            PortRule::Any => true,
            PortRule::Exactly(allowed) => allowed == port,
            PortRule::SchemeDefault => port == scheme.default_port(),
        };
        self.scheme.is_none_or(|allowed| allowed == scheme) && port_ok
    }
}

/// Whether `name` is a subdomain of `domain` (not `domain` itself).
fn is_subdomain(name: &str, domain: &str) -> bool {
    name.strip_suffix(domain)
        .is_some_and(|prefix| prefix.ends_with('.'))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(patterns: &[&str]) -> Vec<AllowedHost> {
        patterns
            .iter()
            .map(|p| AllowedHost::parse(p).unwrap())
            .collect()
    }

    fn allowed(patterns: &[&str], uri: &str) -> bool {
        let destination = Destination::of(&uri.parse().unwrap()).unwrap();
        rules(patterns).iter().any(|rule| rule.allows(&destination))
    }

    fn named(patterns: &[&str], scheme: Scheme, address: &str, port: u16) -> bool {
        let address = address.parse().unwrap();
        rules(patterns)
            .iter()
            .any(|rule| rule.names_address(scheme, address, port))
    }

    fn covered(operator: &[&str], asked: &str) -> bool {
        let asked = AllowedHost::parse(asked).unwrap();
        rules(operator).iter().any(|rule| rule.covers(&asked))
    }

    #[test]
    fn an_operator_rule_covers_narrower_rules_only() {
        assert!(covered(&["*"], "https://api.example.com"));
        assert!(covered(&["*"], "*.example.com"));
        assert!(!covered(&["*"], "http://127.0.0.1:*"), "* names no address");
        assert!(covered(&["*.example.com"], "https://api.example.com"));
        assert!(!covered(&["*.example.com"], "https://api.example.com:8443"));
        assert!(covered(
            &["*.example.com:*"],
            "https://api.example.com:8443"
        ));
        assert!(covered(&["*.example.com"], "*.a.example.com"));
        assert!(!covered(&["*.example.com"], "example.com"));
        assert!(!covered(&["*.example.com"], "*"));
        assert!(covered(&["api.example.com"], "https://api.example.com"));
        assert!(
            !covered(&["https://api.example.com"], "api.example.com"),
            "http too"
        );
        assert!(!covered(
            &["https://api.example.com"],
            "https://api.example.com:8443"
        ));
        assert!(covered(
            &["https://api.example.com:443"],
            "https://api.example.com"
        ));
        assert!(covered(&["http://127.0.0.1:*"], "http://127.0.0.1:8080"));
        assert!(!covered(&["http://127.0.0.1:8080"], "http://127.0.0.1:*"));
        assert!(!covered(
            &["http://127.0.0.1:8080"],
            "http://127.0.0.2:8080"
        ));
        assert!(covered(&["http://10.0.0.0/8:*"], "http://10.1.0.0/16:80"));
        assert!(covered(&["http://10.0.0.0/8:*"], "http://10.1.2.3"));
        assert!(!covered(&["http://10.1.0.0/16:*"], "http://10.0.0.0/8:*"));
        assert!(!covered(&[], "https://api.example.com"));
    }

    #[test]
    fn nothing_is_allowed_by_default() {
        assert!(!allowed(&[], "https://example.com/"));
    }

    #[test]
    fn scheme_host_and_port_must_all_match() {
        let hosts = ["https://api.example.com", "http://127.0.0.1:*"];
        assert!(allowed(&hosts, "https://api.example.com/v1"));
        assert!(allowed(&hosts, "https://API.example.com:443/v1"));
        assert!(!allowed(&hosts, "http://api.example.com/"));
        assert!(!allowed(&hosts, "https://api.example.com:8443/"));
        assert!(!allowed(&hosts, "https://evil.api.example.com/"));
        assert!(allowed(&hosts, "http://127.0.0.1:9999/x"));
        assert!(!allowed(&hosts, "http://127.0.0.2:9999/x"));
        assert!(!allowed(&hosts, "https://127.0.0.1:9999/x"));
    }

    #[test]
    fn wildcards_and_schemeless_patterns() {
        let hosts = ["*.example.com", "localhost:8080"];
        assert!(allowed(&hosts, "https://a.example.com/"));
        assert!(allowed(&hosts, "http://b.a.example.com/"));
        assert!(!allowed(&hosts, "https://example.com.evil.net/"));
        assert!(!allowed(&hosts, "https://notexample.com/"));
        assert!(!allowed(&hosts, "https://example.com/"));
        assert!(allowed(&hosts, "http://localhost:8080/"));
        assert!(!allowed(&hosts, "http://localhost:8081/"));
        assert!(allowed(&["*"], "https://anything.test:1/"));
        assert!(allowed(&["*"], "http://[::1]:1/"));
    }

    #[test]
    fn ipv6_addresses_and_ranges() {
        let hosts = [
            "http://[::1]:8080",
            "http://10.0.0.0/8:*",
            "https://[fd00::/8]",
        ];
        assert!(allowed(&hosts, "http://[::1]:8080/"));
        assert!(!allowed(&hosts, "http://[::2]:8080/"));
        assert!(allowed(&hosts, "http://10.20.30.40:81/"));
        assert!(!allowed(&hosts, "http://11.0.0.1:81/"));
        assert!(allowed(&hosts, "https://[fd12::1]/"));
        assert!(!allowed(&hosts, "https://[fe80::1]/"));
        assert!(!allowed(&hosts, "http://[::ffff:127.0.0.1]:8080/"));
    }

    #[test]
    fn only_a_rule_naming_the_address_names_it() {
        let http = Scheme::Http;
        assert!(!named(&["*"], http, "127.0.0.1", 80));
        assert!(!named(&["*.example.com"], http, "10.0.0.1", 80));
        assert!(!named(&["internal.example.com"], http, "10.0.0.1", 80));
        assert!(named(&["http://127.0.0.1:*"], http, "127.0.0.1", 5000));
        assert!(!named(&["http://127.0.0.1:*"], http, "127.0.0.2", 5000));
        assert!(!named(
            &["http://127.0.0.1:*"],
            Scheme::Https,
            "127.0.0.1",
            5000
        ));
        assert!(!named(&["http://127.0.0.1:8080"], http, "127.0.0.1", 22));
        assert!(named(&["http://10.0.0.0/8:*"], http, "10.9.8.7", 1));
        assert!(named(&["http://[fd00::/8]:*"], http, "fd00::5", 1));
        assert!(named(&["http://localhost:*"], http, "127.0.0.1", 3000));
        assert!(named(&["http://localhost:*"], http, "::1", 3000));
        assert!(!named(&["http://localhost:*"], http, "10.0.0.1", 3000));
    }

    #[test]
    fn ipv4_mapped_addresses_are_named_by_their_ipv4_rule() {
        let http = Scheme::Http;
        assert!(named(&["http://127.0.0.1:*"], http, "::ffff:127.0.0.1", 80));
        assert!(named(
            &["http://192.168.0.0/16:*"],
            http,
            "::ffff:192.168.4.4",
            80
        ));
        assert!(!named(
            &["http://127.0.0.1:*"],
            http,
            "::ffff:127.0.0.2",
            80
        ));
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
            AllowedHost::parse("http://user@x").unwrap_err(),
            "allowed host \"http://user@x\" must be scheme://host[:port] without a path"
        );
        assert_eq!(
            AllowedHost::parse("http://x:port").unwrap_err(),
            "allowed host \"http://x:port\" has a port that is neither a number nor *"
        );
        assert_eq!(
            AllowedHost::parse("http://:80").unwrap_err(),
            "allowed host \"http://:80\" has no host"
        );
    }
}
