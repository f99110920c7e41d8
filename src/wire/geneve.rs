//! GENEVE header view (RFC 8926): version 0, option length in 4-byte words,
//! O (control) and C (critical options) bits, protocol type, VNI, and the
//! option TLVs (class, type with its critical bit, length in 4-byte words).
//!
//! The checked constructor walks every option once, so the option iterator
//! never meets a malformed one. Like Linux `geneve_udp_encap_recv()`, any
//! version other than 0 is refused.

use zerocopy::network_endian::U16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{prefix, prefix_mut, to_u24, u24};
use super::error::{ErrorKind, Field, Layer, ParseError};

/// Length of the fixed part.
pub const FIXED_LEN: usize = 8;
/// Longest header (fixed part + 63 option words).
pub const MAX_LEN: usize = FIXED_LEN + 63 * 4;
/// Length of an option's own header (class, type, length).
pub const OPTION_HEADER_LEN: usize = 4;
/// O bit: control (OAM) packet.
pub const FLAG_OAM: u8 = 0x80;
/// C bit: critical options present.
pub const FLAG_CRITICAL: u8 = 0x40;
/// Critical bit of an option's type.
pub const OPTION_TYPE_CRITICAL: u8 = 0x80;
/// Offset of the protocol type.
pub const PROTOCOL_OFFSET: usize = 2;
/// Offset of the VNI.
pub const VNI_OFFSET: usize = 4;

/// The fixed 8 GENEVE bytes in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct GeneveRaw {
    /// Version (2 bits) and option length in 4-byte words (6 bits).
    pub ver_opt_len: u8,
    /// O, C, and 6 reserved bits.
    pub flags: u8,
    /// EtherType of the payload (0x6558 for Ethernet).
    pub protocol: U16,
    /// Virtual network identifier.
    pub vni: [u8; 3],
    /// Reserved.
    pub reserved: u8,
}

/// One option's 4-byte header in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct GeneveOptionRaw {
    /// Option class (namespace).
    pub class: U16,
    /// Type; the high bit marks a critical option.
    pub option_type: u8,
    /// Three reserved bits and the data length in 4-byte words (5 bits).
    pub len: u8,
}

/// Checks the option area; the error offset is the faulty option's offset
/// counted from the GENEVE header start.
fn walk(options: &[u8]) -> Result<(), ParseError> {
    let mut at = 0;
    while let Some(rest) = options.get(at..) {
        if rest.is_empty() {
            break;
        }
        let err = |kind| ParseError::new(Layer::Geneve, Field::GeneveOption, kind, FIXED_LEN + at);
        let (opt, _) = GeneveOptionRaw::ref_from_prefix(rest).map_err(|_| {
            err(ErrorKind::Truncated {
                needed: OPTION_HEADER_LEN,
                available: rest.len(),
            })
        })?;
        let len = OPTION_HEADER_LEN + (opt.len & 0x1F) as usize * 4;
        if len > rest.len() {
            return Err(err(ErrorKind::LengthBeyondBuffer {
                claimed: len,
                available: rest.len(),
            }));
        }
        at += len;
    }
    Ok(())
}

/// Checks the fixed part and the options; returns the header length.
fn check(bytes: &[u8]) -> Result<usize, ParseError> {
    let (raw, _) = prefix::<GeneveRaw>(bytes, Layer::Geneve)?;
    let version = raw.ver_opt_len >> 6;
    if version != 0 {
        return Err(ParseError::new(
            Layer::Geneve,
            Field::GeneveVersion,
            ErrorKind::Unsupported {
                value: version as u32,
            },
            0,
        ));
    }
    let len = FIXED_LEN + (raw.ver_opt_len & 0x3F) as usize * 4;
    let options = bytes.get(FIXED_LEN..len).ok_or(ParseError::new(
        Layer::Geneve,
        Field::GeneveOptLength,
        ErrorKind::LengthBeyondBuffer {
            claimed: len,
            available: bytes.len(),
        },
        0,
    ))?;
    walk(options)?;
    Ok(len)
}

/// A checked, read-only GENEVE header view.
#[derive(Clone, Copy, Debug)]
pub struct GeneveHeader<'a> {
    raw: &'a GeneveRaw,
    options: &'a [u8],
}

impl<'a> GeneveHeader<'a> {
    /// Checks version 0, that the option length fits `bytes`, and that every
    /// option fits the option area. Errors: `GeneveVersion`, `GeneveOptLength`,
    /// `GeneveOption` (offset of the option), or truncation of the fixed part.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let len = check(bytes)?;
        let (raw, rest) = prefix::<GeneveRaw>(bytes, Layer::Geneve)?;
        let options = rest.get(..len - FIXED_LEN).ok_or(ParseError::truncated(
            Layer::Geneve,
            0,
            len,
            bytes.len(),
        ))?;
        Ok(GeneveHeader { raw, options })
    }

    /// The fixed part as its zerocopy struct.
    pub const fn raw(&self) -> &'a GeneveRaw {
        self.raw
    }

    /// Header length including options.
    pub const fn header_len(&self) -> usize {
        FIXED_LEN + self.options.len()
    }

    /// Version (always 0 after the check).
    pub const fn version(&self) -> u8 {
        self.raw.ver_opt_len >> 6
    }

    /// Option length field, in 4-byte words.
    pub const fn opt_len_words(&self) -> u8 {
        self.raw.ver_opt_len & 0x3F
    }

    /// O bit: a control packet.
    pub const fn is_oam(&self) -> bool {
        self.raw.flags & FLAG_OAM != 0
    }

    /// C bit: the sender says critical options are present.
    pub const fn has_critical_flag(&self) -> bool {
        self.raw.flags & FLAG_CRITICAL != 0
    }

    /// The 6 reserved flag bits.
    pub const fn reserved_flags(&self) -> u8 {
        self.raw.flags & 0x3F
    }

    /// Protocol type (EtherType of the payload).
    pub fn protocol(&self) -> u16 {
        self.raw.protocol.get()
    }

    /// The VNI.
    pub const fn vni(&self) -> u32 {
        u24(self.raw.vni)
    }

    /// The reserved byte after the VNI.
    pub const fn reserved(&self) -> u8 {
        self.raw.reserved
    }

    /// The option area as bytes.
    pub const fn options_bytes(&self) -> &'a [u8] {
        self.options
    }

    /// The options, in order.
    pub const fn options(&self) -> GeneveOptions<'a> {
        GeneveOptions {
            rest: self.options,
            at: FIXED_LEN,
        }
    }

    /// True when any option has its type's critical bit set (what the C bit
    /// should say; Linux drops such packets unless metadata collection is on).
    pub fn any_critical_option(&self) -> bool {
        self.options().any(|o| o.is_critical())
    }
}

/// Iterator over the options of a checked GENEVE header.
#[derive(Clone, Debug)]
pub struct GeneveOptions<'a> {
    rest: &'a [u8],
    at: usize,
}

impl<'a> Iterator for GeneveOptions<'a> {
    type Item = GeneveOption<'a>;

    fn next(&mut self) -> Option<GeneveOption<'a>> {
        let (raw, tail) = GeneveOptionRaw::ref_from_prefix(self.rest).ok()?;
        let data_len = (raw.len & 0x1F) as usize * 4;
        let data = tail.get(..data_len)?;
        let opt = GeneveOption {
            raw,
            data,
            offset: self.at,
        };
        self.rest = tail.get(data_len..).unwrap_or(&[]);
        self.at += OPTION_HEADER_LEN + data_len;
        Some(opt)
    }
}

/// One GENEVE option.
#[derive(Clone, Copy, Debug)]
pub struct GeneveOption<'a> {
    raw: &'a GeneveOptionRaw,
    data: &'a [u8],
    offset: usize,
}

impl<'a> GeneveOption<'a> {
    /// The option header as its zerocopy struct.
    pub const fn raw(&self) -> &'a GeneveOptionRaw {
        self.raw
    }

    /// Offset of the option from the GENEVE header start.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// Option class.
    pub fn class(&self) -> u16 {
        self.raw.class.get()
    }

    /// The full type byte (critical bit included).
    pub const fn option_type(&self) -> u8 {
        self.raw.option_type
    }

    /// The type's critical bit.
    pub const fn is_critical(&self) -> bool {
        self.raw.option_type & OPTION_TYPE_CRITICAL != 0
    }

    /// The three reserved bits before the length.
    pub const fn reserved(&self) -> u8 {
        self.raw.len >> 5
    }

    /// Data length field, in 4-byte words.
    pub const fn len_words(&self) -> u8 {
        self.raw.len & 0x1F
    }

    /// Whole option length in bytes (header + data).
    pub const fn total_len(&self) -> usize {
        OPTION_HEADER_LEN + self.data.len()
    }

    /// The option data.
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }
}

/// A checked, writable GENEVE header view (fixed fields and option bytes; the
/// option length, which fixes the header length, is not writable).
#[derive(Debug)]
pub struct GeneveHeaderMut<'a> {
    raw: &'a mut GeneveRaw,
    options: &'a mut [u8],
}

impl<'a> GeneveHeaderMut<'a> {
    /// Same checks as [`GeneveHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        let len = check(bytes)?;
        let total = bytes.len();
        let (raw, rest) = prefix_mut::<GeneveRaw>(bytes, Layer::Geneve)?;
        let options = rest
            .get_mut(..len - FIXED_LEN)
            .ok_or(ParseError::truncated(Layer::Geneve, 0, len, total))?;
        Ok(GeneveHeaderMut { raw, options })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> GeneveHeader<'_> {
        GeneveHeader {
            raw: self.raw,
            options: self.options,
        }
    }

    /// Sets the VNI (low 24 bits).
    pub fn set_vni(&mut self, vni: u32) {
        self.raw.vni = to_u24(vni);
    }

    /// Sets the protocol type.
    pub fn set_protocol(&mut self, protocol: u16) {
        self.raw.protocol.set(protocol);
    }

    /// Sets or clears the O bit.
    pub fn set_oam(&mut self, on: bool) {
        self.raw.flags = (self.raw.flags & !FLAG_OAM) | if on { FLAG_OAM } else { 0 };
    }

    /// Sets or clears the C bit.
    pub fn set_critical_flag(&mut self, on: bool) {
        self.raw.flags = (self.raw.flags & !FLAG_CRITICAL) | if on { FLAG_CRITICAL } else { 0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opt len 3 words, O clear, C set, Ethernet, VNI 0x000102; one critical
    /// option (class 0x0103, type 0x80, 1 data word) and one empty option.
    const TWO_OPTS: [u8; 22] = [
        0x03, 0x40, 0x65, 0x58, 0x00, 0x01, 0x02, 0x00, // fixed
        0x01, 0x03, 0x80, 0x01, 0xAA, 0xBB, 0xCC, 0xDD, // option 1
        0xFF, 0xFF, 0x05, 0xE0, // option 2: reserved bits set, no data
        0x00, 0x00, // payload
    ];

    #[test]
    fn fields_and_options() {
        let g = GeneveHeader::new_checked(&TWO_OPTS).unwrap();
        assert_eq!(g.header_len(), 20);
        assert_eq!((g.version(), g.opt_len_words()), (0, 3));
        assert!(!g.is_oam() && g.has_critical_flag());
        assert_eq!(g.reserved_flags(), 0);
        assert_eq!(g.protocol(), 0x6558);
        assert_eq!(g.vni(), 0x102);
        assert_eq!(g.reserved(), 0);
        assert!(g.any_critical_option());
        let mut it = g.options();
        let a = it.next().unwrap();
        assert_eq!(
            (a.class(), a.option_type(), a.is_critical()),
            (0x0103, 0x80, true)
        );
        assert_eq!((a.len_words(), a.total_len(), a.offset()), (1, 8, 8));
        assert_eq!(a.data(), &[0xAA, 0xBB, 0xCC, 0xDD]);
        let b = it.next().unwrap();
        assert_eq!(
            (b.class(), b.option_type(), b.is_critical()),
            (0xFFFF, 5, false)
        );
        assert_eq!((b.reserved(), b.len_words(), b.offset()), (7, 0, 16));
        assert!(b.data().is_empty());
        assert!(it.next().is_none());
    }

    #[test]
    fn no_options() {
        let b = [0x00, 0x80, 0x08, 0x00, 0, 0, 7, 0];
        let g = GeneveHeader::new_checked(&b).unwrap();
        assert_eq!(g.header_len(), 8);
        assert!(g.is_oam());
        assert_eq!(g.options().count(), 0);
        assert!(!g.any_critical_option());
    }

    fn err(b: &[u8]) -> ParseError {
        GeneveHeader::new_checked(b).unwrap_err()
    }

    #[test]
    fn error_variants() {
        let mut b = TWO_OPTS;
        b[0] |= 0x40; // version 1
        let e = err(&b);
        assert_eq!(
            (e.field, e.kind),
            (Field::GeneveVersion, ErrorKind::Unsupported { value: 1 })
        );
        // Opt len beyond the buffer.
        let e = err(&TWO_OPTS[..19]);
        assert_eq!(e.field, Field::GeneveOptLength);
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 20,
                available: 19
            }
        );
        // First option claims 2 data words: overruns the 12-byte option area.
        let mut b = TWO_OPTS;
        b[11] = 0x03;
        let e = err(&b);
        assert_eq!(e.field, Field::GeneveOption);
        assert_eq!(e.offset, 8);
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 16,
                available: 12
            }
        );
        // A one-word area holding an option that claims one more data word.
        let b = [0x01, 0, 0x65, 0x58, 0, 0, 0, 0, 0, 1, 2, 1, 0, 0, 0, 0];
        let e = err(&b);
        assert_eq!((e.field, e.offset), (Field::GeneveOption, 8));
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 8,
                available: 4
            }
        );
        // Option areas are whole words and options are whole words, so an option
        // header can never be cut short: back-to-back empty options all parse.
        let b = [0x02, 0, 0x65, 0x58, 0, 0, 0, 0, 0, 1, 2, 0, 0, 1, 2, 0];
        assert_eq!(GeneveHeader::new_checked(&b).unwrap().options().count(), 2);
        for cut in 0..8 {
            assert_eq!(
                err(&TWO_OPTS[..cut]),
                ParseError::truncated(Layer::Geneve, 0, 8, cut)
            );
        }
    }

    #[test]
    fn truncation_at_every_offset_is_an_error() {
        for cut in 0..20 {
            assert!(
                GeneveHeader::new_checked(&TWO_OPTS[..cut]).is_err(),
                "cut {cut}"
            );
            let mut m = TWO_OPTS;
            assert!(
                GeneveHeaderMut::new_checked(&mut m[..cut]).is_err(),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn setters() {
        let mut b = TWO_OPTS;
        let mut m = GeneveHeaderMut::new_checked(&mut b).unwrap();
        m.set_vni(0xFE_DCBA);
        m.set_protocol(0x0800);
        m.set_oam(true);
        m.set_critical_flag(false);
        assert_eq!(m.view().options().count(), 2);
        assert_eq!(b[..8], [0x03, 0x80, 0x08, 0x00, 0xFE, 0xDC, 0xBA, 0x00]);
        assert_eq!(b[8..], TWO_OPTS[8..]);
    }
}
