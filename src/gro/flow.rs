//! Flow identity and the merge rules: `gro_list_prepare` + the `same_flow`
//! parts of every `*_gro_receive` (identity), and `inet_gro_flush`,
//! `ipv6_gro_flush`, `tcp_gro_receive`, `udp_gro_receive_segment`,
//! `skb_gro_receive` (may this segment join?).

use super::output::{IdMode, SuperPacket};
use super::parse::{Encap, L4, Parsed, be16, be32, byte};
use super::reason::FlushReason;

const TCP_FIN: u8 = 0x01;
const TCP_SYN: u8 = 0x02;
const TCP_RST: u8 = 0x04;
const TCP_PSH: u8 = 0x08;
const TCP_URG: u8 = 0x20;
const TCP_CWR: u8 = 0x80;

/// Flow hash over the innermost addresses and ports and the outer source
/// (tunnels spread flows by the outer UDP source port or addresses).
#[inline]
pub(crate) fn hash(f: &[u8], p: &Parsed) -> u32 {
    let ip = p.inner();
    let o = ip.off as usize;
    let mut h: u64 = if ip.v6 {
        load8(f, o + 8)
            ^ load8(f, o + 16).rotate_left(17)
            ^ load8(f, o + 24).rotate_left(31)
            ^ load8(f, o + 32).rotate_left(47)
    } else {
        load8(f, o + 12)
    };
    h ^= (be32(f, p.l4 as usize).unwrap_or(0) as u64) << 21;
    if p.n == 2 {
        h ^= load8(f, p.ips[0].off as usize + if p.ips[0].v6 { 8 } else { 12 }).rotate_left(7);
        if matches!(p.encap, Encap::Vxlan | Encap::Geneve) {
            h ^= (be32(f, p.enc_off as usize).unwrap_or(0) as u64) << 3;
        }
    }
    mix(h)
}

/// Identity of one IP header: version, addresses, protocol / flow label.
#[inline(always)]
fn same_ip(a: &[u8], ao: usize, b: &[u8], bo: usize, v6: bool) -> bool {
    if v6 {
        let fa = be32(a, ao).unwrap_or(0) & 0xF00F_FFFF;
        let fb = be32(b, bo).unwrap_or(1) & 0xF00F_FFFF;
        fa == fb && eq_at(a, ao + 8, b, bo + 8, 32)
    } else {
        byte(a, ao + 9) == byte(b, bo + 9) && eq_at(a, ao + 12, b, bo + 12, 8)
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
    if p.n == 1
        && p.l4 == 34
        && q.l4 == 34
        && p.ips[0].off == 14
        && q.ips[0].off == 14
        && !p.ips[0].v6
        && !q.ips[0].v6
        && let (Some(x), Some(y)) = (a.get(..38), f.get(..38))
    {
        return load8(x, 0) == load8(y, 0)
            && load8(x, 6) == load8(y, 6)
            && x[23] == y[23]
            && load8(x, 26) == load8(y, 26)
            && load4(x, 34) == load4(y, 34);
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
                eq_at(a, qe, f, pe, 4)
                    && zero16(a, qe + 6) == zero16(f, pe + 6)
                    && eq_at(a, qe + 8, f, pe + 8, 8)
            }
            Encap::Geneve => {
                let la = q.inner_l2 as usize - qe;
                let lb = p.inner_l2 as usize - pe;
                la == lb
                    && eq_at(a, qe, f, pe, 4)
                    && zero16(a, qe + 6) == zero16(f, pe + 6)
                    && eq_at(a, qe + 8, f, pe + 8, la - 8)
            }
            Encap::Gre => {
                let fl = be16(f, pe).unwrap_or(0);
                let key_at = if fl & 0x8000 != 0 { 8 } else { 4 };
                eq_at(a, qe, f, pe, 4)
                    && (fl & 0x2000 == 0 || eq_at(a, qe + key_at, f, pe + key_at, 4))
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
    eq_at(a, q.l4 as usize, f, p.l4 as usize, 4)
}

/// Mask for one host-order 8-byte load of TCP bytes 8..16 (ack, data offset,
/// flags, window): every bit but FIN and PSH in the flags byte (byte 13).
const ACK_FLAGS_WINDOW: u64 = !u64::from_ne_bytes([0, 0, 0, 0, 0, TCP_FIN | TCP_PSH, 0, 0]);

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
        eq_at(&s.hdr, qo + 8, f, po + 8, 32)
    } else {
        eq_at(&s.hdr, qo + 12, f, po + 12, 8) && byte(&s.hdr, qo + 9) == byte(f, po + 9)
    }
}

#[inline(always)]
fn hdr20(b: &[u8], at: usize) -> Option<&[u8; 20]> {
    b.get(at..at + 20)?.try_into().ok()
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
        if byte(a, qo + 7) != byte(f, po + 7) {
            return Err(FlushReason::TtlDiffer);
        }
        let tc_a = be32(a, qo).unwrap_or(0) & 0x0FF0_0000;
        let tc_b = be32(f, po).unwrap_or(0) & 0x0FF0_0000;
        if tc_a != tc_b {
            return Err(FlushReason::TosDiffer);
        }
        let (ea, eb) = (s.p.ips[i].ext_len(), p.ips[i].ext_len());
        if ea != eb || !eq_at(a, qo + 40, f, po + 40, eb) {
            return Err(FlushReason::ExtHeadersDiffer);
        }
        return Ok(());
    }
    // One bounds check per header, then fixed offsets.
    let (Some(ha), Some(hb)) = (hdr20(a, qo), hdr20(f, po)) else {
        return Err(FlushReason::Malformed);
    };
    if ha[8] != hb[8] {
        return Err(FlushReason::TtlDiffer);
    }
    if ha[1] != hb[1] {
        return Err(FlushReason::TosDiffer);
    }
    if (ha[6] ^ hb[6]) & 0x40 != 0 {
        return Err(FlushReason::DfDiffer);
    }
    let delta = u16::from_be_bytes([hb[4], hb[5]]).wrapping_sub(s.ids[i]);
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
            let flags = tb[13];
            if len == 0 {
                return Err(FlushReason::PureAck);
            }
            // tcp_flag_word: data offset, reserved / AE bits, flags, window.
            let wa = u32::from_be_bytes([ta[12], ta[13], ta[14], ta[15]]);
            let wb = u32::from_be_bytes([tb[12], tb[13], tb[14], tb[15]]);
            let diff = wa ^ wb;
            if diff != 0 {
                if diff & 0xF000_0000 != 0 {
                    return Err(FlushReason::OptionsDiffer);
                }
                if diff & ((TCP_CWR as u32) << 16) != 0 {
                    return Err(FlushReason::Cwr);
                }
                if diff & 0x0FFF_0000 & !(((TCP_FIN | TCP_PSH) as u32) << 16) != 0 {
                    return Err(FlushReason::FlagsDiffer);
                }
                if diff & 0xFFFF != 0 {
                    return Err(FlushReason::WindowDiffer);
                }
            }
            if ta[8..12] != tb[8..12] {
                return Err(FlushReason::AckDiffer);
            }
            let thlen = p.payload as usize - pl4;
            if thlen > 20 && !eq_at(a, ql4 + 20, f, pl4 + 20, thlen - 20) {
                return Err(FlushReason::OptionsDiffer);
            }
            for i in 0..p.n as usize {
                ip_rules(s, i, f, p, count, &mut plan.id_mode[i])?;
            }
            if len > s.mss as u32 {
                return Err(FlushReason::MssExceeded);
            }
            let seq = u32::from_be_bytes([tb[4], tb[5], tb[6], tb[7]]);
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
    if !(s.tcp4 && s.p.payload as usize == payload) {
        return None;
    }
    let a: &[u8; 54] = s.hdr.get(..54)?.try_into().ok()?;
    let b: &[u8; 54] = f.get(..54)?.try_into().ok()?;
    if len == 0 || len > s.mss as u32 || len > s.room {
        return None;
    }
    // IP: TOS, DF and TTL equal (ID by arithmetic below).
    if a[15] != b[15] || (a[20] ^ b[20]) & 0x40 != 0 || a[22] != b[22] {
        return None;
    }
    // TCP: ack, flag word (data offset, reserved, flags but FIN/PSH, window).
    if (load8(a, 42) ^ load8(b, 42)) & ACK_FLAGS_WINDOW != 0 {
        return None;
    }
    let thlen = payload - 34;
    if thlen > 20 && !eq_at(&s.hdr, 54, f, 54, thlen - 20) {
        return None;
    }
    let count = s.segs.len() as u16;
    let delta = u16::from_be_bytes([b[18], b[19]]).wrapping_sub(s.ids[0]);
    let mode = id_mode_after(s.id_mode[0], delta, count)?;
    let seq = u32::from_be_bytes([b[38], b[39], b[40], b[41]]);
    if s.seq.wrapping_add(s.payload) != seq {
        return None;
    }
    Some(MergePlan {
        id_mode: [mode, s.id_mode[1]],
        fin_psh: b[47] & (TCP_FIN | TCP_PSH),
    })
}

/// Ethernet / IPv4 / UDP / VXLAN / Ethernet / IPv4 / TCP without options or
/// VLAN tags: the fixed-offset tunnel layout of `parse::fast_vxlan4`.
#[inline(always)]
pub(crate) fn is_vxlan4_layout(p: &Parsed) -> bool {
    p.n == 2
        && p.encap == Encap::Vxlan
        && p.ips[0].off == 14
        && !p.ips[0].v6
        && p.enc_off == 34
        && p.inner_l2 == 50
        && p.ips[1].off == 64
        && !p.ips[1].v6
        && p.l4 == 84
        && p.l4kind == L4::Tcp
}

/// `same_flow` for two fixed-layout VXLAN headers: outer MACs, protocol and
/// addresses, UDP ports and checksum presence, VXLAN flags and VNI, inner
/// Ethernet header, inner protocol and addresses, ports.
#[inline(always)]
pub(crate) fn same_vxlan4(a: &[u8; super::config::MAX_HEADER], b: &[u8; 88]) -> bool {
    let x = |o: usize| load8(a, o) ^ load8(b, o);
    let zero = |h: &[u8], o: usize| load2(h, o) == 0;
    (x(0) | x(6) | x(26) | x(42) | x(50) | x(56) | x(76)) == 0
        && a[23] == b[23]
        && a[73] == b[73]
        && load4(a, 34) == load4(b, 34)
        && load4(a, 84) == load4(b, 84)
        && zero(a, 40) == zero(b, 40)
}

/// [`hash`] of a fixed-layout VXLAN frame (same value).
#[inline(always)]
pub(crate) fn hash_vxlan4(f: &[u8]) -> u32 {
    let mut h = load8(f, 76) ^ ((be32(f, 84).unwrap_or(0) as u64) << 21);
    h ^= load8(f, 26).rotate_left(7);
    h ^= (be32(f, 34).unwrap_or(0) as u64) << 3;
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
    let (ha, hb) = (hdr20(a, o)?, hdr20(b, o)?);
    if ha[1] != hb[1] || (ha[6] ^ hb[6]) & 0x40 != 0 || ha[8] != hb[8] {
        return None;
    }
    let delta = u16::from_be_bytes([hb[4], hb[5]]).wrapping_sub(first_id);
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
    let a: &[u8; 104] = s.hdr.get(..104)?.try_into().ok()?;
    let b: &[u8; 104] = f.get(..104)?.try_into().ok()?;
    if (load8(a, 92) ^ load8(b, 92)) & ACK_FLAGS_WINDOW != 0 {
        return None;
    }
    let payload = p.payload as usize;
    let thlen = payload - 84;
    if thlen > 20 && !eq_at(&s.hdr, 104, f, 104, thlen - 20) {
        return None;
    }
    let count = s.segs.len() as u16;
    let m0 = ip4_fixed(a, b, 14, s.ids[0], s.id_mode[0], count)?;
    let m1 = ip4_fixed(a, b, 64, s.ids[1], s.id_mode[1], count)?;
    let seq = u32::from_be_bytes([b[88], b[89], b[90], b[91]]);
    if s.seq.wrapping_add(s.payload) != seq {
        return None;
    }
    Some(MergePlan {
        id_mode: [m0, m1],
        fin_psh: b[97] & (TCP_FIN | TCP_PSH),
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
    load4(h, o + 2) as u64 + load2(h, o + 6) as u64 + load2(h, o + 10) as u64
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
pub(crate) fn same_tcp4(a: &[u8; super::config::MAX_HEADER], b: &[u8; 38]) -> bool {
    let x = |o: usize| load8(a, o) ^ load8(b, o);
    (x(0) | x(6) | x(26)) == 0 && a[23] == b[23] && load4(a, 34) == load4(b, 34)
}

/// [`hash`] of a fixed-layout frame (same value).
#[inline(always)]
pub(crate) fn hash_tcp4(f: &[u8]) -> u32 {
    mix(load8(f, 26) ^ ((be32(f, 34).unwrap_or(0) as u64) << 21))
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
        && p.l4 == 34
        && p.ips[0].off == 14
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
