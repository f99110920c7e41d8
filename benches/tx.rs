//! Transmit benchmarks: software fill per packet size, software segmentation
//! of a 64 KiB TCP super-packet (fused checksum vs Partial vs copy only), and
//! the batch planner's doorbells and ns per packet by batch size.
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use etherparse::PacketBuilder;
use netoffload::state::{CsumMeta, CsumState, PartialKind};
use netoffload::tx::{
    self, Device, Features, GsoInfo, Prepared, SegmentCsum, TxAction, TxContext, TxRing,
};
use netoffload::wire::{self, GsoType, LinkType};

/// An Ethernet/IPv4/TCP frame of `frame_len` bytes.
fn tcp_frame(frame_len: usize) -> Vec<u8> {
    let payload: Vec<u8> = (0..frame_len - 54).map(|i| (i * 7 + 3) as u8).collect();
    let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([192, 0, 2, 1], [198, 51, 100, 7], 64)
        .tcp(40000, 443, 1, 502)
        .ack(9);
    let mut out = Vec::with_capacity(frame_len);
    b.write(&mut out, &payload).unwrap();
    out
}

fn fill(c: &mut Criterion) {
    let mut g = c.benchmark_group("tx_fill");
    for size in [64usize, 1500, 9000] {
        let mut f = tcp_frame(size.max(54));
        let l = wire::parse(&f, LinkType::Ethernet).unwrap();
        let meta = CsumMeta::from_state(CsumState::Partial {
            start: l.l4,
            offset: 16,
            kind: PartialKind::Inet,
        });
        let action = tx::decide(&meta, &l, None, &Device::new(Features::empty())).unwrap();
        assert!(matches!(action, TxAction::FillSoftware(_)));
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::new("software_fill", size), &size, |b, _| {
            b.iter(|| {
                let m = CsumMeta::from_state(meta.state());
                black_box(tx::fill_software(black_box(&mut f), &l, m, &action).ok())
            })
        });
        // Baseline in the same run: the bare sum over the same bytes (what the
        // fill costs beyond its arithmetic: checks, state bookkeeping).
        let l4 = l.l4;
        g.bench_with_input(BenchmarkId::new("bare_sum", size), &size, |b, _| {
            b.iter(|| {
                let s =
                    netoffload::csum::partial(black_box(&f[l4..]), netoffload::csum::Wsum::ZERO);
                black_box(netoffload::csum::fold(s))
            })
        });
    }
    g.finish();
}

fn segmentation(c: &mut Criterion) {
    // IPv4 maximum: 65535-byte datagram, 65495 bytes of TCP payload.
    let sup = tcp_frame(14 + 65535);
    let l = wire::parse(&sup, LinkType::Ethernet).unwrap();
    let gso = GsoInfo::new(1448, GsoType::TCPV4);
    let count = gso.segments(l.payload_len());
    let mut store = vec![vec![0u8; 1600]; count];
    let mut g = c.benchmark_group("tx_segment_64k_mss1448");
    g.throughput(Throughput::Bytes(l.payload_len() as u64));
    for (name, csum) in [
        ("fused_csum", SegmentCsum::Compute),
        ("partial_no_csum", SegmentCsum::Partial),
    ] {
        // Buffer list built once, outside the timed loop.
        let mut refs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
        g.bench_function(name, |b| {
            b.iter(|| black_box(tx::segment(black_box(&sup), &l, gso, csum, &mut refs).unwrap()))
        });
    }
    // Baseline: copy headers and payload chunks only, nothing fixed or summed.
    let hdr = l.payload;
    g.bench_function("copy_only", |b| {
        b.iter(|| {
            let sup = black_box(&sup);
            for (i, chunk) in sup[hdr..l.end].chunks(1448).enumerate() {
                let d = &mut store[i];
                d[..hdr].copy_from_slice(&sup[..hdr]);
                d[hdr..hdr + chunk.len()].copy_from_slice(chunk);
            }
            black_box(&store);
        })
    });
    g.finish();
}

fn planner(c: &mut Criterion) {
    const PKTS: usize = 1024;
    let mut g = c.benchmark_group("tx_planner");
    g.throughput(Throughput::Elements(PKTS as u64));
    let cfg = *TxRing::<1024>::new(17).unwrap().config();
    let ctxs = [
        Some(TxContext {
            csum_start: 34,
            csum_offset: 16,
            mss: 0,
        }),
        Some(TxContext {
            csum_start: 34,
            csum_offset: 6,
            mss: 0,
        }),
    ];
    // Runs of 4 packets share offload parameters.
    let pkts: Vec<Prepared> = (0..PKTS as u64)
        .map(|i| {
            cfg.prep(i, (i % 4) as usize, ctxs[(i / 4 % 2) as usize])
                .unwrap()
        })
        .collect();
    for batch in [1usize, 8, 32, 128] {
        let mut ring = TxRing::<1024>::new(17).unwrap();
        let run = |ring: &mut TxRing<1024>| {
            let mut at = 0;
            while at < PKTS {
                // Prepared for this ring's configuration: never refused.
                let r = ring.xmit(&pkts[at..(at + batch).min(PKTS)]).unwrap();
                at += r.packets;
                ring.complete(usize::MAX, |id| {
                    black_box(id);
                });
            }
        };
        let before = ring.stats();
        run(&mut ring);
        let s = ring.stats();
        eprintln!(
            "tx_planner batch {batch}: {:.4} doorbells/packet, {:.3} descriptors/packet",
            (s.doorbells - before.doorbells) as f64 / PKTS as f64,
            (s.descriptors - before.descriptors) as f64 / PKTS as f64,
        );
        g.bench_with_input(BenchmarkId::new("batch", batch), &batch, |b, _| {
            b.iter(|| run(black_box(&mut ring)))
        });
    }
    g.finish();
}

criterion_group!(benches, fill, segmentation, planner);
criterion_main!(benches);
