//! VXLAN header view (RFC 7348): 8 bytes, I flag, 24-bit VNI, reserved bits.
//!
//! The checked constructor requires the I flag (RFC 7348 section 5: it MUST be
//! set for a valid VNI). Reserved bits are ignored on receipt as the RFC says;
//! [`VxlanHeader::check_reserved`] applies the stricter Linux `vxlan_rcv()` rule
//! (unparsed flags or a non-zero low VNI byte drop the packet).

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{prefix, prefix_mut, to_u24, u24};
use super::error::{ErrorKind, Field, Layer, ParseError};

/// Length of the VXLAN header.
pub const HEADER_LEN: usize = 8;
/// I flag: the VNI is valid.
pub const FLAG_VNI: u8 = 0x08;
/// Offset of the VNI.
pub const VNI_OFFSET: usize = 4;

/// The 8 VXLAN bytes in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct VxlanRaw {
    /// R R R R I R R R.
    pub flags: u8,
    /// Reserved, 24 bits.
    pub reserved1: [u8; 3],
    /// VXLAN network identifier.
    pub vni: [u8; 3],
    /// Reserved, 8 bits.
    pub reserved2: u8,
}

/// A checked, read-only VXLAN header view.
#[derive(Clone, Copy, Debug)]
pub struct VxlanHeader<'a> {
    raw: &'a VxlanRaw,
}

fn check(raw: &VxlanRaw) -> Result<(), ParseError> {
    if raw.flags & FLAG_VNI == 0 {
        return Err(ParseError::new(
            Layer::Vxlan,
            Field::VxlanFlags,
            ErrorKind::Unsupported {
                value: raw.flags as u32,
            },
            0,
        ));
    }
    Ok(())
}

impl<'a> VxlanHeader<'a> {
    /// Checks that `bytes` starts with 8 VXLAN bytes with the I flag set.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix::<VxlanRaw>(bytes, Layer::Vxlan)?;
        check(raw)?;
        Ok(VxlanHeader { raw })
    }

    /// The header as its zerocopy struct.
    pub const fn raw(&self) -> &'a VxlanRaw {
        self.raw
    }

    /// Header length (always 8).
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }

    /// The flags byte.
    pub const fn flags(&self) -> u8 {
        self.raw.flags
    }

    /// Flag bits other than I (reserved by RFC 7348; GBP / GPE use some).
    pub const fn reserved_flags(&self) -> u8 {
        self.raw.flags & !FLAG_VNI
    }

    /// The 24 reserved bits after the flags.
    pub const fn reserved1(&self) -> u32 {
        u24(self.raw.reserved1)
    }

    /// The VNI.
    pub const fn vni(&self) -> u32 {
        u24(self.raw.vni)
    }

    /// The last reserved byte.
    pub const fn reserved2(&self) -> u8 {
        self.raw.reserved2
    }

    /// Linux `vxlan_rcv()` strictness: any reserved flag bit or a non-zero last
    /// byte is a malformed packet (no VXLAN extension is parsed here).
    pub fn check_reserved(&self) -> Result<(), ParseError> {
        if self.reserved_flags() != 0 || self.reserved2() != 0 {
            let word = ((self.raw.flags as u32) << 24) | self.reserved2() as u32;
            return Err(ParseError::new(
                Layer::Vxlan,
                Field::VxlanFlags,
                ErrorKind::Unsupported { value: word },
                0,
            ));
        }
        Ok(())
    }
}

/// A checked, writable VXLAN header view.
#[derive(Debug)]
pub struct VxlanHeaderMut<'a> {
    raw: &'a mut VxlanRaw,
}

impl<'a> VxlanHeaderMut<'a> {
    /// Same checks as [`VxlanHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix_mut::<VxlanRaw>(bytes, Layer::Vxlan)?;
        check(raw)?;
        Ok(VxlanHeaderMut { raw })
    }

    /// Writes an I-flag-only header with this VNI over any 8 bytes (encap builds
    /// headers this way); errors only when `bytes` is shorter than 8.
    pub fn init(bytes: &'a mut [u8], vni: u32) -> Result<Self, ParseError> {
        let (raw, _) = prefix_mut::<VxlanRaw>(bytes, Layer::Vxlan)?;
        *raw = VxlanRaw {
            flags: FLAG_VNI,
            reserved1: [0; 3],
            vni: to_u24(vni),
            reserved2: 0,
        };
        Ok(VxlanHeaderMut { raw })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> VxlanHeader<'_> {
        VxlanHeader { raw: self.raw }
    }

    /// Sets the VNI (low 24 bits of `vni`).
    pub fn set_vni(&mut self, vni: u32) {
        self.raw.vni = to_u24(vni);
    }

    /// Clears every reserved bit, keeping I and the VNI.
    pub fn clear_reserved(&mut self) {
        self.raw.flags = FLAG_VNI;
        self.raw.reserved1 = [0; 3];
        self.raw.reserved2 = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let b = [0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0, 0xFF];
        let v = VxlanHeader::new_checked(&b).unwrap();
        assert_eq!(v.header_len(), 8);
        assert_eq!(v.vni(), 0x12_3456);
        assert_eq!(v.flags(), 0x08);
        assert_eq!(
            (v.reserved_flags(), v.reserved1(), v.reserved2()),
            (0, 0, 0)
        );
        assert_eq!(v.check_reserved(), Ok(()));
    }

    #[test]
    fn reserved_bits_are_ignored_but_reported() {
        let b = [0x88, 1, 2, 3, 0, 0, 1, 0x7F];
        let v = VxlanHeader::new_checked(&b).unwrap();
        assert_eq!(v.reserved_flags(), 0x80);
        assert_eq!(v.reserved1(), 0x01_0203);
        assert_eq!(v.reserved2(), 0x7F);
        assert_eq!(v.vni(), 1);
        let e = v.check_reserved().unwrap_err();
        assert_eq!((e.layer, e.field), (Layer::Vxlan, Field::VxlanFlags));
    }

    #[test]
    fn error_variants() {
        let e = VxlanHeader::new_checked(&[0x00, 0, 0, 0, 0, 0, 1, 0]).unwrap_err();
        assert_eq!(e.field, Field::VxlanFlags);
        assert_eq!(e.kind, ErrorKind::Unsupported { value: 0 });
        for cut in 0..8 {
            let b = [0x08u8; 8];
            assert_eq!(
                VxlanHeader::new_checked(&b[..cut]).unwrap_err(),
                ParseError::truncated(Layer::Vxlan, 0, 8, cut)
            );
        }
        let mut b = [0u8; 8];
        assert!(VxlanHeaderMut::new_checked(&mut b).is_err());
        assert!(VxlanHeaderMut::init(&mut b[..7], 1).is_err());
    }

    #[test]
    fn setters() {
        let mut b = [0xFFu8; 10];
        let mut m = VxlanHeaderMut::init(&mut b, 0xABCDEF).unwrap();
        assert_eq!(m.view().vni(), 0xAB_CDEF);
        m.set_vni(0x0100_0002); // only 24 bits are kept
        assert_eq!(b, [0x08, 0, 0, 0, 0, 0, 2, 0, 0xFF, 0xFF]);
        let mut b = [0xFFu8; 8];
        let mut m = VxlanHeaderMut::new_checked(&mut b).unwrap();
        m.clear_reserved();
        assert_eq!(b, [0x08, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0]);
    }
}
