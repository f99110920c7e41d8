//! Decapsulation as a checksum-state transition: one tunnel layer
//! ([`decap`]) or all of them up to the configured depth ([`decap_nested`]).
//!
//! Models the receive path of Linux `udp_rcv` -> `vxlan_rcv` / `geneve_rx`,
//! `gre_rcv` and `ipip_rcv`: `__skb_checksum_validate` on the outer checksum
//! (consuming one `csum_level`), `skb_checksum_try_convert`, and
//! `skb_postpull_rcsum` for every pulled header byte.

use super::config::{EncapConfig, MAX_DEPTH};
use super::error::DecapError;
use super::header::{detect, parse_inner, parse_tunnel};
use super::tunnel::{InnerProto, OuterCsum, Tunnel};
use crate::csum::Sum16;
use crate::state::{
    CsumFlags, CsumMeta, CsumState, CsumVerdict, Packet, Reason, Refused, StateError,
    ValidateOptions, ZeroUdp6, pull, trim, try_convert, validate_with,
};
use crate::wire::{ErrorKind, Field, Layer, Layers};

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
    /// The device's last level covered a non-zero outer checksum, but the
    /// metadata says a checksum field is blank (`CSUM_BLANK`), which a
    /// `Complete` state cannot carry: left `None`, not converted.
    BlankNotConverted,
    /// The origin vouched for the data (`DATA_VALID`): trusted and consumed.
    OriginTrusted,
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
    /// The inner packet's checksum state, for the packet `bytes[..inner.end]`
    /// with current layer `inner.l3`: a `Complete` sum covers `inner.l3..inner.end` (the inner link header is pulled too, as
    /// `vxlan_rcv` does after `eth_type_trans`).
    pub meta: CsumMeta,
    /// Bytes summed in software by this step.
    pub sw_bytes: usize,
    /// Why the state is what it is.
    pub reason: DecapReason,
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

/// Maps a refused state transition (offsets that do not fit) to a decap error.
/// Every `StateError` is named, so a new one must be placed here.
fn refused(r: Refused<StateError>, offset: usize) -> DecapError {
    match r.error {
        StateError::Meta(e) => DecapError::Meta(e),
        // What decap's own transitions (validate, pull, try_convert) refuse:
        // the context given does not fit the packet.
        StateError::OutOfBounds { .. }
        | StateError::LayerNotHandled { .. }
        | StateError::Fragment
        | StateError::CurPastLayer { .. }
        // Forwarding and NAT refusals, which decap's transitions never return.
        | StateError::TtlExpired { .. }
        | StateError::HopLimitExpired { .. }
        | StateError::AddressFamily
        | StateError::PartialElsewhere { .. }
        | StateError::NotIpv4 => DecapError::BadContext { offset },
    }
}

/// Removes one tunnel layer and moves the checksum state to the inner packet.
///
/// `outer` comes from [`wire::parse`](crate::wire::parse); `at` is the current
/// layer offset of `meta` (a `Complete` sum covers `bytes[at..]`, the
/// [`Packet`] convention: the outer IP header after the link header was
/// pulled, or the outer L4 header); it must lie in `outer.l2..=outer.l4`.
///
/// The steps are the state room's transitions, in Linux's order: [`pull`] the
/// outer IP header (`ip_local_deliver_finish`), [`validate_with`] the outer
/// UDP / GRE checksum (`udp4_csum_init` / `gre_parse_header`: an outer UDP
/// checksum, zero or not, and a GRE checksum consume one `Unnecessary` level),
/// [`try_convert`] after a non-zero one (`skb_checksum_try_convert`), [`pull`]
/// the tunnel header and inner link header (`__iptunnel_pull_header`,
/// `eth_type_trans`), and [`trim`] to the inner IP length (`pskb_trim_rcsum`).
/// The inner packet is `bytes[..inner.end]` with current layer `inner.l3`.
///
/// A bad outer checksum is [`DecapError::BadOuterChecksum`]. On any error
/// nothing changes and `meta` comes back in a [`Refused`].
///
/// The 82599 case (DESIGN.md 1): a device that verified only the outer UDP
/// checksum reports level 0; with a non-zero outer checksum decap converts to
/// `Complete`, so the inner TCP check needs no software sum of the segment.
///
/// ```
/// use netoffload::encap::*;
/// use netoffload::state::{CsumLevel, CsumMeta, CsumState};
/// use netoffload::wire::{self, LinkType};
/// # let mut inner = [0u8; 54];
/// # inner[12] = 0x08; inner[14] = 0x45; inner[17] = 40; inner[22] = 64; inner[23] = 6;
/// # inner[46] = 0x50;
/// # let c = netoffload::csum::ipv4_header(&inner[14..34]).to_bytes();
/// # inner[24..26].copy_from_slice(&c);
/// let cfg = EncapConfig::DEFAULT;
/// let mut buf = [0u8; 128 + 54];
/// buf[128..].copy_from_slice(&inner); // an Ethernet/IPv4/TCP frame
/// let spec = EncapSpec {
///     eth: Some(OuterEthernet { dst: [2; 6], src: [4; 6], vlan: None }),
///     ip: OuterIp::V4 { src: [192, 0, 2, 1], dst: [192, 0, 2, 2], ttl: 64, tos: 0, id: 1, dont_fragment: true },
///     tunnel: TunnelSpec::Vxlan { vni: 42, src_port: 49152, dst_port: 4789 },
///     udp_csum: UdpCsumMode::Compute,
/// };
/// let e = encap(&spec, &cfg, &mut buf, 128, 54, LinkType::Ethernet, CsumMeta::NONE).unwrap();
/// let frame = &buf[e.start..e.end];
/// let outer = wire::parse(frame, LinkType::Ethernet).unwrap();
/// let report = CsumMeta::from_state(CsumState::Unnecessary { level: CsumLevel::L0 });
/// let d = decap(frame, &outer, outer.l3, report, &cfg).unwrap();
/// assert_eq!(d.reason, DecapReason::LevelExhaustedConverted);
/// assert!(matches!(d.meta.state(), CsumState::Complete { .. }));
/// assert_eq!(d.tunnel.vni, Some(42));
/// ```
pub fn decap(
    bytes: &[u8],
    outer: &Layers,
    at: usize,
    meta: CsumMeta,
    cfg: &EncapConfig,
) -> Result<Decap, Refused<DecapError>> {
    let original = meta.clone();
    match decap_inner(bytes, outer, at, meta, cfg) {
        Ok(d) => Ok(d),
        Err(error) => Err(Refused {
            meta: original,
            error,
        }),
    }
}

fn decap_inner(
    bytes: &[u8],
    outer: &Layers,
    at: usize,
    meta: CsumMeta,
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
    let input = meta.state();
    let blank = meta.is_blank();
    let mut sw = 0usize;

    // The outer IP header (and anything before it) leaves the current layer.
    let pkt = Packet::new(bytes, *outer, at).map_err(|_| DecapError::BadContext { offset: at })?;
    let o = pull(meta, &pkt, l4 - at).map_err(|r| refused(r, at))?;
    sw += o.sw_bytes;
    let mut meta = o.meta;
    let pkt = pkt
        .with_cur(l4)
        .map_err(|_| DecapError::BadContext { offset: l4 })?;

    // The outer checksum: validate (consuming a level), then convert.
    let mut reason = DecapReason::NoOuterChecksum;
    if tunnel.outer_csum.counts_in_level() {
        let dst = tunnel.udp_ports.map_or(0, |(_, d)| d);
        let opts = ValidateOptions {
            zero_udp6: if cfg.ipv6_zero_rx(dst) {
                ZeroUdp6::Accept
            } else {
                ZeroUdp6::Reject
            },
        };
        let v = validate_with(meta, &pkt, opts).map_err(|r| refused(r, l4))?;
        sw += v.sw_bytes;
        if v.verdict == CsumVerdict::Bad {
            let (layer, field) = match tunnel.outer_csum {
                OuterCsum::Gre(f) => (Layer::Gre, f),
                OuterCsum::Udp(f) => (Layer::Udp, f),
                // A zero IPv6 UDP checksum refused by policy; `Absent` does not
                // count in the level and never reaches this validation.
                OuterCsum::Zero | OuterCsum::Absent => (Layer::Udp, Sum16::ZERO),
            };
            return Err(DecapError::BadOuterChecksum {
                layer,
                offset: l4,
                field,
            });
        }
        meta = v.meta;
        reason = match (v.reason, input) {
            (Reason::ZeroUdpNoChecksum, CsumState::Unnecessary { .. }) => {
                if matches!(meta.state(), CsumState::Unnecessary { .. }) {
                    DecapReason::LevelConsumed
                } else {
                    DecapReason::ZeroChecksumLevelExhausted
                }
            }
            (Reason::ZeroUdpNoChecksum, _) => DecapReason::ZeroChecksumCarried,
            (Reason::LevelConsumed, _) => DecapReason::LevelConsumed,
            (Reason::CompleteChecked, _) => DecapReason::CompleteVerified,
            (Reason::DeviceChecksumFault, _) => DecapReason::DeviceChecksumFault,
            (Reason::SoftwareVerified, _) => DecapReason::SoftwareVerifiedConverted,
            (Reason::DataValidTrusted, _) => DecapReason::OriginTrusted,
            (Reason::PartialTrusted, _) => DecapReason::PartialKept,
            (Reason::NoChecksumField, _) => DecapReason::NoOuterChecksum,
            // Bad was returned above; the others name other transitions and never
            // come out of validate. Listed, not caught by `_`, so that a new
            // reason must be mapped here.
            (
                Reason::DeviceNone
                | Reason::DeviceVerified { .. }
                | Reason::DeviceReportedBad
                | Reason::DeviceSum
                | Reason::LevelCovers
                | Reason::Crc32cVerified
                | Reason::BadChecksum
                | Reason::ZeroUdp6Rejected
                | Reason::Converted
                | Reason::NotConverted
                | Reason::Pulled
                | Reason::PartialPulledPast
                | Reason::Pushed
                | Reason::Trimmed
                | Reason::Bridged
                | Reason::Routed
                | Reason::Ipv4HeaderChecked
                | Reason::NatRewritten
                | Reason::NatZeroUdpKept
                | Reason::NatNoChange
                | Reason::ConntrackHookSkipped
                | Reason::ConntrackChecksumOff
                | Reason::ConntrackFragment
                | Reason::ConntrackGeneric
                | Reason::PartialSetUp
                | Reason::Filled
                | Reason::FilledCrc32c
                | Reason::NothingToFill,
                _,
            ) => DecapReason::NoOuterChecksum,
        };
        if meta.state() == CsumState::None && reason == DecapReason::LevelConsumed {
            // A CSUM_BLANK packet cannot carry a Complete sum: not converted.
            if blank {
                reason = DecapReason::BlankNotConverted;
            } else {
                let c = try_convert(meta, &pkt).map_err(|r| refused(r, l4))?;
                sw += c.sw_bytes;
                if c.reason == Reason::Converted {
                    reason = DecapReason::LevelExhaustedConverted;
                }
                meta = c.meta;
            }
        }
    }

    // The tunnel header and the inner link header leave the current layer.
    let o = pull(meta, &pkt, inner.l3 - l4).map_err(|r| refused(r, l4))?;
    sw += o.sw_bytes;
    let ipkt = Packet::new(bytes, inner, inner.l3)
        .map_err(|_| DecapError::BadContext { offset: inner.l3 })?;
    let t = trim(o.meta, &ipkt, inner.end).map_err(|r| refused(r, inner.end))?;
    sw += t.sw_bytes;
    let meta = without_origin_word(t.meta);
    if let CsumState::Partial { .. } = input {
        reason = if matches!(meta.state(), CsumState::Partial { .. }) {
            DecapReason::PartialKept
        } else {
            DecapReason::PartialBehind
        };
    }
    Ok(Decap {
        tunnel,
        inner,
        meta,
        sw_bytes: sw,
        reason,
    })
}

/// The inner packet's metadata without `DATA_VALID`: the origin spoke for the
/// outermost checksum only (Linux reads it as level 0) and its word never
/// crosses a tunnel, also one without an outer checksum (IP-in-IP, whose pull
/// never goes past the outer `l4`).
fn without_origin_word(meta: CsumMeta) -> CsumMeta {
    let state = meta.state();
    CsumMeta::new(state, meta.flags() - CsumFlags::DATA_VALID)
        .unwrap_or(CsumMeta::from_state(state))
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
    /// The innermost packet's checksum state; once a tunnel was removed the
    /// packet is `bytes[..inner.end]` and a `Complete` covers `inner.l3..inner.end`.
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
) -> Result<Nested, Refused<DecapError>> {
    let limit = cfg.depth_limit();
    let mut layers = *outer;
    let mut frame = bytes;
    let mut cur_at = at;
    let mut cur = meta.clone();
    let mut steps = heapless::Vec::new();
    let mut sw_bytes = 0;
    while detect(bytes, &layers, cfg).is_some()
        && (steps.is_empty() || !layers.fragment.is_fragment)
    {
        if steps.len() >= limit {
            return Err(Refused {
                meta,
                error: DecapError::TooDeep { limit },
            });
        }
        let d = match decap(frame, &layers, cur_at, cur, cfg) {
            Ok(d) => d,
            Err(r) => {
                return Err(Refused {
                    meta,
                    error: r.error,
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
            return Err(Refused {
                meta,
                error: DecapError::TooDeep { limit },
            });
        }
        layers = d.inner;
        // The inner packet ends at its IP length: its sums stop there.
        frame = frame.get(..layers.end).unwrap_or(frame);
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
