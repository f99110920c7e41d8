//! The result of [`parse`](super::parse()): where each layer starts and what it is.

/// How the buffer begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, zerocopy::FromZeros)]
#[repr(u8)]
pub enum LinkType {
    /// An Ethernet II frame (with optional VLAN tags).
    Ethernet,
    /// A bare IP packet (version from the first nibble), as from an L3 TUN.
    RawIp,
}

/// The network layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Net {
    /// IPv4.
    Ipv4,
    /// IPv6.
    Ipv6,
}

/// The transport (or next) protocol after the IP header and its extension headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// TCP (checksum at offset 16).
    Tcp,
    /// UDP (checksum at offset 6).
    Udp,
    /// SCTP (CRC32c at offset 8).
    Sctp,
    /// ICMP for IPv4 (checksum at offset 2, no pseudo-header).
    Icmp,
    /// ICMPv6 (checksum at offset 2, with pseudo-header).
    Icmpv6,
    /// GRE (checksum present only with the C bit).
    Gre,
    /// IPv4 in IP (protocol 4).
    Ipip,
    /// IPv6 in IP (protocol 41).
    Ipv6InIp,
    /// Anything else, by protocol number; not parsed further.
    Other(u8),
}

impl Transport {
    /// Maps an IP protocol number.
    pub const fn from_proto(proto: u8) -> Transport {
        use super::consts::ipproto;
        match proto {
            ipproto::TCP => Transport::Tcp,
            ipproto::UDP => Transport::Udp,
            ipproto::SCTP => Transport::Sctp,
            ipproto::ICMP => Transport::Icmp,
            ipproto::ICMPV6 => Transport::Icmpv6,
            ipproto::GRE => Transport::Gre,
            ipproto::IPIP => Transport::Ipip,
            ipproto::IPV6 => Transport::Ipv6InIp,
            other => Transport::Other(other),
        }
    }

    /// Offset of the 16-bit Internet checksum field inside this header, if it has one
    /// at a fixed place (GRE's is at 4 only with the C bit; SCTP's CRC32c is 32-bit at 8).
    pub const fn csum_offset(self) -> Option<usize> {
        match self {
            Transport::Tcp => Some(super::tcp::CHECKSUM_OFFSET),
            Transport::Udp => Some(super::udp::CHECKSUM_OFFSET),
            Transport::Icmp | Transport::Icmpv6 => Some(super::icmp::CHECKSUM_OFFSET),
            _ => None,
        }
    }
}

/// IP fragmentation facts (IPv4 MF/offset, IPv6 fragment header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fragment {
    /// True when the packet is a fragment (MF set or a non-zero offset, or an
    /// IPv6 fragment header that is not atomic).
    pub is_fragment: bool,
    /// Fragment offset in bytes.
    pub offset: usize,
    /// More-fragments flag.
    pub more: bool,
    /// An IPv6 fragment header is present (even an atomic one).
    pub has_header: bool,
}

/// Offsets of every layer of one packet, all counted from the start of the buffer.
///
/// `l2 <= l3 < l4 <= payload <= end <= buffer length` always holds for a value
/// returned by [`parse`](super::parse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layers {
    /// How the buffer begins.
    pub link: LinkType,
    /// Offset of the link header (0 for Ethernet; equal to `l3` for raw IP).
    pub l2: usize,
    /// Number of VLAN tags (0..=2).
    pub vlan_count: u8,
    /// The tags' TCIs, outermost first (unused entries are 0).
    pub vlan_tci: [u16; 2],
    /// Offset of the IP header.
    pub l3: usize,
    /// IPv4 or IPv6.
    pub net: Net,
    /// Offset of the transport header (after IPv4 options / IPv6 extension headers).
    pub l4: usize,
    /// The protocol number found at `l4`.
    pub ip_proto: u8,
    /// The protocol found at `l4`.
    pub transport: Transport,
    /// Offset of the transport payload (after TCP options, the UDP header, the
    /// GRE header...); equal to `l4` when the transport is not parsed.
    pub payload: usize,
    /// End of the IP datagram by its length field; bytes after it are padding.
    pub end: usize,
    /// Fragmentation facts.
    pub fragment: Fragment,
    /// Offset of the 4- or 16-byte source address the pseudo-header uses
    /// (IPv6 Home Address option moves it).
    pub pseudo_src: usize,
    /// Offset of the destination address the pseudo-header uses (an IPv6
    /// routing header with segments left moves it to the final segment).
    pub pseudo_dst: usize,
}

impl Layers {
    /// Length of the L4 segment by the IP header (what the pseudo-header counts).
    pub const fn l4_len(&self) -> usize {
        self.end - self.l4
    }

    /// Length of the IP header including IPv4 options / IPv6 extension headers.
    pub const fn l3_header_len(&self) -> usize {
        self.l4 - self.l3
    }

    /// Length of the transport payload.
    pub const fn payload_len(&self) -> usize {
        self.end - self.payload
    }
}
