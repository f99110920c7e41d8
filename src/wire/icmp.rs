//! Minimal ICMP / ICMPv6 header view: type, code, checksum (RFC 792, RFC 4443).
//!
//! ICMPv4's checksum covers the message only; ICMPv6's adds the IPv6
//! pseudo-header (`icmpv6_rcv()`); the view is the same.

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{prefix, prefix_mut};
use super::error::{Layer, ParseError};

/// Minimal ICMP header length.
pub const HEADER_LEN: usize = 4;
/// Offset of the checksum.
pub const CHECKSUM_OFFSET: usize = 2;

/// The first 4 ICMP bytes in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct IcmpRaw {
    /// Message type.
    pub icmp_type: u8,
    /// Message code.
    pub code: u8,
    /// Checksum in wire order.
    pub checksum: [u8; 2],
}

/// A checked, read-only ICMP / ICMPv6 header view.
#[derive(Clone, Copy, Debug)]
pub struct IcmpHeader<'a> {
    raw: &'a IcmpRaw,
}

impl<'a> IcmpHeader<'a> {
    /// Checks that `bytes` holds 4 bytes.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix::<IcmpRaw>(bytes, Layer::Icmp)?;
        Ok(IcmpHeader { raw })
    }

    /// The header as its zerocopy struct.
    pub const fn raw(&self) -> &'a IcmpRaw {
        self.raw
    }

    /// Header length (4).
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }

    /// Message type.
    pub const fn icmp_type(&self) -> u8 {
        self.raw.icmp_type
    }

    /// Message code.
    pub const fn code(&self) -> u8 {
        self.raw.code
    }

    /// Checksum in wire order.
    pub const fn checksum(&self) -> [u8; 2] {
        self.raw.checksum
    }
}

/// A checked, writable ICMP / ICMPv6 header view.
#[derive(Debug)]
pub struct IcmpHeaderMut<'a> {
    raw: &'a mut IcmpRaw,
}

impl<'a> IcmpHeaderMut<'a> {
    /// Same checks as [`IcmpHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix_mut::<IcmpRaw>(bytes, Layer::Icmp)?;
        Ok(IcmpHeaderMut { raw })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> IcmpHeader<'_> {
        IcmpHeader { raw: self.raw }
    }

    /// Sets the checksum (wire order).
    pub fn set_checksum(&mut self, csum: [u8; 2]) {
        self.raw.checksum = csum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_setters_truncation() {
        let mut b = [128, 0, 0x12, 0x34, 9];
        let h = IcmpHeader::new_checked(&b).unwrap();
        assert_eq!(
            (h.icmp_type(), h.code(), h.checksum(), h.header_len()),
            (128, 0, [0x12, 0x34], 4)
        );
        let mut m = IcmpHeaderMut::new_checked(&mut b).unwrap();
        m.set_checksum([0xAB, 0xCD]);
        assert_eq!(m.view().checksum(), [0xAB, 0xCD]);
        assert_eq!(b, [128, 0, 0xAB, 0xCD, 9]);
        for cut in 0..4 {
            assert_eq!(
                IcmpHeader::new_checked(&b[..cut]).unwrap_err(),
                ParseError::truncated(Layer::Icmp, 0, 4, cut)
            );
            assert!(IcmpHeaderMut::new_checked(&mut b[..cut]).is_err());
        }
    }
}
