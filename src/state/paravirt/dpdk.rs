//! DPDK `rte_mbuf` `ol_flags` (`rte_mbuf_core.h`): receive checksum status and
//! transmit offload requests, both ways.
//!
//! Each 2-bit receive status is its own variant: `UNKNOWN` is **0** and is never
//! read as good (the trap: a driver that never sets GOOD looks like "unknown",
//! not like "bad"). `NONE` (both bits) means "the field is not correct but the
//! data is verified", i.e. a `Partial`-like packet.

use crate::csum;
use crate::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use crate::wire::{self, Layers, LinkType, Net};

use super::error::{BoundaryError, MetaErrorKind, MetaField, Rule};
use super::setup::{field_at, layers_fit, pseudo_len};
use super::virtio::{GsoKind, SuperPacket};

/// The `RTE_MBUF_F_*` bits used here.
pub mod ol {
    /// `RTE_MBUF_F_RX_L4_CKSUM_BAD`.
    pub const RX_L4_CKSUM_BAD: u64 = 1 << 3;
    /// `RTE_MBUF_F_RX_L4_CKSUM_GOOD`.
    pub const RX_L4_CKSUM_GOOD: u64 = 1 << 8;
    /// `RTE_MBUF_F_RX_L4_CKSUM_MASK` (also `..._NONE`).
    pub const RX_L4_CKSUM_MASK: u64 = RX_L4_CKSUM_BAD | RX_L4_CKSUM_GOOD;
    /// `RTE_MBUF_F_RX_IP_CKSUM_BAD`.
    pub const RX_IP_CKSUM_BAD: u64 = 1 << 4;
    /// `RTE_MBUF_F_RX_IP_CKSUM_GOOD`.
    pub const RX_IP_CKSUM_GOOD: u64 = 1 << 7;
    /// `RTE_MBUF_F_RX_IP_CKSUM_MASK` (also `..._NONE`).
    pub const RX_IP_CKSUM_MASK: u64 = RX_IP_CKSUM_BAD | RX_IP_CKSUM_GOOD;
    /// `RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD`.
    pub const RX_OUTER_IP_CKSUM_BAD: u64 = 1 << 5;
    /// `RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD`.
    pub const RX_OUTER_L4_CKSUM_BAD: u64 = 1 << 21;
    /// `RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD`.
    pub const RX_OUTER_L4_CKSUM_GOOD: u64 = 1 << 22;
    /// `RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK` (also `..._INVALID`).
    pub const RX_OUTER_L4_CKSUM_MASK: u64 = RX_OUTER_L4_CKSUM_BAD | RX_OUTER_L4_CKSUM_GOOD;

    /// `RTE_MBUF_F_TX_OUTER_UDP_CKSUM`.
    pub const TX_OUTER_UDP_CKSUM: u64 = 1 << 41;
    /// `RTE_MBUF_F_TX_UDP_SEG`.
    pub const TX_UDP_SEG: u64 = 1 << 42;
    /// `RTE_MBUF_F_TX_TUNNEL_VXLAN`.
    pub const TX_TUNNEL_VXLAN: u64 = 0x1 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_GRE`.
    pub const TX_TUNNEL_GRE: u64 = 0x2 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_IPIP`.
    pub const TX_TUNNEL_IPIP: u64 = 0x3 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_GENEVE`.
    pub const TX_TUNNEL_GENEVE: u64 = 0x4 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_IP` (generic IP tunnel).
    pub const TX_TUNNEL_IP: u64 = 0xD << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_UDP` (generic UDP tunnel).
    pub const TX_TUNNEL_UDP: u64 = 0xE << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_MASK`.
    pub const TX_TUNNEL_MASK: u64 = 0xF << 45;
    /// `RTE_MBUF_F_TX_TCP_SEG` (implies TCP checksum).
    pub const TX_TCP_SEG: u64 = 1 << 50;
    /// `RTE_MBUF_F_TX_TCP_CKSUM`.
    pub const TX_TCP_CKSUM: u64 = 1 << 52;
    /// `RTE_MBUF_F_TX_SCTP_CKSUM`.
    pub const TX_SCTP_CKSUM: u64 = 2 << 52;
    /// `RTE_MBUF_F_TX_UDP_CKSUM`.
    pub const TX_UDP_CKSUM: u64 = 3 << 52;
    /// `RTE_MBUF_F_TX_L4_MASK`.
    pub const TX_L4_MASK: u64 = 3 << 52;
    /// `RTE_MBUF_F_TX_IP_CKSUM`.
    pub const TX_IP_CKSUM: u64 = 1 << 54;
    /// `RTE_MBUF_F_TX_IPV4`.
    pub const TX_IPV4: u64 = 1 << 55;
    /// `RTE_MBUF_F_TX_IPV6`.
    pub const TX_IPV6: u64 = 1 << 56;
    /// `RTE_MBUF_F_TX_OUTER_IP_CKSUM`.
    pub const TX_OUTER_IP_CKSUM: u64 = 1 << 58;
    /// `RTE_MBUF_F_TX_OUTER_IPV4`.
    pub const TX_OUTER_IPV4: u64 = 1 << 59;
    /// `RTE_MBUF_F_TX_OUTER_IPV6`.
    pub const TX_OUTER_IPV6: u64 = 1 << 60;
}

/// A 2-bit receive status (IP or L4 checksum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RxStatus {
    /// `UNKNOWN` (0): no information. Never good.
    Unknown,
    /// `BAD`: the checksum in the packet is wrong.
    Bad,
    /// `GOOD`: the checksum in the packet is valid.
    Good,
    /// `NONE` (both bits): the field is not correct but the data is verified.
    NoneDataValid,
}

impl RxStatus {
    const fn decode(flags: u64, bad: u64, good: u64) -> RxStatus {
        match (flags & bad != 0, flags & good != 0) {
            (false, false) => RxStatus::Unknown,
            (true, false) => RxStatus::Bad,
            (false, true) => RxStatus::Good,
            (true, true) => RxStatus::NoneDataValid,
        }
    }

    const fn encode(self, bad: u64, good: u64) -> u64 {
        match self {
            RxStatus::Unknown => 0,
            RxStatus::Bad => bad,
            RxStatus::Good => good,
            RxStatus::NoneDataValid => bad | good,
        }
    }
}

/// The outer L4 (UDP of a tunnel) receive status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterL4Status {
    /// `UNKNOWN` (0).
    Unknown,
    /// `BAD`.
    Bad,
    /// `GOOD`.
    Good,
    /// `INVALID` (both bits).
    Invalid,
}

/// The outer IP header status (only a BAD bit exists).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterIpStatus {
    /// No report.
    NotReported,
    /// `RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD`.
    Bad,
}

/// Every receive checksum report of one mbuf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RxCsum {
    /// Inner (or only) IP header.
    pub ip: RxStatus,
    /// Inner (or only) L4.
    pub l4: RxStatus,
    /// Outer L4 of a tunnel.
    pub outer_l4: OuterL4Status,
    /// Outer IP header.
    pub outer_ip: OuterIpStatus,
}

impl RxCsum {
    /// Nothing reported (all bits 0).
    pub const UNKNOWN: RxCsum = RxCsum {
        ip: RxStatus::Unknown,
        l4: RxStatus::Unknown,
        outer_l4: OuterL4Status::Unknown,
        outer_ip: OuterIpStatus::NotReported,
    };

    /// Decodes `ol_flags` (other bits ignored).
    pub const fn from_ol_flags(flags: u64) -> RxCsum {
        RxCsum {
            ip: RxStatus::decode(flags, ol::RX_IP_CKSUM_BAD, ol::RX_IP_CKSUM_GOOD),
            l4: RxStatus::decode(flags, ol::RX_L4_CKSUM_BAD, ol::RX_L4_CKSUM_GOOD),
            outer_l4: match (
                flags & ol::RX_OUTER_L4_CKSUM_BAD != 0,
                flags & ol::RX_OUTER_L4_CKSUM_GOOD != 0,
            ) {
                (false, false) => OuterL4Status::Unknown,
                (true, false) => OuterL4Status::Bad,
                (false, true) => OuterL4Status::Good,
                (true, true) => OuterL4Status::Invalid,
            },
            outer_ip: if flags & ol::RX_OUTER_IP_CKSUM_BAD != 0 {
                OuterIpStatus::Bad
            } else {
                OuterIpStatus::NotReported
            },
        }
    }

    /// Encodes into `ol_flags` bits.
    pub const fn to_ol_flags(self) -> u64 {
        self.ip.encode(ol::RX_IP_CKSUM_BAD, ol::RX_IP_CKSUM_GOOD)
            | self.l4.encode(ol::RX_L4_CKSUM_BAD, ol::RX_L4_CKSUM_GOOD)
            | match self.outer_l4 {
                OuterL4Status::Unknown => 0,
                OuterL4Status::Bad => ol::RX_OUTER_L4_CKSUM_BAD,
                OuterL4Status::Good => ol::RX_OUTER_L4_CKSUM_GOOD,
                OuterL4Status::Invalid => ol::RX_OUTER_L4_CKSUM_MASK,
            }
            | match self.outer_ip {
                OuterIpStatus::NotReported => 0,
                OuterIpStatus::Bad => ol::RX_OUTER_IP_CKSUM_BAD,
            }
    }
}

/// The outer UDP checksum of a tunnel packet, as read from its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterUdpCsum {
    /// Zero: no checksum, trivially fine (it still counts as a level, as in Linux).
    Zero,
    /// Non-zero: only the device's report can vouch for it.
    NonZero,
}

/// What encloses the L4 the `l4` status is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encap {
    /// Not tunnelled.
    None,
    /// A UDP tunnel (VXLAN, GENEVE): the outer UDP checksum comes first.
    UdpTunnel(OuterUdpCsum),
    /// A tunnel without an outer checksum (IP-in-IP, GRE without the C bit).
    NoOuterChecksum,
    /// GRE with the C bit: DPDK reports nothing about it, so it is never verified.
    GreWithChecksum,
}

/// Why a receive report should stop the packet (the state is still sound).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RxVerdict {
    /// No bad report.
    Clean,
    /// `OUTER_IP_CKSUM_BAD`.
    BadOuterIpHeader,
    /// `OUTER_L4_CKSUM_BAD`.
    BadOuterL4,
    /// `OUTER_L4_CKSUM_INVALID`: a driver reported an impossible state.
    InvalidOuterL4Status,
    /// `IP_CKSUM_BAD`.
    BadIpHeader,
    /// `L4_CKSUM_BAD`.
    BadL4,
}

/// A decoded receive report.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub struct DpdkRx {
    /// What may be claimed.
    pub meta: CsumMeta,
    /// Whether a device reported a bad checksum.
    pub verdict: RxVerdict,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Verified,
    NotVerified,
}

/// Receive `ol_flags` to checksum metadata (what a PMD's report may claim).
///
/// Consecutive verified checksums from the outermost become `Unnecessary` with
/// `level = count - 1` (a zero outer UDP checksum counts, as in Linux: the 82599
/// VXLAN case). `UNKNOWN`, `BAD` and `INVALID` never verify. An inner `NONE`
/// (data good, field not filled) claims nothing here: a blank field needs its
/// place (`Partial`), which only [`rx_to_meta_frame`] can find.
pub fn rx_to_meta(rx: RxCsum, encap: Encap) -> DpdkRx {
    let inner = if rx.l4 == RxStatus::Good {
        Level::Verified
    } else {
        Level::NotVerified
    };
    let outer = match encap {
        Encap::None | Encap::NoOuterChecksum => None,
        Encap::GreWithChecksum => Some(Level::NotVerified),
        Encap::UdpTunnel(zero) => Some(match (rx.outer_l4, zero) {
            (OuterL4Status::Good, _) | (OuterL4Status::Unknown, OuterUdpCsum::Zero) => {
                Level::Verified
            }
            _ => Level::NotVerified,
        }),
    };
    let count = match (outer, inner) {
        (None, Level::Verified) => 1,
        (None, Level::NotVerified) => 0,
        (Some(Level::Verified), Level::Verified) => 2,
        (Some(Level::Verified), Level::NotVerified) => 1,
        (Some(Level::NotVerified), _) => 0,
    };
    let state = match CsumLevel::new(count.max(1) - 1) {
        Some(level) if count > 0 => CsumState::Unnecessary { level },
        _ => CsumState::None,
    };
    let flags = CsumFlags::empty();
    let verdict = if rx.outer_ip == OuterIpStatus::Bad {
        RxVerdict::BadOuterIpHeader
    } else if rx.outer_l4 == OuterL4Status::Bad {
        RxVerdict::BadOuterL4
    } else if rx.outer_l4 == OuterL4Status::Invalid {
        RxVerdict::InvalidOuterL4Status
    } else if rx.ip == RxStatus::Bad {
        RxVerdict::BadIpHeader
    } else if rx.l4 == RxStatus::Bad {
        RxVerdict::BadL4
    } else {
        RxVerdict::Clean
    };
    DpdkRx {
        meta: CsumMeta::new(state, flags).unwrap_or(CsumMeta::NONE),
        verdict,
    }
}

/// [`rx_to_meta`] with the frame at hand: an untunnelled `NONE` whose field
/// holds the pseudo-header seed of a plain TCP/UDP packet becomes `Partial`
/// with `CSUM_BLANK | DATA_VALID` (the virtio PMD's `NEEDS_CSUM` case), so it
/// can be forwarded without a software sum and filled where needed. Otherwise
/// the same as [`rx_to_meta`].
pub fn rx_to_meta_frame(rx: RxCsum, encap: Encap, frame: &[u8], link: LinkType) -> DpdkRx {
    let plain = rx_to_meta(rx, encap);
    if rx.l4 != RxStatus::NoneDataValid || encap != Encap::None {
        return plain;
    }
    let Ok(setup) = super::setup::checksum_setup(frame, link) else {
        return plain;
    };
    if super::setup::check_seed(frame, &setup.layers, setup.start, setup.offset).is_err() {
        return plain;
    }
    let meta = CsumMeta::new(
        CsumState::Partial {
            start: setup.start,
            offset: setup.offset,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK.union(CsumFlags::DATA_VALID),
    )
    .unwrap_or(CsumMeta::NONE);
    DpdkRx {
        meta,
        verdict: plain.verdict,
    }
}

/// Checksum metadata to receive `ol_flags` (for handing packets to a DPDK
/// consumer), consuming the metadata. Claims no more than the metadata: IP
/// statuses are `UNKNOWN` (not tracked here).
pub fn meta_to_rx(meta: CsumMeta, encap: Encap) -> RxCsum {
    let mut rx = RxCsum::UNKNOWN;
    let flags = meta.flags();
    let validated = flags.intersects(CsumFlags::DATA_VALID.union(CsumFlags::CSUM_VALID));
    match meta.state() {
        CsumState::Partial { .. } => rx.l4 = RxStatus::NoneDataValid,
        CsumState::Unnecessary { level } => match encap {
            Encap::None | Encap::NoOuterChecksum => rx.l4 = RxStatus::Good,
            Encap::UdpTunnel(_) => {
                rx.outer_l4 = OuterL4Status::Good;
                if level.get() >= 1 {
                    rx.l4 = RxStatus::Good;
                }
            }
            Encap::GreWithChecksum => {
                if level.get() >= 1 {
                    rx.l4 = RxStatus::Good;
                }
            }
        },
        _ if validated => match encap {
            Encap::None | Encap::NoOuterChecksum => rx.l4 = RxStatus::Good,
            Encap::UdpTunnel(_) => rx.outer_l4 = OuterL4Status::Good,
            Encap::GreWithChecksum => {}
        },
        _ => {}
    }
    rx
}

/// DPDK transmit tunnel types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TunnelType {
    /// VXLAN.
    Vxlan,
    /// GRE.
    Gre,
    /// IP-in-IP.
    Ipip,
    /// GENEVE.
    Geneve,
    /// Generic UDP tunnel.
    Udp,
    /// Generic IP tunnel.
    Ip,
}

impl TunnelType {
    const fn bits(self) -> u64 {
        match self {
            TunnelType::Vxlan => ol::TX_TUNNEL_VXLAN,
            TunnelType::Gre => ol::TX_TUNNEL_GRE,
            TunnelType::Ipip => ol::TX_TUNNEL_IPIP,
            TunnelType::Geneve => ol::TX_TUNNEL_GENEVE,
            TunnelType::Udp => ol::TX_TUNNEL_UDP,
            TunnelType::Ip => ol::TX_TUNNEL_IP,
        }
    }

    const fn from_bits(bits: u64) -> Option<TunnelType> {
        match bits & ol::TX_TUNNEL_MASK {
            ol::TX_TUNNEL_VXLAN => Some(TunnelType::Vxlan),
            ol::TX_TUNNEL_GRE => Some(TunnelType::Gre),
            ol::TX_TUNNEL_IPIP => Some(TunnelType::Ipip),
            ol::TX_TUNNEL_GENEVE => Some(TunnelType::Geneve),
            ol::TX_TUNNEL_UDP => Some(TunnelType::Udp),
            ol::TX_TUNNEL_IP => Some(TunnelType::Ip),
            _ => None,
        }
    }
}

/// The outer headers of a tunnelled transmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OuterTx {
    /// Tunnel type.
    pub tunnel: TunnelType,
    /// Offset of the outer IP header (`outer_l2_len`).
    pub outer_l3: usize,
    /// Offset of the outer L4 / tunnel header (`outer_l2_len + outer_l3_len`).
    pub outer_l4: usize,
    /// Outer IP version.
    pub outer_net: Net,
    /// Ask the NIC for the outer IPv4 header checksum.
    pub outer_ip_csum: bool,
    /// Ask the NIC for the outer UDP checksum.
    pub outer_udp_csum: bool,
}

/// The mbuf transmit fields a checksum / segmentation request needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TxOffload {
    /// `ol_flags` TX bits.
    pub ol_flags: u64,
    /// `l2_len` (7 bits; for tunnels: outer L4 + tunnel + inner L2).
    pub l2_len: u16,
    /// `l3_len` (9 bits).
    pub l3_len: u16,
    /// `l4_len` (8 bits).
    pub l4_len: u16,
    /// `tso_segsz`.
    pub tso_segsz: u16,
    /// `outer_l2_len` (7 bits).
    pub outer_l2_len: u16,
    /// `outer_l3_len` (9 bits).
    pub outer_l3_len: u16,
}

fn bits_len(value: usize, bits: u32) -> Result<u16, BoundaryError> {
    let max = (1usize << bits) - 1;
    if value > max {
        return Err(BoundaryError::new(
            MetaField::DpdkLengths,
            MetaErrorKind::TooLarge { value, max },
        ));
    }
    Ok(value as u16)
}

/// Which pseudo-header seed a segmentation request carries.
///
/// Linux (and every `Partial` here) seeds the field with the full pseudo-header,
/// L4 length included. DPDK's `rte_ipv4_phdr_cksum` / `rte_ipv6_phdr_cksum`
/// leave the length out when `TX_TCP_SEG` or `TX_UDP_SEG` is set: the NIC adds
/// each segment's own length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeedLength {
    /// Length included (Linux, DPDK without segmentation).
    Included,
    /// Length left out (DPDK TSO / USO).
    Excluded,
}

/// Moves the seed of the Internet checksum at `layers.l4 + offset` from one
/// convention to the other (`csum::replace_seed` of the length word).
pub fn convert_seed(
    frame: &mut [u8],
    layers: &Layers,
    offset: usize,
    from: SeedLength,
    to: SeedLength,
) -> Result<(), BoundaryError> {
    if from == to {
        return Ok(());
    }
    if !layers_fit(frame.len(), layers) {
        return Err(BoundaryError::out_of_packet(
            MetaField::Packet,
            layers.end,
            frame.len(),
        ));
    }
    let len = (pseudo_len(frame, layers) as u32).to_be_bytes();
    let at = layers.l4.saturating_add(offset);
    let seed = field_at(frame, at).ok_or(BoundaryError::out_of_packet(
        MetaField::ChecksumSeed,
        at.saturating_add(2),
        frame.len(),
    ))?;
    let moved = match to {
        SeedLength::Excluded => csum::replace_seed(seed, &len, &[0; 4]),
        SeedLength::Included => csum::replace_seed(seed, &[0; 4], &len),
    };
    if let Some(slot) = frame.get_mut(at..at.saturating_add(2)) {
        slot.copy_from_slice(&moved.to_bytes());
    }
    Ok(())
}

/// Checksum metadata to an mbuf transmit request (what `skb_csum_hwoffload_help`
/// decides, in DPDK words), consuming the metadata. `layers` are those of the
/// header the checksum is in (the inner ones for a tunnel, from
/// [`wire::parse_ip_at`]).
///
/// `Partial` at the parsed transport header -> `TCP_CKSUM` / `UDP_CKSUM` /
/// `SCTP_CKSUM` (CRC32c) with `l2_len` / `l3_len`; a `Partial` elsewhere is
/// refused (DPDK has no arbitrary start/offset; fill it in software).
/// `None`, `Unnecessary`, `Complete` -> no L4 request (the field is already
/// filled). A super-packet adds `TCP_SEG` / `UDP_SEG`, `l4_len` and `tso_segsz`,
/// and its seed is rewritten to DPDK's length-less convention (the only write
/// to `frame`, after every check).
pub fn meta_to_tx(
    meta: CsumMeta,
    frame: &mut [u8],
    layers: &Layers,
    outer: Option<OuterTx>,
    gso: Option<SuperPacket>,
    ip_csum: bool,
) -> Result<TxOffload, BoundaryError> {
    if !layers_fit(frame.len(), layers) {
        return Err(BoundaryError::out_of_packet(
            MetaField::Packet,
            layers.end,
            frame.len(),
        ));
    }
    let mut tx = TxOffload::default();
    let flags = meta.flags();
    let l4 = match meta.state() {
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            if start != layers.l4 {
                return Err(BoundaryError::forbidden(
                    MetaField::State,
                    Rule::PartialNotAtTransport,
                ));
            }
            match (layers.transport, offset, kind) {
                (wire::Transport::Tcp, 16, PartialKind::Inet) => ol::TX_TCP_CKSUM,
                (wire::Transport::Udp, 6, PartialKind::Inet) => ol::TX_UDP_CKSUM,
                (wire::Transport::Sctp, 8, PartialKind::Crc32c) => ol::TX_SCTP_CKSUM,
                _ => {
                    return Err(BoundaryError::forbidden(
                        MetaField::State,
                        Rule::PartialNotAtTransport,
                    ));
                }
            }
        }
        _ if flags.contains(CsumFlags::CSUM_BLANK) => {
            return Err(BoundaryError::forbidden(
                MetaField::State,
                Rule::BlankWithoutOffsets,
            ));
        }
        _ => 0,
    };
    tx.ol_flags |= l4;
    tx.ol_flags |= match layers.net {
        Net::Ipv4 => ol::TX_IPV4 | if ip_csum { ol::TX_IP_CKSUM } else { 0 },
        Net::Ipv6 => ol::TX_IPV6,
    };
    tx.l3_len = bits_len(layers.l3_header_len(), 9)?;
    match outer {
        None => tx.l2_len = bits_len(layers.l3 - layers.l2, 7)?,
        Some(o) => {
            if o.outer_l3 > o.outer_l4 || o.outer_l4 > layers.l3 {
                return Err(BoundaryError::new(
                    MetaField::DpdkLengths,
                    MetaErrorKind::OutOfPacket {
                        value: o.outer_l4,
                        limit: layers.l3,
                    },
                ));
            }
            tx.outer_l2_len = bits_len(o.outer_l3, 7)?;
            tx.outer_l3_len = bits_len(o.outer_l4 - o.outer_l3, 9)?;
            tx.l2_len = bits_len(layers.l3 - o.outer_l4, 7)?;
            tx.ol_flags |= o.tunnel.bits();
            tx.ol_flags |= match o.outer_net {
                Net::Ipv4 => {
                    ol::TX_OUTER_IPV4
                        | if o.outer_ip_csum {
                            ol::TX_OUTER_IP_CKSUM
                        } else {
                            0
                        }
                }
                Net::Ipv6 => ol::TX_OUTER_IPV6,
            };
            if o.outer_udp_csum {
                tx.ol_flags |= ol::TX_OUTER_UDP_CKSUM;
            }
        }
    }
    if let Some(sp) = gso {
        if sp.gso_size == 0 {
            return Err(BoundaryError::new(MetaField::Gso, MetaErrorKind::Zero));
        }
        let seg = match (sp.kind, l4) {
            (GsoKind::TcpV4 | GsoKind::TcpV6, ol::TX_TCP_CKSUM) => ol::TX_TCP_SEG,
            (GsoKind::UdpL4, ol::TX_UDP_CKSUM) => ol::TX_UDP_SEG,
            (_, 0) => {
                return Err(BoundaryError::forbidden(
                    MetaField::Gso,
                    Rule::GsoWithoutChecksumState,
                ));
            }
            _ => {
                return Err(BoundaryError::forbidden(
                    MetaField::Gso,
                    Rule::GsoTypeNotExpressible,
                ));
            }
        };
        tx.ol_flags |= seg;
        tx.l4_len = bits_len(layers.payload - layers.l4, 8)?;
        tx.tso_segsz = sp.gso_size;
        let offset = if seg == ol::TX_TCP_SEG { 16 } else { 6 };
        convert_seed(
            frame,
            layers,
            offset,
            SeedLength::Included,
            SeedLength::Excluded,
        )?;
    }
    Ok(tx)
}

/// A transmit request received from a DPDK producer, as metadata.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub struct DpdkTxIn {
    /// `Partial` for an L4 request, `None` otherwise.
    pub meta: CsumMeta,
    /// Segmentation request: kind and `tso_segsz`.
    pub seg: Option<(GsoKind, u16)>,
}

/// An mbuf transmit request to checksum metadata (the inverse of
/// [`meta_to_tx`]), with the untrusted lengths bounds-checked against `frame`
/// and, when not tunnelled, against its parsed transport header. A segmentation
/// request's length-less seed is rewritten to the full one, so the returned
/// `Partial` keeps its contract (the only write, after every check).
pub fn tx_to_meta(
    tx: &TxOffload,
    frame: &mut [u8],
    link: LinkType,
) -> Result<DpdkTxIn, BoundaryError> {
    let f = tx.ol_flags;
    let tcp_seg = f & ol::TX_TCP_SEG != 0;
    let udp_seg = f & ol::TX_UDP_SEG != 0;
    let mut l4 = f & ol::TX_L4_MASK;
    if tcp_seg {
        if l4 != 0 && l4 != ol::TX_TCP_CKSUM {
            return Err(BoundaryError::mismatch(
                MetaField::DpdkOlFlags,
                ol::TX_TCP_CKSUM,
                l4,
            ));
        }
        l4 = ol::TX_TCP_CKSUM; // TCP_SEG implies TCP_CKSUM
    }
    if udp_seg && l4 != ol::TX_UDP_CKSUM {
        return Err(BoundaryError::forbidden(
            MetaField::DpdkOlFlags,
            Rule::SegmentationWithoutChecksum,
        ));
    }
    if tcp_seg && udp_seg {
        return Err(BoundaryError::unsupported(MetaField::DpdkOlFlags, f));
    }
    let (offset, kind) = match l4 {
        0 => {
            return Ok(DpdkTxIn {
                meta: CsumMeta::NONE,
                seg: None,
            });
        }
        ol::TX_TCP_CKSUM => (16, PartialKind::Inet),
        ol::TX_UDP_CKSUM => (6, PartialKind::Inet),
        _ => (8, PartialKind::Crc32c),
    };
    let tunnelled = f & ol::TX_TUNNEL_MASK != 0;
    if tunnelled && TunnelType::from_bits(f).is_none() {
        return Err(BoundaryError::unsupported(
            MetaField::DpdkOlFlags,
            f & ol::TX_TUNNEL_MASK,
        ));
    }
    let outer = if tunnelled {
        tx.outer_l2_len as usize + tx.outer_l3_len as usize
    } else {
        0
    };
    let start = outer + tx.l2_len as usize + tx.l3_len as usize;
    let width = if kind == PartialKind::Crc32c { 4 } else { 2 };
    if start + offset + width > frame.len() {
        return Err(BoundaryError::out_of_packet(
            MetaField::DpdkLengths,
            start + offset + width,
            frame.len(),
        ));
    }
    if !tunnelled {
        let l = wire::parse(frame, link)?;
        if l.l4 != start {
            return Err(BoundaryError::mismatch(
                MetaField::DpdkLengths,
                l.l4 as u64,
                start as u64,
            ));
        }
        let proto_ok = matches!(
            (l.transport, offset),
            (wire::Transport::Tcp, 16) | (wire::Transport::Udp, 6) | (wire::Transport::Sctp, 8)
        );
        if !proto_ok {
            return Err(BoundaryError::mismatch(
                MetaField::DpdkOlFlags,
                l.ip_proto as u64,
                l4 >> 52,
            ));
        }
    }
    let frame_ro: &[u8] = frame;
    let seg = if tcp_seg || udp_seg {
        if tx.tso_segsz == 0 {
            return Err(BoundaryError::new(
                MetaField::DpdkTsoSegsz,
                MetaErrorKind::Zero,
            ));
        }
        let kind = if udp_seg {
            GsoKind::UdpL4
        } else {
            match f & (ol::TX_IPV4 | ol::TX_IPV6) {
                ol::TX_IPV4 => GsoKind::TcpV4,
                ol::TX_IPV6 => GsoKind::TcpV6,
                other => return Err(BoundaryError::unsupported(MetaField::DpdkOlFlags, other)),
            }
        };
        // The headers the seed depends on: parse the IP header before `start`.
        let l3 = start.saturating_sub(tx.l3_len as usize);
        let ethertype = match frame_ro.get(l3).map(|b| b >> 4) {
            Some(6) => wire::consts::ethertype::IPV6,
            _ => wire::consts::ethertype::IPV4,
        };
        let l = wire::parse_ip_at(frame_ro, l3, ethertype, LinkType::RawIp, 0, [0; 2])?;
        if l.l4 != start {
            return Err(BoundaryError::mismatch(
                MetaField::DpdkLengths,
                l.l4 as u64,
                start as u64,
            ));
        }
        super::setup::check_udp_length(frame_ro, &l)?;
        convert_seed(
            frame,
            &l,
            offset,
            SeedLength::Excluded,
            SeedLength::Included,
        )?;
        Some((kind, tx.tso_segsz))
    } else {
        None
    };
    let meta = CsumMeta::new(
        CsumState::Partial {
            start,
            offset,
            kind,
        },
        CsumFlags::CSUM_BLANK.union(CsumFlags::DATA_VALID),
    )
    .unwrap_or(CsumMeta::NONE);
    Ok(DpdkTxIn { meta, seg })
}
