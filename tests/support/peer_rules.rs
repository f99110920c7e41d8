//! What the peers themselves refuse, written from their sources (not from the
//! crate): Linux `virtio_net_hdr_to_skb` (include/linux/virtio_net.h, current
//! mainline) for a guest's checksum request, and DPDK 22.11
//! `rte_validate_tx_offload` (rte_mbuf.h) for an mbuf transmit request.
//!
//! A boundary of the crate may be stricter than its peer, never looser: the
//! soundness walk asserts that every header the crate accepts is accepted here.
//! Each function returns the name of the first rule the request breaks.

/// The `virtio_net_hdr` fields Linux's checksum rules read.
#[derive(Clone, Copy, Debug)]
pub struct VirtioReq {
    /// `VIRTIO_NET_HDR_F_NEEDS_CSUM`.
    pub needs_csum: bool,
    /// `gso_type` (ECN bit included).
    pub gso_type: u8,
    /// `gso_size`.
    pub gso_size: u16,
    /// `csum_start`.
    pub csum_start: u16,
    /// `csum_offset`.
    pub csum_offset: u16,
}

/// The rule of `virtio_net_hdr_to_skb` that refuses `req` for a frame of
/// `frame_len` bytes (counted from the MAC header, where tap's skb data
/// starts), or `None` when Linux accepts it.
///
/// Rules: an unknown GSO type; `gso_size == 0` with a GSO type; with
/// `NEEDS_CSUM`: `csum_start + max(thlen, csum_offset + 2)` beyond the frame
/// (`pskb_may_pull`), `csum_start + csum_offset + 2` beyond it
/// (`skb_partial_csum_set`), and a transport offset (`csum_start`) below
/// `nh_min_len` (20 = `sizeof(struct iphdr)`, 40 for `GSO_TCPV6`).
pub fn virtio_refusal(req: &VirtioReq, frame_len: usize) -> Option<&'static str> {
    const ECN: u8 = 0x80;
    let (mut nh_min_len, thlen) = (20usize, 0usize);
    let (nh_min_len, thlen) = match req.gso_type & !ECN {
        0 if req.gso_type == 0 => (nh_min_len, thlen),
        1 => (nh_min_len, 20), // TCPV4
        4 => {
            nh_min_len = 40; // TCPV6
            (nh_min_len, 20)
        }
        3 | 5 => (nh_min_len, 8), // UDP (UFO), UDP_L4
        _ => return Some("unknown gso_type"),
    };
    if req.gso_type != 0 && req.gso_size == 0 {
        return Some("gso_size 0");
    }
    if req.needs_csum {
        let start = usize::from(req.csum_start);
        let off = usize::from(req.csum_offset);
        if start + thlen.max(off + 2) > frame_len {
            return Some("csum_start + max(thlen, csum_offset + 2) beyond the frame");
        }
        if start + off + 2 > frame_len {
            return Some("skb_partial_csum_set: field beyond the frame");
        }
        if start < nh_min_len {
            return Some("transport offset (csum_start) below nh_min_len");
        }
    }
    None
}

/// DPDK 22.11 `RTE_MBUF_F_TX_*` bits (rte_mbuf_core.h), written out here so
/// the model does not read the crate's constants.
pub mod tx {
    pub const TCP_SEG: u64 = 1 << 50;
    pub const L4_MASK: u64 = 3 << 52;
    pub const IP_CKSUM: u64 = 1 << 54;
    pub const IPV4: u64 = 1 << 55;
    pub const IPV6: u64 = 1 << 56;
    pub const OUTER_IP_CKSUM: u64 = 1 << 58;
    pub const OUTER_IPV4: u64 = 1 << 59;
    /// `RTE_MBUF_F_TX_OFFLOAD_MASK` (approximated by bits 41..=60, which hold
    /// every TX offload request from outer UDP checksum to outer IPv6; only
    /// "no offload at all" depends on it).
    pub const OFFLOAD_MASK: u64 = ((1 << 61) - 1) & !((1 << 41) - 1);
}

/// The rule of `rte_validate_tx_offload` that refuses `ol_flags` with
/// `tso_segsz`, or `None` when DPDK accepts the request.
pub fn dpdk_tx_refusal(ol_flags: u64, tso_segsz: u16) -> Option<&'static str> {
    use tx::*;
    if ol_flags & OFFLOAD_MASK == 0 {
        return None;
    }
    if ol_flags & IP_CKSUM != 0 && ol_flags & IPV6 != 0 {
        return Some("IP_CKSUM with IPV6");
    }
    if ol_flags & (L4_MASK | TCP_SEG) != 0 && ol_flags & (IPV4 | IPV6) == 0 {
        return Some("L4 checksum or TCP_SEG without IPV4/IPV6");
    }
    if ol_flags & TCP_SEG != 0
        && (tso_segsz == 0 || (ol_flags & IPV4 != 0 && ol_flags & IP_CKSUM == 0))
    {
        return Some("TCP_SEG with tso_segsz 0, or IPv4 TSO without IP_CKSUM");
    }
    if ol_flags & OUTER_IP_CKSUM != 0 && ol_flags & OUTER_IPV4 == 0 {
        return Some("OUTER_IP_CKSUM without OUTER_IPV4");
    }
    None
}
