//! IPv4 header view with options (RFC 791).
//!
//! The checked constructor applies the length rules of Linux `ip_rcv_core()`:
//! version 4, IHL >= 5, the header present, IHL <= total length <= buffer.
//! Options are walked by [`Ipv4Options`] with the length checks of
//! `ip_options_compile()` (length >= 2 and within the header).

use zerocopy::network_endian::U16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{prefix, prefix_mut};
use super::error::{ErrorKind, Field, Layer, ParseError};

/// Length of the header without options.
pub const MIN_HEADER_LEN: usize = 20;
/// Longest header (IHL 15).
pub const MAX_HEADER_LEN: usize = 60;
/// Offset of the total length.
pub const TOTAL_LEN_OFFSET: usize = 2;
/// Offset of the identification.
pub const ID_OFFSET: usize = 4;
/// Offset of the flags and fragment offset word.
pub const FRAG_OFFSET: usize = 6;
/// Offset of the TTL.
pub const TTL_OFFSET: usize = 8;
/// Offset of the protocol.
pub const PROTOCOL_OFFSET: usize = 9;
/// Offset of the header checksum.
pub const CHECKSUM_OFFSET: usize = 10;
/// Offset of the source address.
pub const SRC_OFFSET: usize = 12;
/// Offset of the destination address.
pub const DST_OFFSET: usize = 16;
/// Offset of the options.
pub const OPTIONS_OFFSET: usize = 20;
/// Reserved ("evil") flag bit of the fragment word.
pub const FLAG_RESERVED: u16 = 0x8000;
/// Don't-fragment flag bit.
pub const FLAG_DF: u16 = 0x4000;
/// More-fragments flag bit.
pub const FLAG_MF: u16 = 0x2000;
/// Fragment offset mask (in 8-byte units).
pub const FRAG_OFFSET_MASK: u16 = 0x1FFF;
/// Option kind: end of option list.
pub const OPT_EOL: u8 = 0;
/// Option kind: no operation.
pub const OPT_NOP: u8 = 1;

/// The fixed 20 bytes of an IPv4 header in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct Ipv4Raw {
    /// Version (4 bits) and IHL in 4-byte words (4 bits).
    pub version_ihl: u8,
    /// DSCP (6 bits) and ECN (2 bits).
    pub tos: u8,
    /// Total length of the datagram.
    pub total_len: U16,
    /// Identification.
    pub id: U16,
    /// Flags (3 bits) and fragment offset in 8-byte units (13 bits).
    pub frag: U16,
    /// Time to live.
    pub ttl: u8,
    /// Protocol of the payload.
    pub protocol: u8,
    /// Header checksum in wire order.
    pub checksum: [u8; 2],
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
}

/// Which length rules a constructor applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LengthRule {
    /// IHL <= total length <= buffer.
    Datagram,
    /// Header only (a TSO / BIG TCP super-frame may carry total length 0).
    HeaderOnly,
}

fn check(bytes: &[u8], rule: LengthRule) -> Result<usize, ParseError> {
    let (raw, _) = prefix::<Ipv4Raw>(bytes, Layer::Ipv4)?;
    let err = |field, kind| ParseError::new(Layer::Ipv4, field, kind, 0);
    let version = raw.version_ihl >> 4;
    if version != 4 {
        return Err(err(
            Field::Version,
            ErrorKind::Unsupported {
                value: version as u32,
            },
        ));
    }
    let ihl = (raw.version_ihl & 0x0F) as usize * 4;
    if ihl < MIN_HEADER_LEN {
        return Err(err(
            Field::Ihl,
            ErrorKind::LengthTooSmall {
                value: ihl,
                min: MIN_HEADER_LEN,
            },
        ));
    }
    if ihl > bytes.len() {
        return Err(err(
            Field::Ihl,
            ErrorKind::Truncated {
                needed: ihl,
                available: bytes.len(),
            },
        ));
    }
    if rule == LengthRule::Datagram {
        let total = raw.total_len.get() as usize;
        if total < ihl {
            return Err(err(
                Field::TotalLength,
                ErrorKind::LengthTooSmall {
                    value: total,
                    min: ihl,
                },
            ));
        }
        if total > bytes.len() {
            return Err(err(
                Field::TotalLength,
                ErrorKind::LengthBeyondBuffer {
                    claimed: total,
                    available: bytes.len(),
                },
            ));
        }
    }
    Ok(ihl)
}

/// A checked, read-only IPv4 header view (fixed part and options).
#[derive(Clone, Copy, Debug)]
pub struct Ipv4Header<'a> {
    raw: &'a Ipv4Raw,
    options: &'a [u8],
}

impl<'a> Ipv4Header<'a> {
    /// Checks version, IHL, and IHL <= total length <= `bytes.len()`.
    /// Errors: `Version`, `Ihl` (too small or truncated), `TotalLength`.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        Self::build(bytes, LengthRule::Datagram)
    }

    /// Checks version and IHL only, ignoring the total length (for TSO and
    /// BIG TCP super-frames whose total length field is 0).
    pub fn new_checked_header(bytes: &'a [u8]) -> Result<Self, ParseError> {
        Self::build(bytes, LengthRule::HeaderOnly)
    }

    fn build(bytes: &'a [u8], rule: LengthRule) -> Result<Self, ParseError> {
        let ihl = check(bytes, rule)?;
        let (raw, rest) = prefix::<Ipv4Raw>(bytes, Layer::Ipv4)?;
        let options = rest
            .get(..ihl - MIN_HEADER_LEN)
            .ok_or(ParseError::truncated(Layer::Ipv4, 0, ihl, bytes.len()))?;
        Ok(Ipv4Header { raw, options })
    }

    /// The fixed part as its zerocopy struct.
    pub const fn raw(&self) -> &'a Ipv4Raw {
        self.raw
    }

    /// Version (always 4).
    pub const fn version(&self) -> u8 {
        self.raw.version_ihl >> 4
    }

    /// IHL field in 4-byte words.
    pub const fn ihl(&self) -> u8 {
        self.raw.version_ihl & 0x0F
    }

    /// Header length in bytes (IHL * 4).
    pub const fn header_len(&self) -> usize {
        MIN_HEADER_LEN + self.options.len()
    }

    /// The TOS byte.
    pub const fn tos(&self) -> u8 {
        self.raw.tos
    }

    /// DSCP (6 bits).
    pub const fn dscp(&self) -> u8 {
        self.raw.tos >> 2
    }

    /// ECN (2 bits).
    pub const fn ecn(&self) -> u8 {
        self.raw.tos & 3
    }

    /// Total length field.
    pub fn total_len(&self) -> u16 {
        self.raw.total_len.get()
    }

    /// Identification.
    pub fn id(&self) -> u16 {
        self.raw.id.get()
    }

    /// The flags and fragment offset word.
    pub fn frag_word(&self) -> u16 {
        self.raw.frag.get()
    }

    /// Reserved flag bit.
    pub fn reserved_flag(&self) -> bool {
        self.frag_word() & FLAG_RESERVED != 0
    }

    /// Don't-fragment flag.
    pub fn dont_fragment(&self) -> bool {
        self.frag_word() & FLAG_DF != 0
    }

    /// More-fragments flag.
    pub fn more_fragments(&self) -> bool {
        self.frag_word() & FLAG_MF != 0
    }

    /// Fragment offset in bytes.
    pub fn frag_offset(&self) -> usize {
        (self.frag_word() & FRAG_OFFSET_MASK) as usize * 8
    }

    /// True for any fragment (MF set or a non-zero offset), as `ip_is_fragment()`.
    pub fn is_fragment(&self) -> bool {
        self.frag_word() & (FLAG_MF | FRAG_OFFSET_MASK) != 0
    }

    /// Time to live.
    pub const fn ttl(&self) -> u8 {
        self.raw.ttl
    }

    /// Protocol of the payload.
    pub const fn protocol(&self) -> u8 {
        self.raw.protocol
    }

    /// Header checksum in wire order.
    pub const fn checksum(&self) -> [u8; 2] {
        self.raw.checksum
    }

    /// Source address.
    pub const fn src(&self) -> [u8; 4] {
        self.raw.src
    }

    /// Destination address.
    pub const fn dst(&self) -> [u8; 4] {
        self.raw.dst
    }

    /// The option bytes (IHL * 4 - 20 of them).
    pub const fn options_bytes(&self) -> &'a [u8] {
        self.options
    }

    /// The options, each checked as it is reached.
    pub const fn options(&self) -> Ipv4Options<'a> {
        Ipv4Options {
            rest: self.options,
            at: OPTIONS_OFFSET,
        }
    }

    /// Walks every option; the first malformed one is the error.
    pub fn validate_options(&self) -> Result<(), ParseError> {
        self.options().try_for_each(|o| o.map(|_| ()))
    }
}

/// One IPv4 option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Option<'a> {
    /// Option type byte (copied flag, class, number).
    pub kind: u8,
    /// Offset of the option from the IPv4 header start.
    pub offset: usize,
    /// The option's data after its type and length bytes (empty for EOL and NOP).
    pub data: &'a [u8],
}

impl Ipv4Option<'_> {
    /// Whole option length in bytes (1 for EOL and NOP).
    pub const fn len(&self) -> usize {
        match self.kind {
            OPT_EOL | OPT_NOP => 1,
            _ => 2 + self.data.len(),
        }
    }

    /// True when the option carries no data (EOL, NOP, or a 2-byte TLV).
    pub const fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Copied flag: the option is copied into every fragment.
    pub const fn copied(&self) -> bool {
        self.kind & 0x80 != 0
    }
}

/// Iterator over IPv4 options; yields an error (then stops) on a length byte
/// below 2 or beyond the header. EOL is yielded and ends the walk.
#[derive(Clone, Debug)]
pub struct Ipv4Options<'a> {
    rest: &'a [u8],
    at: usize,
}

impl<'a> Iterator for Ipv4Options<'a> {
    type Item = Result<Ipv4Option<'a>, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (&kind, tail) = self.rest.split_first()?;
        let offset = self.at;
        if kind == OPT_EOL || kind == OPT_NOP {
            self.rest = if kind == OPT_EOL { &[] } else { tail };
            self.at += 1;
            return Some(Ok(Ipv4Option {
                kind,
                offset,
                data: &[],
            }));
        }
        let bad = |kind| {
            Some(Err(ParseError::new(
                Layer::Ipv4,
                Field::OptionLength,
                kind,
                offset,
            )))
        };
        let available = self.rest.len();
        let Some((&len, _)) = tail.split_first() else {
            self.rest = &[];
            return bad(ErrorKind::Truncated {
                needed: 2,
                available,
            });
        };
        let len = len as usize;
        if len < 2 {
            self.rest = &[];
            return bad(ErrorKind::LengthTooSmall { value: len, min: 2 });
        }
        match (self.rest.get(2..len), self.rest.get(len..)) {
            (Some(data), Some(rest)) => {
                self.rest = rest;
                self.at += len;
                Some(Ok(Ipv4Option { kind, offset, data }))
            }
            _ => {
                self.rest = &[];
                bad(ErrorKind::LengthBeyondBuffer {
                    claimed: len,
                    available,
                })
            }
        }
    }
}

/// A checked, writable IPv4 header view: the fields forwarding, NAT and
/// segmentation rewrite. The IHL (which fixes the length) is not writable.
#[derive(Debug)]
pub struct Ipv4HeaderMut<'a> {
    raw: &'a mut Ipv4Raw,
    options: &'a mut [u8],
}

impl<'a> Ipv4HeaderMut<'a> {
    /// Same checks as [`Ipv4Header::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        Self::build(bytes, LengthRule::Datagram)
    }

    /// Same checks as [`Ipv4Header::new_checked_header`], over writable bytes.
    pub fn new_checked_header(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        Self::build(bytes, LengthRule::HeaderOnly)
    }

    fn build(bytes: &'a mut [u8], rule: LengthRule) -> Result<Self, ParseError> {
        let ihl = check(bytes, rule)?;
        let total = bytes.len();
        let (raw, rest) = prefix_mut::<Ipv4Raw>(bytes, Layer::Ipv4)?;
        let options = rest
            .get_mut(..ihl - MIN_HEADER_LEN)
            .ok_or(ParseError::truncated(Layer::Ipv4, 0, ihl, total))?;
        Ok(Ipv4HeaderMut { raw, options })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> Ipv4Header<'_> {
        Ipv4Header {
            raw: self.raw,
            options: self.options,
        }
    }

    /// The header bytes the header checksum covers, fixed part first (for
    /// recomputing it: sum `raw` bytes then `options`).
    pub fn header_parts(&self) -> (&[u8], &[u8]) {
        (self.raw.as_bytes(), self.options)
    }

    /// Sets the total length.
    pub fn set_total_len(&mut self, len: u16) {
        self.raw.total_len.set(len);
    }

    /// Sets the identification.
    pub fn set_id(&mut self, id: u16) {
        self.raw.id.set(id);
    }

    /// Sets the flags and fragment offset word.
    pub fn set_frag_word(&mut self, word: u16) {
        self.raw.frag.set(word);
    }

    /// Sets the TTL.
    pub fn set_ttl(&mut self, ttl: u8) {
        self.raw.ttl = ttl;
    }

    /// Sets the TOS byte.
    pub fn set_tos(&mut self, tos: u8) {
        self.raw.tos = tos;
    }

    /// Sets the protocol.
    pub fn set_protocol(&mut self, protocol: u8) {
        self.raw.protocol = protocol;
    }

    /// Sets the header checksum (wire order).
    pub fn set_checksum(&mut self, csum: [u8; 2]) {
        self.raw.checksum = csum;
    }

    /// Sets the source address.
    pub fn set_src(&mut self, addr: [u8; 4]) {
        self.raw.src = addr;
    }

    /// Sets the destination address.
    pub fn set_dst(&mut self, addr: [u8; 4]) {
        self.raw.dst = addr;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IHL 7: NOP, router alert (kind 0x94, len 4, value 0), NOP, NOP, EOL; total length 30 (28 header + 2 payload); DF set; TTL 64;
    /// TCP; 10.0.0.1 -> 10.0.0.2.
    const WITH_OPTS: [u8; 32] = [
        0x47, 0xB9, 0x00, 30, 0x12, 0x34, 0x40, 0x00, 64, 6, 0xAB, 0xCD, 10, 0, 0, 1, 10, 0, 0, 2,
        1, 0x94, 4, 0, 0, 1, 1, 0, // options
        0xEE, 0xEE, // payload
        0, 0, // padding
    ];

    #[test]
    fn fields() {
        let h = Ipv4Header::new_checked(&WITH_OPTS).unwrap();
        assert_eq!((h.version(), h.ihl(), h.header_len()), (4, 7, 28));
        assert_eq!((h.tos(), h.dscp(), h.ecn()), (0xB9, 0x2E, 1));
        assert_eq!(
            (h.total_len(), h.id(), h.ttl(), h.protocol()),
            (30, 0x1234, 64, 6)
        );
        assert!(h.dont_fragment() && !h.more_fragments() && !h.reserved_flag());
        assert!(!h.is_fragment());
        assert_eq!(h.frag_offset(), 0);
        assert_eq!(h.checksum(), [0xAB, 0xCD]);
        assert_eq!((h.src(), h.dst()), ([10, 0, 0, 1], [10, 0, 0, 2]));
        let mut it = h.options();
        let got = [(); 5].map(|()| it.next().unwrap().unwrap());
        assert_eq!((got[0].kind, got[0].offset, got[0].len()), (OPT_NOP, 20, 1));
        assert_eq!((got[1].kind, got[1].offset, got[1].len()), (0x94, 21, 4));
        assert_eq!(got[1].data, &[0, 0]);
        assert!(got[1].copied() && !got[0].copied());
        assert!(got[0].is_empty() && !got[1].is_empty());
        assert_eq!((got[2].kind, got[3].offset), (OPT_NOP, 26));
        assert_eq!((got[4].kind, got[4].offset, got[4].len()), (OPT_EOL, 27, 1));
        assert!(it.next().is_none());
        assert_eq!(h.validate_options(), Ok(()));
    }

    #[test]
    fn fragment_fields() {
        let mut b = WITH_OPTS;
        b[6] = 0x20 | 0x80;
        b[7] = 3; // MF + reserved, offset 3 units
        let h = Ipv4Header::new_checked(&b).unwrap();
        assert!(h.more_fragments() && h.reserved_flag() && h.is_fragment());
        assert_eq!(h.frag_offset(), 24);
    }

    fn err(b: &[u8]) -> ParseError {
        Ipv4Header::new_checked(b).unwrap_err()
    }

    #[test]
    fn error_variants() {
        let mut b = WITH_OPTS;
        b[0] = 0x67;
        assert_eq!(err(&b).field, Field::Version);
        b[0] = 0x44;
        assert_eq!(
            err(&b).kind,
            ErrorKind::LengthTooSmall { value: 16, min: 20 }
        );
        assert_eq!(err(&b).field, Field::Ihl);
        // IHL beyond the buffer.
        let e = err(&WITH_OPTS[..24]);
        assert_eq!(
            (e.field, e.kind),
            (
                Field::Ihl,
                ErrorKind::Truncated {
                    needed: 28,
                    available: 24
                }
            )
        );
        // Total length below IHL.
        let mut b = WITH_OPTS;
        b[3] = 27;
        let e = err(&b);
        assert_eq!(
            (e.field, e.kind),
            (
                Field::TotalLength,
                ErrorKind::LengthTooSmall { value: 27, min: 28 }
            )
        );
        assert!(Ipv4Header::new_checked_header(&b).is_ok());
        // Total length beyond the buffer.
        let e = err(&WITH_OPTS[..29]);
        assert_eq!(e.field, Field::TotalLength);
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 30,
                available: 29
            }
        );
        assert!(Ipv4Header::new_checked_header(&WITH_OPTS[..29]).is_ok());
        for cut in 0..20 {
            assert_eq!(
                err(&WITH_OPTS[..cut]),
                ParseError::truncated(Layer::Ipv4, 0, 20, cut)
            );
        }
    }

    #[test]
    fn option_errors() {
        let opt_err = |opts: [u8; 8]| {
            let mut b = WITH_OPTS;
            b[20..28].copy_from_slice(&opts);
            let h = Ipv4Header::new_checked(&b).unwrap();
            let e = h.validate_options().unwrap_err();
            // The iterator stops after the error.
            let mut it = h.options();
            assert!(it.by_ref().any(|o| o.is_err()));
            assert!(it.next().is_none());
            e
        };
        let e = opt_err([1, 1, 1, 7, 9, 0, 0, 0]);
        assert_eq!((e.field, e.offset), (Field::OptionLength, 23));
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 9,
                available: 5
            }
        );
        let e = opt_err([7, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(e.kind, ErrorKind::LengthTooSmall { value: 1, min: 2 });
        let e = opt_err([1, 1, 1, 1, 1, 1, 1, 0x44]);
        assert_eq!(
            e.kind,
            ErrorKind::Truncated {
                needed: 2,
                available: 1
            }
        );
        assert_eq!(e.offset, 27);
    }

    #[test]
    fn setters() {
        let mut b = WITH_OPTS;
        let mut m = Ipv4HeaderMut::new_checked(&mut b).unwrap();
        m.set_total_len(28);
        m.set_id(0xBEEF);
        m.set_frag_word(0x2001);
        m.set_ttl(1);
        m.set_tos(0);
        m.set_protocol(17);
        m.set_checksum([0, 0]);
        m.set_src([192, 0, 2, 1]);
        m.set_dst([192, 0, 2, 2]);
        let (fixed, opts) = m.header_parts();
        assert_eq!((fixed.len(), opts.len()), (20, 8));
        assert_eq!(m.view().frag_offset(), 8);
        assert_eq!(
            b[..20],
            [
                0x47, 0, 0, 28, 0xBE, 0xEF, 0x20, 0x01, 1, 17, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2
            ]
        );
        assert_eq!(b[20..], WITH_OPTS[20..]);
        let mut short = WITH_OPTS;
        assert!(Ipv4HeaderMut::new_checked(&mut short[..29]).is_err());
        assert!(Ipv4HeaderMut::new_checked_header(&mut short[..29]).is_ok());
    }
}
