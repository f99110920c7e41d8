//! NAT rewrites of addresses and ports with the checksum updates Linux makes
//! (`inet_proto_csum_replace4/16/2`, `csum_replace4`, OVS/nf_nat rules).

use super::outcome::{CsumVerdict, Outcome, Reason, Span, StateError, Transition, refuse};
use super::packet::PacketMut;
use super::rewrite::{Write, apply};
use super::site::{self, sctp_stored};
use super::types::{CsumMeta, CsumState, PartialKind};
use crate::csum::{self, Sum16};
use crate::wire::{Net, Transport};

/// An IP address for a NAT rewrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Addr {
    /// IPv4, wire order.
    V4([u8; 4]),
    /// IPv6, wire order.
    V6([u8; 16]),
}

impl Addr {
    fn bytes(&self) -> &[u8] {
        match self {
            Addr::V4(a) => a,
            Addr::V6(a) => a,
        }
    }
}

/// One NAT rewrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rewrite {
    /// Source address (SNAT).
    Src(Addr),
    /// Destination address (DNAT).
    Dst(Addr),
    /// TCP / UDP / SCTP source port.
    SrcPort(u16),
    /// TCP / UDP / SCTP destination port.
    DstPort(u16),
}

/// IP header offsets.
mod field {
    pub const V4_CHECK: usize = 10;
    pub const V4_SRC: usize = 12;
    pub const V4_DST: usize = 16;
    pub const V6_SRC: usize = 8;
    pub const V6_DST: usize = 24;
}

/// How the L4 checksum field must change.
enum L4Update {
    /// Leave it (no pseudo-header field changed under a Partial; UDP 0; no L4).
    Keep(Reason),
    /// Write this 16-bit value.
    Inet(usize, Sum16),
    /// Write this SCTP CRC (little-endian).
    Crc(usize, u32),
}

/// Rewrites an address or a port and updates every checksum that covers it,
/// in every state (Linux `nf_nat_ipv4_manip_pkt` / `set_ipv4_addr` with
/// `inet_proto_csum_replace4`, `inet_proto_csum_replace16` for IPv6,
/// `inet_proto_csum_replace2` for ports):
///
/// - IPv4 header checksum: RFC 1624 eq. 3 (`csum_replace4`).
/// - L4 field, not `Partial`: RFC 1624 update when the changed field is in its
///   pseudo-header (TCP, UDP, ICMPv6) or in the L4 header (ports); a UDP
///   checksum 0 stays 0 and an updated UDP checksum of 0 is written as 0xFFFF.
///   The update keeps a wrong checksum wrong by exactly as much: nothing bad is
///   made good.
/// - `Partial` (the field holds the pseudo-header seed): an address moves the
///   seed (`~fold(seed - from + to)`); a port changes nothing (the device sums
///   the new bytes). `Partial` CRC32c: nothing.
/// - SCTP ports outside `Partial`: the CRC32c is updated by linearity
///   (`crc(m') = crc(m) ^ crc(m ^ m') ^ crc(0)`), so a bad CRC stays bad.
/// - A `Complete` sum is updated for every changed byte it covers.
///
/// Refused (nothing written) for an address of the other IP version, ports on
/// a layer without ports or on a non-first fragment, or a `Partial` that
/// points at another field of this layer.
///
/// ```
/// use netoffload::state::{self, Addr, CsumMeta, Packet, PacketMut, Rewrite, CsumVerdict};
/// use netoffload::wire::LinkType;
/// # let mut b = Vec::new();
/// # etherparse::PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
/// #     .tcp(1000, 80, 1, 100).write(&mut b, b"data").unwrap();
/// let mut pkt = PacketMut::parse(&mut b, LinkType::RawIp)?;
/// let out = state::nat(CsumMeta::NONE, &mut pkt, Rewrite::Src(Addr::V4([192, 0, 2, 7])))
///     .expect("IPv4 address on an IPv4 packet");
/// let out = state::nat(out.meta, &mut pkt, Rewrite::SrcPort(40000)).expect("TCP");
/// // IP header and TCP checksums were updated incrementally: both still verify.
/// let v = state::check_ipv4_header(CsumMeta::NONE, &pkt.as_packet()).expect("IPv4");
/// assert_eq!(v.verdict, CsumVerdict::Good);
/// let v = state::validate(out.meta, &pkt.as_packet()).expect("TCP");
/// assert_eq!(v.verdict, CsumVerdict::Good);
/// # Ok::<(), netoffload::wire::ParseError>(())
/// ```
pub fn nat(meta: CsumMeta, pkt: &mut PacketMut<'_>, rewrite: Rewrite) -> Transition {
    match plan_and_apply(&meta, pkt, rewrite) {
        Ok(out) => Ok(out),
        Err(e) => refuse(meta, e),
    }
}

fn plan_and_apply(
    meta: &CsumMeta,
    pkt: &mut PacketMut<'_>,
    rewrite: Rewrite,
) -> Result<Outcome, StateError> {
    let l = *pkt.layers();
    let b = pkt.bytes();
    let oob = |what, offset| StateError::OutOfBounds {
        what,
        offset,
        len: b.len(),
    };
    let get = |at: usize, n: usize, what| b.get(at..at + n).ok_or(oob(what, at + n));
    let mut writes = [Write::new(0, &[], Span::IpHeader); 3];
    let mut n = 0;

    // The field being rewritten, and whether it is in the L4 pseudo-header.
    let (at, new, what, in_pseudo): (usize, [u8; 16], Span, bool) = match rewrite {
        Rewrite::Src(a) | Rewrite::Dst(a) => {
            let off = match (l.net, a, rewrite) {
                (Net::Ipv4, Addr::V4(_), Rewrite::Src(_)) => field::V4_SRC,
                (Net::Ipv4, Addr::V4(_), _) => field::V4_DST,
                (Net::Ipv6, Addr::V6(_), Rewrite::Src(_)) => field::V6_SRC,
                (Net::Ipv6, Addr::V6(_), _) => field::V6_DST,
                (Net::Ipv4, Addr::V6(_), _) | (Net::Ipv6, Addr::V4(_), _) => {
                    return Err(StateError::AddressFamily);
                }
            };
            let at = l.l3 + off;
            let pseudo_at = match rewrite {
                Rewrite::Src(_) => l.pseudo_src,
                _ => l.pseudo_dst,
            };
            let mut buf = [0u8; 16];
            buf[..a.bytes().len()].copy_from_slice(a.bytes());
            (at, buf, Span::IpHeader, at == pseudo_at)
        }
        Rewrite::SrcPort(p) | Rewrite::DstPort(p) => {
            if l.fragment.offset != 0
                || !matches!(
                    l.transport,
                    Transport::Tcp | Transport::Udp | Transport::Sctp
                )
            {
                return Err(StateError::LayerNotHandled {
                    transport: l.transport,
                });
            }
            let at = match rewrite {
                Rewrite::SrcPort(_) => l.l4,
                _ => l.l4 + 2,
            };
            let mut buf = [0u8; 16];
            buf[..2].copy_from_slice(&p.to_be_bytes());
            (at, buf, Span::Port, false)
        }
    };
    let size = match rewrite {
        Rewrite::SrcPort(_) | Rewrite::DstPort(_) => 2,
        Rewrite::Src(a) | Rewrite::Dst(a) => a.bytes().len(),
    };
    let new = &new[..size];
    let old = get(at, size, what)?;
    if old == new {
        return Ok(Outcome::same(meta.clone(), Reason::NatNoChange));
    }
    writes[n] = Write::new(at, new, what);
    n += 1;

    // IPv4 header checksum.
    if what == Span::IpHeader && l.net == Net::Ipv4 {
        let c = l.l3 + field::V4_CHECK;
        let f = get(c, 2, Span::IpHeader)?;
        let check = csum::replace(Sum16::from_bytes([f[0], f[1]]), old, new);
        writes[n] = Write::new(c, &check.to_bytes(), Span::IpHeader);
        n += 1;
    }

    // The L4 checksum.
    let is_port = what == Span::Port;
    let update = l4_update(meta, pkt, old, new, at, in_pseudo, is_port)?;
    let reason = match update {
        L4Update::Keep(r) => r,
        L4Update::Inet(f, v) => {
            writes[n] = Write::new(f, &v.to_bytes(), Span::ChecksumField);
            n += 1;
            Reason::NatRewritten
        }
        L4Update::Crc(f, v) => {
            writes[n] = Write::new(f, &v.to_le_bytes(), Span::ChecksumField);
            n += 1;
            Reason::NatRewritten
        }
    };

    let complete = match meta.state() {
        CsumState::Complete { csum } => Some(csum),
        _ => None,
    };
    let sum = apply(pkt, &writes[..n], complete)?;
    let state = match sum {
        Some(csum) => CsumState::Complete { csum },
        None => meta.state(),
    };
    let meta = CsumMeta::new(state, meta.flags()).map_err(StateError::Meta)?;
    let sw = match update {
        L4Update::Crc(..) => l.end.saturating_sub(at) * 2,
        _ => 0,
    };
    Ok(Outcome {
        meta,
        verdict: CsumVerdict::NotChecked,
        reason,
        sw_bytes: sw,
    })
}

fn l4_update(
    meta: &CsumMeta,
    pkt: &PacketMut<'_>,
    old: &[u8],
    new: &[u8],
    at: usize,
    in_pseudo: bool,
    is_port: bool,
) -> Result<L4Update, StateError> {
    let l = pkt.layers();
    let b = pkt.bytes();
    if !in_pseudo && !is_port {
        return Ok(L4Update::Keep(Reason::NatRewritten));
    }
    if l.fragment.offset != 0 {
        // A non-first fragment carries no L4 header.
        return Ok(L4Update::Keep(Reason::NatRewritten));
    }
    let site = match site::of(&pkt.as_packet()) {
        Ok(s) => s,
        // A first fragment: its L4 checksum covers the whole datagram and is
        // still updated incrementally.
        Err(StateError::Fragment) => site::of_unchecked_fragment(&pkt.as_packet())?,
        Err(e) => return Err(e),
    };
    match site.kind {
        site::Kind::None => Ok(L4Update::Keep(Reason::NatRewritten)),
        site::Kind::Crc32c { field } => {
            if !is_port {
                return Ok(L4Update::Keep(Reason::NatRewritten));
            }
            if let CsumState::Partial { .. } = meta.state() {
                return Ok(L4Update::Keep(Reason::NatRewritten));
            }
            // Linearity of the CRC over equal-length messages.
            let stored = sctp_stored(b, field).ok_or(StateError::OutOfBounds {
                what: Span::ChecksumField,
                offset: field + 4,
                len: b.len(),
            })?;
            let delta = crc_delta(old, new, site.end.saturating_sub(at));
            Ok(L4Update::Crc(field, stored ^ delta))
        }
        site::Kind::Inet {
            field,
            udp,
            with_pseudo: _,
            counted: _,
        } => {
            let f = site.field(b).ok_or(StateError::OutOfBounds {
                what: Span::ChecksumField,
                offset: field + 2,
                len: b.len(),
            })?;
            // No pseudo-header: ICMPv4 and GRE checksums do not cover addresses.
            if !is_port
                && (l.transport == Transport::Gre
                    || (l.net == Net::Ipv4 && l.transport == Transport::Icmp))
            {
                return Ok(L4Update::Keep(Reason::NatRewritten));
            }
            match meta.state() {
                CsumState::Partial {
                    start,
                    offset,
                    kind: PartialKind::Inet,
                } if start.saturating_add(offset) == field => {
                    if is_port {
                        Ok(L4Update::Keep(Reason::NatRewritten))
                    } else {
                        Ok(L4Update::Inet(field, csum::replace_seed(f, old, new)))
                    }
                }
                CsumState::Partial { start, offset, .. }
                    if start <= site.end && start >= site.l4 =>
                {
                    Err(StateError::PartialElsewhere {
                        field: start.saturating_add(offset),
                    })
                }
                _ if udp && f.is_zero() => Ok(L4Update::Keep(Reason::NatZeroUdpKept)),
                _ => {
                    let v = csum::replace(f, old, new);
                    Ok(L4Update::Inet(
                        field,
                        if udp { v.udp_mangle_zero() } else { v },
                    ))
                }
            }
        }
    }
}

/// `crc(m ^ d) ^ crc(m)` for a change of `old` to `new` at the start of a
/// `tail_len`-byte tail of the message: `crc(d_padded) ^ crc(zeros)`.
fn crc_delta(old: &[u8], new: &[u8], tail_len: usize) -> u32 {
    let mut d = [0u8; 16];
    for (i, (o, n)) in old.iter().zip(new).enumerate().take(16) {
        d[i] = o ^ n;
    }
    let head = old.len().min(16).min(tail_len);
    let zeros = [0u8; 64];
    let mut a = csum::crc32c(&d[..head]);
    let mut z = csum::crc32c(&zeros[..head]);
    let mut left = tail_len - head;
    while left > 0 {
        let k = left.min(zeros.len());
        a = csum::crc32c_append(a, &zeros[..k]);
        z = csum::crc32c_append(z, &zeros[..k]);
        left -= k;
    }
    a ^ z
}
