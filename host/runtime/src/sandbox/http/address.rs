//! Which IP addresses a task may not reach unless a rule names them: loopback, private (RFC
//! 1918, ULA), link-local (cloud metadata at 169.254.169.254 included), shared (CGNAT),
//! unspecified, broadcast, multicast, and the other special-purpose ranges of the IANA
//! registries. An IPv6 address embedding an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`, NAT64
//! `64:ff9b::/96`) is judged by the IPv4 address it reaches.

use ipnet::{Ipv4Net, Ipv6Net};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A range that is not the public internet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpecialRange {
    Unspecified,
    Loopback,
    Private,
    LinkLocal,
    SharedNat,
    Broadcast,
    Multicast,
    Documentation,
    Benchmarking,
    Reserved,
}

impl fmt::Display for SpecialRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Unspecified => "an unspecified address",
            Self::Loopback => "a loopback address",
            Self::Private => "a private address",
            Self::LinkLocal => "a link-local address",
            Self::SharedNat => "a shared (carrier-grade NAT) address",
            Self::Broadcast => "the broadcast address",
            Self::Multicast => "a multicast address",
            Self::Documentation => "a documentation address",
            Self::Benchmarking => "a benchmarking-network address",
            Self::Reserved => "a reserved address",
        })
    }
}

use SpecialRange::*;

const fn v4(a: u8, b: u8, c: u8, d: u8, prefix: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), prefix)
}

const fn v6(segments: [u16; 8], prefix: u8) -> Ipv6Net {
    let [a, b, c, d, e, f, g, h] = segments;
    Ipv6Net::new_assert(Ipv6Addr::new(a, b, c, d, e, f, g, h), prefix)
}

/// IPv4 special-purpose ranges; the first match names the range.
const IPV4: &[(Ipv4Net, SpecialRange)] = &[
    (v4(0, 0, 0, 0, 8), Unspecified),
    (v4(10, 0, 0, 0, 8), Private),
    (v4(100, 64, 0, 0, 10), SharedNat),
    (v4(127, 0, 0, 0, 8), Loopback),
    (v4(169, 254, 0, 0, 16), LinkLocal),
    (v4(172, 16, 0, 0, 12), Private),
    (v4(192, 0, 0, 0, 24), Reserved),
    (v4(192, 0, 2, 0, 24), Documentation),
    (v4(192, 88, 99, 0, 24), Reserved),
    (v4(192, 168, 0, 0, 16), Private),
    (v4(198, 18, 0, 0, 15), Benchmarking),
    (v4(198, 51, 100, 0, 24), Documentation),
    (v4(203, 0, 113, 0, 24), Documentation),
    (v4(224, 0, 0, 0, 4), Multicast),
    (v4(255, 255, 255, 255, 32), Broadcast),
    (v4(240, 0, 0, 0, 4), Reserved),
];

/// IPv6 special-purpose ranges (after IPv4-embedding addresses were judged as IPv4).
const IPV6: &[(Ipv6Net, SpecialRange)] = &[
    (v6([0; 8], 128), Unspecified),
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), Loopback),
    // IPv4-compatible addresses (deprecated).
    (v6([0; 8], 96), Reserved),
    // Local-use IPv4/IPv6 translation.
    (v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48), Private),
    // Discard-only.
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), Reserved),
    (v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), Documentation),
    // IETF protocol assignments (Teredo and others).
    (v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23), Reserved),
    // 6to4: an IPv4 address in IPv6 clothing.
    (v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), Reserved),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), Documentation),
    // Segment routing.
    (v6([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16), Reserved),
    (v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), Private),
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), LinkLocal),
    // Site-local (deprecated).
    (v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10), Private),
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), Multicast),
];

/// NAT64's well-known prefix: the last 32 bits are the IPv4 address reached.
const NAT64: Ipv6Net = v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96);

/// The special range `address` is in; `None` for a public address.
pub(crate) fn special_range(address: IpAddr) -> Option<SpecialRange> {
    match address {
        IpAddr::V4(ip) => special_v4(ip),
        IpAddr::V6(ip) => match embedded_v4(ip) {
            Some(v4) => special_v4(v4),
            None => IPV6
                .iter()
                .find(|(net, _)| net.contains(&ip))
                .map(|(_, range)| *range),
        },
    }
}

fn special_v4(ip: Ipv4Addr) -> Option<SpecialRange> {
    IPV4.iter()
        .find(|(net, _)| net.contains(&ip))
        .map(|(_, range)| *range)
}

/// The IPv4 address an IPv4-mapped or NAT64 address reaches.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    NAT64
        .contains(&ip)
        .then(|| Ipv4Addr::from_bits(ip.to_bits() as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(text: &str) -> Option<SpecialRange> {
        special_range(text.parse().unwrap())
    }

    #[test]
    fn ipv4_special_ranges() {
        for (address, expected) in [
            ("127.0.0.1", Loopback),
            ("127.255.255.254", Loopback),
            ("10.1.2.3", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("192.168.1.1", Private),
            ("169.254.169.254", LinkLocal),
            ("100.64.0.1", SharedNat),
            ("100.127.255.255", SharedNat),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("255.255.255.255", Broadcast),
            ("224.0.0.1", Multicast),
            ("239.255.255.250", Multicast),
            ("240.0.0.1", Reserved),
            ("192.0.0.8", Reserved),
            ("192.0.2.1", Documentation),
            ("198.18.0.1", Benchmarking),
        ] {
            assert_eq!(range(address), Some(expected), "{address}");
        }
    }

    #[test]
    fn public_ipv4_addresses_are_not_special() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "172.15.255.255",
            "172.32.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "169.253.0.1",
            "192.169.0.1",
            "223.255.255.255",
        ] {
            assert_eq!(range(address), None, "{address}");
        }
    }

    #[test]
    fn ipv6_special_ranges() {
        for (address, expected) in [
            ("::", Unspecified),
            ("::1", Loopback),
            ("fd00::1", Private),
            ("fc00::1", Private),
            ("fe80::1", LinkLocal),
            ("fec0::1", Private),
            ("ff02::1", Multicast),
            ("2001:db8::1", Documentation),
            ("::127.0.0.1", Reserved),
            ("2002:7f00:1::", Reserved),
            ("64:ff9b:1::1", Private),
        ] {
            assert_eq!(range(address), Some(expected), "{address}");
        }
        for address in ["2606:4700:4700::1111", "2a00:1450:4001::200e"] {
            assert_eq!(range(address), None, "{address}");
        }
    }

    #[test]
    fn ipv4_mapped_and_nat64_addresses_are_judged_as_the_ipv4_they_reach() {
        assert_eq!(range("::ffff:127.0.0.1"), Some(Loopback));
        assert_eq!(range("::ffff:169.254.169.254"), Some(LinkLocal));
        assert_eq!(range("::ffff:192.168.0.10"), Some(Private));
        assert_eq!(range("::ffff:8.8.8.8"), None);
        assert_eq!(range("64:ff9b::10.0.0.1"), Some(Private));
        assert_eq!(range("64:ff9b::127.0.0.1"), Some(Loopback));
        assert_eq!(range("64:ff9b::8.8.8.8"), None);
    }
}
