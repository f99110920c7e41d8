//! Every sum kernel against the scalar reference: all lengths 0..=4096 at all
//! start offsets 0..=63 with random initial sums, identical `Wsum` required
//! (not only the same folded checksum); fused copy+sum copies exactly and
//! touches nothing outside the destination; proptest for longer inputs.

use netoffload::csum::{self, Level, Wsum};
use proptest::prelude::*;

/// splitmix64: a small deterministic generator for buffers and initial sums.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
    /// Initial sums biased towards the corners (0, all ones, near-overflow).
    fn init(&mut self) -> Wsum {
        let r = self.next();
        Wsum::new(match r % 8 {
            0 => 0,
            1 => u32::MAX,
            2 => u32::MAX - (r >> 40) as u32 % 16,
            _ => (r >> 32) as u32,
        })
    }
}

fn simd_levels() -> Vec<Level> {
    let best = csum::detected_level();
    let levels: Vec<Level> = Level::ALL
        .into_iter()
        .filter(|l| *l != Level::Scalar && *l <= best)
        .collect();
    eprintln!("detected {best:?}; checking {levels:?} against scalar");
    levels
}

fn sweep(buf: &[u8], max_len: usize, seed: u64) {
    let levels = simd_levels();
    let mut rng = Rng(seed);
    for off in 0..64 {
        for len in 0..=max_len {
            let data = &buf[off..off + len];
            let init = rng.init();
            let want = csum::partial_at(Level::Scalar, data, init).unwrap();
            for &l in &levels {
                let got = csum::partial_at(l, data, init).unwrap();
                assert_eq!(got, want, "{l:?} off {off} len {len} init {init:?}");
            }
        }
    }
}

#[test]
fn every_level_equals_scalar_random_bytes() {
    let mut rng = Rng(1);
    let buf = rng.bytes(4096 + 64);
    sweep(&buf, 4096, 2);
}

#[test]
fn every_level_equals_scalar_all_ones_and_zeros() {
    // All-ones words sum to 0 mod 2^32-1 (the -0 representative) and all-zero
    // data to +0: the two places a lazy final reduction goes wrong.
    sweep(&[0xFF; 1024 + 64], 1024, 3);
    sweep(&[0x00; 1024 + 64], 1024, 4);
    let mut mixed = vec![0xFFu8; 1024 + 64];
    for (i, b) in mixed.iter_mut().enumerate() {
        if i % 97 == 5 {
            *b = 0xFE;
        }
    }
    sweep(&mixed, 1024, 5);
}

#[test]
fn scalar_matches_a_naive_u16_sum() {
    // An independent oracle for the reference itself: 16-bit LE words summed
    // in a u64 and folded, compared after `fold`.
    let mut rng = Rng(6);
    let buf = rng.bytes(3000);
    for off in 0..8 {
        for len in 0..2000 {
            let data = &buf[off..off + len];
            let init = rng.init();
            let mut s = init.get() as u64;
            for c in data.chunks(2) {
                s += u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u64;
            }
            while s >> 16 != 0 {
                s = (s & 0xFFFF) + (s >> 16);
            }
            let got = csum::partial_at(Level::Scalar, data, init).unwrap();
            assert_eq!(csum::fold(got).raw(), !(s as u16), "off {off} len {len}");
        }
    }
}

#[test]
fn partial_copy_copies_exactly_and_sums_like_scalar() {
    type Copy = Box<dyn Fn(&[u8], &mut [u8], Wsum) -> Wsum>;
    let mut rng = Rng(7);
    let src_buf = rng.bytes(4096 + 64);
    let mut levels = simd_levels();
    levels.insert(0, Level::Scalar);
    // `partial_copy_at` at every level, then `partial_copy_to_cold` (the
    // active level with the body aligned to the destination).
    let mut copies: Vec<(String, Copy)> = levels
        .into_iter()
        .map(|l| {
            let copy: Copy = Box::new(move |s, d, i| csum::partial_copy_at(l, s, d, i).unwrap());
            (format!("{l:?}"), copy)
        })
        .collect();
    copies.push(("to_cold".into(), Box::new(csum::partial_copy_to_cold)));
    let mut dst_buf = vec![0u8; 4096 + 64 + 128];
    for off in 0..64 {
        let doff = 64 + (off * 7) % 64;
        for len in 0..=4096 {
            let src = &src_buf[off..off + len];
            let init = rng.init();
            let want = csum::partial_at(Level::Scalar, src, init).unwrap();
            for (name, copy) in &copies {
                let fill = (len as u8) ^ 0x5A;
                dst_buf.fill(fill);
                let got = copy(src, &mut dst_buf[doff..doff + len], init);
                assert_eq!(got, want, "{name} off {off} len {len}");
                assert_eq!(
                    &dst_buf[doff..doff + len],
                    src,
                    "{name} copy off {off} len {len}"
                );
                assert!(
                    dst_buf[..doff].iter().all(|&b| b == fill)
                        && dst_buf[doff + len..].iter().all(|&b| b == fill),
                    "{name} wrote outside dst: off {off} len {len}"
                );
            }
        }
    }
}

/// The offset in `buf` of its first 4 KiB page boundary at least 128 bytes in.
fn page_boundary_in(buf: &[u8]) -> usize {
    let at = buf.as_ptr() as usize + 128;
    at.div_ceil(4096) * 4096 - buf.as_ptr() as usize
}

/// Fused copies of up to 128 bytes that start in the last 64 bytes before a
/// page boundary, source and destination alike (the short copies' page test
/// and both of its branches), copy exactly and sum like scalar.
#[test]
fn short_copies_near_page_ends_equal_scalar() {
    let mut rng = Rng(11);
    let src_buf = rng.bytes(3 * 4096);
    let mut dst_buf = vec![0u8; 3 * 4096];
    let (se, de) = (page_boundary_in(&src_buf), page_boundary_in(&dst_buf));
    let mut levels = simd_levels();
    levels.insert(0, Level::Scalar);
    for back in 0..=64 {
        for len in 0..=128 {
            let src = &src_buf[se - back..se - back + len];
            let init = rng.init();
            let want = csum::partial_at(Level::Scalar, src, init).unwrap();
            for &l in &levels {
                let dst = &mut dst_buf[de - 64 + back % 64..][..len];
                dst.fill(!0);
                let got = csum::partial_copy_at(l, src, dst, init).unwrap();
                assert_eq!(got, want, "{l:?} back {back} len {len}");
                assert_eq!(dst, src, "{l:?} copy back {back} len {len}");
            }
        }
    }
}

#[test]
#[should_panic(expected = "lengths differ")]
fn partial_copy_panics_on_length_mismatch() {
    let mut dst = [0u8; 3];
    let _ = csum::partial_copy(&[1, 2, 3, 4], &mut dst, Wsum::ZERO);
}

#[test]
fn forcing_levels_is_checked_and_dispatch_agrees() {
    let best = csum::detected_level();
    for l in Level::ALL {
        let r = csum::partial_at(l, &[1, 2, 3], Wsum::ZERO);
        assert_eq!(r.is_ok(), l <= best, "{l:?} vs detected {best:?}");
    }
    assert_eq!(csum::force_level(Level::Avx512), best);
    let data: Vec<u8> = (0..1500u32).map(|i| (i * 31 + 7) as u8).collect();
    let want = csum::partial_at(Level::Scalar, &data, Wsum::new(9)).unwrap();
    assert_eq!(csum::partial(&data, Wsum::new(9)), want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn long_inputs_every_level_equals_scalar(
        len in 4096usize..200_000,
        off in 0usize..64,
        seed in any::<u64>(),
        init in any::<u32>(),
    ) {
        let mut rng = Rng(seed);
        let buf = rng.bytes(len + off);
        let data = &buf[off..];
        let want = csum::partial_at(Level::Scalar, data, Wsum::new(init)).unwrap();
        let mut dst = vec![0u8; data.len()];
        for l in Level::ALL.into_iter().filter(|l| *l <= csum::detected_level()) {
            prop_assert_eq!(csum::partial_at(l, data, Wsum::new(init)).unwrap(), want);
            prop_assert_eq!(csum::partial_copy_at(l, data, &mut dst, Wsum::new(init)).unwrap(), want);
            prop_assert_eq!(&dst[..], data);
        }
    }

    #[test]
    fn sums_of_pieces_add_up(
        seed in any::<u64>(),
        len in 0usize..3000,
        cut in 0usize..3000,
    ) {
        // csum_block_add: a piece starting at an odd offset is byte-swapped.
        let mut rng = Rng(seed);
        let data = rng.bytes(len);
        let cut = cut.min(len);
        let (a, b) = data.split_at(cut);
        let whole = csum::partial(&data, Wsum::ZERO);
        let joined = csum::block_add(csum::partial(a, Wsum::ZERO), csum::partial(b, Wsum::ZERO), cut);
        prop_assert_eq!(csum::fold(joined), csum::fold(whole));
    }
}

/// Calls `check` with every slice of `rng`'s bytes and of all-ones bytes at
/// each of `offsets` and every length to `max`, and three `init`s each (zero,
/// all-ones, random); the last argument names the case.
fn each_slice_and_init(
    rng: &mut Rng,
    max: usize,
    offsets: impl IntoIterator<Item = usize> + Clone,
    mut check: impl FnMut(&[u8], Wsum, Case),
) {
    let buf = rng.bytes(max + 64);
    let ones = vec![0xFFu8; max + 64];
    for data_buf in [&buf[..], &ones[..]] {
        for off in offsets.clone() {
            for len in 0..=max {
                let data = &data_buf[off..off + len];
                for init in [Wsum::ZERO, Wsum::new(u32::MAX), rng.init()] {
                    check(data, init, Case { off, len, init });
                }
            }
        }
    }
}

/// Where a slice of [`each_slice_and_init`] starts, its length and `init`,
/// for assertion messages (formatted only when one fails).
struct Case {
    off: usize,
    len: usize,
    init: Wsum,
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "off {} len {} init {:?}", self.off, self.len, self.init)
    }
}

#[test]
fn dispatched_partial_equals_scalar_for_short_lengths() {
    // `partial` takes a carry-chain fast path for short data (with `init`
    // inside the chain): it must give the scalar level's `Wsum` bit for bit.
    each_slice_and_init(&mut Rng(11), 256, 0..64, |data, init, case| {
        let want = csum::partial_at(Level::Scalar, data, init).unwrap();
        assert_eq!(csum::partial(data, init), want, "{case}");
    });
}

#[test]
fn partial_cold_equals_partial() {
    // The same `Wsum` as `partial`, bit for bit, on both sides of the short
    // path and of the VNNI threshold, at offsets a frame's headers give.
    let offsets = [0, 1, 2, 3, 14, 34, 63];
    each_slice_and_init(&mut Rng(13), 2200, offsets, |data, init, case| {
        assert_eq!(
            csum::partial_cold(data, init),
            csum::partial(data, init),
            "{case}"
        );
    });
}

/// `partial_group` of eight slices against the scalar sum of each.
fn check_group(slices: [&[u8]; csum::GROUP], case: &str) {
    let got = csum::partial_group(&slices);
    for (k, s) in slices.iter().enumerate() {
        let want = csum::partial_at(Level::Scalar, s, Wsum::ZERO).unwrap();
        assert_eq!(got[k], want, "{case}: slice {k} of {} bytes", s.len());
    }
}

#[test]
fn partial_group_equals_scalar_for_each_slice() {
    // Every length 0..=1600 at every start offset, the eight slices at eight
    // offsets, of equal and of unequal lengths; then slices longer than the
    // group kernel's piece (its rest summed one by one); then all-zero and
    // all-ones bytes (the zero sum has one representation).
    const SPAN: usize = 70_000;
    let random = Rng(17).bytes(csum::GROUP * SPAN);
    let at = |buf: &'static [u8], k: usize, off: usize, len: usize| {
        let from = k * SPAN + off % 64;
        &buf[from..from + len]
    };
    let random: &'static [u8] = random.leak();
    for len in 0..=1600 {
        for off in 0..64 {
            check_group(
                core::array::from_fn(|k| at(random, k, off + 7 * k, len)),
                &format!("equal len {len} off {off}"),
            );
            let unequal = |k: usize| (len + 61 * k) % 1601;
            check_group(
                core::array::from_fn(|k| at(random, k, off + 5 * k, unequal(k))),
                &format!("unequal from len {len} off {off}"),
            );
        }
    }
    for len in [15_807, 15_808, 15_809, 15_872, 15_873, 20_000, 65_536] {
        for off in [0, 1, 14] {
            check_group(
                core::array::from_fn(|k| at(random, k, off + k, len)),
                &format!("long {len} off {off}"),
            );
            check_group(
                core::array::from_fn(|k| at(random, k, off, len - 1000 * k)),
                &format!("long unequal {len} off {off}"),
            );
        }
    }
    for byte in [0x00, 0xFF] {
        let flat: &'static [u8] = vec![byte; csum::GROUP * SPAN].leak();
        for len in [0, 1, 63, 64, 65, 1500, 4096] {
            check_group(
                core::array::from_fn(|k| at(flat, k, k, len)),
                &format!("bytes {byte:#x} len {len}"),
            );
        }
    }
}
