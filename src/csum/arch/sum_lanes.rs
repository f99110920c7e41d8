//! One template for the lane-accumulator kernels (SSE2, AVX2): the same
//! algorithm at two vector widths, written once.
//!
//! Each `V`-byte load `v` (u64 lanes, each the two LE u32 words `lo`, `hi`)
//! goes into two u64 lane accumulators: `b += v` (wrapping) and `a += v >> 32`.
//! Carry bound: a piece has at most `2^25` loads per accumulator pair, so the
//! exact lane sums `Σlo` and `Σhi = a` stay below `2^57`; since
//! `b = Σlo + 2^32·Σhi (mod 2^64)`, `b - (a << 32) (mod 2^64)` is `Σlo` exactly.
//! The lane value `Σlo + Σhi` is then the u32 word sum modulo `2^32 - 1`.

/// Expands to the kernels `sum` and `copy` (and their helpers) for one vector
/// type: `$feature` the `target_feature`, `$vec` the vector type, `$width` its
/// bytes, then the u64-lane intrinsics it needs and its `asm!` register class.
macro_rules! lane_kernels {
    (
        $feature:literal, $vec:ty, $width:literal,
        add: $add:ident, and: $and:ident, loadu: $loadu:ident, set1: $set1:ident,
        setzero: $setzero:ident, slli: $slli:ident, srli: $srli:ident,
        storeu: $storeu:ident, sub: $sub:ident, reg: $reg:ident
    ) => {
        use crate::csum::scalar::{self, fold64};

        /// Vector width in bytes.
        const V: usize = $width;

        /// Largest piece summed before reducing (a multiple of 128; keeps the bound above).
        const PIECE: usize = 1 << 30;

        /// Accumulators: two pairs so consecutive loads do not wait on one add chain.
        #[derive(Clone, Copy)]
        struct Acc {
            b0: $vec,
            a0: $vec,
            b1: $vec,
            a1: $vec,
        }

        #[inline]
        #[target_feature(enable = $feature)]
        fn acc_new() -> Acc {
            let z = $setzero();
            Acc {
                b0: z,
                a0: z,
                b1: z,
                a1: z,
            }
        }

        /// Loads one vector.
        #[inline]
        #[target_feature(enable = $feature)]
        fn load(c: &[u8; V]) -> $vec {
            // SAFETY: `c` is V readable bytes; `loadu` has no alignment requirement.
            unsafe { $loadu(c.as_ptr().cast()) }
        }

        /// Stores one vector.
        #[inline]
        #[target_feature(enable = $feature)]
        fn store(d: &mut [u8; V], v: $vec) {
            // SAFETY: `d` is V writable bytes; `storeu` has no alignment requirement.
            unsafe { $storeu(d.as_mut_ptr().cast(), v) }
        }

        /// `v` unchanged, through an empty `asm!` block LLVM cannot see into
        /// (why: `sum_avx512::opaque`; here LLVM had turned the copy's last
        /// vectors into a `memcpy` call and a second pass).
        #[inline]
        #[target_feature(enable = $feature)]
        fn opaque(mut v: $vec) -> $vec {
            // SAFETY: the template is a comment: no instruction, no memory
            // access, no flags; `v` stays in its register.
            unsafe {
                core::arch::asm!(
                    "/* {v} */",
                    v = inout($reg) v,
                    options(pure, nomem, nostack, preserves_flags)
                )
            };
            v
        }

        /// `(x & 0xFFFF_FFFF) + (x >> 32)` per lane: `< 2^33`, zero only for zero.
        #[inline]
        #[target_feature(enable = $feature)]
        fn half_fold(x: $vec) -> $vec {
            let m = $set1(0xFFFF_FFFF);
            $add($and(x, m), $srli::<32>(x))
        }

        /// Reduces the lanes to a raw sum: `Σlo` per lane is `b - (a << 32)`, and the
        /// four half-folded vectors add to `< 2^35` per lane (`< 2^37` over the lanes);
        /// zero only if every lane sum is zero.
        #[inline]
        #[target_feature(enable = $feature)]
        fn reduce(acc: Acc) -> u64 {
            let lo0 = $sub(acc.b0, $slli::<32>(acc.a0));
            let lo1 = $sub(acc.b1, $slli::<32>(acc.a1));
            let s = $add(
                $add(half_fold(lo0), half_fold(acc.a0)),
                $add(half_fold(lo1), half_fold(acc.a1)),
            );
            lane_total(s)
        }

        /// The sum of a vector's u64 lanes (their total must fit in a u64).
        #[inline]
        #[target_feature(enable = $feature)]
        fn lane_total(v: $vec) -> u64 {
            let mut lanes = [0u8; V];
            store(&mut lanes, v);
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
        #[target_feature(enable = $feature)]
        fn add(b: &mut $vec, a: &mut $vec, v: $vec) {
            *b = $add(*b, v);
            *a = $add(*a, $srli::<32>(v));
        }

        /// Raw sum of a piece whose length is a multiple of V and at most [`PIECE`].
        #[inline]
        #[target_feature(enable = $feature)]
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

        /// Longest slice [`sum_mid`] sums: sixteen vectors (SSE2 256 B, AVX2
        /// 512 B; measured, longer ones gain nothing or lose).
        const MID_MAX: usize = 16 * V;

        /// Raw sum of at most [`MID_MAX`] bytes: each vector half-folded into
        /// one accumulator (`< 2^37` per lane), the `< V`-byte tail as words.
        /// Why: below a few hundred bytes the accumulator pairs, the block loop
        /// and their reduction cost more than they save (AVX2 129-400 B
        /// 0.6-1.0 ns, about 10%; `docs/perf/csum.md`, session 14).
        #[inline]
        #[target_feature(enable = $feature)]
        fn sum_mid(data: &[u8]) -> u64 {
            let mut acc = $setzero();
            let mut vecs = data.chunks_exact(V);
            for c in &mut vecs {
                acc = $add(acc, half_fold(load(arr(c))));
            }
            lane_total(acc) + scalar::sum_short(vecs.remainder())
        }

        /// Raw sum of any slice (invariant in `arch`'s module docs).
        ///
        /// # Safety
        /// The CPU must support the kernel's target feature and the OS must save its vector state.
        #[target_feature(enable = $feature)]
        pub(super) unsafe fn sum(data: &[u8]) -> u64 {
            if data.len() <= MID_MAX {
                return sum_mid(data);
            }
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
        #[target_feature(enable = $feature)]
        fn copy_piece(src: &[u8], dst: &mut [u8]) -> u64 {
            let mut acc = acc_new();
            let mut s = src.chunks_exact(4 * V);
            let mut d = dst.chunks_exact_mut(4 * V);
            for (sb, db) in (&mut s).zip(&mut d) {
                let (v0, v1) = (opaque(load(arr(&sb[..V]))), opaque(load(arr(&sb[V..2 * V]))));
                let (v2, v3) = (opaque(load(arr(&sb[2 * V..3 * V]))), opaque(load(arr(&sb[3 * V..]))));
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
                let v = opaque(load(arr(sc)));
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
        /// The CPU must support the kernel's target feature and the OS must save its vector state.
        #[target_feature(enable = $feature)]
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
            total + super::copy_short(s, d)
        }
    };
}

pub(super) use lane_kernels;
