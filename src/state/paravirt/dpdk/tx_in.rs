//! Transmit, DPDK to our side: an application's mbuf request to checksum
//! metadata, checked against DPDK's rules and against the packet.

use crate::state::paravirt::error::{BoundaryError, MetaField, Rule};
use crate::state::paravirt::setup::{
    SeedCheck, SeedSkip, check_udp_length, field_at, transport_csum_field,
};
use crate::state::{CsumFlags, CsumMeta, CsumState, PartialKind};
use crate::wire::GsoKind;
use crate::wire::{self, Layers, LinkType, Net, consts::ethertype};

use super::tx::{SeedLength, put, seed_of};
use super::{TunnelType, TxOffload, ol, validate_tx_offload};
use crate::state::paravirt::peer::check_padding;

/// What [`tx_to_meta`] does about the L4 field of an accepted L4 request.
///
/// A DPDK application sets flags and lengths only; the pseudo-header seed is
/// written later by the port's `rte_eth_tx_prepare` (for Intel NICs
/// `rte_net_intel_cksum_prepare`), so before that the field may hold anything.
/// A `Partial` promises the seed, so it is either checked or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxSeedMode {
    /// The field must already hold the seed `rte_net_intel_cksum_prepare`
    /// writes (length-less under segmentation, [`SeedLength::of_request`];
    /// under `TX_UDP_SEG` 22.11's full-length seed is accepted too); otherwise
    /// a [`MetaField::ChecksumSeed`] mismatch. Use it after `tx_prepare` ran.
    Verify,
    /// Write the seed into the caller's bytes, as `rte_net_intel_cksum_prepare`
    /// does (in the `Partial`'s full-length convention). Use it for an mbuf
    /// straight from the application.
    Prepare,
}

/// Header checksums the request asks the NIC for that [`CsumMeta`] does not
/// carry (it tracks one L4 checksum): whoever sends the frame without this NIC
/// computes them, IPv4 header checksums as Linux always does, the outer UDP
/// one after the inner `Partial` is filled or by `encap::lco_csum`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct NicHeaderCsums {
    /// `TX_IP_CKSUM`: the (inner) IPv4 header checksum.
    pub ip: bool,
    /// `TX_OUTER_IP_CKSUM`: the outer IPv4 header checksum.
    pub outer_ip: bool,
    /// `TX_OUTER_UDP_CKSUM`: the outer UDP checksum.
    pub outer_udp: bool,
}

/// A transmit request received from a DPDK producer, as metadata.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub struct DpdkTxIn {
    /// `Partial` for an L4 request, `None` otherwise.
    pub meta: CsumMeta,
    /// Segmentation request: kind and `tso_segsz`.
    pub seg: Option<(GsoKind, u16)>,
    /// What was done about the seed: `Verified` ([`TxSeedMode::Verify`]),
    /// `Recalculated` ([`TxSeedMode::Prepare`]), `Skipped` without an Internet
    /// checksum request (SCTP's CRC32c has no seed; no L4 request at all).
    pub seed: SeedCheck,
    /// The header checksums left to the NIC.
    pub nic: NicHeaderCsums,
}

/// The L4 checksum a request asks for, segmentation folded in, and the
/// segmentation kind (this crate's rules on top of DPDK's: `TX_TCP_SEG` means
/// TCP, `TX_UDP_SEG` needs `TX_UDP_CKSUM`, not both).
fn l4_and_seg(f: u64) -> Result<(u64, Option<GsoKind>), BoundaryError> {
    let tcp_seg = f & ol::TX_TCP_SEG != 0;
    let udp_seg = f & ol::TX_UDP_SEG != 0;
    let l4 = f & ol::TX_L4_MASK;
    if tcp_seg && udp_seg {
        return Err(BoundaryError::unsupported(MetaField::DpdkOlFlags, f));
    }
    if tcp_seg {
        if l4 != 0 && l4 != ol::TX_TCP_CKSUM {
            return Err(BoundaryError::mismatch(
                MetaField::DpdkOlFlags,
                ol::TX_TCP_CKSUM,
                l4,
            ));
        }
        // TCP_SEG implies TCP_CKSUM.
        let kind = if f & ol::TX_IPV4 != 0 {
            GsoKind::TcpV4
        } else {
            GsoKind::TcpV6
        };
        return Ok((ol::TX_TCP_CKSUM, Some(kind)));
    }
    if udp_seg {
        if l4 != ol::TX_UDP_CKSUM {
            return Err(BoundaryError::forbidden(
                MetaField::DpdkOlFlags,
                Rule::SegmentationWithoutChecksum,
            ));
        }
        return Ok((l4, Some(GsoKind::UdpL4)));
    }
    Ok((l4, None))
}

/// An mbuf transmit request to checksum metadata (the inverse of
/// [`meta_to_tx`](super::meta_to_tx)); the IPv4 and outer checksums asked of
/// the NIC come back in [`NicHeaderCsums`].
///
/// Refused, frame unchanged:
/// - whatever [`validate_tx_offload`] refuses (DPDK's `-EINVAL`);
/// - an undefined tunnel type; segmentation that is not `TX_TCP_SEG` on TCP or
///   `TX_UDP_SEG` with `TX_UDP_CKSUM`, or has `tso_segsz` 0;
/// - headers past the frame (`rte_net_intel_cksum_prepare`'s `-ENOTSUP`; the
///   outer lengths count when `TX_OUTER_IPV4` / `TX_OUTER_IPV6` is set, as there);
/// - with an L4 request, one that is not the packet: an IP header at
///   `l2_len` (after the outer lengths with outer flags; without them the
///   frame's own, as parsed) of the one version flagged, `l3_len` reaching its
///   transport, the requested protocol, no fragment, UDP length = IP payload,
///   no bytes after the datagram the NIC would sum in, `l4_len` the header
///   length under segmentation (the tunnel header between outer L4 and inner
///   L2 is not parsed: DPDK folds it into `l2_len`);
/// - under [`TxSeedMode::Verify`], a field that is not DPDK's seed.
///
/// The returned `Partial` holds the full (Linux) seed, written by
/// [`TxSeedMode::Prepare`] or converted from DPDK's length-less one; no other
/// byte changes.
pub fn tx_to_meta(
    tx: &TxOffload,
    frame: &mut [u8],
    link: LinkType,
    mode: TxSeedMode,
) -> Result<DpdkTxIn, BoundaryError> {
    validate_tx_offload(tx)?;
    let f = tx.ol_flags;
    let has = |bits: u64| f & bits != 0;
    let (l4, seg) = l4_and_seg(f)?;
    if has(ol::TX_TUNNEL_MASK) && TunnelType::from_bits(f).is_none() {
        return Err(BoundaryError::unsupported(
            MetaField::DpdkOlFlags,
            f & ol::TX_TUNNEL_MASK,
        ));
    }
    if seg.is_some() && tx.tso_segsz == 0 {
        return Err(BoundaryError::forbidden(
            MetaField::DpdkTsoSegsz,
            Rule::DpdkTsoWithoutSegmentSize,
        ));
    }
    let outer = if has(ol::TX_OUTER_IPV4 | ol::TX_OUTER_IPV6) {
        usize::from(tx.outer_l2_len) + usize::from(tx.outer_l3_len)
    } else {
        0
    };
    let l3 = outer + usize::from(tx.l2_len);
    let start = l3 + usize::from(tx.l3_len);
    let prepared = ol::TX_IP_CKSUM
        | ol::TX_L4_MASK
        | ol::TX_TCP_SEG
        | ol::TX_OUTER_IP_CKSUM
        | ol::TX_OUTER_UDP_CKSUM;
    let headers_end = start + usize::from(tx.l4_len);
    if has(prepared) && headers_end > frame.len() {
        return Err(BoundaryError::out_of_packet(
            MetaField::DpdkLengths,
            headers_end,
            frame.len(),
        ));
    }
    let nic = NicHeaderCsums {
        ip: has(ol::TX_IP_CKSUM),
        outer_ip: has(ol::TX_OUTER_IP_CKSUM),
        outer_udp: has(ol::TX_OUTER_UDP_CKSUM),
    };
    if l4 == 0 {
        return Ok(DpdkTxIn {
            meta: CsumMeta::NONE,
            seg: None,
            seed: SeedCheck::Skipped(SeedSkip::UnknownTransport),
            nic,
        });
    }
    let layers = locate(tx, frame, link, outer != 0, l3)?;
    check_request(tx, frame, &layers, l4, seg, start)?;
    let Some((offset, kind)) = transport_csum_field(layers.transport) else {
        return Err(BoundaryError::mismatch(
            MetaField::DpdkOlFlags,
            u64::from(layers.ip_proto),
            l4 >> 52,
        ));
    };
    let seed = match kind {
        PartialKind::Crc32c => SeedCheck::Skipped(SeedSkip::UnknownTransport),
        PartialKind::Inet => seed_step(frame, &layers, offset, f, mode)?,
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
    Ok(DpdkTxIn {
        meta,
        seg: seg.map(|k| (k, tx.tso_segsz)),
        seed,
        nic,
    })
}

/// The IP header the request points at (`l3`), of the version its one IP flag
/// names; without outer flags it must be the frame's own (parsed from `link`).
fn locate(
    tx: &TxOffload,
    frame: &[u8],
    link: LinkType,
    tunnelled: bool,
    l3: usize,
) -> Result<Layers, BoundaryError> {
    let net = match tx.ol_flags & (ol::TX_IPV4 | ol::TX_IPV6) {
        ol::TX_IPV4 => Net::Ipv4,
        ol::TX_IPV6 => Net::Ipv6,
        // Neither cannot reach here: `validate_tx_offload` refused it.
        _ => {
            return Err(BoundaryError::forbidden(
                MetaField::DpdkOlFlags,
                Rule::DpdkBothIpVersions,
            ));
        }
    };
    let layers = if tunnelled {
        let et = match net {
            Net::Ipv4 => ethertype::IPV4,
            Net::Ipv6 => ethertype::IPV6,
        };
        wire::parse_ip_at(frame, l3, et, link, 0, [0; 2])?
    } else {
        wire::parse(frame, link)?
    };
    if layers.l3 != l3 {
        return Err(BoundaryError::mismatch(
            MetaField::DpdkLengths,
            layers.l3 as u64,
            l3 as u64,
        ));
    }
    if layers.net != net {
        let wanted = match layers.net {
            Net::Ipv4 => ol::TX_IPV4,
            Net::Ipv6 => ol::TX_IPV6,
        };
        return Err(BoundaryError::mismatch(
            MetaField::DpdkOlFlags,
            wanted,
            tx.ol_flags & (ol::TX_IPV4 | ol::TX_IPV6),
        ));
    }
    Ok(layers)
}

/// The rest of the request against the located header: `l3_len`, protocol,
/// fragment, UDP length, `l4_len` under segmentation.
fn check_request(
    tx: &TxOffload,
    frame: &[u8],
    layers: &Layers,
    l4: u64,
    seg: Option<GsoKind>,
    start: usize,
) -> Result<(), BoundaryError> {
    if layers.l4 != start {
        return Err(BoundaryError::mismatch(
            MetaField::DpdkLengths,
            layers.l4 as u64,
            start as u64,
        ));
    }
    let transport = match l4 {
        ol::TX_TCP_CKSUM => wire::Transport::Tcp,
        ol::TX_UDP_CKSUM => wire::Transport::Udp,
        _ => wire::Transport::Sctp,
    };
    if layers.transport != transport {
        return Err(BoundaryError::mismatch(
            MetaField::DpdkOlFlags,
            u64::from(layers.ip_proto),
            l4 >> 52,
        ));
    }
    if layers.fragment.is_fragment {
        return Err(BoundaryError::forbidden(
            MetaField::Packet,
            Rule::DpdkL4OnFragment,
        ));
    }
    check_udp_length(frame, layers)?;
    let kind = if transport == wire::Transport::Sctp {
        PartialKind::Crc32c
    } else {
        PartialKind::Inet
    };
    check_padding(frame, layers, kind)?;
    let header = layers.payload - layers.l4;
    if seg.is_some() && usize::from(tx.l4_len) != header {
        return Err(BoundaryError::mismatch(
            MetaField::DpdkLengths,
            header as u64,
            u64::from(tx.l4_len),
        ));
    }
    Ok(())
}

/// Verifies or writes the seed of the Internet checksum at `layers.l4 + offset`,
/// leaving the full (Linux) seed in the field.
fn seed_step(
    frame: &mut [u8],
    layers: &Layers,
    offset: usize,
    f: u64,
    mode: TxSeedMode,
) -> Result<SeedCheck, BoundaryError> {
    let at = layers.l4 + offset;
    let unsupported = BoundaryError::forbidden(MetaField::Packet, Rule::BlankOnUnsupportedProtocol);
    let full = seed_of(frame, layers, SeedLength::Included).ok_or(unsupported)?;
    if mode == TxSeedMode::Prepare {
        put(frame, at, full);
        return Ok(SeedCheck::Recalculated);
    }
    let found = field_at(frame, at).ok_or(BoundaryError::out_of_packet(
        MetaField::ChecksumSeed,
        at + 2,
        frame.len(),
    ))?;
    let dpdk = SeedLength::of_request(f);
    let expected = seed_of(frame, layers, dpdk).ok_or(unsupported)?;
    // 22.11 writes the full seed under UDP_SEG (its phdr rule tests TCP_SEG only).
    let full_ok = dpdk == SeedLength::Included || f & ol::TX_UDP_SEG != 0;
    if found == full && full_ok {
        return Ok(SeedCheck::Verified);
    }
    if found == expected {
        put(frame, at, full);
        return Ok(SeedCheck::Verified);
    }
    Err(BoundaryError::mismatch(
        MetaField::ChecksumSeed,
        u64::from(expected.to_be_u16()),
        u64::from(found.to_be_u16()),
    ))
}
