//! CRC32c by VPCLMULQDQ folding on 512-bit vectors (AVX-512), for long buffers.
//!
//! The same folding as `crc_pclmul`, four 128-bit lanes per vector and four
//! vectors (256 bytes) per step; the vectors are folded into one, its lanes
//! into one 128-bit value, and `crc_pclmul::finish` does the rest.

use core::arch::x86_64::{
    __m512i, _mm_cvtsi32_si128, _mm_xor_si128, _mm512_broadcast_i32x4, _mm512_clmulepi64_epi128,
    _mm512_extracti32x4_epi32, _mm512_loadu_si512, _mm512_ternarylogic_epi64, _mm512_xor_si512,
    _mm512_zextsi128_si512,
};

use super::crc_pclmul::{K128, K512, K2048, consts, finish, fold, fold_update as fold_update_128};

/// Shortest buffer folded with 512-bit vectors.
const MIN_FOLD: usize = 512;

/// Loads 64 bytes.
#[inline]
#[target_feature(enable = "avx512f")]
fn load(c: &[u8; 64]) -> __m512i {
    // SAFETY: `c` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(c.as_ptr().cast()) }
}

/// The chunk as a 64-byte array (always succeeds for `chunks_exact(64)` pieces).
#[inline(always)]
fn arr64(c: &[u8]) -> &[u8; 64] {
    c.first_chunk::<64>().unwrap_or(&[0; 64])
}

/// `fold(x) ⊕ y` on all four lanes (one ternary-logic XOR of three values).
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn fold_xor(x: __m512i, k: __m512i, y: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(
        _mm512_clmulepi64_epi128::<0x00>(x, k),
        _mm512_clmulepi64_epi128::<0x11>(x, k),
        y,
    )
}

/// Advances the raw register over `data`.
///
/// # Safety
/// The CPU must support SSE4.2, PCLMULQDQ, AVX-512F and VPCLMULQDQ, and the OS
/// must save ZMM state.
#[target_feature(enable = "sse4.2,pclmulqdq,avx512f,vpclmulqdq")]
pub(super) unsafe fn update(reg: u32, data: &[u8]) -> u32 {
    if data.len() < MIN_FOLD {
        return fold_update_128(reg, data);
    }
    let k2048 = _mm512_broadcast_i32x4(consts(K2048));
    let k512 = _mm512_broadcast_i32x4(consts(K512));
    let k128 = consts(K128);
    let mut blocks = data.chunks_exact(256);
    let mut z = [_mm512_zextsi128_si512(_mm_cvtsi32_si128(0)); 4];
    if let Some(first) = blocks.next() {
        for (zi, c) in z.iter_mut().zip(first.chunks_exact(64)) {
            *zi = load(arr64(c));
        }
    }
    z[0] = _mm512_xor_si512(z[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128(reg as i32)));
    for blk in &mut blocks {
        for (zi, c) in z.iter_mut().zip(blk.chunks_exact(64)) {
            *zi = fold_xor(*zi, k2048, load(arr64(c)));
        }
    }
    let mut acc = z[0];
    for zi in &z[1..] {
        acc = fold_xor(acc, k512, *zi);
    }
    let mut c64 = blocks.remainder().chunks_exact(64);
    for c in &mut c64 {
        acc = fold_xor(acc, k512, load(arr64(c)));
    }
    let lanes = [
        _mm512_extracti32x4_epi32::<0>(acc),
        _mm512_extracti32x4_epi32::<1>(acc),
        _mm512_extracti32x4_epi32::<2>(acc),
        _mm512_extracti32x4_epi32::<3>(acc),
    ];
    let mut x = lanes[0];
    for l in &lanes[1..] {
        x = _mm_xor_si128(fold(x, k128), *l);
    }
    finish(x, c64.remainder())
}
