//! The exact header the next full-size segment of a fixed-layout held flow
//! will carry, so that such a segment is accepted by one word compare.
//!
//! A bulk TCP sender's segments differ from each other only in the IPv4 ID
//! (incrementing or fixed), the IPv4 header checksum that follows from it, the
//! TCP sequence (advancing by the segment size), the TCP checksum and, on the
//! last one, the length and the PSH/FIN flags. So after each merge the flow
//! writes down the header the next segment has if everything goes on as
//! before: the first segment's header with the next ID, its header checksum
//! (computed, as the sender's `ip_send_check` does) and the next sequence.
//! A segment whose header equals it byte for byte (the TCP checksum and urgent
//! pointer excepted, and a tunnel's outer UDP checksum), with the same frame
//! length and the same TCP options, passes every rule `flow::can_merge`
//! checks and has a good IPv4 header checksum: it merges with no further test.
//! Anything else (a short or flagged last segment, a changed TTL, a fixed-ID
//! sender's second segment, a bad header checksum) simply does not match and
//! takes the rule-by-rule path, which decides and names the reason, so this
//! is a shortcut that can only say "merges as predicted", never "flush".

use super::config::MAX_HEADER;
use super::flow::load8;
use super::output::IdMode;

/// The two fixed layouts the fast paths handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Ethernet / IPv4 (no options) / TCP: IPv4 at 14, TCP at 34.
    Tcp4,
    /// Ethernet / IPv4 / UDP / VXLAN / Ethernet / IPv4 / TCP: IPv4 at 14 and
    /// 64, TCP at 84.
    Vxlan4,
}

/// Offset of the IPv4 ID in its header.
const ID: usize = 4;
/// Offset of the IPv4 header checksum in its header.
const CSUM: usize = 10;

/// The 8-byte words of the Ethernet / IPv4 / TCP layout that change from
/// segment to segment: total length + ID (16..24), checksum + addresses
/// (24..32), sequence + ack (38..46). Predicted in [`Expect`].
const TCP4_VARY: [usize; 3] = [16, 24, 38];
/// The words that stay as in the first header (30..38: addresses + ports).
const TCP4_SAME: [usize; 3] = [0, 8, 30];
/// Offset of the last word (46..54: data offset, flags, window; the checksum
/// and urgent pointer masked off by [`TCP_TAIL`]).
const TCP4_TAIL_AT: usize = 46;

/// The changing words of the VXLAN layout: outer IPv4 length + ID, outer
/// checksum, inner IPv4 length + ID (64..72), inner checksum (72..80), TCP
/// sequence + ack (88..96).
const VX4_VARY: [usize; 5] = [16, 24, 64, 72, 88];
/// Its unchanging words (outer addresses, UDP ports + length, VXLAN header,
/// inner Ethernet, inner addresses + ports).
const VX4_SAME: [usize; 5] = [0, 8, 32, 48, 56];
/// 40..48 (outer UDP checksum masked off by [`SKIP_UDP_CSUM`]), 80..88 (inner
/// addresses + ports) and 96..104 (TCP tail, [`TCP_TAIL`]).
const VX4_UDP_AT: usize = 40;
const VX4_INNER_AT: usize = 80;
const VX4_TAIL_AT: usize = 96;

/// Keeps the low four bytes of a host-order 8-byte load of TCP bytes 12..20
/// (data offset, flags, window): the checksum and urgent pointer may differ.
const TCP_TAIL: u64 = u64::from_ne_bytes([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
/// Drops the first two bytes of a host-order 8-byte load at the outer UDP
/// checksum (VXLAN layout bytes 40..48): a non-zero checksum differs per
/// segment and is vouched for by the checksum state, not by the header.
const SKIP_UDP_CSUM: u64 = u64::from_ne_bytes([0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);

/// The predicted next header of one held flow (see the module docs): the
/// changing words only; the others are compared with the first header.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expect {
    /// `TCP4_VARY` or `VX4_VARY` words, as the next segment has them.
    words: [u64; 5],
    /// Each IPv4 header's 16-bit word sum without its ID and checksum, modulo
    /// 0xFFFF (so the checksum for any ID is one add and a fold).
    ip_base: [u32; 2],
}

impl Expect {
    pub(crate) const EMPTY: Expect = Expect {
        words: [0; 5],
        ip_base: [0; 2],
    };

    /// Predicts the second segment of a flow with `layout` from its first,
    /// `first` (whose IPv4 header checksums were verified), with IPv4 IDs
    /// `ids` and the sequence number after it `next_seq`. Reads the frame, not
    /// the flow's fresh copy of it (wide loads of just-stored narrow bytes
    /// stall store forwarding).
    #[inline(always)]
    pub(crate) fn start(&mut self, first: &[u8], layout: Layout, ids: [u16; 2], next_seq: u32) {
        match layout {
            Layout::Tcp4 => {
                for (w, &at) in self.words.iter_mut().zip(TCP4_VARY.iter()) {
                    *w = load8(first, at);
                }
                self.ip_base[0] = ip_base(first, 14);
            }
            Layout::Vxlan4 => {
                for (w, &at) in self.words.iter_mut().zip(VX4_VARY.iter()) {
                    *w = load8(first, at);
                }
                self.ip_base = [ip_base(first, 14), ip_base(first, 64)];
            }
        }
        self.advance(layout, ids, [IdMode::Undecided; 2], 1, next_seq);
    }

    /// Predicts the segment after `count` held ones: per IPv4 header the ID
    /// (`ids` are the first segment's, fixed or `+ count` by `modes`; an
    /// undecided mode is predicted incrementing) and its header checksum, and
    /// the TCP sequence `next_seq`.
    #[inline(always)]
    pub(crate) fn advance(
        &mut self,
        layout: Layout,
        ids: [u16; 2],
        modes: [IdMode; 2],
        count: u16,
        next_seq: u32,
    ) {
        let id0 = next_id(ids[0], modes[0], count);
        let [w16, w24, w2, w3, w4] = &mut self.words;
        // Word 16..24 holds the ID at byte 2, word 24..32 the checksum at 0.
        *w16 = patch(*w16, 2, id0.to_be_bytes());
        *w24 = patch(
            *w24,
            0,
            fold_not(self.ip_base[0] + id0 as u32).to_be_bytes(),
        );
        let seq = next_seq.to_be_bytes();
        match layout {
            // 38..46: the sequence at byte 0.
            Layout::Tcp4 => *w2 = patch(*w2, 0, seq),
            Layout::Vxlan4 => {
                // 64..72: inner ID at byte 4; 72..80: inner checksum at 2;
                // 88..96: the sequence at 0.
                let id1 = next_id(ids[1], modes[1], count);
                *w2 = patch(*w2, 4, id1.to_be_bytes());
                *w3 = patch(*w3, 2, fold_not(self.ip_base[1] + id1 as u32).to_be_bytes());
                *w4 = patch(*w4, 0, seq);
            }
        }
    }

    /// True when the first 54 bytes of a fixed-layout TCP/IPv4 frame are the
    /// predicted ones: the changing words as predicted, the others as in the
    /// first header `first` (TCP checksum and urgent pointer aside).
    #[inline(always)]
    pub(crate) fn tcp4_matches(&self, first: &[u8; MAX_HEADER], f: &[u8; 54]) -> bool {
        let same = |o: usize| load8(first, o) ^ load8(f, o);
        let vary = |i: usize| self.words[i] ^ load8(f, TCP4_VARY[i]);
        let [a, b, c] = TCP4_SAME;
        let d = same(a) | same(b) | same(c) | (same(TCP4_TAIL_AT) & TCP_TAIL);
        (d | vary(0) | vary(1) | vary(2)) == 0
    }

    /// True when the first 104 bytes of a fixed-layout VXLAN frame are the
    /// predicted ones (outer UDP checksum, inner TCP checksum and urgent
    /// pointer aside).
    #[inline(always)]
    pub(crate) fn vxlan4_matches(&self, first: &[u8; MAX_HEADER], f: &[u8; 104]) -> bool {
        let same = |o: usize| load8(first, o) ^ load8(f, o);
        let vary = |i: usize| self.words[i] ^ load8(f, VX4_VARY[i]);
        let [a, b, c, d, e] = VX4_SAME;
        let fixed = same(a) | same(b) | same(c) | same(d) | same(e) | same(VX4_INNER_AT);
        let masked = (same(VX4_UDP_AT) & SKIP_UDP_CSUM) | (same(VX4_TAIL_AT) & TCP_TAIL);
        let varying = vary(0) | vary(1) | vary(2) | vary(3) | vary(4);
        (fixed | masked | varying) == 0
    }
}

/// True when the first segment's header `first` and the frame `f` hold the
/// same TCP options in `from..to` (a multiple of 4 bytes, at most 40): the
/// usual 12 bytes of timestamps in two overlapping 8-byte loads.
#[inline(always)]
pub(crate) fn same_options(first: &[u8; MAX_HEADER], f: &[u8], from: usize, to: usize) -> bool {
    let n = to.wrapping_sub(from);
    if n == 0 {
        return true;
    }
    if (8..=16).contains(&n)
        && let (Some(a0), Some(a1), Some(b0), Some(b1)) = (
            first.get(from..from + 8),
            first.get(to - 8..to),
            f.get(from..from + 8),
            f.get(to - 8..to),
        )
    {
        return (load8(a0, 0) ^ load8(b0, 0)) | (load8(a1, 0) ^ load8(b1, 0)) == 0;
    }
    first
        .get(from..to)
        .is_some_and(|a| f.get(from..to) == Some(a))
}

/// The ID the next segment carries in `mode` after `count` segments.
#[inline(always)]
const fn next_id(first: u16, mode: IdMode, count: u16) -> u16 {
    match mode {
        IdMode::Fixed => first,
        IdMode::Incrementing | IdMode::Undecided => first.wrapping_add(count),
    }
}

/// The ID mode of a flow after a segment matched the prediction of `mode`
/// (`flow`'s `id_mode_after` for that segment's ID).
#[inline(always)]
pub(crate) const fn mode_after_match(mode: IdMode) -> IdMode {
    match mode {
        IdMode::Fixed => IdMode::Fixed,
        IdMode::Incrementing | IdMode::Undecided => IdMode::Incrementing,
    }
}

/// The big-endian 16-bit word sum of the IPv4 header at `at` without its ID
/// and checksum, modulo 0xFFFF, from those two words alone: the header was
/// verified before its flow was held, so all its words sum to 0 modulo
/// 0xFFFF. (The result is positive, so a fold never yields the +0 that a
/// from-scratch sum of a real header cannot give either.)
#[inline(always)]
fn ip_base(h: &[u8], at: usize) -> u32 {
    let word = |o: usize| match h.get(at + o..at + o + 2) {
        Some(&[x, y]) => u16::from_be_bytes([x, y]) as u32,
        _ => 0,
    };
    3 * 0xFFFF - word(ID) - word(CSUM)
}

/// The ones-complement checksum of a word sum: folded, complemented (what a
/// from-scratch `ip_fast_csum` writes).
#[inline(always)]
const fn fold_not(sum: u32) -> u16 {
    let s = (sum & 0xFFFF) + (sum >> 16);
    let s = (s & 0xFFFF) + (s >> 16);
    !(s as u16)
}

/// `w` (a host-order load of 8 bytes) with `v` written at byte `at`.
#[inline(always)]
fn patch<const N: usize>(w: u64, at: usize, v: [u8; N]) -> u64 {
    let mut b = w.to_ne_bytes();
    if let Some(d) = b.get_mut(at..at + N) {
        d.copy_from_slice(&v);
    }
    u64::from_ne_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A valid IPv4 header checksum for the header at `at` of `h`.
    fn from_scratch(h: &[u8], at: usize) -> u16 {
        let mut c = h[at..at + 20].to_vec();
        c[CSUM..CSUM + 2].fill(0);
        let s: u32 = c
            .chunks_exact(2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]) as u32)
            .sum();
        fold_not(s)
    }

    /// The header the prediction stands for: `first` with the predicted
    /// words written over it.
    fn predicted(e: &Expect, first: &[u8; MAX_HEADER], layout: Layout) -> [u8; 104] {
        let mut h: [u8; 104] = first[..104].try_into().unwrap();
        let vary: &[usize] = match layout {
            Layout::Tcp4 => &TCP4_VARY,
            Layout::Vxlan4 => &VX4_VARY,
        };
        for (w, &at) in e.words.iter().zip(vary) {
            h[at..at + 8].copy_from_slice(&w.to_ne_bytes());
        }
        h
    }

    fn header(ttl: u8, src: [u8; 4], id: u16) -> [u8; 20] {
        let id = id.to_be_bytes();
        let mut h = [
            0x45, 0, 0x05, 0xDC, id[0], id[1], 0x40, 0, ttl, 6, 0, 0, src[0], src[1], src[2],
            src[3], 10, 0, 0, 2,
        ];
        let c = from_scratch(&h, 0).to_be_bytes();
        h[10..12].copy_from_slice(&c);
        h
    }

    #[test]
    fn predicted_checksum_is_the_from_scratch_one_for_every_id() {
        // Headers whose checksums land on both ends of the range too.
        for (ttl, src, first_id) in [
            (64u8, [10u8, 0, 0, 1], 0x1234u16),
            (1, [0, 0, 0, 0], 0),
            (255, [255, 255, 255, 255], 0xFFFF),
            (64, [0xBA, 0xDC, 0x0F, 0xFE], 0x8000),
        ] {
            for layout in [Layout::Tcp4, Layout::Vxlan4] {
                let mut first = [0u8; MAX_HEADER];
                first[14..34].copy_from_slice(&header(ttl, src, first_id));
                first[64..84].copy_from_slice(&header(ttl ^ 1, src, first_id ^ 0x5555));
                let ids = [first_id, first_id ^ 0x5555];
                let mut e = Expect::EMPTY;
                e.start(&first, layout, ids, 5);
                let seq_at = if layout == Layout::Tcp4 { 38 } else { 88 };
                for count in (1..=0xFFFFu16).step_by(7).chain([2, 0xFFFF]) {
                    e.advance(layout, ids, [IdMode::Incrementing; 2], count, 7);
                    let h = predicted(&e, &first, layout);
                    let ips: &[usize] = if layout == Layout::Tcp4 {
                        &[14]
                    } else {
                        &[14, 64]
                    };
                    for (k, &ip) in ips.iter().enumerate() {
                        let id = u16::from_be_bytes([h[ip + 4], h[ip + 5]]);
                        assert_eq!(id, ids[k].wrapping_add(count));
                        let got = u16::from_be_bytes([h[ip + 10], h[ip + 11]]);
                        assert_eq!(got, from_scratch(&h, ip), "count {count}");
                    }
                    assert_eq!(&h[seq_at..seq_at + 4], &7u32.to_be_bytes());
                }
                e.advance(layout, ids, [IdMode::Fixed; 2], 9, 7);
                let h = predicted(&e, &first, layout);
                assert_eq!(&h[14..34], &first[14..34]);
            }
        }
    }

    #[test]
    fn only_the_checksum_and_urgent_pointer_may_differ() {
        let mut first = [0u8; MAX_HEADER];
        for (i, b) in first.iter_mut().enumerate() {
            *b = i as u8;
        }
        let mut e = Expect::EMPTY;
        e.start(&first, Layout::Tcp4, [0x1213, 0], 0x2627_2829);
        let f: [u8; 54] = predicted(&e, &first, Layout::Tcp4)[..54]
            .try_into()
            .unwrap();
        assert!(e.tcp4_matches(&first, &f));
        for at in 0..54 {
            let mut g = f;
            g[at] ^= 0x10;
            let may_differ = (50..54).contains(&at);
            assert_eq!(e.tcp4_matches(&first, &g), may_differ, "byte {at}");
        }
    }

    #[test]
    fn vxlan_ignores_only_outer_udp_checksum_and_inner_tcp_tail() {
        let mut first = [0u8; MAX_HEADER];
        for (i, b) in first.iter_mut().enumerate() {
            *b = (i * 7) as u8;
        }
        let mut e = Expect::EMPTY;
        e.start(&first, Layout::Vxlan4, [0x1213, 0x4243], 0x5859_5A5B);
        let f = predicted(&e, &first, Layout::Vxlan4);
        assert!(e.vxlan4_matches(&first, &f));
        for at in 0..104 {
            let mut g = f;
            g[at] ^= 0x01;
            let may_differ = (40..42).contains(&at) || (100..104).contains(&at);
            assert_eq!(e.vxlan4_matches(&first, &g), may_differ, "byte {at}");
        }
    }

    #[test]
    fn patch_writes_the_bytes_in_place() {
        let w = u64::from_ne_bytes([1, 2, 3, 4, 5, 6, 7, 8]);
        for at in 0..=6 {
            let mut want = w.to_ne_bytes();
            want[at..at + 2].copy_from_slice(&[0xAB, 0xCD]);
            assert_eq!(patch(w, at, [0xAB, 0xCD]).to_ne_bytes(), want, "{at}");
        }
        for at in 0..=4 {
            let mut want = w.to_ne_bytes();
            want[at..at + 4].copy_from_slice(&[0xA1, 0xB2, 0xC3, 0xD4]);
            let got = patch(w, at, [0xA1, 0xB2, 0xC3, 0xD4]);
            assert_eq!(got.to_ne_bytes(), want, "{at}");
        }
    }

    #[test]
    fn options_compare() {
        let mut first = [0u8; MAX_HEADER];
        for (i, b) in first.iter_mut().enumerate() {
            *b = (i * 3) as u8;
        }
        for n in (0..=40).step_by(4) {
            let f = first[..54 + n].to_vec();
            assert!(same_options(&first, &f, 54, 54 + n));
            for at in 54..54 + n {
                let mut g = f.clone();
                g[at] ^= 1;
                assert!(!same_options(&first, &g, 54, 54 + n), "{n} {at}");
            }
        }
    }
}
