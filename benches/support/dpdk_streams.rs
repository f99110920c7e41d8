//! The DPDK GRO peer's dumped streams (`../shared/bench-peers/dpdk-gro`,
//! `DUMP=DIR`), laid out as the peer's mbufs are, and the same streams
//! rewritten as TCP/IPv6 and raw-IP (TUN) frames for `benches/gro_dpdk.rs`.
//!
//! Dump format (the peer's `gro_dpdk.c` header): "GROF", u32 version 1,
//! u32 count, u32 mbuf stride, u32 data address mod 64, then per frame a
//! u16 length and its bytes; integers little-endian.
#![allow(dead_code)]

use std::path::Path;

use super::naive;

/// Where each mbuf's data starts within its 4 KiB page in the peer's setup
/// (DPDK 22.11, `--no-huge`, default pool: measured once at 320; the dump
/// records only the address mod 64, which this agrees with).
pub const DPDK_PAGE_OFFSET: usize = 320;

/// Frames laid out one per `stride` bytes at a fixed page offset, in a
/// buffer of their own (as mbufs from one pool).
pub struct Stream {
    buf: Vec<u8>,
    /// Offset of each frame in `buf` and its length.
    at: Vec<(usize, usize)>,
    /// Header bytes of each frame (copied back between passes, as the peer's
    /// `stream_reset` does, so both engines start a pass with the same
    /// cache state).
    hdr_len: usize,
    saved: Vec<u8>,
    /// `lay_out`'s stride and page offset, for [`Stream::relaid`].
    stride: usize,
    page_off: usize,
}

impl Stream {
    /// Lays `frames` out at `stride` bytes apart, each at `page_off` past a
    /// 4 KiB boundary when the stride is a multiple of 4 KiB.
    pub fn lay_out(frames: &[Vec<u8>], stride: usize, page_off: usize, hdr_len: usize) -> Stream {
        let stride = stride.max(frames.iter().map(Vec::len).max().unwrap_or(0) + page_off);
        let mut buf = vec![0u8; frames.len() * stride + 2 * 4096];
        let base = (4096 - buf.as_ptr() as usize % 4096) % 4096;
        let mut at = Vec::with_capacity(frames.len());
        let mut saved = Vec::with_capacity(frames.len() * hdr_len);
        for (i, f) in frames.iter().enumerate() {
            let o = base + i * stride + page_off;
            buf[o..o + f.len()].copy_from_slice(f);
            at.push((o, f.len()));
            saved.extend_from_slice(&f[..hdr_len.min(f.len())]);
        }
        Stream {
            buf,
            at,
            hdr_len,
            saved,
            stride,
            page_off,
        }
    }

    /// The same frames (headers as saved) laid out again in a buffer of
    /// their own. Why: which physical pages a buffer gets sets how its
    /// frames share cache sets; the peer's pool hands out other mbufs each
    /// round, so ours takes other pages each round too.
    pub fn relaid(&self) -> Stream {
        let frames: Vec<Vec<u8>> = (0..self.len()).map(|i| self.frame(i).to_vec()).collect();
        let mut copy = Stream::lay_out(&frames, self.stride, self.page_off, self.hdr_len);
        copy.saved.clone_from(&self.saved);
        copy.reset();
        copy
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn frame(&self, i: usize) -> &[u8] {
        let (o, n) = self.at[i];
        &self.buf[o..o + n]
    }

    /// Every frame, in order.
    pub fn frames(&self) -> Vec<&[u8]> {
        (0..self.len()).map(|i| self.frame(i)).collect()
    }

    /// Writes the saved header bytes back (the peer's `stream_reset`).
    pub fn reset(&mut self) {
        for i in 0..self.at.len() {
            let (o, n) = self.at[i];
            let h = self.hdr_len.min(n);
            let s = &self.saved[i * self.hdr_len..i * self.hdr_len + h];
            self.buf[o..o + h].copy_from_slice(s);
        }
    }

    /// The peer's stream hash: FNV-1a 64 over (u16 LE length, bytes) per frame.
    pub fn hash(&self) -> u64 {
        let mut h = FNV_START;
        for i in 0..self.len() {
            let f = self.frame(i);
            h = fnv(h, &(f.len() as u16).to_le_bytes());
            h = fnv(h, f);
        }
        h
    }
}

pub const FNV_START: u64 = 0xcbf29ce484222325;

/// FNV-1a 64 over `bytes`, continuing from `h`.
pub fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The peer's grouping signature term of one output: FNV-1a 64 of its input
/// indices (u32 LE, chain order); the signature is the wrapping sum.
pub fn group_term(ids: impl IntoIterator<Item = u32>) -> u64 {
    ids.into_iter()
        .fold(FNV_START, |h, id| fnv(h, &id.to_le_bytes()))
}

/// A dumped stream: its frames, the mbuf stride and the data alignment.
pub struct Dump {
    pub frames: Vec<Vec<u8>>,
    pub stride: usize,
    pub align64: usize,
}

/// Reads `DIR/KIND-FLOWS.bin`; `None` when absent or malformed.
pub fn read_dump(path: &Path) -> Option<Dump> {
    let b = std::fs::read(path).ok()?;
    let u32_at = |o: usize| Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?));
    if b.get(..4)? != b"GROF" || u32_at(4)? != 1 {
        return None;
    }
    let (count, stride, align64) = (u32_at(8)?, u32_at(12)?, u32_at(16)?);
    let mut frames = Vec::with_capacity(count as usize);
    let mut o = 20;
    for _ in 0..count {
        let n = u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?) as usize;
        frames.push(b.get(o + 2..o + 2 + n)?.to_vec());
        o += 2 + n;
    }
    (o == b.len()).then_some(Dump {
        frames,
        stride: stride as usize,
        align64: align64 as usize,
    })
}

/// An Ethernet / IPv4 (no options) / TCP frame as a raw IP packet (the
/// Ethernet header dropped, as an L3 TUN delivers it).
pub fn to_raw_ip(f: &[u8]) -> Vec<u8> {
    f[14..].to_vec()
}

/// An Ethernet / IPv4 (no options) / TCP frame as Ethernet / IPv6 / TCP with
/// the same TCP header and payload: addresses mapped into 2001:db8::/32
/// (flow identity kept), hop limit and traffic class from TTL and TOS, the
/// TCP checksum recomputed over the IPv6 pseudo-header.
pub fn to_tcp6(f: &[u8]) -> Vec<u8> {
    let ip = &f[14..34];
    let tcp = &f[34..];
    let mut out = Vec::with_capacity(f.len() + 20);
    out.extend_from_slice(&f[..12]);
    out.extend_from_slice(&0x86ddu16.to_be_bytes());
    let mut v6 = [0u8; 40];
    v6[0] = 0x60 | (ip[1] >> 4);
    v6[1] = ip[1] << 4;
    v6[4..6].copy_from_slice(&(tcp.len() as u16).to_be_bytes());
    v6[6] = 6;
    v6[7] = ip[8];
    for (k, a) in [&ip[12..16], &ip[16..20]].into_iter().enumerate() {
        let o = 8 + 16 * k;
        v6[o..o + 4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        v6[o + 12..o + 16].copy_from_slice(a);
    }
    let mut t = tcp.to_vec();
    t[16] = 0;
    t[17] = 0;
    let ps = naive::pseudo(&v6[8..24], &v6[24..40], 6, t.len());
    let c = !naive::sum(&t, ps);
    t[16..18].copy_from_slice(&c.to_be_bytes());
    out.extend_from_slice(&v6);
    out.extend_from_slice(&t);
    out
}
