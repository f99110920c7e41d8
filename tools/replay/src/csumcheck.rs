//! Checksum facts of one level, computed from the bytes with `netoffload::csum`:
//! which checksums exist, and whether each verifies.

use netoffload::csum::{self, Wsum};
use netoffload::wire::{Layers, Net, Transport};

/// A checksum's layer name as written in the `--verdicts` CSV.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CsumLayer {
    /// IPv4 header checksum.
    Ipv4,
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
    /// SCTP CRC32c.
    Sctp,
    /// ICMP (IPv4).
    Icmp,
    /// ICMPv6.
    Icmpv6,
    /// GRE with the C bit.
    Gre,
}

impl CsumLayer {
    /// CSV name.
    pub fn name(self) -> &'static str {
        match self {
            CsumLayer::Ipv4 => "ipv4",
            CsumLayer::Tcp => "tcp",
            CsumLayer::Udp => "udp",
            CsumLayer::Sctp => "sctp",
            CsumLayer::Icmp => "icmp",
            CsumLayer::Icmpv6 => "icmpv6",
            CsumLayer::Gre => "gre",
        }
    }
}

/// What a checksum check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Verifies.
    Good,
    /// Does not verify.
    Bad,
    /// UDP checksum absent (zero).
    Zero,
    /// Cannot be checked from these bytes (a fragment, a truncated frame).
    Unverified,
}

impl Status {
    /// CSV name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Good => "good",
            Status::Bad => "bad",
            Status::Zero => "zero",
            Status::Unverified => "unverified",
        }
    }
}

/// The L4 (or GRE) checksum a level carries, if any: its layer name.
pub fn l4_layer(bytes: &[u8], l: &Layers) -> Option<CsumLayer> {
    if l.fragment.offset != 0 {
        return None; // a non-first fragment carries no transport header
    }
    match l.transport {
        Transport::Tcp => Some(CsumLayer::Tcp),
        Transport::Udp => Some(CsumLayer::Udp),
        Transport::Sctp => Some(CsumLayer::Sctp),
        Transport::Icmp => Some(CsumLayer::Icmp),
        Transport::Icmpv6 => Some(CsumLayer::Icmpv6),
        Transport::Gre if gre_has_csum(bytes, l.l4) => Some(CsumLayer::Gre),
        _ => None,
    }
}

/// True when the GRE header at `at` has its C bit set.
pub fn gre_has_csum(bytes: &[u8], at: usize) -> bool {
    bytes.get(at).is_some_and(|b| b & 0x80 != 0)
}

/// The pseudo-header sum of a level for `proto` (TCP/UDP/ICMPv6), from the
/// addresses the parser chose (routing header final destination, home address).
pub fn pseudo(bytes: &[u8], l: &Layers, proto: u8) -> Wsum {
    let len = l.l4_len() as u32;
    match l.net {
        Net::Ipv4 => {
            let mut s = [0u8; 4];
            let mut d = [0u8; 4];
            s.copy_from_slice(&bytes[l.pseudo_src..l.pseudo_src + 4]);
            d.copy_from_slice(&bytes[l.pseudo_dst..l.pseudo_dst + 4]);
            csum::pseudo_v4(s, d, proto, len, Wsum::ZERO)
        }
        Net::Ipv6 => {
            let mut s = [0u8; 16];
            let mut d = [0u8; 16];
            s.copy_from_slice(&bytes[l.pseudo_src..l.pseudo_src + 16]);
            d.copy_from_slice(&bytes[l.pseudo_dst..l.pseudo_dst + 16]);
            csum::pseudo_v6(&s, &d, proto, len, Wsum::ZERO)
        }
    }
}

/// The seed a checksum of `layer` starts from: the pseudo-header for TCP, UDP
/// and ICMPv6, zero for ICMP and GRE.
pub fn seed(bytes: &[u8], l: &Layers, layer: CsumLayer) -> Wsum {
    match layer {
        CsumLayer::Tcp | CsumLayer::Udp | CsumLayer::Icmpv6 => pseudo(bytes, l, l.ip_proto),
        _ => Wsum::ZERO,
    }
}

/// True when the UDP checksum field of the level is zero.
pub fn udp_zero(bytes: &[u8], l: &Layers) -> bool {
    bytes.get(l.l4 + 6..l.l4 + 8) == Some(&[0, 0])
}

/// Checks the IPv4 header checksum of a level.
pub fn ipv4_status(bytes: &[u8], l: &Layers) -> Status {
    if csum::ipv4_header(&bytes[l.l3..l.l4]).is_zero() {
        Status::Good
    } else {
        Status::Bad
    }
}

/// Checks the level's L4 checksum from scratch (the software path), with the
/// number of bytes summed.
pub fn l4_status(bytes: &[u8], l: &Layers, layer: CsumLayer) -> (Status, usize) {
    if l.fragment.is_fragment {
        return (Status::Unverified, 0);
    }
    let seg = &bytes[l.l4..l.end];
    match layer {
        CsumLayer::Ipv4 => (ipv4_status(bytes, l), 0),
        CsumLayer::Udp if udp_zero(bytes, l) => (Status::Zero, 0),
        CsumLayer::Sctp => {
            let stored = match seg.get(8..12) {
                Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
                _ => return (Status::Unverified, 0),
            };
            let mut copy = seg.to_vec();
            copy[8..12].copy_from_slice(&[0; 4]);
            let ok = csum::crc32c(&copy) == stored;
            (if ok { Status::Good } else { Status::Bad }, seg.len())
        }
        _ => {
            let sum = csum::partial(seg, seed(bytes, l, layer));
            let ok = csum::fold(sum).is_zero();
            (if ok { Status::Good } else { Status::Bad }, seg.len())
        }
    }
}
