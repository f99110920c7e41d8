//! The GRO fast parser: one pass from the link header to the innermost TCP/UDP
//! header, through at most one tunnel (Linux `encap_mark`: one level).
//!
//! Models the header walk of `dev_gro_receive` -> `inet_gro_receive` /
//! `ipv6_gro_receive` -> `udp_gro_receive` / `gre_gro_receive` /
//! `ipip_gro_receive` -> `tcp_gro_receive`. Returns offsets only; every read is
//! bounds-checked. Defects that still let the flow be identified (IP options, a
//! first fragment, a bad IPv4 header checksum, length disagreements) are
//! reported beside the offsets so the engine can flush that flow first.

use super::config::{GroKinds, MAX_HEADER};
use super::reason::FlushReason;
use crate::csum::{self, Wsum};
use crate::wire::LinkType;
use crate::wire::consts::{ethertype, ipproto, port};
use crate::wire::{ethernet, geneve, gre, ipv4, ipv6, ipv6_ext, tcp, udp, vxlan};

/// The length byte of a hop-by-hop, destination or routing header (in
/// 8-byte units, not counting the first 8).
const EXT_LEN_BYTE: usize = 1;
/// The offset + flags word of an IPv6 fragment header.
const FRAG_WORD: usize = 2;
/// The fragment offset in [`FRAG_WORD`] (the M flag and reserved bits aside).
const FRAG_OFFSET_BITS: u16 = 0xFFF8;

/// Bytes of an IPv6 extension header from its length byte.
const fn ext_len(units: u8) -> usize {
    (units as usize + 1) * ipv6_ext::MIN_LEN
}

use super::layout::{
    Fixed, RAW_TCP4, TCP4, TCP4_HDR, TCP4_IP_END, TCP6, TCP6_HDR, VXLAN4, VXLAN4_HDR,
};

/// Version 4 and IHL 5 (no options): the first byte of a fixed-layout IPv4 header.
const V4_IHL5: u8 = 0x45;
/// The fragment word's flags and offset that keep a header out of the fast
/// paths (MF, the offset; DF and the reserved bit may be set).
const MF_OR_OFFSET: u16 = ipv4::FLAG_MF | ipv4::FRAG_OFFSET_MASK;

/// Most IPv6 extension headers walked.
const MAX_EXT: usize = 8;
/// Ethernet minimum frame without FCS: shorter IP datagrams are padded to it.
const ETH_MIN_FRAME: usize = 60;

#[inline]
pub(crate) fn be16(b: &[u8], at: usize) -> Option<u16> {
    match b.get(at..at + 2) {
        Some(&[x, y]) => Some(u16::from_be_bytes([x, y])),
        _ => None,
    }
}

#[inline]
pub(crate) fn be32(b: &[u8], at: usize) -> Option<u32> {
    match b.get(at..at + 4) {
        Some(&[w, x, y, z]) => Some(u32::from_be_bytes([w, x, y, z])),
        _ => None,
    }
}

#[inline]
pub(crate) fn byte(b: &[u8], at: usize) -> Option<u8> {
    b.get(at).copied()
}

/// The transport GRO works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, zerocopy::FromZeros)]
#[repr(u8)]
pub(crate) enum L4 {
    /// TCP.
    #[default]
    Tcp,
    /// UDP (plain UDP L4 GRO only; tunnels carry TCP).
    Udp,
}

/// The tunnel between the outer and the inner IP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, zerocopy::FromZeros)]
#[repr(u8)]
pub(crate) enum Encap {
    /// No tunnel.
    #[default]
    None,
    /// VXLAN over UDP 4789.
    Vxlan,
    /// GENEVE over UDP 6081.
    Geneve,
    /// GRE (RFC 2784/2890; C and K bits only).
    Gre,
    /// IPv4 or IPv6 directly in IP.
    Ipip,
}

/// One IP header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, zerocopy::FromZeros)]
pub(crate) struct Ip {
    /// Offset of the IP header.
    pub off: u16,
    /// Offset of the next header after options / extension headers.
    pub next: u16,
    /// IPv6 (else IPv4).
    pub v6: bool,
}

impl Ip {
    /// Bytes of IPv6 extension headers (0 for IPv4).
    #[inline]
    pub fn ext_len(&self) -> usize {
        if self.v6 {
            (self.next - self.off) as usize - 40
        } else {
            0
        }
    }
}

/// Offsets of one candidate packet, all from the start of the frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, zerocopy::FromZeros)]
pub(crate) struct Parsed {
    /// IP headers, outermost first; `ips[n - 1]` carries the L4.
    pub ips: [Ip; 2],
    /// Number of IP headers (1 or 2).
    pub n: u8,
    /// The tunnel, if any.
    pub encap: Encap,
    /// Offset of the outer UDP or GRE header (tunnels other than IP-in-IP).
    pub enc_off: u16,
    /// Offset of the inner Ethernet header, or of the inner IP when there is none.
    pub inner_l2: u16,
    /// Offset of the innermost TCP/UDP header.
    pub l4: u16,
    /// TCP or UDP.
    pub l4kind: L4,
    /// Offset of the first payload byte.
    pub payload: u16,
    /// End of the IP datagrams (by their length fields).
    pub end: u32,
}

impl Parsed {
    /// The innermost IP header.
    #[inline]
    pub fn inner(&self) -> Ip {
        if self.n == 2 {
            self.ips[1]
        } else {
            self.ips[0]
        }
    }

    /// Payload bytes of this segment.
    #[inline]
    pub fn payload_len(&self) -> u32 {
        self.end - self.payload as u32
    }

    /// Length of the outermost IP datagram.
    #[inline]
    pub fn outer_ip_len(&self) -> u32 {
        self.end - self.ips[0].off as u32
    }
}

/// A parse that stopped, or one that found a defect but still knows the flow.
pub(crate) struct Outcome {
    /// Offsets.
    pub p: Parsed,
    /// The first defect found (the packet passes up; its flow is flushed first).
    pub defect: Option<FlushReason>,
}

fn first(defect: &mut Option<FlushReason>, r: FlushReason) {
    if defect.is_none() {
        *defect = Some(r);
    }
}

/// The ones-complement checksum of a word sum: folded, complemented (what a
/// from-scratch `ip_fast_csum` writes).
#[inline(always)]
pub(crate) const fn fold_not(sum: u32) -> u16 {
    let s = (sum & 0xFFFF) + (sum >> 16);
    let s = (s & 0xFFFF) + (s >> 16);
    !(s as u16)
}

/// True when an IPv4 header's checksum verifies ([`csum::ipv4_header`]:
/// `adc` chains of u64 words; u32 words summed cost TCP 64 flows, a new
/// flow per frame, 2.7 instructions more per packet).
#[inline(always)]
pub(crate) fn ipv4_header_ok(hdr: &[u8]) -> bool {
    csum::ipv4_header(hdr).is_zero()
}

/// The common case in one bounds check: Ethernet, IPv4 without options, TCP,
/// no fragment, no padding, good header checksum; returns the payload offset.
/// Anything else takes the general walk (which gives the same answer for
/// these packets).
#[inline(always)]
pub(crate) fn fast_tcp4_payload(f: &[u8]) -> Option<usize> {
    let payload = fast_tcp4_unchecked(f)?;
    if !ipv4_header_ok(f.get(TCP4.ip[0]..TCP4_IP_END)?) {
        return None;
    }
    Some(payload)
}

/// Ethertype IPv4, version 4 + IHL 5, protocol TCP: the first test of the
/// fixed TCP/IPv4 layout (one masked load and a byte).
#[inline(always)]
pub(crate) fn is_tcp4_lead(h: &[u8; TCP4_HDR]) -> bool {
    const LEAD: u32 = u32::from_be_bytes([0, 0x08, 0x00, V4_IHL5]);
    const _: () = assert!(TCP4.ethertype + 2 == TCP4.ip[0]);
    let lead = be32(h, TCP4.ethertype).unwrap_or(0);
    lead >> 8 == LEAD && h[TCP4.ip4(0, ipv4::PROTOCOL_OFFSET)] == ipproto::TCP
}

/// Version 4 + IHL 5, protocol TCP: the first test of the raw-IP TCP/IPv4
/// layout (the frame's first 54 bytes; only 40 are the headers).
#[inline(always)]
pub(crate) fn is_raw_tcp4_lead(h: &[u8; TCP4_HDR]) -> bool {
    h[RAW_TCP4.ip[0]] == V4_IHL5 && h[RAW_TCP4.ip4(0, ipv4::PROTOCOL_OFFSET)] == ipproto::TCP
}

/// EtherType IPv6, version 6, next header TCP: the first test of the fixed
/// TCP/IPv6 layout (no extension headers).
#[inline(always)]
pub(crate) fn is_tcp6_lead(h: &[u8; TCP6_HDR]) -> bool {
    let l = TCP6;
    be16(h, l.ethertype) == Some(ethertype::IPV6)
        && h[l.ip[0]] >> 4 == 6
        && h[l.ip4(0, ipv6::NEXT_HEADER_OFFSET)] == ipproto::TCP
}

/// The payload offset of a frame that passed [`is_tcp6_lead`]: the IPv6
/// payload length ends the frame (no padding), a valid TCP header length
/// within the frame and [`MAX_HEADER`].
#[inline(always)]
pub(crate) fn fast_tcp6_after_lead(h: &[u8; TCP6_HDR], f: &[u8]) -> Option<usize> {
    let l = TCP6;
    let plen = be16(h, l.ip4(0, ipv6::PAYLOAD_LEN_OFFSET))? as usize;
    let doff = tcp_doff(h[l.tcp(tcp::DATA_OFFSET_OFFSET)]);
    let payload = l.tcp + doff;
    if plen == 0 || l.tcp + plen != f.len() || doff < tcp::MIN_HEADER_LEN || payload > f.len() {
        return None;
    }
    if payload > MAX_HEADER {
        return None;
    }
    Some(payload)
}

/// [`fast_tcp4_payload`] without the IPv4 header checksum: the fast path
/// checks it after the flow lookup, by arithmetic against the held flow's
/// verified first header when there is one (`flow::ip4_sum_follows`).
#[inline(always)]
pub(crate) fn fast_tcp4_unchecked(f: &[u8]) -> Option<usize> {
    let h: &[u8; TCP4_HDR] = f.get(..TCP4_HDR)?.try_into().ok()?;
    if !is_tcp4_lead(h) {
        return None;
    }
    fast_tcp4_after_lead(h, f)
}

/// [`fast_tcp4_unchecked`] for a frame whose first 54 bytes `h` passed
/// [`is_tcp4_lead`].
#[inline(always)]
pub(crate) fn fast_tcp4_after_lead(h: &[u8; TCP4_HDR], f: &[u8]) -> Option<usize> {
    fast_tcp4_after_lead_at(TCP4, h, f)
}

/// [`fast_tcp4_after_lead`] for layout `l` (Ethernet or raw IP).
#[inline(always)]
pub(crate) fn fast_tcp4_after_lead_at(l: Fixed, h: &[u8; TCP4_HDR], f: &[u8]) -> Option<usize> {
    let total = be16(h, l.ip4(0, ipv4::TOTAL_LEN_OFFSET))? as usize;
    let frag = be16(h, l.ip4(0, ipv4::FRAG_OFFSET))?;
    let doff = tcp_doff(h[l.tcp(tcp::DATA_OFFSET_OFFSET)]);
    let payload = l.tcp + doff;
    if l.ip[0] + total != f.len()
        || frag & MF_OR_OFFSET != 0
        || doff < tcp::MIN_HEADER_LEN
        || payload > f.len()
    {
        return None;
    }
    if payload > MAX_HEADER {
        return None;
    }
    Some(payload)
}

/// The TCP header length from its data offset byte.
#[inline(always)]
const fn tcp_doff(b: u8) -> usize {
    (b >> 4) as usize * 4
}

/// [`fast_tcp4_payload`] as offsets.
#[inline(always)]
pub(crate) fn fast_tcp4(f: &[u8]) -> Option<Parsed> {
    fast_tcp4_payload(f).map(|payload| tcp4_parsed(payload, f.len()))
}

/// The offsets of an Ethernet / IPv4 (no options) / TCP frame.
#[inline(always)]
pub(crate) fn tcp4_parsed(payload: usize, end: usize) -> Parsed {
    tcp4_parsed_at(TCP4, payload, end)
}

/// [`tcp4_parsed`] for layout `l` (Ethernet or raw IP).
#[inline(always)]
pub(crate) fn tcp4_parsed_at(l: Fixed, payload: usize, end: usize) -> Parsed {
    fixed_tcp_parsed(l, false, payload, end)
}

/// The offsets of an Ethernet / IPv6 (no extension headers) / TCP frame
/// ([`TCP6`]), as the walk finds them.
#[inline(always)]
pub(crate) fn tcp6_parsed(payload: usize, end: usize) -> Parsed {
    fixed_tcp_parsed(TCP6, true, payload, end)
}

/// The walk's offsets for a frame of fixed layout `l` with one IP header
/// (IPv6 when `v6`) and TCP: what both fixed parsers above return.
#[inline(always)]
fn fixed_tcp_parsed(l: Fixed, v6: bool, payload: usize, end: usize) -> Parsed {
    let ip = Ip {
        off: l.ip[0] as u16,
        next: l.tcp as u16,
        v6,
    };
    Parsed {
        ips: [ip, Ip::default()],
        n: 1,
        encap: Encap::None,
        enc_off: 0,
        inner_l2: l.inner_l2 as u16,
        l4: l.tcp as u16,
        l4kind: L4::Tcp,
        payload: payload as u16,
        end: end as u32,
    }
}

/// Parses one IP header at `off` whose datagram must end at or before `limit`.
/// Returns the header and its protocol and end.
fn parse_ip(
    f: &[u8],
    off: usize,
    et: u16,
    limit: usize,
    defect: &mut Option<FlushReason>,
) -> Result<(Ip, u8, usize), FlushReason> {
    match et {
        ethertype::IPV4 => {
            let vihl = byte(f, off).ok_or(FlushReason::Malformed)?;
            if vihl >> 4 != 4 {
                return Err(FlushReason::Malformed);
            }
            let ihl = (vihl & 0x0F) as usize * 4;
            if ihl < ipv4::MIN_HEADER_LEN {
                return Err(FlushReason::Malformed);
            }
            let hdr = f.get(off..off + ihl).ok_or(FlushReason::Malformed)?;
            if ihl != ipv4::MIN_HEADER_LEN {
                first(defect, FlushReason::IpOptions);
            }
            let total =
                be16(f, off + ipv4::TOTAL_LEN_OFFSET).ok_or(FlushReason::Malformed)? as usize;
            if total < ihl || off + total > limit {
                return Err(FlushReason::Malformed);
            }
            let frag = be16(f, off + ipv4::FRAG_OFFSET).ok_or(FlushReason::Malformed)?;
            if frag & ipv4::FRAG_OFFSET_MASK != 0 {
                // A later fragment: no transport header to find the flow by.
                return Err(FlushReason::Fragment);
            }
            if frag & ipv4::FLAG_MF != 0 {
                first(defect, FlushReason::Fragment);
            }
            if !ipv4_header_ok(hdr) {
                first(defect, FlushReason::BadIpChecksum);
            }
            let proto = byte(f, off + ipv4::PROTOCOL_OFFSET).ok_or(FlushReason::Malformed)?;
            Ok((
                Ip {
                    off: off as u16,
                    next: (off + ihl) as u16,
                    v6: false,
                },
                proto,
                off + total,
            ))
        }
        ethertype::IPV6 => {
            if byte(f, off).ok_or(FlushReason::Malformed)? >> 4 != 6 {
                return Err(FlushReason::Malformed);
            }
            let plen =
                be16(f, off + ipv6::PAYLOAD_LEN_OFFSET).ok_or(FlushReason::Malformed)? as usize;
            if f.len() < off + ipv6::HEADER_LEN {
                return Err(FlushReason::Malformed);
            }
            if plen == 0 {
                // Jumbogram or empty: not a GRO candidate.
                return Err(FlushReason::NotCandidate);
            }
            let end = off + ipv6::HEADER_LEN + plen;
            if end > limit {
                return Err(FlushReason::Malformed);
            }
            let mut next = byte(f, off + ipv6::NEXT_HEADER_OFFSET).ok_or(FlushReason::Malformed)?;
            let mut at = off + ipv6::HEADER_LEN;
            let mut walked = 0;
            loop {
                let len = match next {
                    ipproto::HOPOPTS | ipproto::DSTOPTS => {
                        ext_len(byte(f, at + EXT_LEN_BYTE).ok_or(FlushReason::Malformed)?)
                    }
                    ipproto::ROUTING => {
                        // Segments left moves the pseudo-header destination:
                        // not a GRO candidate here.
                        if byte(f, at + ipv6_ext::SEGMENTS_LEFT_OFFSET)
                            .ok_or(FlushReason::Malformed)?
                            != 0
                        {
                            return Err(FlushReason::NotCandidate);
                        }
                        ext_len(byte(f, at + EXT_LEN_BYTE).ok_or(FlushReason::Malformed)?)
                    }
                    ipproto::FRAGMENT => {
                        let w = be16(f, at + FRAG_WORD).ok_or(FlushReason::Malformed)?;
                        if w & FRAG_OFFSET_BITS != 0 {
                            return Err(FlushReason::Fragment);
                        }
                        first(defect, FlushReason::Fragment);
                        ipv6_ext::FRAGMENT_LEN
                    }
                    _ => break,
                };
                walked += 1;
                if walked > MAX_EXT || at + len > end {
                    return Err(FlushReason::Malformed);
                }
                next = byte(f, at).ok_or(FlushReason::Malformed)?;
                at += len;
            }
            Ok((
                Ip {
                    off: off as u16,
                    next: at as u16,
                    v6: true,
                },
                next,
                end,
            ))
        }
        _ => Err(FlushReason::NotCandidate),
    }
}

/// Ethernet + up to two VLAN tags: returns the IP offset and EtherType.
fn parse_eth(f: &[u8], mut at: usize, tags: usize) -> Result<(usize, u16), FlushReason> {
    let mut et = be16(f, at + ethernet::ETHERTYPE_OFFSET).ok_or(FlushReason::Malformed)?;
    at += ethernet::HEADER_LEN;
    let mut n = 0;
    while et == ethertype::VLAN || et == ethertype::QINQ {
        if n >= tags {
            return Err(FlushReason::NotCandidate);
        }
        et = be16(f, at + ethernet::VLAN_ETHERTYPE_OFFSET).ok_or(FlushReason::Malformed)?;
        at += ethernet::VLAN_TAG_LEN;
        n += 1;
    }
    Ok((at, et))
}

/// The outermost IP header of a frame, without any checks beyond bounds
/// (used to find the flows a later fragment belongs near).
pub(crate) fn outer_ip(f: &[u8], link: LinkType) -> Option<Ip> {
    let (l3, et) = match link {
        LinkType::Ethernet => parse_eth(f, 0, 2).ok()?,
        LinkType::RawIp => match byte(f, 0)? >> 4 {
            4 => (0, ethertype::IPV4),
            _ => (0, ethertype::IPV6),
        },
    };
    let v6 = match et {
        ethertype::IPV4 => false,
        ethertype::IPV6 => true,
        _ => return None,
    };
    f.get(
        l3..l3
            + if v6 {
                ipv6::HEADER_LEN
            } else {
                ipv4::MIN_HEADER_LEN
            },
    )?;
    Some(Ip {
        off: l3 as u16,
        next: l3 as u16,
        v6,
    })
}

/// The common tunnel case in one bounds check: Ethernet / IPv4 / UDP 4789 /
/// VXLAN / Ethernet / IPv4 / TCP, no options, no fragments, no padding, good
/// header checksums. Anything else takes the general walk (same answer).
#[inline(always)]
pub(crate) fn fast_vxlan4(f: &[u8]) -> Option<Parsed> {
    let p = fast_vxlan4_unchecked(f)?;
    let [outer, inner] = VXLAN4.ip;
    let ip4 = |at: usize| {
        f.get(at..at + ipv4::MIN_HEADER_LEN)
            .is_some_and(ipv4_header_ok)
    };
    if !ip4(outer) || !ip4(inner) {
        return None;
    }
    Some(p)
}

/// [`fast_vxlan4`] without the two IPv4 header checksums (checked after the
/// flow lookup, as in [`fast_tcp4_unchecked`]).
#[inline(always)]
pub(crate) fn fast_vxlan4_unchecked(f: &[u8]) -> Option<Parsed> {
    let l = VXLAN4;
    let h: &[u8; VXLAN4_HDR] = f.get(..VXLAN4_HDR)?.try_into().ok()?;
    let n = f.len();
    let be = |at: usize| be16(h, at).unwrap_or(0) as usize;
    // EtherType IPv4 and version 4 / IHL 5 at an Ethernet header at `eth`
    // whose IPv4 header carries `proto`.
    let ipv4_at = |eth: usize, ip: usize, proto: u8| {
        be(eth + ethernet::ETHERTYPE_OFFSET) == ethertype::IPV4 as usize
            && h[ip] == V4_IHL5
            && h[ip + ipv4::PROTOCOL_OFFSET] == proto
    };
    if !ipv4_at(0, l.ip[0], ipproto::UDP) {
        return None;
    }
    if be(l.udp + udp::DST_PORT_OFFSET) != port::VXLAN as usize || h[l.vxlan] & vxlan::FLAG_VNI == 0
    {
        return None;
    }
    if !ipv4_at(l.inner_l2, l.ip[1], ipproto::TCP) {
        return None;
    }
    let total = |ip: usize| ip + be(ip + ipv4::TOTAL_LEN_OFFSET);
    if total(l.ip[0]) != n || l.udp + be(l.udp + udp::LENGTH_OFFSET) != n || total(l.ip[1]) != n {
        return None;
    }
    let frag = |ip: usize| be(ip + ipv4::FRAG_OFFSET) as u16 & MF_OR_OFFSET;
    if frag(l.ip[0]) | frag(l.ip[1]) != 0 {
        return None;
    }
    let doff = tcp_doff(h[l.tcp(tcp::DATA_OFFSET_OFFSET)]);
    let payload = l.tcp + doff;
    if doff < tcp::MIN_HEADER_LEN || payload > n || payload > MAX_HEADER {
        return None;
    }
    let ip = |off: usize| Ip {
        off: off as u16,
        next: (off + ipv4::MIN_HEADER_LEN) as u16,
        v6: false,
    };
    Some(Parsed {
        ips: [ip(l.ip[0]), ip(l.ip[1])],
        n: 2,
        encap: Encap::Vxlan,
        enc_off: l.udp as u16,
        inner_l2: l.inner_l2 as u16,
        l4: l.tcp as u16,
        l4kind: L4::Tcp,
        payload: payload as u16,
        end: n as u32,
    })
}

/// Parses a frame for GRO. `Err` means: pass up alone, no flow to flush.
pub(crate) fn parse(f: &[u8], link: LinkType, kinds: GroKinds) -> Result<Outcome, FlushReason> {
    let mut defect = None;
    let (l3, et) = match link {
        LinkType::Ethernet => parse_eth(f, 0, 2)?,
        LinkType::RawIp => match byte(f, 0).ok_or(FlushReason::Malformed)? >> 4 {
            4 => (0, ethertype::IPV4),
            6 => (0, ethertype::IPV6),
            _ => return Err(FlushReason::NotCandidate),
        },
    };
    let (ip0, proto0, end) = parse_ip(f, l3, et, f.len(), &mut defect)?;
    // Frame vs IP length: only Ethernet minimum-size padding may follow.
    if end != f.len() && !(link == LinkType::Ethernet && f.len() <= ETH_MIN_FRAME) {
        first(&mut defect, FlushReason::LengthMismatch);
    }
    let mut p = Parsed {
        ips: [ip0, Ip::default()],
        n: 1,
        end: end as u32,
        ..Parsed::default()
    };
    let mut at = ip0.next as usize;
    let mut proto = proto0;
    let tunnel_on = kinds.contains(GroKinds::TUNNEL);
    // One tunnel level at most.
    let inner_et = match proto0 {
        ipproto::UDP => {
            let dport = be16(f, at + udp::DST_PORT_OFFSET).ok_or(FlushReason::Malformed)?;
            match dport {
                port::VXLAN | port::GENEVE if !tunnel_on => return Err(FlushReason::Disabled),
                port::VXLAN => {
                    let flags = byte(f, at + udp::HEADER_LEN).ok_or(FlushReason::Malformed)?;
                    if flags & vxlan::FLAG_VNI == 0 {
                        return Err(FlushReason::NotCandidate);
                    }
                    p.encap = Encap::Vxlan;
                    p.enc_off = at as u16;
                    at += udp::HEADER_LEN + vxlan::HEADER_LEN;
                    Some(ethertype::TEB)
                }
                port::GENEVE => {
                    let gn = at + udp::HEADER_LEN;
                    let b0 = byte(f, gn).ok_or(FlushReason::Malformed)?;
                    let b1 = byte(f, gn + 1).ok_or(FlushReason::Malformed)?;
                    // Version 0, not OAM.
                    if b0 >> 6 != 0 || b1 & geneve::FLAG_OAM != 0 {
                        return Err(FlushReason::NotCandidate);
                    }
                    let pt = be16(f, gn + geneve::PROTOCOL_OFFSET).ok_or(FlushReason::Malformed)?;
                    p.encap = Encap::Geneve;
                    p.enc_off = at as u16;
                    let opts = (b0 & 0x3F) as usize * geneve::OPTION_HEADER_LEN;
                    at = gn + geneve::FIXED_LEN + opts;
                    Some(pt)
                }
                _ => None,
            }
        }
        ipproto::GRE | ipproto::IPIP | ipproto::IPV6 if !tunnel_on => {
            return Err(FlushReason::Disabled);
        }
        ipproto::GRE => {
            let flags = be16(f, at + gre::FLAGS_OFFSET).ok_or(FlushReason::Malformed)?;
            if flags & !(gre::FLAG_CHECKSUM | gre::FLAG_KEY) != 0 {
                return Err(FlushReason::NotCandidate);
            }
            let pt = be16(f, at + gre::PROTOCOL_OFFSET).ok_or(FlushReason::Malformed)?;
            p.encap = Encap::Gre;
            p.enc_off = at as u16;
            // The fixed header, then a 4-byte word per optional field.
            let word = |bit: u16| if flags & bit != 0 { 4 } else { 0 };
            at += gre::FIXED_LEN + word(gre::FLAG_CHECKSUM) + word(gre::FLAG_KEY);
            Some(pt)
        }
        ipproto::IPIP => {
            p.encap = Encap::Ipip;
            Some(ethertype::IPV4)
        }
        ipproto::IPV6 => {
            p.encap = Encap::Ipip;
            Some(ethertype::IPV6)
        }
        _ => None,
    };
    if let Some(mut et) = inner_et {
        if at > end {
            return Err(FlushReason::Malformed);
        }
        p.inner_l2 = at as u16;
        if et == ethertype::TEB {
            let (ip_at, inner) = parse_eth(f, at, 0)?;
            at = ip_at;
            et = inner;
        }
        let (ip1, proto1, end1) = parse_ip(f, at, et, end, &mut defect)?;
        if end1 != end {
            first(&mut defect, FlushReason::LengthMismatch);
        }
        if proto1 != ipproto::TCP {
            return Err(FlushReason::NotCandidate);
        }
        p.ips[1] = ip1;
        p.n = 2;
        at = ip1.next as usize;
        proto = proto1;
    } else {
        p.inner_l2 = ip0.off;
    }
    match proto {
        ipproto::TCP => {
            let doff =
                tcp_doff(byte(f, at + tcp::DATA_OFFSET_OFFSET).ok_or(FlushReason::Malformed)?);
            if doff < tcp::MIN_HEADER_LEN || at + doff > end {
                return Err(FlushReason::Malformed);
            }
            p.l4kind = L4::Tcp;
            p.payload = (at + doff) as u16;
        }
        ipproto::UDP => {
            if at + udp::HEADER_LEN > end {
                return Err(FlushReason::Malformed);
            }
            let ulen = be16(f, at + udp::LENGTH_OFFSET).ok_or(FlushReason::Malformed)? as usize;
            if ulen != end - at {
                first(&mut defect, FlushReason::LengthMismatch);
            }
            p.l4kind = L4::Udp;
            p.payload = (at + udp::HEADER_LEN) as u16;
        }
        _ => return Err(FlushReason::NotCandidate),
    }
    p.l4 = at as u16;
    // Tunnel UDP length must match too.
    if matches!(p.encap, Encap::Vxlan | Encap::Geneve) {
        let at = p.enc_off as usize + udp::LENGTH_OFFSET;
        let ulen = be16(f, at).ok_or(FlushReason::Malformed)? as usize;
        if ulen != end - p.enc_off as usize {
            first(&mut defect, FlushReason::LengthMismatch);
        }
    }
    if p.payload as usize > MAX_HEADER {
        return Err(FlushReason::HeaderTooLong);
    }
    let needed = match (p.encap, p.l4kind, p.ips[0].v6) {
        (Encap::None, L4::Tcp, false) => GroKinds::TCP4,
        (Encap::None, L4::Tcp, true) => GroKinds::TCP6,
        (Encap::None, L4::Udp, _) => GroKinds::UDP,
        (Encap::Vxlan | Encap::Geneve | Encap::Gre | Encap::Ipip, _, _) => GroKinds::TUNNEL,
    };
    if !kinds.contains(needed) {
        return Err(FlushReason::Disabled);
    }
    Ok(Outcome { p, defect })
}

/// Pseudo-header sum of IP header `ip` for an L4 of `len` bytes.
#[inline]
pub(crate) fn pseudo(f: &[u8], ip: Ip, proto: u8, len: u32) -> Wsum {
    let o = ip.off as usize;
    if ip.v6 {
        let addr = |at: usize| {
            f.get(at..at + 16)
                .and_then(|a| <&[u8; 16]>::try_from(a).ok())
        };
        match (addr(o + ipv6::SRC_OFFSET), addr(o + ipv6::DST_OFFSET)) {
            (Some(s), Some(d)) => csum::pseudo_v6(s, d, proto, len, Wsum::ZERO),
            _ => csum::pseudo_v6(&[0; 16], &[0; 16], proto, len, Wsum::ZERO),
        }
    } else {
        let mut s = [0u8; 4];
        let mut d = [0u8; 4];
        let (src, dst) = (o + ipv4::SRC_OFFSET, o + ipv4::DST_OFFSET);
        if let (Some(a), Some(b)) = (f.get(src..src + 4), f.get(dst..dst + 4)) {
            s.copy_from_slice(a);
            d.copy_from_slice(b);
        }
        csum::pseudo_v4(s, d, proto, len, Wsum::ZERO)
    }
}
