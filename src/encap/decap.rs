//! Decapsulation as a checksum-state transition: one tunnel layer
//! ([`decap`]) or all of them up to the configured depth ([`decap_nested`]).
//!
//! Models the receive path of Linux `udp_rcv` -> `vxlan_rcv` / `geneve_rx`,
//! `gre_rcv` and `ipip_rcv`: `__skb_checksum_validate` on the outer checksum
//! (consuming one `csum_level`), `skb_checksum_try_convert`, and
//! `skb_postpull_rcsum` for every pulled header byte.

use super::config::{EncapConfig, MAX_DEPTH};
use super::error::{DecapError, Rejected};
use super::header::{detect, parse_inner, parse_tunnel};
use super::rcsum::{postpull, trim};
use super::tunnel::{InnerProto, OuterCsum, Tunnel};
use crate::csum::{self, Wsum};
use crate::state::{CsumFlags, CsumMeta, CsumState};
use crate::wire::{ErrorKind, Field, Layer, Layers, Net};

/// How the outer checksum was dealt with, and so why the inner state is what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecapReason {
    /// The outer layer has no checksum (IP-in-IP, GRE without C): the state
    /// is carried over (a `Complete` sum minus the pulled bytes).
    NoOuterChecksum,
    /// The device's `Unnecessary` covered the outer checksum (zero or not) and
    /// more: one level consumed, the inner checksum is still covered.
    LevelConsumed,
    /// A zero outer UDP checksum used up the device's last level: nothing is
    /// known of the inner packet, its checksum must be computed in software
    /// (the 2015 82599 / VXLAN case).
    ZeroChecksumLevelExhausted,
    /// The device verified a non-zero outer checksum with its last level: the
    /// state is converted to `Complete` (`~pseudo`, `skb_checksum_try_convert`)
    /// so the inner checksum is checked by arithmetic alone.
    LevelExhaustedConverted,
    /// A zero outer UDP checksum with nothing to consume: state carried over.
    ZeroChecksumCarried,
    /// The outer checksum verified against the device's `Complete` sum by
    /// arithmetic; the sum is carried to the inner packet.
    CompleteVerified,
    /// The device's `Complete` sum did not verify but a software sum did: a
    /// device checksum fault (Linux `netdev_rx_csum_fault`); the software sum is kept.
    DeviceChecksumFault,
    /// Nothing was known: the outer checksum was verified in software and the
    /// computed sum kept as `Complete`, so the inner check costs no more bytes.
    SoftwareVerifiedConverted,
    /// Verified in software, but the metadata says a checksum field is blank
    /// (`CSUM_BLANK`), which a `Complete` state cannot carry: left `None`.
    SoftwareVerifiedBlank,
    /// `Partial` at or after the inner packet: trusted local data, unchanged.
    PartialKept,
    /// `Partial` pointed into the outer headers: the inner checksums are not
    /// covered, so the state becomes `None` (`skb_postpull_rcsum`).
    PartialBehind,
}

/// One decapsulated tunnel layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decap {
    /// The tunnel and its outer facts.
    pub tunnel: Tunnel,
    /// The inner packet's layers (absolute offsets in the same buffer).
    pub inner: Layers,
    /// The inner packet's checksum state; a `Complete` sum covers
    /// `inner.l3..inner.end` (the inner link header is pulled too, as
    /// `vxlan_rcv` does after `eth_type_trans`).
    pub meta: CsumMeta,
    /// Bytes summed in software by this step.
    pub sw_bytes: usize,
    /// Why the state is what it is.
    pub reason: DecapReason,
}

fn bytes_at(bytes: &[u8], from: usize, to: usize) -> &[u8] {
    bytes.get(from..to).unwrap_or(&[])
}

/// The outer UDP pseudo-header sum (`inet_compute_pseudo` / `ip6_compute_pseudo`).
fn udp_pseudo(bytes: &[u8], outer: &Layers, len: usize) -> Wsum {
    let proto = crate::wire::consts::ipproto::UDP;
    match outer.net {
        Net::Ipv4 => {
            let mut s = [0u8; 4];
            let mut d = [0u8; 4];
            s.copy_from_slice(bytes_at(bytes, outer.pseudo_src, outer.pseudo_src + 4));
            d.copy_from_slice(bytes_at(bytes, outer.pseudo_dst, outer.pseudo_dst + 4));
            csum::pseudo_v4(s, d, proto, len as u32, Wsum::ZERO)
        }
        Net::Ipv6 => {
            let mut s = [0u8; 16];
            let mut d = [0u8; 16];
            s.copy_from_slice(bytes_at(bytes, outer.pseudo_src, outer.pseudo_src + 16));
            d.copy_from_slice(bytes_at(bytes, outer.pseudo_dst, outer.pseudo_dst + 16));
            csum::pseudo_v6(&s, &d, proto, len as u32, Wsum::ZERO)
        }
    }
}

/// Sums `[l4, seg_end)` in software in three pieces so the inner piece can be
/// kept as the inner `Complete` sum without summing a byte twice.
/// Returns (verified, sum of `[cur, inner_end)`).
fn software_verify(
    bytes: &[u8],
    l4: usize,
    cur: usize,
    inner_end: usize,
    seg_end: usize,
    pseudo: Wsum,
) -> (bool, Wsum) {
    let hdr = csum::partial(bytes_at(bytes, l4, cur), Wsum::ZERO);
    let body = csum::partial(bytes_at(bytes, cur, inner_end), Wsum::ZERO);
    let tail = csum::partial(bytes_at(bytes, inner_end, seg_end), Wsum::ZERO);
    let total = csum::block_add(csum::block_add(hdr, body, cur - l4), tail, inner_end - l4);
    (csum::fold(total.add(pseudo)).is_zero(), body)
}

fn check_context(bytes: &[u8], outer: &Layers, at: usize) -> Result<(), DecapError> {
    if outer.end > bytes.len() || outer.l4 > outer.end || outer.l3 > outer.l4 {
        return Err(DecapError::BadContext { offset: outer.end });
    }
    if at < outer.l2 || at > outer.l4 {
        return Err(DecapError::BadContext { offset: at });
    }
    Ok(())
}

/// Removes one tunnel layer and moves the checksum state to the inner packet.
///
/// `outer` comes from [`wire::parse`](crate::wire::parse); `at` is where the
/// current layer starts, i.e. where a `Complete` sum in `meta` begins (the
/// outer IP header after the link header was pulled, or the outer L4 header);
/// it must lie in `outer.l2..=outer.l4`. A `Complete` sum covers `at..outer.end`.
///
/// Rules (Linux `csum_level` semantics, DESIGN.md 4): an outer UDP checksum,
/// zero or not, and a GRE checksum (C bit) consume one `Unnecessary` level; a
/// non-zero one left uncovered is verified (against `Complete` by arithmetic,
/// or in software) and the state becomes `Complete` for the inner packet; a bad
/// one is an error. On error nothing changes and `meta` comes back in [`Rejected`].
pub fn decap(
    bytes: &[u8],
    outer: &Layers,
    at: usize,
    meta: CsumMeta,
    cfg: &EncapConfig,
) -> Result<Decap, Rejected> {
    match decap_inner(bytes, outer, at, &meta, cfg) {
        Ok(d) => Ok(d),
        Err(error) => Err(Rejected { error, meta }),
    }
}

fn decap_inner(
    bytes: &[u8],
    outer: &Layers,
    at: usize,
    meta: &CsumMeta,
    cfg: &EncapConfig,
) -> Result<Decap, DecapError> {
    check_context(bytes, outer, at)?;
    let tunnel = parse_tunnel(bytes, outer, cfg)?;
    let inner = parse_inner(bytes, &tunnel).map_err(|e| match (e.layer, e.field, e.kind) {
        (Layer::Ethernet, Field::EtherType, ErrorKind::Unsupported { value })
            if tunnel.inner_proto == InnerProto::Ethernet =>
        {
            DecapError::InnerNotIp {
                ethertype: value as u16,
                offset: tunnel.inner_start,
            }
        }
        _ => DecapError::Header(e),
    })?;
    let l4 = tunnel.outer_l4;
    let seg_end = tunnel.segment_end;
    let cur = inner.l3;
    let flags_in = meta.flags();
    let blank = flags_in.contains(CsumFlags::CSUM_BLANK);
    let mut flags = flags_in - CsumFlags::CSUM_VALID - CsumFlags::COMPLETE_SW;
    let (pseudo, csum_layer, field) = match tunnel.outer_csum {
        OuterCsum::Udp(f) => (udp_pseudo(bytes, outer, seg_end - l4), Some(Layer::Udp), f),
        OuterCsum::Gre(f) => (Wsum::ZERO, Some(Layer::Gre), f),
        OuterCsum::Absent | OuterCsum::Zero => (Wsum::ZERO, None, crate::csum::Sum16::ZERO),
    };
    let bad = DecapError::BadOuterChecksum {
        layer: csum_layer.unwrap_or(Layer::Udp),
        offset: l4,
        field,
    };
    // Moves a sum over [l4, seg_end) to one over [cur, inner.end).
    let to_inner = |c: Wsum| {
        let c = postpull(c, bytes_at(bytes, l4, cur));
        trim(c, bytes_at(bytes, inner.end, seg_end), inner.end - cur)
    };
    let pulled_to_inner = (cur - l4) + (seg_end - inner.end);
    let mut sw = 0usize;
    let (state, reason) = match meta.state() {
        CsumState::Partial { start, .. } => {
            if start >= cur {
                (meta.state(), DecapReason::PartialKept)
            } else {
                (CsumState::None, DecapReason::PartialBehind)
            }
        }
        CsumState::Unnecessary { level } => {
            if !tunnel.outer_csum.counts_in_level() {
                (meta.state(), DecapReason::NoOuterChecksum)
            } else if let Some(l) = level.decremented() {
                (
                    CsumState::Unnecessary { level: l },
                    DecapReason::LevelConsumed,
                )
            } else if csum_layer.is_none() {
                (CsumState::None, DecapReason::ZeroChecksumLevelExhausted)
            } else if blank {
                (CsumState::None, DecapReason::SoftwareVerifiedBlank)
            } else {
                // skb_checksum_try_convert: a verified segment sums to ~pseudo.
                sw += pulled_to_inner;
                flags |= CsumFlags::COMPLETE_SW;
                (
                    CsumState::Complete {
                        csum: to_inner(pseudo.not()),
                    },
                    DecapReason::LevelExhaustedConverted,
                )
            }
        }
        CsumState::Complete { csum } => {
            // Cover [l4, seg_end): pull the outer IP header, trim past the segment.
            let c = postpull(csum, bytes_at(bytes, at, l4));
            let c = trim(c, bytes_at(bytes, seg_end, outer.end), seg_end - l4);
            sw += (l4 - at) + (outer.end - seg_end);
            let sw_flag = flags_in.contains(CsumFlags::COMPLETE_SW);
            if sw_flag {
                flags |= CsumFlags::COMPLETE_SW;
            }
            match csum_layer {
                None => {
                    sw += pulled_to_inner;
                    let reason = if tunnel.outer_csum == OuterCsum::Zero {
                        DecapReason::ZeroChecksumCarried
                    } else {
                        DecapReason::NoOuterChecksum
                    };
                    (CsumState::Complete { csum: to_inner(c) }, reason)
                }
                Some(_) if csum::fold(c.add(pseudo)).is_zero() => {
                    sw += pulled_to_inner;
                    (
                        CsumState::Complete { csum: to_inner(c) },
                        DecapReason::CompleteVerified,
                    )
                }
                Some(_) if sw_flag => return Err(bad),
                Some(_) => {
                    let (ok, body) = software_verify(bytes, l4, cur, inner.end, seg_end, pseudo);
                    sw += seg_end - l4;
                    if !ok {
                        return Err(bad);
                    }
                    flags |= CsumFlags::COMPLETE_SW;
                    (
                        CsumState::Complete { csum: body },
                        DecapReason::DeviceChecksumFault,
                    )
                }
            }
        }
        CsumState::None => match csum_layer {
            None if tunnel.outer_csum == OuterCsum::Zero => {
                (CsumState::None, DecapReason::ZeroChecksumCarried)
            }
            None => (CsumState::None, DecapReason::NoOuterChecksum),
            Some(_) => {
                let (ok, body) = software_verify(bytes, l4, cur, inner.end, seg_end, pseudo);
                sw += seg_end - l4;
                if !ok {
                    return Err(bad);
                }
                if blank {
                    (CsumState::None, DecapReason::SoftwareVerifiedBlank)
                } else {
                    flags |= CsumFlags::COMPLETE_SW;
                    (
                        CsumState::Complete { csum: body },
                        DecapReason::SoftwareVerifiedConverted,
                    )
                }
            }
        },
    };
    if !matches!(state, CsumState::Complete { .. }) {
        flags -= CsumFlags::COMPLETE_SW;
    }
    let meta = CsumMeta::new(state, flags).map_err(DecapError::Meta)?;
    Ok(Decap {
        tunnel,
        inner,
        meta,
        sw_bytes: sw,
        reason,
    })
}

/// One step of [`decap_nested`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The tunnel removed.
    pub tunnel: Tunnel,
    /// Why the state became what it did at this step.
    pub reason: DecapReason,
    /// Bytes summed in software at this step.
    pub sw_bytes: usize,
}

/// Every tunnel removed, outermost first, and the innermost packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nested {
    /// The innermost packet's layers (the outer ones when no tunnel was found).
    pub inner: Layers,
    /// The innermost packet's checksum state (a `Complete` covers `inner.l3..inner.end`
    /// once at least one tunnel was removed).
    pub meta: CsumMeta,
    /// The tunnels removed, outermost first.
    pub steps: heapless::Vec<Step, MAX_DEPTH>,
    /// Bytes summed in software in all steps.
    pub sw_bytes: usize,
}

/// Removes tunnels until the packet is not a tunnel any more, at most
/// [`EncapConfig::max_depth`] of them (Linux bounds the same recursion with
/// `dev_recursion_level` / GRO's `recursion_counter`); one more is
/// [`DecapError::TooDeep`]. A non-tunnel packet comes back unchanged.
///
/// Inner IP fragments end the walk (they cannot be decapsulated before
/// reassembly); an outer fragment is an error, as in [`decap`].
pub fn decap_nested(
    bytes: &[u8],
    outer: &Layers,
    at: usize,
    meta: CsumMeta,
    cfg: &EncapConfig,
) -> Result<Nested, Rejected> {
    let limit = cfg.depth_limit();
    let mut layers = *outer;
    let mut cur_at = at;
    let mut cur = meta.clone();
    let mut steps = heapless::Vec::new();
    let mut sw_bytes = 0;
    while detect(bytes, &layers, cfg).is_some()
        && (steps.is_empty() || !layers.fragment.is_fragment)
    {
        if steps.len() >= limit {
            return Err(Rejected {
                error: DecapError::TooDeep { limit },
                meta,
            });
        }
        let d = match decap(bytes, &layers, cur_at, cur, cfg) {
            Ok(d) => d,
            Err(r) => {
                return Err(Rejected {
                    error: r.error,
                    meta,
                });
            }
        };
        sw_bytes += d.sw_bytes;
        let step = Step {
            tunnel: d.tunnel,
            reason: d.reason,
            sw_bytes: d.sw_bytes,
        };
        if steps.push(step).is_err() {
            return Err(Rejected {
                error: DecapError::TooDeep { limit },
                meta,
            });
        }
        layers = d.inner;
        cur_at = layers.l3;
        cur = d.meta;
    }
    Ok(Nested {
        inner: layers,
        meta: cur,
        steps,
        sw_bytes,
    })
}
