//! The packet a transition works on: bytes, parsed layers and the current offset.

use super::outcome::{Span, StateError};
use crate::wire::{self, Layers, LinkType, Net, ParseError};

/// A read-only packet context: the bytes, the layers [`wire::parse`] found in
/// them, and `cur`, the offset where the current layer starts (where a
/// `Complete` sum starts, Linux `skb->data`).
///
/// The packet's length is `bytes.len()`; bytes after `layers.end` are padding
/// until [`trim`](super::trim) removes them. Built by checked constructors:
/// every layer offset and `cur` lie inside `bytes`.
///
/// ```
/// use netoffload::state::Packet;
/// use netoffload::wire::LinkType;
/// # let mut b = [0u8; 28];
/// # b[0] = 0x45; b[3] = 28; b[8] = 64; b[9] = 17; b[25] = 8;
/// let pkt = Packet::parse(&b, LinkType::RawIp)?;
/// assert_eq!(pkt.cur(), 0); // a device sum starts at the IP header
/// assert_eq!(pkt.layers().l4, 20);
/// # Ok::<(), netoffload::wire::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Packet<'a> {
    bytes: &'a [u8],
    layers: Layers,
    cur: usize,
}

/// Checks that every offset of `layers` and `cur` lies inside `len` bytes.
fn check_layers(len: usize, layers: &Layers, cur: usize) -> Result<(), StateError> {
    let l = layers;
    let addr = match l.net {
        Net::Ipv4 => 4,
        Net::Ipv6 => 16,
    };
    let ordered = l.l2 <= l.l3 && l.l3 <= l.l4 && l.l4 <= l.payload && l.payload <= l.end;
    let addrs_in = l.pseudo_src.saturating_add(addr) <= l.end.max(l.l4)
        && l.pseudo_dst.saturating_add(addr) <= l.end.max(l.l4);
    if !ordered || l.end > len || !addrs_in {
        return Err(StateError::OutOfBounds {
            what: Span::Layers,
            offset: l.end,
            len,
        });
    }
    if cur > len {
        return Err(StateError::OutOfBounds {
            what: Span::Cur,
            offset: cur,
            len,
        });
    }
    Ok(())
}

impl<'a> Packet<'a> {
    /// A context from bytes, their layers and the current offset; refused when
    /// an offset lies outside the bytes.
    pub fn new(bytes: &'a [u8], layers: Layers, cur: usize) -> Result<Packet<'a>, StateError> {
        check_layers(bytes.len(), &layers, cur)?;
        Ok(Packet { bytes, layers, cur })
    }

    /// Parses `bytes` and starts at the IP header, where a device's `Complete`
    /// sum starts after `eth_type_trans`.
    pub fn parse(bytes: &'a [u8], link: LinkType) -> Result<Packet<'a>, ParseError> {
        let layers = wire::parse(bytes, link)?;
        Ok(Packet {
            bytes,
            layers,
            cur: layers.l3,
        })
    }

    /// The same packet with another current offset (after a pull or push).
    pub fn with_cur(self, cur: usize) -> Result<Packet<'a>, StateError> {
        Packet::new(self.bytes, self.layers, cur)
    }

    /// The same packet cut to `len` bytes (after [`trim`](super::trim)).
    pub fn truncated(self, len: usize) -> Result<Packet<'a>, StateError> {
        match self.bytes.get(..len) {
            Some(b) => Packet::new(b, self.layers, self.cur),
            None => Err(StateError::OutOfBounds {
                what: Span::Trim,
                offset: len,
                len: self.bytes.len(),
            }),
        }
    }

    /// The packet bytes (its length is the packet length).
    pub const fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The parsed layers.
    pub const fn layers(&self) -> &Layers {
        &self.layers
    }

    /// The current layer offset.
    pub const fn cur(&self) -> usize {
        self.cur
    }

    /// The packet length.
    pub const fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True for an empty buffer (never, for a parsed packet).
    pub const fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// A packet context for transitions that rewrite header bytes (route, NAT,
/// transmit fill). Same invariants as [`Packet`].
#[derive(Debug)]
pub struct PacketMut<'a> {
    bytes: &'a mut [u8],
    layers: Layers,
    cur: usize,
}

impl<'a> PacketMut<'a> {
    /// A context from bytes, their layers and the current offset.
    pub fn new(
        bytes: &'a mut [u8],
        layers: Layers,
        cur: usize,
    ) -> Result<PacketMut<'a>, StateError> {
        check_layers(bytes.len(), &layers, cur)?;
        Ok(PacketMut { bytes, layers, cur })
    }

    /// Parses `bytes` and starts at the IP header.
    pub fn parse(bytes: &'a mut [u8], link: LinkType) -> Result<PacketMut<'a>, ParseError> {
        let layers = wire::parse(bytes, link)?;
        let cur = layers.l3;
        Ok(PacketMut { bytes, layers, cur })
    }

    /// A read-only view of the same packet.
    pub fn as_packet(&self) -> Packet<'_> {
        Packet {
            bytes: self.bytes,
            layers: self.layers,
            cur: self.cur,
        }
    }

    /// The packet bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes
    }

    /// The parsed layers.
    pub const fn layers(&self) -> &Layers {
        &self.layers
    }

    /// The current layer offset.
    pub const fn cur(&self) -> usize {
        self.cur
    }

    /// Gives the buffer back.
    pub fn into_bytes(self) -> &'a mut [u8] {
        self.bytes
    }

    /// The mutable bytes, for the rewriting transitions of this module.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        self.bytes
    }
}
