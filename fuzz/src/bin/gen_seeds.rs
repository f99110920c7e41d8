//! Writes seed corpora for every fuzz target from valid packets of every kind
//! (built here with etherparse, checksums made correct by the fixer shared
//! with the targets; not committed binaries from elsewhere). Each target's
//! seeds are its control prefix (see the target's header comment) + a frame.
//!
//! Usage: `cargo run --bin gen_seeds -- <corpus dir>`; one sub-folder per target.

#[allow(dead_code)]
#[path = "../common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../../tests/support/oracle.rs"]
mod oracle;

use std::fs;
use std::path::Path;

use etherparse::{IpNumber, PacketBuilder};
use oracle::Link;

fn eth() -> etherparse::PacketBuilderStep<etherparse::Ethernet2Header> {
    PacketBuilder::ethernet2([2; 6], [4; 6])
}

fn tcp4(payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    eth()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .tcp(1000, 80, 7, 4096)
        .ack(1)
        .write(&mut v, payload)
        .unwrap();
    v
}

fn tcp6(payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    eth()
        .ipv6([1; 16], [2; 16], 64)
        .tcp(1000, 80, 7, 4096)
        .ack(1)
        .write(&mut v, payload)
        .unwrap();
    v
}

fn udp4(dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    eth()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .udp(4000, dport)
        .write(&mut v, payload)
        .unwrap();
    v
}

fn udp6(dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    eth()
        .single_vlan(100.try_into().unwrap())
        .ipv6([1; 16], [2; 16], 64)
        .udp(5000, dport)
        .write(&mut v, payload)
        .unwrap();
    v
}

/// An IPv4 packet with protocol `proto` around `payload` (checksums fixed later).
fn ip4_raw(proto: u8, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    eth()
        .ip(etherparse::IpHeaders::Ipv4(
            etherparse::Ipv4Header::new(0, 64, IpNumber(proto), [10, 0, 0, 1], [10, 0, 0, 2])
                .unwrap(),
            Default::default(),
        ))
        .write(&mut v, IpNumber(proto), payload)
        .unwrap();
    v
}

/// Inner packets carried by tunnels: (Ethernet frame, bare IP packet).
fn inner(payload: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut e = Vec::new();
    PacketBuilder::ethernet2([6; 6], [8; 6])
        .ipv4([192, 168, 0, 1], [192, 168, 0, 2], 64)
        .tcp(1, 2, 3, 4)
        .write(&mut e, payload)
        .unwrap();
    let ip = e[14..].to_vec();
    (e, ip)
}

/// Valid frames of every kind the targets know, checksums correct.
fn frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for payload in [&b""[..], b"x", &[0xAB; 100], &[0x5C; 1400]] {
        out.push(tcp4(payload));
        out.push(tcp6(payload));
        out.push(udp6(53, payload));
        out.push(udp4(5000, payload));
        let (ie, ip) = inner(payload);
        // VXLAN, checksum computed and zero.
        let mut vx = vec![0x08, 0, 0, 0, 0, 0, 42, 0];
        vx.extend_from_slice(&ie);
        out.push(udp4(4789, &vx));
        let mut z = udp4(4789, &vx);
        z[14 + 20 + 6..14 + 20 + 8].fill(0);
        out.push(z);
        // GENEVE over IPv6, Ethernet inside, one option; and IP inside.
        let mut gn = vec![
            0x02, 0, 0x65, 0x58, 0, 0, 7, 0, 0x01, 0x02, 0x80, 0x01, 1, 2, 3, 4,
        ];
        gn.extend_from_slice(&ie);
        out.push(udp6(6081, &gn));
        let mut gi = vec![0x00, 0, 0x08, 0x00, 0, 0, 7, 0];
        gi.extend_from_slice(&ip);
        out.push(udp6(6081, &gi));
        // GRE with C+K carrying IPv4, and plain GRE carrying Ethernet.
        let mut gre = vec![0xA0, 0, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 9];
        gre.extend_from_slice(&ip);
        out.push(ip4_raw(47, &gre));
        let mut gre_e = vec![0x00, 0, 0x65, 0x58];
        gre_e.extend_from_slice(&ie);
        out.push(ip4_raw(47, &gre_e));
        // IPv4-in-IPv4.
        out.push(ip4_raw(4, &ip));
        if payload.len() < 200 {
            // ICMP echo, ICMPv6 echo, SCTP, UDP with zero checksum.
            let mut v = Vec::new();
            eth()
                .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
                .icmpv4_echo_request(1, 2)
                .write(&mut v, payload)
                .unwrap();
            out.push(v);
            let mut v = Vec::new();
            eth()
                .ipv6([1; 16], [2; 16], 64)
                .icmpv6_echo_request(1, 2)
                .write(&mut v, payload)
                .unwrap();
            out.push(v);
            let mut sctp = vec![0x13, 0x88, 0x13, 0x89, 0, 0, 0, 1, 0, 0, 0, 0];
            sctp.extend_from_slice(payload);
            out.push(ip4_raw(132, &sctp));
            let mut z = udp4(5000, payload);
            z[14 + 20 + 6..14 + 20 + 8].fill(0);
            out.push(z);
        }
    }
    // IPv4 options (4 NOPs), IPv6 hop-by-hop, QinQ, padding.
    let mut o = tcp4(b"options");
    o.splice(34..34, [1u8, 1, 1, 1]);
    o[14] = 0x46;
    let tl = u16::from_be_bytes([o[16], o[17]]) + 4;
    o[16..18].copy_from_slice(&tl.to_be_bytes());
    out.push(o);
    let mut h = tcp6(b"hop by hop");
    h.splice(54..54, [6u8, 0, 1, 4, 0, 0, 0, 0]);
    h[20] = 0;
    let pl = u16::from_be_bytes([h[18], h[19]]) + 8;
    h[18..20].copy_from_slice(&pl.to_be_bytes());
    out.push(h);
    let mut q = Vec::new();
    eth()
        .double_vlan(1.try_into().unwrap(), 2.try_into().unwrap())
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .tcp(1, 2, 3, 4)
        .write(&mut q, b"qinq")
        .unwrap();
    out.push(q);
    let mut p = udp4(5000, b"p");
    p.resize(60, 0);
    out.push(p);
    for f in &mut out {
        common::fix_all(f, Link::Ethernet, Some(14));
        assert!(oracle::all_correct(f, Link::Ethernet) || f.len() < 40);
    }
    out
}

/// State-op sequences: (op, a, b) triples, see `state_ops`.
const SEQS: [[u8; 24]; 3] = [
    // validate, try_convert, descend (+convert), validate, pull 20, push 20, trim, deliver
    [
        0, 0, 0, 2, 0, 0, 12, 1, 0, 0, 0, 0, 3, 20, 0, 4, 20, 0, 5, 0, 0, 1, 0, 0,
    ],
    // nat src, route, conntrack, validate, nat port, fill, bridge, check ipv4
    [
        8, 0, 9, 7, 0, 0, 9, 0, 0, 0, 0, 0, 8, 2, 77, 10, 0, 0, 6, 0, 0, 11, 0, 0,
    ],
    // conntrack, fill, validate, descend, validate, descend, validate, deliver
    [
        9, 0, 0, 10, 0, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 12, 1, 0, 0, 0, 0, 1, 0, 0,
    ],
];

/// GRO stream seeds: config + records (see `gro_stream`).
fn gro_seeds(frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let configs: [[u8; 8]; 3] = [
        [0x0F, 0xff, 0xff, 64, 0, 0, 1, 0],
        [0x0F, 0x00, 0x10, 4, 0, 0, 0, 0],
        [0x07, 0xff, 0xff, 64, 1, 1, 2, 0],
    ];
    for (ci, cfg) in configs.iter().enumerate() {
        for pattern in 0..4u8 {
            let mut v = cfg.to_vec();
            for i in 0..24u8 {
                let flow = match pattern {
                    0 => 0,
                    1 => i % 2,
                    2 => i % 4,
                    _ => (i / 3) % 4,
                };
                let kind = match (pattern, i % 11) {
                    (3, 5) => 11,
                    (3, 8) => 12,
                    (2, 7) => 13,
                    _ => 0,
                };
                // kind, flow, gap, flags(1 = no PSH), len/6, id, meta, pad
                let meta = match (i + ci as u8) % 5 {
                    0 => 0,
                    1 => 1,
                    2 => 2,
                    3 => 0x80,
                    _ => 3,
                };
                let len = if i % 6 == 5 { 40 } else { 200 };
                v.extend_from_slice(&[kind, flow, 0, 1, len, 0, meta, i & 1]);
            }
            out.push(v);
        }
    }
    // A few garbage records built from real frames.
    let mut v = configs[0].to_vec();
    for f in frames.iter().filter(|f| f.len() <= 255).take(12) {
        v.extend_from_slice(&[10, f.len() as u8, 0, 0, 0, 0, 0, 0]);
        v.extend_from_slice(f);
        v.extend_from_slice(&[0, 0, 0, 1, 100, 0, 1, 0]);
    }
    out.push(v);
    out
}

/// virtio_hdr seeds: policy byte, legacy header, frame (the checksum
/// field holding the pseudo-header seed when the header says NEEDS_CSUM).
fn virtio_seeds(frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    use netoffload::state::paravirt::virtio::{HdrLayout, VirtioFlags, VirtioNetHdr, gso_type};
    use netoffload::wire::{self, LinkType, Net, Transport};
    let mut out = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let Ok(l) = wire::parse(f, LinkType::Ethernet) else {
            continue;
        };
        let (offset, proto, gso) = match (l.transport, l.net) {
            (Transport::Tcp, Net::Ipv4) => (16u16, 6u8, gso_type::TCPV4),
            (Transport::Tcp, Net::Ipv6) => (16, 6, gso_type::TCPV6),
            (Transport::Udp, _) => (6, 17, gso_type::UDP_L4),
            _ => continue,
        };
        let payload = l.end - l.payload;
        let layout = HdrLayout::Legacy;
        for (ctl, needs, with_gso) in [
            (0u8, true, false),
            (0, true, true),
            (2 | 12, false, false),
            (2 | 8, true, false),
        ] {
            let mut frame = f.clone();
            let mut hdr = VirtioNetHdr::ZERO;
            if needs {
                hdr.flags = VirtioFlags::NEEDS_CSUM;
                hdr.csum_start = l.l4 as u16;
                hdr.csum_offset = offset;
                let field = l.l4 + usize::from(offset);
                let seed = common::pseudo(&frame, l.l3, proto, l.end - l.l4).unwrap();
                frame[field..field + 2].copy_from_slice(&seed.to_be_bytes());
            } else {
                hdr.flags = VirtioFlags::DATA_VALID;
            }
            if with_gso && payload > 200 {
                hdr.gso_type = gso;
                hdr.gso_size = 200;
                hdr.hdr_len = l.payload as u16;
            }
            let mut v = vec![ctl | ((i as u8 % 4) << 6)];
            let mut h = [0u8; 20];
            let n = hdr.write(layout, &mut h).unwrap();
            v.extend_from_slice(&h[..n]);
            v.extend_from_slice(&frame);
            out.push(v);
        }
    }
    out
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "corpus".into());
    let frames = frames();
    let mut counts = Vec::new();
    let mut put = |target: &str, seeds: Vec<Vec<u8>>| {
        let d = Path::new(&dir).join(target);
        fs::create_dir_all(&d).unwrap();
        for (i, s) in seeds.iter().enumerate() {
            fs::write(d.join(format!("seed-{i:04}")), s).unwrap();
        }
        counts.push(format!("{target}: {}", seeds.len()));
    };
    put("wire_parse", frames.clone());
    put(
        "csum_diff",
        frames
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut v = vec![i as u8, (i * 7) as u8, 0x12, 0x34, 0x56, 0x78];
                v.extend_from_slice(f);
                v
            })
            .collect(),
    );
    let mut s = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        for report in 0..5u8 {
            let seq = &SEQS[(i + report as usize) % SEQS.len()];
            let corrupt = (i + report as usize) % 7 == 3;
            let opts = if corrupt { 3 } else { 1 } | if report == 4 && i % 2 == 0 { 8 } else { 0 };
            let mut v = vec![report, 3, opts, (i * 13) as u8, 0, 0x20, 8];
            v.extend_from_slice(seq);
            v.extend_from_slice(f);
            s.push(v);
        }
    }
    put("state_ops", s);
    let mut s = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        for (report, opts) in [(0u8, 1u8), (1, 1), (1, 9), (3, 1), (3, 5), (1, 3), (0, 17)] {
            let mut v = vec![report, 2, opts, (i * 29) as u8, 0, 0x04];
            v.extend_from_slice(f);
            s.push(v);
        }
    }
    put("decap", s);
    put("gro_stream", gro_seeds(&frames));
    let mut s = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        if f.len() < 200 {
            continue;
        }
        for (size, csum, tunnel, feat) in [
            (500u16, 0u8, 0u8, 0u32),
            (1448, 1, 0, 0xFFFF_FFFF),
            (100, 0, 2, 0),
            (333, 1, 2, 0),
        ] {
            let mut v = size.to_le_bytes().to_vec();
            v.extend_from_slice(&[(i % 4) as u8, 0, csum]);
            v.extend_from_slice(&feat.to_le_bytes());
            v.push(1 | 4 | tunnel | if i % 3 == 0 { 8 } else { 0 });
            v.extend_from_slice(f);
            s.push(v);
        }
    }
    put("tx_segment", s);
    put("virtio_hdr", virtio_seeds(&frames));
    println!("wrote seeds into {dir}: {}", counts.join(", "));
}
