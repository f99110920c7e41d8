//! Where a plain packet's L4 checksum lives and what its pseudo-header seed is:
//! the part of Linux `skb_checksum_setup` every boundary without offsets needs
//! (Xen `csum_blank`, AF_PACKET `CSUMNOTREADY`, virtio `RSC_INFO`).

use crate::csum::{self, Sum16, Wsum};
use crate::state::PartialKind;
use crate::wire::{self, Layers, LinkType, Net, Transport};

use super::error::{BoundaryError, MetaErrorKind, MetaField, Rule};

/// Offset of the checksum field inside a transport header and which sum it holds,
/// matched on the parsed protocol (never guessed from the network layer alone).
pub const fn transport_csum_field(transport: Transport) -> Option<(usize, PartialKind)> {
    match transport {
        Transport::Tcp => Some((16, PartialKind::Inet)),
        Transport::Udp => Some((6, PartialKind::Inet)),
        Transport::Icmp | Transport::Icmpv6 => Some((2, PartialKind::Inet)),
        Transport::Sctp => Some((8, PartialKind::Crc32c)),
        _ => None,
    }
}

/// True when `layers` is ordered and inside `len` bytes (`l2 <= l3 <= l4 <=
/// payload <= end <= len`), as every value from [`wire::parse`] is. Layers
/// handed in by a caller are checked with it before any offset arithmetic.
pub const fn layers_fit(len: usize, layers: &Layers) -> bool {
    layers.l2 <= layers.l3
        && layers.l3 <= layers.l4
        && layers.l4 <= layers.payload
        && layers.payload <= layers.end
        && layers.end <= len
}

fn unfit(len: usize, layers: &Layers) -> BoundaryError {
    BoundaryError::out_of_packet(MetaField::Packet, layers.end, len)
}

/// The L4 length the pseudo-header counts: the UDP length field for UDP (when not
/// the jumbogram 0), otherwise the IP payload length.
pub fn pseudo_len(frame: &[u8], layers: &Layers) -> usize {
    if layers.transport == Transport::Udp
        && let Some(&[a, b]) = frame.get(layers.l4 + 4..layers.l4 + 6)
    {
        let ulen = u16::from_be_bytes([a, b]) as usize;
        if ulen != 0 {
            return ulen;
        }
    }
    layers.end.saturating_sub(layers.l4)
}

/// A `Partial` sums from the transport header to the end of the IP datagram, so
/// a UDP length that disagrees with the IP length (trailing bytes inside the
/// datagram) would make the filled checksum cover the wrong bytes: refused.
pub fn check_udp_length(frame: &[u8], layers: &Layers) -> Result<(), BoundaryError> {
    if !layers_fit(frame.len(), layers) {
        return Err(unfit(frame.len(), layers));
    }
    if layers.transport != Transport::Udp {
        return Ok(());
    }
    let ulen = pseudo_len(frame, layers);
    if ulen != layers.l4_len() {
        return Err(BoundaryError::mismatch(
            MetaField::Packet,
            layers.l4_len() as u64,
            ulen as u64,
        ));
    }
    Ok(())
}

/// The unfolded pseudo-header sum of the transport at `layers.l4` (zero for
/// ICMPv4, which has none); `None` for transports without an Internet checksum.
pub fn pseudo_sum(frame: &[u8], layers: &Layers) -> Option<Wsum> {
    if !layers_fit(frame.len(), layers) {
        return None;
    }
    let len = pseudo_len(frame, layers) as u32;
    match layers.transport {
        Transport::Icmp => Some(Wsum::ZERO),
        Transport::Tcp | Transport::Udp | Transport::Icmpv6 => match layers.net {
            Net::Ipv4 => {
                let src: [u8; 4] = frame
                    .get(layers.pseudo_src..layers.pseudo_src + 4)?
                    .try_into()
                    .ok()?;
                let dst: [u8; 4] = frame
                    .get(layers.pseudo_dst..layers.pseudo_dst + 4)?
                    .try_into()
                    .ok()?;
                Some(csum::pseudo_v4(src, dst, layers.ip_proto, len, Wsum::ZERO))
            }
            Net::Ipv6 => {
                let src: &[u8; 16] = frame
                    .get(layers.pseudo_src..layers.pseudo_src + 16)?
                    .try_into()
                    .ok()?;
                let dst: &[u8; 16] = frame
                    .get(layers.pseudo_dst..layers.pseudo_dst + 16)?
                    .try_into()
                    .ok()?;
                Some(csum::pseudo_v6(src, dst, layers.ip_proto, len, Wsum::ZERO))
            }
        },
        _ => None,
    }
}

/// The value a `CHECKSUM_PARTIAL` packet holds in its checksum field: the
/// folded, *not* complemented pseudo-header sum (`~csum_tcpudp_magic(..., 0)`).
pub fn pseudo_seed(frame: &[u8], layers: &Layers) -> Option<Sum16> {
    pseudo_sum(frame, layers).map(|s| Sum16::from_raw(!csum::fold(s).raw()))
}

/// The two bytes at `at` as a checksum field.
pub fn field_at(frame: &[u8], at: usize) -> Option<Sum16> {
    match frame.get(at..at.checked_add(2)?) {
        Some(&[a, b]) => Some(Sum16::from_bytes([a, b])),
        _ => None,
    }
}

/// What was done about the pseudo-header seed a `Partial` claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeedCheck {
    /// The field holds exactly the seed of the parsed pseudo-header.
    Verified,
    /// The field was rewritten with the seed (Linux `recalculate_partial_csum`).
    Recalculated,
    /// Not checked, and why.
    Skipped(SeedSkip),
}

/// Why a seed was not checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeedSkip {
    /// The policy trusts the peer's seed.
    PolicyTrust,
    /// `csum_start` is deeper than the parsed transport (a tunnel's inner header).
    StartNotAtTransport,
    /// The packet did not parse; only the bounds were checked.
    Unparsed,
    /// The transport has no pseudo-header rule this crate knows (GRE, others).
    UnknownTransport,
}

/// A plain packet's checksum location, found by parsing (`skb_checksum_setup`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChecksumSetup {
    /// The parsed layers.
    pub layers: Layers,
    /// `csum_start`: the transport header.
    pub start: usize,
    /// `csum_offset`: 16 for TCP, 6 for UDP.
    pub offset: usize,
}

/// Finds the checksum of a plain IPv4/IPv6 TCP or UDP packet, as Linux
/// `skb_checksum_setup` does for Xen and other offset-less boundaries.
///
/// Fragments and other protocols are refused: their blank field cannot be filled.
pub fn checksum_setup(frame: &[u8], link: LinkType) -> Result<ChecksumSetup, BoundaryError> {
    let layers = wire::parse(frame, link)?;
    if layers.fragment.is_fragment {
        return Err(BoundaryError::forbidden(
            MetaField::Packet,
            Rule::BlankOnUnsupportedProtocol,
        ));
    }
    let offset = match layers.transport {
        Transport::Tcp => 16,
        Transport::Udp => 6,
        _ => {
            return Err(BoundaryError::new(
                MetaField::Packet,
                MetaErrorKind::Forbidden(Rule::BlankOnUnsupportedProtocol),
            ));
        }
    };
    check_udp_length(frame, &layers)?;
    Ok(ChecksumSetup {
        layers,
        start: layers.l4,
        offset,
    })
}

/// Compares the field at `start + offset` with the parsed pseudo-header seed.
pub fn check_seed(
    frame: &[u8],
    layers: &Layers,
    start: usize,
    offset: usize,
) -> Result<SeedCheck, BoundaryError> {
    if !layers_fit(frame.len(), layers) {
        return Err(unfit(frame.len(), layers));
    }
    if start != layers.l4 {
        return Ok(SeedCheck::Skipped(SeedSkip::StartNotAtTransport));
    }
    let Some(seed) = pseudo_seed(frame, layers) else {
        return Ok(SeedCheck::Skipped(SeedSkip::UnknownTransport));
    };
    let at = start.saturating_add(offset);
    let found = field_at(frame, at).ok_or(BoundaryError::out_of_packet(
        MetaField::ChecksumSeed,
        at.saturating_add(2),
        frame.len(),
    ))?;
    if found == seed {
        Ok(SeedCheck::Verified)
    } else {
        Err(BoundaryError::mismatch(
            MetaField::ChecksumSeed,
            seed.to_be_u16() as u64,
            found.to_be_u16() as u64,
        ))
    }
}

/// Writes the pseudo-header seed into the field of a plain TCP/UDP packet
/// (Linux `skb_checksum_setup(skb, true)`, the `recalculate_partial_csum` path).
pub fn write_seed(frame: &mut [u8], setup: &ChecksumSetup) -> Result<Sum16, BoundaryError> {
    let seed = pseudo_seed(frame, &setup.layers).ok_or(BoundaryError::forbidden(
        MetaField::Packet,
        Rule::BlankOnUnsupportedProtocol,
    ))?;
    let at = setup.start.saturating_add(setup.offset);
    let len = frame.len();
    let slot = frame
        .get_mut(at..at.saturating_add(2))
        .ok_or(BoundaryError::out_of_packet(
            MetaField::ChecksumSeed,
            at.saturating_add(2),
            len,
        ))?;
    slot.copy_from_slice(&seed.to_bytes());
    Ok(seed)
}
