//! The portable ones-complement sum: the reference every SIMD kernel must equal.
//!
//! 64-bit accumulators take 32-bit halves of 64-bit loads, so carries are
//! deferred until the end (no byte loops in the hot path, no adc chains).

#![forbid(unsafe_code)]

use super::Wsum;

/// Folds a 64-bit end-around sum to 32 bits; 0 only when the input is 0.
///
/// The result is `≡ x (mod 2^32 - 1)`; for `x != 0` it lies in `1..=u32::MAX`,
/// so it is the *unique* such representative: two inputs with the same residue
/// that are both non-zero fold to the same value.
///
/// One 32-bit end-around-carry add (`add`, `adc 0`): `lo + hi` either fits
/// (at most `2^32 - 1`) or wraps to `lo + hi - 2^32 <= 2^32 - 2`, and adding
/// the carry back gives `lo + hi - (2^32 - 1)` in `1..=u32::MAX`.
#[inline]
pub(crate) const fn fold64(x: u64) -> u32 {
    let (t, carry) = (x as u32).overflowing_add((x >> 32) as u32);
    t + carry as u32
}

/// `x + y` with the carry out added back in (one `add` and one `adc`): the
/// sum modulo `2^64 - 1`, zero only when both are.
#[inline(always)]
pub(crate) const fn end_around(x: u64, y: u64) -> u64 {
    let (s, carry) = x.overflowing_add(y);
    s + carry as u64
}

/// Raw sum of a block of a size known at compile time (a multiple of 4
/// bytes) plus `init`, as Linux's `adc` chains do it (`ip_fast_csum`): u64
/// words with end-around carries, two chains side by side. Congruent to the
/// u32 word sum modulo `2^64 - 1` and so modulo `2^32 - 1`, zero only for
/// zero: the raw-sum invariant.
#[inline(always)]
pub(crate) fn end_around_words<const N: usize>(block: &[u8; N], init: u64) -> u64 {
    let mut chains = [init, 0];
    let mut words = block.chunks_exact(8);
    for (i, w) in (&mut words).enumerate() {
        let w = u64::from_ne_bytes(w.try_into().unwrap_or([0; 8]));
        chains[i & 1] = end_around(chains[i & 1], w);
    }
    if let Some(last) = words.remainder().first_chunk::<4>() {
        chains[1] = end_around(chains[1], u64::from(u32::from_ne_bytes(*last)));
    }
    end_around(chains[0], chains[1])
}

/// A raw sum (see `arch`'s module docs) plus an initial sum, as a `Wsum`.
///
/// Both parts keep "zero only when empty/all-zero", so the result is the
/// unique representative and independent of how the raw sum was computed.
#[inline]
pub(crate) const fn raw_to_wsum(raw: u64, init: Wsum) -> Wsum {
    Wsum::new(fold64(init.get() as u64 + fold64(raw) as u64))
}

/// Raw sum of the trailing `< 8` bytes (host word order; an odd last byte is
/// the low byte of a word on little-endian hosts, as in Linux).
/// The bytes are loaded as 4, 2 and 1 by the length's bits and put together
/// in a register: a copy into a stack word compiled to a `memcpy` call, and
/// an 8-byte load of narrower stores cannot be forwarded (a stall of about 5
/// ns per sum with a tail; `docs/perf/csum.md`, sessions 13 and 14).
#[inline]
pub(crate) fn tail_sum(tail: &[u8]) -> u64 {
    let mut le = 0u64;
    let mut at = 0;
    if let Some(c) = tail.first_chunk::<4>().filter(|_| tail.len() & 4 != 0) {
        le = u64::from(u32::from_le_bytes(*c));
        at = 4;
    }
    if let Some(c) = tail.get(at..).and_then(<[u8]>::first_chunk::<2>) {
        le |= u64::from(u16::from_le_bytes(*c)) << (8 * at);
        at += 2;
    }
    if let Some(&b) = tail.get(at) {
        le |= u64::from(b) << (8 * at);
    }
    let w = u64::from_le(le);
    (w & 0xFFFF_FFFF) + (w >> 32)
}

/// Raw sum of a short slice (tails and tiny packets): 8-byte words, then the
/// `< 8`-byte tail; no loops over chunks of 32, no function calls.
#[cfg_attr(
    not(all(target_arch = "x86_64", not(target_os = "none"))),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn sum_short(data: &[u8]) -> u64 {
    let mut s = 0u64;
    let mut words = data.chunks_exact(8);
    for c in &mut words {
        let w = word(c);
        s += (w & 0xFFFF_FFFF) + (w >> 32);
    }
    s + tail_sum(words.remainder())
}

/// One 8-byte word from an 8-byte chunk.
#[inline(always)]
pub(crate) fn word(c: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(c);
    u64::from_ne_bytes(b)
}

/// Raw sum of a slice whose length is a multiple of 8, below `2^31` words.
///
/// Carry bound: each accumulator gains `< 2^33` per 32-byte block; a chunk has
/// fewer than `2^28` blocks, so every accumulator stays below `2^61`.
#[inline]
fn sum_words(data: &[u8]) -> u64 {
    let (mut a0, mut a1, mut a2, mut a3) = (0u64, 0u64, 0u64, 0u64);
    let mut blocks = data.chunks_exact(32);
    for b in &mut blocks {
        let (w0, w1, w2, w3) = (
            word(&b[0..8]),
            word(&b[8..16]),
            word(&b[16..24]),
            word(&b[24..32]),
        );
        a0 += (w0 & 0xFFFF_FFFF) + (w0 >> 32);
        a1 += (w1 & 0xFFFF_FFFF) + (w1 >> 32);
        a2 += (w2 & 0xFFFF_FFFF) + (w2 >> 32);
        a3 += (w3 & 0xFFFF_FFFF) + (w3 >> 32);
    }
    for c in blocks.remainder().chunks_exact(8) {
        let w = word(c);
        a0 += (w & 0xFFFF_FFFF) + (w >> 32);
    }
    fold64(a0) as u64 + fold64(a1) as u64 + fold64(a2) as u64 + fold64(a3) as u64
}

/// Largest piece summed before folding (a multiple of 32, keeps the bound above).
const CHUNK: usize = 1 << 30;

/// Raw sum of any slice (the invariant is in `arch`'s module docs).
pub(crate) fn sum_raw(data: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut rest = data;
    while rest.len() >= 8 {
        let n = (rest.len() & !7).min(CHUNK);
        let (body, tail) = rest.split_at(n);
        total = fold64(total + sum_words(body)) as u64;
        rest = tail;
    }
    total + tail_sum(rest)
}

/// Copies then sums (the scalar fused copy is two passes; the vector levels fuse).
pub(crate) fn copy_raw(src: &[u8], dst: &mut [u8]) -> u64 {
    dst.copy_from_slice(src);
    sum_raw(src)
}

/// Longest slice `partial` sums with the short path (`arch::sum_small`):
/// below this a vector kernel's setup (masked loads, horizontal reduction, the
/// dispatch and call) costs more than the data.
pub(crate) const SMALL: usize = 64;
