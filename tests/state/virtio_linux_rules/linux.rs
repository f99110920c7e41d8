//! An independent model of what Linux refuses in a virtio-net header, written
//! from the kernel source (never from the crate): `__virtio_net_hdr_to_skb`
//! (include/linux/virtio_net.h) and `skb_partial_csum_set` (net/core/skbuff.c)
//! on both sides; tun's `tun_vnet_hdr_get` (drivers/net/tun_vnet.h) and
//! `tun_get_user` (drivers/net/tun.c) for a guest's transmit; the virtio_net
//! driver's `receive_buf` length check and `virtio_net_handle_csum_offload`
//! for a device's receive. Shared by tests/state/virtio_linux_rules.rs and the
//! `virtio_hdr` fuzz target; it takes raw header values, not the crate's types.
#![allow(dead_code)]

/// `VIRTIO_NET_HDR_F_NEEDS_CSUM`.
pub const F_NEEDS_CSUM: u8 = 1;
/// `VIRTIO_NET_HDR_F_DATA_VALID`.
pub const F_DATA_VALID: u8 = 2;
/// `VIRTIO_NET_HDR_F_RSC_INFO`.
pub const F_RSC_INFO: u8 = 4;
/// `VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM`.
pub const F_UDP_TUNNEL_CSUM: u8 = 8;
/// `VIRTIO_NET_HDR_GSO_ECN`.
pub const GSO_ECN: u8 = 0x80;
/// `ETH_HLEN`.
pub const ETH_HLEN: usize = 14;
/// `NET_SKB_PAD` on x86-64: tun's headroom before the frame.
pub const HEADROOM: usize = 64;
/// `UDP_MAX_SEGMENTS`.
pub const UDP_MAX_SEGMENTS: usize = 128;
/// `GSO_BY_FRAGS`.
pub const GSO_BY_FRAGS: u16 = 0xFFFF;

/// The six fields Linux reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hdr {
    pub flags: u8,
    pub gso_type: u8,
    pub hdr_len: u16,
    pub gso_size: u16,
    pub csum_start: u16,
    pub csum_offset: u16,
}

impl Hdr {
    /// The 10-byte base header, little-endian.
    pub fn from_bytes(b: &[u8; 10]) -> Hdr {
        let w = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        Hdr {
            flags: b[0],
            gso_type: b[1],
            hdr_len: w(2),
            gso_size: w(4),
            csum_start: w(6),
            csum_offset: w(8),
        }
    }
}

/// How the frame begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    Ethernet,
    RawIp,
}

/// Who receives the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A tap / TUN reading a guest's (or a user's) frame: `tun_get_user`.
    Tun,
    /// The virtio_net driver reading a device's frame: `receive_buf`.
    Driver,
}

/// The GSO type as `__virtio_net_hdr_to_skb` reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gso {
    Tcp4,
    Tcp6,
    Ufo,
    UdpL4,
}

/// `thlen` and `nh_min_len` of a GSO type (0 and 20 without one).
pub fn lens(gso: Option<Gso>) -> (usize, usize) {
    match gso {
        None => (0, 20),
        Some(Gso::Tcp4) => (20, 20),
        Some(Gso::Tcp6) => (20, 40),
        Some(Gso::Ufo | Gso::UdpL4) => (8, 20),
    }
}

/// Decodes `gso_type` (`Err` for a type Linux refuses, tunnel bits included:
/// the tunnel features are never negotiated in this model).
pub fn gso_of(gso_type: u8) -> Result<Option<Gso>, &'static str> {
    if gso_type == 0 {
        return Ok(None);
    }
    match gso_type & !GSO_ECN {
        1 => Ok(Some(Gso::Tcp4)),
        4 => Ok(Some(Gso::Tcp6)),
        3 => Ok(Some(Gso::Ufo)),
        5 => Ok(Some(Gso::UdpL4)),
        _ => Err("__virtio_net_hdr_to_skb: unknown gso_type"),
    }
}

/// The name of the first Linux rule `h` breaks on `frame`, or `None` when
/// Linux accepts it. `rsc_ext`: the `RSC_INFO` counts were negotiated. Not a
/// Linux path (Linux never negotiates `RSC_EXT`): `csum_start` and
/// `csum_offset` are then counts, and the rules that read them as offsets
/// (`NEEDS_CSUM` bounds, the GSO offsets, the `UDP_L4` segment count from
/// `csum_start`) do not apply; the crate checks the parsed packet instead.
pub fn linux_refuses(
    h: &Hdr,
    frame: &[u8],
    link: Link,
    side: Side,
    rsc_ext: bool,
) -> Option<&'static str> {
    let mut first = None;
    linux_rules(h, frame, link, side, rsc_ext, &mut |rule| {
        first = first.or(Some(rule));
    });
    first
}

/// Every Linux rule `h` breaks on `frame`, in the kernel's order, each passed
/// to `broken` (Linux stops at the first; a test may ask for a later one).
pub fn linux_rules(
    h: &Hdr,
    frame: &[u8],
    link: Link,
    side: Side,
    rsc_ext: bool,
    broken: &mut dyn FnMut(&'static str),
) {
    let len = frame.len();
    let needs_csum = h.flags & F_NEEDS_CSUM != 0;
    let start = h.csum_start as usize;
    let off = h.csum_offset as usize;
    match side {
        Side::Tun => {
            let mut hdr_len = h.hdr_len as usize;
            if needs_csum {
                hdr_len = hdr_len.max(start + off + 2);
            }
            if hdr_len > len {
                broken("tun_vnet_hdr_get: hdr_len > len");
            }
            if link == Link::Ethernet && (len < ETH_HLEN || (hdr_len != 0 && hdr_len < ETH_HLEN)) {
                broken("tun_get_user: len or hdr_len < ETH_HLEN");
            }
            if link == Link::RawIp && !matches!(frame.first().map(|b| b >> 4), Some(4 | 6)) {
                broken("tun_get_user: IP version not 4 or 6");
            }
        }
        Side::Driver => {
            if link == Link::Ethernet && len < ETH_HLEN {
                broken("receive_buf: len < hdr_len + ETH_HLEN");
            }
            let both = F_DATA_VALID | F_UDP_TUNNEL_CSUM;
            if h.flags & both == both {
                broken("virtio_net_handle_csum_offload: UDP_TUNNEL_CSUM not negotiated");
            }
        }
    }
    let gso = match gso_of(h.gso_type) {
        Ok(g) => g,
        Err(rule) => return broken(rule),
    };
    if gso.is_some() && h.gso_size == 0 {
        broken("__virtio_net_hdr_to_skb: gso_size == 0");
    }
    let (thlen, nh_min_len) = lens(gso);
    let counts = h.flags & F_RSC_INFO != 0 && rsc_ext;
    let partial = needs_csum && !counts;
    let p_off = if partial {
        if start + thlen.max(off + 2) > len {
            broken("pskb_may_pull(csum_start + max(thlen, csum_offset + 2))");
        }
        if HEADROOM + start >= 0xFFFF {
            broken("skb_partial_csum_set: headroom + csum_start >= U16_MAX");
        }
        if start + off + 2 > len {
            broken("skb_partial_csum_set: csum_start + csum_offset + 2 > headlen");
        }
        if start < nh_min_len {
            broken("skb_transport_offset < nh_min_len");
        }
        start + thlen
    } else {
        if gso.is_some() && len < nh_min_len + thlen {
            broken("pskb_may_pull(nh_min_len + thlen)");
        }
        nh_min_len + thlen
    };
    match gso {
        Some(Gso::UdpL4) => {
            if !needs_csum {
                broken("UDP_L4 without NEEDS_CSUM");
            }
            if partial && off != 6 {
                broken("UDP_L4 csum_offset != offsetof(struct udphdr, check)");
            }
            if !counts && len.saturating_sub(p_off) > h.gso_size as usize * UDP_MAX_SEGMENTS {
                broken("UDP_L4 len - p_off > gso_size * UDP_MAX_SEGMENTS");
            }
            if h.gso_type & GSO_ECN != 0 {
                broken("UDP_L4 with ECN");
            }
        }
        Some(Gso::Tcp4 | Gso::Tcp6) if partial && off != 16 => {
            broken("TCP GSO csum_offset != offsetof(struct tcphdr, check)");
        }
        _ => {}
    }
    if gso.is_some() && h.gso_size == GSO_BY_FRAGS {
        broken("gso_size == GSO_BY_FRAGS");
    }
}

/// Where the network header begins by the link header alone: Ethernet plus
/// every 802.1Q / 802.1ad tag, 0 for raw IP.
pub fn network_start(frame: &[u8], link: Link) -> usize {
    if link == Link::RawIp {
        return 0;
    }
    let mut at = ETH_HLEN;
    let mut et_at = 12;
    while let Some(&[a, b]) = frame.get(et_at..et_at + 2) {
        if !matches!(u16::from_be_bytes([a, b]), 0x8100 | 0x88A8) {
            break;
        }
        at += 4;
        et_at += 4;
    }
    at
}

/// The crate's deliberately stricter form of Linux's offset rule: the
/// transport at least `nh_min_len` past the network header (Linux counts from
/// the frame start), and the whole transport header and field in the frame.
pub fn offsets_hold(h: &Hdr, frame: &[u8], link: Link) -> bool {
    let Ok(gso) = gso_of(h.gso_type) else {
        return false;
    };
    let (thlen, nh_min_len) = lens(gso);
    let start = h.csum_start as usize;
    start >= network_start(frame, link) + nh_min_len
        && start + thlen.max(h.csum_offset as usize + 2) <= frame.len()
}
