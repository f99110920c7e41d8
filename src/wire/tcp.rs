//! TCP header view with options (RFC 9293, RFC 7323, RFC 2018).
//!
//! The checked constructor applies `tcp_v4_rcv()`'s rule (data offset >= 5 and
//! the header present). Options are walked like `tcp_parse_options()`, except
//! that a malformed length is reported as a typed error instead of silently
//! ending the walk.

use bitflags::bitflags;
use zerocopy::network_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::cast::{be32, prefix, prefix_mut};
use super::error::{ErrorKind, Field, Layer, ParseError};

/// Length of the header without options.
pub const MIN_HEADER_LEN: usize = 20;
/// Longest header (data offset 15).
pub const MAX_HEADER_LEN: usize = 60;
/// Offset of the source port.
pub const SRC_PORT_OFFSET: usize = 0;
/// Offset of the destination port.
pub const DST_PORT_OFFSET: usize = 2;
/// Offset of the sequence number.
pub const SEQ_OFFSET: usize = 4;
/// Offset of the acknowledgment number.
pub const ACK_OFFSET: usize = 8;
/// Offset of the data offset / flags word.
pub const DATA_OFFSET_OFFSET: usize = 12;
/// Offset of the flags byte (CWR..FIN).
pub const FLAGS_OFFSET: usize = 13;
/// Offset of the window.
pub const WINDOW_OFFSET: usize = 14;
/// Offset of the checksum.
pub const CHECKSUM_OFFSET: usize = 16;
/// Offset of the urgent pointer.
pub const URGENT_OFFSET: usize = 18;
/// Offset of the options.
pub const OPTIONS_OFFSET: usize = 20;

/// Option kind: end of option list.
pub const OPT_EOL: u8 = 0;
/// Option kind: no operation.
pub const OPT_NOP: u8 = 1;
/// Option kind: maximum segment size.
pub const OPT_MSS: u8 = 2;
/// Option kind: window scale.
pub const OPT_WS: u8 = 3;
/// Option kind: SACK permitted.
pub const OPT_SACK_PERM: u8 = 4;
/// Option kind: SACK.
pub const OPT_SACK: u8 = 5;
/// Option kind: timestamps.
pub const OPT_TIMESTAMP: u8 = 8;

bitflags! {
    /// The TCP flag bits (low 9 bits of the data offset word).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct TcpFlags: u16 {
        /// FIN.
        const FIN = 0x001;
        /// SYN.
        const SYN = 0x002;
        /// RST.
        const RST = 0x004;
        /// PSH.
        const PSH = 0x008;
        /// ACK.
        const ACK = 0x010;
        /// URG.
        const URG = 0x020;
        /// ECE.
        const ECE = 0x040;
        /// CWR.
        const CWR = 0x080;
        /// AE (accurate ECN, formerly NS).
        const AE = 0x100;
    }
}

/// The fixed 20 bytes of a TCP header in wire order.
#[derive(
    FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug, PartialEq, Eq,
)]
#[repr(C)]
pub struct TcpRaw {
    /// Source port.
    pub src_port: U16,
    /// Destination port.
    pub dst_port: U16,
    /// Sequence number.
    pub seq: U32,
    /// Acknowledgment number.
    pub ack: U32,
    /// Data offset (4 bits), reserved (3 bits), flags (9 bits).
    pub offset_flags: U16,
    /// Receive window.
    pub window: U16,
    /// Checksum in wire order.
    pub checksum: [u8; 2],
    /// Urgent pointer.
    pub urgent: U16,
}

fn check(bytes: &[u8]) -> Result<usize, ParseError> {
    let (raw, _) = prefix::<TcpRaw>(bytes, Layer::Tcp)?;
    let doff = (raw.offset_flags.get() >> 12) as usize * 4;
    if doff < MIN_HEADER_LEN {
        return Err(ParseError::new(
            Layer::Tcp,
            Field::DataOffset,
            ErrorKind::LengthTooSmall {
                value: doff,
                min: MIN_HEADER_LEN,
            },
            0,
        ));
    }
    if doff > bytes.len() {
        return Err(ParseError::new(
            Layer::Tcp,
            Field::DataOffset,
            ErrorKind::LengthBeyondBuffer {
                claimed: doff,
                available: bytes.len(),
            },
            0,
        ));
    }
    Ok(doff)
}

/// A checked, read-only TCP header view (fixed part and options).
#[derive(Clone, Copy, Debug)]
pub struct TcpHeader<'a> {
    raw: &'a TcpRaw,
    options: &'a [u8],
}

impl<'a> TcpHeader<'a> {
    /// Checks data offset >= 5 and that the whole header is in `bytes`.
    /// Errors: `DataOffset` (too small or beyond the buffer), truncation.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let doff = check(bytes)?;
        let (raw, rest) = prefix::<TcpRaw>(bytes, Layer::Tcp)?;
        let options = rest
            .get(..doff - MIN_HEADER_LEN)
            .ok_or(ParseError::truncated(Layer::Tcp, 0, doff, bytes.len()))?;
        Ok(TcpHeader { raw, options })
    }

    /// The fixed part as its zerocopy struct.
    pub const fn raw(&self) -> &'a TcpRaw {
        self.raw
    }

    /// Header length in bytes (data offset * 4).
    pub const fn header_len(&self) -> usize {
        MIN_HEADER_LEN + self.options.len()
    }

    /// Source port.
    pub fn src_port(&self) -> u16 {
        self.raw.src_port.get()
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        self.raw.dst_port.get()
    }

    /// Sequence number.
    pub fn seq(&self) -> u32 {
        self.raw.seq.get()
    }

    /// Acknowledgment number.
    pub fn ack(&self) -> u32 {
        self.raw.ack.get()
    }

    /// Data offset field in 4-byte words.
    pub fn data_offset(&self) -> u8 {
        (self.raw.offset_flags.get() >> 12) as u8
    }

    /// The three reserved bits between data offset and flags.
    pub fn reserved(&self) -> u8 {
        ((self.raw.offset_flags.get() >> 9) & 7) as u8
    }

    /// The flags.
    pub fn flags(&self) -> TcpFlags {
        TcpFlags::from_bits_truncate(self.raw.offset_flags.get())
    }

    /// Receive window.
    pub fn window(&self) -> u16 {
        self.raw.window.get()
    }

    /// Checksum in wire order.
    pub const fn checksum(&self) -> [u8; 2] {
        self.raw.checksum
    }

    /// Urgent pointer.
    pub fn urgent(&self) -> u16 {
        self.raw.urgent.get()
    }

    /// The option bytes.
    pub const fn options_bytes(&self) -> &'a [u8] {
        self.options
    }

    /// The options, each checked as it is reached.
    pub const fn options(&self) -> TcpOptions<'a> {
        TcpOptions {
            rest: self.options,
            at: OPTIONS_OFFSET,
        }
    }

    /// Walks every option; the first malformed one is the error.
    pub fn validate_options(&self) -> Result<(), ParseError> {
        self.options().try_for_each(|o| o.map(|_| ()))
    }
}

/// The SACK blocks of a SACK option: (left edge, right edge) pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SackBlocks<'a> {
    data: &'a [u8],
}

impl SackBlocks<'_> {
    /// Number of blocks (1..=4).
    pub const fn len(&self) -> usize {
        self.data.len() / 8
    }

    /// Never true for a checked option (at least one block).
    pub const fn is_empty(&self) -> bool {
        self.data.len() < 8
    }

    /// The `i`th block.
    pub fn get(&self, i: usize) -> Option<(u32, u32)> {
        Some((be32(self.data, i * 8)?, be32(self.data, i * 8 + 4)?))
    }

    /// The blocks in order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// One TCP option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpOption<'a> {
    /// End of option list (ends the walk).
    EndOfList,
    /// No operation (padding).
    Nop,
    /// Maximum segment size.
    Mss(u16),
    /// Window scale shift.
    WindowScale(u8),
    /// SACK permitted.
    SackPermitted,
    /// SACK blocks.
    Sack(SackBlocks<'a>),
    /// Timestamps.
    Timestamp {
        /// TSval.
        value: u32,
        /// TSecr.
        echo: u32,
    },
    /// Any other kind, with its data.
    Unknown {
        /// Option kind.
        kind: u8,
        /// Data after kind and length.
        data: &'a [u8],
    },
}

/// Iterator over TCP options yielding `(offset from the TCP header, option)`;
/// an error (then the end) on a length below 2, beyond the header, or wrong
/// for a known kind.
#[derive(Clone, Debug)]
pub struct TcpOptions<'a> {
    rest: &'a [u8],
    at: usize,
}

impl<'a> Iterator for TcpOptions<'a> {
    type Item = Result<(usize, TcpOption<'a>), ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (&kind, tail) = self.rest.split_first()?;
        let offset = self.at;
        match kind {
            OPT_EOL => {
                self.rest = &[];
                return Some(Ok((offset, TcpOption::EndOfList)));
            }
            OPT_NOP => {
                self.rest = tail;
                self.at += 1;
                return Some(Ok((offset, TcpOption::Nop)));
            }
            _ => {}
        }
        let available = self.rest.len();
        let fail = |k| {
            Some(Err(ParseError::new(
                Layer::Tcp,
                Field::OptionLength,
                k,
                offset,
            )))
        };
        let Some((&len, _)) = tail.split_first() else {
            self.rest = &[];
            return fail(ErrorKind::Truncated {
                needed: 2,
                available,
            });
        };
        let len = len as usize;
        if len < 2 {
            self.rest = &[];
            return fail(ErrorKind::LengthTooSmall { value: len, min: 2 });
        }
        let (Some(data), Some(rest)) = (self.rest.get(2..len), self.rest.get(len..)) else {
            self.rest = &[];
            return fail(ErrorKind::LengthBeyondBuffer {
                claimed: len,
                available,
            });
        };
        let opt = match (kind, data) {
            (OPT_MSS, &[a, b]) => TcpOption::Mss(u16::from_be_bytes([a, b])),
            (OPT_WS, &[s]) => TcpOption::WindowScale(s),
            (OPT_SACK_PERM, &[]) => TcpOption::SackPermitted,
            (OPT_SACK, d) if !d.is_empty() && d.len() % 8 == 0 && d.len() <= 32 => {
                TcpOption::Sack(SackBlocks { data: d })
            }
            (OPT_TIMESTAMP, d) if d.len() == 8 => TcpOption::Timestamp {
                value: be32(d, 0).unwrap_or(0),
                echo: be32(d, 4).unwrap_or(0),
            },
            (OPT_MSS | OPT_WS | OPT_SACK_PERM | OPT_SACK | OPT_TIMESTAMP, _) => {
                self.rest = &[];
                return fail(ErrorKind::Unsupported { value: len as u32 });
            }
            (kind, data) => TcpOption::Unknown { kind, data },
        };
        self.rest = rest;
        self.at += len;
        Some(Ok((offset, opt)))
    }
}

/// A checked, writable TCP header view: the fields segmentation, GRO and NAT
/// rewrite. The data offset (which fixes the length) is not writable.
#[derive(Debug)]
pub struct TcpHeaderMut<'a> {
    raw: &'a mut TcpRaw,
    options: &'a mut [u8],
}

impl<'a> TcpHeaderMut<'a> {
    /// Same checks as [`TcpHeader::new_checked`], over writable bytes.
    pub fn new_checked(bytes: &'a mut [u8]) -> Result<Self, ParseError> {
        let doff = check(bytes)?;
        let total = bytes.len();
        let (raw, rest) = prefix_mut::<TcpRaw>(bytes, Layer::Tcp)?;
        let options = rest
            .get_mut(..doff - MIN_HEADER_LEN)
            .ok_or(ParseError::truncated(Layer::Tcp, 0, doff, total))?;
        Ok(TcpHeaderMut { raw, options })
    }

    /// A read-only view of the same header.
    pub fn view(&self) -> TcpHeader<'_> {
        TcpHeader {
            raw: self.raw,
            options: self.options,
        }
    }

    /// Sets the source port.
    pub fn set_src_port(&mut self, port: u16) {
        self.raw.src_port.set(port);
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, port: u16) {
        self.raw.dst_port.set(port);
    }

    /// Sets the sequence number.
    pub fn set_seq(&mut self, seq: u32) {
        self.raw.seq.set(seq);
    }

    /// Sets the acknowledgment number.
    pub fn set_ack(&mut self, ack: u32) {
        self.raw.ack.set(ack);
    }

    /// Replaces the flags, keeping data offset and reserved bits.
    pub fn set_flags(&mut self, flags: TcpFlags) {
        let w = self.raw.offset_flags.get();
        self.raw.offset_flags.set((w & !0x01FF) | flags.bits());
    }

    /// Sets the window.
    pub fn set_window(&mut self, window: u16) {
        self.raw.window.set(window);
    }

    /// Sets the checksum (wire order).
    pub fn set_checksum(&mut self, csum: [u8; 2]) {
        self.raw.checksum = csum;
    }

    /// Sets the urgent pointer.
    pub fn set_urgent(&mut self, urgent: u16) {
        self.raw.urgent.set(urgent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ports 1234 -> 80, seq 1, ack 2, doff 13 (52 bytes), SYN|ACK|ECE, window
    /// 0x7210, checksum 0xBEEF, urgent 0; options MSS 1460, SACK-perm, TS
    /// (5, 6), NOP, WS 7, SACK one block (10, 20), EOL, one zero pad byte.
    const SYN: [u8; 54] = [
        0x04, 0xD2, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 2, 0xD0, 0x52, 0x72, 0x10, 0xBE, 0xEF, 0,
        0, //
        2, 4, 0x05, 0xB4, // MSS
        4, 2, // SACK-perm
        8, 10, 0, 0, 0, 5, 0, 0, 0, 6, // TS
        1, // NOP
        3, 3, 7, // WS
        5, 10, 0, 0, 0, 10, 0, 0, 0, 20, // SACK
        0, 0, // EOL, pad
        0xAA, 0xBB, // payload
    ];

    #[test]
    fn fields() {
        let h = TcpHeader::new_checked(&SYN).unwrap();
        assert_eq!(h.header_len(), 52);
        assert_eq!(
            (h.src_port(), h.dst_port(), h.seq(), h.ack()),
            (1234, 80, 1, 2)
        );
        assert_eq!((h.data_offset(), h.reserved()), (13, 0));
        assert_eq!(h.flags(), TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE);
        assert_eq!(
            (h.window(), h.checksum(), h.urgent()),
            (0x7210, [0xBE, 0xEF], 0)
        );
        let mut it = h.options();
        let mut next = || it.next().unwrap().unwrap();
        assert_eq!(next(), (20, TcpOption::Mss(1460)));
        assert_eq!(next(), (24, TcpOption::SackPermitted));
        assert_eq!(next(), (26, TcpOption::Timestamp { value: 5, echo: 6 }));
        assert_eq!(next(), (36, TcpOption::Nop));
        assert_eq!(next(), (37, TcpOption::WindowScale(7)));
        let (at, sack) = next();
        assert_eq!(at, 40);
        let TcpOption::Sack(blocks) = sack else {
            panic!("not a SACK: {sack:?}")
        };
        assert_eq!(
            (blocks.len(), blocks.get(0), blocks.get(1)),
            (1, Some((10, 20)), None)
        );
        assert!(!blocks.is_empty());
        assert_eq!(blocks.iter().count(), 1);
        assert_eq!(next(), (50, TcpOption::EndOfList));
        assert!(it.next().is_none(), "EOL ends the walk before the pad byte");
        assert_eq!(h.validate_options(), Ok(()));
    }

    #[test]
    fn eol_and_unknown_options() {
        let mut b = [0u8; 28];
        b[12] = 0x70; // doff 7
        b[20..28].copy_from_slice(&[30, 4, 0xAB, 0xCD, 0, 9, 9, 9]);
        let h = TcpHeader::new_checked(&b).unwrap();
        let mut it = h.options();
        assert_eq!(
            it.next().unwrap().unwrap(),
            (
                20,
                TcpOption::Unknown {
                    kind: 30,
                    data: &[0xAB, 0xCD]
                }
            )
        );
        assert_eq!(it.next().unwrap().unwrap(), (24, TcpOption::EndOfList));
        assert!(it.next().is_none(), "EOL ends the walk");
    }

    fn opt_err(opts: [u8; 8]) -> ParseError {
        let mut b = [0u8; 28];
        b[12] = 0x70;
        b[20..28].copy_from_slice(&opts);
        let h = TcpHeader::new_checked(&b).unwrap();
        let mut it = h.options();
        assert!(it.by_ref().any(|o| o.is_err()));
        assert!(it.next().is_none(), "the walk stops after an error");
        h.validate_options().unwrap_err()
    }

    #[test]
    fn option_errors() {
        let e = opt_err([1, 1, 8, 10, 0, 0, 0, 0]);
        assert_eq!(
            (e.layer, e.field, e.offset),
            (Layer::Tcp, Field::OptionLength, 22)
        );
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 10,
                available: 6
            }
        );
        let e = opt_err([2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(e.kind, ErrorKind::LengthTooSmall { value: 1, min: 2 });
        let e = opt_err([1, 1, 1, 1, 1, 1, 1, 30]);
        assert_eq!(
            (e.offset, e.kind),
            (
                27,
                ErrorKind::Truncated {
                    needed: 2,
                    available: 1
                }
            )
        );
        // Known kinds with the wrong length.
        assert_eq!(
            opt_err([2, 3, 5, 0, 0, 0, 0, 0]).kind,
            ErrorKind::Unsupported { value: 3 }
        );
        assert_eq!(
            opt_err([3, 4, 5, 0, 0, 0, 0, 0]).kind,
            ErrorKind::Unsupported { value: 4 }
        );
        assert_eq!(
            opt_err([4, 3, 0, 0, 0, 0, 0, 0]).kind,
            ErrorKind::Unsupported { value: 3 }
        );
        assert_eq!(
            opt_err([5, 6, 0, 0, 0, 0, 0, 0]).kind,
            ErrorKind::Unsupported { value: 6 }
        );
        assert_eq!(
            opt_err([5, 2, 0, 0, 0, 0, 0, 0]).kind,
            ErrorKind::Unsupported { value: 2 }
        );
        assert_eq!(
            opt_err([8, 8, 0, 0, 0, 0, 0, 0]).kind,
            ErrorKind::Unsupported { value: 8 }
        );
    }

    #[test]
    fn error_variants() {
        let mut b = SYN;
        b[12] = 0x40;
        let e = TcpHeader::new_checked(&b).unwrap_err();
        assert_eq!(
            (e.field, e.kind),
            (
                Field::DataOffset,
                ErrorKind::LengthTooSmall { value: 16, min: 20 }
            )
        );
        let e = TcpHeader::new_checked(&SYN[..51]).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::LengthBeyondBuffer {
                claimed: 52,
                available: 51
            }
        );
        for cut in 0..20 {
            assert_eq!(
                TcpHeader::new_checked(&SYN[..cut]).unwrap_err(),
                ParseError::truncated(Layer::Tcp, 0, 20, cut)
            );
        }
        for cut in 0..52 {
            let mut m = SYN;
            assert!(TcpHeaderMut::new_checked(&mut m[..cut]).is_err());
        }
    }

    #[test]
    fn setters() {
        let mut b = SYN;
        let mut m = TcpHeaderMut::new_checked(&mut b).unwrap();
        m.set_src_port(1);
        m.set_dst_port(2);
        m.set_seq(0x0102_0304);
        m.set_ack(0x0506_0708);
        m.set_flags(TcpFlags::FIN | TcpFlags::PSH | TcpFlags::AE);
        m.set_window(3);
        m.set_checksum([0xCA, 0xFE]);
        m.set_urgent(4);
        assert_eq!(m.view().data_offset(), 13);
        assert_eq!(
            b[..20],
            [
                0, 1, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8, 0xD1, 0x09, 0, 3, 0xCA, 0xFE, 0, 4
            ]
        );
        assert_eq!(b[20..], SYN[20..]);
    }
}
