//! Runs one GRO bench case for a given number of bursts (for callgrind
//! instruction counts: run twice with different counts and take the difference).
//! Usage: gro_count tcp4|vxlan FLOWS unnecessary|none BURSTS (same frames as
//! benches/gro.rs; env NB = distinct bursts, default 64, 1 = frames cache-hot).
use std::hint::black_box;

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

fn bursts(flows: u32, make: fn(u32, u32, u16) -> Vec<u8>) -> Vec<Vec<Vec<u8>>> {
    let mut seq = vec![1000u32; flows as usize];
    let mut id = vec![1u16; flows as usize];
    let mut k = 0u32;
    let nb: usize = std::env::var("NB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    (0..nb)
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

fn run<const F: usize>(data: &[Vec<Vec<u8>>], meta: CsumMeta, n: usize) {
    let mut gro: Box<Gro<F>> = Box::new(Gro::new(GroConfig::new()));
    let mut segs = 0u64;
    for i in 0..n {
        let burst = &data[i % data.len()];
        let mut sink = |sp: &SuperPacket| {
            segs += sp.seg_count() as u64;
            black_box(sp.header());
        };
        for (k, fr) in burst.iter().enumerate() {
            let v = gro.receive(fr, k as u32, meta.clone(), 0, &mut sink);
            let _ = black_box(v);
        }
        gro.flush_all(&mut sink);
    }
    let s = gro.stats();
    eprintln!(
        "segs {segs} packets {} flushed {} passed {} sw {}",
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
    let data = bursts(flows, make);
    if flows > 64 {
        run::<1024>(&data, meta, n)
    } else {
        run::<64>(&data, meta, n)
    }
}
