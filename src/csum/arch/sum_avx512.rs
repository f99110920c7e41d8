//! AVX-512 (F+BW) ones-complement sum and fused copy+sum (64-byte vectors).
//!
//! Shape of `sum` (and of `copy` below 64 bytes): a masked load of the head up to the next 64-byte boundary of the
//! source, aligned full vectors, a masked load of the tail. Masked loads and
//! stores touch only the enabled bytes, so nothing outside the slices is read
//! or written. The head is summed in the data's own u32 word grid; the body
//! starts `h` bytes later, so its grid is shifted by `h mod 4` bytes. Rotating a
//! u32 word multiplies it by a power of two modulo `2^32 - 1`, so the head's
//! u32 lanes are rotated right by `8·(h mod 4)` bits (moving them into the
//! body's grid), added to the body's accumulators, and the single reduced sum is
//! rotated back left by the same amount. `copy` from 64 bytes up uses no
//! masked memory access: see its docs.
//!
//! Accumulators as in `sum_avx2`: `b += v` (wrapping u64 lanes) and
//! `a += v >> 32`. Carry bound: a piece of at most `2^30` bytes gives each of
//! the two accumulator pairs at most `2^23 + 2` vectors (loads, the head and
//! the tail), so `Σlo` and `Σhi = a` stay below `2^56` per lane and
//! `b - (a << 32) (mod 2^64)` is `Σlo` exactly.

use core::arch::x86_64::{
    __m512i, _mm512_add_epi64, _mm512_and_si512, _mm512_loadu_si512, _mm512_mask_storeu_epi8,
    _mm512_maskz_loadu_epi8, _mm512_maskz_mov_epi8, _mm512_reduce_add_epi64, _mm512_rolv_epi32,
    _mm512_rorv_epi32, _mm512_set1_epi32, _mm512_set1_epi64, _mm512_setzero_si512,
    _mm512_slli_epi64, _mm512_srli_epi64, _mm512_storeu_si512, _mm512_sub_epi64,
};

use crate::csum::scalar::fold64;

/// Vector width in bytes.
const V: usize = 64;
/// Largest piece summed before reducing (a multiple of `4 * V`).
const PIECE: usize = 1 << 30;

/// Byte mask enabling the first `n <= 64` bytes.
#[inline(always)]
const fn mask(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Loads the first `s.len() <= 64` bytes of `s` into the low bytes, zeros elsewhere.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_prefix(s: &[u8]) -> __m512i {
    let n = s.len().min(V);
    // SAFETY: the mask enables only the first `n <= s.len()` bytes; masked-off
    // bytes are neither read nor able to fault (AVX-512 fault suppression).
    unsafe { _mm512_maskz_loadu_epi8(mask(n), s.as_ptr().cast()) }
}

/// Stores the low `d.len() <= 64` bytes of `v` into `d`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn store_prefix(d: &mut [u8], v: __m512i) {
    let n = d.len().min(V);
    // SAFETY: the mask enables only the first `n <= d.len()` bytes; masked-off
    // bytes are not written.
    unsafe { _mm512_mask_storeu_epi8(d.as_mut_ptr().cast(), mask(n), v) }
}

/// Loads 64 bytes.
#[inline]
#[target_feature(enable = "avx512f")]
fn load(c: &[u8; V]) -> __m512i {
    // SAFETY: `c` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(c.as_ptr().cast()) }
}

/// Stores 64 bytes.
#[inline]
#[target_feature(enable = "avx512f")]
fn store(d: &mut [u8; V], v: __m512i) {
    // SAFETY: `d` is 64 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm512_storeu_si512(d.as_mut_ptr().cast(), v) }
}

/// `(x & 0xFFFF_FFFF) + (x >> 32)` per lane: `< 2^33`, zero only for zero.
#[inline]
#[target_feature(enable = "avx512f")]
fn half_fold(x: __m512i) -> __m512i {
    let m = _mm512_set1_epi64(0xFFFF_FFFF);
    _mm512_add_epi64(_mm512_and_si512(x, m), _mm512_srli_epi64::<32>(x))
}

/// Raw sum of one vector (`< 2^36`).
#[inline]
#[target_feature(enable = "avx512f")]
fn sum_vec(v: __m512i) -> u64 {
    _mm512_reduce_add_epi64(half_fold(v)) as u64
}

/// Two accumulator pairs.
#[derive(Clone, Copy)]
struct Acc {
    b0: __m512i,
    a0: __m512i,
    b1: __m512i,
    a1: __m512i,
}

impl Acc {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Acc {
        let z = _mm512_setzero_si512();
        Acc {
            b0: z,
            a0: z,
            b1: z,
            a1: z,
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add0(&mut self, v: __m512i) {
        self.b0 = _mm512_add_epi64(self.b0, v);
        self.a0 = _mm512_add_epi64(self.a0, _mm512_srli_epi64::<32>(v));
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add1(&mut self, v: __m512i) {
        self.b1 = _mm512_add_epi64(self.b1, v);
        self.a1 = _mm512_add_epi64(self.a1, _mm512_srli_epi64::<32>(v));
    }

    /// Raw sum of the accumulated lanes. The pairs are merged first (`Σlo`,
    /// `Σhi < 2^57` per lane), each lane becomes `Σlo + Σhi = b - (a << 32) + a`
    /// (`< 2^58`), and the eight lanes add to `< 2^61`: no overflow, zero only
    /// when every word is zero.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn reduce(self) -> u64 {
        let b = _mm512_add_epi64(self.b0, self.b1);
        let a = _mm512_add_epi64(self.a0, self.a1);
        let lane = _mm512_add_epi64(_mm512_sub_epi64(b, _mm512_slli_epi64::<32>(a)), a);
        _mm512_reduce_add_epi64(lane) as u64
    }
}

/// The chunk as a 64-byte array (always succeeds for `chunks_exact(64)` pieces).
#[inline(always)]
fn arr(c: &[u8]) -> &[u8; V] {
    c.first_chunk::<V>().unwrap_or(&[0; V])
}

/// Raw sum of a piece in its own word grid (any length up to [`PIECE`]) plus
/// the vector `extra` (the grid-shifted head; adds at most `2^32` per lane).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn sum_piece(data: &[u8], extra: __m512i) -> u64 {
    let mut acc = Acc::new();
    acc.add1(extra);
    let mut blocks = data.chunks_exact(4 * V);
    for blk in &mut blocks {
        let (v0, v1) = (load(arr(&blk[..V])), load(arr(&blk[V..2 * V])));
        let (v2, v3) = (load(arr(&blk[2 * V..3 * V])), load(arr(&blk[3 * V..])));
        acc.add0(v0);
        acc.add1(v1);
        acc.add0(v2);
        acc.add1(v3);
    }
    let mut vecs = blocks.remainder().chunks_exact(V);
    for c in &mut vecs {
        acc.add0(load(arr(c)));
    }
    acc.add1(load_prefix(vecs.remainder()));
    acc.reduce()
}

/// Rotates every u32 lane right by `8·(h mod 4)` bits: moves a vector summed in
/// the data's grid into the grid of a body that starts `h` bytes later.
#[inline]
#[target_feature(enable = "avx512f")]
fn to_body_grid(v: __m512i, h: usize) -> __m512i {
    _mm512_rorv_epi32(v, _mm512_set1_epi32(8 * (h & 3) as i32))
}

/// Raw sum of any slice (invariant in `arch`'s module docs).
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW and the OS must save opmask and ZMM state.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn sum(data: &[u8]) -> u64 {
    if data.len() <= V {
        return sum_vec(load_prefix(data));
    }
    let h = (V - (data.as_ptr() as usize & (V - 1))) & (V - 1);
    let (head, mut body) = data.split_at(h);
    let mut extra = to_body_grid(load_prefix(head), h);
    let mut body_sum = 0u64;
    while !body.is_empty() {
        let n = body.len().min(PIECE);
        let (piece, rest) = body.split_at(n);
        body_sum = fold64(body_sum + sum_piece(piece, extra)) as u64;
        extra = _mm512_setzero_si512();
        body = rest;
    }
    fold64(body_sum).rotate_left(8 * (h & 3) as u32) as u64
}

/// Copies and sums a body (equal lengths, a multiple of `V`, up to [`PIECE`]),
/// plus the vectors `extra` and `extra2`: four vectors per round into two
/// accumulator pairs.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn copy_body(src: &[u8], dst: &mut [u8], extra: __m512i, extra2: __m512i) -> u64 {
    let mut acc = Acc::new();
    acc.add1(extra);
    acc.add0(extra2);
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
        acc.add0(v0);
        acc.add1(v1);
        acc.add0(v2);
        acc.add1(v3);
    }
    let rs = s.remainder().chunks_exact(V);
    let rd = d.into_remainder().chunks_exact_mut(V);
    for (sc, dc) in rs.zip(rd) {
        let v = load(arr(sc));
        if let Some(dc) = dc.first_chunk_mut::<V>() {
            store(dc, v);
        }
        acc.add0(v);
    }
    acc.reduce()
}

/// Copies `src` into `dst` (equal lengths) and returns the raw sum.
///
/// Shape for `len >= 64`: no masked memory access (masked stores are slow on
/// some cores). The first and the last 64 bytes are copied with plain
/// unaligned vectors that overlap the body; the body runs on full vectors
/// aligned to the *destination* (from byte `h` in `1..=64`). Only the bytes the
/// body does not cover are summed from the overlapping vectors (zero-masked in
/// registers), each rotated from its own word grid into the body's.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW and the OS must save opmask and ZMM state.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn copy(src: &[u8], dst: &mut [u8]) -> u64 {
    let len = src.len().min(dst.len());
    let (Some(first), Some(last)) = (src.first_chunk::<V>(), src.last_chunk::<V>()) else {
        let v = load_prefix(src);
        store_prefix(dst, v);
        return sum_vec(v);
    };
    let (hv, tv) = (load(first), load(last));
    if let Some(d) = dst.first_chunk_mut::<V>() {
        store(d, hv);
    }
    if let Some(d) = dst.last_chunk_mut::<V>() {
        store(d, tv);
    }
    // Body: from the first 64-byte boundary of `dst` after byte 0 (h in 1..=64).
    let h = V - (dst.as_ptr() as usize & (V - 1));
    let body_len = (len - h) & !(V - 1);
    let t = len - h - body_len;
    // Head bytes [0, h) in the data's grid, moved into the body's grid.
    let mut extra = to_body_grid(_mm512_maskz_mov_epi8(mask(h), hv), h);
    // Tail bytes [len - t, len): the last vector starts at `len - 64`, `t - 64`
    // bytes after a body vector boundary, so its grid is `t mod 4` bytes off.
    let tail = _mm512_maskz_mov_epi8(!mask(V - t), tv);
    let mut tail = _mm512_rolv_epi32(tail, _mm512_set1_epi32(8 * (t & 3) as i32));
    let (mut s, mut d) = (
        src.get(h..h + body_len).unwrap_or(&[]),
        dst.get_mut(h..h + body_len).unwrap_or(&mut []),
    );
    let mut body_sum = 0u64;
    loop {
        let n = s.len().min(PIECE);
        let (sp, st) = s.split_at(n);
        let (dp, dt) = core::mem::take(&mut d).split_at_mut(n);
        body_sum = fold64(body_sum + copy_body(sp, dp, extra, tail)) as u64;
        extra = _mm512_setzero_si512();
        tail = extra;
        s = st;
        d = dt;
        if s.is_empty() {
            break;
        }
    }
    fold64(body_sum).rotate_left(8 * (h & 3) as u32) as u64
}
