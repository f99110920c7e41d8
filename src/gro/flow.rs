//! Flow identity and the merge rules: `gro_list_prepare` + the `same_flow`
//! parts of every `*_gro_receive` (identity), and `inet_gro_flush`,
//! `ipv6_gro_flush`, `tcp_gro_receive`, `udp_gro_receive_segment`,
//! `skb_gro_receive` (may this segment join?).

use super::layout::{
    Fixed, IP4_TOS, RAW_TCP4, TCP4, TCP4_HDR, TCP4_ID, TCP6, TCP6_HDR, TCP6_ID, VXLAN4, VXLAN4_HDR,
    VXLAN4_ID,
};
use super::output::{IdMode, SuperPacket};
use super::parse::{Encap, L4, Parsed, be16, be32, byte};
use super::reason::FlushReason;
use super::rules::{
    ip_rule_broken, ip4_rules_mask, ip6_rules_mask, tcp_rule_broken, tcp_rules_mask,
};
use crate::wire::{ethernet, gre, ipv4, ipv6, tcp, udp, vxlan};

const TCP_FIN: u8 = 0x01;
const TCP_SYN: u8 = 0x02;
const TCP_RST: u8 = 0x04;
const TCP_PSH: u8 = 0x08;
const TCP_URG: u8 = 0x20;
/// CWR (also ends no flow: it must be equal, and marks `TCP_ACCECN`).
pub(crate) const TCP_CWR: u8 = 0x80;

/// IPv4 source + destination, IPv6 one address: one 8-byte load each.
const IP4_ADDRS: usize = ipv4::SRC_OFFSET;
/// Both IPv6 addresses.
const IP6_ADDRS_LEN: usize = 32;
/// Version and flow label of the first IPv6 word (traffic class masked off).
const IP6_VERSION_FLOW: u32 = 0xF00F_FFFF;

/// Flow hash over the innermost addresses and ports and the outer source
/// (tunnels spread flows by the outer UDP source port or addresses).
#[inline]
pub(crate) fn hash(f: &[u8], p: &Parsed) -> u32 {
    let ip = p.inner();
    let o = ip.off as usize;
    let mut h: u64 = if ip.v6 {
        let a = o + ipv6::SRC_OFFSET;
        load8(f, a)
            ^ load8(f, a + 8).rotate_left(17)
            ^ load8(f, a + 16).rotate_left(31)
            ^ load8(f, a + 24).rotate_left(47)
    } else {
        load8(f, o + IP4_ADDRS)
    };
    h ^= (be32(f, p.l4 as usize + tcp::SRC_PORT_OFFSET).unwrap_or(0) as u64) << 21;
    if p.n == 2 {
        let outer = if p.ips[0].v6 {
            ipv6::SRC_OFFSET
        } else {
            IP4_ADDRS
        };
        h ^= load8(f, p.ips[0].off as usize + outer).rotate_left(7);
        if matches!(p.encap, Encap::Vxlan | Encap::Geneve) {
            let ports = p.enc_off as usize + udp::SRC_PORT_OFFSET;
            h ^= (be32(f, ports).unwrap_or(0) as u64) << 3;
        }
    }
    mix(h)
}

/// Identity of one IP header: version, addresses, protocol / flow label.
#[inline(always)]
fn same_ip(a: &[u8], ao: usize, b: &[u8], bo: usize, v6: bool) -> bool {
    if v6 {
        let fa = be32(a, ao).unwrap_or(0) & IP6_VERSION_FLOW;
        let fb = be32(b, bo).unwrap_or(1) & IP6_VERSION_FLOW;
        let at = ipv6::SRC_OFFSET;
        fa == fb && eq_at(a, ao + at, b, bo + at, IP6_ADDRS_LEN)
    } else {
        let proto = ipv4::PROTOCOL_OFFSET;
        byte(a, ao + proto) == byte(b, bo + proto) && eq_at(a, ao + IP4_ADDRS, b, bo + IP4_ADDRS, 8)
    }
}

/// True when the held flow `s` and packet `b` are the same flow (Linux
/// `same_flow`): link header (MACs, VLAN tags), IP version, addresses,
/// protocol and flow label at every IP layer, tunnel identity (UDP ports and
/// checksum presence, VXLAN flags+VNI, GENEVE header and options byte-equal,
/// GRE flags, protocol and key, inner Ethernet header) and ports.
#[inline]
pub(crate) fn same_flow(s: &SuperPacket, f: &[u8], p: &Parsed) -> bool {
    let q = &s.p;
    let a = &s.hdr[..];
    if q.n != p.n || q.encap != p.encap || q.l4kind != p.l4kind {
        return false;
    }
    // Ethernet / IPv4 without options / TCP or UDP: fixed offsets.
    let (ip, l4) = (TCP4.ip[0] as u16, TCP4.tcp as u16);
    if p.n == 1
        && p.l4 == l4
        && q.l4 == l4
        && p.ips[0].off == ip
        && q.ips[0].off == ip
        && !p.ips[0].v6
        && !q.ips[0].v6
        && let (Some(x), Some(y)) = (a.get(..TCP4_ID), f.get(..TCP4_ID))
    {
        let proto = TCP4.ip4(0, ipv4::PROTOCOL_OFFSET);
        return load8(x, 0) == load8(y, 0)
            && load8(x, ETH_WORD2) == load8(y, ETH_WORD2)
            && x[proto] == y[proto]
            && load8(x, TCP4.ip4(0, IP4_ADDRS)) == load8(y, TCP4.ip4(0, IP4_ADDRS))
            && load4(x, TCP4.tcp) == load4(y, TCP4.tcp);
    }
    let l3 = p.ips[0].off as usize;
    if q.ips[0].off as usize != l3 || !eq_at(a, 0, f, 0, l3) {
        return false;
    }
    for i in 0..p.n as usize {
        let (x, y) = (q.ips[i], p.ips[i]);
        if x.v6 != y.v6 || !same_ip(a, x.off as usize, f, y.off as usize, y.v6) {
            return false;
        }
    }
    if p.n == 2 {
        let (qe, pe) = (q.enc_off as usize, p.enc_off as usize);
        let tunnel_ok = match p.encap {
            Encap::Vxlan => {
                let (csum, vx) = (udp::CHECKSUM_OFFSET, udp::HEADER_LEN);
                eq_at(a, qe, f, pe, UDP_PORTS_LEN)
                    && zero16(a, qe + csum) == zero16(f, pe + csum)
                    && eq_at(a, qe + vx, f, pe + vx, vxlan::HEADER_LEN)
            }
            Encap::Geneve => {
                let (csum, gn) = (udp::CHECKSUM_OFFSET, udp::HEADER_LEN);
                let la = q.inner_l2 as usize - qe;
                let lb = p.inner_l2 as usize - pe;
                la == lb
                    && eq_at(a, qe, f, pe, UDP_PORTS_LEN)
                    && zero16(a, qe + csum) == zero16(f, pe + csum)
                    && eq_at(a, qe + gn, f, pe + gn, la - gn)
            }
            Encap::Gre => {
                let fl = be16(f, pe + gre::FLAGS_OFFSET).unwrap_or(0);
                let key_at = gre::FIXED_LEN
                    + if fl & gre::FLAG_CHECKSUM != 0 {
                        GRE_CSUM_LEN
                    } else {
                        0
                    };
                eq_at(a, qe, f, pe, gre::FIXED_LEN)
                    && (fl & gre::FLAG_KEY == 0
                        || eq_at(a, qe + key_at, f, pe + key_at, GRE_KEY_LEN))
            }
            Encap::Ipip | Encap::None => true,
        };
        if !tunnel_ok {
            return false;
        }
        // Inner Ethernet header (TEB), compared whole like `eth_gro_receive`.
        let (qi, pi) = (q.inner_l2 as usize, p.inner_l2 as usize);
        let (qn, pn) = (q.ips[1].off as usize, p.ips[1].off as usize);
        if qn - qi != pn - pi || !eq_at(a, qi, f, pi, pn - pi) {
            return false;
        }
    }
    eq_at(a, q.l4 as usize, f, p.l4 as usize, PORTS_LEN)
}

/// Source and destination port (TCP and UDP alike).
const PORTS_LEN: usize = 4;
/// The UDP ports of a tunnel's UDP header.
const UDP_PORTS_LEN: usize = 4;
/// GRE's checksum and reserved word.
const GRE_CSUM_LEN: usize = 4;
/// GRE's key.
const GRE_KEY_LEN: usize = 4;
/// The second 8-byte word of the Ethernet header (source MAC tail and
/// EtherType: bytes 6..14).
const ETH_WORD2: usize = ethernet::HEADER_LEN - 8;

/// Mask for one host-order 8-byte load of TCP bytes 8..16 (ack, data offset,
/// flags, window): the TCP rules' bits (every bit but FIN and PSH).
const ACK_FLAGS_WINDOW: u64 = tcp_rules_mask(tcp::ACK_OFFSET);
/// Mask for one host-order 8-byte load of IPv4 bytes 1..9 (TOS to TTL): the
/// IPv4 rules' bits (TOS, DF, TTL).
const TOS_DF_TTL: u64 = ip4_rules_mask(IP4_TOS);
/// Mask for one host-order 8-byte load of IPv6 bytes 0..8: the IPv6 rules'
/// bits (traffic class, hop limit).
const TCLASS_HOPS: u64 = ip6_rules_mask(0);
/// Version and flow label in a host-order 4-byte load of IPv6 bytes 0..4.
const VERSION_FLOW: u32 = u32::from_be(IP6_VERSION_FLOW);

/// Byte-equality of two ranges without a `memcmp` call for short ones
/// (8-byte loads, the last one overlapping).
#[inline(always)]
pub(crate) fn eq_at(a: &[u8], ao: usize, b: &[u8], bo: usize, len: usize) -> bool {
    if (8..=16).contains(&len)
        && let (Some(a0), Some(a1), Some(b0), Some(b1)) = (
            a.get(ao..ao + 8),
            a.get(ao + len - 8..ao + len),
            b.get(bo..bo + 8),
            b.get(bo + len - 8..bo + len),
        )
    {
        // Two overlapping loads, one branch (TCP timestamps: 12 bytes),
        // each range checked against the whole slices.
        return (load8(a0, 0) ^ load8(b0, 0)) | (load8(a1, 0) ^ load8(b1, 0)) == 0;
    }
    let (Some(x), Some(y)) = (a.get(ao..ao + len), b.get(bo..bo + len)) else {
        return false;
    };
    if (8..=32).contains(&len) {
        let mut i = 0;
        while i + 8 < len {
            if load8(x, i) != load8(y, i) {
                return false;
            }
            i += 8;
        }
        load8(x, len - 8) == load8(y, len - 8)
    } else if len == 4 {
        load4(x, 0) == load4(y, 0)
    } else {
        x == y
    }
}

/// The 8 bytes at `at` as a host-order word (0 when out of range).
#[inline(always)]
pub(crate) fn load8(b: &[u8], at: usize) -> u64 {
    match b.get(at..at + 8) {
        Some(s) => {
            let mut w = [0u8; 8];
            w.copy_from_slice(s);
            u64::from_ne_bytes(w)
        }
        None => 0,
    }
}

#[inline(always)]
fn load4(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(s) => {
            let mut w = [0u8; 4];
            w.copy_from_slice(s);
            u32::from_ne_bytes(w)
        }
        None => 0,
    }
}

#[inline]
fn zero16(b: &[u8], at: usize) -> bool {
    be16(b, at) == Some(0)
}

/// True when flow `s`'s outermost IP header has the addresses of `ip` in `f`
/// (IPv4: also the protocol; IPv6: the addresses only, the protocol sits
/// after the fragment header).
pub(crate) fn same_outer_ip(s: &SuperPacket, f: &[u8], ip: super::parse::Ip) -> bool {
    let q = s.p.ips[0];
    if q.v6 != ip.v6 {
        return false;
    }
    let (qo, po) = (q.off as usize, ip.off as usize);
    if ip.v6 {
        let at = ipv6::SRC_OFFSET;
        eq_at(&s.hdr, qo + at, f, po + at, IP6_ADDRS_LEN)
    } else {
        let proto = ipv4::PROTOCOL_OFFSET;
        eq_at(&s.hdr, qo + IP4_ADDRS, f, po + IP4_ADDRS, 8)
            && byte(&s.hdr, qo + proto) == byte(f, po + proto)
    }
}

#[inline(always)]
fn hdr20(b: &[u8], at: usize) -> Option<&[u8; 20]> {
    b.get(at..at + ipv4::MIN_HEADER_LEN)?.try_into().ok()
}

/// The merge-time facts decided for one segment (committed only on merge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MergePlan {
    pub id_mode: [IdMode; 2],
    pub fin_psh: u8,
}

/// The network-layer flush rules of one IP layer (`inet_gro_flush` /
/// `ipv6_gro_flush`, mainline: fixed IDs allowed without DF; outer IDs checked).
#[inline(always)]
fn ip_rules(
    s: &SuperPacket,
    i: usize,
    f: &[u8],
    p: &Parsed,
    count: u16,
    mode: &mut IdMode,
) -> Result<(), FlushReason> {
    let a = &s.hdr[..];
    let (qo, po) = (s.p.ips[i].off as usize, p.ips[i].off as usize);
    if p.ips[i].v6 {
        if let Some(reason) = ip_rule_broken(a, qo, f, po, true) {
            return Err(reason);
        }
        let (ea, eb) = (s.p.ips[i].ext_len(), p.ips[i].ext_len());
        let ext = ipv6::HEADER_LEN;
        if ea != eb || !eq_at(a, qo + ext, f, po + ext, eb) {
            return Err(FlushReason::ExtHeadersDiffer);
        }
        return Ok(());
    }
    // One bounds check per header, then fixed offsets.
    let (Some(ha), Some(hb)) = (hdr20(a, qo), hdr20(f, po)) else {
        return Err(FlushReason::Malformed);
    };
    if let Some(reason) = ip_rule_broken(ha, 0, hb, 0, false) {
        return Err(reason);
    }
    let delta = ip4_id(hb, 0).wrapping_sub(s.ids[i]);
    match *mode {
        IdMode::Undecided => {
            if delta == 0 && count == 1 {
                *mode = IdMode::Fixed;
            } else if delta == count {
                *mode = IdMode::Incrementing;
            } else {
                return Err(FlushReason::IpIdNotIncrementing);
            }
        }
        IdMode::Fixed => {
            if delta != 0 {
                return Err(FlushReason::IpIdNotFixed);
            }
        }
        IdMode::Incrementing => {
            if delta != count {
                return Err(FlushReason::IpIdNotIncrementing);
            }
        }
    }
    Ok(())
}

/// May segment `p` (bytes `f`) join the held flow `s`? Mainline order of
/// concerns; the first failing rule names the reason.
#[inline]
pub(crate) fn can_merge(s: &SuperPacket, f: &[u8], p: &Parsed) -> Result<MergePlan, FlushReason> {
    let count = s.segs.len() as u16;
    let len = p.payload_len();
    let a = &s.hdr[..];
    let mut plan = MergePlan {
        id_mode: s.id_mode,
        fin_psh: 0,
    };
    match p.l4kind {
        L4::Tcp => {
            let (ql4, pl4) = (s.p.l4 as usize, p.l4 as usize);
            let (Some(ta), Some(tb)) = (hdr20(a, ql4), hdr20(f, pl4)) else {
                return Err(FlushReason::Malformed);
            };
            let flags = tb[tcp::FLAGS_OFFSET];
            if len == 0 {
                return Err(FlushReason::PureAck);
            }
            if let Some(reason) = tcp_rule_broken(ta, 0, tb, 0) {
                return Err(reason);
            }
            let thlen = p.payload as usize - pl4;
            let opts = tcp::OPTIONS_OFFSET;
            if thlen > opts && !eq_at(a, ql4 + opts, f, pl4 + opts, thlen - opts) {
                return Err(FlushReason::OptionsDiffer);
            }
            for i in 0..p.n as usize {
                ip_rules(s, i, f, p, count, &mut plan.id_mode[i])?;
            }
            if len > s.mss as u32 {
                return Err(FlushReason::MssExceeded);
            }
            let seq = be32(tb, tcp::SEQ_OFFSET).unwrap_or(0);
            if s.seq.wrapping_add(s.payload) != seq {
                return Err(FlushReason::SeqGap);
            }
            plan.fin_psh = flags & (TCP_FIN | TCP_PSH);
        }
        L4::Udp => {
            if len == 0 {
                return Err(FlushReason::PureAck);
            }
            for i in 0..p.n as usize {
                ip_rules(s, i, f, p, count, &mut plan.id_mode[i])?;
            }
            if len > s.mss as u32 {
                return Err(FlushReason::MssExceeded);
            }
        }
    }
    if len > s.room {
        return Err(FlushReason::Oversize);
    }
    Ok(plan)
}

/// The merge test for the common layout, as fixed-offset loads: Ethernet +
/// IPv4 without options + TCP at offset 34 in both the held header and the
/// frame, with the same TCP header length. `Some(plan)` exactly when
/// [`can_merge`] would return `Ok(plan)`; `None` means "ask [`can_merge`]",
/// which names the reason (Linux `tcp_gro_receive`'s word compares:
/// `flush |= *(u32 *)&th->... ^ *(u32 *)&th2->...`).
#[inline(always)]
pub(crate) fn can_merge_tcp4_fast(s: &SuperPacket, f: &[u8], p: &Parsed) -> Option<MergePlan> {
    if !is_tcp4_layout(p) {
        return None;
    }
    merge_tcp4_fixed(s, f, p.payload as usize, p.payload_len())
}

/// [`can_merge_tcp4_fast`] for a frame already known to have the fixed layout
/// with its payload at `payload` and `len` payload bytes.
#[inline(always)]
pub(crate) fn merge_tcp4_fixed(
    s: &SuperPacket,
    f: &[u8],
    payload: usize,
    len: u32,
) -> Option<MergePlan> {
    merge_tcp4_at(TCP4, s.tcp4, s, f, payload, len)
}

/// The TCP part of a fixed-layout merge, after the IP rows: ack and the flag
/// word (data offset, reserved, flags but FIN/PSH, window) by the rule table's
/// mask, then the options byte for byte (`tcp_gro_receive`'s header compare).
#[inline(always)]
fn tcp_rest_same<const N: usize>(
    l: Fixed,
    a: &[u8; N],
    b: &[u8; N],
    held: &[u8],
    f: &[u8],
    payload: usize,
) -> bool {
    let ack = l.tcp(tcp::ACK_OFFSET);
    if (load8(a, ack) ^ load8(b, ack)) & ACK_FLAGS_WINDOW != 0 {
        return false;
    }
    let (opts, thlen) = (l.options(), payload - l.tcp);
    thlen <= tcp::OPTIONS_OFFSET || eq_at(held, opts, f, opts, payload - opts)
}

/// [`merge_tcp4_fixed`] for layout `l` (Ethernet or raw IP) of a flow that
/// is `marked` with it.
#[inline(always)]
pub(crate) fn merge_tcp4_at(
    l: Fixed,
    marked: bool,
    s: &SuperPacket,
    f: &[u8],
    payload: usize,
    len: u32,
) -> Option<MergePlan> {
    if !(marked && s.p.payload as usize == payload) {
        return None;
    }
    let a: &[u8; TCP4_HDR] = s.hdr.get(..TCP4_HDR)?.try_into().ok()?;
    let b: &[u8; TCP4_HDR] = f.get(..TCP4_HDR)?.try_into().ok()?;
    if len == 0 || len > s.mss as u32 || len > s.room {
        return None;
    }
    // IP: TOS, DF and TTL equal (ID by arithmetic below).
    if !ip4_same_tos_df_ttl(a, b, l.ip[0]) {
        return None;
    }
    if !tcp_rest_same(l, a, b, &s.hdr, f, payload) {
        return None;
    }
    let count = s.segs.len() as u16;
    let delta = ip4_id(b, l.ip[0]).wrapping_sub(s.ids[0]);
    let mode = id_mode_after(s.id_mode[0], delta, count)?;
    let seq = be32(b, l.tcp(tcp::SEQ_OFFSET)).unwrap_or(0);
    if s.seq.wrapping_add(s.payload) != seq {
        return None;
    }
    Some(MergePlan {
        id_mode: [mode, s.id_mode[1]],
        fin_psh: b[l.flags()] & (TCP_FIN | TCP_PSH),
    })
}

/// Ethernet / IPv4 / UDP / VXLAN / Ethernet / IPv4 / TCP without options or
/// VLAN tags: the fixed-offset tunnel layout of `parse::fast_vxlan4`.
#[inline(always)]
pub(crate) fn is_vxlan4_layout(p: &Parsed) -> bool {
    let l = VXLAN4;
    p.n == 2
        && p.encap == Encap::Vxlan
        && p.ips[0].off as usize == l.ip[0]
        && !p.ips[0].v6
        && p.enc_off as usize == l.udp
        && p.inner_l2 as usize == l.inner_l2
        && p.ips[1].off as usize == l.ip[1]
        && !p.ips[1].v6
        && p.l4 as usize == l.tcp
        && p.l4kind == L4::Tcp
}

/// `same_flow` for two fixed-layout VXLAN headers: outer MACs, protocol and
/// addresses, UDP ports and checksum presence, VXLAN flags and VNI, inner
/// Ethernet header, inner protocol and addresses, ports.
#[inline(always)]
pub(crate) fn same_vxlan4(a: &[u8; super::config::MAX_HEADER], b: &[u8; VXLAN4_ID]) -> bool {
    let l = VXLAN4;
    let x = |o: usize| load8(a, o) ^ load8(b, o);
    // Outer MACs, outer addresses, VXLAN flags + VNI, inner Ethernet header
    // (two overlapping words), inner addresses.
    let words = x(0)
        | x(ETH_WORD2)
        | x(l.ip4(0, IP4_ADDRS))
        | x(l.vxlan)
        | x(l.inner_l2)
        | x(l.inner_l2 + ETH_WORD2)
        | x(l.ip4(1, IP4_ADDRS));
    let (p0, p1) = (
        l.ip4(0, ipv4::PROTOCOL_OFFSET),
        l.ip4(1, ipv4::PROTOCOL_OFFSET),
    );
    words == 0
        && a[p0] == b[p0]
        && a[p1] == b[p1]
        && load4(a, l.udp) == load4(b, l.udp)
        && load4(a, l.tcp) == load4(b, l.tcp)
        && udp_csum_zero(a, l.udp) == udp_csum_zero(b, l.udp)
}

/// True when the UDP header at `udp` in `h` has a zero checksum (none).
#[inline(always)]
pub(crate) fn udp_csum_zero(h: &[u8], udp: usize) -> bool {
    load2(h, udp + udp::CHECKSUM_OFFSET) == 0
}

/// The IPv4 ID of the header at `ip` (0 out of range).
#[inline(always)]
fn ip4_id(h: &[u8], ip: usize) -> u16 {
    be16(h, ip + ipv4::ID_OFFSET).unwrap_or(0)
}

/// The IPv4 rules (TOS, DF, TTL) hold between the headers at `ip` in `a`
/// and `b`: one masked word compare.
#[inline(always)]
fn ip4_same_tos_df_ttl(a: &[u8], b: &[u8], ip: usize) -> bool {
    let at = ip + IP4_TOS;
    (load8(a, at) ^ load8(b, at)) & TOS_DF_TTL == 0
}

/// [`hash`] of a fixed-layout VXLAN frame (same value).
#[inline(always)]
pub(crate) fn hash_vxlan4(f: &[u8]) -> u32 {
    let l = VXLAN4;
    let mut h = load8(f, l.ip4(1, IP4_ADDRS)) ^ ((be32(f, l.tcp).unwrap_or(0) as u64) << 21);
    h ^= load8(f, l.ip4(0, IP4_ADDRS)).rotate_left(7);
    h ^= (be32(f, l.udp).unwrap_or(0) as u64) << 3;
    mix(h)
}

/// The IPv4 rules of `ip_rules` for a fixed-offset header at `o` in both:
/// TOS, DF and TTL equal, the ID by arithmetic. The new ID mode, or `None`.
#[inline(always)]
fn ip4_fixed(
    a: &[u8],
    b: &[u8],
    o: usize,
    first_id: u16,
    mode: IdMode,
    count: u16,
) -> Option<IdMode> {
    if !ip4_same_tos_df_ttl(a, b, o) {
        return None;
    }
    let delta = ip4_id(b, o).wrapping_sub(first_id);
    id_mode_after(mode, delta, count)
}

/// The ID mode after a segment whose ID is `delta` past the first one, with
/// `count` (>= 1) segments held: `None` when the ID breaks the mode. The
/// second segment decides (same ID: fixed, +1: incrementing). Two tests
/// instead of a match (the arms are disjoint because `count` is never 0).
#[inline(always)]
fn id_mode_after(mode: IdMode, delta: u16, count: u16) -> Option<IdMode> {
    if delta == count && mode != IdMode::Fixed {
        Some(IdMode::Incrementing)
    } else if delta == 0 && (mode == IdMode::Fixed || (mode == IdMode::Undecided && count == 1)) {
        Some(IdMode::Fixed)
    } else {
        None
    }
}

/// [`can_merge`]'s `Ok` for a fixed-layout VXLAN frame `p` (already known to
/// have that layout); `None` means "ask [`can_merge`]".
#[inline(always)]
pub(crate) fn merge_vxlan4_fixed(s: &SuperPacket, f: &[u8], p: &Parsed) -> Option<MergePlan> {
    if !(s.vx4 && s.p.payload == p.payload) {
        return None;
    }
    let len = p.payload_len();
    if len == 0 || len > s.mss as u32 || len > s.room {
        return None;
    }
    let l = VXLAN4;
    let a: &[u8; VXLAN4_HDR] = s.hdr.get(..VXLAN4_HDR)?.try_into().ok()?;
    let b: &[u8; VXLAN4_HDR] = f.get(..VXLAN4_HDR)?.try_into().ok()?;
    let ack = l.tcp(tcp::ACK_OFFSET);
    if (load8(a, ack) ^ load8(b, ack)) & ACK_FLAGS_WINDOW != 0 {
        return None;
    }
    let payload = p.payload as usize;
    let (opts, thlen) = (l.options(), payload - l.tcp);
    if thlen > tcp::OPTIONS_OFFSET && !eq_at(&s.hdr, opts, f, opts, payload - opts) {
        return None;
    }
    let count = s.segs.len() as u16;
    let m0 = ip4_fixed(a, b, l.ip[0], s.ids[0], s.id_mode[0], count)?;
    let m1 = ip4_fixed(a, b, l.ip[1], s.ids[1], s.id_mode[1], count)?;
    let seq = be32(b, l.tcp(tcp::SEQ_OFFSET)).unwrap_or(0);
    if s.seq.wrapping_add(s.payload) != seq {
        return None;
    }
    Some(MergePlan {
        id_mode: [m0, m1],
        fin_psh: b[l.flags()] & (TCP_FIN | TCP_PSH),
    })
}

/// True when the IPv4 header at `o` in `b` has a good checksum, given that
/// the header at `o` in `a` (a held flow's first header) has one and that the
/// two differ at most in total length, ID, flags / fragment offset and
/// checksum (the identity and merge tests compared the rest). Instead of
/// summing 20 bytes, RFC 1624 arithmetic: a header verifies exactly when its
/// 16-bit word sum is 0 modulo 0xFFFF (it is never 0: version / IHL), so `b`
/// verifies exactly when its varying words sum to `a`'s modulo 0xFFFF. Words
/// are read in host order: a byte swap multiplies by 256 modulo 0xFFFF,
/// which keeps congruence, and a u32 load of two words is congruent to their
/// sum.
#[inline(always)]
pub(crate) fn ip4_sum_follows<const N: usize, const M: usize>(
    a: &[u8; N],
    b: &[u8; M],
    o: usize,
) -> bool {
    // 0xFFFF << 18 exceeds any `ip4_var` (< 2^33) and is a multiple of 0xFFFF.
    (ip4_var(b, o) + (0xFFFF << 18) - ip4_var(a, o)).is_multiple_of(0xFFFF)
}

/// Total length + ID (one u32 load), flags / fragment offset and checksum of
/// the IPv4 header at `o`, summed (see [`ip4_sum_follows`]).
#[inline(always)]
fn ip4_var(h: &[u8], o: usize) -> u64 {
    load4(h, o + ipv4::TOTAL_LEN_OFFSET) as u64
        + load2(h, o + ipv4::FRAG_OFFSET) as u64
        + load2(h, o + ipv4::CHECKSUM_OFFSET) as u64
}

#[inline(always)]
fn load2(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(&[x, y]) => u16::from_ne_bytes([x, y]),
        _ => 0,
    }
}

/// Flow identity of two fixed-layout headers (`same_flow` for Ethernet +
/// IPv4 without options + TCP): MACs and EtherType, protocol, addresses, ports.
#[inline(always)]
pub(crate) fn same_tcp4(a: &[u8; super::config::MAX_HEADER], b: &[u8; TCP4_ID]) -> bool {
    let l = TCP4;
    let x = |o: usize| load8(a, o) ^ load8(b, o);
    let proto = l.ip4(0, ipv4::PROTOCOL_OFFSET);
    (x(0) | x(ETH_WORD2) | x(l.ip4(0, IP4_ADDRS))) == 0
        && a[proto] == b[proto]
        && load4(a, l.tcp) == load4(b, l.tcp)
}

/// Flow identity of two raw-IP TCP/IPv4 headers: protocol, addresses, ports.
#[inline(always)]
pub(crate) fn same_raw_tcp4(a: &[u8; super::config::MAX_HEADER], b: &[u8; TCP4_ID]) -> bool {
    let l = RAW_TCP4;
    let proto = l.ip4(0, ipv4::PROTOCOL_OFFSET);
    load8(a, l.ip4(0, IP4_ADDRS)) == load8(b, l.ip4(0, IP4_ADDRS))
        && a[proto] == b[proto]
        && load4(a, l.tcp) == load4(b, l.tcp)
}

/// [`hash`] of a fixed-layout TCP/IPv4 frame of layout `l` (Ethernet or
/// raw IP; same value).
#[inline(always)]
pub(crate) fn hash_tcp4_at(l: Fixed, f: &[u8]) -> u32 {
    mix(load8(f, l.ip4(0, IP4_ADDRS)) ^ ((be32(f, l.tcp).unwrap_or(0) as u64) << 21))
}

/// Fibonacci hashing: the high half of the product by 2^64 / phi (its
/// high bits depend on every input bit; the low half's top bits would not).
#[inline(always)]
fn mix(h: u64) -> u32 {
    (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

/// Ethernet (no VLAN) + IPv4 without options + TCP: the fixed-offset layout.
#[inline(always)]
pub(crate) fn is_tcp4_layout(p: &Parsed) -> bool {
    p.n == 1
        && p.l4 as usize == TCP4.tcp
        && p.ips[0].off as usize == TCP4.ip[0]
        && !p.ips[0].v6
        && p.encap == Encap::None
        && p.l4kind == L4::Tcp
}

/// Flow identity of two fixed-layout TCP/IPv6 headers (`same_flow` for
/// Ethernet + IPv6 without extension headers + TCP): MACs and EtherType,
/// version and flow label, addresses, ports.
#[inline(always)]
pub(crate) fn same_tcp6(a: &[u8; super::config::MAX_HEADER], b: &[u8; TCP6_ID]) -> bool {
    let l = TCP6;
    let x = |o: usize| load8(a, o) ^ load8(b, o);
    let addrs = l.ip[0] + ipv6::SRC_OFFSET;
    let words = x(0) | x(ETH_WORD2) | x(addrs) | x(addrs + 8) | x(addrs + 16) | x(addrs + 24);
    words == 0
        && (load4(a, l.ip[0]) ^ load4(b, l.ip[0])) & VERSION_FLOW == 0
        && load4(a, l.tcp) == load4(b, l.tcp)
}

/// [`hash`] of a fixed-layout TCP/IPv6 frame (same value).
#[inline(always)]
pub(crate) fn hash_tcp6(f: &[u8]) -> u32 {
    let a = TCP6.ip[0] + ipv6::SRC_OFFSET;
    let h = load8(f, a)
        ^ load8(f, a + 8).rotate_left(17)
        ^ load8(f, a + 16).rotate_left(31)
        ^ load8(f, a + 24).rotate_left(47);
    mix(h ^ ((be32(f, TCP6.tcp).unwrap_or(0) as u64) << 21))
}

/// [`can_merge`]'s `Ok` for a fixed-layout TCP/IPv6 frame with its payload
/// at `payload` and `len` payload bytes; `None` means "ask [`can_merge`]".
#[inline(always)]
pub(crate) fn merge_tcp6_fixed(
    s: &SuperPacket,
    f: &[u8],
    payload: usize,
    len: u32,
) -> Option<MergePlan> {
    let l = TCP6;
    if !(s.tcp6 && s.p.payload as usize == payload) {
        return None;
    }
    let a: &[u8; TCP6_HDR] = s.hdr.get(..TCP6_HDR)?.try_into().ok()?;
    let b: &[u8; TCP6_HDR] = f.get(..TCP6_HDR)?.try_into().ok()?;
    if len == 0 || len > s.mss as u32 || len > s.room {
        return None;
    }
    let ip = l.ip[0];
    if (load8(a, ip) ^ load8(b, ip)) & TCLASS_HOPS != 0 {
        return None;
    }
    if !tcp_rest_same(l, a, b, &s.hdr, f, payload) {
        return None;
    }
    let seq = be32(b, l.tcp(tcp::SEQ_OFFSET)).unwrap_or(0);
    if s.seq.wrapping_add(s.payload) != seq {
        return None;
    }
    Some(MergePlan {
        id_mode: s.id_mode,
        fin_psh: b[l.flags()] & (TCP_FIN | TCP_PSH),
    })
}

/// Ethernet (no VLAN) + IPv6 without extension headers + TCP.
#[inline(always)]
pub(crate) fn is_tcp6_layout(p: &Parsed) -> bool {
    p.n == 1
        && p.l4 as usize == TCP6.tcp
        && p.ips[0].off as usize == TCP6.ip[0]
        && p.ips[0].next as usize == TCP6.tcp
        && p.ips[0].v6
        && p.encap == Encap::None
        && p.l4kind == L4::Tcp
}

/// Raw IPv4 without options + TCP: the fixed layout of an L3 TUN's frames
/// (the outer IP at 0 happens only with [`LinkType::RawIp`](crate::wire::LinkType)).
#[inline(always)]
pub(crate) fn is_raw_tcp4_layout(p: &Parsed) -> bool {
    p.n == 1
        && p.l4 as usize == RAW_TCP4.tcp
        && p.ips[0].off as usize == RAW_TCP4.ip[0]
        && !p.ips[0].v6
        && p.encap == Encap::None
        && p.l4kind == L4::Tcp
}

/// Flags that end a super-packet or keep a first segment from being held
/// (`tcp_gro_receive`'s `out_check_final`), in reporting order.
#[inline]
pub(crate) fn final_flag(flags: u8) -> Option<FlushReason> {
    if flags & (TCP_URG | TCP_PSH | TCP_RST | TCP_SYN | TCP_FIN) == 0 {
        return None;
    }
    Some(if flags & TCP_SYN != 0 {
        FlushReason::Syn
    } else if flags & TCP_RST != 0 {
        FlushReason::Rst
    } else if flags & TCP_URG != 0 {
        FlushReason::Urg
    } else if flags & TCP_FIN != 0 {
        FlushReason::Fin
    } else {
        FlushReason::Psh
    })
}
