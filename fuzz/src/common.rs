//! Helpers shared by the fuzz targets (included with `#[path]`; each target
//! also includes the test oracle as `mod oracle`): a checksum fixer that makes
//! mutated headers valid again (so the fuzzer explores the good paths too), a
//! single-byte corrupter, the pseudo-header seed of a local-origin `Partial`,
//! and the offsets the oracle's pseudo-header model assumes.
#![allow(dead_code)]

use crate::oracle::{self, Link, Proto, Site};
use netoffload::wire::{Layers, Net};

/// Big-endian 16-bit read.
pub fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// The folded pseudo-header sum of the L4 segment `[l4, end)` of the IP
/// header at `l3` (addresses from the IP header itself).
pub fn pseudo(b: &[u8], l3: usize, proto: u8, len: usize) -> Option<u16> {
    let mut p = Vec::new();
    if b.get(l3)? >> 4 == 6 {
        p.extend_from_slice(b.get(l3 + 8..l3 + 40)?);
        p.extend_from_slice(&(len as u32).to_be_bytes());
        p.extend_from_slice(&[0, 0, 0, proto]);
    } else {
        p.extend_from_slice(b.get(l3 + 12..l3 + 20)?);
        p.extend_from_slice(&[0, proto]);
        p.extend_from_slice(&(len as u16).to_be_bytes());
    }
    Some(oracle::naive_sum(&p))
}

fn proto_num(p: Proto) -> u8 {
    match p {
        Proto::Tcp => 6,
        Proto::Udp => 17,
        Proto::Gre => 47,
        Proto::Sctp => 132,
        Proto::Icmp4 => 1,
        Proto::Icmp6 => 58,
    }
}

/// Rewrites the IPv4 header checksum of the header at `l3` (if IPv4).
pub fn fix_ipv4_header(b: &mut [u8], l3: usize) {
    let Some(&v) = b.get(l3) else { return };
    if v >> 4 != 4 {
        return;
    }
    let ihl = (v & 0xF) as usize * 4;
    if ihl < 20 || l3 + ihl > b.len() {
        return;
    }
    b[l3 + 10..l3 + 12].fill(0);
    let s = !oracle::naive_sum(&b[l3..l3 + ihl]);
    b[l3 + 10..l3 + 12].copy_from_slice(&s.to_be_bytes());
}

/// Whether the IPv4 header at `l3` has a correct header checksum.
pub fn ipv4_header_ok(b: &[u8], l3: usize) -> bool {
    let ihl = (b[l3] & 0xF) as usize * 4;
    oracle::naive_sum(&b[l3..l3 + ihl]) == 0xFFFF
}

/// Makes one checksum site correct (a zero UDP checksum stays zero).
pub fn fix_site(b: &mut [u8], s: &Site) {
    if s.proto == Proto::Udp && be16(b, s.field) == Some(0) {
        return;
    }
    let width = if s.proto == Proto::Sctp { 4 } else { 2 };
    if s.field + width > b.len() || s.end > b.len() || s.l4 > s.end {
        return; // a site the oracle could not fully place: nothing to fix
    }
    match s.proto {
        Proto::Sctp => {
            b[s.field..s.field + 4].fill(0);
            let crc = crc32c::crc32c(&b[s.l4..s.end]);
            b[s.field..s.field + 4].copy_from_slice(&crc.to_le_bytes());
        }
        p => {
            b[s.field..s.field + 2].fill(0);
            let ps = match p {
                Proto::Tcp | Proto::Udp | Proto::Icmp6 => {
                    pseudo(b, s.l3, proto_num(p), s.end - s.l4).unwrap_or(0)
                }
                _ => 0,
            };
            let mut c = !oracle::add16(ps, oracle::naive_sum(&b[s.l4..s.end]));
            if c == 0 && p == Proto::Udp {
                c = 0xFFFF;
            }
            b[s.field..s.field + 2].copy_from_slice(&c.to_be_bytes());
        }
    }
}

/// Makes every checksum of the frame correct, innermost first (outer
/// checksums cover inner headers), IPv4 header checksums included.
pub fn fix_all(b: &mut [u8], link: Link, outer_l3: Option<usize>) {
    if let Some(l3) = outer_l3 {
        fix_ipv4_header(b, l3);
    }
    // Re-walk after each fix: a fix never changes the walk (only checksum
    // fields), so the site list stays valid.
    let sites = oracle::sites(b, link);
    for s in sites.iter().rev() {
        fix_ipv4_header(b, s.l3);
        fix_site(b, s);
    }
    if let Some(l3) = outer_l3 {
        fix_ipv4_header(b, l3);
    }
}

/// Flips bits of one byte (never a no-op).
pub fn corrupt(b: &mut [u8], at: usize, mask: u8) {
    if b.is_empty() {
        return;
    }
    let at = at % b.len();
    b[at] ^= if mask == 0 { 0x40 } else { mask };
}

/// True when the layers use the IP header's own addresses for the
/// pseudo-header (the oracle's model: no IPv6 routing header / Home Address).
pub fn plain_pseudo(l: &Layers) -> bool {
    match l.net {
        Net::Ipv4 => l.pseudo_src == l.l3 + 12 && l.pseudo_dst == l.l3 + 16,
        Net::Ipv6 => l.pseudo_src == l.l3 + 8 && l.pseudo_dst == l.l3 + 24,
    }
}

/// A small deterministic byte reader over the control prefix of an input:
/// reads past the end give 0, so every input is usable.
pub struct Ctl<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Ctl<'a> {
    /// Reads control bytes from `data`.
    pub fn new(data: &'a [u8]) -> Ctl<'a> {
        Ctl { data, at: 0 }
    }

    /// The next byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        let v = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v
    }

    /// The next two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// The next four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// `n` bytes (fewer at the end).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let from = self.at.min(self.data.len());
        let to = (self.at + n).min(self.data.len());
        self.at += n;
        &self.data[from..to]
    }

    /// Everything not read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.at.min(self.data.len())..]
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.at >= self.data.len()
    }
}

/// The oracle's link type for a wire link type.
pub fn link_of(l: netoffload::wire::LinkType) -> Link {
    match l {
        netoffload::wire::LinkType::Ethernet => Link::Ethernet,
        netoffload::wire::LinkType::RawIp => Link::RawIp,
    }
}
