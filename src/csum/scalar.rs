//! The portable ones-complement sum: the reference every SIMD kernel must equal.
//!
//! 64-bit accumulators take 32-bit halves of 64-bit loads, so carries are
//! deferred until the end (no byte loops in the hot path, no adc chains).

use super::Wsum;

/// Folds a 64-bit end-around sum to 32 bits; 0 only when the input is 0.
#[inline]
pub(crate) const fn fold64(mut x: u64) -> u32 {
    x = (x & 0xFFFF_FFFF) + (x >> 32);
    x = (x & 0xFFFF_FFFF) + (x >> 32);
    x as u32
}

/// Adds the trailing `< 8` bytes (host word order; an odd last byte is the low
/// byte of a word on little-endian hosts, as in Linux).
#[inline]
pub(crate) fn tail_sum(tail: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    let n = tail.len().min(8);
    if let (Some(dst), Some(src)) = (buf.get_mut(..n), tail.get(..n)) {
        dst.copy_from_slice(src);
    }
    let w = u64::from_ne_bytes(buf);
    (w & 0xFFFF_FFFF) + (w >> 32)
}

/// Sums `data` onto `init` (Linux `csum_partial`), scalar reference version.
pub fn partial(data: &[u8], init: Wsum) -> Wsum {
    let mut a0: u64 = init.get() as u64;
    let mut a1: u64 = 0;
    let mut a2: u64 = 0;
    let mut a3: u64 = 0;
    // Each accumulator gains < 2^33 per 32-byte block, so 2^30 blocks (32 GiB)
    // cannot overflow; fold in chunks to be safe for any slice length.
    let mut blocks = data.chunks_exact(32);
    for block in &mut blocks {
        let mut words = block.chunks_exact(8).map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            u64::from_ne_bytes(b)
        });
        let (w0, w1, w2, w3) = (
            words.next().unwrap_or(0),
            words.next().unwrap_or(0),
            words.next().unwrap_or(0),
            words.next().unwrap_or(0),
        );
        a0 += (w0 & 0xFFFF_FFFF) + (w0 >> 32);
        a1 += (w1 & 0xFFFF_FFFF) + (w1 >> 32);
        a2 += (w2 & 0xFFFF_FFFF) + (w2 >> 32);
        a3 += (w3 & 0xFFFF_FFFF) + (w3 >> 32);
        if a0 >> 62 != 0 {
            a0 = fold64(a0) as u64 + fold64(a1) as u64 + fold64(a2) as u64 + fold64(a3) as u64;
            a1 = 0;
            a2 = 0;
            a3 = 0;
        }
    }
    let rest = blocks.remainder();
    let mut words = rest.chunks_exact(8);
    for c in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        let w = u64::from_ne_bytes(b);
        a1 += (w & 0xFFFF_FFFF) + (w >> 32);
    }
    a2 += tail_sum(words.remainder());
    let total = fold64(a0) as u64 + fold64(a1) as u64 + fold64(a2) as u64 + fold64(a3) as u64;
    Wsum::new(fold64(total))
}
