//! The segmentation vocabulary every room shares: Linux's `SKB_GSO_*` type
//! bits ([`GsoType`]), the one kind a paravirt header can ask for
//! ([`GsoKind`]), and the plain parameters of a segmentation request
//! ([`GsoParams`]).
//!
//! Here, below every user, because GRO writes these, transmit reads them and
//! the paravirt boundaries carry them; none of those rooms owns them. Plain
//! values: nothing here reads packet bytes.

use super::{Layers, Net, Transport};

/// Segmentation type of a super-packet (Linux `SKB_GSO_*`): what GRO's
/// `*_gro_complete` functions set and what transmit segmentation reads, so a
/// GRO super-packet goes to the transmit room as it is.
///
/// Declared outside `bitflags!` so that all-zero memory is a valid value
/// (`FromZeros`, for tables built in place).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, zerocopy::FromZeros)]
#[repr(transparent)]
pub struct GsoType(u32);

bitflags::bitflags! {
    impl GsoType: u32 {
        /// TCP over IPv4 (`SKB_GSO_TCPV4`).
        const TCPV4 = 1 << 0;
        /// TCP over IPv6 (`SKB_GSO_TCPV6`).
        const TCPV6 = 1 << 1;
        /// The outermost IPv4 ID is fixed (`SKB_GSO_TCP_FIXEDID`).
        const TCP_FIXEDID = 1 << 2;
        /// The inner IPv4 ID of a tunnel is fixed (`SKB_GSO_TCP_FIXEDID_INNER`).
        const TCP_FIXEDID_INNER = 1 << 3;
        /// CWR was set (`SKB_GSO_TCP_ACCECN` in mainline).
        const TCP_ACCECN = 1 << 4;
        /// UDP L4 segmentation (`SKB_GSO_UDP_L4`).
        const UDP_L4 = 1 << 5;
        /// UDP tunnel, outer checksum zero (`SKB_GSO_UDP_TUNNEL`).
        const UDP_TUNNEL = 1 << 6;
        /// UDP tunnel with an outer checksum to fill (`SKB_GSO_UDP_TUNNEL_CSUM`).
        const UDP_TUNNEL_CSUM = 1 << 7;
        /// GRE (`SKB_GSO_GRE`).
        const GRE = 1 << 8;
        /// GRE with its checksum to fill (`SKB_GSO_GRE_CSUM`).
        const GRE_CSUM = 1 << 9;
        /// IP in IPv4 (`SKB_GSO_IPXIP4`).
        const IPXIP4 = 1 << 10;
        /// IP in IPv6 (`SKB_GSO_IPXIP6`).
        const IPXIP6 = 1 << 11;
        /// RFC 3168 CWR on a locally built super-packet: segmentation keeps CWR
        /// on the first segment only (`SKB_GSO_TCP_ECN`; set by the transmit
        /// side, never by GRO, which uses `TCP_ACCECN`).
        const TCP_ECN = 1 << 12;
    }
}

crate::wire::flags_debug!(GsoType);

/// The segmentation a paravirt header (virtio-net, Xen, DPDK) asks for: one
/// kind, where [`GsoType`] is a set of bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GsoKind {
    /// TCP over IPv4.
    TcpV4,
    /// TCP over IPv6.
    TcpV6,
    /// UDP fragmentation (UFO): IP fragments, `gso_size` counts the UDP header.
    Ufo,
    /// UDP segmentation (USO): one UDP datagram per `gso_size` bytes.
    UdpL4,
}

impl GsoKind {
    /// The GSO kind the parsed packet would need (`None` when it cannot be GSO).
    pub const fn for_layers(layers: &Layers) -> Option<GsoKind> {
        match (layers.net, layers.transport) {
            (Net::Ipv4, Transport::Tcp) => Some(GsoKind::TcpV4),
            (Net::Ipv6, Transport::Tcp) => Some(GsoKind::TcpV6),
            (_, Transport::Udp) => Some(GsoKind::UdpL4),
            _ => None,
        }
    }

    /// True when the parsed packet is one this kind can segment.
    pub(crate) const fn matches(self, layers: &Layers) -> bool {
        matches!(
            (self, layers.net, layers.transport),
            (GsoKind::TcpV4, Net::Ipv4, Transport::Tcp)
                | (GsoKind::TcpV6, Net::Ipv6, Transport::Tcp)
                | (GsoKind::Ufo | GsoKind::UdpL4, _, Transport::Udp)
        )
    }
}

/// The segmentation parameters of a GSO packet or super-packet, as a
/// paravirt header carries them (Linux `skb_shinfo(skb)->gso_*`).
///
/// Both directions use it: a received header's checked parameters (Linux
/// marks the packet `SKB_GSO_DODGY`: checked, segment count recomputed) and
/// the parameters handed to a peer with a super-packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GsoParams {
    /// Segmentation kind.
    pub kind: GsoKind,
    /// ECN: replicate CWR on the first segment only.
    pub ecn: bool,
    /// Payload bytes per segment.
    pub gso_size: u16,
    /// Header length to replicate (transport offset + L4 header). Received:
    /// parsed from the packet, the peer's `hdr_len` is only a hint.
    pub hdr_len: usize,
    /// Number of segments. Received: computed from the payload, never read
    /// from the peer; handed out: written only with virtio `RSC_INFO`.
    pub segs: usize,
}
