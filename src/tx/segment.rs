//! Software segmentation of a TCP or UDP super-packet (Linux `skb_segment`
//! driven by `inet_gso_segment` / `ipv6_gso_segment`, `tcp_gso_segment`,
//! `__udp_gso_segment`), into caller-provided buffers.
//!
//! Each segment gets a copy of the headers, fixed for that segment: IPv4 total
//! length, ID (incrementing from the super-packet's, or fixed with
//! `TCP_FIXEDID`) and header checksum; IPv6 payload length; TCP sequence, FIN
//! and PSH only on the last segment, CWR only on the first; UDP length. The L4
//! checksum is either the pseudo-header seed (`Partial`, for a device that
//! offloads) or computed in the same pass as the payload copy
//! ([`csum::partial_copy_to_cold`]). Segmenting a GRO super-packet as `tcp_gro_complete`
//! leaves it gives back the original segments byte for byte.
//!
//! Tunnelled super-packets (VXLAN, GENEVE and other UDP tunnels, GRE, IP in
//! IP; `skb_udp_tunnel_segment`, `gre_gso_segment`, `ipip_gso_segment`) go
//! through [`plan_tunnel`]: the outer IP header is fixed like the inner one
//! (outer IPv4 IDs per `TCP_FIXEDID`, inner per `TCP_FIXEDID_INNER`, as
//! mainline splits them), the outer UDP length is set, and the outer UDP checksum
//! (`UDP_TUNNEL_CSUM`) or GRE checksum (`GRE_CSUM`) is computed from the
//! headers alone, local-checksum-offload style (`lco_csum`): a finished inner
//! segment sums to the complement of its pseudo-header, so the payload is
//! never summed twice.

use super::decide::{SegmentCsum, check_gso_shape, check_layers};
use super::error::TunnelField;
use super::error::TxError;
use super::gso::{GsoInfo, TUNNEL};
use super::pseudo::{pseudo_sum, seed};
use crate::csum::{self, Sum16, Wsum};
use crate::state::{CsumFlags, CsumMeta, CsumState, PartialKind};
use crate::wire::GsoType;
use crate::wire::{Layers, Net, Transport};

/// Header field offsets (named once, in `wire`), relative to their header.
mod field {
    pub use crate::wire::gre::{CHECKSUM_OFFSET as GRE_CSUM, FLAG_CHECKSUM as GRE_FLAG_CSUM};
    pub use crate::wire::ipv4::{
        CHECKSUM_OFFSET as IPV4_CSUM, ID_OFFSET as IPV4_ID, MIN_HEADER_LEN as IPV4_MIN_LEN,
        TOTAL_LEN_OFFSET as IPV4_TOTAL_LEN,
    };
    pub use crate::wire::ipv6::{
        HEADER_LEN as IPV6_HEADER_LEN, NEXT_HEADER_OFFSET as IPV6_NEXT_HEADER,
        PAYLOAD_LEN_OFFSET as IPV6_PAYLOAD_LEN,
    };
    pub use crate::wire::tcp::{
        CHECKSUM_OFFSET as TCP_CSUM, FLAGS_OFFSET as TCP_FLAGS, MIN_HEADER_LEN as TCP_MIN_LEN,
        SEQ_OFFSET as TCP_SEQ,
    };
    pub use crate::wire::udp::{
        CHECKSUM_OFFSET as UDP_CSUM, HEADER_LEN as UDP_LEN_MIN, LENGTH_OFFSET as UDP_LEN,
    };
}

// The low byte of the TCP flags word (offset 13): FIN, PSH, CWR.
const TCP_FIN: u8 = 0x01;
const TCP_PSH: u8 = 0x08;
const TCP_CWR: u8 = 0x80;

/// The outer headers of a tunnelled super-packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Outer {
    layers: Layers,
    pre: Pre,
    csum: OuterCsum,
}

/// Sums that are the same for every segment, computed once by the plan: the
/// IPv4 header without its length, ID and checksum words, and the
/// pseudo-header without its length. A segment adds its own words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Pre {
    ip_base: Wsum,
    pseudo_base: Wsum,
}

impl Pre {
    fn new(frame: &[u8], l: &Layers, proto: u8) -> Pre {
        let ip_base = match l.net {
            Net::Ipv4 => {
                let hdr = frame.get(l.l3..l.l4).unwrap_or(&[]);
                [field::IPV4_TOTAL_LEN, field::IPV4_ID, field::IPV4_CSUM]
                    .iter()
                    .fold(csum::partial(hdr, Wsum::ZERO), |s, &at| {
                        s.sub(word(hdr, at))
                    })
            }
            Net::Ipv6 => Wsum::ZERO,
        };
        Pre {
            ip_base,
            pseudo_base: pseudo_sum(frame, l, proto, 0).unwrap_or(Wsum::ZERO),
        }
    }

    /// The pseudo-header sum for `l4_len` bytes: the length enters as the
    /// 32-bit big-endian word `csum_tcpudp_nofold`/`csum_ipv6_magic` add.
    fn pseudo(&self, l4_len: usize) -> Wsum {
        self.pseudo_base
            .add(Wsum::new(u32::from_ne_bytes((l4_len as u32).to_be_bytes())))
    }
}

/// The 16-bit word at `at` as `csum::partial` loads it (host order).
fn word(buf: &[u8], at: usize) -> Wsum {
    match buf.get(at..at + 2) {
        Some(&[a, b]) => Wsum::new(u16::from_ne_bytes([a, b]) as u32),
        _ => Wsum::ZERO,
    }
}

/// What the outer transport carries per segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum OuterCsum {
    /// UDP tunnel, checksum 0 (`UDP_TUNNEL`).
    UdpZero,
    /// UDP tunnel with a checksum (`UDP_TUNNEL_CSUM`).
    Udp,
    /// GRE without the C bit (`GRE`).
    GreNone,
    /// GRE with its checksum (`GRE_CSUM`).
    Gre,
    /// IP in IP: no outer transport header (`IPXIP4`, `IPXIP6`).
    None,
}

/// The plan of one segmentation: how many segments, how long each is, and
/// what checksum state each leaves with. Made by [`plan`], used by
/// [`segment_one`] and [`segment`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Segments {
    /// The layers as they appear in every segment (offsets shifted when a
    /// Jumbo Payload header is dropped).
    layers: Layers,
    /// Where the super-packet's payload starts.
    src_payload: usize,
    /// Offset of the 8-byte IPv6 Hop-by-Hop Jumbo Payload header that the
    /// segments leave out (`ipv6_hopopt_jumbo_remove`), if any.
    jumbo: Option<usize>,
    pre: Pre,
    outer: Option<Outer>,
    gso: GsoInfo,
    csum: SegmentCsum,
    count: usize,
    csum_offset: usize,
}

impl Segments {
    /// Number of segments.
    pub const fn count(&self) -> usize {
        self.count
    }

    /// The layers as every segment has them (offsets from the segment's start;
    /// `end` is that of the super-packet less any dropped Jumbo header).
    pub const fn layers(&self) -> &Layers {
        &self.layers
    }

    /// Bytes of headers copied into every segment (link + IP + L4 header).
    pub const fn header_len(&self) -> usize {
        self.layers.payload
    }

    /// Payload bytes of segment `index`, `None` beyond the last.
    pub const fn payload_len_of(&self, index: usize) -> Option<usize> {
        if index >= self.count {
            return None;
        }
        let size = self.gso.gso_size as usize;
        let total = self.layers.payload_len();
        let before = index * size;
        let rest = total - before;
        Some(if rest < size { rest } else { size })
    }

    /// Length of segment `index`, `None` beyond the last.
    pub const fn len_of(&self, index: usize) -> Option<usize> {
        match self.payload_len_of(index) {
            Some(p) => Some(self.layers.payload + p),
            None => None,
        }
    }

    /// Length of the longest segment (the first): size every buffer to this.
    pub const fn max_len(&self) -> usize {
        match self.len_of(0) {
            Some(l) => l,
            None => 0,
        }
    }

    /// Each segment's checksum state: `Partial` at the transport header, or
    /// `None` when computed.
    pub const fn state(&self) -> CsumState {
        match self.csum {
            SegmentCsum::Partial => CsumState::Partial {
                start: self.layers.l4,
                offset: self.csum_offset,
                kind: PartialKind::Inet,
            },
            SegmentCsum::Compute => CsumState::None,
        }
    }

    /// Each segment's metadata, derived from the super-packet's: the
    /// segment's state; `DATA_VALID` kept; `CSUM_BLANK` kept only while the
    /// field is still a seed (`Partial`), so a blank packet never leaves blank.
    pub fn meta_for_segment(&self, parent: &CsumMeta) -> CsumMeta {
        let mut flags = parent.flags() & CsumFlags::DATA_VALID;
        if self.csum == SegmentCsum::Partial && parent.is_blank() {
            flags |= CsumFlags::CSUM_BLANK;
        }
        CsumMeta::new(self.state(), flags).unwrap_or(CsumMeta::from_state(self.state()))
    }
}

/// Checks a segmentation request against the packet and plans it; writes nothing.
///
/// Refuses: layers that do not fit `frame`, IP fragments, a `gso_type` that
/// does not match the packet, tunnel types (they need [`plan_tunnel`]),
/// `gso_size` 0 or larger than the payload, lengths that would not fit their
/// header fields.
pub fn plan(
    frame: &[u8],
    layers: &Layers,
    gso: GsoInfo,
    csum: SegmentCsum,
) -> Result<Segments, TxError> {
    check_layers(layers)?;
    check_gso_shape(layers, gso)?;
    if gso.gso_type.intersects(TUNNEL) {
        return Err(TxError::TunnelLayersMissing {
            gso_type: gso.gso_type,
        });
    }
    plan_inner(frame, layers, None, gso, csum)
}

/// Plans the segmentation of a tunnelled super-packet: `outer` are the
/// layers [`wire::parse`](crate::wire::parse) found (outer IP, then UDP or
/// GRE), `inner` those of the encapsulated packet, parsed at its IP header
/// (offsets from the start of the same frame). Writes nothing.
///
/// Besides [`plan`]'s refusals: a type without a tunnel bit, or UDP and GRE
/// bits together; an outer transport that is not the tunnel's; a GRE C bit
/// that disagrees with `GRE_CSUM`; an inner packet that does not lie after
/// the outer transport header and end where the outer packet ends.
pub fn plan_tunnel(
    frame: &[u8],
    outer: &Layers,
    inner: &Layers,
    gso: GsoInfo,
    csum: SegmentCsum,
) -> Result<Segments, TxError> {
    check_layers(outer)?;
    check_layers(inner)?;
    let t = gso.gso_type;
    let udp = t.intersects(GsoType::UDP_TUNNEL | GsoType::UDP_TUNNEL_CSUM);
    let gre = t.intersects(GsoType::GRE | GsoType::GRE_CSUM);
    let ipip = t.intersects(GsoType::IPXIP4 | GsoType::IPXIP6);
    let mismatch = |field| Err(TxError::TunnelMismatch { field });
    match u8::from(udp) + u8::from(gre) + u8::from(ipip) {
        0 => return Err(TxError::TunnelLayersMissing { gso_type: t }),
        1 => {}
        _ => return mismatch(TunnelField::Type),
    }
    whole_datagram_in(frame, outer)?;
    let outer_ok = match outer.transport {
        Transport::Udp => udp,
        Transport::Gre => gre,
        Transport::Ipip | Transport::Ipv6InIp => {
            ipip && (outer.net == Net::Ipv6) == t.contains(GsoType::IPXIP6)
        }
        _ => false,
    };
    if !outer_ok {
        return mismatch(TunnelField::OuterTransport);
    }
    // UDP and GRE carry a header of at least 4 bytes; IP in IP none.
    let min_hdr = if ipip { 0 } else { 4 };
    if inner.l3 < outer.payload || inner.end != outer.end || outer.payload < outer.l4 + min_hdr {
        return mismatch(TunnelField::InnerBounds);
    }
    let oc = if ipip {
        OuterCsum::None
    } else if udp {
        if t.contains(GsoType::UDP_TUNNEL_CSUM) {
            OuterCsum::Udp
        } else {
            OuterCsum::UdpZero
        }
    } else {
        let flags = read16(frame, outer.l4);
        let c_bit = flags & field::GRE_FLAG_CSUM != 0;
        match (c_bit, t.contains(GsoType::GRE_CSUM)) {
            (true, true) => OuterCsum::Gre,
            (false, false) => OuterCsum::GreNone,
            (true, false) | (false, true) => return mismatch(TunnelField::GreChecksumBit),
        }
    };
    // The inner request is the type without its tunnel bits.
    let inner_gso = GsoInfo::new(gso.gso_size, t.difference(TUNNEL));
    check_gso_shape(inner, inner_gso).map_err(|e| match e {
        TxError::GsoTypeMismatch { .. } => TxError::GsoTypeMismatch {
            gso_type: t,
            net: inner.net,
            transport: inner.transport,
        },
        other => other,
    })?;
    let out = Outer {
        layers: *outer,
        pre: Pre::new(frame, outer, outer.ip_proto),
        csum: oc,
    };
    let mut p = plan_inner(frame, inner, Some(out), inner_gso, csum)?;
    p.gso = gso;
    // The outer IP length of the longest segment must fit too.
    let outer_len = ip_len(outer, p.max_len() - outer.l4);
    if outer_len > u16::MAX as usize {
        return Err(TxError::LengthFieldOverflow { length: outer_len });
    }
    Ok(p)
}

/// IPv6 payload length 0 with a Hop-by-Hop header means a jumbogram (RFC 2675,
/// Linux BIG TCP). Segments are small enough for the 16-bit field, so they
/// leave the 8-byte Jumbo Payload header out, as `ipv6_gso_segment` does with
/// `ipv6_hopopt_jumbo_remove`: returns the segments' layers and the header's
/// offset. Any other Hop-by-Hop shape in a jumbogram is refused.
fn strip_jumbo(frame: &[u8], l: &Layers) -> Result<(Layers, Option<usize>), TxError> {
    const JUMBO_HDR_LEN: usize = 8;
    const OPT_JUMBO: u8 = 0xC2;
    if l.net != Net::Ipv6 || read16(frame, l.l3 + field::IPV6_PAYLOAD_LEN) != 0 {
        return Ok((*l, None));
    }
    let at = l.l3 + field::IPV6_HEADER_LEN;
    let hbh = frame.get(at..at + 4);
    let next_is_hbh = frame.get(l.l3 + field::IPV6_NEXT_HEADER) == Some(&0);
    let lone_jumbo = matches!(hbh, Some(&[_, 0, OPT_JUMBO, 4])) && l.l4 == at + JUMBO_HDR_LEN;
    if !(next_is_hbh && lone_jumbo) {
        return Err(TxError::Jumbogram);
    }
    let mut out = *l;
    out.l4 -= JUMBO_HDR_LEN;
    out.payload -= JUMBO_HDR_LEN;
    out.end -= JUMBO_HDR_LEN;
    Ok((out, Some(at)))
}

/// Length the IP header's length field holds for `l4_len` bytes after it
/// (IPv4 total length, IPv6 payload length with extension headers).
const fn ip_len(l: &Layers, l4_len: usize) -> usize {
    let ext = l.l4 - l.l3;
    match l.net {
        Net::Ipv4 => ext + l4_len,
        Net::Ipv6 => ext.saturating_sub(field::IPV6_HEADER_LEN) + l4_len,
    }
}

fn plan_inner(
    frame: &[u8],
    layers: &Layers,
    outer: Option<Outer>,
    gso: GsoInfo,
    csum: SegmentCsum,
) -> Result<Segments, TxError> {
    whole_datagram_in(frame, layers)?;
    let payload = layers.payload_len();
    let size = gso.gso_size as usize;
    if payload == 0 || size > payload {
        return Err(TxError::GsoSizeBeyondPayload {
            gso_size: size,
            payload,
        });
    }
    let (csum_offset, min_l4) = match layers.transport {
        Transport::Tcp => (field::TCP_CSUM, field::TCP_MIN_LEN),
        Transport::Udp => (field::UDP_CSUM, field::UDP_LEN_MIN),
        Transport::Sctp
        | Transport::Icmp
        | Transport::Icmpv6
        | Transport::Gre
        | Transport::Ipip
        | Transport::Ipv6InIp
        | Transport::Other(_) => return Err(TxError::LayersOutOfOrder),
    };
    let l4_hdr = layers.payload - layers.l4;
    if l4_hdr < min_l4 {
        return Err(TxError::LayersOutOfOrder);
    }
    // The longest segment's lengths must fit their 16-bit fields.
    let longest = ip_len(layers, l4_hdr + size);
    if longest > u16::MAX as usize {
        return Err(TxError::LengthFieldOverflow { length: longest });
    }
    let (min_l3, addr) = match layers.net {
        Net::Ipv4 => (field::IPV4_MIN_LEN, 4),
        Net::Ipv6 => (field::IPV6_HEADER_LEN, 16),
    };
    let addrs_in_header = layers.pseudo_src.saturating_add(addr) <= layers.l4
        && layers.pseudo_dst.saturating_add(addr) <= layers.l4;
    if layers.l4 - layers.l3 < min_l3 || !addrs_in_header {
        return Err(TxError::LayersOutOfOrder);
    }
    let (out, jumbo) = strip_jumbo(frame, layers)?;
    Ok(Segments {
        layers: out,
        src_payload: layers.payload,
        jumbo,
        pre: Pre::new(frame, layers, layers.ip_proto),
        outer,
        gso,
        csum,
        count: gso.segments(payload),
        csum_offset,
    })
}

/// Writes segment `index` of `plan` into `dst` and returns its length.
///
/// `frame` must be the packet `plan` was made for (it is bounds-checked again,
/// never trusted). On error nothing is written.
pub fn segment_one(
    frame: &[u8],
    plan: &Segments,
    index: usize,
    dst: &mut [u8],
) -> Result<usize, TxError> {
    let l = &plan.layers;
    let (Some(seg_payload), Some(len)) = (plan.payload_len_of(index), plan.len_of(index)) else {
        return Err(TxError::SegmentIndexOutOfRange {
            index,
            count: plan.count,
        });
    };
    let beyond = TxError::LayersBeyondBuffer {
        end: l.end,
        available: frame.len(),
    };
    let hdr_len = l.payload;
    let from = plan.src_payload + index * plan.gso.gso_size as usize;
    let (Some(headers), Some(chunk)) = (
        frame.get(..plan.src_payload),
        frame.get(from..from + seg_payload),
    ) else {
        return Err(beyond);
    };
    let available = dst.len();
    let Some(d) = dst.get_mut(..len) else {
        return Err(TxError::BufferTooSmall {
            index,
            needed: len,
            available,
        });
    };
    let (dh, dp) = d.split_at_mut(hdr_len);
    copy_headers(dh, headers, plan.jumbo, l.l3);
    let last = index + 1 == plan.count;
    let l4_len = hdr_len - l.l4 + seg_payload;
    // `TCP_FIXEDID` is about the outermost IPv4 header, `TCP_FIXEDID_INNER`
    // about the inner one of a tunnel (mainline's split of the two).
    let ids = |bit| {
        if plan.gso.gso_type.contains(bit) {
            IdMode::Fixed
        } else {
            IdMode::Increment
        }
    };
    if let Some(o) = &plan.outer {
        fix_ip(
            dh,
            &o.layers,
            &o.pre,
            ids(GsoType::TCP_FIXEDID),
            index,
            hdr_len - o.layers.l4 + seg_payload,
        );
    }
    let inner_ids = if plan.outer.is_some() {
        ids(GsoType::TCP_FIXEDID_INNER)
    } else {
        ids(GsoType::TCP_FIXEDID)
    };
    fix_ip(dh, l, &plan.pre, inner_ids, index, l4_len);
    match l.transport {
        Transport::Tcp => {
            let seq = read32(dh, l.l4 + field::TCP_SEQ)
                .wrapping_add((index as u32).wrapping_mul(plan.gso.gso_size as u32));
            write(dh, l.l4 + field::TCP_SEQ, &seq.to_be_bytes());
            let mut flags = dh.get(l.l4 + field::TCP_FLAGS).copied().unwrap_or(0);
            if !last {
                flags &= !(TCP_FIN | TCP_PSH);
            }
            // RFC 3168 CWR goes on the first segment only; with Accurate ECN
            // CWR is part of the ACE counter and stays on every segment.
            if index > 0 && !plan.gso.gso_type.contains(GsoType::TCP_ACCECN) {
                flags &= !TCP_CWR;
            }
            write(dh, l.l4 + field::TCP_FLAGS, &[flags]);
        }
        _ => {
            write(dh, l.l4 + field::UDP_LEN, &(l4_len as u16).to_be_bytes());
        }
    }
    let at = l.l4 + plan.csum_offset;
    let pseudo = plan.pre.pseudo(l4_len);
    match plan.csum {
        SegmentCsum::Partial => {
            write(dh, at, &seed(pseudo).to_bytes());
            dp.copy_from_slice(chunk);
        }
        SegmentCsum::Compute => {
            write(dh, at, &[0, 0]);
            // The L4 header length is even, so the payload starts at an even
            // offset of the segment and its sum adds without a byte swap.
            let head = csum::partial(dh.get(l.l4..).unwrap_or(&[]), pseudo);
            let sum = csum::partial_copy_to_cold(chunk, dp, head);
            let mut c = csum::fold(sum);
            if l.transport == Transport::Udp {
                c = c.udp_mangle_zero();
            }
            write(dh, at, &c.to_bytes());
        }
    }
    if let Some(o) = &plan.outer {
        outer_csum(dh, o, l.l4, pseudo, hdr_len - o.layers.l4 + seg_payload);
    }
    Ok(len)
}

/// Sets the outer UDP length and the outer UDP or GRE checksum of one
/// segment whose headers are in `dh` (`lco_csum`): the finished inner L4
/// segment sums to `!inner_pseudo`, so only the bytes from the outer transport
/// header to the inner one are summed.
fn outer_csum(dh: &mut [u8], o: &Outer, inner_l4: usize, inner_pseudo: Wsum, outer_l4_len: usize) {
    let ol = &o.layers;
    let at = match o.csum {
        OuterCsum::UdpZero | OuterCsum::Udp => {
            write(
                dh,
                ol.l4 + field::UDP_LEN,
                &(outer_l4_len as u16).to_be_bytes(),
            );
            ol.l4 + field::UDP_CSUM
        }
        OuterCsum::GreNone | OuterCsum::Gre => ol.l4 + field::GRE_CSUM,
        OuterCsum::None => return,
    };
    match o.csum {
        OuterCsum::UdpZero => write(dh, at, &[0, 0]),
        OuterCsum::GreNone | OuterCsum::None => {}
        OuterCsum::Udp | OuterCsum::Gre => {
            write(dh, at, &[0, 0]);
            let init = if o.csum == OuterCsum::Udp {
                o.pre.pseudo(outer_l4_len)
            } else {
                Wsum::ZERO
            };
            let heads = csum::partial(dh.get(ol.l4..inner_l4).unwrap_or(&[]), init);
            let sum = csum::block_add(heads, inner_pseudo.not(), inner_l4 - ol.l4);
            let mut c = csum::fold(sum);
            if o.csum == OuterCsum::Udp {
                c = c.udp_mangle_zero();
            }
            write(dh, at, &c.to_bytes());
        }
    }
}

/// Segments the super-packet into `out[0..count]` and returns the plan (each
/// segment's length is [`Segments::len_of`]).
///
/// Every buffer is checked before the first byte is written: on error nothing
/// is written.
pub fn segment(
    frame: &[u8],
    layers: &Layers,
    gso: GsoInfo,
    csum: SegmentCsum,
    out: &mut [&mut [u8]],
) -> Result<Segments, TxError> {
    let p = plan(frame, layers, gso, csum)?;
    write_all(frame, p, out)
}

/// [`segment`] for a tunnelled super-packet (see [`plan_tunnel`]).
pub fn segment_tunnel(
    frame: &[u8],
    outer: &Layers,
    inner: &Layers,
    gso: GsoInfo,
    csum: SegmentCsum,
    out: &mut [&mut [u8]],
) -> Result<Segments, TxError> {
    let p = plan_tunnel(frame, outer, inner, gso, csum)?;
    write_all(frame, p, out)
}

fn write_all(frame: &[u8], p: Segments, out: &mut [&mut [u8]]) -> Result<Segments, TxError> {
    if out.len() < p.count {
        return Err(TxError::TooFewBuffers {
            needed: p.count,
            given: out.len(),
        });
    }
    for (index, buf) in out.iter().enumerate().take(p.count) {
        let needed = p.len_of(index).unwrap_or(0);
        if buf.len() < needed {
            return Err(TxError::BufferTooSmall {
                index,
                needed,
                available: buf.len(),
            });
        }
    }
    for (index, buf) in out.iter_mut().enumerate().take(p.count) {
        segment_one(frame, &p, index, buf)?;
    }
    Ok(p)
}

/// How IPv4 IDs go across segments.
#[derive(Clone, Copy, PartialEq, Eq)]
enum IdMode {
    Increment,
    Fixed,
}

/// Sets the IP length (and for IPv4 the ID and header checksum, from the
/// plan's precomputed header sum) of one segment.
fn fix_ip(dh: &mut [u8], l: &Layers, pre: &Pre, ids: IdMode, index: usize, l4_len: usize) {
    let len = ip_len(l, l4_len) as u16;
    match l.net {
        Net::Ipv4 => {
            let len_at = l.l3 + field::IPV4_TOTAL_LEN;
            let id_at = l.l3 + field::IPV4_ID;
            write(dh, len_at, &len.to_be_bytes());
            if ids == IdMode::Increment {
                let id = read16(dh, id_at).wrapping_add(index as u16);
                write(dh, id_at, &id.to_be_bytes());
            }
            let sum = pre.ip_base.add(word(dh, len_at)).add(word(dh, id_at));
            let c: Sum16 = csum::fold(sum);
            write(dh, l.l3 + field::IPV4_CSUM, &c.to_bytes());
        }
        Net::Ipv6 => write(dh, l.l3 + field::IPV6_PAYLOAD_LEN, &len.to_be_bytes()),
    }
}

/// Copies the super-packet's headers, leaving out a Jumbo Payload header at
/// `jumbo` (its next-header value moves into the IPv6 header).
fn copy_headers(dh: &mut [u8], headers: &[u8], jumbo: Option<usize>, l3: usize) {
    match jumbo {
        None => dh.copy_from_slice(headers),
        Some(at) => {
            let (a, b) = (headers.get(..at), headers.get(at + 8..));
            let (da, db) = dh.split_at_mut(at.min(dh.len()));
            if let (Some(a), Some(b)) = (a, b)
                && a.len() == da.len()
                && b.len() == db.len()
            {
                da.copy_from_slice(a);
                db.copy_from_slice(b);
            }
            let next = headers.get(at).copied().unwrap_or(0);
            write(dh, l3 + field::IPV6_NEXT_HEADER, &[next]);
        }
    }
}

fn write(buf: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(d) = buf.get_mut(at..at + bytes.len()) {
        d.copy_from_slice(bytes);
    }
}

fn read16(buf: &[u8], at: usize) -> u16 {
    match buf.get(at..at + 2) {
        Some(&[a, b]) => u16::from_be_bytes([a, b]),
        _ => 0,
    }
}

fn read32(buf: &[u8], at: usize) -> u32 {
    match buf.get(at..at + 4) {
        Some(&[a, b, c, d]) => u32::from_be_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// The datagram `layers` describe lies inside `frame` and is not a fragment:
/// what every segmentation entry point needs before reading it.
fn whole_datagram_in(frame: &[u8], layers: &Layers) -> Result<(), TxError> {
    if layers.end > frame.len() {
        return Err(TxError::LayersBeyondBuffer {
            end: layers.end,
            available: frame.len(),
        });
    }
    if layers.fragment.is_fragment {
        return Err(TxError::Fragment);
    }
    Ok(())
}
