//! Linux's acceptance rules for a virtio-net header that need only the header,
//! the frame length and the link header: `virtio_net_hdr_to_skb`
//! (`include/linux/virtio_net.h`), `skb_partial_csum_set` (`net/core/skbuff.c`),
//! tun's `tun_vnet_hdr_get` and `tun_get_user` (`drivers/net/tun_vnet.h`,
//! `drivers/net/tun.c`) and the virtio_net driver's short-frame drop and
//! `virtio_net_handle_csum_offload` (`drivers/net/virtio_net.c`).
//!
//! They run before any parsing and under every policy, so a frame that does not
//! parse is checked exactly as one that does; a parsed frame then meets the
//! stricter rules of [`VirtioNetHdr::to_meta`] (start at the transport header,
//! the parsed protocol's offset, the seed). [`check_handed_out`] holds
//! [`VirtioNetHdr::from_meta`] to the same offset rules. tests/virtio_linux_rules.rs
//! has one named case per rule.

use crate::wire::consts::ethertype;
use crate::wire::ethernet::VLAN_TAG_LEN;
use crate::wire::{EthernetHeader, LinkType, VlanTag};

use super::hdr::{VirtioFlags, VirtioNetHdr};
use super::to_meta::{Direction, UDP_MAX_SEGMENTS, VirtioPolicy};
use crate::state::paravirt::error::{BoundaryError, MetaErrorKind, MetaField, Rule};
use crate::wire::GsoKind;

/// Linux `ETH_HLEN`: a tap refuses a shorter frame and a non-zero `hdr_len`
/// below it (`tun_get_user`); the virtio_net driver drops a shorter frame.
pub const ETH_HLEN: usize = 14;

/// Linux `NET_SKB_PAD` on x86-64 and arm64 (64-byte cache lines): the headroom
/// tun reserves before a guest frame, which `skb_partial_csum_set` adds to
/// `csum_start` before comparing it with `U16_MAX`.
pub const NET_SKB_PAD: usize = 64;

/// The largest `csum_start` accepted: `skb_partial_csum_set` refuses
/// `headroom + start >= U16_MAX` (65535 - 64 - 1 = 65470).
pub const CSUM_START_MAX: usize = u16::MAX as usize - NET_SKB_PAD - 1;

/// Linux `nh_min_len`: the smallest network header a transport can follow
/// (`sizeof(struct iphdr)`, or `sizeof(struct ipv6hdr)` for `GSO_TCPV6`).
pub const fn nh_min_len(gso: Option<GsoKind>) -> usize {
    match gso {
        Some(GsoKind::TcpV6) => 40,
        _ => 20,
    }
}

/// Linux `thlen`: the transport header a GSO type needs (`sizeof(struct
/// tcphdr)` or `sizeof(struct udphdr)`; 0 without GSO).
pub const fn thlen(gso: Option<GsoKind>) -> usize {
    match gso {
        Some(GsoKind::TcpV4 | GsoKind::TcpV6) => 20,
        Some(GsoKind::Ufo | GsoKind::UdpL4) => 8,
        None => 0,
    }
}

/// The checksum offset a GSO type fixes (`virtio_net_hdr_to_skb`: 16 for
/// TCPV4/TCPV6, 6 for UDP_L4; UFO and non-GSO leave it free).
pub const fn gso_csum_offset(gso: Option<GsoKind>) -> Option<usize> {
    match gso {
        Some(GsoKind::TcpV4 | GsoKind::TcpV6) => Some(crate::wire::tcp::CHECKSUM_OFFSET),
        Some(GsoKind::UdpL4) => Some(crate::wire::udp::CHECKSUM_OFFSET),
        Some(GsoKind::Ufo) | None => None,
    }
}

/// Where the network header begins by the link header alone: after the
/// Ethernet header and every VLAN / QinQ tag (0 for raw IP). Read without
/// parsing the rest, so it exists for frames that are not IP.
pub fn network_start(frame: &[u8], link: LinkType) -> usize {
    if link == LinkType::RawIp {
        return 0;
    }
    let Ok(eth) = EthernetHeader::new_checked(frame) else {
        return ETH_HLEN;
    };
    let mut at = eth.header_len();
    let mut next = eth.ethertype();
    while next == ethertype::VLAN || next == ethertype::QINQ {
        let tag = frame.get(at..).map(VlanTag::new_checked);
        at += VLAN_TAG_LEN;
        match tag {
            Some(Ok(tag)) => next = tag.ethertype(),
            _ => break,
        }
    }
    at
}

/// The frame as a whole: an Ethernet frame of at least `ETH_HLEN` bytes
/// (`tun_get_user` on a tap, the virtio_net driver's `receive_buf`), a raw IP
/// frame whose version nibble is 4 or 6 (`tun_get_user` on a TUN without
/// packet information).
pub fn check_frame(frame: &[u8], link: LinkType) -> Result<(), BoundaryError> {
    match link {
        LinkType::Ethernet if frame.len() < ETH_HLEN => Err(BoundaryError::new(
            MetaField::Packet,
            MetaErrorKind::Truncated {
                needed: ETH_HLEN,
                available: frame.len(),
            },
        )),
        LinkType::RawIp => match frame.first().map(|b| b >> 4) {
            Some(4 | 6) => Ok(()),
            Some(version) => Err(BoundaryError::unsupported(
                MetaField::Packet,
                version as u64,
            )),
            None => Err(BoundaryError::new(
                MetaField::Packet,
                MetaErrorKind::Truncated {
                    needed: 1,
                    available: 0,
                },
            )),
        },
        LinkType::Ethernet => Ok(()),
    }
}

/// `DATA_VALID` with `UDP_TUNNEL_CSUM` from a device: the virtio_net driver
/// refuses it unless the tunnel checksum feature was negotiated, which this
/// boundary never does (`virtio_net_handle_csum_offload`). A driver's bit is
/// ignored, as tun does (`virtio_net_hdr_tnl_to_skb` without a tunnel type).
pub fn check_tunnel_csum(flags: VirtioFlags, direction: Direction) -> Result<(), BoundaryError> {
    let both = VirtioFlags::DATA_VALID.union(VirtioFlags::UDP_TUNNEL_CSUM);
    if direction == Direction::FromDevice && flags.contains(both) {
        return Err(BoundaryError::forbidden(
            MetaField::VirtioFlags,
            Rule::TunnelCsumNotNegotiated,
        ));
    }
    Ok(())
}

/// `NEEDS_CSUM` offsets by Linux's rules: `csum_start + max(thlen,
/// csum_offset + 2)` inside the frame (`pskb_may_pull`, `skb_partial_csum_set`), the start
/// below `U16_MAX` with the headroom, at least `nh_min_len` past the network
/// header, and the offset a GSO type fixes.
///
/// Stricter than Linux in one place, on purpose: Linux counts `nh_min_len`
/// from the frame start (tun and virtio_net call `virtio_net_hdr_to_skb` while
/// `skb->data` is still the MAC header), so a tap accepts `csum_start` 20 on an
/// Ethernet frame; here it counts from the end of the link header (34 for plain
/// Ethernet), so no fill can write into a link header (the QinQ EtherType at
/// byte 20).
pub fn check_csum_offsets(
    hdr: &VirtioNetHdr,
    frame: &[u8],
    link: LinkType,
    gso: Option<GsoKind>,
) -> Result<(), BoundaryError> {
    let start = hdr.csum_start as usize;
    let offset = hdr.csum_offset as usize;
    let len = frame.len();
    if start >= len {
        return Err(BoundaryError::out_of_packet(
            MetaField::VirtioCsumStart,
            start,
            len,
        ));
    }
    let field_end = start + offset + 2;
    if field_end > len {
        return Err(BoundaryError::out_of_packet(
            MetaField::VirtioCsumOffset,
            field_end,
            len,
        ));
    }
    let header_end = start + thlen(gso);
    if header_end > len {
        return Err(BoundaryError::out_of_packet(
            MetaField::VirtioCsumStart,
            header_end,
            len,
        ));
    }
    let min = network_start(frame, link) + nh_min_len(gso);
    check_start_and_offset(start, offset, min, gso)
}

/// The header a peer's `virtio_net_hdr_to_skb` receives from
/// [`VirtioNetHdr::from_meta`] passes its offset rules: `csum_start` at least
/// `nh_min_len` (counted from the frame start, as Linux does: the peer's link
/// is not known here) and at most [`CSUM_START_MAX`], and the offset a GSO
/// type fixes. Linux's `virtio_net_hdr_from_skb` does not check them; its
/// skbs cannot break them.
pub fn check_handed_out(
    start: usize,
    offset: usize,
    gso: Option<GsoKind>,
) -> Result<(), BoundaryError> {
    check_start_and_offset(start, offset, nh_min_len(gso), gso)
}

/// `csum_start` within `min..=CSUM_START_MAX`, `csum_offset` the one a GSO type fixes.
fn check_start_and_offset(
    start: usize,
    offset: usize,
    min: usize,
    gso: Option<GsoKind>,
) -> Result<(), BoundaryError> {
    if start > CSUM_START_MAX {
        return Err(BoundaryError::too_large(
            MetaField::VirtioCsumStart,
            start,
            CSUM_START_MAX,
        ));
    }
    if start < min {
        return Err(BoundaryError::too_small(
            MetaField::VirtioCsumStart,
            start,
            min,
        ));
    }
    match gso_csum_offset(gso) {
        Some(expected) if offset != expected => Err(BoundaryError::mismatch(
            MetaField::VirtioCsumOffset,
            expected as u64,
            offset as u64,
        )),
        _ => Ok(()),
    }
}

/// `UDP_L4`: at most `UDP_MAX_SEGMENTS` segments of `gso_size`, counted as
/// Linux does from the end of the UDP header at `transport` to the end of the
/// frame (`skb->len - p_off`), trailing bytes included.
pub fn check_udp_segments(
    transport: usize,
    gso_size: u16,
    frame_len: usize,
) -> Result<(), BoundaryError> {
    let p_off = transport + thlen(Some(GsoKind::UdpL4));
    if frame_len.saturating_sub(p_off) > gso_size as usize * UDP_MAX_SEGMENTS {
        return Err(BoundaryError::forbidden(
            MetaField::VirtioGsoSize,
            Rule::TooManySegments,
        ));
    }
    Ok(())
}

/// `hdr_len`: with `NEEDS_CSUM` raised to `csum_start + csum_offset + 2`, it
/// must lie inside the frame (`tun_vnet_hdr_get`); a tap also refuses a
/// non-zero value below `ETH_HLEN` (`tun_get_user`).
///
/// Stricter than tun by the header's tail: tun compares with the bytes left
/// after the 10-byte base header, which still include `num_buffers` (and the
/// hash fields) when the header is longer.
pub fn check_hdr_len(
    hdr: &VirtioNetHdr,
    frame_len: usize,
    policy: &VirtioPolicy,
) -> Result<(), BoundaryError> {
    let mut hdr_len = hdr.hdr_len as usize;
    if hdr.flags.contains(VirtioFlags::NEEDS_CSUM) && !hdr.flags.contains(VirtioFlags::RSC_INFO) {
        hdr_len = hdr_len.max(hdr.csum_start as usize + hdr.csum_offset as usize + 2);
    }
    if hdr_len > frame_len {
        return Err(BoundaryError::out_of_packet(
            MetaField::VirtioHdrLen,
            hdr_len,
            frame_len,
        ));
    }
    let tap = policy.direction == Direction::FromDriver && policy.link == LinkType::Ethernet;
    if tap && hdr_len != 0 && hdr_len < ETH_HLEN {
        return Err(BoundaryError::too_small(
            MetaField::VirtioHdrLen,
            hdr_len,
            ETH_HLEN,
        ));
    }
    Ok(())
}
