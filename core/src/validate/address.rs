//! Which IP addresses a webhook may be delivered to: public unicast only.
//!
//! Used for literal addresses at validation and, by the server, for every address a
//! host name resolves to at connect time (so DNS rebinding cannot reach inside).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// True when `ip` is a public unicast address: not private, loopback, link-local,
/// CGNAT, multicast, documentation, benchmarking, unspecified or otherwise reserved.
/// IPv4-mapped, IPv4-translated, IPv4-compatible and NAT64 IPv6 addresses are judged by
/// their IPv4 part.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let reserved = a == 0 // "this network"
        || a == 10 // private
        || (a == 100 && (64..128).contains(&b)) // CGNAT 100.64.0.0/10
        || a == 127 // loopback
        || (a == 169 && b == 254) // link-local
        || (a == 172 && (16..32).contains(&b)) // private
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 192 && b == 168) // private
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || a >= 224; // multicast 224/4, reserved 240/4, broadcast
    !reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    // IPv4-compatible ::a.b.c.d (deprecated; it covers :: and ::1 as well, whose "IPv4
    // part" is 0.0.0.0 / 0.0.0.1), IPv4-translated ::ffff:0:a.b.c.d (SIIT, RFC 2765)
    // and NAT64 64:ff9b::a.b.c.d carry an IPv4 address.
    if matches!(
        s[..6],
        [0, 0, 0, 0, 0, 0] | [0, 0, 0, 0, 0xffff, 0] | [0x64, 0xff9b, 0, 0, 0, 0]
    ) {
        return is_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            (s[6] & 0xff) as u8,
            (s[7] >> 8) as u8,
            (s[7] & 0xff) as u8,
        ));
    }
    if s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1 {
        // Local-use NAT64 64:ff9b:1::/48 translates into private networks.
        return false;
    }
    let reserved = (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated) fec0::/10
        || (s[0] & 0xff00) == 0xff00 // multicast ff00::/8
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation 2001:db8::/32
        || (s[0] & 0xfff0) == 0x3ff0 // documentation 3fff::/20
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]) // discard 100::/64
        || (s[0] == 0x2001 && s[1] < 0x0200) // IETF protocol assignments 2001::/23
        || s[0] == 0x2002; // 6to4, whose IPv4 part may be private
    !reserved
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(s: &str) -> bool {
        is_public(s.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)))
    }

    #[test]
    fn public_unicast_is_allowed() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "100.128.0.1",
            "172.32.0.1",
            "2606:4700::1111",
        ] {
            assert!(public(ip), "{ip} should be public");
        }
    }

    #[test]
    fn non_public_ranges_are_refused() {
        for ip in [
            "0.0.0.0",
            "10.1.2.3",
            "100.64.0.1",
            "100.127.255.255",
            "127.0.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "192.0.2.10",
            "198.18.0.1",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:0:127.0.0.1",
            "::ffff:0:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::10.0.0.1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "3fff::1",
            "64:ff9b:1::a00:1",
        ] {
            assert!(!public(ip), "{ip} should not be public");
        }
    }

    #[test]
    fn mapped_public_ipv4_is_allowed() {
        assert!(public("::ffff:8.8.8.8"));
        assert!(public("::ffff:0:8.8.8.8"));
        assert!(public("64:ff9b::8.8.8.8"));
    }
}
