//! SIMD kernels against the scalar sum over every short length and every start
//! offset 0..=63; `ci/valgrind` runs this module under memcheck, so any read
//! outside the slice (a masked or overlapping load gone wrong) fails CI.
//!
//! Under valgrind the CPU reports no AVX-512 (valgrind does not emulate it), so
//! the AVX-512 kernel is covered natively by `csum_kernels`; here it runs when present.

use netoffload::csum::{self, CrcLevel, Level, Wsum};

/// A deterministic, non-trivial byte pattern.
fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(151) ^ (i >> 3)) as u8)
        .collect()
}

#[test]
fn every_level_matches_scalar_for_short_lengths_and_all_offsets() {
    let buf = pattern(1100 + 64);
    let mut dst = vec![0u8; buf.len()];
    let mut checked = 0usize;
    for level in Level::ALL {
        if csum::partial_at(level, &[], Wsum::ZERO).is_err() {
            continue;
        }
        for off in 0..64 {
            for len in 0..=1100 {
                let data = &buf[off..off + len];
                let init = Wsum::new((len as u32).wrapping_mul(0x9E37_79B9));
                let want = csum::partial_at(Level::Scalar, data, init).unwrap();
                let got = csum::partial_at(level, data, init).unwrap();
                assert_eq!(
                    csum::fold(got),
                    csum::fold(want),
                    "{level:?} off {off} len {len}"
                );
                let d = &mut dst[off..off + len];
                let copied = csum::partial_copy_at(level, data, d, init).unwrap();
                assert_eq!(
                    csum::fold(copied),
                    csum::fold(want),
                    "copy {level:?} off {off} len {len}"
                );
                assert_eq!(d, data);
                checked += 1;
            }
        }
    }
    assert!(checked >= 64 * 1101, "at least the scalar level ran");
}

#[test]
fn every_crc_level_matches_table_for_short_lengths_and_all_offsets() {
    let buf = pattern(1100 + 64);
    for level in CrcLevel::ALL {
        if csum::crc32c_append_at(level, 0, &[]).is_err() {
            continue;
        }
        for off in 0..64 {
            for len in (0..=1100).step_by(7) {
                let data = &buf[off..off + len];
                let want = csum::crc32c_append_at(CrcLevel::Table, 0, data).unwrap();
                assert_eq!(
                    csum::crc32c_append_at(level, 0, data).unwrap(),
                    want,
                    "{level:?} {off} {len}"
                );
            }
        }
    }
}
