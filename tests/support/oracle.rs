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
    let mut out = Vec::new();
    match link {
        Link::Ethernet => eth(bytes, 0, &mut out, 0),
        Link::RawIp => ip(bytes, 0, &mut out, 0),
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
                return; // fragment header: stop
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

/// Checks the soundness contract for `meta` on the packet `v`.
pub fn check(v: &View<'_>, meta: &CsumMeta) -> Result<(), Unsound> {
    let all = sites(v.bytes, v.link);
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
                let mut copy = v.bytes.to_vec();
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
                let after = sites(&copy, v.link);
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
