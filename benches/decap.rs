//! Decap + inner TCP validation, ns per packet, for each tunnel kind and each
//! device report, beside a baseline that validates the inner TCP checksum from
//! scratch (a software sum over the whole inner segment, what a receiver does
//! when nothing is known). Inner packet: IPv4/TCP with 1400 payload bytes.
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use netoffload::csum::{self, Wsum};
use netoffload::encap::{
    EncapConfig, EncapSpec, OuterEthernet, OuterIp, TunnelSpec, UdpCsumMode, decap, encap,
};
use netoffload::state::{CsumLevel, CsumMeta, CsumState, CsumVerdict, Packet, validate};
use netoffload::wire::{self, Layers, LinkType};

const HEADROOM: usize = 128;

fn inner(eth: bool) -> Vec<u8> {
    let payload: Vec<u8> = (0..1400u32).map(|x| (x * 13 + 1) as u8).collect();
    let mut out = Vec::new();
    if eth {
        etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(1000, 2000, 1, 100)
            .write(&mut out, &payload)
            .unwrap();
    } else {
        etherparse::PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(1000, 2000, 1, 100)
            .write(&mut out, &payload)
            .unwrap();
    }
    out
}

fn frame(tunnel: TunnelSpec<'_>, eth: bool, mode: UdpCsumMode) -> Vec<u8> {
    let inner = inner(eth);
    let mut buf = vec![0u8; HEADROOM];
    buf.extend_from_slice(&inner);
    let spec = EncapSpec {
        eth: Some(OuterEthernet {
            dst: [2; 6],
            src: [4; 6],
            vlan: None,
        }),
        ip: OuterIp::V4 {
            src: [192, 0, 2, 1],
            dst: [192, 0, 2, 2],
            ttl: 64,
            tos: 0,
            id: 1,
            dont_fragment: true,
        },
        tunnel,
        udp_csum: mode,
    };
    let link = if eth {
        LinkType::Ethernet
    } else {
        LinkType::RawIp
    };
    let e = encap(
        &spec,
        &EncapConfig::DEFAULT,
        &mut buf,
        HEADROOM,
        inner.len(),
        link,
        CsumMeta::NONE,
    )
    .unwrap();
    buf[e.start..e.end].to_vec()
}

/// Inner TCP validation from the state decap left (the state room's `validate`).
fn inner_tcp_ok(bytes: &[u8], l: &Layers, meta: CsumMeta) -> bool {
    let pkt = Packet::new(&bytes[..l.end], *l, l.l3).unwrap();
    validate(meta, &pkt).unwrap().verdict == CsumVerdict::Good
}

/// The baseline: the inner TCP checksum summed from scratch over the segment.
fn scratch_tcp_ok(bytes: &[u8], l: &Layers) -> bool {
    let mut s = [0u8; 4];
    let mut d = [0u8; 4];
    s.copy_from_slice(&bytes[l.pseudo_src..l.pseudo_src + 4]);
    d.copy_from_slice(&bytes[l.pseudo_dst..l.pseudo_dst + 4]);
    let pseudo = csum::pseudo_v4(s, d, 6, (l.end - l.l4) as u32, Wsum::ZERO);
    csum::fold(csum::partial(&bytes[l.l4..l.end], pseudo)).is_zero()
}

fn bench(c: &mut Criterion) {
    let cfg = EncapConfig::DEFAULT;
    let opts = [0x0102_8001u32.to_be_bytes(), [1, 2, 3, 4]].concat();
    let kinds: Vec<(&str, Vec<u8>)> = vec![
        (
            "vxlan_csum",
            frame(
                TunnelSpec::Vxlan {
                    vni: 5,
                    src_port: 1234,
                    dst_port: 4789,
                },
                true,
                UdpCsumMode::Compute,
            ),
        ),
        (
            "vxlan_zero",
            frame(
                TunnelSpec::Vxlan {
                    vni: 5,
                    src_port: 1234,
                    dst_port: 4789,
                },
                true,
                UdpCsumMode::Zero,
            ),
        ),
        (
            "geneve_csum",
            frame(
                TunnelSpec::Geneve {
                    vni: 5,
                    src_port: 1234,
                    dst_port: 6081,
                    options: &opts,
                    oam: false,
                    critical: false,
                },
                true,
                UdpCsumMode::Compute,
            ),
        ),
        (
            "gre_csum",
            frame(
                TunnelSpec::Gre {
                    key: Some(9),
                    seq: None,
                    checksum: true,
                },
                false,
                UdpCsumMode::Zero,
            ),
        ),
        ("ipip", frame(TunnelSpec::IpInIp, false, UdpCsumMode::Zero)),
    ];
    let mut g = c.benchmark_group("decap_validate");
    for (name, bytes) in &kinds {
        let outer = wire::parse(bytes, LinkType::Ethernet).unwrap();
        // Baseline: the inner TCP checksum validated from scratch.
        let inner_l = decap(bytes, &outer, outer.l3, CsumMeta::NONE, &cfg)
            .unwrap()
            .inner;
        g.bench_function(format!("{name}/baseline_scratch"), |b| {
            b.iter(|| {
                let ok = scratch_tcp_ok(black_box(bytes), &inner_l);
                assert!(ok);
            })
        });
        let full = csum::partial(&bytes[outer.l3..outer.end], Wsum::ZERO);
        let reports = [
            ("none", CsumState::None),
            (
                "level0",
                CsumState::Unnecessary {
                    level: CsumLevel::L0,
                },
            ),
            (
                "level1",
                CsumState::Unnecessary {
                    level: CsumLevel::L1,
                },
            ),
            ("complete", CsumState::Complete { csum: full }),
        ];
        for (rname, state) in reports {
            // Level 1 claims two checksums: only honest when the outer has one.
            if rname == "level1" && (*name == "ipip") {
                continue;
            }
            g.bench_function(format!("{name}/{rname}"), |b| {
                b.iter(|| {
                    let d = decap(
                        black_box(bytes),
                        &outer,
                        outer.l3,
                        CsumMeta::from_state(state),
                        &cfg,
                    )
                    .unwrap();
                    let sw = d.sw_bytes;
                    let ok = inner_tcp_ok(bytes, &d.inner, d.meta);
                    assert!(ok);
                    sw
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
