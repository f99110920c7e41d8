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
use netoffload::gro::{Gro, GroConfig, SuperPacket};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};

const BURST: usize = 32;
const PAYLOAD: usize = 1448;

fn sum16(data: &[u8]) -> u32 {
    let mut s = 0u32;
    for c in data.chunks(2) {
        s += u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32;
    }
    s
}

fn fold(mut s: u32) -> u16 {
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}

/// Ethernet + IPv4 + TCP (12-byte timestamp option) + payload, checksums right.
fn tcp4(flow: u32, seq: u32, id: u16) -> Vec<u8> {
    let mut ip = vec![0u8; 20];
    let tcp_len = 32 + PAYLOAD;
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&((20 + tcp_len) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&id.to_be_bytes());
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = 6;
    ip[12..16].copy_from_slice(&[10, (flow >> 8) as u8, flow as u8, 1]);
    ip[16..20].copy_from_slice(&[10, 0, 0, 2]);
    let c = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    let mut t = vec![0u8; 32];
    t[0..2].copy_from_slice(&(40000u16.wrapping_add(flow as u16)).to_be_bytes());
    t[2..4].copy_from_slice(&80u16.to_be_bytes());
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&1u32.to_be_bytes());
    t[12] = 8 << 4;
    t[13] = 0x10;
    t[14..16].copy_from_slice(&512u16.to_be_bytes());
    t[20..32].copy_from_slice(&[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2]);
    t.extend((0..PAYLOAD).map(|i| (i as u32 ^ seq) as u8));
    let ps = sum16(&ip[12..20]) + 6 + tcp_len as u32;
    let c = fold(ps + sum16(&t));
    t[16..18].copy_from_slice(&c.to_be_bytes());
    let mut f = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0];
    f.extend_from_slice(&ip);
    f.extend_from_slice(&t);
    f
}

/// The same segment inside VXLAN (outer UDP checksum zero, as most senders).
fn vxlan(flow: u32, seq: u32, id: u16) -> Vec<u8> {
    let inner = tcp4(flow, seq, id);
    let mut body = vec![0u8; 16];
    body[0..2].copy_from_slice(&(50000u16.wrapping_add(flow as u16)).to_be_bytes());
    body[2..4].copy_from_slice(&4789u16.to_be_bytes());
    body[4..6].copy_from_slice(&((16 + inner.len()) as u16).to_be_bytes());
    body[8] = 0x08;
    body[12..16].copy_from_slice(&(42u32 << 8).to_be_bytes());
    body.extend_from_slice(&inner);
    let mut ip = vec![0u8; 20];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&((20 + body.len()) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&id.wrapping_add(7).to_be_bytes());
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&[192, 168, 0, 1]);
    ip[16..20].copy_from_slice(&[192, 168, 0, 2]);
    let c = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    let mut f = vec![2, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 4, 8, 0];
    f.extend_from_slice(&ip);
    f.extend_from_slice(&body);
    f
}

/// Bursts of 32 frames, flows round-robin, each flow's segments in order.
fn bursts(flows: u32, make: fn(u32, u32, u16) -> Vec<u8>) -> Vec<Vec<Vec<u8>>> {
    let n_bursts = 64;
    let mut seq = vec![1000u32; flows as usize];
    let mut id = vec![1u16; flows as usize];
    let mut k = 0u32;
    (0..n_bursts)
        .map(|_| {
            (0..BURST)
                .map(|_| {
                    let f = (k % flows) as usize;
                    k += 1;
                    let fr = make(f as u32, seq[f], id[f]);
                    seq[f] = seq[f].wrapping_add(PAYLOAD as u32);
                    id[f] = id[f].wrapping_add(1);
                    fr
                })
                .collect()
        })
        .collect()
}

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
    let data = bursts(flows, make);
    let mut gro: Box<Gro<F>> = Box::new(Gro::new(GroConfig::new()));
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(BURST as u64));
    g.sample_size(10);
    let mut segs_out = 0u64;
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
                    let _ = black_box(v);
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
    black_box(segs_out);
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
