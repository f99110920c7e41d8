//! `state::validate` cost per packet by starting state, at 64 and 1500 bytes
//! (IPv4/TCP frames built with etherparse). None sums the segment in software;
//! Unnecessary and Partial are O(1); Complete is pseudo-header arithmetic plus
//! the IP header taken out of the device sum. Run briefly; numbers are noisy.
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use etherparse::PacketBuilder;
use netoffload::csum::{self, Wsum};
use netoffload::state::{self, CsumLevel, CsumMeta, CsumState, Packet, PartialKind};
use netoffload::wire::LinkType;

/// An Ethernet/IPv4/TCP frame of exactly `len` bytes.
fn frame(len: usize) -> Vec<u8> {
    let payload: Vec<u8> = (0..len - 54).map(|i| (i * 31 + 7) as u8).collect();
    let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .tcp(1234, 80, 1, 65535);
    let mut out = Vec::new();
    b.write(&mut out, &payload).unwrap();
    out
}

fn validate(c: &mut Criterion) {
    let mut g = c.benchmark_group("state_validate");
    for len in [64usize, 1500] {
        let bytes = frame(len);
        let pkt = Packet::parse(&bytes, LinkType::Ethernet).unwrap();
        let l3 = pkt.layers().l3;
        let l4 = pkt.layers().l4;
        let complete = csum::partial(&bytes[l3..], Wsum::ZERO);
        let states = [
            ("none", CsumState::None),
            (
                "unnecessary",
                CsumState::Unnecessary {
                    level: CsumLevel::L0,
                },
            ),
            ("complete", CsumState::Complete { csum: complete }),
            (
                "partial",
                CsumState::Partial {
                    start: l4,
                    offset: 16,
                    kind: PartialKind::Inet,
                },
            ),
        ];
        g.throughput(Throughput::Bytes(len as u64));
        for (name, st) in states {
            g.bench_with_input(BenchmarkId::new(name, len), &st, |b, st| {
                b.iter(|| {
                    let m = CsumMeta::from_state(*st);
                    black_box(state::validate(m, black_box(&pkt)).unwrap())
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, validate);
criterion_main!(benches);
