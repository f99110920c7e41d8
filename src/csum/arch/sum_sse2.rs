//! SSE2 ones-complement sum and fused copy+sum (16-byte vectors).
//!
//! Each 16-byte load `v` (two u64 lanes, each the two LE u32 words `lo`, `hi`)
//! goes into two u64 lane accumulators: `b += v` (wrapping) and `a += v >> 32`.
//! Carry bound: a piece has at most `2^25` loads per accumulator pair, so the
//! exact lane sums `Σlo` and `Σhi = a` stay below `2^57`; since
//! `b = Σlo + 2^32·Σhi (mod 2^64)`, `b - (a << 32) (mod 2^64)` is `Σlo` exactly.
//! The lane value `Σlo + Σhi` is then the u32 word sum modulo `2^32 - 1`.

use core::arch::x86_64::{
    __m128i, _mm_add_epi64, _mm_and_si128, _mm_loadu_si128, _mm_set1_epi64x, _mm_setzero_si128,
    _mm_slli_epi64, _mm_srli_epi64, _mm_storeu_si128, _mm_sub_epi64,
};

use crate::csum::scalar::{self, fold64};

/// Vector width in bytes.
const V: usize = 16;

/// Largest piece summed before reducing (a multiple of 128; keeps the bound above).
const PIECE: usize = 1 << 30;

/// Accumulators: two pairs so consecutive loads do not wait on one add chain.
#[derive(Clone, Copy)]
struct Acc {
    b0: __m128i,
    a0: __m128i,
    b1: __m128i,
    a1: __m128i,
}

#[inline]
#[target_feature(enable = "sse2")]
fn acc_new() -> Acc {
    let z = _mm_setzero_si128();
    Acc {
        b0: z,
        a0: z,
        b1: z,
        a1: z,
    }
}

/// Loads one vector.
#[inline]
#[target_feature(enable = "sse2")]
fn load(c: &[u8; V]) -> __m128i {
    // SAFETY: `c` is V readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(c.as_ptr().cast()) }
}

/// Stores one vector.
#[inline]
#[target_feature(enable = "sse2")]
fn store(d: &mut [u8; V], v: __m128i) {
    // SAFETY: `d` is V writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_si128(d.as_mut_ptr().cast(), v) }
}

/// `(x & 0xFFFF_FFFF) + (x >> 32)` per lane: `< 2^33`, zero only for zero.
#[inline]
#[target_feature(enable = "sse2")]
fn half_fold(x: __m128i) -> __m128i {
    let m = _mm_set1_epi64x(0xFFFF_FFFF);
    _mm_add_epi64(_mm_and_si128(x, m), _mm_srli_epi64::<32>(x))
}

/// Reduces the lanes to a raw sum: `Σlo` per lane is `b - (a << 32)`, and the
/// four half-folded vectors add to `< 2^35` per lane (`< 2^37` over the lanes);
/// zero only if every lane sum is zero.
#[inline]
#[target_feature(enable = "sse2")]
fn reduce(acc: Acc) -> u64 {
    let lo0 = _mm_sub_epi64(acc.b0, _mm_slli_epi64::<32>(acc.a0));
    let lo1 = _mm_sub_epi64(acc.b1, _mm_slli_epi64::<32>(acc.a1));
    let s = _mm_add_epi64(
        _mm_add_epi64(half_fold(lo0), half_fold(acc.a0)),
        _mm_add_epi64(half_fold(lo1), half_fold(acc.a1)),
    );
    let mut lanes = [0u8; V];
    store(&mut lanes, s);
    lanes
        .chunks_exact(8)
        .map(|c| u64::from_ne_bytes(*c.first_chunk::<8>().unwrap_or(&[0; 8])))
        .sum()
}

/// Splits a chunk into fixed-size arrays (never fails for `chunks_exact(N)`).
#[inline(always)]
fn arr<const N: usize>(c: &[u8]) -> &[u8; N] {
    c.first_chunk::<N>().unwrap_or(&[0; N])
}

/// Adds one vector to an accumulator pair.
#[inline]
#[target_feature(enable = "sse2")]
fn add(b: &mut __m128i, a: &mut __m128i, v: __m128i) {
    *b = _mm_add_epi64(*b, v);
    *a = _mm_add_epi64(*a, _mm_srli_epi64::<32>(v));
}

/// Raw sum of a piece whose length is a multiple of V and at most [`PIECE`].
#[inline]
#[target_feature(enable = "sse2")]
fn sum_piece(data: &[u8]) -> u64 {
    let mut acc = acc_new();
    let mut blocks = data.chunks_exact(4 * V);
    for blk in &mut blocks {
        let (v0, v1) = (load(arr(&blk[..V])), load(arr(&blk[V..2 * V])));
        let (v2, v3) = (load(arr(&blk[2 * V..3 * V])), load(arr(&blk[3 * V..])));
        add(&mut acc.b0, &mut acc.a0, v0);
        add(&mut acc.b1, &mut acc.a1, v1);
        add(&mut acc.b0, &mut acc.a0, v2);
        add(&mut acc.b1, &mut acc.a1, v3);
    }
    for c in blocks.remainder().chunks_exact(V) {
        add(&mut acc.b0, &mut acc.a0, load(arr(c)));
    }
    reduce(acc)
}

/// Raw sum of any slice (invariant in `arch`'s module docs).
///
/// # Safety
/// The CPU must support SSE2 and the OS must save XMM state.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn sum(data: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut rest = data;
    while rest.len() >= V {
        let n = (rest.len() & !(V - 1)).min(PIECE);
        let (body, tail) = rest.split_at(n);
        total = fold64(total + sum_piece(body)) as u64;
        rest = tail;
    }
    total + scalar::sum_short(rest)
}

/// Copies and sums a piece (length a multiple of V, at most [`PIECE`]).
#[inline]
#[target_feature(enable = "sse2")]
fn copy_piece(src: &[u8], dst: &mut [u8]) -> u64 {
    let mut acc = acc_new();
    let mut s = src.chunks_exact(4 * V);
    let mut d = dst.chunks_exact_mut(4 * V);
    for (sb, db) in (&mut s).zip(&mut d) {
        let (v0, v1) = (load(arr(&sb[..V])), load(arr(&sb[V..2 * V])));
        let (v2, v3) = (load(arr(&sb[2 * V..3 * V])), load(arr(&sb[3 * V..])));
        let (d01, d23) = db.split_at_mut(2 * V);
        let (d0, d1) = d01.split_at_mut(V);
        let (d2, d3) = d23.split_at_mut(V);
        for (dc, v) in [(d0, v0), (d1, v1), (d2, v2), (d3, v3)] {
            if let Some(dc) = dc.first_chunk_mut::<V>() {
                store(dc, v);
            }
        }
        add(&mut acc.b0, &mut acc.a0, v0);
        add(&mut acc.b1, &mut acc.a1, v1);
        add(&mut acc.b0, &mut acc.a0, v2);
        add(&mut acc.b1, &mut acc.a1, v3);
    }
    let rs = s.remainder().chunks_exact(V);
    let rd = d.into_remainder().chunks_exact_mut(V);
    for (sc, dc) in rs.zip(rd) {
        let v = load(arr(sc));
        if let Some(dc) = dc.first_chunk_mut::<V>() {
            store(dc, v);
        }
        add(&mut acc.b0, &mut acc.a0, v);
    }
    reduce(acc)
}

/// Copies `src` into `dst` (equal lengths) and returns the raw sum.
///
/// # Safety
/// The CPU must support SSE2 and the OS must save XMM state.
#[target_feature(enable = "sse2")]
pub(super) unsafe fn copy(src: &[u8], dst: &mut [u8]) -> u64 {
    let mut total = 0u64;
    let (mut s, mut d) = (src, dst);
    while s.len() >= V {
        let n = (s.len() & !(V - 1)).min(PIECE);
        let (sb, st) = s.split_at(n);
        let (db, dt) = d.split_at_mut(n);
        total = fold64(total + copy_piece(sb, db)) as u64;
        s = st;
        d = dt;
    }
    d.copy_from_slice(s);
    total + scalar::sum_short(s)
}
