//! What the predicted-header compare (`expect.rs`) reads for a fixed
//! layout, derived from the layout's varying fields by `const fn`.
//!
//! A bulk sender's next segment differs from the first only in the fields
//! listed here: the IPv4 IDs and header checksums and the TCP sequence
//! (predicted: compared with their predicted values), the TCP checksum and
//! urgent pointer and a tunnel's outer UDP checksum (not compared). Every
//! other byte up to the TCP options must equal the first segment's: those
//! are compared as masked 8-byte words from byte 0, all alike, so the
//! compiler compares them 16 bytes at a time.

use super::flow::load8;
use super::layout::Fixed;
use super::parse::{be16, be32};
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

/// The predicted values of a segment's varying fields: per IPv4 header
/// its ID and header checksum, and the TCP sequence.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Predicted {
    pub ids: [u16; 2],
    pub csums: [u16; 2],
    pub seq: u32,
}

/// The bits in which frame `f`'s predicted fields (of `fields`) differ
/// from `p`: zero when it carries every predicted value.
#[inline(always)]
pub(crate) fn fields_diff(fields: &[VaryField], f: &[u8], p: &Predicted) -> u32 {
    let field16 = |at: usize| be16(f, at).unwrap_or(0);
    let mut d = 0u32;
    for v in fields {
        d |= match v.vary {
            Vary::Id(k) => u32::from(field16(v.at) ^ p.ids[k]),
            Vary::Csum(k) => u32::from(field16(v.at) ^ p.csums[k]),
            Vary::Seq => be32(f, v.at).map_or(u32::MAX, |s| s ^ p.seq),
            Vary::Skip => 0,
        };
    }
    d
}

/// The bits in which `f` differs from `first` in the bytes `masks` keep
/// (host-order 8-byte words from byte 0): all words treated alike, so the
/// compiler compares them 16 bytes at a time, in one OR chain per 64-byte
/// line (with one chain, LLVM paired a VXLAN frame's words of the second
/// line unlike the first header's and shuffled them together: VXLAN 8
/// flows 2.8 instructions more per packet; as folds, or a loop over the
/// lines, 3-7 more again).
#[inline(always)]
pub(crate) fn words_diff<const N: usize>(first: &[u8], f: &[u8], masks: &[u64; N]) -> u64 {
    const { assert!(N <= 16, "a header spans at most two lines") };
    let x = |i: usize| (load8(first, 8 * i) ^ load8(f, 8 * i)) & masks[i];
    let (mut line0, mut line1) = (0, 0);
    for i in 0..N.min(8) {
        line0 |= x(i);
    }
    for i in 8..N {
        line1 |= x(i);
    }
    line0 | line1
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

/// Host-order masks of the bytes `0..span` in `N` 8-byte words from byte
/// 0 that a full-size segment repeats from the first: every byte but the
/// varying `fields` (compared apart, or not at all) and those from `span`.
pub(crate) const fn same_masks<const N: usize>(span: usize, fields: &[VaryField]) -> [u64; N] {
    assert!(N * 8 >= span && N * 8 < span + 8, "N words must cover span");
    let mut bytes = [[0xFFu8; 8]; N];
    let mut b = span;
    while b < N * 8 {
        bytes[b / 8][b % 8] = 0;
        b += 1;
    }
    let mut i = 0;
    while i < fields.len() {
        let f = fields[i];
        let mut b = f.at;
        while b < f.at + f.len {
            bytes[b / 8][b % 8] = 0;
            b += 1;
        }
        i += 1;
    }
    let mut out = [0u64; N];
    let mut w = 0;
    while w < N {
        out[w] = u64::from_ne_bytes(bytes[w]);
        w += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::layout::{TCP4, VXLAN4, VXLAN4_HDR};
    use super::*;

    /// The masks keep every header byte but the varying fields: the
    /// layouts' known offsets.
    #[test]
    fn masks_drop_the_varying_fields() {
        let t: [u64; 7] = same_masks(TCP4.options(), &tcp4_fields(TCP4));
        let v: [u64; 13] = same_masks(VXLAN4.options(), &vxlan4_fields(VXLAN4));
        let dropped = |m: &[u64]| -> [bool; 104] {
            let mut out = [true; 104];
            for (i, w) in m.iter().enumerate() {
                for (j, b) in w.to_ne_bytes().iter().enumerate() {
                    out[8 * i + j] = *b == 0;
                }
            }
            out
        };
        // The varying fields, and the bytes from the options on.
        let want = |ranges: &[(usize, usize)], span: usize| -> [bool; 104] {
            let mut out = [false; 104];
            for &(a, b) in ranges {
                out[a..b].fill(true);
            }
            out[span..].fill(true);
            out
        };
        let tcp = [(18, 20), (24, 26), (38, 42), (50, 54)];
        assert_eq!(dropped(&t), want(&tcp, 54));
        let vx = [
            (18, 20),
            (24, 26),
            (40, 42),
            (68, 70),
            (74, 76),
            (88, 92),
            (100, 104),
        ];
        assert_eq!(dropped(&v), want(&vx, 104));
    }

    /// Each predicted field is read where the layout has it.
    #[test]
    fn fields_diff_reads_each_field() {
        let fields = vxlan4_fields(VXLAN4);
        let mut f = [0u8; VXLAN4_HDR];
        let p = Predicted {
            ids: [0x0102, 0x0304],
            csums: [0x0506, 0x0708],
            seq: 0x090A_0B0C,
        };
        f[18..20].copy_from_slice(&[1, 2]);
        f[24..26].copy_from_slice(&[5, 6]);
        f[68..70].copy_from_slice(&[3, 4]);
        f[74..76].copy_from_slice(&[7, 8]);
        f[88..92].copy_from_slice(&[9, 10, 11, 12]);
        assert_eq!(fields_diff(&fields, &f, &p), 0);
        for at in [18, 25, 68, 75, 88, 91] {
            let mut g = f;
            g[at] ^= 0x80;
            assert_ne!(fields_diff(&fields, &g, &p), 0, "{at}");
        }
        // Skipped fields are not read.
        let mut g = f;
        g[40] = 0xFF;
        g[100] = 0xFF;
        assert_eq!(fields_diff(&fields, &g, &p), 0);
    }
}
