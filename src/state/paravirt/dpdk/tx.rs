//! Transmit, our side to DPDK: checksum metadata to an mbuf request, with the
//! seeds `rte_net_intel_cksum_prepare` would write.

use crate::csum::{self, Sum16};
use crate::state::paravirt::error::{BoundaryError, MetaErrorKind, MetaField, Rule};
use crate::state::paravirt::setup::{
    check_udp_length, field_at, layers_fit, pseudo_len, pseudo_seed, transport_csum_field,
};
use crate::state::{CsumFlags, CsumMeta, CsumState, Refused};
use crate::wire::{self, GsoKind, GsoParams, Layers, LinkType, Net, consts::ethertype};

use super::{OuterTx, TxOffload, bits_len, ol, validate_tx_offload};
use crate::state::paravirt::peer::check_padding;

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

impl SeedLength {
    /// The convention DPDK's prepare uses for a request: length-less under
    /// `TX_TCP_SEG`, and under `TX_UDP_SEG` as DPDK releases after 22.11 do
    /// (22.11's `rte_ipv4_phdr_cksum` tests `TX_TCP_SEG` only; a USO NIC adds
    /// each segment's length, so the later rule is the one the hardware needs).
    /// The same rule holds for the outer UDP seed (prepare passes `m->ol_flags`).
    pub const fn of_request(ol_flags: u64) -> SeedLength {
        if ol_flags & (ol::TX_TCP_SEG | ol::TX_UDP_SEG) != 0 {
            SeedLength::Excluded
        } else {
            SeedLength::Included
        }
    }
}

/// The pseudo-header seed of the transport at `layers.l4` in `length`'s
/// convention (`rte_ipv4_phdr_cksum` / `rte_ipv6_phdr_cksum`, with the L4
/// length Linux uses: the UDP length field, or the IP payload after extension
/// headers); `None` for a transport without one.
pub(super) fn seed_of(frame: &[u8], layers: &Layers, length: SeedLength) -> Option<Sum16> {
    let full = pseudo_seed(frame, layers)?;
    Some(match length {
        SeedLength::Included => full,
        SeedLength::Excluded => {
            let len = (pseudo_len(frame, layers) as u32).to_be_bytes();
            csum::replace_seed(full, &len, &[0; 4])
        }
    })
}

/// Writes `value` into the two bytes at `at` (callers checked the bounds).
pub(super) fn put(frame: &mut [u8], at: usize, value: Sum16) {
    if let Some(slot) = frame.get_mut(at..at.saturating_add(2)) {
        slot.copy_from_slice(&value.to_bytes());
    }
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
/// filled). An L4 request needs only zeros after the datagram (the NIC sums to
/// the end of the data). A super-packet adds `TCP_SEG` / `UDP_SEG`, `l4_len` and `tso_segsz`.
/// `ip_csum` asks for the IPv4 header checksum; IPv4 TSO always asks for it
/// (`rte_validate_tx_offload` refuses IPv4 TSO without it).
///
/// The frame is left as `rte_net_intel_cksum_prepare` would leave it, except
/// for IPv4 header checksums (prepare zeroes them; ours stay correct, and a
/// NIC asked to compute them overwrites them): the L4 seed in DPDK's
/// convention ([`SeedLength::of_request`]) and, with `outer_udp_csum`, the
/// outer UDP field holding the outer pseudo-header seed. A PMD's `tx_prepare`
/// after this writes the same values again. Every check runs before any write;
/// the request passes [`validate_tx_offload`]. A refusal hands `meta` back,
/// unchanged, beside the error.
pub fn meta_to_tx(
    meta: CsumMeta,
    frame: &mut [u8],
    layers: &Layers,
    outer: Option<OuterTx>,
    gso: Option<GsoParams>,
    ip_csum: bool,
) -> Result<TxOffload, Refused<BoundaryError>> {
    tx_request(&meta, frame, layers, outer, gso, ip_csum).map_err(|error| Refused { meta, error })
}

/// [`meta_to_tx`] on borrowed metadata.
fn tx_request(
    meta: &CsumMeta,
    frame: &mut [u8],
    layers: &Layers,
    outer: Option<OuterTx>,
    gso: Option<GsoParams>,
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
    let l4 = l4_request(meta, layers)?;
    if let CsumState::Partial { kind, .. } = meta.state() {
        check_padding(frame, layers, kind)?;
    }
    tx.ol_flags |= l4;
    let seg = match gso {
        Some(sp) => Some(segmentation(sp, l4)?),
        None => None,
    };
    let tso_v4 = seg == Some(ol::TX_TCP_SEG) && layers.net == Net::Ipv4;
    tx.ol_flags |= match layers.net {
        Net::Ipv4 if ip_csum || tso_v4 => ol::TX_IPV4 | ol::TX_IP_CKSUM,
        Net::Ipv4 => ol::TX_IPV4,
        Net::Ipv6 => ol::TX_IPV6,
    };
    tx.l3_len = bits_len(layers.l3_header_len(), 9)?;
    let outer_udp = match outer {
        None => {
            tx.l2_len = bits_len(layers.l3 - layers.l2, 7)?;
            None
        }
        Some(o) => outer_request(&mut tx, o, layers, frame)?,
    };
    if let (Some(bits), Some(sp)) = (seg, gso) {
        tx.ol_flags |= bits;
        tx.l4_len = bits_len(layers.payload - layers.l4, 8)?;
        tx.tso_segsz = sp.gso_size;
    }
    validate_tx_offload(&tx)?;
    let length = SeedLength::of_request(tx.ol_flags);
    // Writes, after every check.
    if let Some(outer_layers) = outer_udp {
        let seed = seed_of(frame, &outer_layers, length).ok_or(BoundaryError::forbidden(
            MetaField::Packet,
            Rule::BlankOnUnsupportedProtocol,
        ))?;
        put(frame, outer_layers.l4 + wire::udp::CHECKSUM_OFFSET, seed);
    }
    if seg.is_some() {
        let offset = if l4 == ol::TX_TCP_CKSUM {
            wire::tcp::CHECKSUM_OFFSET
        } else {
            wire::udp::CHECKSUM_OFFSET
        };
        convert_seed(frame, layers, offset, SeedLength::Included, length)?;
    }
    Ok(tx)
}

/// The L4 request a state asks for: a `Partial` exactly at the parsed
/// transport's checksum field, nothing for a filled field.
fn l4_request(meta: &CsumMeta, layers: &Layers) -> Result<u64, BoundaryError> {
    let not_at_transport = BoundaryError::forbidden(MetaField::State, Rule::PartialNotAtTransport);
    match meta.state() {
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            if start != layers.l4 {
                return Err(not_at_transport);
            }
            let request = match layers.transport {
                wire::Transport::Tcp => ol::TX_TCP_CKSUM,
                wire::Transport::Udp => ol::TX_UDP_CKSUM,
                wire::Transport::Sctp => ol::TX_SCTP_CKSUM,
                wire::Transport::Icmp
                | wire::Transport::Icmpv6
                | wire::Transport::Gre
                | wire::Transport::Ipip
                | wire::Transport::Ipv6InIp
                | wire::Transport::Other(_) => return Err(not_at_transport),
            };
            if transport_csum_field(layers.transport) != Some((offset, kind)) {
                return Err(not_at_transport);
            }
            Ok(request)
        }
        CsumState::None | CsumState::Unnecessary { .. } | CsumState::Complete { .. }
            if meta.flags().contains(CsumFlags::CSUM_BLANK) =>
        {
            Err(BoundaryError::forbidden(
                MetaField::State,
                Rule::BlankWithoutOffsets,
            ))
        }
        CsumState::None | CsumState::Unnecessary { .. } | CsumState::Complete { .. } => Ok(0),
    }
}

/// The segmentation bit a super-packet needs on top of the L4 request.
fn segmentation(sp: GsoParams, l4: u64) -> Result<u64, BoundaryError> {
    if sp.gso_size == 0 {
        return Err(BoundaryError::new(MetaField::Gso, MetaErrorKind::Zero));
    }
    match (sp.kind, l4) {
        (GsoKind::TcpV4 | GsoKind::TcpV6, ol::TX_TCP_CKSUM) => Ok(ol::TX_TCP_SEG),
        (GsoKind::UdpL4, ol::TX_UDP_CKSUM) => Ok(ol::TX_UDP_SEG),
        (_, 0) => Err(BoundaryError::forbidden(
            MetaField::Gso,
            Rule::GsoWithoutChecksumState,
        )),
        // Every kind named: a new one must say which DPDK bit it is.
        (GsoKind::TcpV4 | GsoKind::TcpV6 | GsoKind::UdpL4 | GsoKind::Ufo, _) => Err(
            BoundaryError::forbidden(MetaField::Gso, Rule::GsoTypeNotExpressible),
        ),
    }
}

/// Fills the outer lengths and flags of a tunnelled request; with the outer
/// UDP checksum asked for, returns the parsed outer layers whose UDP field
/// then gets the outer seed (checked here: IP at `outer_l3` of `outer_net`,
/// UDP at `outer_l4`, UDP length = IP payload, inner header inside it).
fn outer_request(
    tx: &mut TxOffload,
    o: OuterTx,
    layers: &Layers,
    frame: &[u8],
) -> Result<Option<Layers>, BoundaryError> {
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
        Net::Ipv4 if o.outer_ip_csum => ol::TX_OUTER_IPV4 | ol::TX_OUTER_IP_CKSUM,
        Net::Ipv4 => ol::TX_OUTER_IPV4,
        Net::Ipv6 => ol::TX_OUTER_IPV6,
    };
    if !o.outer_udp_csum {
        return Ok(None);
    }
    tx.ol_flags |= ol::TX_OUTER_UDP_CKSUM;
    let et = match o.outer_net {
        Net::Ipv4 => ethertype::IPV4,
        Net::Ipv6 => ethertype::IPV6,
    };
    let outer = wire::parse_ip_at(frame, o.outer_l3, et, LinkType::Ethernet, 0, [0; 2])?;
    if outer.l4 != o.outer_l4 || outer.transport != wire::Transport::Udp {
        return Err(BoundaryError::mismatch(
            MetaField::DpdkLengths,
            outer.l4 as u64,
            o.outer_l4 as u64,
        ));
    }
    if layers.end > outer.end {
        return Err(BoundaryError::out_of_packet(
            MetaField::Packet,
            layers.end,
            outer.end,
        ));
    }
    check_udp_length(frame, &outer)?;
    Ok(Some(outer))
}
