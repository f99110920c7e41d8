//! UDP header view (RFC 768; length 0 for jumbograms per RFC 2675).
//!
//! The checked constructor applies `__udp4_lib_rcv()`'s length rule: the
//! length field is at least 8 and within the buffer (0 is accepted: a UDP
//! jumbogram takes its length from the IP layer).

use zerocopy::network_endian::U16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{prefix, prefix_mut};
use super::error::{ErrorKind, Field, Layer, ParseError};

/// UDP header length.
pub const HEADER_LEN: usize = 8;
/// Offset of the source port.
pub const SRC_PORT_OFFSET: usize = 0;
/// Offset of the destination port.
pub const DST_PORT_OFFSET: usize = 2;
/// Offset of the length.
pub const LENGTH_OFFSET: usize = 4;
/// Offset of the checksum.
pub const CHECKSUM_OFFSET: usize = 6;

/// The UDP header in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct UdpRaw {
    /// Source port.
    pub src_port: U16,
    /// Destination port.
    pub dst_port: U16,
    /// Length of header and payload (0 for a jumbogram).
    pub length: U16,
    /// Checksum in wire order (0 = none over IPv4).
    pub checksum: [u8; 2],
}

fn check(bytes: &[u8]) -> Result<(), ParseError> {
    let (raw, _) = prefix::<UdpRaw>(bytes, Layer::Udp)?;
    check_len(raw, bytes.len())
}

fn check_len(raw: &UdpRaw, available: usize) -> Result<(), ParseError> {
    let len = raw.length.get() as usize;
    let err = |kind| ParseError::new(Layer::Udp, Field::UdpLength, kind, 0);
    if len != 0 && len < HEADER_LEN {
        return Err(err(ErrorKind::LengthTooSmall {
            value: len,
            min: HEADER_LEN,
        }));
    }
    if len > available {
        return Err(err(ErrorKind::LengthBeyondBuffer {
            claimed: len,
            available,
        }));
    }
    Ok(())
}

/// A checked, read-only UDP header view.
#[derive(Clone, Copy, Debug)]
pub struct UdpHeader<'a> {
    raw: &'a UdpRaw,
}

impl<'a> UdpHeader<'a> {
    /// Checks 8 bytes and a length of 0 or 8..=`bytes.len()`.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        check(bytes)?;
        let (raw, _) = prefix::<UdpRaw>(bytes, Layer::Udp)?;
        Ok(UdpHeader { raw })
    }

    /// Checks the 8 header bytes only, not the length field (the first
    /// fragment of a fragmented datagram holds only part of what it counts).
    pub fn new_checked_header(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix::<UdpRaw>(bytes, Layer::Udp)?;
        Ok(UdpHeader { raw })
    }

    /// The header as its zerocopy struct.
    pub const fn raw(&self) -> &'a UdpRaw {
        self.raw
    }

    /// Header length (8).
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }

    /// Source port.
    pub fn src_port(&self) -> u16 {
        self.raw.src_port.get()
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        self.raw.dst_port.get()
    }

    /// Length field.
    pub fn length(&self) -> u16 {
        self.raw.length.get()
    }

    /// Checksum in wire order.
    pub const fn checksum(&self) -> [u8; 2] {
        self.raw.checksum
    }
}

/// A checked, writable UDP header view.
#[derive(Debug)]
pub struct UdpHeaderMut<'a> {
    raw: &'a mut UdpRaw,
}

impl<'a> UdpHeaderMut<'a> {
    /// Same checks as [`UdpHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        check(bytes)?;
        let (raw, _) = prefix_mut::<UdpRaw>(bytes, Layer::Udp)?;
        Ok(UdpHeaderMut { raw })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> UdpHeader<'_> {
        UdpHeader { raw: self.raw }
    }

    /// Sets the source port.
    pub fn set_src_port(&mut self, port: u16) {
        self.raw.src_port.set(port);
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, port: u16) {
        self.raw.dst_port.set(port);
    }

    /// Sets the length.
    pub fn set_length(&mut self, len: u16) {
        self.raw.length.set(len);
    }

    /// Sets the checksum (wire order).
    pub fn set_checksum(&mut self, csum: [u8; 2]) {
        self.raw.checksum = csum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DGRAM: [u8; 11] = [0x12, 0xB5, 0x17, 0xC1, 0, 10, 0xAB, 0xCD, 1, 2, 0xFF];

    #[test]
    fn fields_and_setters() {
        let h = UdpHeader::new_checked(&DGRAM).unwrap();
        assert_eq!((h.src_port(), h.dst_port(), h.length()), (4789, 6081, 10));
        assert_eq!((h.checksum(), h.header_len()), ([0xAB, 0xCD], 8));
        let mut b = DGRAM;
        let mut m = UdpHeaderMut::new_checked(&mut b).unwrap();
        m.set_src_port(1);
        m.set_dst_port(2);
        m.set_length(9);
        m.set_checksum([0xFF, 0xFF]);
        assert_eq!(m.view().length(), 9);
        assert_eq!(b[..8], [0, 1, 0, 2, 0, 9, 0xFF, 0xFF]);
        // Length 0 (jumbogram) is accepted.
        let mut j = DGRAM;
        j[5] = 0;
        assert_eq!(UdpHeader::new_checked(&j).unwrap().length(), 0);
    }

    #[test]
    fn error_variants() {
        let mut b = DGRAM;
        b[5] = 7;
        let e = UdpHeader::new_checked(&b).unwrap_err();
        assert_eq!(
            (e.field, e.kind),
            (
                Field::UdpLength,
                ErrorKind::LengthTooSmall { value: 7, min: 8 }
            )
        );
        let e = UdpHeader::new_checked(&DGRAM[..9]).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 10,
                available: 9
            }
        );
        for cut in 0..8 {
            assert_eq!(
                UdpHeader::new_checked(&DGRAM[..cut]).unwrap_err(),
                ParseError::truncated(Layer::Udp, 0, 8, cut)
            );
        }
        let mut m = DGRAM;
        assert!(UdpHeaderMut::new_checked(&mut m[..9]).is_err());
        assert_eq!(
            UdpHeader::new_checked_header(&DGRAM[..9]).unwrap().length(),
            10
        );
        assert!(UdpHeader::new_checked_header(&DGRAM[..7]).is_err());
    }
}
