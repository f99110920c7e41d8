//! Ethernet II header and 802.1Q / 802.1ad tag views.
//!
//! Models what `eth_type_trans()` and `__vlan_get_protocol()` read: the
//! EtherType at offset 12, then 4-byte tags (TCI, inner EtherType).

use zerocopy::network_endian::U16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{prefix, prefix_mut};
use super::error::{Layer, ParseError};

/// Ethernet II header length.
pub const HEADER_LEN: usize = 14;
/// Offset of the destination MAC.
pub const DST_OFFSET: usize = 0;
/// Offset of the source MAC.
pub const SRC_OFFSET: usize = 6;
/// Offset of the EtherType.
pub const ETHERTYPE_OFFSET: usize = 12;
/// VLAN tag length.
pub const VLAN_TAG_LEN: usize = 4;
/// Offset of the TCI inside a tag.
pub const VLAN_TCI_OFFSET: usize = 0;
/// Offset of the inner EtherType inside a tag.
pub const VLAN_ETHERTYPE_OFFSET: usize = 2;

/// The Ethernet II header in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct EthernetRaw {
    /// Destination MAC.
    pub dst: [u8; 6],
    /// Source MAC.
    pub src: [u8; 6],
    /// EtherType (or a tag's TPID).
    pub ethertype: U16,
}

/// A VLAN tag (after the TPID) in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct VlanRaw {
    /// Priority (3 bits), DEI (1 bit), VLAN id (12 bits).
    pub tci: U16,
    /// EtherType of what follows (or the next tag's TPID).
    pub ethertype: U16,
}

/// A checked, read-only Ethernet II header view.
#[derive(Clone, Copy, Debug)]
pub struct EthernetHeader<'a> {
    raw: &'a EthernetRaw,
}

impl<'a> EthernetHeader<'a> {
    /// Checks that `bytes` holds at least 14 bytes.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix::<EthernetRaw>(bytes, Layer::Ethernet)?;
        Ok(EthernetHeader { raw })
    }

    /// The header as its zerocopy struct.
    pub const fn raw(&self) -> &'a EthernetRaw {
        self.raw
    }

    /// Header length (14; tags are separate views).
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }

    /// Destination MAC.
    pub const fn dst(&self) -> [u8; 6] {
        self.raw.dst
    }

    /// Source MAC.
    pub const fn src(&self) -> [u8; 6] {
        self.raw.src
    }

    /// EtherType (0x8100 / 0x88A8 when a tag follows).
    pub fn ethertype(&self) -> u16 {
        self.raw.ethertype.get()
    }
}

/// A checked, writable Ethernet II header view.
#[derive(Debug)]
pub struct EthernetHeaderMut<'a> {
    raw: &'a mut EthernetRaw,
}

impl<'a> EthernetHeaderMut<'a> {
    /// Same checks as [`EthernetHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix_mut::<EthernetRaw>(bytes, Layer::Ethernet)?;
        Ok(EthernetHeaderMut { raw })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> EthernetHeader<'_> {
        EthernetHeader { raw: self.raw }
    }

    /// Sets the destination MAC.
    pub fn set_dst(&mut self, mac: [u8; 6]) {
        self.raw.dst = mac;
    }

    /// Sets the source MAC.
    pub fn set_src(&mut self, mac: [u8; 6]) {
        self.raw.src = mac;
    }

    /// Sets the EtherType.
    pub fn set_ethertype(&mut self, ethertype: u16) {
        self.raw.ethertype.set(ethertype);
    }
}

/// A checked, read-only view of one VLAN tag (the 4 bytes after a TPID).
#[derive(Clone, Copy, Debug)]
pub struct VlanTag<'a> {
    raw: &'a VlanRaw,
}

impl<'a> VlanTag<'a> {
    /// Checks that `bytes` holds at least 4 bytes.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix::<VlanRaw>(bytes, Layer::Vlan)?;
        Ok(VlanTag { raw })
    }

    /// The tag as its zerocopy struct.
    pub const fn raw(&self) -> &'a VlanRaw {
        self.raw
    }

    /// Tag length (4).
    pub const fn header_len(&self) -> usize {
        VLAN_TAG_LEN
    }

    /// The whole TCI.
    pub fn tci(&self) -> u16 {
        self.raw.tci.get()
    }

    /// Priority code point (3 bits).
    pub fn pcp(&self) -> u8 {
        (self.tci() >> 13) as u8
    }

    /// Drop eligible indicator.
    pub fn dei(&self) -> bool {
        self.tci() & 0x1000 != 0
    }

    /// VLAN id (12 bits).
    pub fn vid(&self) -> u16 {
        self.tci() & 0x0FFF
    }

    /// EtherType of what follows.
    pub fn ethertype(&self) -> u16 {
        self.raw.ethertype.get()
    }
}

/// A checked, writable view of one VLAN tag.
#[derive(Debug)]
pub struct VlanTagMut<'a> {
    raw: &'a mut VlanRaw,
}

impl<'a> VlanTagMut<'a> {
    /// Same checks as [`VlanTag::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix_mut::<VlanRaw>(bytes, Layer::Vlan)?;
        Ok(VlanTagMut { raw })
    }

    /// A read-only view of the same tag.
    pub fn view(&self) -> VlanTag<'_> {
        VlanTag { raw: self.raw }
    }

    /// Sets the TCI.
    pub fn set_tci(&mut self, tci: u16) {
        self.raw.tci.set(tci);
    }

    /// Sets the inner EtherType.
    pub fn set_ethertype(&mut self, ethertype: u16) {
        self.raw.ethertype.set(ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ethernet_fields_and_setters() {
        let mut b = [
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x81, 0x00, 0xE0, 0x05, 0x08, 0x00,
        ];
        let e = EthernetHeader::new_checked(&b).unwrap();
        assert_eq!(e.dst(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(e.src(), [7, 8, 9, 10, 11, 12]);
        assert_eq!(e.ethertype(), 0x8100);
        assert_eq!(e.header_len(), 14);
        let t = VlanTag::new_checked(&b[14..]).unwrap();
        assert_eq!((t.tci(), t.pcp(), t.dei(), t.vid()), (0xE005, 7, false, 5));
        assert_eq!(t.ethertype(), 0x0800);
        let mut m = EthernetHeaderMut::new_checked(&mut b).unwrap();
        m.set_dst([0xAA; 6]);
        m.set_src([0xBB; 6]);
        m.set_ethertype(0x86DD);
        assert_eq!(m.view().ethertype(), 0x86DD);
        let mut t = VlanTagMut::new_checked(&mut b[14..]).unwrap();
        t.set_tci(0x1FFF);
        t.set_ethertype(0x0806);
        assert!(t.view().dei());
        assert_eq!(b[..6], [0xAA; 6]);
        assert_eq!(b[12..], [0x86, 0xDD, 0x1F, 0xFF, 0x08, 0x06]);
    }

    #[test]
    fn truncation() {
        let b = [0u8; 14];
        for cut in 0..14 {
            assert_eq!(
                EthernetHeader::new_checked(&b[..cut]).unwrap_err(),
                ParseError::truncated(Layer::Ethernet, 0, 14, cut)
            );
        }
        for cut in 0..4 {
            assert_eq!(
                VlanTag::new_checked(&b[..cut]).unwrap_err(),
                ParseError::truncated(Layer::Vlan, 0, 4, cut)
            );
        }
        let mut m = [0u8; 13];
        assert!(EthernetHeaderMut::new_checked(&mut m).is_err());
        assert!(VlanTagMut::new_checked(&mut m[..3]).is_err());
    }
}
