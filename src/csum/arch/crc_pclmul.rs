//! CRC32c by carry-less multiplication folding (PCLMULQDQ), for long buffers.
//!
//! A 128-bit chunk `X = H·x^64 + L` (low qword `H`, high qword `L`, both
//! reflected) that has `D` more message bits after it contributes `X·x^D`.
//! With constants `k_H = x^(D+31) mod P` and `k_L = x^(D-33) mod P` (32-bit,
//! reflected), `clmul(H, k_H) ⊕ clmul(L, k_L)` is a 128-bit value congruent to
//! `X·x^D` (a reflected 64×32 product carries an extra factor `x^33`), so it
//! can be XORed into the chunk `D` bits later. Eight chunks (128 bytes) are
//! folded in parallel, then folded into one, and the last 128-bit value is
//! reduced by running the `crc32` instruction over its 16 bytes from register 0
//! (which computes `X·x^32 mod P` exactly).

use core::arch::x86_64::{
    __m128i, _mm_clmulepi64_si128, _mm_crc32_u64, _mm_cvtsi32_si128, _mm_cvtsi128_si64,
    _mm_extract_epi64, _mm_loadu_si128, _mm_set_epi64x, _mm_xor_si128,
};

use super::crc_sse42;
use crate::csum::crc::x_pow;

/// Shortest buffer worth folding; shorter ones use three `crc32` streams.
const MIN_FOLD: usize = 256;

/// The folding constants for a distance of `d` bits: `(k_H, k_L)`.
pub(super) const fn fold_consts(d: u64) -> (i64, i64) {
    (x_pow(d + 31) as i64, x_pow(d - 33) as i64)
}

/// Fold distances used here and in `crc_vpclmul`, evaluated at compile time.
pub(super) const K128: (i64, i64) = fold_consts(128);
pub(super) const K256: (i64, i64) = fold_consts(256);
pub(super) const K1024: (i64, i64) = fold_consts(1024);
pub(super) const K512: (i64, i64) = fold_consts(512);
pub(super) const K1536: (i64, i64) = fold_consts(1536);
pub(super) const K2048: (i64, i64) = fold_consts(2048);

/// Constants as a vector: `k_H` in the low qword, `k_L` in the high one.
#[inline]
#[target_feature(enable = "sse4.2,pclmulqdq")]
pub(super) fn consts(k: (i64, i64)) -> __m128i {
    _mm_set_epi64x(k.1, k.0)
}

/// Folds `x` forward by the distance `k` was built for.
#[inline]
#[target_feature(enable = "sse4.2,pclmulqdq")]
pub(super) fn fold(x: __m128i, k: __m128i) -> __m128i {
    _mm_xor_si128(
        _mm_clmulepi64_si128::<0x00>(x, k),
        _mm_clmulepi64_si128::<0x11>(x, k),
    )
}

/// Loads 16 bytes.
#[inline]
#[target_feature(enable = "sse4.2")]
pub(super) fn load(c: &[u8; 16]) -> __m128i {
    // SAFETY: `c` is 16 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(c.as_ptr().cast()) }
}

/// The chunk as a 16-byte array (always succeeds for `chunks_exact(16)` pieces).
#[inline(always)]
pub(super) fn arr16(c: &[u8]) -> &[u8; 16] {
    c.first_chunk::<16>().unwrap_or(&[0; 16])
}

/// Folds the remaining 16-byte chunks of `rest` into `acc`, reduces `acc` to
/// a register and runs the `crc32` instruction over the last `< 16` bytes.
#[inline]
#[target_feature(enable = "sse4.2,pclmulqdq")]
pub(super) fn finish(mut acc: __m128i, rest: &[u8]) -> u32 {
    let k128 = consts(K128);
    let mut c16 = rest.chunks_exact(16);
    for c in &mut c16 {
        acc = _mm_xor_si128(fold(acc, k128), load(arr16(c)));
    }
    let lo = _mm_cvtsi128_si64(acc) as u64;
    let hi = _mm_extract_epi64::<1>(acc) as u64;
    let r = _mm_crc32_u64(_mm_crc32_u64(0, lo), hi) as u32;
    crc_sse42::single(r, c16.remainder())
}

/// Advances the raw register over `data` (folding when long enough).
#[inline]
#[target_feature(enable = "sse4.2,pclmulqdq")]
pub(super) fn fold_update(reg: u32, data: &[u8]) -> u32 {
    if data.len() < MIN_FOLD {
        return crc_sse42::stream3(reg, data);
    }
    let k1024 = consts(K1024);
    let k128 = consts(K128);
    let mut blocks = data.chunks_exact(128);
    let mut x = [_mm_cvtsi32_si128(0); 8];
    if let Some(first) = blocks.next() {
        for (xi, c) in x.iter_mut().zip(first.chunks_exact(16)) {
            *xi = load(arr16(c));
        }
    }
    x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128(reg as i32));
    for blk in &mut blocks {
        for (xi, c) in x.iter_mut().zip(blk.chunks_exact(16)) {
            *xi = _mm_xor_si128(fold(*xi, k1024), load(arr16(c)));
        }
    }
    let mut acc = x[0];
    for xi in &x[1..] {
        acc = _mm_xor_si128(fold(acc, k128), *xi);
    }
    finish(acc, blocks.remainder())
}

/// Advances the raw register over `data`.
///
/// # Safety
/// The CPU must support SSE4.2 and PCLMULQDQ.
#[target_feature(enable = "sse4.2,pclmulqdq")]
pub(super) unsafe fn update(reg: u32, data: &[u8]) -> u32 {
    // Short buffers run the one stream here, inline (`stream3` runs one
    // below 384 bytes), as `crc_vpclmul::update` does.
    if data.len() < MIN_FOLD {
        return crc_sse42::single(reg, data);
    }
    fold_update(reg, data)
}
