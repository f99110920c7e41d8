//! Writes seed corpora for every fuzz target from valid packets of every kind
//! (built here with etherparse, not committed binaries from elsewhere).
//!
//! Usage: `cargo run --bin gen_seeds -- <corpus dir>`; one sub-folder per target.

use std::fs;
use std::path::Path;

use etherparse::{IpNumber, PacketBuilder};

/// Valid frames: Ethernet + IPv4/IPv6 (+VLAN) + TCP/UDP/ICMP, and tunnels.
fn frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let payloads: [&[u8]; 3] = [b"", b"x", &[0xAB; 100]];
    for payload in payloads {
        let b = PacketBuilder::ethernet2([2; 6], [4; 6])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(1000, 80, 7, 4096);
        let mut v = Vec::new();
        b.write(&mut v, payload).unwrap();
        out.push(v);
        let b = PacketBuilder::ethernet2([2; 6], [4; 6])
            .single_vlan(100.try_into().unwrap())
            .ipv6([1; 16], [2; 16], 64)
            .udp(5000, 53);
        let mut v = Vec::new();
        b.write(&mut v, payload).unwrap();
        out.push(v);
        let b = PacketBuilder::ethernet2([2; 6], [4; 6])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(4000, 4789);
        let mut inner = Vec::new();
        PacketBuilder::ethernet2([6; 6], [8; 6])
            .ipv4([192, 168, 0, 1], [192, 168, 0, 2], 64)
            .tcp(1, 2, 3, 4)
            .write(&mut inner, payload)
            .unwrap();
        let mut vx = vec![0x08, 0, 0, 0, 0, 0, 42, 0];
        vx.extend_from_slice(&inner);
        let mut v = Vec::new();
        b.write(&mut v, &vx).unwrap();
        out.push(v);
        let b = PacketBuilder::ethernet2([2; 6], [4; 6])
            .ipv6([1; 16], [2; 16], 64)
            .udp(4000, 6081);
        let mut geneve = vec![0x00, 0, 0x65, 0x58, 0, 0, 7, 0];
        geneve.extend_from_slice(&inner);
        let mut v = Vec::new();
        b.write(&mut v, &geneve).unwrap();
        out.push(v);
        let b = PacketBuilder::ethernet2([2; 6], [4; 6])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .icmpv4_echo_request(1, 2);
        let mut v = Vec::new();
        b.write(&mut v, payload).unwrap();
        out.push(v);
        // GRE (C+K bits) carrying IPv4/TCP.
        let mut ip_in = Vec::new();
        PacketBuilder::ipv4([192, 168, 0, 1], [192, 168, 0, 2], 64)
            .tcp(1, 2, 3, 4)
            .write(&mut ip_in, payload)
            .unwrap();
        let mut gre = vec![0xA0, 0, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 9];
        gre.extend_from_slice(&ip_in);
        let b = PacketBuilder::ethernet2([2; 6], [4; 6]).ip(etherparse::IpHeaders::Ipv4(
            etherparse::Ipv4Header::new(0, 64, IpNumber::GRE, [10, 0, 0, 1], [10, 0, 0, 2]).unwrap(),
            Default::default(),
        ));
        let mut v = Vec::new();
        b.write(&mut v, IpNumber::GRE, &gre).unwrap();
        out.push(v);
    }
    out
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "corpus".into());
    let frames = frames();
    let targets: &[(&str, fn(&[u8], usize) -> Vec<u8>)] = &[
        ("wire_parse", |f, _| f.to_vec()),
        ("csum_diff", |f, i| {
            let mut v = vec![i as u8, (i * 7) as u8, 0x12, 0x34, 0x56, 0x78];
            v.extend_from_slice(f);
            v
        }),
    ];
    for (name, make) in targets {
        let d = Path::new(&dir).join(name);
        fs::create_dir_all(&d).unwrap();
        for (i, f) in frames.iter().enumerate() {
            fs::write(d.join(format!("seed-{i:03}")), make(f, i)).unwrap();
        }
    }
    println!("wrote {} seeds per target into {dir}", frames.len());
}
