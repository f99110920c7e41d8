//! Capture files written byte by byte and frames of the built-in mix, shared
//! by the replay tool's tests.
#![allow(dead_code)]

use std::path::PathBuf;

use netoffload_replay::{mix, verdicts, walk};

pub fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("netoffload-replay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A classic pcap file (little-endian, microseconds); frames 2 us apart.
pub fn pcap(link: u32, records: &[(&[u8], u32)]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    f.extend_from_slice(&2u16.to_le_bytes());
    f.extend_from_slice(&4u16.to_le_bytes());
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(&262_144u32.to_le_bytes());
    f.extend_from_slice(&link.to_le_bytes());
    for (i, (data, orig)) in records.iter().enumerate() {
        f.extend_from_slice(&1u32.to_le_bytes());
        f.extend_from_slice(&(500_000 + 2 * i as u32).to_le_bytes());
        f.extend_from_slice(&(data.len() as u32).to_le_bytes());
        f.extend_from_slice(&orig.to_le_bytes());
        f.extend_from_slice(data);
    }
    f
}

/// A pcapng file: section header, one interface (default microsecond
/// resolution), one enhanced packet block per frame.
pub fn pcapng(link: u16, frames: &[&[u8]]) -> Vec<u8> {
    let on0: Vec<(u32, &[u8])> = frames.iter().map(|f| (0, *f)).collect();
    pcapng_ifaces(&[link], &on0)
}

/// A pcapng file with one interface per link type and each frame on the interface given.
pub fn pcapng_ifaces(links: &[u16], frames: &[(u32, &[u8])]) -> Vec<u8> {
    let mut f = Vec::new();
    let block = |f: &mut Vec<u8>, kind: u32, body: &[u8]| {
        let len = 12 + body.len() as u32;
        f.extend_from_slice(&kind.to_le_bytes());
        f.extend_from_slice(&len.to_le_bytes());
        f.extend_from_slice(body);
        f.extend_from_slice(&len.to_le_bytes());
    };
    let mut shb = Vec::new();
    shb.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes());
    shb.extend_from_slice(&1u16.to_le_bytes());
    shb.extend_from_slice(&0u16.to_le_bytes());
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    block(&mut f, 0x0a0d_0d0a, &shb);
    for link in links {
        let mut idb = Vec::new();
        idb.extend_from_slice(&link.to_le_bytes());
        idb.extend_from_slice(&0u16.to_le_bytes());
        idb.extend_from_slice(&262_144u32.to_le_bytes());
        block(&mut f, 1, &idb);
    }
    for (i, (iface, d)) in frames.iter().enumerate() {
        let ts: u64 = 2_000_000 + 250 * i as u64;
        let mut epb = Vec::new();
        epb.extend_from_slice(&iface.to_le_bytes());
        epb.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
        epb.extend_from_slice(&(ts as u32).to_le_bytes());
        epb.extend_from_slice(&(d.len() as u32).to_le_bytes());
        epb.extend_from_slice(&(d.len() as u32).to_le_bytes());
        epb.extend_from_slice(d);
        while epb.len() % 4 != 0 {
            epb.push(0);
        }
        block(&mut f, 6, &epb);
    }
    f
}

pub fn rows_of(
    bytes: &[u8],
    link: netoffload::wire::LinkType,
) -> Vec<(usize, &'static str, &'static str)> {
    let w = walk::walk(bytes, link);
    verdicts::frame_rows(1, bytes, &w, false)
        .into_iter()
        .map(|r| (r.depth, r.layer.name(), r.status.name()))
        .collect()
}

/// One IPv4 and one IPv6 frame of the mix, and one VXLAN frame.
pub fn samples() -> Vec<Vec<u8>> {
    let m = mix::build();
    ["tcp4", "tcp6", "vxlan_csum", "corrupt"]
        .iter()
        .map(|c| m.iter().find(|p| p.class == *c).unwrap().bytes.clone())
        .collect()
}
