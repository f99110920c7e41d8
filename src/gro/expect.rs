//! The exact header the next full-size segment of a fixed-layout held flow
//! will carry, so that such a segment is accepted by one word compare.
//!
//! A bulk TCP sender's segments differ from each other only in the IPv4 ID
//! (incrementing or fixed), the IPv4 header checksum that follows from it, the
//! TCP sequence (advancing by the segment size), the TCP checksum and, on the
//! last one, the length and the PSH/FIN flags. So the header the next segment
//! has if everything goes on as before is the first segment's header with the
//! next ID, its header checksum (computed, as the sender's `ip_send_check`
//! does, from a per-flow word sum kept at insert) and the next sequence. The
//! compare checks the frame's bytes against the first header's under masks
//! that leave those fields out, and the fields against their predicted
//! values, so no predicted header is written per merge (only whether the
//! size limit leaves room for another segment, as the predicted length).
//! A segment whose header equals it byte for byte (the TCP checksum and urgent
//! pointer excepted, and a tunnel's outer UDP checksum), with the predicted
//! frame length and the same TCP options, passes every rule `flow::can_merge`
//! checks and has a good IPv4 header checksum: it merges with no further test.
//! Anything else (a short or flagged last segment, a changed TTL, a fixed-ID
//! sender's second segment, a bad header checksum) simply does not match and
//! takes the rule-by-rule path, which decides and names the reason, so this
//! is a shortcut that can only say "merges as predicted", never "flush".
//! (IPv6 has no ID and no header checksum: only the sequence is predicted.)
//! The words compared come from `words.rs`, derived from each layout's
//! varying fields.

use super::config::MAX_HEADER;
use super::flow::load8;
use super::layout::{Fixed, RAW_TCP4, TCP4, TCP6, VXLAN4};
use super::output::IdMode;
use super::parse::fold_not;
use super::words::{
    Predicted, VaryField, fields_diff, same_masks, tcp4_fields, tcp6_fields, vxlan4_fields,
    words_diff,
};
use crate::wire::ipv4;

/// The fixed layouts the fast paths handle (offsets: [`Layout::fixed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Ethernet / IPv4 (no options) / TCP: IPv4 at 14, TCP at 34.
    Tcp4,
    /// Ethernet / IPv4 / UDP / VXLAN / Ethernet / IPv4 / TCP: IPv4 at 14 and
    /// 64, TCP at 84.
    Vxlan4,
    /// Raw IPv4 (no options) / TCP: IPv4 at 0, TCP at 20.
    RawTcp4,
    /// Ethernet / IPv6 (no extension headers) / TCP: IPv6 at 14, TCP at 54.
    Tcp6,
}

impl Layout {
    /// Where the TCP options start (the TCP header + 20).
    pub(crate) const fn options(self) -> usize {
        match self {
            Layout::Tcp4 => TCP4.options(),
            Layout::Vxlan4 => VXLAN4.options(),
            Layout::RawTcp4 => RAW_TCP4.options(),
            Layout::Tcp6 => TCP6.options(),
        }
    }

    /// The header offsets of the layout.
    pub(crate) const fn fixed(self) -> Fixed {
        match self {
            Layout::Tcp4 => TCP4,
            Layout::Vxlan4 => VXLAN4,
            Layout::RawTcp4 => RAW_TCP4,
            Layout::Tcp6 => TCP6,
        }
    }
}

/// Bytes of a fixed-layout frame the prediction compares: the headers up to
/// the TCP options and the two option words.
pub(crate) const TCP4_SPAN: usize = Layout::Tcp4.options() + 16;
/// [`TCP4_SPAN`] for the TCP/IPv6 layout.
pub(crate) const TCP6_SPAN: usize = Layout::Tcp6.options() + 16;
/// [`TCP4_SPAN`] for the VXLAN layout.
pub(crate) const VXLAN4_SPAN: usize = Layout::Vxlan4.options() + 16;

/// A host-order mask of the first `n` bytes of an 8-byte word (all for 8 up).
const fn low_bytes(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        u64::from_le((1u64 << (8 * n)) - 1)
    }
}

/// The option masks for every options length up to 16 bytes (a table: the
/// insert of a flow looks them up instead of computing shifts).
const OPT_MASKS: [[u64; 2]; 17] = {
    let mut t = [[0u64; 2]; 17];
    let mut n = 0;
    while n <= 16 {
        t[n] = [low_bytes(n), low_bytes(n.saturating_sub(8))];
        n += 1;
    }
    t
};

/// Offset of the IPv4 ID in its header.
const ID: usize = ipv4::ID_OFFSET;
/// Offset of the IPv4 header checksum in its header.
const CSUM: usize = ipv4::CHECKSUM_OFFSET;

/// Where a flow stands, as its next full-size segment depends on it: the
/// first segment's IPv4 IDs, the ID modes, the segment count, and the
/// sequence the next segment must carry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Next {
    pub ids: [u16; 2],
    pub modes: [IdMode; 2],
    pub count: u16,
    pub seq: u32,
}

/// What a flow keeps to predict its next segment's header (see the module
/// docs): per IPv4 header the word sum without ID and checksum, so the
/// checksum for any ID is one add and a fold; the TCP options as two masked
/// words; the frame length the next segment must have, or 0 when no segment
/// can merge by prediction. The prediction itself is made at compare time
/// from the first header and [`Next`].
#[derive(Clone, Copy, Debug, zerocopy::FromZeros)]
pub(crate) struct Expect {
    /// Per IPv4 header (outer, inner), modulo 0xFFFF.
    ip_base: [u32; 2],
    /// Host-order masks of the TCP option bytes in the two 8-byte words from
    /// where the options start (zero past their end).
    opt_mask: [u64; 2],
    /// Frame length of the predicted next segment (the first segment's), or
    /// 0: no fixed layout, TCP options longer than the two compared words,
    /// or no room left under the size limit for another full-size segment.
    /// One compare of the frame length then covers all of those.
    len: u32,
}

impl Expect {
    pub(crate) const EMPTY: Expect = Expect {
        ip_base: [0; 2],
        opt_mask: [0; 2],
        len: 0,
    };

    /// Takes the first segment `first` of a flow with `layout` (its IPv4
    /// header checksums verified), its payload offset and frame length, and
    /// whether a second full-size segment fits the size limit.
    #[inline(always)]
    pub(crate) fn start(
        &mut self,
        first: &[u8],
        layout: Layout,
        payload: usize,
        end: u32,
        fits: bool,
    ) {
        if layout != Layout::Tcp6 {
            self.ip_base[0] = ip_base(first, layout.fixed().ip[0]);
        }
        if layout == Layout::Vxlan4 {
            self.ip_base[1] = ip_base(first, VXLAN4.ip[1]);
        }
        let opts = payload.saturating_sub(layout.options());
        // Past the table (more option bytes than the compare covers) no
        // prediction is made, so any mask serves: the last one, by a clamped
        // index (an `Option` of the pair went through the stack).
        let known = opts < OPT_MASKS.len();
        self.opt_mask = OPT_MASKS[opts.min(OPT_MASKS.len() - 1)];
        self.len = if known && fits { end } else { 0 };
    }

    /// No prediction for this flow (a layout the compare does not cover).
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// After a merge: the prediction stays only while another full-size
    /// segment `fits` the size limit.
    #[inline(always)]
    pub(crate) fn keep_if(&mut self, fits: bool) {
        self.len &= u32::from(fits).wrapping_neg();
    }

    /// The frame length the predicted next segment has (0: none merges by
    /// prediction).
    #[inline(always)]
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// The option words of `f` XORed with the first header's, masked to the
    /// options (zero when equal or when compared apart); options at `at`.
    #[inline(always)]
    fn opts_diff(&self, first: &[u8], f: &[u8], at: usize) -> u64 {
        let x = |o: usize| load8(first, o) ^ load8(f, o);
        (x(at) & self.opt_mask[0]) | (x(at + 8) & self.opt_mask[1])
    }

    /// The predicted ID and header checksum of each of the first `n` IPv4
    /// headers and the sequence of the next segment.
    #[inline(always)]
    fn predicted(&self, n: usize, next: &Next) -> Predicted {
        let mut p = Predicted {
            ids: [0; 2],
            csums: [0; 2],
            seq: next.seq,
        };
        for k in 0..n {
            let id = next_id(next.ids[k], next.modes[k], next.count);
            p.ids[k] = id;
            p.csums[k] = fold_not(self.ip_base[k] + id as u32);
        }
        p
    }

    /// True when the first 54 bytes of a fixed-layout TCP/IPv4 frame are the
    /// predicted next header: the first header `first` with the next ID, its
    /// checksum and the next sequence (TCP checksum and urgent pointer aside),
    /// and its TCP options (the masked words of the next 16 bytes) equal the
    /// first segment's.
    #[inline(always)]
    pub(crate) fn tcp4_matches(
        &self,
        first: &[u8; MAX_HEADER],
        f: &[u8; TCP4_SPAN],
        next: &Next,
    ) -> bool {
        self.layout_matches(first, f, next, 1, &TCP4_SAME, &TCP4_FIELDS, TCP4.options())
    }

    /// [`Self::tcp4_matches`] for a raw-IP frame (first 40 bytes and the
    /// options).
    #[inline(always)]
    pub(crate) fn raw_tcp4_matches(
        &self,
        first: &[u8; MAX_HEADER],
        f: &[u8; TCP4_SPAN],
        next: &Next,
    ) -> bool {
        let (same, fields) = (&RAW_TCP4_SAME, &RAW_TCP4_FIELDS);
        self.layout_matches(first, f, next, 1, same, fields, RAW_TCP4.options())
    }

    /// [`Self::tcp4_matches`] for a TCP/IPv6 frame (first 74 bytes and the
    /// options): only the sequence is predicted.
    #[inline(always)]
    pub(crate) fn tcp6_matches(
        &self,
        first: &[u8; MAX_HEADER],
        f: &[u8; TCP6_SPAN],
        next: &Next,
    ) -> bool {
        self.layout_matches(first, f, next, 0, &TCP6_SAME, &TCP6_FIELDS, TCP6.options())
    }

    /// True when the first 104 bytes of a fixed-layout VXLAN frame are the
    /// predicted next header (outer UDP checksum, inner TCP checksum and
    /// urgent pointer aside), options as in [`Self::tcp4_matches`].
    #[inline(always)]
    pub(crate) fn vxlan4_matches(
        &self,
        first: &[u8; MAX_HEADER],
        f: &[u8; VXLAN4_SPAN],
        next: &Next,
    ) -> bool {
        let (same, fields) = (&VXLAN4_SAME, &VXLAN4_FIELDS);
        self.layout_matches(first, f, next, 2, same, fields, VXLAN4.options())
    }

    /// The compare of one layout: `f`'s bytes up to the options equal
    /// `first`'s under `same`, its `fields` hold the predicted values (of
    /// `ips` IPv4 headers), and its options equal the first segment's.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn layout_matches<const N: usize>(
        &self,
        first: &[u8; MAX_HEADER],
        f: &[u8],
        next: &Next,
        ips: usize,
        same: &[u64; N],
        fields: &[VaryField],
        options: usize,
    ) -> bool {
        let p = self.predicted(ips, next);
        let words = words_diff(first, f, same) | u64::from(fields_diff(fields, f, &p));
        (words | self.opts_diff(first, f, options)) == 0
    }
}

/// The varying fields of each layout and the masks of the bytes that repeat.
const TCP4_FIELDS: [VaryField; 4] = tcp4_fields(TCP4);
const TCP4_SAME: [u64; 7] = same_masks(TCP4.options(), &TCP4_FIELDS);
const RAW_TCP4_FIELDS: [VaryField; 4] = tcp4_fields(RAW_TCP4);
const RAW_TCP4_SAME: [u64; 5] = same_masks(RAW_TCP4.options(), &RAW_TCP4_FIELDS);
const TCP6_FIELDS: [VaryField; 2] = tcp6_fields(TCP6);
const TCP6_SAME: [u64; 10] = same_masks(TCP6.options(), &TCP6_FIELDS);
const VXLAN4_FIELDS: [VaryField; 7] = vxlan4_fields(VXLAN4);
const VXLAN4_SAME: [u64; 13] = same_masks(VXLAN4.options(), &VXLAN4_FIELDS);

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

#[cfg(test)]
mod tests {
    use super::super::flow::eq_at;
    use super::*;

    /// A from-scratch IPv4 header checksum of the header at `at` of `h`.
    fn from_scratch(h: &[u8], at: usize) -> u16 {
        let mut c = h[at..at + 20].to_vec();
        c[CSUM..CSUM + 2].fill(0);
        let s: u32 = c
            .chunks_exact(2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]) as u32)
            .sum();
        fold_not(s)
    }

    fn set_csum(h: &mut [u8], at: usize) {
        let c = from_scratch(h, at).to_be_bytes();
        h[at + CSUM..at + CSUM + 2].copy_from_slice(&c);
    }

    /// A first header of `layout` (bytes `i * mul`, valid IPv4 headers).
    fn first(layout: Layout, mul: usize, ttl: u8, id: u16) -> [u8; MAX_HEADER] {
        let mut h = [0u8; MAX_HEADER];
        for (i, b) in h.iter_mut().enumerate() {
            *b = (i * mul) as u8;
        }
        let ips: &[usize] = match layout {
            Layout::Tcp4 => &[14],
            Layout::Vxlan4 => &[14, 64],
            Layout::RawTcp4 => &[0],
            Layout::Tcp6 => &[],
        };
        for (k, &o) in ips.iter().enumerate() {
            h[o] = 0x45;
            h[o + 8] = ttl;
            h[o + ID..o + ID + 2].copy_from_slice(&(id ^ (k as u16 * 0x5555)).to_be_bytes());
            set_csum(&mut h, o);
        }
        let seq_at = match layout {
            Layout::Tcp4 => 38,
            Layout::Vxlan4 => 88,
            Layout::RawTcp4 => 24,
            Layout::Tcp6 => 58,
        };
        h[seq_at..seq_at + 4].copy_from_slice(&0x1000u32.to_be_bytes());
        h
    }

    /// The next segment's header as a sender builds it: IDs `+ count` (or
    /// fixed), checksums from scratch, sequence `seq`.
    fn next_header(first: &[u8; MAX_HEADER], layout: Layout, n: &Next) -> [u8; VXLAN4_SPAN] {
        let mut h: [u8; VXLAN4_SPAN] = first[..VXLAN4_SPAN].try_into().unwrap();
        let (ips, seq_at): (&[usize], usize) = match layout {
            Layout::Tcp4 => (&[14], 38),
            Layout::Vxlan4 => (&[14, 64], 88),
            Layout::RawTcp4 => (&[0], 24),
            Layout::Tcp6 => (&[], 58),
        };
        for (k, &o) in ips.iter().enumerate() {
            let id = next_id(n.ids[k], n.modes[k], n.count);
            h[o + ID..o + ID + 2].copy_from_slice(&id.to_be_bytes());
            set_csum(&mut h, o);
        }
        h[seq_at..seq_at + 4].copy_from_slice(&n.seq.to_be_bytes());
        h
    }

    fn next(
        first: &[u8; MAX_HEADER],
        layout: Layout,
        modes: [IdMode; 2],
        count: u16,
        seq: u32,
    ) -> Next {
        let id = |o: usize| u16::from_be_bytes([first[o + ID], first[o + ID + 1]]);
        let outer = if layout == Layout::RawTcp4 { 0 } else { 14 };
        Next {
            ids: [id(outer), id(64)],
            modes,
            count,
            seq,
        }
    }

    fn matches(
        e: &Expect,
        layout: Layout,
        first: &[u8; MAX_HEADER],
        f: &[u8; VXLAN4_SPAN],
        n: &Next,
    ) -> bool {
        match layout {
            Layout::Tcp4 => e.tcp4_matches(first, f[..TCP4_SPAN].try_into().unwrap(), n),
            Layout::Vxlan4 => e.vxlan4_matches(first, f, n),
            Layout::RawTcp4 => e.raw_tcp4_matches(first, f[..TCP4_SPAN].try_into().unwrap(), n),
            Layout::Tcp6 => e.tcp6_matches(first, f[..TCP6_SPAN].try_into().unwrap(), n),
        }
    }

    #[test]
    fn a_from_scratch_next_header_matches_for_every_id() {
        for layout in [Layout::Tcp4, Layout::Vxlan4, Layout::RawTcp4, Layout::Tcp6] {
            for (ttl, id) in [(64u8, 0x1234u16), (1, 0), (255, 0xFFFF), (7, 0x8000)] {
                for mul in [1usize, 7, 13] {
                    let first = first(layout, mul, ttl, id);
                    let mut e = Expect::EMPTY;
                    e.start(&first, layout, layout.options() + 12, 1514, true);
                    for mode in [IdMode::Undecided, IdMode::Incrementing, IdMode::Fixed] {
                        for count in (1..=0xFFFFu16).step_by(97).chain([1, 2, 0xFFFF]) {
                            let n = next(
                                &first,
                                layout,
                                [mode; 2],
                                count,
                                0x1000 + 1448 * count as u32,
                            );
                            let f = next_header(&first, layout, &n);
                            assert!(
                                matches(&e, layout, &first, &f, &n),
                                "{layout:?} {mode:?} {count}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn only_the_masked_bytes_may_differ() {
        for layout in [Layout::Tcp4, Layout::Vxlan4, Layout::RawTcp4, Layout::Tcp6] {
            for opts in [0usize, 4, 8, 12, 16] {
                let first = first(layout, 7, 64, 0x1213);
                let mut e = Expect::EMPTY;
                let payload = layout.options() + opts;
                e.start(&first, layout, payload, 1514, true);
                let n = next(&first, layout, [IdMode::Undecided; 2], 1, 0x1000 + 1448);
                let f = next_header(&first, layout, &n);
                let span = match layout {
                    Layout::Tcp4 => TCP4_SPAN,
                    Layout::Vxlan4 => VXLAN4_SPAN,
                    Layout::RawTcp4 => 40 + 16,
                    Layout::Tcp6 => TCP6_SPAN,
                };
                for at in 0..span {
                    let mut g = f;
                    g[at] ^= 0x10;
                    // Checksums and urgent pointer, and payload bytes past the
                    // options, are not part of the prediction.
                    let may_differ = at >= payload
                        || match layout {
                            Layout::Tcp4 => (50..54).contains(&at),
                            Layout::Vxlan4 => (40..42).contains(&at) || (100..104).contains(&at),
                            Layout::RawTcp4 => (36..40).contains(&at),
                            Layout::Tcp6 => (70..74).contains(&at),
                        };
                    assert_eq!(
                        matches(&e, layout, &first, &g, &n),
                        may_differ,
                        "{layout:?} options {opts} byte {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn predicted_length_is_zero_when_no_segment_can_merge_by_prediction() {
        let first = first(Layout::Tcp4, 3, 64, 7);
        let mut e = Expect::EMPTY;
        assert_eq!(e.len(), 0, "an empty flow predicts nothing");
        for opts in [0usize, 12, 16] {
            e.start(&first, Layout::Tcp4, 54 + opts, 1514, true);
            assert_eq!(e.len(), 1514, "options {opts}");
        }
        // Options the two words do not cover: compared by the rules instead.
        for opts in [20usize, 40] {
            e.start(&first, Layout::Tcp4, 54 + opts, 1514, true);
            assert_eq!(e.len(), 0, "options {opts}");
        }
        // No room for a second full-size segment.
        e.start(&first, Layout::Tcp4, 66, 1514, false);
        assert_eq!(e.len(), 0);
        e.start(&first, Layout::Vxlan4, 116, 1564, true);
        assert_eq!(e.len(), 1564);
        e.keep_if(true);
        assert_eq!(e.len(), 1564);
        e.keep_if(false);
        assert_eq!(e.len(), 0, "the room ran out");
        e.start(&first, Layout::Tcp4, 66, 1514, true);
        e.clear();
        assert_eq!(e.len(), 0, "a layout the compare does not cover");
    }

    #[test]
    fn options_compare() {
        let mut first = [0u8; MAX_HEADER];
        for (i, b) in first.iter_mut().enumerate() {
            *b = (i * 3) as u8;
        }
        for n in (0..=40).step_by(4) {
            let f = first[..54 + n].to_vec();
            assert!(eq_at(&first, 54, &f, 54, n));
            for at in 54..54 + n {
                let mut g = f.clone();
                g[at] ^= 1;
                assert!(!eq_at(&first, 54, &g, 54, n), "{n} {at}");
            }
        }
    }
}
