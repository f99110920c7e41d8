//! GRO engine throughput: ns per segment for 1 / 8 / 64 / 1024 interleaved
//! TCP/IPv4 flows (1448-byte payloads, bursts of 32, flush at the end of each
//! burst), plain and in VXLAN, with checksum states `Unnecessary` (nothing to
//! sum) and `None` (software verification of every segment included).
//!
//! Everything the engine does per segment is timed: parsing, checksum gate,
//! lookup, comparison, merge bookkeeping, and the descriptors at flush.
//! Criterion reports time per burst of 32 segments (throughput in elements =
//! segments). Merge ratios (segments per super-packet) are printed once per case.
//!
//! Time is this thread's CPU time (`/proc/thread-self/schedstat`, scheduler
//! accounting) where available, so a machine shared with other jobs does not
//! inflate the figures with time spent descheduled; wall time otherwise.
//! Scheduler accounting is updated at ticks and switches, so samples are long
//! (few samples, seconds each) to keep that error to about a percent.
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use netoffload::gro::{Gro, GroConfig, SuperPacket, Verdict};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};

#[path = "support/gro_frames.rs"]
mod gro_frames;
use gro_frames::{BURST, bursts, tcp4, vxlan};

/// This thread's CPU time in ns, if the kernel exposes it.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn run_case<const F: usize>(
    c: &mut Criterion,
    group: &str,
    flows: u32,
    make: fn(u32, u32, u16) -> Vec<u8>,
    meta: fn() -> CsumMeta,
    state: &str,
) {
    let data = bursts(flows, make, 64);
    let mut gro: Box<Gro<F>> = Box::new(Gro::new(GroConfig::new()));
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(BURST as u64));
    g.sample_size(10);
    let mut segs_out = 0u64;
    let mut passed_up = 0u64;
    let mut i = 0usize;
    g.bench_function(BenchmarkId::new(state, flows), |b| {
        b.iter_custom(|iters| {
            let (c0, w0) = (cpu_ns(), Instant::now());
            for _ in 0..iters {
                let burst = &data[i % data.len()];
                i += 1;
                let mut sink = |sp: &SuperPacket| {
                    segs_out += sp.seg_count() as u64;
                    black_box(sp.header());
                };
                for (n, fr) in burst.iter().enumerate() {
                    let v = gro.receive(fr, n as u32, meta(), 0, &mut sink);
                    // Consumed as a poll loop does: branch on it (a copy into
                    // `black_box` would add a 40-byte move the loop never makes).
                    passed_up += u64::from(matches!(v, Verdict::PassUp { .. }));
                }
                gro.flush_all(&mut sink);
            }
            match (c0, cpu_ns()) {
                (Some(a), Some(b)) if b > a => Duration::from_nanos(b - a),
                _ => w0.elapsed(),
            }
        })
    });
    g.finish();
    let s = gro.stats();
    if s.packets == 0 {
        return;
    }
    let supers = s.flushed.max(1);
    println!(
        "{group}/{state}/{flows}: merge ratio {:.2} segments per super-packet ({} packets, {} super-packets, {} passed up, {} sw bytes)",
        s.packets as f64 / (supers + s.passed_up) as f64,
        s.packets,
        s.flushed,
        s.passed_up,
        s.sw_bytes
    );
    black_box((segs_out, passed_up));
}

fn unnecessary0() -> CsumMeta {
    CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    })
}

fn unnecessary1() -> CsumMeta {
    CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L1,
    })
}

fn none() -> CsumMeta {
    CsumMeta::NONE
}

fn gro(c: &mut Criterion) {
    for (state, meta) in [
        ("unnecessary", unnecessary0 as fn() -> CsumMeta),
        ("none", none),
    ] {
        run_case::<64>(c, "gro_tcp4", 1, tcp4, meta, state);
        run_case::<64>(c, "gro_tcp4", 8, tcp4, meta, state);
        run_case::<64>(c, "gro_tcp4", 64, tcp4, meta, state);
        run_case::<1024>(c, "gro_tcp4", 1024, tcp4, meta, state);
    }
    for (state, meta) in [
        ("unnecessary", unnecessary1 as fn() -> CsumMeta),
        ("none", none),
    ] {
        run_case::<64>(c, "gro_vxlan", 1, vxlan, meta, state);
        run_case::<64>(c, "gro_vxlan", 8, vxlan, meta, state);
        run_case::<64>(c, "gro_vxlan", 64, vxlan, meta, state);
        run_case::<1024>(c, "gro_vxlan", 1024, vxlan, meta, state);
    }
}

criterion_group!(benches, gro);
criterion_main!(benches);
