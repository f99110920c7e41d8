//! CRC32c: RFC 3720 B.4 vectors at every level, every level against the table
//! kernel for all lengths 0..=4096 at all offsets 0..=63, the table kernel
//! against a bit-serial oracle, peers (`crc32c`, `crc-fast`) on random data,
//! append and combine laws.

use netoffload::csum::{self, CrcLevel};
use proptest::prelude::*;

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
}

fn levels() -> Vec<CrcLevel> {
    let best = csum::detected_crc_level();
    CrcLevel::ALL.into_iter().filter(|l| *l <= best).collect()
}

/// Bit-serial CRC-32C straight from the definition (reflected, poly 0x82F63B78).
fn bitwise(crc: u32, data: &[u8]) -> u32 {
    let mut r = !crc;
    for &b in data {
        r ^= b as u32;
        for _ in 0..8 {
            r = if r & 1 == 1 {
                (r >> 1) ^ 0x82F6_3B78
            } else {
                r >> 1
            };
        }
    }
    !r
}

#[test]
fn rfc3720_b4_vectors_at_every_level() {
    let inc: Vec<u8> = (0u8..32).collect();
    let dec: Vec<u8> = (0u8..32).rev().collect();
    let pdu: [u8; 48] = [
        0x01, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x14, 0, 0, 0, 0, 0, 0x04, 0, 0, 0,
        0, 0x14, 0, 0, 0, 0x18, 0x28, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0,
    ];
    let cases: [(&[u8], u32); 6] = [
        (&[0u8; 32], 0x8A91_36AA),
        (&[0xFFu8; 32], 0x62A8_AB43),
        (&inc, 0x46DD_794E),
        (&dec, 0x113F_DB5C),
        (&pdu, 0xD996_3A56),
        (b"123456789", 0xE306_9283),
    ];
    for l in levels() {
        for (data, want) in cases {
            assert_eq!(csum::crc32c_append_at(l, 0, data).unwrap(), want, "{l:?}");
        }
        assert_eq!(csum::crc32c_append_at(l, 0, &[]).unwrap(), 0);
    }
    for (data, want) in cases {
        assert_eq!(csum::crc32c(data), want);
        assert_eq!(csum::crc32c(data).to_le_bytes(), want.to_le_bytes());
    }
    // SCTP common header example from the reference notes.
    let sctp = [0x13, 0x88, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0];
    assert_eq!(csum::crc32c(&sctp).to_le_bytes(), [0xf7, 0x89, 0xb2, 0xc3]);
}

#[test]
fn residue_of_data_and_its_crc() {
    let mut rng = Rng(11);
    for len in [0usize, 1, 7, 64, 1500, 9000] {
        let mut d = rng.bytes(len);
        let c = csum::crc32c(&d);
        d.extend_from_slice(&c.to_le_bytes());
        assert_eq!(csum::crc32c(&d), 0x4867_4BC7, "len {len}");
    }
}

#[test]
fn table_kernel_equals_bitwise_oracle() {
    let mut rng = Rng(12);
    let buf = rng.bytes(1100);
    for off in 0..16 {
        for len in 0..1024 {
            let init = rng.next() as u32;
            let d = &buf[off..off + len];
            assert_eq!(
                csum::crc32c_append_at(CrcLevel::Table, init, d).unwrap(),
                bitwise(init, d),
                "off {off} len {len}"
            );
        }
    }
}

#[test]
fn every_level_equals_table_all_lengths_all_offsets() {
    let ls: Vec<CrcLevel> = levels()
        .into_iter()
        .filter(|l| *l != CrcLevel::Table)
        .collect();
    eprintln!("checking {ls:?} against the table kernel");
    let mut rng = Rng(13);
    let buf = rng.bytes(4096 + 64);
    for off in 0..64 {
        for len in 0..=4096 {
            let init = rng.next() as u32;
            let d = &buf[off..off + len];
            let want = csum::crc32c_append_at(CrcLevel::Table, init, d).unwrap();
            for &l in &ls {
                assert_eq!(
                    csum::crc32c_append_at(l, init, d).unwrap(),
                    want,
                    "{l:?} off {off} len {len}"
                );
            }
        }
    }
}

#[test]
fn unsupported_levels_are_refused() {
    let best = csum::detected_crc_level();
    for l in CrcLevel::ALL {
        assert_eq!(csum::crc32c_append_at(l, 0, b"x").is_ok(), l <= best);
    }
    assert_eq!(csum::force_crc_level(CrcLevel::Vpclmul), best);
}

#[test]
fn combine_of_known_vectors() {
    let a = b"12345";
    let b = b"6789";
    let combined = csum::crc32c_combine(csum::crc32c(a), csum::crc32c(b), b.len() as u64);
    assert_eq!(combined, 0xE306_9283);
    assert_eq!(csum::crc32c_combine(0x1234_5678, 0, 0), 0x1234_5678);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn peers_agree_on_random_data(seed in any::<u64>(), len in 0usize..70_000, off in 0usize..64) {
        let mut rng = Rng(seed);
        let buf = rng.bytes(len + off);
        let d = &buf[off..];
        let ours = csum::crc32c(d);
        prop_assert_eq!(ours, crc32c::crc32c(d));
        prop_assert_eq!(ours as u64, crc_fast::checksum(crc_fast::CrcAlgorithm::Crc32Iscsi, d));
        for l in levels() {
            prop_assert_eq!(csum::crc32c_append_at(l, 0, d).unwrap(), ours);
        }
    }

    #[test]
    fn append_and_combine_laws(seed in any::<u64>(), la in 0usize..20_000, lb in 0usize..20_000) {
        let mut rng = Rng(seed);
        let a = rng.bytes(la);
        let b = rng.bytes(lb);
        let whole: Vec<u8> = a.iter().chain(b.iter()).copied().collect();
        let ca = csum::crc32c(&a);
        let cb = csum::crc32c(&b);
        prop_assert_eq!(csum::crc32c_append(ca, &b), csum::crc32c(&whole));
        prop_assert_eq!(csum::crc32c_combine(ca, cb, lb as u64), csum::crc32c(&whole));
        prop_assert_eq!(
            csum::crc32c_combine(ca, cb, lb as u64),
            crc32c::crc32c_combine(ca, cb, lb)
        );
    }

    #[test]
    fn combine_with_huge_lengths_matches_crc32c_crate(ca in any::<u32>(), cb in any::<u32>(), len in any::<u32>()) {
        prop_assert_eq!(
            csum::crc32c_combine(ca, cb, len as u64),
            crc32c::crc32c_combine(ca, cb, len as usize)
        );
    }
}

#[test]
fn every_level_equals_table_around_long_buffer_block_sizes() {
    // Lengths around the hybrid chunk (7520 B), two of them, and the
    // three-stream rounds (3072 B), so each join and each remainder is hit.
    let ls: Vec<CrcLevel> = levels()
        .into_iter()
        .filter(|l| *l != CrcLevel::Table)
        .collect();
    let mut rng = Rng(14);
    let buf = rng.bytes(40_000);
    let mut lens: Vec<usize> = (7420..7620).collect();
    lens.extend(14_940..15_140);
    lens.extend([
        3071,
        3072,
        3073,
        3072 * 3 + 383,
        3072 * 3 + 384,
        23_616,
        23_617,
        39_000,
    ]);
    for (i, len) in lens.into_iter().enumerate() {
        let off = i % 7;
        let d = &buf[off..off + len];
        let init = rng.next() as u32;
        let want = csum::crc32c_append_at(CrcLevel::Table, init, d).unwrap();
        for &l in &ls {
            assert_eq!(
                csum::crc32c_append_at(l, init, d).unwrap(),
                want,
                "{l:?} len {len}"
            );
        }
    }
}
