//! GRE header view: RFC 2784 (C bit, version 0) with RFC 2890 key and sequence
//! number, and RFC 2637 enhanced GRE (version 1, PPTP: key = payload length +
//! call id, sequence, acknowledgment).
//!
//! Acceptance follows Linux `gre_parse_header()`: version 0 with the routing bit
//! set is refused (as the kernel does), other RFC 1701 reserved bits are carried
//! but ignored. Version 1 follows `pptp_rcv()`: K must be set, C and R clear.

use zerocopy::network_endian::U16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{be16, be32, prefix, prefix_mut, put16, put32};
use super::error::{Absent, ErrorKind, Field, Layer, ParseError};

/// Length of the fixed part (flags+version, protocol type).
pub const FIXED_LEN: usize = 4;
/// Longest GRE header this view accepts (fixed part + checksum, key, sequence; or
/// version 1 key, sequence, acknowledgment).
pub const MAX_LEN: usize = 16;
/// Offset of the checksum field when the C bit is set.
pub const CHECKSUM_OFFSET: usize = 4;
/// Offset of the flags and version word.
pub const FLAGS_OFFSET: usize = 0;
/// Offset of the protocol type.
pub const PROTOCOL_OFFSET: usize = 2;

/// C: checksum (and reserved1) present.
pub const FLAG_CHECKSUM: u16 = 0x8000;
/// R: RFC 1701 routing present (refused, like Linux).
pub const FLAG_ROUTING: u16 = 0x4000;
/// K: key present.
pub const FLAG_KEY: u16 = 0x2000;
/// S: sequence number present.
pub const FLAG_SEQ: u16 = 0x1000;
/// s: RFC 1701 strict source route (ignored).
pub const FLAG_STRICT_ROUTE: u16 = 0x0800;
/// RFC 1701 recursion control (ignored).
pub const RECURSION_MASK: u16 = 0x0700;
/// A: acknowledgment number present (version 1 only).
pub const FLAG_ACK: u16 = 0x0080;
/// Version field.
pub const VERSION_MASK: u16 = 0x0007;
/// PPP, the protocol type enhanced GRE carries.
pub const PROTO_PPP: u16 = 0x880B;

/// The fixed 4 bytes of every GRE header, in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct GreRaw {
    /// C R K S s Recur(3) A Flags(4) Ver(3).
    pub flags_version: U16,
    /// EtherType of the payload.
    pub protocol: U16,
}

/// GRE version, from the low 3 bits of the first word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GreVersion {
    /// Version 0: RFC 2784 / RFC 2890 GRE.
    Gre,
    /// Version 1: RFC 2637 enhanced GRE (PPTP).
    Enhanced,
}

/// Header length the flags word implies, or the field that makes it unusable.
fn layout(flags: u16) -> Result<(GreVersion, usize), ParseError> {
    let flag_err = |value: u16| {
        ParseError::new(
            Layer::Gre,
            Field::GreFlags,
            ErrorKind::Unsupported {
                value: value as u32,
            },
            0,
        )
    };
    let bit = |f: u16| if flags & f != 0 { 4 } else { 0 };
    match flags & VERSION_MASK {
        0 => {
            if flags & FLAG_ROUTING != 0 {
                return Err(flag_err(flags));
            }
            let len = FIXED_LEN + bit(FLAG_CHECKSUM) + bit(FLAG_KEY) + bit(FLAG_SEQ);
            Ok((GreVersion::Gre, len))
        }
        1 => {
            if flags & (FLAG_CHECKSUM | FLAG_ROUTING) != 0 || flags & FLAG_KEY == 0 {
                return Err(flag_err(flags));
            }
            let len = FIXED_LEN + 4 + bit(FLAG_SEQ) + bit(FLAG_ACK);
            Ok((GreVersion::Enhanced, len))
        }
        v => Err(ParseError::new(
            Layer::Gre,
            Field::GreVersion,
            ErrorKind::Unsupported { value: v as u32 },
            0,
        )),
    }
}

/// Offsets of the optional words, counted from the header start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Offsets {
    checksum: Option<usize>,
    key: Option<usize>,
    seq: Option<usize>,
    ack: Option<usize>,
}

fn offsets(flags: u16) -> Offsets {
    let mut at = FIXED_LEN;
    let mut take = |present: bool| {
        if present {
            let o = at;
            at += 4;
            Some(o)
        } else {
            None
        }
    };
    let v1 = flags & VERSION_MASK == 1;
    let checksum = take(flags & FLAG_CHECKSUM != 0);
    let key = take(flags & FLAG_KEY != 0);
    let seq = take(flags & FLAG_SEQ != 0);
    let ack = take(v1 && flags & FLAG_ACK != 0);
    Offsets {
        checksum,
        key,
        seq,
        ack,
    }
}

/// A checked, read-only view of a GRE header (fixed part and optional words).
#[derive(Clone, Copy, Debug)]
pub struct GreHeader<'a> {
    raw: &'a GreRaw,
    /// The optional words (header bytes after the fixed part).
    opt: &'a [u8],
    version: GreVersion,
}

impl<'a> GreHeader<'a> {
    /// Checks that `bytes` starts with a complete GRE header of a supported
    /// version; errors name `GreVersion`, `GreFlags` or the truncation (offset 0).
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let (raw, _) = prefix::<GreRaw>(bytes, Layer::Gre)?;
        let (version, len) = layout(raw.flags_version.get())?;
        let opt = bytes.get(FIXED_LEN..len).ok_or(ParseError::new(
            Layer::Gre,
            Field::GreFlags,
            ErrorKind::Truncated {
                needed: len,
                available: bytes.len(),
            },
            0,
        ))?;
        Ok(GreHeader { raw, opt, version })
    }

    /// The fixed part as its zerocopy struct.
    pub const fn raw(&self) -> &'a GreRaw {
        self.raw
    }

    /// The optional words after the fixed part, as bytes.
    pub const fn optional_bytes(&self) -> &'a [u8] {
        self.opt
    }

    /// Header length in bytes, 4..=16.
    pub const fn header_len(&self) -> usize {
        FIXED_LEN + self.opt.len()
    }

    /// The raw flags and version word.
    pub fn flags_version(&self) -> u16 {
        self.raw.flags_version.get()
    }

    /// The version (0 or 1; others are refused by the constructor).
    pub const fn version(&self) -> GreVersion {
        self.version
    }

    /// C bit: a checksum covers header and payload.
    pub fn has_checksum(&self) -> bool {
        self.flags_version() & FLAG_CHECKSUM != 0
    }

    /// K bit: a key follows.
    pub fn has_key(&self) -> bool {
        self.flags_version() & FLAG_KEY != 0
    }

    /// S bit: a sequence number follows.
    pub fn has_sequence(&self) -> bool {
        self.flags_version() & FLAG_SEQ != 0
    }

    /// A bit of enhanced GRE: an acknowledgment number follows (always false for version 0).
    pub fn has_ack(&self) -> bool {
        self.version == GreVersion::Enhanced && self.flags_version() & FLAG_ACK != 0
    }

    /// RFC 1701 bits this view carries but ignores (s, recursion, and for version 0
    /// the A and flag bits): bits 4..=12 of the first word.
    pub fn reserved0(&self) -> u16 {
        let ack = if self.version == GreVersion::Enhanced {
            FLAG_ACK
        } else {
            0
        };
        self.flags_version() & 0x0FF8 & !ack
    }

    /// Protocol type (EtherType of the payload).
    pub fn protocol(&self) -> u16 {
        self.raw.protocol.get()
    }

    fn offs(&self) -> Offsets {
        offsets(self.flags_version())
    }

    /// Offset of the checksum field in the header, when the C bit is set.
    pub fn checksum_offset(&self) -> Option<usize> {
        self.offs().checksum
    }

    /// Offset of the key field, when the K bit is set.
    pub fn key_offset(&self) -> Option<usize> {
        self.offs().key
    }

    /// Offset of the sequence number, when the S bit is set.
    pub fn sequence_offset(&self) -> Option<usize> {
        self.offs().seq
    }

    /// Offset of the acknowledgment number, when version 1 has the A bit.
    pub fn ack_offset(&self) -> Option<usize> {
        self.offs().ack
    }

    /// The checksum in wire order, when present.
    pub fn checksum(&self) -> Option<[u8; 2]> {
        let at = self.offs().checksum? - FIXED_LEN;
        be16(self.opt, at).map(u16::to_be_bytes)
    }

    /// The Reserved1 word after the checksum, when present.
    pub fn reserved1(&self) -> Option<u16> {
        be16(self.opt, self.offs().checksum? + 2 - FIXED_LEN)
    }

    /// The key, when present (version 1: payload length << 16 | call id).
    pub fn key(&self) -> Option<u32> {
        be32(self.opt, self.offs().key? - FIXED_LEN)
    }

    /// The sequence number, when present.
    pub fn sequence(&self) -> Option<u32> {
        be32(self.opt, self.offs().seq? - FIXED_LEN)
    }

    /// The acknowledgment number (enhanced GRE), when present.
    pub fn ack(&self) -> Option<u32> {
        be32(self.opt, self.offs().ack? - FIXED_LEN)
    }

    /// Enhanced GRE payload length (high half of the key), version 1 only.
    pub fn payload_length(&self) -> Option<u16> {
        match self.version {
            GreVersion::Enhanced => self.key().map(|k| (k >> 16) as u16),
            GreVersion::Gre => None,
        }
    }

    /// Enhanced GRE call id (low half of the key), version 1 only.
    pub fn call_id(&self) -> Option<u16> {
        match self.version {
            GreVersion::Enhanced => self.key().map(|k| k as u16),
            GreVersion::Gre => None,
        }
    }
}

/// A checked, writable view of a GRE header: the optional words may be rewritten,
/// the flags (which fix the length) may not.
#[derive(Debug)]
pub struct GreHeaderMut<'a> {
    raw: &'a mut GreRaw,
    /// The optional words (header bytes after the fixed part).
    opt: &'a mut [u8],
    version: GreVersion,
}

impl<'a> GreHeaderMut<'a> {
    /// Same checks as [`GreHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        let (version, len) = {
            let v = GreHeader::new_checked(bytes)?;
            (v.version, v.header_len())
        };
        let hdr = bytes
            .get_mut(..len)
            .ok_or(ParseError::truncated(Layer::Gre, 0, len, 0))?;
        let (raw, opt) = prefix_mut::<GreRaw>(hdr, Layer::Gre)?;
        Ok(GreHeaderMut { raw, opt, version })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> GreHeader<'_> {
        GreHeader {
            raw: self.raw,
            opt: self.opt,
            version: self.version,
        }
    }

    /// Rewrites the protocol type.
    pub fn set_protocol(&mut self, protocol: u16) {
        self.raw.protocol.set(protocol);
    }

    fn put(&mut self, at: Option<usize>, field: Field, v: u32, wide: bool) -> Result<(), Absent> {
        let at = at.ok_or(Absent {
            layer: Layer::Gre,
            field,
        })? - FIXED_LEN;
        if wide {
            put32(self.opt, at, v);
        } else {
            put16(self.opt, at, v as u16);
        }
        Ok(())
    }

    /// Writes the checksum (wire order); `Absent` without the C bit.
    pub fn set_checksum(&mut self, csum: [u8; 2]) -> Result<(), Absent> {
        let at = offsets(self.raw.flags_version.get()).checksum;
        self.put(at, Field::Checksum, u16::from_be_bytes(csum) as u32, false)
    }

    /// Writes the key; `Absent` without the K bit.
    pub fn set_key(&mut self, key: u32) -> Result<(), Absent> {
        let at = offsets(self.raw.flags_version.get()).key;
        self.put(at, Field::Key, key, true)
    }

    /// Writes the sequence number; `Absent` without the S bit.
    pub fn set_sequence(&mut self, seq: u32) -> Result<(), Absent> {
        let at = offsets(self.raw.flags_version.get()).seq;
        self.put(at, Field::Sequence, seq, true)
    }

    /// Writes the acknowledgment number; `Absent` unless version 1 with the A bit.
    pub fn set_ack(&mut self, ack: u32) -> Result<(), Absent> {
        let at = offsets(self.raw.flags_version.get()).ack;
        self.put(at, Field::Ack, ack, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C, K and S set, version 0, protocol IPv4: checksum 0xABCD, reserved1 0,
    /// key 0x01020304, sequence 7, then payload.
    const CKS: [u8; 18] = [
        0xB0, 0x00, 0x08, 0x00, 0xAB, 0xCD, 0x00, 0x00, 1, 2, 3, 4, 0, 0, 0, 7, 0x45, 0,
    ];

    #[test]
    fn all_optional_words_version0() {
        let g = GreHeader::new_checked(&CKS).unwrap();
        assert_eq!(g.header_len(), 16);
        assert_eq!(g.version(), GreVersion::Gre);
        assert!(g.has_checksum() && g.has_key() && g.has_sequence() && !g.has_ack());
        assert_eq!(g.protocol(), 0x0800);
        assert_eq!(g.checksum(), Some([0xAB, 0xCD]));
        assert_eq!(g.reserved1(), Some(0));
        assert_eq!(g.key(), Some(0x0102_0304));
        assert_eq!(g.sequence(), Some(7));
        assert_eq!(g.ack(), None);
        assert_eq!(g.checksum_offset(), Some(CHECKSUM_OFFSET));
        assert_eq!(g.key_offset(), Some(8));
        assert_eq!(g.sequence_offset(), Some(12));
        assert_eq!(g.payload_length(), None);
        assert_eq!(g.call_id(), None);
        assert_eq!(g.reserved0(), 0);
    }

    #[test]
    fn key_only_moves_key_to_offset_4() {
        let b = [0x20, 0x00, 0x65, 0x58, 0, 0, 0, 9];
        let g = GreHeader::new_checked(&b).unwrap();
        assert_eq!(g.header_len(), 8);
        assert_eq!(g.key(), Some(9));
        assert_eq!(g.key_offset(), Some(4));
        assert_eq!(g.checksum(), None);
        assert_eq!(g.sequence(), None);
    }

    #[test]
    fn plain_gre_is_four_bytes_and_ignores_rfc1701_bits() {
        // s bit, recursion 3 and the A bit: carried, ignored for version 0.
        let b = [0x0B, 0x80, 0x86, 0xDD];
        let g = GreHeader::new_checked(&b).unwrap();
        assert_eq!(g.header_len(), 4);
        assert_eq!(g.reserved0(), 0x0B80);
        assert!(!g.has_ack());
        assert_eq!(g.protocol(), 0x86DD);
    }

    #[test]
    fn enhanced_gre_key_seq_ack() {
        // RFC 2637: K, S, A, version 1, PPP; payload length 0x0010, call id 0x4000.
        let b = [
            0x30, 0x81, 0x88, 0x0B, 0x00, 0x10, 0x40, 0x00, 0, 0, 0, 5, 0, 0, 0, 4,
        ];
        let g = GreHeader::new_checked(&b).unwrap();
        assert_eq!(g.version(), GreVersion::Enhanced);
        assert_eq!(g.header_len(), 16);
        assert_eq!(g.payload_length(), Some(0x10));
        assert_eq!(g.call_id(), Some(0x4000));
        assert_eq!(g.sequence(), Some(5));
        assert_eq!(g.ack(), Some(4));
        assert_eq!(g.ack_offset(), Some(12));
        assert_eq!(g.reserved0(), 0);
        // Ack without sequence.
        let b = [0x20, 0x81, 0x88, 0x0B, 0, 0, 0, 1, 0, 0, 0, 3];
        let g = GreHeader::new_checked(&b).unwrap();
        assert_eq!((g.sequence(), g.ack(), g.header_len()), (None, Some(3), 12));
    }

    fn err(b: &[u8]) -> ParseError {
        GreHeader::new_checked(b).unwrap_err()
    }

    #[test]
    fn error_variants() {
        assert_eq!(
            err(&[0x00, 0x00, 0x08]),
            ParseError::truncated(Layer::Gre, 0, 4, 3)
        );
        let v2 = err(&[0x00, 0x02, 0x08, 0x00]);
        assert_eq!(v2.field, Field::GreVersion);
        assert_eq!(v2.kind, ErrorKind::Unsupported { value: 2 });
        assert_eq!(
            err(&[0x00, 0x07, 0, 0]).kind,
            ErrorKind::Unsupported { value: 7 }
        );
        // Routing bit (Linux refuses it).
        assert_eq!(err(&[0x40, 0x00, 0x08, 0x00]).field, Field::GreFlags);
        // Version 1 without K, or with C.
        assert_eq!(err(&[0x00, 0x01, 0x88, 0x0B]).field, Field::GreFlags);
        assert_eq!(
            err(&[0xA0, 0x01, 0x88, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0]).field,
            Field::GreFlags
        );
        // Optional words cut short.
        let t = err(&CKS[..15]);
        assert_eq!(t.field, Field::GreFlags);
        assert_eq!(
            t.kind,
            ErrorKind::Truncated {
                needed: 16,
                available: 15
            }
        );
    }

    #[test]
    fn truncation_at_every_offset_is_an_error() {
        for cut in 0..16 {
            assert!(GreHeader::new_checked(&CKS[..cut]).is_err(), "cut {cut}");
            let mut m = CKS;
            assert!(
                GreHeaderMut::new_checked(&mut m[..cut]).is_err(),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn setters_write_present_fields_only() {
        let mut b = CKS;
        let mut m = GreHeaderMut::new_checked(&mut b).unwrap();
        m.set_checksum([0x12, 0x34]).unwrap();
        m.set_key(0xDEAD_BEEF).unwrap();
        m.set_sequence(0x0A0B_0C0D).unwrap();
        m.set_protocol(0x86DD);
        assert_eq!(
            m.set_ack(1),
            Err(Absent {
                layer: Layer::Gre,
                field: Field::Ack
            })
        );
        assert_eq!(m.view().key(), Some(0xDEAD_BEEF));
        assert_eq!(
            b[..16],
            [
                0xB0, 0, 0x86, 0xDD, 0x12, 0x34, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF, 10, 11, 12, 13
            ]
        );
        assert_eq!(b[16..], CKS[16..]);

        let mut plain = [0u8, 0, 8, 0];
        let mut m = GreHeaderMut::new_checked(&mut plain).unwrap();
        assert_eq!(m.set_key(1).unwrap_err().field, Field::Key);
        assert_eq!(m.set_sequence(1).unwrap_err().field, Field::Sequence);
        assert_eq!(m.set_checksum([1, 1]).unwrap_err().field, Field::Checksum);
        assert_eq!(plain, [0, 0, 8, 0]);
    }
}
