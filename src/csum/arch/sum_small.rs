//! Short-slice sum (at most `scalar::SMALL` bytes) for x86-64: 16-byte chunks
//! into two SSE2 u64 lane accumulators, the rest as u32 words into u64
//! accumulators; no carry chain and no dispatch (SSE2 is part of x86-64).
//!
//! Why not Linux's `add`/`adc` chain: every `adc` waits on the previous one's
//! carry flag, so 64 bytes cost a 9-deep serial chain. Here nothing carries:
//! the lanes take `b += v` (wrapping) and `a += v >> 32` as `sum_lanes` does
//! (at most four chunks: `Σlo`, `Σhi < 2^34`, so `b - (a << 32)` is `Σlo`),
//! and the scalar accumulators take `init` and at most a few u32 words (any
//! length below `2^32` words fits). The result is the exact sum
//! `init + Σ u32 words`: `≡` the word sum `(mod 2^32 - 1)` as the raw-sum
//! invariant asks, and zero only when every term is.

use core::arch::x86_64::{
    __m128i, _mm_add_epi64, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_setzero_si128, _mm_slli_epi64,
    _mm_srli_epi64, _mm_sub_epi64, _mm_unpackhi_epi64,
};

/// The u32 word at the start of a 4-byte chunk, in host order, widened.
#[inline(always)]
fn w32(c: &[u8; 4]) -> u64 {
    u32::from_ne_bytes(*c) as u64
}

/// The four u32 words of a 16-byte chunk.
#[inline(always)]
fn words16(c: &[u8; 16]) -> [u64; 4] {
    let (a, r) = c.split_first_chunk::<4>().unwrap_or((&[0; 4], &[]));
    let (b, r) = r.split_first_chunk::<4>().unwrap_or((&[0; 4], &[]));
    let (cc, r) = r.split_first_chunk::<4>().unwrap_or((&[0; 4], &[]));
    let d = r.first_chunk::<4>().unwrap_or(&[0; 4]);
    [w32(a), w32(b), w32(cc), w32(d)]
}

/// Adds the four u32 words of 16 bytes, one per accumulator.
#[inline(always)]
fn add16(acc: &mut [u64; 4], c: &[u8; 16]) {
    for (a, w) in acc.iter_mut().zip(words16(c)) {
        *a += w;
    }
}

/// The last `rest.len()` (1..=3) bytes of `data` as the u32 word they start
/// (the data's u32 grid begins at byte 0), zero-padded: one overlapping
/// 4-byte load shifted down when `data` has 4 bytes, else assembled.
#[inline(always)]
fn tail_word(data: &[u8], rest: &[u8]) -> u64 {
    let r = rest.len() & 3;
    if let Some(last) = data.last_chunk::<4>() {
        // x86-64 is little-endian: the last bytes are the high ones.
        return (u32::from_le_bytes(*last) >> (32 - 8 * r as u32)) as u64;
    }
    let b = match *rest {
        [x] => [x, 0, 0, 0],
        [x, y] => [x, y, 0, 0],
        [x, y, z, ..] => [x, y, z, 0],
        [] => [0; 4],
    };
    w32(&b)
}

/// Two u64 lane accumulators of 16-byte chunks (SSE2, part of x86-64 itself):
/// `b += v` (wrapping) and `a += v >> 32`, as in `sum_lanes`.
#[derive(Clone, Copy)]
struct Lanes {
    b: __m128i,
    a: __m128i,
}

impl Lanes {
    #[inline(always)]
    fn add(&mut self, c: &[u8; 16]) {
        // SAFETY: `c` is 16 readable bytes and `loadu` has no alignment
        // requirement; SSE2 is part of every x86-64 CPU (this module is
        // compiled for x86-64 only), so the SSE2 intrinsics may run.
        unsafe {
            let v = _mm_loadu_si128(c.as_ptr().cast());
            self.b = _mm_add_epi64(self.b, v);
            self.a = _mm_add_epi64(self.a, _mm_srli_epi64::<32>(v));
        }
    }

    /// `Σlo + Σhi` over both lanes (at most 4 chunks: `< 2^36`).
    #[inline(always)]
    fn total(self) -> u64 {
        // SAFETY: register-only SSE2 operations; SSE2 is part of every x86-64 CPU.
        unsafe {
            let lo = _mm_sub_epi64(self.b, _mm_slli_epi64::<32>(self.a));
            let t = _mm_add_epi64(lo, self.a);
            let t = _mm_add_epi64(t, _mm_unpackhi_epi64(t, t));
            _mm_cvtsi128_si64(t) as u64
        }
    }
}

/// `init` plus the raw sum of `data` (any length; meant for at most
/// `scalar::SMALL` bytes: the accumulators are sized for that, see the module
/// docs; `init < 2^32`).
#[inline(always)]
pub(crate) fn sum_small(data: &[u8], init: u64) -> u64 {
    // SAFETY: a register-only SSE2 operation; SSE2 is part of every x86-64 CPU.
    let z = unsafe { _mm_setzero_si128() };
    let mut lanes = Lanes { b: z, a: z };
    let mut acc = [init, 0, 0, 0];
    let mut rest = data;
    for _ in 0..4 {
        if let Some((c, r)) = rest.split_first_chunk::<16>() {
            lanes.add(c);
            rest = r;
        }
    }
    while let Some((c, r)) = rest.split_first_chunk::<16>() {
        add16(&mut acc, c);
        rest = r;
    }
    if let Some((c, r)) = rest.split_first_chunk::<8>() {
        let (x, y) = c.split_first_chunk::<4>().unwrap_or((&[0; 4], &[]));
        acc[0] += w32(x);
        acc[1] += y.first_chunk::<4>().map_or(0, w32);
        rest = r;
    }
    if let Some((c, r)) = rest.split_first_chunk::<4>() {
        acc[2] += w32(c);
        rest = r;
    }
    if !rest.is_empty() {
        acc[3] += tail_word(data, rest);
    }
    // Cannot overflow: see the module docs.
    lanes.total() + (acc[0] + acc[1]) + (acc[2] + acc[3])
}
