//! Where the checksum of the packet's L4 layer is and what it covers.

use super::outcome::{Span, StateError};
use super::packet::Packet;
use crate::csum::{self, Sum16, Wsum};
use crate::wire::{Layers, Net, Transport};

/// The kind of checksum an L4 layer carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A 16-bit Internet checksum at `field`; `with_pseudo` false when the
    /// protocol has no pseudo-header (ICMPv4, GRE).
    Inet {
        field: usize,
        with_pseudo: bool,
        /// TCP, UDP or GRE-with-C: counted by `csum_level`. ICMP is not.
        counted: bool,
        /// UDP (zero means "no checksum"; a computed 0 is sent as 0xFFFF).
        udp: bool,
    },
    /// SCTP CRC32c at `field` (4 bytes, little-endian).
    Crc32c { field: usize },
    /// GRE without the C bit.
    None,
}

/// One L4 checksum: the layer `[l4, end)` and its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    pub l4: usize,
    pub end: usize,
    pub kind: Kind,
}

impl Site {
    /// The 16-bit field value (Inet only; bounds were checked by `of`).
    pub(crate) fn field(&self, bytes: &[u8]) -> Option<Sum16> {
        match self.kind {
            Kind::Inet { field, .. } => match bytes.get(field..field + 2) {
                Some(&[a, b]) => Some(Sum16::from_bytes([a, b])),
                _ => None,
            },
            _ => None,
        }
    }

    /// The pseudo-header sum (zero for protocols without one), computed only
    /// when a check needs it.
    pub(crate) fn pseudo(&self, pkt: &Packet<'_>) -> Wsum {
        match self.kind {
            Kind::Inet {
                with_pseudo: true, ..
            } => {
                let l = pkt.layers();
                // `Packet` guarantees the pseudo-header addresses are in bounds.
                pseudo(pkt.bytes(), l, l.ip_proto, self.end - self.l4).unwrap_or(Wsum::ZERO)
            }
            _ => Wsum::ZERO,
        }
    }

    /// True when this is a UDP checksum field holding 0.
    pub(crate) fn zero_udp(&self, bytes: &[u8]) -> bool {
        matches!(self.kind, Kind::Inet { udp: true, .. })
            && self.field(bytes).is_some_and(|f| f.is_zero())
    }
}

fn addr4(b: &[u8], at: usize) -> Option<[u8; 4]> {
    b.get(at..at + 4)?.try_into().ok()
}

fn addr16(b: &[u8], at: usize) -> Option<[u8; 16]> {
    b.get(at..at + 16)?.try_into().ok()
}

/// The pseudo-header sum of the layers for `proto` over `len` bytes.
pub(crate) fn pseudo(b: &[u8], l: &Layers, proto: u8, len: usize) -> Option<Wsum> {
    let len = u32::try_from(len).ok()?;
    Some(match l.net {
        Net::Ipv4 => csum::pseudo_v4(
            addr4(b, l.pseudo_src)?,
            addr4(b, l.pseudo_dst)?,
            proto,
            len,
            Wsum::ZERO,
        ),
        Net::Ipv6 => csum::pseudo_v6(
            &addr16(b, l.pseudo_src)?,
            &addr16(b, l.pseudo_dst)?,
            proto,
            len,
            Wsum::ZERO,
        ),
    })
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    match b.get(at..at + 2) {
        Some(&[x, y]) => Some(u16::from_be_bytes([x, y])),
        _ => None,
    }
}

/// GRE flag: checksum present.
const GRE_C: u16 = 0x8000;

/// Finds the checksum of the packet's L4 layer (refuses fragments and layers
/// without a checksum model).
pub(crate) fn of(pkt: &Packet<'_>) -> Result<Site, StateError> {
    if pkt.layers().fragment.is_fragment {
        return Err(StateError::Fragment);
    }
    of_unchecked_fragment(pkt)
}

/// [`of`] for a first fragment too (the field is where it is; its checksum
/// covers the whole datagram, so only incremental updates may use it).
pub(crate) fn of_unchecked_fragment(pkt: &Packet<'_>) -> Result<Site, StateError> {
    let l = pkt.layers();
    let b = pkt.bytes();
    if l.fragment.offset != 0 {
        return Err(StateError::Fragment);
    }
    let oob = |offset| StateError::OutOfBounds {
        what: Span::ChecksumField,
        offset,
        len: b.len(),
    };
    let l4 = l.l4;
    let mut end = l.end;
    let inet = |off: usize, counted, udp, with_pseudo: bool, end: usize| {
        let field = l4 + off;
        if field + 2 > end {
            return Err(oob(field + 2));
        }
        Ok(Kind::Inet {
            field,
            with_pseudo,
            counted,
            udp,
        })
    };
    let kind = match (l.net, l.transport) {
        (_, Transport::Tcp) => inet(16, true, false, true, end)?,
        (_, Transport::Udp) => {
            let ulen = be16(b, l4 + 4).ok_or(oob(l4 + 6))? as usize;
            if ulen >= 8 && l4 + ulen <= end {
                end = l4 + ulen; // udp_rcv trims to the UDP length
            }
            inet(6, true, true, true, end)?
        }
        (Net::Ipv4, Transport::Icmp) => inet(2, false, false, false, end)?,
        (Net::Ipv6, Transport::Icmpv6) => inet(2, false, false, true, end)?,
        (_, Transport::Gre) => {
            let flags = be16(b, l4).ok_or(oob(l4 + 2))?;
            if flags & GRE_C != 0 {
                inet(4, true, false, false, end)?
            } else {
                Kind::None
            }
        }
        (_, Transport::Sctp) => {
            let field = l4 + 8;
            if field + 4 > end {
                return Err(oob(field + 4));
            }
            Kind::Crc32c { field }
        }
        (_, transport) => return Err(StateError::LayerNotHandled { transport }),
    };
    Ok(Site { l4, end, kind })
}

/// CRC32c of `[l4, end)` with the 4-byte field at `field` read as zero, as
/// SCTP defines it (RFC 9260 6.8).
pub(crate) fn sctp_crc(b: &[u8], l4: usize, field: usize, end: usize) -> Option<u32> {
    let head = b.get(l4..field)?;
    let tail = b.get(field + 4..end)?;
    let crc = csum::crc32c(head);
    let crc = csum::crc32c_append(crc, &[0; 4]);
    Some(csum::crc32c_append(crc, tail))
}

/// The stored SCTP checksum (little-endian u32).
pub(crate) fn sctp_stored(b: &[u8], field: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(field..field + 4)?.try_into().ok()?,
    ))
}
