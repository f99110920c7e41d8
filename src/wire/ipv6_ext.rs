//! IPv6 extension header views (RFC 8200 section 4): a generic view for
//! hop-by-hop, routing, destination options, fragment and AH, an options
//! iterator for the TLV headers, a routing view that finds the final
//! destination (types 0, 2, 4), and a fragment view.
//!
//! Lengths follow `ipv6_optlen()` / `ipv6_authlen()`: (len + 1) * 8 bytes, AH
//! (len + 2) * 4, fragment 8.

use zerocopy::network_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{be16, prefix, prefix_mut};
use super::consts::ipproto;
use super::error::{ErrorKind, Field, Layer, ParseError};

/// Length of the fragment header.
pub const FRAGMENT_LEN: usize = 8;
/// Minimum length of any extension header.
pub const MIN_LEN: usize = 8;
/// Option type: Pad1 (a single zero byte).
pub const OPT_PAD1: u8 = 0;
/// Option type: PadN.
pub const OPT_PADN: u8 = 1;
/// Option type: Jumbo Payload (RFC 2675), in hop-by-hop.
pub const OPT_JUMBO: u8 = 0xC2;
/// Option type: Home Address (RFC 6275), in destination options.
pub const OPT_HOME_ADDRESS: u8 = 0xC9;
/// Offset of the routing type in a routing header.
pub const ROUTING_TYPE_OFFSET: usize = 2;
/// Offset of segments left in a routing header.
pub const SEGMENTS_LEFT_OFFSET: usize = 3;
/// Offset of the first address of a type 0 / 2 / 4 routing header.
pub const ROUTING_ADDRS_OFFSET: usize = 8;
/// Routing type 0 (deprecated source route; RFC 8200 pseudo-header rule applies).
pub const ROUTING_TYPE0: u8 = 0;
/// Routing type 2 (Mobile IPv6, one home address).
pub const ROUTING_TYPE2: u8 = 2;
/// Routing type 4 (Segment Routing Header, RFC 8754).
pub const ROUTING_SRH: u8 = 4;

/// The first two bytes every extension header shares.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct Ipv6ExtRaw {
    /// Protocol of what follows.
    pub next_header: u8,
    /// Length in the header's units, not counting the first unit.
    pub hdr_ext_len: u8,
}

/// The fragment header in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct Ipv6FragmentRaw {
    /// Protocol of what follows.
    pub next_header: u8,
    /// Reserved byte.
    pub reserved: u8,
    /// Offset in 8-byte units (13 bits), 2 reserved bits, M flag.
    pub frag: U16,
    /// Identification.
    pub ident: U32,
}

/// True for the protocol numbers the generic view can walk.
pub const fn is_ext_header(proto: u8) -> bool {
    matches!(
        proto,
        ipproto::HOPOPTS | ipproto::ROUTING | ipproto::DSTOPTS | ipproto::FRAGMENT | ipproto::AH
    )
}

/// A checked, read-only view of one extension header.
#[derive(Clone, Copy, Debug)]
pub struct Ipv6ExtHeader<'a> {
    proto: u8,
    raw: &'a Ipv6ExtRaw,
    /// The whole header.
    bytes: &'a [u8],
    /// The header bytes after the first two.
    body: &'a [u8],
}

impl<'a> Ipv6ExtHeader<'a> {
    /// Checks that `bytes` starts with a complete extension header of kind
    /// `proto` (the previous header's next-header value). Errors: `ExtHeader`
    /// for a protocol that is not an extension header, `ExtLength` when the
    /// length runs past `bytes`, or truncation of the first 8 bytes.
    pub fn new_checked(bytes: &'a [u8], proto: u8) -> Result<Self, ParseError> {
        if !is_ext_header(proto) {
            return Err(ParseError::new(
                Layer::Ipv6Ext,
                Field::ExtHeader,
                ErrorKind::Unsupported {
                    value: proto as u32,
                },
                0,
            ));
        }
        if bytes.len() < MIN_LEN {
            return Err(ParseError::truncated(
                Layer::Ipv6Ext,
                0,
                MIN_LEN,
                bytes.len(),
            ));
        }
        let (raw, _) = prefix::<Ipv6ExtRaw>(bytes, Layer::Ipv6Ext)?;
        let len = match proto {
            ipproto::FRAGMENT => FRAGMENT_LEN,
            ipproto::AH => (raw.hdr_ext_len as usize + 2) * 4,
            _ => (raw.hdr_ext_len as usize + 1) * 8,
        };
        let whole = bytes.get(..len).ok_or(ParseError::new(
            Layer::Ipv6Ext,
            Field::ExtLength,
            ErrorKind::LengthBeyondBuffer {
                claimed: len,
                available: bytes.len(),
            },
            0,
        ))?;
        let body = whole.get(2..).unwrap_or(&[]);
        Ok(Ipv6ExtHeader {
            proto,
            raw,
            bytes: whole,
            body,
        })
    }

    /// The protocol number this header was read as.
    pub const fn protocol(&self) -> u8 {
        self.proto
    }

    /// The first two bytes as their zerocopy struct.
    pub const fn raw(&self) -> &'a Ipv6ExtRaw {
        self.raw
    }

    /// Next header.
    pub const fn next_header(&self) -> u8 {
        self.raw.next_header
    }

    /// The raw length byte (the fragment header's reserved byte).
    pub const fn hdr_ext_len(&self) -> u8 {
        self.raw.hdr_ext_len
    }

    /// Header length in bytes.
    pub const fn header_len(&self) -> usize {
        2 + self.body.len()
    }

    /// The whole header's bytes.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The header bytes after next-header and length.
    pub const fn body(&self) -> &'a [u8] {
        self.body
    }

    /// The TLV options of a hop-by-hop or destination options header
    /// (`None` for other kinds).
    pub fn options(&self) -> Option<Ipv6Options<'a>> {
        match self.proto {
            ipproto::HOPOPTS | ipproto::DSTOPTS => Some(Ipv6Options {
                rest: self.body,
                at: 2,
            }),
            _ => None,
        }
    }

    /// The routing view of a routing header (`None` for other kinds).
    pub fn routing(&self) -> Option<RoutingHeader<'a>> {
        match (self.proto, self.body) {
            (ipproto::ROUTING, &[routing_type, segments_left, ref data @ ..]) => {
                Some(RoutingHeader {
                    routing_type,
                    segments_left,
                    data,
                })
            }
            _ => None,
        }
    }

    /// The fragment view of a fragment header (`None` for other kinds).
    pub fn fragment(&self) -> Option<FragmentHeader<'a>> {
        if self.proto != ipproto::FRAGMENT {
            return None;
        }
        FragmentHeader::new_checked(self.bytes).ok()
    }
}

/// One hop-by-hop or destination option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6Option<'a> {
    /// Option type (action bits, change bit, number).
    pub kind: u8,
    /// Offset of the option from its extension header's start.
    pub offset: usize,
    /// Option data (empty for Pad1).
    pub data: &'a [u8],
}

/// Iterator over TLV options; yields an error (then stops) when an option's
/// length runs past its header.
#[derive(Clone, Debug)]
pub struct Ipv6Options<'a> {
    rest: &'a [u8],
    at: usize,
}

impl<'a> Iterator for Ipv6Options<'a> {
    type Item = Result<Ipv6Option<'a>, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (&kind, tail) = self.rest.split_first()?;
        let offset = self.at;
        if kind == OPT_PAD1 {
            self.rest = tail;
            self.at += 1;
            return Some(Ok(Ipv6Option {
                kind,
                offset,
                data: &[],
            }));
        }
        let available = self.rest.len();
        let fail = |kind| {
            Some(Err(ParseError::new(
                Layer::Ipv6Ext,
                Field::OptionLength,
                kind,
                offset,
            )))
        };
        let Some((&len, data)) = tail.split_first() else {
            self.rest = &[];
            return fail(ErrorKind::Truncated {
                needed: 2,
                available,
            });
        };
        let len = len as usize;
        match (data.get(..len), data.get(len..)) {
            (Some(d), Some(rest)) => {
                self.rest = rest;
                self.at += 2 + len;
                Some(Ok(Ipv6Option {
                    kind,
                    offset,
                    data: d,
                }))
            }
            _ => {
                self.rest = &[];
                fail(ErrorKind::LengthBeyondBuffer {
                    claimed: 2 + len,
                    available,
                })
            }
        }
    }
}

/// A routing header's type-specific view.
#[derive(Clone, Copy, Debug)]
pub struct RoutingHeader<'a> {
    routing_type: u8,
    segments_left: u8,
    /// Bytes after the first four.
    data: &'a [u8],
}

impl<'a> RoutingHeader<'a> {
    /// Routing type.
    pub const fn routing_type(&self) -> u8 {
        self.routing_type
    }

    /// Segments left.
    pub const fn segments_left(&self) -> u8 {
        self.segments_left
    }

    /// The type-specific bytes after the first four.
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// SRH last entry (byte 4), type 4 only.
    pub fn srh_last_entry(&self) -> Option<u8> {
        match self.routing_type {
            ROUTING_SRH => self.data.first().copied(),
            _ => None,
        }
    }

    /// SRH flags (byte 5), type 4 only.
    pub fn srh_flags(&self) -> Option<u8> {
        match self.routing_type {
            ROUTING_SRH => self.data.get(1).copied(),
            _ => None,
        }
    }

    /// SRH tag (bytes 6..8), type 4 only.
    pub fn srh_tag(&self) -> Option<u16> {
        match self.routing_type {
            ROUTING_SRH => be16(self.data, 2),
            _ => None,
        }
    }

    /// Number of 16-byte addresses a type 0 / 2 / 4 header lists (0 for others;
    /// SRH TLVs after the list are not counted when `last_entry` bounds it).
    pub fn address_count(&self) -> usize {
        let room = self.data.len().saturating_sub(4) / 16;
        match self.routing_type {
            ROUTING_TYPE0 | ROUTING_TYPE2 => room,
            ROUTING_SRH => match self.srh_last_entry() {
                Some(last) => room.min(last as usize + 1),
                None => 0,
            },
            _ => 0,
        }
    }

    /// The `i`th listed address.
    pub fn address(&self, i: usize) -> Option<[u8; 16]> {
        let at = self.address_offset(i)? - 4;
        self.data.get(at..at + 16)?.try_into().ok()
    }

    /// Offset of the `i`th listed address from the routing header's start.
    pub fn address_offset(&self, i: usize) -> Option<usize> {
        (i < self.address_count()).then_some(ROUTING_ADDRS_OFFSET + i * 16)
    }

    /// Where the final destination sits, from the routing header's start, when
    /// segments are left (RFC 8200 8.1: the pseudo-header uses it): the last
    /// address of type 0, the home address of type 2, Segment List\[0\] of an
    /// SRH. `None` when no segments are left (the IPv6 destination is final)
    /// or the type lists no addresses.
    pub fn final_destination_offset(&self) -> Option<usize> {
        if self.segments_left == 0 {
            return None;
        }
        match self.routing_type {
            ROUTING_TYPE0 | ROUTING_TYPE2 => {
                self.address_offset(self.address_count().checked_sub(1)?)
            }
            ROUTING_SRH => self.address_offset(0),
            _ => None,
        }
    }
}

/// A fragment header view (from [`Ipv6ExtHeader::fragment`] or directly).
#[derive(Clone, Copy, Debug)]
pub struct FragmentHeader<'a> {
    raw: &'a Ipv6FragmentRaw,
}

impl<'a> FragmentHeader<'a> {
    /// Checks that `bytes` holds 8 bytes.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix::<Ipv6FragmentRaw>(bytes, Layer::Ipv6Ext)?;
        Ok(FragmentHeader { raw })
    }

    /// The header as its zerocopy struct.
    pub const fn raw(&self) -> &'a Ipv6FragmentRaw {
        self.raw
    }

    /// Header length (8).
    pub const fn header_len(&self) -> usize {
        FRAGMENT_LEN
    }

    /// Next header.
    pub const fn next_header(&self) -> u8 {
        self.raw.next_header
    }

    /// The reserved byte.
    pub const fn reserved(&self) -> u8 {
        self.raw.reserved
    }

    /// Fragment offset in bytes.
    pub fn offset(&self) -> usize {
        (self.raw.frag.get() & 0xFFF8) as usize
    }

    /// The two reserved bits next to M.
    pub fn reserved_bits(&self) -> u8 {
        ((self.raw.frag.get() >> 1) & 3) as u8
    }

    /// More-fragments flag.
    pub fn more(&self) -> bool {
        self.raw.frag.get() & 1 != 0
    }

    /// Identification.
    pub fn ident(&self) -> u32 {
        self.raw.ident.get()
    }

    /// An atomic fragment (offset 0, no more fragments; RFC 6946) is a whole packet.
    pub fn is_atomic(&self) -> bool {
        self.offset() == 0 && !self.more()
    }
}

/// A writable view of one extension header's first two bytes (the next
/// header is what encapsulation and GRO rewrite).
#[derive(Debug)]
pub struct Ipv6ExtHeaderMut<'a> {
    raw: &'a mut Ipv6ExtRaw,
}

impl<'a> Ipv6ExtHeaderMut<'a> {
    /// Same checks as [`Ipv6ExtHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8], proto: u8) -> Result<Self, ParseError> {
        Ipv6ExtHeader::new_checked(bytes, proto)?;
        let (raw, _) = prefix_mut::<Ipv6ExtRaw>(bytes, Layer::Ipv6Ext)?;
        Ok(Ipv6ExtHeaderMut { raw })
    }

    /// Sets the next header.
    pub fn set_next_header(&mut self, next: u8) {
        self.raw.next_header = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(last: u8) -> [u8; 16] {
        let mut a = [0u8; 16];
        a[0] = 0x20;
        a[15] = last;
        a
    }

    /// Routing header of `rtype` with `n` addresses ::1.. and `left` segments left.
    fn routing(rtype: u8, n: u8, left: u8) -> [u8; 72] {
        let mut b = [0u8; 72];
        b[..4].copy_from_slice(&[17, n * 2, rtype, left]);
        if rtype == ROUTING_SRH {
            b[4] = n.saturating_sub(1);
            b[5] = 0xA5;
            b[6] = 0x12;
            b[7] = 0x34;
        }
        for i in 0..n as usize {
            b[8 + i * 16..24 + i * 16].copy_from_slice(&addr(i as u8 + 1));
        }
        b
    }

    #[test]
    fn hop_by_hop_options() {
        // HBH, len 0 (8 bytes): jumbo (C2, 4, value 0x00012345), next UDP.
        let b = [17, 0, 0xC2, 4, 0, 1, 0x23, 0x45, 0xFF];
        let h = Ipv6ExtHeader::new_checked(&b, ipproto::HOPOPTS).unwrap();
        assert_eq!(
            (h.next_header(), h.hdr_ext_len(), h.header_len()),
            (17, 0, 8)
        );
        assert_eq!(
            (h.protocol(), h.as_bytes().len(), h.body().len()),
            (ipproto::HOPOPTS, 8, 6)
        );
        let mut it = h.options().unwrap();
        assert_eq!(
            it.next().unwrap().unwrap(),
            Ipv6Option {
                kind: OPT_JUMBO,
                offset: 2,
                data: &[0, 1, 0x23, 0x45]
            }
        );
        assert!(it.next().is_none());
        assert!(h.routing().is_none() && h.fragment().is_none());
        // Destination options: Pad1, Pad1, PadN with 2 bytes of data.
        let b = [17, 0, 0, 0, 1, 2, 0, 0];
        let h = Ipv6ExtHeader::new_checked(&b, ipproto::DSTOPTS).unwrap();
        let mut it = h.options().unwrap();
        let pad1 = |offset| Ipv6Option {
            kind: OPT_PAD1,
            offset,
            data: &[],
        };
        assert_eq!(it.next().unwrap().unwrap(), pad1(2));
        assert_eq!(it.next().unwrap().unwrap(), pad1(3));
        assert_eq!(
            it.next().unwrap().unwrap(),
            Ipv6Option {
                kind: OPT_PADN,
                offset: 4,
                data: &[0, 0]
            }
        );
        assert!(it.next().is_none());
    }

    #[test]
    fn option_errors() {
        // PadN claiming 5 bytes where 4 remain.
        let b = [17, 0, 1, 5, 0, 0, 0, 0];
        let h = Ipv6ExtHeader::new_checked(&b, ipproto::DSTOPTS).unwrap();
        let mut it = h.options().unwrap();
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(
            (e.layer, e.field, e.offset),
            (Layer::Ipv6Ext, Field::OptionLength, 2)
        );
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 7,
                available: 6
            }
        );
        assert!(it.next().is_none());
        // An option type in the last byte has no length byte.
        let b = [17, 0, 1, 3, 0, 0, 0, 0xC9];
        let h = Ipv6ExtHeader::new_checked(&b, ipproto::DSTOPTS).unwrap();
        let e = h.options().unwrap().find_map(Result::err).unwrap();
        assert_eq!(
            (e.offset, e.kind),
            (
                7,
                ErrorKind::Truncated {
                    needed: 2,
                    available: 1
                }
            )
        );
    }

    #[test]
    fn lengths_by_kind_and_errors() {
        let mut b = [0u8; 24];
        b[1] = 2; // AH: (2 + 2) * 4 = 16; others: (2 + 1) * 8 = 24
        assert_eq!(
            Ipv6ExtHeader::new_checked(&b, ipproto::AH)
                .unwrap()
                .header_len(),
            16
        );
        assert_eq!(
            Ipv6ExtHeader::new_checked(&b, ipproto::ROUTING)
                .unwrap()
                .header_len(),
            24
        );
        assert_eq!(
            Ipv6ExtHeader::new_checked(&b, ipproto::FRAGMENT)
                .unwrap()
                .header_len(),
            8
        );
        let e = Ipv6ExtHeader::new_checked(&b[..23], ipproto::DSTOPTS).unwrap_err();
        assert_eq!(
            (e.field, e.kind),
            (
                Field::ExtLength,
                ErrorKind::LengthBeyondBuffer {
                    claimed: 24,
                    available: 23
                }
            )
        );
        let e = Ipv6ExtHeader::new_checked(&b, ipproto::TCP).unwrap_err();
        assert_eq!(
            (e.field, e.kind),
            (Field::ExtHeader, ErrorKind::Unsupported { value: 6 })
        );
        for cut in 0..8 {
            assert_eq!(
                Ipv6ExtHeader::new_checked(&b[..cut], ipproto::HOPOPTS).unwrap_err(),
                ParseError::truncated(Layer::Ipv6Ext, 0, 8, cut)
            );
            assert!(FragmentHeader::new_checked(&b[..cut]).is_err());
        }
        let mut m = b;
        let mut w = Ipv6ExtHeaderMut::new_checked(&mut m, ipproto::AH).unwrap();
        w.set_next_header(59);
        assert_eq!(m[0], 59);
        assert!(Ipv6ExtHeaderMut::new_checked(&mut m[..15], ipproto::AH).is_err());
    }

    #[test]
    fn routing_final_destination() {
        // Type 0 with 3 addresses, 2 left: the last address is final.
        let b = routing(ROUTING_TYPE0, 3, 2);
        let h = Ipv6ExtHeader::new_checked(&b, ipproto::ROUTING).unwrap();
        let r = h.routing().unwrap();
        assert_eq!(
            (r.routing_type(), r.segments_left(), r.address_count()),
            (0, 2, 3)
        );
        assert_eq!(r.final_destination_offset(), Some(8 + 2 * 16));
        assert_eq!(r.address(2), Some(addr(3)));
        assert_eq!(r.address(3), None);
        assert_eq!(r.srh_last_entry(), None);
        // SRH with 4 segments: Segment List[0] is final.
        let b = routing(ROUTING_SRH, 4, 1);
        let r = Ipv6ExtHeader::new_checked(&b, ipproto::ROUTING)
            .unwrap()
            .routing()
            .unwrap();
        assert_eq!(
            (r.srh_last_entry(), r.srh_flags(), r.srh_tag()),
            (Some(3), Some(0xA5), Some(0x1234))
        );
        assert_eq!(r.address_count(), 4);
        assert_eq!(r.final_destination_offset(), Some(8));
        assert_eq!(r.address(0), Some(addr(1)));
        // Type 2: its single home address.
        let b = routing(ROUTING_TYPE2, 1, 1);
        let r = Ipv6ExtHeader::new_checked(&b, ipproto::ROUTING)
            .unwrap()
            .routing()
            .unwrap();
        assert_eq!(r.final_destination_offset(), Some(8));
        // No segments left: the IPv6 destination is final.
        let b = routing(ROUTING_SRH, 2, 0);
        let r = Ipv6ExtHeader::new_checked(&b, ipproto::ROUTING)
            .unwrap()
            .routing()
            .unwrap();
        assert_eq!(r.final_destination_offset(), None);
        // Unknown type: nothing listed.
        let b = routing(3, 2, 1);
        let r = Ipv6ExtHeader::new_checked(&b, ipproto::ROUTING)
            .unwrap()
            .routing()
            .unwrap();
        assert_eq!((r.address_count(), r.final_destination_offset()), (0, None));
        // Type 0 with an 8-byte header: no addresses.
        let b = [17, 0, 0, 1, 0, 0, 0, 0];
        let r = Ipv6ExtHeader::new_checked(&b, ipproto::ROUTING)
            .unwrap()
            .routing()
            .unwrap();
        assert_eq!((r.address_count(), r.final_destination_offset()), (0, None));
    }

    #[test]
    fn fragment_fields() {
        let b = [6, 0x11, 0x05, 0x3B, 0xDE, 0xAD, 0xBE, 0xEF];
        let h = Ipv6ExtHeader::new_checked(&b, ipproto::FRAGMENT).unwrap();
        let f = h.fragment().unwrap();
        assert_eq!(
            (f.next_header(), f.reserved(), f.header_len()),
            (6, 0x11, 8)
        );
        assert_eq!((f.offset(), f.reserved_bits(), f.more()), (0x0538, 1, true));
        assert_eq!(f.ident(), 0xDEAD_BEEF);
        assert!(!f.is_atomic());
        let atomic = FragmentHeader::new_checked(&[6, 0, 0, 0, 0, 0, 0, 1]).unwrap();
        assert!(atomic.is_atomic());
        assert!(h.options().is_none());
    }
}
