//! What a tunnel header said: its kind and the outer facts GRO and callers key on
//! (VNI, GENEVE options, GRE key), and what the outer checksum field held.

use core::ops::Range;

use crate::csum::Sum16;
use crate::wire::Net;

/// The kind of tunnel found at the outer transport layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TunnelKind {
    /// VXLAN over UDP (RFC 7348): inner Ethernet.
    Vxlan,
    /// GENEVE over UDP (RFC 8926): inner Ethernet or IP by protocol type.
    Geneve,
    /// GRE (RFC 2784 / 2890), IP protocol 47, version 0.
    Gre,
    /// IPv4 in IP (protocol 4) or IPv6 in IP (protocol 41): no tunnel header.
    IpInIp,
}

/// What comes right after the tunnel header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InnerProto {
    /// An Ethernet frame (VXLAN, GENEVE / GRE protocol type 0x6558).
    Ethernet,
    /// An IPv4 packet.
    Ipv4,
    /// An IPv6 packet.
    Ipv6,
}

/// The outer checksum as found on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterCsum {
    /// The outer layer has no checksum (IP-in-IP, GRE without the C bit).
    Absent,
    /// A zero UDP checksum: the sender computed none (RFC 768; RFC 6935 for IPv6).
    Zero,
    /// A UDP checksum field, with the pseudo-header.
    Udp(Sum16),
    /// A GRE checksum (C bit), without pseudo-header.
    Gre(Sum16),
}

impl OuterCsum {
    /// True when the checksum counts in `csum_level` (Linux: UDP including a zero
    /// checksum, GRE only with its C bit).
    pub const fn counts_in_level(self) -> bool {
        !matches!(self, OuterCsum::Absent)
    }
}

/// GENEVE header facts (RFC 8926 3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GeneveFacts {
    /// Absolute offset of the variable options; GRO compares
    /// `options_start..options_end` for "same flow".
    pub options_start: usize,
    /// One past the options' last byte (equal to `options_start` when none).
    pub options_end: usize,
    /// O bit: an OAM control packet (not to be delivered as tenant data).
    pub oam: bool,
    /// C bit: critical options present.
    pub critical: bool,
    /// Protocol type (an EtherType).
    pub protocol: u16,
}

impl GeneveFacts {
    /// The options' absolute byte range.
    pub const fn options(&self) -> Range<usize> {
        self.options_start..self.options_end
    }
}

/// GRE header facts (RFC 2784 / 2890).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GreFacts {
    /// Protocol type (an EtherType).
    pub protocol: u16,
    /// Key, when the K bit is set.
    pub key: Option<u32>,
    /// Sequence number, when the S bit is set.
    pub seq: Option<u32>,
}

/// One decapsulated tunnel layer: where it was and what it said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tunnel {
    /// Kind of tunnel.
    pub kind: TunnelKind,
    /// Outer IP version.
    pub outer_net: Net,
    /// Offset of the outer IP header.
    pub outer_l3: usize,
    /// Offset of the outer transport header (UDP, GRE; the inner IP header for IP-in-IP).
    pub outer_l4: usize,
    /// Offset of the tunnel header (after UDP for VXLAN / GENEVE, the GRE header,
    /// or the inner IP header for IP-in-IP).
    pub header: usize,
    /// Offset of the inner packet (its Ethernet or IP header).
    pub inner_start: usize,
    /// What the inner packet starts with.
    pub inner_proto: InnerProto,
    /// End of the outer L4 segment (UDP length, or the outer IP length).
    pub segment_end: usize,
    /// UDP source and destination port for UDP tunnels.
    pub udp_ports: Option<(u16, u16)>,
    /// VXLAN / GENEVE virtual network identifier (24 bits).
    pub vni: Option<u32>,
    /// GENEVE facts.
    pub geneve: Option<GeneveFacts>,
    /// GRE facts.
    pub gre: Option<GreFacts>,
    /// The outer checksum field.
    pub outer_csum: OuterCsum,
}
