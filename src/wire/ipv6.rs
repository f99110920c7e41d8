//! IPv6 fixed header view (RFC 8200).
//!
//! The checked constructor applies `ipv6_rcv()`'s rules: version 6, 40 bytes,
//! payload length within the buffer. A payload length of 0 is accepted here
//! (a Jumbo Payload option may give the real length; [`parse`](super::parse())
//! resolves it).

use zerocopy::network_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{prefix, prefix_mut};
use super::error::{ErrorKind, Field, Layer, ParseError};

/// IPv6 fixed header length.
pub const HEADER_LEN: usize = 40;
/// Offset of the payload length.
pub const PAYLOAD_LEN_OFFSET: usize = 4;
/// Offset of the next header.
pub const NEXT_HEADER_OFFSET: usize = 6;
/// Offset of the hop limit.
pub const HOP_LIMIT_OFFSET: usize = 7;
/// Offset of the source address.
pub const SRC_OFFSET: usize = 8;
/// Offset of the destination address.
pub const DST_OFFSET: usize = 24;

/// The IPv6 fixed header in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct Ipv6Raw {
    /// Version (4 bits), traffic class (8 bits), flow label (20 bits).
    pub version_tc_flow: U32,
    /// Length after the fixed header (0 with a Jumbo Payload option).
    pub payload_len: U16,
    /// Protocol of the first extension header or the payload.
    pub next_header: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// Source address.
    pub src: [u8; 16],
    /// Destination address.
    pub dst: [u8; 16],
}

fn check(bytes: &[u8]) -> Result<(), ParseError> {
    let (raw, rest) = prefix::<Ipv6Raw>(bytes, Layer::Ipv6)?;
    let version = raw.version_tc_flow.get() >> 28;
    if version != 6 {
        return Err(ParseError::new(
            Layer::Ipv6,
            Field::Version,
            ErrorKind::Unsupported { value: version },
            0,
        ));
    }
    let len = raw.payload_len.get() as usize;
    if len > rest.len() {
        return Err(ParseError::new(
            Layer::Ipv6,
            Field::PayloadLength,
            ErrorKind::LengthBeyondBuffer {
                claimed: len,
                available: rest.len(),
            },
            0,
        ));
    }
    Ok(())
}

/// A checked, read-only IPv6 fixed header view.
#[derive(Clone, Copy, Debug)]
pub struct Ipv6Header<'a> {
    raw: &'a Ipv6Raw,
}

impl<'a> Ipv6Header<'a> {
    /// Checks version 6, 40 bytes, and payload length <= `bytes.len() - 40`.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        check(bytes)?;
        let (raw, _) = prefix::<Ipv6Raw>(bytes, Layer::Ipv6)?;
        Ok(Ipv6Header { raw })
    }

    /// The header as its zerocopy struct.
    pub const fn raw(&self) -> &'a Ipv6Raw {
        self.raw
    }

    /// Header length (40; extension headers are separate views).
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }

    /// Version (always 6).
    pub fn version(&self) -> u8 {
        (self.raw.version_tc_flow.get() >> 28) as u8
    }

    /// Traffic class.
    pub fn traffic_class(&self) -> u8 {
        (self.raw.version_tc_flow.get() >> 20) as u8
    }

    /// Flow label (20 bits).
    pub fn flow_label(&self) -> u32 {
        self.raw.version_tc_flow.get() & 0x000F_FFFF
    }

    /// Payload length field.
    pub fn payload_len(&self) -> u16 {
        self.raw.payload_len.get()
    }

    /// Next header.
    pub const fn next_header(&self) -> u8 {
        self.raw.next_header
    }

    /// Hop limit.
    pub const fn hop_limit(&self) -> u8 {
        self.raw.hop_limit
    }

    /// Source address.
    pub const fn src(&self) -> [u8; 16] {
        self.raw.src
    }

    /// Destination address.
    pub const fn dst(&self) -> [u8; 16] {
        self.raw.dst
    }
}

/// A checked, writable IPv6 fixed header view.
#[derive(Debug)]
pub struct Ipv6HeaderMut<'a> {
    raw: &'a mut Ipv6Raw,
}

impl<'a> Ipv6HeaderMut<'a> {
    /// Same checks as [`Ipv6Header::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        check(bytes)?;
        let (raw, _) = prefix_mut::<Ipv6Raw>(bytes, Layer::Ipv6)?;
        Ok(Ipv6HeaderMut { raw })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> Ipv6Header<'_> {
        Ipv6Header { raw: self.raw }
    }

    /// Sets the payload length.
    pub fn set_payload_len(&mut self, len: u16) {
        self.raw.payload_len.set(len);
    }

    /// Sets the hop limit.
    pub fn set_hop_limit(&mut self, hop_limit: u8) {
        self.raw.hop_limit = hop_limit;
    }

    /// Sets the next header.
    pub fn set_next_header(&mut self, next: u8) {
        self.raw.next_header = next;
    }

    /// Sets the traffic class, keeping version and flow label.
    pub fn set_traffic_class(&mut self, tc: u8) {
        let w = self.raw.version_tc_flow.get();
        self.raw
            .version_tc_flow
            .set((w & 0xF00F_FFFF) | ((tc as u32) << 20));
    }

    /// Sets the source address.
    pub fn set_src(&mut self, addr: [u8; 16]) {
        self.raw.src = addr;
    }

    /// Sets the destination address.
    pub fn set_dst(&mut self, addr: [u8; 16]) {
        self.raw.dst = addr;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet() -> [u8; 44] {
        let mut b = [0u8; 44];
        b[..8].copy_from_slice(&[0x6A, 0xB1, 0x23, 0x45, 0x00, 0x03, 17, 255]);
        b[8..24].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        b[24..40].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        b
    }

    #[test]
    fn fields() {
        let b = packet();
        let h = Ipv6Header::new_checked(&b).unwrap();
        assert_eq!(
            (h.version(), h.traffic_class(), h.flow_label()),
            (6, 0xAB, 0x1_2345)
        );
        assert_eq!(
            (h.payload_len(), h.next_header(), h.hop_limit()),
            (3, 17, 255)
        );
        assert_eq!(h.src()[15], 1);
        assert_eq!(h.dst()[15], 2);
        assert_eq!(h.header_len(), 40);
    }

    #[test]
    fn error_variants() {
        let mut b = packet();
        b[0] = 0x4A;
        let e = Ipv6Header::new_checked(&b).unwrap_err();
        assert_eq!(
            (e.field, e.kind),
            (Field::Version, ErrorKind::Unsupported { value: 4 })
        );
        let b = packet();
        let e = Ipv6Header::new_checked(&b[..42]).unwrap_err();
        assert_eq!(e.field, Field::PayloadLength);
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 3,
                available: 2
            }
        );
        for cut in 0..40 {
            assert_eq!(
                Ipv6Header::new_checked(&b[..cut]).unwrap_err(),
                ParseError::truncated(Layer::Ipv6, 0, 40, cut)
            );
        }
        let mut m = packet();
        assert!(Ipv6HeaderMut::new_checked(&mut m[..42]).is_err());
    }

    #[test]
    fn setters() {
        let mut b = packet();
        let mut m = Ipv6HeaderMut::new_checked(&mut b).unwrap();
        m.set_payload_len(4);
        m.set_hop_limit(1);
        m.set_next_header(6);
        m.set_traffic_class(0x12);
        m.set_src([0xAA; 16]);
        m.set_dst([0xBB; 16]);
        assert_eq!(m.view().flow_label(), 0x1_2345);
        assert_eq!(b[..8], [0x61, 0x21, 0x23, 0x45, 0, 4, 6, 1]);
        assert_eq!(b[8..24], [0xAA; 16]);
        assert_eq!(b[24..40], [0xBB; 16]);
    }
}
