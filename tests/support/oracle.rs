//! The soundness oracle: says whether a checksum state is sound for a packet
//! (DESIGN.md section 4) by recomputing every checksum from scratch.
//!
//! It is independent of the crate's checksum code: sums are a naive loop over
//! big-endian byte pairs into a `u64`, CRC32c comes from the `crc32c` crate,
//! and it walks the headers with its own small parser (it never calls
//! `netoffload::wire` or `netoffload::csum`). It reads the crate's
//! `CsumMeta` / `CsumState` / `Wsum` only to know what is claimed.
//!
//! # API
//!
//! - [`sites`]`(bytes, link)`: every L4 checksum of the frame, outermost
//!   first, descending into tunnels (VXLAN 4789, GENEVE 6081, GRE with
//!   Ethernet / IPv4 / IPv6, IPv4-in-IP, IPv6-in-IP), each with `correct`
//!   computed from scratch. Fragments end the walk.
//! - [`check`]`(&View, &meta) -> Result<(), Unsound>`: the contract.
//!   A [`View`] says where the packet stands: `cur` (where a `Complete` sum
//!   starts), `levels_from` (an `Unnecessary` level counts the checksums whose
//!   L4 header starts at or after this offset: the first unvalidated one) and
//!   `l4` (the layer `CSUM_VALID` and `DATA_VALID` speak of).
//!   `View::new(bytes, link, cur, l4)` before validating the layer at `l4`,
//!   `.validated()` after.
//! - [`all_correct`], [`correct_at`]: is the packet (or the layer at an
//!   offset) uncorrupted.
//! - [`naive_sum`], [`wsum_of`], [`honest_complete`]: sums for building honest
//!   device states.
//!
//! Rules checked: `Unnecessary{n}`: the first n+1 counted sites at or after
//! `levels_from` are correct (counted: TCP, UDP incl. checksum 0, GRE with C,
//! SCTP; a claim beyond the last site is vacuous). `Complete{csum}`: fold of
//! `csum` (host word order) equals the fold of the naive sum of
//! `bytes[cur..]`, +0/-0 distinguished (all-zero bytes sum to +0).
//! `Partial`: the field lies inside the
//! packet; when `start` is the L4 header of a known site and `offset` its
//! checksum field, filling a copy (ones-complement sum from `start`, or CRC32c
//! with the field zeroed) makes that site correct. `CSUM_VALID`: the site at
//! `l4` (if any) counts as verified in this pass, as Linux `csum_valid` does:
//! it is correct, or the state is a `Partial` whose `start` is at or after
//! `l4` (`skb_csum_unnecessary` trusts a locally generated packet; its field
//! may be blank, and the `Partial` rule above is what makes that honest).
//! `DATA_VALID` outside `Partial`: the site at `l4` (if any) is correct.
//!
//! Limits: the pseudo-header uses the IP header's addresses (no IPv6 routing
//! header / Home Address handling); GRE keys and sequence numbers are skipped
//! by flag.

use netoffload::csum::Wsum;

/// The naive arithmetic (shared with the other rooms' test oracles).
#[path = "naive.rs"]
pub mod naive;
use netoffload::state::{CsumFlags, CsumMeta, CsumState, PartialKind};

/// How the frame begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Ethernet II (VLAN tags allowed).
    Ethernet,
    /// Bare IP.
    RawIp,
}

/// The protocol of a checksum site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
    /// GRE with the C bit.
    Gre,
    /// SCTP (CRC32c).
    Sctp,
    /// ICMP over IPv4.
    Icmp4,
    /// ICMPv6.
    Icmp6,
}

/// One L4 checksum found in the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    /// Offset of the IP header it belongs to.
    pub l3: usize,
    /// Offset of the L4 header.
    pub l4: usize,
    /// End of what the checksum covers.
    pub end: usize,
    /// Protocol.
    pub proto: Proto,
    /// Offset of the checksum field.
    pub field: usize,
    /// Counted by `csum_level` (not ICMP).
    pub counted: bool,
    /// A UDP checksum of 0.
    pub zero: bool,
    /// The checksum verifies (a zero UDP checksum counts as correct).
    pub correct: bool,
}

/// Where the packet stands for the contract.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// The frame bytes (the packet's length is their length).
    pub bytes: &'a [u8],
    /// How it begins.
    pub link: Link,
    /// Where a `Complete` sum starts.
    pub cur: usize,
    /// `Unnecessary` levels count sites whose L4 header is at or after this.
    pub levels_from: usize,
    /// The layer `CSUM_VALID` / `DATA_VALID` refer to.
    pub l4: usize,
}

impl<'a> View<'a> {
    /// A packet about to validate the layer at `l4`, with a `Complete` sum
    /// starting at `cur` (levels count from `l4`).
    pub fn new(bytes: &'a [u8], link: Link, cur: usize, l4: usize) -> View<'a> {
        View {
            bytes,
            link,
            cur,
            levels_from: l4,
            l4,
        }
    }

    /// The same packet after the layer at `l4` was validated (its level, if
    /// any, consumed: later levels count from the next layer).
    pub fn validated(self) -> View<'a> {
        View {
            levels_from: self.l4 + 1,
            ..self
        }
    }
}

/// Why a state is unsound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsound {
    /// `Unnecessary` covers a site that does not verify.
    LevelCoversBad { level: u8, site: Site },
    /// `Complete` does not match the bytes from `cur`.
    CompleteMismatch {
        claimed: [u8; 2],
        actual: [u8; 2],
        cur: usize,
    },
    /// `Partial` field outside the packet.
    PartialOutOfBounds {
        start: usize,
        offset: usize,
        len: usize,
    },
    /// Filling the `Partial` does not give a correct checksum.
    PartialFillWrong { site: Site },
    /// `CSUM_VALID` on a layer that does not verify and no trusted `Partial`
    /// covers.
    CsumValidOnBad { site: Site },
    /// `DATA_VALID` on a layer that does not verify.
    DataValidOnBad { site: Site },
    /// ([`check_strict`]) `Partial` starting at a checksum site's L4 header
    /// but naming another field or the other checksum kind.
    PartialWrongField {
        start: usize,
        offset: usize,
        site: Site,
    },
    /// ([`check_strict`]) `Partial` whose field is a checksum site's field but
    /// whose `start` is not that site's L4 header (the fill sums the wrong bytes).
    PartialWrongStart {
        start: usize,
        offset: usize,
        site: Site,
    },
    /// ([`check_strict`]) `Partial` whose field lies in a link or IP header:
    /// a fill would overwrite it.
    PartialInHeader {
        start: usize,
        offset: usize,
        header: (usize, usize),
    },
    /// ([`check_verdict`]) `Good` for a layer whose checksum does not verify
    /// (after finishing the `Partial` it was trusted for, if any).
    GoodOnBad { site: Site },
    /// ([`check_verdict`]) `PartialTrusted` without a `Partial` at or before
    /// the layer.
    TrustedWithoutPartial { site: Site },
    /// ([`check_verdict`]) `Bad` for a layer whose checksum verifies (a zero
    /// UDP checksum over IPv6 is bad by RFC 8200).
    BadOnGood { site: Site },
    /// ([`check_verdict`]) `NoChecksum` for a layer that has a non-zero checksum.
    NoChecksumOnChecksum { site: Site },
}

/// Panics at the caller, naming the state and the broken rule, unless `meta`
/// is sound for `v` (the assertion every state test makes).
#[track_caller]
pub fn assert_sound(v: &View<'_>, meta: &CsumMeta) {
    if let Err(e) = check(v, meta) {
        panic!("unsound {meta:?}: {e:?}");
    }
}

/// Naive ones-complement sum of big-endian 16-bit words (odd tail padded
/// with zero), folded to 16 bits; 0 only for all-zero (or empty) data.
pub fn naive_sum(data: &[u8]) -> u16 {
    naive::sum(data, 0)
}

/// Ones-complement addition of two folded 16-bit sums.
pub fn add16(a: u16, b: u16) -> u16 {
    let s = u32::from(a) + u32::from(b);
    ((s & 0xFFFF) + (s >> 16)) as u16
}

/// A `Wsum` equal to the naive sum of `data` (host word order, like `__wsum`).
pub fn wsum_of(data: &[u8]) -> Wsum {
    Wsum::new(u32::from(u16::from_ne_bytes(naive_sum(data).to_be_bytes())))
}

/// The honest `Complete` sum a device reports for bytes from `cur` to the end.
pub fn honest_complete(bytes: &[u8], cur: usize) -> Wsum {
    wsum_of(&bytes[cur..])
}

/// Folds a `Wsum` (host order) to 16 bits, complements, and gives wire bytes.
fn fold_wire(w: Wsum) -> [u8; 2] {
    (!naive::fold(u64::from(w.get()))).to_ne_bytes()
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// The pseudo-header sum (folded) for an L4 segment of `len` bytes.
fn pseudo(b: &[u8], l3: usize, v6: bool, proto: u8, len: usize) -> u16 {
    let (src, dst) = if v6 {
        (&b[l3 + 8..l3 + 24], &b[l3 + 24..l3 + 40])
    } else {
        (&b[l3 + 12..l3 + 16], &b[l3 + 16..l3 + 20])
    };
    // IPv4 carries a 16-bit length: the same words as the 32-bit one.
    naive::fold(naive::pseudo(src, dst, proto, len))
}

/// Walks the frame and lists its checksum sites, outermost first.
pub fn sites(bytes: &[u8], link: Link) -> Vec<Site> {
    sites_from(bytes, 0, link)
}

/// [`sites`] of the packet that begins at `root` (a decapsulated inner
/// packet: its outer headers stay in the buffer but are no longer walked).
pub fn sites_from(bytes: &[u8], root: usize, link: Link) -> Vec<Site> {
    let mut out = Vec::new();
    match link {
        Link::Ethernet => eth(bytes, root, &mut out, 0),
        Link::RawIp => ip(bytes, root, &mut out, 0),
    }
    out
}

fn eth(b: &[u8], at: usize, out: &mut Vec<Site>, depth: u8) {
    let mut et = match be16(b, at + 12) {
        Some(e) => e,
        None => return,
    };
    let mut l3 = at + 14;
    while et == 0x8100 || et == 0x88A8 {
        et = match be16(b, l3 + 2) {
            Some(e) => e,
            None => return,
        };
        l3 += 4;
    }
    if et == 0x0800 || et == 0x86DD {
        ip(b, l3, out, depth);
    }
}

fn ip(b: &[u8], l3: usize, out: &mut Vec<Site>, depth: u8) {
    if depth > 4 || l3 >= b.len() {
        return;
    }
    let (v6, mut proto, mut l4, end) = match b[l3] >> 4 {
        4 => {
            let ihl = (b[l3] & 0xF) as usize * 4;
            let total = be16(b, l3 + 2).unwrap_or(0) as usize;
            let frag = be16(b, l3 + 6).unwrap_or(0);
            if frag & 0x3FFF != 0 || l3 + total > b.len() || ihl < 20 || total < ihl {
                return; // fragment, truncated or malformed
            }
            (false, b[l3 + 9], l3 + ihl, l3 + total)
        }
        6 => {
            let plen = be16(b, l3 + 4).unwrap_or(0) as usize;
            if l3 + 40 + plen > b.len() {
                return;
            }
            (true, b[l3 + 6], l3 + 40, l3 + 40 + plen)
        }
        _ => return,
    };
    if v6 {
        while matches!(proto, 0 | 43 | 60 | 51 | 44) {
            if proto == 44 {
                // An atomic fragment (offset 0, M clear; RFC 6946) is a whole
                // datagram: Linux's ipv6_frag_rcv passes it on unfragmented
                // and its L4 checksum counts. Any other fragment: stop.
                let off_m = be16(b, l4 + 2).unwrap_or(1);
                let Some(&next) = b.get(l4) else { return };
                if off_m & 0xFFF9 != 0 {
                    return;
                }
                proto = next;
                l4 += 8;
                continue;
            }
            let (Some(&next), Some(&hl)) = (b.get(l4), b.get(l4 + 1)) else {
                return; // truncated extension header
            };
            let len = if proto == 51 {
                (hl as usize + 2) * 4
            } else {
                (hl as usize + 1) * 8
            };
            proto = next;
            l4 += len;
        }
    }
    if l4 > end {
        return;
    }
    let seg = &b[l4..end];
    let inet = |p: Proto, field: usize, end: usize, ps: u16, counted: bool| {
        let total = add16(ps, naive_sum(&b[l4..end]));
        Site {
            l3,
            l4,
            end,
            proto: p,
            field: l4 + field,
            counted,
            zero: false,
            correct: total == 0xFFFF,
        }
    };
    match proto {
        6 if seg.len() >= 20 => out.push(inet(
            Proto::Tcp,
            16,
            end,
            pseudo(b, l3, v6, 6, end - l4),
            true,
        )),
        17 if seg.len() >= 8 => {
            let ulen = be16(b, l4 + 4).unwrap_or(0) as usize;
            let uend = if ulen >= 8 && l4 + ulen <= end {
                l4 + ulen
            } else {
                end
            };
            let mut s = inet(Proto::Udp, 6, uend, pseudo(b, l3, v6, 17, uend - l4), true);
            if be16(b, l4 + 6) == Some(0) {
                s.zero = true;
                s.correct = true;
            }
            out.push(s);
            let dport = be16(b, l4 + 2).unwrap_or(0);
            match dport {
                4789 => eth(b, l4 + 16, out, depth + 1),
                6081 => {
                    let optlen = (b.get(l4 + 8).copied().unwrap_or(0) & 0x3F) as usize * 4;
                    let ptype = be16(b, l4 + 10).unwrap_or(0);
                    let inner = l4 + 16 + optlen;
                    match ptype {
                        0x6558 => eth(b, inner, out, depth + 1),
                        0x0800 | 0x86DD => ip(b, inner, out, depth + 1),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        47 if seg.len() >= 4 => {
            let flags = be16(b, l4).unwrap_or(0);
            let ptype = be16(b, l4 + 2).unwrap_or(0);
            let mut hl = 4;
            for bit in [0x8000, 0x2000, 0x1000] {
                if flags & bit != 0 {
                    hl += 4;
                }
            }
            // The checksum sits at bytes 4..6 of an 8-byte header: a header
            // too short to hold it has no checksum site.
            if flags & 0x8000 != 0 && seg.len() >= 8 {
                out.push(inet(Proto::Gre, 4, end, 0, true));
            }
            match ptype {
                0x6558 => eth(b, l4 + hl, out, depth + 1),
                0x0800 | 0x86DD => ip(b, l4 + hl, out, depth + 1),
                _ => {}
            }
        }
        132 if seg.len() >= 12 => {
            let mut copy = seg.to_vec();
            copy[8..12].fill(0);
            let crc = crc32c::crc32c(&copy);
            let stored = u32::from_le_bytes(seg[8..12].try_into().unwrap());
            out.push(Site {
                l3,
                l4,
                end,
                proto: Proto::Sctp,
                field: l4 + 8,
                counted: true,
                zero: false,
                correct: crc == stored,
            });
        }
        1 if !v6 && seg.len() >= 4 => out.push(inet(Proto::Icmp4, 2, end, 0, false)),
        58 if v6 && seg.len() >= 4 => out.push(inet(
            Proto::Icmp6,
            2,
            end,
            pseudo(b, l3, v6, 58, end - l4),
            false,
        )),
        4 | 41 => ip(b, l4, out, depth + 1),
        _ => {}
    }
}

/// True when every checksum of the frame verifies (the packet is not corrupted).
pub fn all_correct(bytes: &[u8], link: Link) -> bool {
    sites(bytes, link).iter().all(|s| s.correct)
}

/// Whether the site whose L4 header is at `l4` verifies (`None`: no site there).
pub fn correct_at(bytes: &[u8], link: Link, l4: usize) -> Option<bool> {
    sites(bytes, link)
        .iter()
        .find(|s| s.l4 == l4)
        .map(|s| s.correct)
}

/// The bytes after finishing a `Partial` as a driver does (`skb_checksum_help`:
/// sum from `start` to the end, 0 stored as 0xFFFF; CRC32c with the field
/// zeroed); the caller checked that the field lies inside `bytes`.
pub fn filled(bytes: &[u8], start: usize, offset: usize, kind: PartialKind) -> Vec<u8> {
    let mut copy = bytes.to_vec();
    let field = start + offset;
    match kind {
        PartialKind::Inet => {
            let mut x = !naive_sum(&copy[start..]);
            if x == 0 {
                x = 0xFFFF;
            }
            copy[field..field + 2].copy_from_slice(&x.to_be_bytes());
        }
        PartialKind::Crc32c => {
            copy[field..field + 4].fill(0);
            let crc = crc32c::crc32c(&copy[start..]);
            copy[field..field + 4].copy_from_slice(&crc.to_le_bytes());
        }
    }
    copy
}

/// Checks the soundness contract for `meta` on the packet `v`.
pub fn check(v: &View<'_>, meta: &CsumMeta) -> Result<(), Unsound> {
    check_sites(v, 0, &sites(v.bytes, v.link), meta)
}

/// The rules of [`check`] against an already walked site list of the packet
/// that begins at `root`.
fn check_sites(v: &View<'_>, root: usize, all: &[Site], meta: &CsumMeta) -> Result<(), Unsound> {
    match meta.state() {
        CsumState::None => {}
        CsumState::Unnecessary { level } => {
            let covered = all
                .iter()
                .filter(|s| s.counted && s.l4 >= v.levels_from)
                .take(level.get() as usize + 1);
            for s in covered {
                if !s.correct {
                    return Err(Unsound::LevelCoversBad {
                        level: level.get(),
                        site: *s,
                    });
                }
            }
        }
        CsumState::Complete { csum } => {
            let claimed = fold_wire(csum);
            let rest = &v.bytes[v.cur.min(v.bytes.len())..];
            let actual = (!naive_sum(rest)).to_be_bytes();
            // Literal: over all-zero bytes the sum must be +0 (a -0 left by
            // `wsum_negate` removal is normalised by the crate).
            if claimed != actual {
                return Err(Unsound::CompleteMismatch {
                    claimed,
                    actual,
                    cur: v.cur,
                });
            }
        }
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            let size = match kind {
                PartialKind::Inet => 2,
                PartialKind::Crc32c => 4,
            };
            let len = v.bytes.len();
            if start > len || start + offset + size > len {
                return Err(Unsound::PartialOutOfBounds { start, offset, len });
            }
            let field = start + offset;
            if let Some(site) = all.iter().find(|s| s.l4 == start && s.field == field) {
                let copy = filled(v.bytes, start, offset, kind);
                let after = sites_from(&copy, root, v.link);
                let ok = after
                    .iter()
                    .find(|s| s.l4 == start)
                    .is_some_and(|s| s.correct);
                if !ok {
                    return Err(Unsound::PartialFillWrong { site: *site });
                }
            }
        }
    }
    let flags = meta.flags();
    if let Some(site) = all.iter().find(|s| s.l4 == v.l4) {
        let trusted = matches!(meta.state(), CsumState::Partial { start, .. } if start >= v.l4);
        if flags.contains(CsumFlags::CSUM_VALID) && !site.correct && !trusted {
            return Err(Unsound::CsumValidOnBad { site: *site });
        }
        if flags.contains(CsumFlags::DATA_VALID)
            && !matches!(meta.state(), CsumState::Partial { .. })
            && !site.correct
        {
            return Err(Unsound::DataValidOnBad { site: *site });
        }
    }
    Ok(())
}

/// The link and IP headers of the packet that begins at `root`, as
/// `(from, to)` spans: the Ethernet header with its tags, and each checksum
/// site's IP header with its options / extension headers.
pub fn header_spans(bytes: &[u8], root: usize, link: Link, all: &[Site]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if link == Link::Ethernet {
        let to = all.first().map_or(root + 14, |s| s.l3);
        out.push((root, to.max(root + 14)));
    }
    out.extend(all.iter().map(|s| (s.l3, s.l4)));
    out.retain(|&(a, b)| a < b && a < bytes.len());
    out
}

/// [`check`] for the packet that begins at `root` (after a decapsulation the
/// outer headers stay in the buffer, before `cur`), with the `Partial` rules
/// tightened: a `Partial` at a site's L4 header names that site's field and
/// kind; a `Partial` at a site's field starts at that site's header; and no
/// `Partial` field lies in a link or IP header (DESIGN.md 4: the field holds
/// the pseudo-header seed of its L4 checksum).
pub fn check_strict(v: &View<'_>, root: usize, meta: &CsumMeta) -> Result<(), Unsound> {
    let all = sites_from(v.bytes, root, v.link);
    check_sites(v, root, &all, meta)?;
    if let CsumState::Partial {
        start,
        offset,
        kind,
    } = meta.state()
    {
        let size = match kind {
            PartialKind::Inet => 2,
            PartialKind::Crc32c => 4,
        };
        let field = start + offset;
        let overlaps = |a: usize, b: usize| field < b && a < field + size;
        if let Some(site) = all.iter().find(|s| s.l4 == start) {
            let want = if site.proto == Proto::Sctp {
                PartialKind::Crc32c
            } else {
                PartialKind::Inet
            };
            if site.field != field || kind != want {
                return Err(Unsound::PartialWrongField {
                    start,
                    offset,
                    site: *site,
                });
            }
        } else if let Some(site) = all.iter().find(|s| {
            let w = if s.proto == Proto::Sctp { 4 } else { 2 };
            overlaps(s.field, s.field + w)
        }) {
            return Err(Unsound::PartialWrongStart {
                start,
                offset,
                site: *site,
            });
        }
        if let Some(&header) = header_spans(v.bytes, root, v.link, &all)
            .iter()
            .find(|&&(a, b)| overlaps(a, b))
        {
            return Err(Unsound::PartialInHeader {
                start,
                offset,
                header,
            });
        }
    }
    Ok(())
}

/// Checks a checking transition's verdict against the bytes: `Good` only for
/// a layer whose checksum verifies (for `PartialTrusted`: once the `Partial`
/// of `before`, at or after the layer, is finished), `Bad` only for one that
/// does not (or a zero UDP checksum over IPv6), `NoChecksum` only for a zero
/// UDP checksum or a layer without a checksum site. `before` is the metadata
/// the transition was given; the layer is `v.l4` of the packet at `root`.
///
/// Limit (as in [`check`]): an all-zero message with a zero field sums to +0
/// and no arithmetic on a sum can tell; such a layer is not judged.
pub fn check_verdict(
    v: &View<'_>,
    root: usize,
    before: &CsumMeta,
    verdict: netoffload::state::CsumVerdict,
    reason: netoffload::state::Reason,
) -> Result<(), Unsound> {
    use netoffload::state::{CsumVerdict, Reason};
    let all = sites_from(v.bytes, root, v.link);
    let Some(site) = all.iter().find(|s| s.l4 == v.l4).copied() else {
        return Ok(());
    };
    if site.end > site.l4
        && v.bytes[site.l4..site.end.min(v.bytes.len())]
            .iter()
            .all(|&x| x == 0)
    {
        return Ok(());
    }
    match verdict {
        CsumVerdict::Good if reason == Reason::PartialTrusted => {
            let CsumState::Partial {
                start,
                offset,
                kind,
            } = before.state()
            else {
                return Err(Unsound::TrustedWithoutPartial { site });
            };
            if start < site.l4 {
                return Err(Unsound::TrustedWithoutPartial { site });
            }
            let size = if kind == PartialKind::Crc32c { 4 } else { 2 };
            if start + offset + size > v.bytes.len() {
                return Err(Unsound::TrustedWithoutPartial { site });
            }
            let copy = filled(v.bytes, start, offset, kind);
            let ok = sites_from(&copy, root, v.link)
                .iter()
                .find(|s| s.l4 == site.l4)
                .is_some_and(|s| s.correct);
            if !ok {
                return Err(Unsound::GoodOnBad { site });
            }
        }
        CsumVerdict::Good if !site.correct => return Err(Unsound::GoodOnBad { site }),
        CsumVerdict::Bad => {
            let v6_zero = site.zero && v.bytes.get(site.l3).is_some_and(|b| b >> 4 == 6);
            if site.correct && !v6_zero {
                return Err(Unsound::BadOnGood { site });
            }
        }
        CsumVerdict::NoChecksum if !site.zero => {
            return Err(Unsound::NoChecksumOnChecksum { site });
        }
        _ => {}
    }
    Ok(())
}

/// The bytes a locally generated `Partial` holds in the field of `site`
/// before the fill: the folded pseudo-header sum (zero for ICMPv4 and GRE,
/// which have none; zero for the SCTP CRC32c), with the length `site`
/// covers. `None` when the field lies outside `bytes`.
pub fn pseudo_seed(bytes: &[u8], site: &Site) -> Option<Vec<u8>> {
    let width = if site.proto == Proto::Sctp { 4 } else { 2 };
    if site.field + width > bytes.len() {
        return None;
    }
    let v6 = bytes.get(site.l3)? >> 4 == 6;
    let proto = match site.proto {
        Proto::Tcp => 6,
        Proto::Udp => 17,
        Proto::Icmp6 => 58,
        Proto::Sctp => return Some(vec![0; 4]),
        Proto::Gre | Proto::Icmp4 => return Some(vec![0; 2]),
    };
    Some(
        pseudo(bytes, site.l3, v6, proto, site.end - site.l4)
            .to_be_bytes()
            .to_vec(),
    )
}

/// Whether the IPv4 header at `l3` has a correct header checksum (`None`:
/// not a complete IPv4 header).
pub fn ipv4_header_ok(bytes: &[u8], l3: usize) -> Option<bool> {
    let v = *bytes.get(l3)?;
    let ihl = usize::from(v & 0xF) * 4;
    if v >> 4 != 4 || ihl < 20 || l3 + ihl > bytes.len() {
        return None;
    }
    Some(naive_sum(&bytes[l3..l3 + ihl]) == 0xFFFF)
}

/// Rewrites the checksum of `site` so that it verifies over the current
/// bytes (a zero UDP checksum stays zero; a computed 0 is sent as 0xFFFF).
pub fn fix_site(bytes: &mut [u8], site: &Site) {
    let width = if site.proto == Proto::Sctp { 4 } else { 2 };
    if site.zero || site.field + width > bytes.len() || site.end > bytes.len() {
        return;
    }
    if site.proto == Proto::Sctp {
        bytes[site.field..site.field + 4].fill(0);
        let crc = crc32c::crc32c(&bytes[site.l4..site.end]);
        bytes[site.field..site.field + 4].copy_from_slice(&crc.to_le_bytes());
        return;
    }
    bytes[site.field..site.field + 2].fill(0);
    let seed = pseudo_seed(bytes, site).unwrap_or_else(|| vec![0, 0]);
    let ps = u16::from_be_bytes([seed[0], seed[1]]);
    let mut c = !add16(ps, naive_sum(&bytes[site.l4..site.end]));
    if c == 0 && site.proto == Proto::Udp {
        c = 0xFFFF;
    }
    bytes[site.field..site.field + 2].copy_from_slice(&c.to_be_bytes());
}
