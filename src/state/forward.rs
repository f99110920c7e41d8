//! Forwarding hops: bridge, route (TTL / hop limit), and the IPv4 header check.

use super::outcome::{CsumVerdict, Outcome, Reason, Span, StateError, Transition, refuse};
use super::packet::{Packet, PacketMut};
use super::rewrite::{Write, apply};
use super::types::{CsumMeta, CsumState};
use crate::csum::{self, Sum16};
use crate::wire::Net;

/// Byte offsets inside the IP headers.
mod field {
    /// IPv4 TTL (followed by the protocol byte: one 16-bit word).
    pub const V4_TTL: usize = 8;
    /// IPv4 header checksum.
    pub const V4_CHECK: usize = 10;
    /// IPv6 hop limit.
    pub const V6_HOP_LIMIT: usize = 7;
}

/// A bridge forwards the frame: the state and both Xen facts (`CSUM_BLANK`,
/// `DATA_VALID`) survive unchanged (`br_forward`; unlike Linux's
/// `skb_forward_csum`, a `Complete` sum is kept: it is still sound).
pub fn bridge(meta: CsumMeta) -> Outcome {
    Outcome::same(meta, Reason::Bridged)
}

/// Checks the IPv4 header checksum (Linux `ip_fast_csum` in `ip_rcv_core`).
/// `Good` or `Bad`; the metadata is unchanged. Refused for IPv6.
pub fn check_ipv4_header(meta: CsumMeta, pkt: &Packet<'_>) -> Transition {
    let l = pkt.layers();
    if l.net != Net::Ipv4 {
        return refuse(meta, StateError::NotIpv4);
    }
    let Some(hdr) = pkt.bytes().get(l.l3..l.l4) else {
        return refuse(
            meta,
            StateError::OutOfBounds {
                what: Span::IpHeader,
                offset: l.l4,
                len: pkt.len(),
            },
        );
    };
    let verdict = if csum::ipv4_header(hdr).is_zero() {
        CsumVerdict::Good
    } else {
        CsumVerdict::Bad
    };
    Ok(Outcome {
        meta,
        verdict,
        reason: Reason::Ipv4HeaderChecked,
        sw_bytes: hdr.len(),
    })
}

/// Routes the packet: decrements the IPv4 TTL with the RFC 1624 update of the
/// header checksum (Linux `ip_decrease_ttl`) or the IPv6 hop limit; refuses
/// with [`StateError::TtlExpired`] / [`StateError::HopLimitExpired`] at 1 or 0
/// (`ip_forward` sends ICMP time exceeded). The L4 state is unchanged; a
/// `Complete` sum that covers the IP header is updated exactly.
pub fn route(meta: CsumMeta, pkt: &mut PacketMut<'_>) -> Transition {
    let l = *pkt.layers();
    let b = pkt.bytes();
    let oob = StateError::OutOfBounds {
        what: Span::IpHeader,
        offset: l.l3 + field::V4_CHECK + 2,
        len: b.len(),
    };
    let mut writes = [Write::new(0, &[], Span::IpHeader); 2];
    let n = match l.net {
        Net::Ipv4 => {
            let (Some(&[ttl, proto]), Some(&[c0, c1])) = (
                b.get(l.l3 + field::V4_TTL..l.l3 + field::V4_TTL + 2),
                b.get(l.l3 + field::V4_CHECK..l.l3 + field::V4_CHECK + 2),
            ) else {
                return refuse(meta, oob);
            };
            if ttl <= 1 {
                return refuse(meta, StateError::TtlExpired { ttl });
            }
            let check = csum::replace2(Sum16::from_bytes([c0, c1]), [ttl, proto], [ttl - 1, proto]);
            writes[0] = Write::new(l.l3 + field::V4_TTL, &[ttl - 1], Span::IpHeader);
            writes[1] = Write::new(l.l3 + field::V4_CHECK, &check.to_bytes(), Span::IpHeader);
            2
        }
        Net::Ipv6 => {
            let Some(&hop_limit) = b.get(l.l3 + field::V6_HOP_LIMIT) else {
                return refuse(meta, oob);
            };
            if hop_limit <= 1 {
                return refuse(meta, StateError::HopLimitExpired { hop_limit });
            }
            writes[0] = Write::new(l.l3 + field::V6_HOP_LIMIT, &[hop_limit - 1], Span::IpHeader);
            1
        }
    };
    let complete = match meta.state() {
        CsumState::Complete { csum } => Some(csum),
        _ => None,
    };
    match apply(pkt, writes.get(..n).unwrap_or(&[]), complete) {
        Ok(Some(csum)) => {
            let new = CsumMeta::new(CsumState::Complete { csum }, meta.flags());
            match new {
                Ok(m) => Ok(Outcome::same(m, Reason::Routed)),
                Err(e) => refuse(meta, StateError::Meta(e)),
            }
        }
        Ok(None) => Ok(Outcome::same(meta, Reason::Routed)),
        Err(e) => refuse(meta, e),
    }
}
