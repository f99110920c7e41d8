//! AVX-512 (F+BW) ones-complement sum and fused copy+sum (64-byte vectors);
//! BMI2 for the byte masks (`bzhi`, `shlx`).
//!
//! Shape of `sum` above [`MID_MAX`] bytes: a masked load of the head up to
//! the next 64-byte boundary of the source, aligned full vectors, a masked
//! load of the tail. Masked loads touch only the enabled bytes, so nothing
//! outside the slice is read. The sum runs in the word grid of the aligned
//! body, which starts `h` bytes after the data: the head is loaded from its
//! own aligned line (its bytes land in their address's lanes, already in that
//! grid), and since rotating a u32 word multiplies it by a power of two modulo
//! `2^32 - 1`, the single reduced sum is rotated left by `8·(h mod 4)` bits
//! back into the data's grid. From 65 to [`MID_MAX`] bytes, [`sum_mid`]. The
//! copies use no masked store: below 64 bytes `arch::copy_short`, above see
//! `copy_source_aligned` and `copy`.
//!
//! Accumulators as in `sum_avx2`: `b += v` (wrapping u64 lanes) and
//! `a += v >> 32`. Carry bound: a piece of at most `2^30` bytes gives each of
//! the two accumulator pairs at most `2^23 + 2` vectors (loads, the head and
//! the tail), so `Σlo` and `Σhi = a` stay below `2^56` per lane and
//! `b - (a << 32) (mod 2^64)` is `Σlo` exactly. From [`DP_FROM`] bytes on a
//! CPU with AVX-512 VNNI, `sum_vnni` and `copy_source_aligned_vnni` use [`Dp`]
//! instead: two vector operations per 64 bytes, and each lane's top bytes
//! summed apart to recover its carries.

use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_add_epi64, _mm512_and_si512, _mm512_dpbusd_epi32,
    _mm512_loadu_si512, _mm512_maskz_loadu_epi8, _mm512_maskz_mov_epi8, _mm512_reduce_add_epi64,
    _mm512_rolv_epi32, _mm512_rorv_epi32, _mm512_set1_epi32, _mm512_set1_epi64,
    _mm512_setzero_si512, _mm512_slli_epi64, _mm512_srli_epi32, _mm512_srli_epi64,
    _mm512_storeu_si512, _mm512_sub_epi32, _mm512_sub_epi64, _mm512_unpackhi_epi32,
    _mm512_unpacklo_epi32,
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
/// An empty `s` is not loaded at all: its address may be one past the end of
/// a mapping, and a masked load whose masked-off bytes lie in an unmapped
/// page takes a microcode assist (a 1500 B sum ending at a page end before an
/// unmapped page took 24.6 ns against 10.5).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
fn load_prefix(s: &[u8]) -> __m512i {
    let n = s.len().min(V);
    if n == 0 {
        return _mm512_setzero_si512();
    }
    // SAFETY: the mask enables only the first `n <= s.len()` bytes; masked-off
    // bytes are neither read nor able to fault (AVX-512 fault suppression).
    unsafe { _mm512_maskz_loadu_epi8(mask(n), s.as_ptr().cast()) }
}

/// Loads 64 bytes.
#[inline]
#[target_feature(enable = "avx512f")]
fn load(c: &[u8; V]) -> __m512i {
    // SAFETY: `c` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(c.as_ptr().cast()) }
}

/// `(x & 0xFFFF_FFFF) + (x >> 32)` per lane: `< 2^33`, zero only for zero.
#[inline]
#[target_feature(enable = "avx512f")]
fn half_fold(x: __m512i) -> __m512i {
    let m = _mm512_set1_epi64(0xFFFF_FFFF);
    _mm512_add_epi64(_mm512_and_si512(x, m), _mm512_srli_epi64::<32>(x))
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

    /// Adds `v` into pair `I mod 2` (the index [`Dp::add`] takes, so one
    /// copy body serves both schemes).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add<const I: usize>(&mut self, v: __m512i) {
        match I % 2 {
            0 => self.add0(v),
            _ => self.add1(v),
        }
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

/// Shortest slice summed, or copied up to [`SOURCE_ALIGNED_MAX`], with the
/// VNNI accumulators (measured for both: below it the three-operation body
/// and its shorter reduction are faster).
pub(super) const DP_FROM: usize = 1024;

/// Largest piece the VNNI accumulators sum before reducing: 248 vectors, plus
/// the head and the tail, stay within the 256 that [`Dp`] can count.
pub(super) const PIECE_DP: usize = 31 * 8 * V;

/// What each lane of [`Dp`]'s `t` starts at: the `255` of its carry formula
/// ([`Dp::reduce`]), added once instead of in every reduction.
const T_BIAS: i32 = 255;

/// Accumulators with AVX-512 VNNI: two vector operations per 64 bytes instead
/// of [`Acc`]'s three (the 512-bit shift runs on one port of the two).
///
/// `b` adds the vectors as wrapping u32 lanes; `t` adds each u32 lane's top
/// byte (`vpdpbusd` against the weights `0, 0, 0, 1`: the multiply and the add
/// are one instruction), plus [`T_BIAS`] once. Over `n <= 256` vectors a
/// lane's low 24 bits sum to `low < 2^32`, and its exact sum is
/// `S = low + 2^24·t = b + 2^32·q` (`t` without the bias); [`Dp::reduce`]
/// recovers the carries `q` from `b`'s top byte and `t` ([`PIECE_DP`] keeps
/// `n` in bound).
/// Four `t` registers: `vpdpbusd`'s latency is five cycles and the body issues
/// one per about 1.25 cycles; more registers only lengthen the reduction.
#[derive(Clone, Copy)]
struct Dp {
    b: __m512i,
    t: [__m512i; 4],
}

impl Dp {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Dp {
        let z = _mm512_setzero_si512();
        Dp {
            b: z,
            t: [_mm512_set1_epi32(T_BIAS), z, z, z],
        }
    }

    /// Adds `v` into the `I`-th `t` register (a constant, so registers stay registers).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vnni")]
    fn add<const I: usize>(&mut self, v: __m512i) {
        self.b = _mm512_add_epi32(self.b, v);
        self.t[I] = _mm512_dpbusd_epi32(self.t[I], v, _mm512_set1_epi32(1 << 24));
    }

    /// Raw sum of the accumulated lanes, `Σ (b + 2^32·q) = Σ S` over the
    /// sixteen lanes, where `q` is each lane's carries out of its u32: exact,
    /// below `2^45`, zero only when every word is zero.
    ///
    /// Carries: with `t = 256·t_h + t_l` (unbiased) and `L = low >> 24 < 256`,
    /// `b >> 24 = (L + t_l) mod 256` and `q = t_h + [L + t_l >= 256]`; the
    /// wrap happened exactly when `b >> 24 < t_l`, so
    /// `q = (t + 255 - (b >> 24)) >> 8`, the bias supplying the 255.
    /// Interleaving `b` with `q` makes each u64 lane one word's `b + 2^32·q`.
    /// Why: six vector operations after merging `t`, where widening `low`
    /// and `t` apart took ten (`docs/perf/csum.md`, session 27).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vnni")]
    fn reduce(self) -> u64 {
        let [t0, t1, t2, t3] = self.t;
        let t = _mm512_add_epi32(_mm512_add_epi32(t0, t1), _mm512_add_epi32(t2, t3));
        let q = _mm512_srli_epi32::<8>(_mm512_sub_epi32(t, _mm512_srli_epi32::<24>(self.b)));
        let lanes = _mm512_add_epi64(
            _mm512_unpacklo_epi32(self.b, q),
            _mm512_unpackhi_epi32(self.b, q),
        );
        _mm512_reduce_add_epi64(lanes) as u64
    }
}

/// [`sum_piece`] with the VNNI accumulators (pieces of at most [`PIECE_DP`] bytes).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni,bmi2")]
fn sum_piece_dp(data: &[u8], extra: __m512i) -> u64 {
    let mut acc = Dp::new();
    acc.add::<3>(extra);
    let mut blocks = data.chunks_exact(8 * V);
    for blk in &mut blocks {
        acc.add::<0>(load(arr(blk)));
        acc.add::<1>(load(arr(&blk[V..])));
        acc.add::<2>(load(arr(&blk[2 * V..])));
        acc.add::<3>(load(arr(&blk[3 * V..])));
        acc.add::<0>(load(arr(&blk[4 * V..])));
        acc.add::<1>(load(arr(&blk[5 * V..])));
        acc.add::<2>(load(arr(&blk[6 * V..])));
        acc.add::<3>(load(arr(&blk[7 * V..])));
    }
    // Fewer than eight vectors left: four, two and one, then the tail.
    let mut rest = blocks.remainder();
    if let Some((four, r)) = rest.split_at_checked(4 * V) {
        acc.add::<0>(load(arr(four)));
        acc.add::<1>(load(arr(&four[V..])));
        acc.add::<2>(load(arr(&four[2 * V..])));
        acc.add::<3>(load(arr(&four[3 * V..])));
        rest = r;
    }
    if let Some((two, r)) = rest.split_at_checked(2 * V) {
        acc.add::<0>(load(arr(two)));
        acc.add::<1>(load(arr(&two[V..])));
        rest = r;
    }
    if let Some((one, r)) = rest.split_at_checked(V) {
        acc.add::<2>(load(arr(one)));
        rest = r;
    }
    acc.add::<3>(load_prefix(rest));
    acc.reduce()
}

/// The chunk as a 64-byte array (always succeeds for `chunks_exact(64)` pieces).
#[inline(always)]
fn arr(c: &[u8]) -> &[u8; V] {
    c.first_chunk::<V>().unwrap_or(&[0; V])
}

/// Raw sum of a piece in its own word grid (any length up to [`PIECE`]) plus
/// the vector `extra` (the grid-shifted head; adds at most `2^32` per lane).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
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

/// The bytes of `data` (longer than 64) before its first 64-byte boundary,
/// and their count `h`: loaded from their aligned line, so each byte sits in
/// the lane of its address (the aligned body's word grid), zeros elsewhere.
/// Why: no rotation into the body's grid (two vector operations per sum).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
fn load_head_in_line(data: &[u8]) -> (usize, __m512i) {
    let off = data.as_ptr() as usize & (V - 1);
    let h = (V - off) & (V - 1);
    // Lanes `off..64` when `h > 0` (then `off + h = 64`), none when `h = 0`.
    let m = mask(h) << off;
    let line = data.as_ptr().wrapping_sub(off);
    // SAFETY: the enabled lanes are the `h <= data.len()` bytes at `line + off`,
    // which is `data`'s start; masked-off bytes are neither read nor able to
    // fault (AVX-512 fault suppression), so the line's bytes before `data` are
    // never accessed.
    (h, unsafe { _mm512_maskz_loadu_epi8(m, line.cast()) })
}

/// Rotates every u32 lane right by `8·(h mod 4)` bits: moves a vector summed in
/// the data's grid into the grid of a body that starts `h` bytes later.
#[inline]
#[target_feature(enable = "avx512f")]
fn to_body_grid(v: __m512i, h: usize) -> __m512i {
    _mm512_rorv_epi32(v, _mm512_set1_epi32(8 * (h & 3) as i32))
}

/// The last `t < 64` bytes of a copy from `last`, its final 64 bytes, in the
/// word grid of a body whose vectors end `t` bytes before the end: `last`
/// starts `t - 64` bytes after a body vector boundary, so its grid is
/// `t mod 4` bytes off. Zeros elsewhere.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
fn tail_in_body_grid(last: __m512i, t: usize) -> __m512i {
    let tail = _mm512_maskz_mov_epi8(!mask(V - t), last);
    _mm512_rolv_epi32(tail, _mm512_set1_epi32(8 * (t & 3) as i32))
}

/// Longest slice [`sum_mid`] sums: measured, `partial` at 301-512 B took
/// 4.7-6.3 ns this way against 5.8-7.2 with the aligned body, which wins
/// again from about 600 B (`docs/perf/csum.md`, session 14).
pub(super) const MID_MAX: usize = 512;

/// Raw sum of `64 < data.len() <= MID_MAX` bytes in the data's own grid: its
/// full vectors, then its last 64 bytes with the bytes already summed masked
/// off ([`tail_in_body_grid`]); no aligned head, one accumulator.
/// Why: for a few vectors the aligned head's masked load, the accumulator
/// pairs and the piece loop cost more than unaligned loads do.
/// Bound: at most five half-folded vectors, `< 2^36` per lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
fn sum_mid(data: &[u8]) -> u64 {
    let mut acc = _mm512_setzero_si512();
    let mut vecs = data.chunks_exact(V);
    for c in &mut vecs {
        acc = _mm512_add_epi64(acc, half_fold(load(arr(c))));
    }
    let t = vecs.remainder().len();
    if let (true, Some(last)) = (t > 0, data.last_chunk::<V>()) {
        acc = _mm512_add_epi64(acc, half_fold(tail_in_body_grid(load(last), t)));
    }
    _mm512_reduce_add_epi64(acc) as u64
}

/// The whole-slice sum of one accumulator scheme: the head up to a 64-byte
/// boundary loaded in the body's word grid ([`load_head_in_line`]), the body
/// in pieces, the sum rotated back into the data's grid.
macro_rules! whole_slice_sum {
    ($(#[$doc:meta])* $name:ident, $features:literal, $sum_piece:ident, $piece:expr) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(data: &[u8]) -> u64 {
            // Callers send slices this short to `sum_small` (`arch::sum_at`,
            // `partial`); should one come here, the same short sum.
            if data.len() <= V {
                return super::sum_small(data, 0);
            }
            if data.len() <= MID_MAX {
                return sum_mid(data);
            }
            let (h, head) = load_head_in_line(data);
            // The head joins the first piece; each later piece adds to the
            // folded sum so far (`< 2^32 + 2^61`, no overflow).
            let mut pieces = data.get(h..).unwrap_or(&[]).chunks($piece);
            let mut raw = $sum_piece(pieces.next().unwrap_or(&[]), head);
            for piece in pieces {
                raw = fold64(raw) as u64 + $sum_piece(piece, _mm512_setzero_si512());
            }
            fold64(raw).rotate_left(8 * (h & 3) as u32) as u64
        }
    };
}

whole_slice_sum!(
    /// Raw sum of any slice (invariant in `arch`'s module docs).
    ///
    /// # Safety
    /// The CPU must support AVX-512F, AVX-512BW and BMI2 and the OS must save opmask and ZMM state.
    sum,
    "avx512f,avx512bw,bmi2",
    sum_piece,
    PIECE
);

whole_slice_sum!(
    /// [`sum`] with the VNNI accumulators ([`Dp`]).
    ///
    /// # Safety
    /// The CPU must support AVX-512F, AVX-512BW, AVX-512 VNNI and BMI2 and the OS must
    /// save opmask and ZMM state.
    sum_vnni,
    "avx512f,avx512bw,avx512vnni,bmi2",
    sum_piece_dp,
    PIECE_DP
);

/// `v` unchanged, passed through an empty `asm!` block LLVM cannot see into.
/// Why: stores of the very vectors a loop loads are what LLVM's loop-idiom
/// pass turns into a `memcpy` call, leaving a second pass that only sums;
/// it did so to these copies after unrelated changes elsewhere in the crate
/// (1500 B 1.3-1.4x the time, `docs/perf/csum.md`, session 12).
#[inline]
#[target_feature(enable = "avx512f")]
fn opaque(mut v: __m512i) -> __m512i {
    // SAFETY: the template is a comment: no instruction, no memory access,
    // no flags; `v` stays in its register.
    unsafe {
        core::arch::asm!(
            "/* {v} */",
            v = inout(zmm_reg) v,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    v
}

/// Loads `N` vectors from vector `k` of `s` on, then stores them from vector
/// `k` of `d` on; returns them.
///
/// # Safety
/// Vectors `k..k + N` (bytes `64k..64(k + N)`) must lie inside both buffers,
/// and the CPU must support AVX-512F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn copy_vecs<const N: usize>(s: *const u8, d: *mut u8, k: usize) -> [__m512i; N] {
    // SAFETY: the caller guarantees those bytes of both buffers exist;
    // `loadu`/`storeu` need no alignment.
    unsafe {
        let vs: [__m512i; N] =
            core::array::from_fn(|i| opaque(_mm512_loadu_si512(s.add(V * (k + i)).cast())));
        for (i, v) in vs.iter().enumerate() {
            _mm512_storeu_si512(d.add(V * (k + i)).cast(), *v);
        }
        vs
    }
}

/// The copies whose body is aligned to the source, for one accumulator
/// scheme `$acc` ([`Acc`] or [`Dp`]) under `$features`: `$body` copies and
/// sums whole vectors (eight a round first where `$eight`), `$from_aligned`
/// takes a source on a 64-byte boundary, `$name` any source (the shape:
/// [`copy_source_aligned`]).
macro_rules! source_aligned_copies {
    (
        $features:literal, $acc:ident, $eight:literal, $body:ident, $from_aligned:ident,
        $(#[$doc:meta])* $name:ident
    ) => {
        /// Copies and sums the `n` whole vectors from `s` to `d`, plus the
        /// vectors `extra` and `extra2`: four vectors per round (with
        /// `$eight`, eight per round and then four once), then two, then one.
        /// Why pointers and a count, not slices: the slices' empty-range
        /// fallbacks put selects in front of the first loads' addresses, and
        /// the copy took 5-10% longer at 1500 B (`docs/perf/csum.md`,
        /// "Session 11").
        ///
        /// # Safety
        /// The `64n` bytes from `s` and from `d` must lie inside their
        /// buffers, `n + 2` must be within the accumulators' bound (at most
        /// `PIECE / V` for [`Acc`], 256 for [`Dp`]), and the CPU must support
        /// `$features`.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn $body(
            s: *const u8,
            d: *mut u8,
            n: usize,
            extra: __m512i,
            extra2: __m512i,
        ) -> u64 {
            let mut acc = $acc::new();
            acc.add::<1>(extra);
            acc.add::<0>(extra2);
            let mut k = 0;
            while $eight && k + 8 <= n {
                // SAFETY: vectors `k..k + 8` are among the `n` (the caller's bound).
                let [v0, v1, v2, v3, v4, v5, v6, v7] = unsafe { copy_vecs::<8>(s, d, k) };
                acc.add::<0>(v0);
                acc.add::<1>(v1);
                acc.add::<2>(v2);
                acc.add::<3>(v3);
                acc.add::<0>(v4);
                acc.add::<1>(v5);
                acc.add::<2>(v6);
                acc.add::<3>(v7);
                k += 8;
            }
            while k + 4 <= n {
                // SAFETY: vectors `k..k + 4` are among the `n` (the caller's bound).
                let [v0, v1, v2, v3] = unsafe { copy_vecs::<4>(s, d, k) };
                acc.add::<0>(v0);
                acc.add::<1>(v1);
                acc.add::<2>(v2);
                acc.add::<3>(v3);
                k += 4;
                if $eight {
                    break;
                }
            }
            if k + 2 <= n {
                // SAFETY: vectors `k` and `k + 1` are among the `n`.
                let [v0, v1] = unsafe { copy_vecs::<2>(s, d, k) };
                acc.add::<2>(v0);
                acc.add::<3>(v1);
                k += 2;
            }
            if k < n {
                // SAFETY: vector `k` is among the `n`.
                let [v] = unsafe { copy_vecs::<1>(s, d, k) };
                acc.add::<0>(v);
            }
            acc.reduce()
        }

        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(src: &[u8], dst: &mut [u8]) -> u64 {
            let len = src.len().min(dst.len());
            if len < V {
                return super::copy_short(src, dst);
            }
            if src.as_ptr() as usize & (V - 1) == 0 {
                // SAFETY: `64 <= len`, the shorter slice's length; the features are enabled here.
                return unsafe { $from_aligned(src, dst, len) };
            }
            let (h, head) = load_head_in_line(src);
            let end = h + ((len - h) & !(V - 1));
            // The tail starts on a 64-byte boundary of the source: its own line.
            let tail = load_prefix(src.get(end..len).unwrap_or(&[]));
            // SAFETY: the body's `(end - h) / 64` vectors from byte `h` end at
            // `end <= len` in both slices (at most `SOURCE_ALIGNED_MAX / 64`,
            // within either bound); the features are enabled here.
            let body = unsafe {
                $body(
                    src.as_ptr().add(h),
                    dst.as_mut_ptr().add(h),
                    (end - h) / V,
                    head,
                    tail,
                )
            };
            // After the body: copied before it, the slice's last 64 bytes went
            // first, and `tx::segment` of 64 KiB (buffers in L2) took 5% longer.
            copy_first_last(src, dst);
            fold64(body).rotate_left(8 * (h & 3) as u32) as u64
        }

        /// The copy of a source on a 64-byte boundary: the whole vectors,
        /// then the last 64 bytes, which also give the tail's sum.
        /// Why: the head's masked load (all lanes off here) and the tail's
        /// own load cost 1500 B 1-11% at the bench's aligned pairs, 200 and
        /// 600 B 11-12%.
        ///
        /// # Safety
        /// `64 <= len <= SOURCE_ALIGNED_MAX`, both slices are at least `len`
        /// bytes long, and the CPU must support `$features`.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn $from_aligned(src: &[u8], dst: &mut [u8], len: usize) -> u64 {
            let n = len / V;
            let t = len - n * V;
            // SAFETY: `len >= 64`: the last 64 bytes lie inside both slices.
            let tv = unsafe { _mm512_loadu_si512(src.as_ptr().add(len - V).cast()) };
            let tail = tail_in_body_grid(tv, t);
            // SAFETY: the `n` vectors end at `64n <= len` in both slices.
            let body = unsafe {
                $body(
                    src.as_ptr(),
                    dst.as_mut_ptr(),
                    n,
                    _mm512_setzero_si512(),
                    tail,
                )
            };
            // SAFETY: as for the load above.
            unsafe { _mm512_storeu_si512(dst.as_mut_ptr().add(len - V).cast(), tv) };
            fold64(body) as u64
        }
    };
}

/// The longest copy [`crate::csum::partial_copy`] runs with its body aligned
/// to the source ([`copy_source_aligned`]: aligned loads, stores split
/// across lines); longer ones align it to the destination ([`copy`]).
/// Why: while both buffers sit in L1 a split store costs less than a split
/// load (1500 B at unequal offsets 26.5-27.7 -> 24.4-25.1 ns on an Intel
/// Xeon); once the stores go out to L2 it costs more (4 KiB 57 -> 59-66 ns,
/// 64 KiB 1.05-1.09x -> 1.19-1.25x memcpy). `docs/perf/csum.md`.
pub(super) const SOURCE_ALIGNED_MAX: usize = 3072;

/// Loads the first and the last 64 bytes of `src` (at least 64 bytes long)
/// and stores them over the first and the last 64 bytes of `dst`.
/// Why: the head and the tail of a copy as plain vectors that overlap its
/// body: no masked store (slow on some cores, and on an Intel Xeon one whose
/// masked-off bytes reach an unmapped page costs 80-100 ns more).
#[inline]
#[target_feature(enable = "avx512f")]
fn copy_first_last(src: &[u8], dst: &mut [u8]) -> (__m512i, __m512i) {
    let len = src.len().min(dst.len());
    if len < V {
        return (_mm512_setzero_si512(), _mm512_setzero_si512());
    }
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    // SAFETY: bytes `0..64` and `len - 64..len` lie inside both slices
    // (`len >= 64`); `loadu`/`storeu` need no alignment; AVX-512F is enabled.
    unsafe {
        let (hv, tv) = (
            _mm512_loadu_si512(s.cast()),
            _mm512_loadu_si512(s.add(len - V).cast()),
        );
        _mm512_storeu_si512(d.cast(), hv);
        _mm512_storeu_si512(d.add(len - V).cast(), tv);
        (hv, tv)
    }
}

source_aligned_copies!(
    "avx512f,avx512bw,bmi2",
    Acc,
    false,
    copy_body,
    copy_from_aligned,
    /// Copies `src` into `dst` (equal lengths, at most [`SOURCE_ALIGNED_MAX`]
    /// bytes) and returns the raw sum, the body on full vectors aligned to the
    /// source.
    ///
    /// Shape for `len >= 64`: the first and the last 64 bytes copied by
    /// [`copy_first_last`]; the body from the source's first 64-byte boundary.
    /// The bytes the body does not cover are summed from masked loads of their
    /// own source lines, already in the body's word grid, as `sum`'s head and
    /// tail are; the single reduced sum is rotated back as in `sum`.
    /// Why: no rotation into the grid and no register masking; 1500 B 0.1-1.9
    /// ns faster than [`copy`]'s shape at every offset pair of the bench
    /// (`docs/perf/csum.md`). A source on a 64-byte boundary has no head.
    ///
    /// # Safety
    /// The CPU must support AVX-512F, AVX-512BW and BMI2 and the OS must save opmask and ZMM state.
    copy_source_aligned
);

source_aligned_copies!(
    "avx512f,avx512bw,avx512vnni,bmi2",
    Dp,
    true,
    copy_body_dp,
    copy_from_aligned_dp,
    /// [`copy_source_aligned`] with the VNNI accumulators ([`Dp`]): two
    /// vector operations per 64 bytes instead of three.
    /// Why: from [`DP_FROM`] bytes it copied 0.1-0.9 ns faster at 1024 B,
    /// 0.4-1.8 at 1500, 1.7-4.4 at 3072 on an Intel Xeon; below, slower
    /// (`docs/perf/csum.md`, session 26). Eight vectors a round: with four,
    /// a 1500 B copy at offsets 1/0 took about 17.1 or 18.3 ns depending on
    /// the process's code and address placement; with eight, the fast time
    /// in 15 of 15 processes (session 28).
    ///
    /// # Safety
    /// As [`copy_source_aligned`], and the CPU must support AVX-512 VNNI.
    copy_source_aligned_vnni
);

/// Copies `src` into `dst` (equal lengths, any) and returns the raw sum, the
/// body on full vectors aligned to the destination.
///
/// Shape for `len >= 64`: the first and the last 64 bytes copied by
/// [`copy_first_last`]; the body from byte `h` in `1..=64`, the
/// destination's first 64-byte boundary after byte 0. The bytes the body
/// does not cover are summed from those two vectors (zero-masked in
/// registers), each rotated from its own word grid into the body's.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512BW and BMI2 and the OS must save opmask and ZMM state.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(super) unsafe fn copy(src: &[u8], dst: &mut [u8]) -> u64 {
    let len = src.len().min(dst.len());
    if len < V {
        return super::copy_short(src, dst);
    }
    let (hv, tv) = copy_first_last(src, dst);
    let h = V - (dst.as_ptr() as usize & (V - 1));
    let body_len = (len - h) & !(V - 1);
    let t = len - h - body_len;
    // Head bytes [0, h) in the data's grid, moved into the body's grid.
    let mut extra = to_body_grid(_mm512_maskz_mov_epi8(mask(h), hv), h);
    let mut tail = tail_in_body_grid(tv, t);
    let mut body_sum = 0u64;
    let mut at = h;
    loop {
        let n = (h + body_len - at).min(PIECE);
        // SAFETY: the piece `at..at + n` lies inside the body `h..h + body_len`,
        // which ends at `len - t <= len` in both slices; the features are
        // enabled here.
        let piece = unsafe {
            copy_body(
                src.as_ptr().add(at),
                dst.as_mut_ptr().add(at),
                n / V,
                extra,
                tail,
            )
        };
        body_sum = fold64(body_sum + piece) as u64;
        extra = _mm512_setzero_si512();
        tail = extra;
        at += n;
        if at == h + body_len {
            break;
        }
    }
    fold64(body_sum).rotate_left(8 * (h & 3) as u32) as u64
}

/// Slices [`sum_group`] sums side by side.
pub(super) const GROUP: usize = 8;

/// Raw sums of [`GROUP`] slices read side by side: vector `j` of every slice
/// before vector `j + 1` of any (the multi-buffer shape of ISA-L's hashes),
/// with the VNNI accumulators ([`Dp`], one `b` and one `t` per slice).
/// Why: frames one per 4 KiB page come from L3 about a fifth faster when
/// the hardware streams eight pages at once than one after another
/// (`docs/perf/gro-hot-path.md`, session 22).
/// Shape: the whole vectors all slices have (at most [`PIECE_DP`] bytes'
/// worth, the bound of `Dp`'s carries), then each slice's tail below a
/// vector as a masked load in the same accumulators; a longer rest (slices
/// of unequal lengths) by [`sum_vnni`]. Every load starts at a multiple of
/// 64 bytes from its slice's start, so no grid changes.
///
/// # Safety
/// As [`sum_vnni`].
#[target_feature(enable = "avx512f,avx512bw,avx512vnni,bmi2")]
pub(super) unsafe fn sum_group(data: &[&[u8]; GROUP]) -> [u64; GROUP] {
    let z = _mm512_setzero_si512();
    let w = _mm512_set1_epi32(1 << 24);
    let (mut b, mut t) = ([z; GROUP], [_mm512_set1_epi32(T_BIAS); GROUP]);
    let common = data
        .iter()
        .fold(PIECE_DP / V - 1, |n, d| n.min(d.len() / V));
    let starts = data.map(|d| d.as_ptr());
    for j in 0..common {
        for g in 0..GROUP {
            // SAFETY: `j < common <= data[g].len() / 64`, so the 64 bytes at
            // `64·j` lie inside `data[g]`; `loadu` needs no alignment.
            let v = unsafe { _mm512_loadu_si512(starts[g].add(j * V).cast()) };
            b[g] = _mm512_add_epi32(b[g], v);
            t[g] = _mm512_dpbusd_epi32(t[g], v, w);
        }
    }
    let mut out = [0u64; GROUP];
    for g in 0..GROUP {
        let rest = data[g].get(common * V..).unwrap_or(&[]);
        if rest.len() < V {
            let v = load_prefix(rest);
            b[g] = _mm512_add_epi32(b[g], v);
            t[g] = _mm512_dpbusd_epi32(t[g], v, w);
        } else {
            // SAFETY: as this function's.
            out[g] = unsafe { sum_vnni(rest) };
        }
    }
    for g in 0..GROUP {
        let acc = Dp {
            b: b[g],
            t: [t[g], z, z, z],
        };
        // Both parts keep the raw-sum invariant; their sum stays below 2^34.
        out[g] += fold64(acc.reduce()) as u64;
    }
    out
}
