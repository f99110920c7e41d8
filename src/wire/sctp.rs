//! SCTP common header view (RFC 9260 section 3.1).
//!
//! Chunks are not parsed; the CRC32c at offset 8 is what `sctp_rcv()` checks
//! (`sctp_compute_cksum()`), stored little-endian like the kernel's `__le32`.

use zerocopy::network_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{prefix, prefix_mut};
use super::error::{Layer, ParseError};

/// SCTP common header length.
pub const HEADER_LEN: usize = 12;
/// Offset of the verification tag.
pub const VTAG_OFFSET: usize = 4;
/// Offset of the CRC32c.
pub const CHECKSUM_OFFSET: usize = 8;

/// The SCTP common header in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct SctpRaw {
    /// Source port.
    pub src_port: U16,
    /// Destination port.
    pub dst_port: U16,
    /// Verification tag.
    pub vtag: U32,
    /// CRC32c as it sits on the wire.
    pub checksum: [u8; 4],
}

/// A checked, read-only SCTP common header view.
#[derive(Clone, Copy, Debug)]
pub struct SctpHeader<'a> {
    raw: &'a SctpRaw,
}

impl<'a> SctpHeader<'a> {
    /// Checks that `bytes` holds 12 bytes.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix::<SctpRaw>(bytes, Layer::Sctp)?;
        Ok(SctpHeader { raw })
    }

    /// The header as its zerocopy struct.
    pub const fn raw(&self) -> &'a SctpRaw {
        self.raw
    }

    /// Header length (12).
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

    /// Verification tag.
    pub fn vtag(&self) -> u32 {
        self.raw.vtag.get()
    }

    /// The checksum bytes as on the wire.
    pub const fn checksum(&self) -> [u8; 4] {
        self.raw.checksum
    }

    /// The CRC32c value (the wire holds it little-endian).
    pub const fn crc32c(&self) -> u32 {
        u32::from_le_bytes(self.raw.checksum)
    }
}

/// A checked, writable SCTP common header view.
#[derive(Debug)]
pub struct SctpHeaderMut<'a> {
    raw: &'a mut SctpRaw,
}

impl<'a> SctpHeaderMut<'a> {
    /// Same checks as [`SctpHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix_mut::<SctpRaw>(bytes, Layer::Sctp)?;
        Ok(SctpHeaderMut { raw })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> SctpHeader<'_> {
        SctpHeader { raw: self.raw }
    }

    /// Writes the checksum bytes as they go on the wire.
    pub fn set_checksum(&mut self, csum: [u8; 4]) {
        self.raw.checksum = csum;
    }

    /// Writes a CRC32c value (stored little-endian).
    pub fn set_crc32c(&mut self, crc: u32) {
        self.raw.checksum = crc.to_le_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_setters_truncation() {
        let mut b = [
            0x0B, 0x59, 0x0B, 0x59, 0, 0, 0, 7, 0x78, 0x56, 0x34, 0x12, 1,
        ];
        let h = SctpHeader::new_checked(&b).unwrap();
        assert_eq!((h.src_port(), h.dst_port(), h.vtag()), (2905, 2905, 7));
        assert_eq!(
            (h.checksum(), h.crc32c(), h.header_len()),
            ([0x78, 0x56, 0x34, 0x12], 0x1234_5678, 12)
        );
        let mut m = SctpHeaderMut::new_checked(&mut b).unwrap();
        m.set_crc32c(0xAABB_CCDD);
        assert_eq!(m.view().crc32c(), 0xAABB_CCDD);
        m.set_checksum([1, 2, 3, 4]);
        assert_eq!(b[8..], [1, 2, 3, 4, 1]);
        for cut in 0..12 {
            assert_eq!(
                SctpHeader::new_checked(&b[..cut]).unwrap_err(),
                ParseError::truncated(Layer::Sctp, 0, 12, cut)
            );
            assert!(SctpHeaderMut::new_checked(&mut b[..cut]).is_err());
        }
    }
}
