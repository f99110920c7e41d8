//! Runs one GRO bench case for a given number of bursts (for callgrind
//! instruction counts: run twice with different counts and take the difference).
//! Usage: gro_count tcp4|vxlan FLOWS unnecessary|none BURSTS (same frames as
//! benches/gro.rs; env NB = distinct bursts, default 64, 1 = frames cache-hot).
use std::hint::black_box;

use netoffload::gro::{Disposition, Gro, GroConfig, SuperPacket};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};

#[path = "../benches/support/gro_frames.rs"]
mod gro_frames;
use gro_frames::{bursts, tcp4, vxlan};

fn run<const F: usize>(data: &[Vec<Vec<u8>>], meta: CsumMeta, n: usize) {
    let mut gro: Box<Gro<F>> = Box::new(Gro::new(GroConfig::new()));
    let mut segs = 0u64;
    let mut passed_up = 0u64;
    for i in 0..n {
        let burst = &data[i % data.len()];
        let mut sink = |sp: &SuperPacket| {
            segs += sp.seg_count() as u64;
            black_box(sp.header());
        };
        for (k, fr) in burst.iter().enumerate() {
            let v = gro.receive(fr, k as u32, meta.clone(), 0, &mut sink);
            // Consumed as a poll loop does: branch on it.
            passed_up += u64::from(matches!(v, Disposition::PassUp { .. }));
        }
        gro.flush_all(&mut sink);
    }
    let s = gro.stats();
    eprintln!(
        "segs {segs} packets {} flushed {} passed {} ({passed_up}) sw {}",
        s.packets, s.flushed, s.passed_up, s.sw_bytes
    );
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let make = if a[1] == "vxlan" { vxlan } else { tcp4 };
    let flows: u32 = a[2].parse().unwrap();
    let meta = match (a[3].as_str(), a[1].as_str()) {
        ("none", _) => CsumMeta::NONE,
        (_, "vxlan") => CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L1,
        }),
        _ => CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        }),
    };
    let n: usize = a[4].parse().unwrap();
    let nb: usize = std::env::var("NB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let data = bursts(flows, make, nb);
    if flows > 64 {
        run::<1024>(&data, meta, n)
    } else {
        run::<64>(&data, meta, n)
    }
}
