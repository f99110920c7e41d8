//! CRC32c: ours (auto-dispatched and each forced level) beside the `crc32c`
//! and `crc-fast` (CRC-32/ISCSI) crates on the same inputs in one run.
//!
//! Group ids are `crc32c_<size>_off<o>`; `ours_*` are ours, `peer_*` the crates.
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use netoffload::csum::{self, CrcLevel};

#[path = "support/interleave.rs"]
mod interleave;
use interleave::{Case, PageBuf};

const SIZES: [usize; 6] = [64, 576, 1500, 9000, 64 * 1024, 1024 * 1024];
const OFFSETS: [usize; 2] = [1, 3];

fn bench_crc(c: &mut Criterion) {
    let levels: Vec<CrcLevel> = CrcLevel::ALL
        .into_iter()
        .filter(|l| *l <= csum::detected_crc_level())
        .collect();
    for &size in &SIZES {
        for &off in &OFFSETS {
            let buf: Vec<u8> = (0..size + 128)
                .map(|i| (i as u32).wrapping_mul(2_654_435_761).rotate_left(9) as u8)
                .collect();
            let start = (64 - buf.as_ptr() as usize % 64) % 64 + off;
            let d = &buf[start..start + size];
            let mut g = c.benchmark_group(format!("crc32c_{size}_off{off}"));
            g.throughput(Throughput::Bytes(size as u64));
            g.bench_function("ours_auto", |b| b.iter(|| csum::crc32c(black_box(d))));
            for &l in &levels {
                g.bench_function(BenchmarkId::new("ours", l.name()), |b| {
                    b.iter(|| csum::crc32c_append_at(l, 0, black_box(d)))
                });
            }
            g.bench_function("peer_crc32c", |b| b.iter(|| crc32c::crc32c(black_box(d))));
            g.bench_function("peer_crc_fast", |b| {
                b.iter(|| crc_fast::crc32_iscsi(black_box(d)))
            });
            g.finish();
        }
    }
}

/// Ours beside `crc-fast` and `crc32c` in interleaved rounds, at offsets
/// 0, 1, 2 and 14 from a 64-byte boundary.
fn bench_crc_interleaved(_c: &mut Criterion) {
    for size in [64usize, 128, 192, 256, 400, 576, 1500, 9000, 64 * 1024] {
        for off in [0usize, 1, 2, 14] {
            let buf = PageBuf::new(size, 64 + off, 9);
            let d = buf.get();
            let mut cases = vec![
                Case::new("ours_crc32c", || {
                    black_box(csum::crc32c(black_box(d)));
                }),
                Case::new("peer_crc_fast", || {
                    black_box(crc_fast::crc32_iscsi(black_box(d)));
                }),
                Case::new("peer_crc32c", || {
                    black_box(crc32c::crc32c(black_box(d)));
                }),
            ];
            let budget = if size > 4096 { 1_000_000.0 } else { 200_000.0 };
            interleave::table(&format!("crcx_{size}_off{off}"), &mut cases, budget, 31);
        }
    }
}

criterion_group!(benches, bench_crc);
criterion_group!(interleaved, bench_crc_interleaved);
criterion_main!(benches, interleaved);
