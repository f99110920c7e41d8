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
use netoffload::gro::{Disposition, Gro, GroConfig, SuperPacket};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};

#[path = "support/gro_frames.rs"]
mod gro_frames;
use gro_frames::{BURST, bursts, tcp4, vxlan};

/// This thread's CPU time in ns, if the kernel exposes it.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// `meta` is a type parameter, not a function pointer, so the per-frame
/// metadata is a constant in the loop as in a driver's poll loop (an indirect
/// call per frame would be timed as engine work).
fn run_case<const F: usize, M: Fn() -> CsumMeta>(
    c: &mut Criterion,
    group: &str,
    flows: u32,
    make: fn(u32, u32, u16) -> Vec<u8>,
    meta: M,
    state: &str,
) {
    // GRO_NB: distinct bursts (default 64 = frames from L3; 1 = cache-hot).
    let nb = std::env::var("GRO_NB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let data = bursts(flows, make, nb);
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
                    passed_up += u64::from(matches!(v, Disposition::PassUp { .. }));
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
    // GRO_SUM_LEVEL=avx2|sse2|scalar: the software sum's kernel (default: the best).
    if let Ok(l) = std::env::var("GRO_SUM_LEVEL") {
        use netoffload::csum::{Level, force_level};
        let level = Level::ALL
            .into_iter()
            .find(|x| x.name() == l)
            .unwrap_or(Level::Scalar);
        eprintln!("sum level {:?}", force_level(level));
    }
    fn cases<M: Fn() -> CsumMeta + Copy>(
        c: &mut Criterion,
        group: &str,
        make: fn(u32, u32, u16) -> Vec<u8>,
        meta: M,
        state: &str,
    ) {
        run_case::<64, M>(c, group, 1, make, meta, state);
        run_case::<64, M>(c, group, 8, make, meta, state);
        run_case::<64, M>(c, group, 64, make, meta, state);
        run_case::<1024, M>(c, group, 1024, make, meta, state);
    }
    cases(c, "gro_tcp4", tcp4, unnecessary0, "unnecessary");
    cases(c, "gro_tcp4", tcp4, none, "none");
    cases(c, "gro_vxlan", vxlan, unnecessary1, "unnecessary");
    cases(c, "gro_vxlan", vxlan, none, "none");
}

criterion_group!(benches, gro);
criterion_main!(benches);
