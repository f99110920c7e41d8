//! The fixed header layouts the fast paths handle, as data built from
//! `wire`'s field offsets: where each header starts, so every fixed-offset
//! load reads as `layout + field` instead of a bare number.
//!
//! Linux reads fields through `skb_gro_header_fast` at offsets it walked;
//! the fast paths here skip the walk for frames whose offsets are known
//! in advance (a one-bounds-check test proves a frame has the layout).

use crate::wire::{ethernet, ipv4, ipv6, tcp, udp, vxlan};

/// Where the headers of one fixed layout start, from the frame start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fixed {
    /// The EtherType of the outer Ethernet header.
    pub ethertype: usize,
    /// The IPv4 headers, outermost first (both equal without a tunnel).
    pub ip: [usize; 2],
    /// The tunnel's UDP header (0 without a tunnel).
    pub udp: usize,
    /// The VXLAN header (0 without a tunnel).
    pub vxlan: usize,
    /// The inner Ethernet header (the outer IP without a tunnel).
    pub inner_l2: usize,
    /// The TCP header.
    pub tcp: usize,
}

impl Fixed {
    /// Byte `field` of IPv4 header `k` (0 outer, 1 inner).
    pub(crate) const fn ip4(self, k: usize, field: usize) -> usize {
        self.ip[k] + field
    }

    /// Byte `field` of the TCP header.
    pub(crate) const fn tcp(self, field: usize) -> usize {
        self.tcp + field
    }

    /// Where the TCP options start (the TCP header + 20).
    pub(crate) const fn options(self) -> usize {
        self.tcp + tcp::OPTIONS_OFFSET
    }

    /// The TCP flags byte.
    pub(crate) const fn flags(self) -> usize {
        self.tcp + tcp::FLAGS_OFFSET
    }
}

/// The TOS byte of an IPv4 header (`wire` names it as a field only).
pub(crate) const IP4_TOS: usize = core::mem::offset_of!(ipv4::Ipv4Raw, tos);

/// Ethernet (no VLAN) / IPv4 without options / TCP.
pub(crate) const TCP4: Fixed = Fixed {
    ethertype: ethernet::ETHERTYPE_OFFSET,
    ip: [ethernet::HEADER_LEN, ethernet::HEADER_LEN],
    udp: 0,
    vxlan: 0,
    inner_l2: ethernet::HEADER_LEN,
    tcp: ethernet::HEADER_LEN + ipv4::MIN_HEADER_LEN,
};

/// Raw IPv4 without options / TCP (an L3 TUN's frames).
pub(crate) const RAW_TCP4: Fixed = Fixed {
    ethertype: 0,
    ip: [0, 0],
    udp: 0,
    vxlan: 0,
    inner_l2: 0,
    tcp: ipv4::MIN_HEADER_LEN,
};

/// Ethernet (no VLAN) / IPv6 without extension headers / TCP.
pub(crate) const TCP6: Fixed = Fixed {
    ethertype: ethernet::ETHERTYPE_OFFSET,
    ip: [ethernet::HEADER_LEN, ethernet::HEADER_LEN],
    udp: 0,
    vxlan: 0,
    inner_l2: ethernet::HEADER_LEN,
    tcp: ethernet::HEADER_LEN + ipv6::HEADER_LEN,
};
/// The bytes of [`TCP6`] up to the TCP options.
pub(crate) const TCP6_HDR: usize = TCP6.options();
/// The bytes of [`TCP6`] flow identity covers (through the TCP ports).
pub(crate) const TCP6_ID: usize = TCP6.tcp(tcp::SEQ_OFFSET);

/// The tunnel's UDP header in [`VXLAN4`].
const VX_UDP: usize = ethernet::HEADER_LEN + ipv4::MIN_HEADER_LEN;
/// The inner Ethernet header in [`VXLAN4`].
const VX_INNER_L2: usize = VX_UDP + udp::HEADER_LEN + vxlan::HEADER_LEN;
/// The inner IPv4 header in [`VXLAN4`].
const VX_INNER_IP: usize = VX_INNER_L2 + ethernet::HEADER_LEN;

/// Ethernet / IPv4 / UDP / VXLAN / Ethernet / IPv4 / TCP, no VLAN tags or
/// IPv4 options.
pub(crate) const VXLAN4: Fixed = Fixed {
    ethertype: ethernet::ETHERTYPE_OFFSET,
    ip: [ethernet::HEADER_LEN, VX_INNER_IP],
    udp: VX_UDP,
    vxlan: VX_UDP + udp::HEADER_LEN,
    inner_l2: VX_INNER_L2,
    tcp: VX_INNER_IP + ipv4::MIN_HEADER_LEN,
};

/// The bytes of [`TCP4`] up to the TCP options.
pub(crate) const TCP4_HDR: usize = TCP4.options();
/// The bytes of [`VXLAN4`] up to the TCP options.
pub(crate) const VXLAN4_HDR: usize = VXLAN4.options();
/// The bytes of [`TCP4`] flow identity covers (through the TCP ports).
pub(crate) const TCP4_ID: usize = TCP4.tcp(tcp::SEQ_OFFSET);
/// The bytes of [`VXLAN4`] flow identity covers (through the TCP ports).
pub(crate) const VXLAN4_ID: usize = VXLAN4.tcp(tcp::SEQ_OFFSET);
/// The end of [`TCP4`]'s outer IPv4 header.
pub(crate) const TCP4_IP_END: usize = TCP4.ip[0] + ipv4::MIN_HEADER_LEN;
/// The end of [`VXLAN4`]'s inner IPv4 header.
pub(crate) const VXLAN4_IP_END: usize = VXLAN4.ip[1] + ipv4::MIN_HEADER_LEN;

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers the fast paths were written with (history:
    /// `docs/perf/gro-hot-path.md`).
    #[test]
    fn layouts_are_the_known_offsets() {
        assert_eq!(
            (TCP4.ip, TCP4.tcp, TCP4_HDR, TCP4_ID),
            ([14, 14], 34, 54, 38)
        );
        assert_eq!(
            (
                VXLAN4.ip,
                VXLAN4.udp,
                VXLAN4.vxlan,
                VXLAN4.inner_l2,
                VXLAN4.tcp
            ),
            ([14, 64], 34, 42, 50, 84)
        );
        assert_eq!((VXLAN4_HDR, VXLAN4_ID, VXLAN4_IP_END), (104, 88, 84));
        assert_eq!(IP4_TOS, 1);
    }
}
