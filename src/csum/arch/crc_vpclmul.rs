//! CRC32c by VPCLMULQDQ folding on 512-bit vectors (AVX-512) from 128 bytes;
//! shorter buffers run one `crc32` stream inline.
//!
//! The same folding as `crc_pclmul`, four 128-bit lanes per vector and four
//! vectors (256 bytes) per step; the vectors are folded into one, its lanes
//! into one 128-bit value, and `crc_pclmul::finish` does the rest.
//!
//! Long buffers on AMD cores run *hybrid* chunks: the carry-less multiplier
//! and the `crc32` instruction use different execution ports, so while the
//! vectors fold the first [`HY_VEC`] bytes of a chunk, three `crc32` streams
//! run over the three [`HY_STREAM`]-byte blocks after it, in the same loop.
//! The four registers are joined by linearity,
//! `r_A·x^(24s) ⊕ r_B·x^(16s) ⊕ r_C·x^(8s) ⊕ r_D` for stream blocks of `s`
//! bytes, each multiplication done as
//! `crc32(0, clmul(r, x^(8n-33) mod P))` (a reflected 32×32 product carries a
//! factor `x`, the `crc32` step `x^32`).

use core::arch::x86_64::{
    __m512i, _mm_clmulepi64_si128, _mm_crc32_u64, _mm_cvtsi32_si128, _mm_cvtsi64_si128,
    _mm_cvtsi128_si64, _mm_xor_si128, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_xor_si256, _mm512_broadcast_i32x4, _mm512_castsi512_si256, _mm512_clmulepi64_epi128,
    _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_mask_ternarylogic_epi64,
    _mm512_ternarylogic_epi64, _mm512_xor_si512, _mm512_zextsi128_si512,
};

use crate::csum::crc::x_pow;

use super::crc_pclmul::{
    K128, K256, K512, K1024, K1536, K2048, arr16, consts, finish, fold, fold_consts,
    fold_update as fold_update_128, load as load16,
};
use super::crc_sse42;

/// Shortest buffer folded four vectors at a time (ahead of the 128-bit
/// folding: 256-511 B in 0.6-0.8x its time); shorter ones from [`MIN_VEC`]
/// fold vector by vector ([`fold_short`]).
const MIN_FOLD: usize = 256;

/// Shortest buffer folded at all; shorter ones run one `crc32` stream, inline
/// (the calls down to it cost more than 64 B of `crc32` on an Intel Xeon).
/// Why 128 (Intel Xeon): from there the vectors are as fast as the stream
/// for independent calls (128-160 B within 0.3 ns, 192-255 B 0.3-1.5 ns
/// faster) and 1.6-2.1x faster for a chain of dependent ones (128 B 13.9 ->
/// 8.5 ns, 255 B 28.6 -> 13.8); at 64-112 B they lost 0.3-0.8 ns.
const MIN_VEC: usize = 128;

/// Shortest buffer whose head up to a 64-byte boundary is taken apart first,
/// so every vector load lies within one cache line (line-crossing loads cost
/// twice on Intel cores: 64 KiB at offsets 1, 2 and 14 ran at 0.80x crc-fast,
/// 1.00x aligned). Below it the head's own cost is not won back.
const ALIGN_FROM: usize = 2048;

/// 256-byte vector steps per hybrid chunk (20: the chunk, 7520 B, stays below
/// a 9000-byte jumbo frame, which then runs one hybrid chunk).
const HY_ITERS: usize = 20;
/// Bytes the vectors fold per hybrid chunk.
const HY_VEC: usize = 256 * HY_ITERS;
/// `crc32` words per stream per vector step (five: with three the `crc32`
/// unit idled while the 512-bit carry-less multiplies ran; 64 KiB went from
/// 1.22x to 1.33-1.37x crc-fast 1.10, see `docs/perf/csum.md`).
const HY_WORDS: usize = 5;
/// Bytes per `crc32` stream per hybrid chunk.
const HY_STREAM: usize = 8 * HY_WORDS * HY_ITERS;
/// Bytes per hybrid chunk.
pub(super) const HY_CHUNK: usize = HY_VEC + 3 * HY_STREAM;
/// `x^(8n-33) mod P` for moving a register past `n = s, 2s, 3s` bytes.
const HY_K: [u32; 3] = [
    x_pow(8 * HY_STREAM as u64 - 33),
    x_pow(16 * HY_STREAM as u64 - 33),
    x_pow(24 * HY_STREAM as u64 - 33),
];

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

/// [`HY_WORDS`] `crc32` words of one stream.
#[inline]
#[target_feature(enable = "sse4.2")]
fn stream_step(mut r: u64, c: &[u8]) -> u64 {
    for w in c.chunks_exact(8) {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        r = _mm_crc32_u64(r, u64::from_le_bytes(b));
    }
    r
}

/// `r·x^(8n) mod P` for the `n` whose constant `k` is (`x^(8n-33) mod P`).
#[inline]
#[target_feature(enable = "sse4.2,pclmulqdq")]
fn shift_clmul(r: u32, k: u32) -> u64 {
    let p = _mm_clmulepi64_si128::<0x00>(_mm_cvtsi64_si128(r as i64), _mm_cvtsi64_si128(k as i64));
    _mm_cvtsi128_si64(p) as u64
}

/// The constants that move the four 128-bit lanes of the joined state to the
/// end when `n` (0-3) 16-byte chunks follow it: lane `i` by `3 - i + n`
/// lanes, in `_mm512_set_epi64`'s lane order reversed (lane 0 first; lane 3
/// gets none when `n` is 0).
const LANE_K: [[i64; 8]; 4] = {
    let mut t = [[0i64; 8]; 4];
    let mut n = 0;
    while n < 4 {
        let mut lane = 0;
        while lane < 4 {
            let d = 128 * (3 - lane + n) as u64;
            if d > 0 {
                let k = fold_consts(d);
                t[n][2 * lane] = k.0;
                t[n][2 * lane + 1] = k.1;
            }
            lane += 1;
        }
        n += 1;
    }
    t
};

/// Folds 4-vector state `z` into one 128-bit value and finishes over `rest`.
/// The window of four vectors moves on over the `r` (0-3) whole vectors of
/// `rest` (each folds the oldest, 256 bytes back), one written-out case per
/// `r` (a loop rotating the window cost 0.3-0.9 ns at 256-448 B); then each
/// vector, each 128-bit lane and each 16-byte chunk left after them moves to
/// the end by its own distance, all at once, and the products are XORed
/// ([`lanes_to_end`]; the chunks were folded one after another before: 400 B
/// 0.8-1.1 ns, 1500 B 0.4-0.9 ns slower).
/// Why: one carry-less multiply deep instead of a chain of six to nine:
/// 576 B 7-11% and 1500 B 5-11% faster, 256 B 2-6% slower (Intel Xeon).
#[inline]
#[target_feature(enable = "sse4.2,pclmulqdq,avx512f,vpclmulqdq")]
fn reduce(z: [__m512i; 4], rest: &[u8]) -> u32 {
    let k2048 = _mm512_broadcast_i32x4(consts(K2048));
    let c64 = rest.chunks_exact(64);
    let tail = c64.remainder();
    let [z0, z1, z2, z3] = z;
    let mut v = c64.map(|c| load(arr64(c)));
    let acc = match (v.next(), v.next(), v.next()) {
        (None, _, _) => join4(z0, z1, z2, z3),
        (Some(a), None, _) => join4(z1, z2, z3, fold_xor(z0, k2048, a)),
        (Some(a), Some(b), None) => join4(z2, z3, fold_xor(z0, k2048, a), fold_xor(z1, k2048, b)),
        (Some(a), Some(b), Some(c)) => join4(
            z3,
            fold_xor(z0, k2048, a),
            fold_xor(z1, k2048, b),
            fold_xor(z2, k2048, c),
        ),
    };
    lanes_to_end(acc, tail)
}

/// Moves the four 128-bit lanes of `acc` and the `n` (0-3) 16-byte chunks of
/// `tail` to the end, XORs them and finishes over the `< 16` bytes left.
#[inline]
#[target_feature(enable = "sse4.2,pclmulqdq,avx512f,vpclmulqdq")]
fn lanes_to_end(acc: __m512i, tail: &[u8]) -> u32 {
    // The 16-byte chunks after the last whole vector: `n` of them (0-3).
    // Lane `i` moves by `3 - i + n` lanes (`0x66`: the two products XORed);
    // with `n = 0` lane 3, masked off, stays. Then the four are XORed.
    let mut c16 = tail.chunks_exact(16);
    let n = c16.len();
    let lanes = LANE_K.get(n).unwrap_or(&LANE_K[0]);
    // SAFETY: `lanes` is 64 readable bytes (eight i64); `loadu` needs no alignment.
    let k = unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) };
    let moved = _mm512_mask_ternarylogic_epi64::<0x66>(
        acc,
        if n == 0 { 0x3F } else { 0xFF },
        _mm512_clmulepi64_epi128::<0x00>(acc, k),
        _mm512_clmulepi64_epi128::<0x11>(acc, k),
    );
    let half = _mm256_xor_si256(
        _mm512_castsi512_si256(moved),
        _mm512_extracti64x4_epi64::<1>(moved),
    );
    let mut x = _mm_xor_si128(
        _mm256_castsi256_si128(half),
        _mm256_extracti128_si256::<1>(half),
    );
    // Each chunk moves to the end by its own distance too (the last not at
    // all): side by side, not one fold after another.
    for (i, c) in (&mut c16).rev().enumerate() {
        let v = load16(arr16(c));
        let d = [K128, K256].get(i.wrapping_sub(1)).copied();
        x = _mm_xor_si128(x, d.map_or(v, |d| fold(v, consts(d))));
    }
    finish(x, c16.remainder())
}

/// Four consecutive vectors folded into the last: each multiplied by its
/// distance to it in one step, the products XORed.
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn join4(a: __m512i, b: __m512i, c: __m512i, d: __m512i) -> __m512i {
    let k = |dist| _mm512_broadcast_i32x4(consts(dist));
    fold_xor(a, k(K1536), fold_xor(b, k(K1024), fold_xor(c, k(K512), d)))
}

/// From [`MIN_VEC`] to [`MIN_FOLD`] bytes: each whole vector folded into the
/// next, then as the end of [`reduce`]. Out of line: inlined, it moved
/// [`update`]'s longer paths (256 and 400 B 0.5-1.0 ns slower).
#[inline(never)]
#[target_feature(enable = "sse4.2,pclmulqdq,avx512f,vpclmulqdq")]
fn fold_short(reg: u32, data: &[u8]) -> u32 {
    let k512 = _mm512_broadcast_i32x4(consts(K512));
    let mut c64 = data.chunks_exact(64);
    let mut acc = _mm512_zextsi128_si512(_mm_cvtsi32_si128(reg as i32));
    if let Some(c) = c64.next() {
        acc = _mm512_xor_si512(acc, load(arr64(c)));
    }
    for c in &mut c64 {
        acc = fold_xor(acc, k512, load(arr64(c)));
    }
    lanes_to_end(acc, c64.remainder())
}

/// One hybrid chunk of exactly [`HY_CHUNK`] bytes (see the module docs).
#[inline]
#[target_feature(enable = "sse4.2,pclmulqdq,avx512f,vpclmulqdq")]
fn hybrid_chunk(reg: u32, chunk: &[u8]) -> u32 {
    let k2048 = _mm512_broadcast_i32x4(consts(K2048));
    let (a, s) = chunk.split_at(HY_VEC.min(chunk.len()));
    let (b, cd) = s.split_at(HY_STREAM.min(s.len()));
    let (c, d) = cd.split_at(HY_STREAM.min(cd.len()));
    let mut blocks = a.chunks_exact(256);
    let (mut sb, mut sc, mut sd) = (
        b.chunks_exact(8 * HY_WORDS),
        c.chunks_exact(8 * HY_WORDS),
        d.chunks_exact(8 * HY_WORDS),
    );
    let mut z = [_mm512_zextsi128_si512(_mm_cvtsi32_si128(0)); 4];
    if let Some(first) = blocks.next() {
        for (zi, c) in z.iter_mut().zip(first.chunks_exact(64)) {
            *zi = load(arr64(c));
        }
    }
    z[0] = _mm512_xor_si512(z[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128(reg as i32)));
    let (mut rb, mut rc, mut rd) = (0u64, 0u64, 0u64);
    if let (Some(x), Some(y), Some(w)) = (sb.next(), sc.next(), sd.next()) {
        rb = stream_step(rb, x);
        rc = stream_step(rc, y);
        rd = stream_step(rd, w);
    }
    for (blk, ((x, y), w)) in (&mut blocks).zip((&mut sb).zip(&mut sc).zip(&mut sd)) {
        for (zi, c) in z.iter_mut().zip(blk.chunks_exact(64)) {
            *zi = fold_xor(*zi, k2048, load(arr64(c)));
        }
        rb = stream_step(rb, x);
        rc = stream_step(rc, y);
        rd = stream_step(rd, w);
    }
    let ra = reduce(z, &[]);
    let moved = shift_clmul(ra, HY_K[2])
        ^ shift_clmul(rb as u32, HY_K[1])
        ^ shift_clmul(rc as u32, HY_K[0]);
    _mm_crc32_u64(0, moved) as u32 ^ rd as u32
}

/// Advances the raw register over `data`: under [`MIN_VEC`] bytes one `crc32`
/// stream, under [`MIN_FOLD`] [`fold_short`]; else in hybrid chunks while at
/// least one is left when `hybrid` (the CPU's choice, `super::crc_hybrid`),
/// then by folding: the same CRC either way.
///
/// # Safety
/// The CPU must support SSE4.2, PCLMULQDQ, AVX-512F and VPCLMULQDQ, and the OS
/// must save ZMM state.
#[target_feature(enable = "sse4.2,pclmulqdq,avx512f,vpclmulqdq")]
pub(super) unsafe fn update(mut reg: u32, mut data: &[u8], hybrid: bool) -> u32 {
    if data.len() < MIN_FOLD {
        if data.len() >= MIN_VEC {
            return fold_short(reg, data);
        }
        return crc_sse42::single(reg, data);
    }
    if data.len() >= ALIGN_FROM {
        let (head, body) = data.split_at(data.as_ptr().align_offset(64).min(data.len()));
        reg = fold_update_128(reg, head);
        data = body;
    }
    while hybrid && data.len() >= HY_CHUNK {
        let (chunk, rest) = data.split_at(HY_CHUNK);
        reg = hybrid_chunk(reg, chunk);
        data = rest;
    }
    if data.len() < MIN_FOLD {
        return fold_update_128(reg, data);
    }
    let k2048 = _mm512_broadcast_i32x4(consts(K2048));
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
    reduce(z, blocks.remainder())
}
