//! The transmit decision for one packet: offload, fill in software, segment
//! first, or nothing to do (Linux `validate_xmit_skb`, `netif_needs_gso`,
//! `harmonize_features`, `skb_csum_hwoffload_help`).

use super::error::TxError;
use super::features::Features;
use super::gso::{GsoInfo, GsoLimits, TUNNEL, required_features};
use crate::state::{CsumMeta, CsumState, PartialKind};
use crate::wire::GsoType;
use crate::wire::{Layers, Net, Transport};

/// The transmitting device as a decision sees it: features and segmentation limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    /// What it can offload (already fixed and stacked as wanted).
    pub features: Features,
    /// Its hardware segmentation limits.
    pub gso: GsoLimits,
}

impl Device {
    /// A device with these features and the default limits.
    pub const fn new(features: Features) -> Device {
        Device {
            features,
            gso: GsoLimits::DEFAULT,
        }
    }
}

/// Why the device computes the checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OffloadReason {
    /// `HW_CSUM`: any start and offset.
    HwCsum,
    /// `IP_CSUM` and a plain IPv4 TCP/UDP checksum.
    IpCsum,
    /// `IPV6_CSUM` and a plain IPv6 TCP/UDP checksum without extension headers.
    Ipv6Csum,
    /// The device segments the super-packet and checksums every segment (TSO, USO).
    HardwareSegmentation,
}

/// Why the CRC32c goes to the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrcReason {
    /// `SCTP_CRC` and a `csum_not_inet` Partial.
    SctpCrc,
}

/// Why software must fill the checksum now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FillReason {
    /// The device has no checksum feature for this protocol (the 2005 bridge:
    /// a device that advertises nothing).
    NoChecksumFeature,
    /// `IP_CSUM`/`IPV6_CSUM` only, and the checksum is not a TCP/UDP one at the
    /// transport header (ICMPv6, an inner checksum of a tunnel...).
    NotPlainTcpUdp,
    /// `IPV6_CSUM` only and the packet has IPv6 extension headers.
    Ipv6ExtensionHeaders,
    /// A CRC32c Partial and no `SCTP_CRC` (`skb_crc32c_csum_help`).
    NoSctpCrc,
}

/// A software fill to do now (see [`fill_software`](super::fill_software)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fill {
    /// First byte summed (`csum_start`), from the start of the frame.
    pub start: usize,
    /// Field offset from `start` (`csum_offset`).
    pub offset: usize,
    /// Internet checksum or CRC32c.
    pub kind: PartialKind,
    /// Why software does it.
    pub reason: FillReason,
}

/// Why the super-packet is segmented in software.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentReason {
    /// The device lacks segmentation features the type needs (`net_gso_ok`).
    MissingFeatures {
        /// What is missing.
        missing: Features,
    },
    /// No checksum offload for the protocol, so no segmentation offload either
    /// (`harmonize_features`).
    ChecksumNotOffloadable,
    /// The packet is not `Partial`, so the device cannot be told where the
    /// checksum goes (`netif_needs_gso`).
    StateNotPartial,
    /// More segments than the device takes (`gso_max_segs`).
    TooManySegments {
        /// Segments the packet makes.
        segs: usize,
        /// The device's limit.
        max: u16,
    },
    /// The super-packet is larger than the device takes (`gso_max_size`).
    TooLarge {
        /// Bytes from the IP header to the end.
        len: usize,
        /// The device's limit.
        max: u32,
    },
}

/// How each software segment's L4 checksum leaves [`segment`](super::segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentCsum {
    /// Pseudo-header seed in the field, state `Partial`: the device finishes it.
    Partial,
    /// Computed in software, fused with the payload copy.
    Compute,
}

/// Why there is nothing to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DoneReason {
    /// `None` or `Unnecessary` without `csum_blank`: the checksum is already in
    /// the packet or none is needed (equivalent on transmit).
    NothingPending,
    /// `Complete` is a receive state; on transmit a driver treats it as `None`.
    CompleteIsNone,
}

/// What to do with a packet before (or while) handing it to the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxAction {
    /// The device computes the Internet checksum from `start` and stores it at `start + offset`.
    Offload {
        /// `csum_start`, from the start of the frame.
        start: usize,
        /// `csum_offset`.
        offset: usize,
        /// Which feature allows it.
        reason: OffloadReason,
    },
    /// The device computes the SCTP CRC32c.
    CrcOffload {
        /// `csum_start`.
        start: usize,
        /// `csum_offset` (8 for SCTP).
        offset: usize,
        /// Which feature allows it.
        reason: CrcReason,
    },
    /// Software fills the checksum now; then the packet is `None`.
    FillSoftware(Fill),
    /// Software segments first ([`segment`](super::segment)); each segment then
    /// leaves with its checksum as `csum` says.
    Segment {
        /// The request.
        gso: GsoInfo,
        /// Per-segment checksum: offloaded (`Partial`) or computed.
        csum: SegmentCsum,
        /// Why not in hardware.
        reason: SegmentReason,
    },
    /// Nothing to do: the checksum is in the packet already.
    AlreadyComplete {
        /// Why.
        reason: DoneReason,
    },
}

/// Decides what happens to one packet on its way to `dev` (Linux
/// `validate_xmit_skb` with `netif_skb_features` and `skb_csum_hwoffload_help`).
///
/// `layers` are the packet's outer layers; `gso` is `Some` for a super-packet.
/// A `csum_blank` packet (always `Partial`: `CsumMeta` refuses anything else)
/// never gets [`TxAction::AlreadyComplete`]: it leaves offloaded or filled.
pub fn decide(
    meta: &CsumMeta,
    layers: &Layers,
    gso: Option<GsoInfo>,
    dev: &Device,
) -> Result<TxAction, TxError> {
    check_layers(layers)?;
    let features = match meta.state() {
        CsumState::None => dev.features,
        _ => dev.features.harmonize(layers.net),
    };
    if let Some(gso) = gso {
        return decide_gso(meta, layers, gso, features, dev);
    }
    match meta.state() {
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            check_partial(layers, start, offset, kind)?;
            Ok(decide_partial(layers, start, offset, kind, features))
        }
        CsumState::None | CsumState::Unnecessary { .. } => Ok(TxAction::AlreadyComplete {
            reason: DoneReason::NothingPending,
        }),
        CsumState::Complete { .. } => Ok(TxAction::AlreadyComplete {
            reason: DoneReason::CompleteIsNone,
        }),
    }
}

pub(crate) fn check_layers(layers: &Layers) -> Result<(), TxError> {
    let ordered = layers.l2 <= layers.l3
        && layers.l3 < layers.l4
        && layers.l4 <= layers.payload
        && layers.payload <= layers.end;
    if ordered {
        Ok(())
    } else {
        Err(TxError::LayersOutOfOrder)
    }
}

fn field_len(kind: PartialKind) -> usize {
    match kind {
        PartialKind::Inet => 2,
        PartialKind::Crc32c => 4,
    }
}

fn check_partial(
    layers: &Layers,
    start: usize,
    offset: usize,
    kind: PartialKind,
) -> Result<(), TxError> {
    let field_end = start
        .checked_add(offset)
        .and_then(|x| x.checked_add(field_len(kind)));
    match field_end {
        Some(e) if start >= layers.l2 && e <= layers.end => Ok(()),
        _ => Err(TxError::PartialOutOfRange {
            start,
            offset,
            end: layers.end,
        }),
    }
}

/// The non-GSO Partial case (`skb_csum_hwoffload_help`), stricter than Linux:
/// IP_CSUM/IPV6_CSUM need the TCP/UDP field at the transport header, not just
/// a `csum_offset` of 16 or 6.
fn decide_partial(
    layers: &Layers,
    start: usize,
    offset: usize,
    kind: PartialKind,
    features: Features,
) -> TxAction {
    let fill = |reason| {
        TxAction::FillSoftware(Fill {
            start,
            offset,
            kind,
            reason,
        })
    };
    if kind == PartialKind::Crc32c {
        return if features.contains(Features::SCTP_CRC) {
            TxAction::CrcOffload {
                start,
                offset,
                reason: CrcReason::SctpCrc,
            }
        } else {
            fill(FillReason::NoSctpCrc)
        };
    }
    if features.contains(Features::HW_CSUM) {
        return TxAction::Offload {
            start,
            offset,
            reason: OffloadReason::HwCsum,
        };
    }
    let (feature, reason) = match layers.net {
        Net::Ipv4 => (Features::IP_CSUM, OffloadReason::IpCsum),
        Net::Ipv6 => (Features::IPV6_CSUM, OffloadReason::Ipv6Csum),
    };
    if !features.contains(feature) {
        return fill(FillReason::NoChecksumFeature);
    }
    if layers.net == Net::Ipv6 && layers.l3_header_len() != IPV6_HEADER_LEN {
        return fill(FillReason::Ipv6ExtensionHeaders);
    }
    if !plain_tcp_udp(layers, start, offset) {
        return fill(FillReason::NotPlainTcpUdp);
    }
    TxAction::Offload {
        start,
        offset,
        reason,
    }
}

use crate::wire::ipv6::HEADER_LEN as IPV6_HEADER_LEN;
use crate::wire::{tcp, udp};

fn plain_tcp_udp(layers: &Layers, start: usize, offset: usize) -> bool {
    start == layers.l4
        && matches!(
            (layers.transport, offset),
            (Transport::Tcp, tcp::CHECKSUM_OFFSET) | (Transport::Udp, udp::CHECKSUM_OFFSET)
        )
}

/// Checks the request against the packet (the shape `segment` also needs).
pub(crate) fn check_gso_shape(layers: &Layers, gso: GsoInfo) -> Result<(), TxError> {
    let t = gso.gso_type;
    let mismatch = TxError::GsoTypeMismatch {
        gso_type: t,
        net: layers.net,
        transport: layers.transport,
    };
    if gso.gso_size == 0 {
        return Err(TxError::GsoSizeZero);
    }
    if t.intersects(TUNNEL) {
        let outer_ok = if t.intersects(GsoType::GRE | GsoType::GRE_CSUM) {
            layers.transport == Transport::Gre
        } else if t.intersects(GsoType::IPXIP4 | GsoType::IPXIP6) {
            let net_ok = if t.contains(GsoType::IPXIP6) {
                layers.net == Net::Ipv6
            } else {
                layers.net == Net::Ipv4
            };
            net_ok && matches!(layers.transport, Transport::Ipip | Transport::Ipv6InIp)
        } else {
            layers.transport == Transport::Udp
        };
        return if outer_ok { Ok(()) } else { Err(mismatch) };
    }
    let inner = t & (GsoType::TCPV4 | GsoType::TCPV6 | GsoType::UDP_L4);
    let ok = if inner == GsoType::TCPV4 {
        layers.net == Net::Ipv4 && layers.transport == Transport::Tcp
    } else if inner == GsoType::TCPV6 {
        layers.net == Net::Ipv6 && layers.transport == Transport::Tcp
    } else if inner == GsoType::UDP_L4 {
        let tcp_only = GsoType::TCP_ECN
            .union(GsoType::TCP_ACCECN)
            .union(GsoType::TCP_FIXEDID)
            .union(GsoType::TCP_FIXEDID_INNER);
        layers.transport == Transport::Udp && !t.intersects(tcp_only)
    } else {
        false
    };
    if ok { Ok(()) } else { Err(mismatch) }
}

fn decide_gso(
    meta: &CsumMeta,
    layers: &Layers,
    gso: GsoInfo,
    features: Features,
    dev: &Device,
) -> Result<TxAction, TxError> {
    check_gso_shape(layers, gso)?;
    let payload = layers.payload_len();
    if payload == 0 || gso.gso_size as usize > payload {
        return Err(TxError::GsoSizeBeyondPayload {
            gso_size: gso.gso_size as usize,
            payload,
        });
    }
    // Per-segment checksum: what the device could do with one plain segment.
    // Inside a tunnel the inner checksum is not at the outer transport header:
    // only HW_CSUM can finish it.
    let offloadable = if gso.gso_type.intersects(TUNNEL) {
        features.contains(Features::HW_CSUM)
    } else {
        plain_offloadable(layers, features)
    };
    let seg_csum = if offloadable {
        SegmentCsum::Partial
    } else {
        SegmentCsum::Compute
    };
    let segment = |reason| TxAction::Segment {
        gso,
        csum: seg_csum,
        reason,
    };
    let (start, offset) = match meta.state() {
        CsumState::Partial {
            start,
            offset,
            kind: PartialKind::Inet,
        } => {
            check_partial(layers, start, offset, PartialKind::Inet)?;
            (start, offset)
        }
        CsumState::None
        | CsumState::Unnecessary { .. }
        | CsumState::Complete { .. }
        | CsumState::Partial {
            kind: PartialKind::Crc32c,
            ..
        } => return Ok(segment(SegmentReason::StateNotPartial)),
    };
    if !features.can_checksum(layers.net) {
        return Ok(segment(SegmentReason::ChecksumNotOffloadable));
    }
    let missing = required_features(gso.gso_type).difference(features);
    if !missing.is_empty() {
        return Ok(segment(SegmentReason::MissingFeatures { missing }));
    }
    let segs = gso.segments(payload);
    if segs > dev.gso.max_segs as usize {
        return Ok(segment(SegmentReason::TooManySegments {
            segs,
            max: dev.gso.max_segs,
        }));
    }
    let len = layers.end - layers.l3;
    if len > dev.gso.max_size as usize {
        return Ok(segment(SegmentReason::TooLarge {
            len,
            max: dev.gso.max_size,
        }));
    }
    Ok(TxAction::Offload {
        start,
        offset,
        reason: OffloadReason::HardwareSegmentation,
    })
}

/// Whether one plain (unsegmented) TCP/UDP packet of this shape could be
/// checksummed by the device.
fn plain_offloadable(layers: &Layers, features: Features) -> bool {
    if features.contains(Features::HW_CSUM) {
        return true;
    }
    let offset = match layers.transport.csum_offset() {
        Some(o) => o,
        None => return false,
    };
    match layers.net {
        Net::Ipv4 => {
            features.contains(Features::IP_CSUM) && plain_tcp_udp(layers, layers.l4, offset)
        }
        Net::Ipv6 => {
            features.contains(Features::IPV6_CSUM)
                && layers.l3_header_len() == IPV6_HEADER_LEN
                && plain_tcp_udp(layers, layers.l4, offset)
        }
    }
}
