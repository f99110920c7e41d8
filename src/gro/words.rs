//! The 8-byte words the predicted-header compare (`expect.rs`) reads for a
//! fixed layout, derived from the layout's varying fields by `const fn`.
//!
//! A bulk sender's next segment differs from the first only in the fields
//! listed here: the IPv4 IDs and header checksums and the TCP sequence
//! (predicted: XORed with their deltas), the TCP checksum and urgent pointer
//! and a tunnel's outer UDP checksum (not compared). Every other byte up to
//! the TCP options must be equal. The header is tiled with 8-byte words, no
//! word cutting a predicted field, so each delta is one shift into one word.

use super::layout::Fixed;
use crate::wire::{ipv4, tcp, udp};

/// What a field does from one full-size segment of a flow to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vary {
    /// The ID of IPv4 header `k`: predicted.
    Id(usize),
    /// The header checksum of IPv4 header `k`: predicted.
    Csum(usize),
    /// The TCP sequence: predicted.
    Seq,
    /// Not compared: vouched for by the checksum state, or free to differ.
    Skip,
}

/// `len` bytes at `at` (from the frame start) that vary as `vary`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VaryField {
    at: usize,
    len: usize,
    vary: Vary,
}

/// Deltas a compare places: ID and checksum per IPv4 header, the sequence.
pub(crate) const DELTAS: usize = 5;

/// Where a predicted field's delta is kept in the delta array.
const fn slot(v: Vary) -> usize {
    match v {
        Vary::Id(k) => 2 * k,
        Vary::Csum(k) => 2 * k + 1,
        Vary::Seq | Vary::Skip => 4,
    }
}

/// The delta slot of IPv4 header `k`'s ID.
pub(crate) const fn id_slot(k: usize) -> usize {
    slot(Vary::Id(k))
}

/// The delta slot of IPv4 header `k`'s checksum.
pub(crate) const fn csum_slot(k: usize) -> usize {
    slot(Vary::Csum(k))
}

/// The delta slot of the TCP sequence.
pub(crate) const SEQ_SLOT: usize = slot(Vary::Seq);

/// One compared word: its offset, the bytes compared, and which deltas sit
/// in it at which byte.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Word {
    at: usize,
    mask: u64,
    has: [bool; DELTAS],
    pos: [usize; DELTAS],
}

impl Word {
    const EMPTY: Word = Word {
        at: 0,
        mask: 0,
        has: [false; DELTAS],
        pos: [0; DELTAS],
    };

    /// The word at `at` of `first` XOR the one of `f`, XOR the predicted
    /// deltas in it, under its mask: zero when `f` has the predicted bytes.
    /// `deltas` hold each field's delta as its big-endian bytes from byte 0
    /// of a host-order word.
    #[inline(always)]
    pub(crate) fn diff(&self, first: &[u8], f: &[u8], deltas: [u64; DELTAS]) -> u64 {
        let mut d = super::flow::load8(first, self.at) ^ super::flow::load8(f, self.at);
        let mut k = 0;
        while k < DELTAS {
            if self.has[k] {
                d ^= to_byte(deltas[k], self.pos[k]);
            }
            k += 1;
        }
        d & self.mask
    }
}

/// A host-order word holding bytes from byte 0 moved to start at byte `pos`.
#[inline(always)]
const fn to_byte(v: u64, pos: usize) -> u64 {
    if cfg!(target_endian = "little") {
        v << (8 * pos)
    } else {
        v >> (8 * pos)
    }
}

/// A host-order 8-byte word that holds the bytes `v` from byte 0 and zeros
/// after (a delta, moved into place by [`Word::diff`]).
#[inline(always)]
pub(crate) fn at_start<const N: usize>(v: [u8; N]) -> u64 {
    let mut b = [0u8; 8];
    if let Some(d) = b.get_mut(..N) {
        d.copy_from_slice(&v);
    }
    u64::from_ne_bytes(b)
}

/// The varying fields of the fixed TCP/IPv4 layout `l`.
pub(crate) const fn tcp4_fields(l: Fixed) -> [VaryField; 4] {
    [
        VaryField {
            at: l.ip4(0, ipv4::ID_OFFSET),
            len: 2,
            vary: Vary::Id(0),
        },
        VaryField {
            at: l.ip4(0, ipv4::CHECKSUM_OFFSET),
            len: 2,
            vary: Vary::Csum(0),
        },
        VaryField {
            at: l.tcp(tcp::SEQ_OFFSET),
            len: 4,
            vary: Vary::Seq,
        },
        // The TCP checksum and the urgent pointer.
        VaryField {
            at: l.tcp(tcp::CHECKSUM_OFFSET),
            len: 4,
            vary: Vary::Skip,
        },
    ]
}

/// The varying fields of the fixed TCP/IPv6 layout `l` (no ID, no IP
/// header checksum).
pub(crate) const fn tcp6_fields(l: Fixed) -> [VaryField; 2] {
    let t = tcp4_fields(l);
    [t[2], t[3]]
}

/// The varying fields of the fixed VXLAN layout `l`: both IPv4 headers',
/// the outer UDP checksum and the inner TCP's.
pub(crate) const fn vxlan4_fields(l: Fixed) -> [VaryField; 7] {
    let t = tcp4_fields(l);
    [
        VaryField {
            at: l.ip4(0, ipv4::ID_OFFSET),
            len: 2,
            vary: Vary::Id(0),
        },
        VaryField {
            at: l.ip4(0, ipv4::CHECKSUM_OFFSET),
            len: 2,
            vary: Vary::Csum(0),
        },
        VaryField {
            at: l.udp + udp::CHECKSUM_OFFSET,
            len: 2,
            vary: Vary::Skip,
        },
        VaryField {
            at: l.ip4(1, ipv4::ID_OFFSET),
            len: 2,
            vary: Vary::Id(1),
        },
        VaryField {
            at: l.ip4(1, ipv4::CHECKSUM_OFFSET),
            len: 2,
            vary: Vary::Csum(1),
        },
        t[2],
        t[3],
    ]
}

/// The word at `at` for `fields`: every byte compared but skipped ones, and
/// the position of each predicted field inside it (which must lie wholly
/// inside or wholly outside).
const fn word(at: usize, fields: &[VaryField]) -> Word {
    let mut bytes = [0xFFu8; 8];
    let mut w = Word::EMPTY;
    w.at = at;
    let mut i = 0;
    while i < fields.len() {
        let f = fields[i];
        let overlaps = f.at < at + 8 && f.at + f.len > at;
        if overlaps {
            if let Vary::Skip = f.vary {
                let mut b = f.at;
                while b < f.at + f.len {
                    if b >= at && b < at + 8 {
                        bytes[b - at] = 0;
                    }
                    b += 1;
                }
            } else {
                assert!(f.at >= at && f.at + f.len <= at + 8, "a word cuts a field");
                w.has[slot(f.vary)] = true;
                w.pos[slot(f.vary)] = f.at - at;
            }
        }
        i += 1;
    }
    w.mask = u64::from_ne_bytes(bytes);
    w
}

/// Tiles bytes `0..span` with `N` 8-byte words, none cutting a predicted
/// field: left to right, a word that would end inside a predicted field ends
/// where the field starts instead, and the last word ends at `span`.
pub(crate) const fn tile<const N: usize>(span: usize, fields: &[VaryField]) -> [Word; N] {
    let mut out = [Word::EMPTY; N];
    let mut n = 0;
    let mut w = 0;
    while w < span {
        let mut at = if w + 8 > span { span - 8 } else { w };
        let mut i = 0;
        while i < fields.len() {
            let f = fields[i];
            let predicted = !matches!(f.vary, Vary::Skip);
            if predicted && f.at < at + 8 && f.at + f.len > at + 8 {
                at = f.at - 8;
            }
            i += 1;
        }
        assert!(n < N, "more words than N");
        out[n] = word(at, fields);
        n += 1;
        w = at + 8;
    }
    assert!(n == N, "fewer words than N");
    out
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::layout::{TCP4, TCP4_HDR, VXLAN4, VXLAN4_HDR};
    use super::*;

    #[test]
    fn deltas_land_in_place() {
        for at in 0..=6 {
            let mut want = [0u8; 8];
            want[at..at + 2].copy_from_slice(&[0xAB, 0xCD]);
            assert_eq!(
                to_byte(at_start([0xAB, 0xCD]), at).to_ne_bytes(),
                want,
                "{at}"
            );
        }
    }

    /// The tilings are the word sets the compares were written with
    /// (`docs/perf/gro-hot-path.md`, rounds 4 and 5).
    #[test]
    fn tilings_are_the_known_words() {
        let t: [Word; 7] = tile(TCP4_HDR, &tcp4_fields(TCP4));
        let at: std::vec::Vec<usize> = t.iter().map(|w| w.at).collect();
        assert_eq!(at, [0, 8, 16, 24, 30, 38, 46]);
        let v: [Word; 13] = tile(VXLAN4_HDR, &vxlan4_fields(VXLAN4));
        let at: std::vec::Vec<usize> = v.iter().map(|w| w.at).collect();
        assert_eq!(at, [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96]);
        let tail = u64::from_ne_bytes([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
        assert_eq!(t[6].mask, tail);
        assert_eq!(v[12].mask, tail);
        let skip_udp = u64::from_ne_bytes([0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert_eq!(v[5].mask, skip_udp);
        assert_eq!((t[2].has[id_slot(0)], t[2].pos[id_slot(0)]), (true, 2));
        assert_eq!((v[8].has[id_slot(1)], v[8].pos[id_slot(1)]), (true, 4));
        assert_eq!((v[9].has[csum_slot(1)], v[9].pos[csum_slot(1)]), (true, 2));
    }
}
