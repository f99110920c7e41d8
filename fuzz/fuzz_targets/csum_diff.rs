//! Arbitrary buffer, offset, length and initial sum: `partial` and every SIMD
//! level equal the scalar `partial` after fold, `partial_copy` and `partial_copy_to_cold` equal
//! `partial` and copy exactly, every CRC32c level agrees, and `crc32c_append` / `crc32c_combine` hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netoffload::csum::{self, CrcLevel, Level, Wsum};

fuzz_target!(|input: &[u8]| {
    let [off, split, a, b, c, d, data @ ..] = input else {
        return;
    };
    let off = (*off as usize) % 64;
    let data = data.get(off.min(data.len())..).unwrap_or(&[]);
    let init = Wsum::new(u32::from_le_bytes([*a, *b, *c, *d]));

    let reference = csum::partial_at(Level::Scalar, data, init).expect("scalar always runs");
    // The active level through the public entry point (its own dispatch).
    assert_eq!(
        csum::fold(csum::partial(data, init)),
        csum::fold(reference),
        "partial"
    );
    let mut dst = vec![0u8; data.len()];
    let copied = csum::partial_copy(data, &mut dst, init);
    assert_eq!(csum::fold(copied), csum::fold(reference), "partial_copy");
    assert_eq!(&dst[..], data, "partial_copy copies exactly");
    dst.fill(0x5A);
    let copied = csum::partial_copy_to_cold(data, &mut dst, init);
    assert_eq!(csum::fold(copied), csum::fold(reference), "partial_copy_to_cold");
    assert_eq!(&dst[..], data, "partial_copy_to_cold copies exactly");
    for level in Level::ALL {
        let Ok(sum) = csum::partial_at(level, data, init) else {
            continue;
        };
        assert_eq!(csum::fold(sum), csum::fold(reference), "partial {level:?}");
        dst.fill(0x5A);
        let copied = csum::partial_copy_at(level, data, &mut dst, init).expect("same level");
        assert_eq!(
            csum::fold(copied),
            csum::fold(reference),
            "partial_copy {level:?}"
        );
        assert_eq!(&dst[..], data, "partial_copy {level:?} copies exactly");
    }

    let crc = csum::crc32c_append_at(CrcLevel::Table, 0, data).expect("table always runs");
    for level in CrcLevel::ALL {
        if let Ok(got) = csum::crc32c_append_at(level, 0, data) {
            assert_eq!(got, crc, "crc32c {level:?}");
        }
    }
    assert_eq!(csum::crc32c(data), crc);
    let k = if data.is_empty() {
        0
    } else {
        *split as usize % (data.len() + 1)
    };
    let (head, tail) = data.split_at(k);
    assert_eq!(csum::crc32c_append(csum::crc32c(head), tail), crc, "append");
    assert_eq!(
        csum::crc32c_combine(csum::crc32c(head), csum::crc32c(tail), tail.len() as u64),
        crc,
        "combine"
    );
});
