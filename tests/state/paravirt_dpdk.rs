//! DPDK `ol_flags`: every receive combination, transmit requests both ways.

use crate::support as common;
use crate::support::paravirt as support;

mod contract;
mod dpdk_model;
mod prop;
mod real_dpdk;
mod rules;

use netoffload::state::paravirt::dpdk::{
    self, Encap, OuterIpStatus, OuterL4Status, OuterTx, OuterUdpCsum, RxCsum, RxStatus, RxVerdict,
    TunnelType, TxOffload, TxSeedMode, ol,
};
use netoffload::state::paravirt::{BoundaryError, MetaField, Rule};
use netoffload::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use netoffload::wire::{self, GsoKind, GsoParams, LinkType, Net};
use support::{Spec, build, make_partial};

const STATUSES: [RxStatus; 4] = [
    RxStatus::Unknown,
    RxStatus::Bad,
    RxStatus::Good,
    RxStatus::NoneDataValid,
];
const OUTER: [OuterL4Status; 4] = [
    OuterL4Status::Unknown,
    OuterL4Status::Bad,
    OuterL4Status::Good,
    OuterL4Status::Invalid,
];
const OUTER_IP: [OuterIpStatus; 2] = [OuterIpStatus::NotReported, OuterIpStatus::Bad];
const ENCAPS: [Encap; 5] = [
    Encap::None,
    Encap::UdpTunnel(OuterUdpCsum::Zero),
    Encap::UdpTunnel(OuterUdpCsum::NonZero),
    Encap::NoOuterChecksum,
    Encap::GreWithChecksum,
];

#[test]
fn rx_bits_are_the_header_values() {
    // rte_mbuf_core.h: L4 BAD 1<<3, GOOD 1<<8, NONE both, UNKNOWN 0; IP BAD 1<<4,
    // GOOD 1<<7; OUTER_L4 BAD 1<<21, GOOD 1<<22; OUTER_IP BAD 1<<5.
    let rx = |l4, ip, o, oip| RxCsum {
        l4,
        ip,
        outer_l4: o,
        outer_ip: oip,
    };
    use OuterIpStatus::NotReported as NR;
    let table: [(RxCsum, u64); 8] = [
        (RxCsum::UNKNOWN, 0),
        (
            rx(
                RxStatus::Good,
                RxStatus::Unknown,
                OuterL4Status::Unknown,
                NR,
            ),
            0x100,
        ),
        (
            rx(RxStatus::Bad, RxStatus::Unknown, OuterL4Status::Unknown, NR),
            0x8,
        ),
        (
            rx(
                RxStatus::NoneDataValid,
                RxStatus::Unknown,
                OuterL4Status::Unknown,
                NR,
            ),
            0x108,
        ),
        (
            rx(
                RxStatus::Unknown,
                RxStatus::Good,
                OuterL4Status::Unknown,
                NR,
            ),
            0x80,
        ),
        (
            rx(RxStatus::Unknown, RxStatus::Bad, OuterL4Status::Unknown, NR),
            0x10,
        ),
        (
            rx(
                RxStatus::Unknown,
                RxStatus::Unknown,
                OuterL4Status::Good,
                NR,
            ),
            1 << 22,
        ),
        (
            rx(
                RxStatus::Unknown,
                RxStatus::Unknown,
                OuterL4Status::Invalid,
                OuterIpStatus::Bad,
            ),
            (3 << 21) | (1 << 5),
        ),
    ];
    for (r, bits) in table {
        assert_eq!(r.to_ol_flags(), bits, "{r:?}");
        assert_eq!(
            RxCsum::from_ol_flags(bits | (1 << 1) | (1 << 55)),
            r,
            "other bits are ignored"
        );
    }
}

/// The rule, spelled out independently: how many checksums from the outermost
/// are verified.
fn expected_count(l4: RxStatus, outer: OuterL4Status, encap: Encap) -> u8 {
    let inner = u8::from(l4 == RxStatus::Good);
    match encap {
        Encap::None | Encap::NoOuterChecksum => inner,
        Encap::GreWithChecksum => 0,
        Encap::UdpTunnel(z) => {
            let outer_ok = outer == OuterL4Status::Good
                || (outer == OuterL4Status::Unknown && z == OuterUdpCsum::Zero);
            if outer_ok { 1 + inner } else { 0 }
        }
    }
}

#[test]
fn every_rx_combination_claims_exactly_what_was_verified() {
    let mut rows = 0;
    for l4 in STATUSES {
        for ip in STATUSES {
            for outer_l4 in OUTER {
                for outer_ip in OUTER_IP {
                    for encap in ENCAPS {
                        rows += 1;
                        let rx = RxCsum {
                            ip,
                            l4,
                            outer_l4,
                            outer_ip,
                        };
                        assert_eq!(RxCsum::from_ol_flags(rx.to_ol_flags()), rx);
                        let got = dpdk::rx_to_meta(RxCsum::from_ol_flags(rx.to_ol_flags()), encap);
                        let n = expected_count(l4, outer_l4, encap);
                        let want_state = match n {
                            0 => CsumState::None,
                            n => CsumState::Unnecessary {
                                level: CsumLevel::new(n - 1).unwrap(),
                            },
                        };
                        assert_eq!(got.meta.state(), want_state, "{rx:?} {encap:?}");
                        // NONE (field not filled) cannot be claimed without
                        // the frame: no side facts from the bits alone.
                        assert_eq!(got.meta.flags(), CsumFlags::empty(), "{rx:?}");
                        // UNKNOWN (0) is never good.
                        if l4 == RxStatus::Unknown && outer_l4 != OuterL4Status::Good {
                            let zero_outer = encap == Encap::UdpTunnel(OuterUdpCsum::Zero)
                                && outer_l4 == OuterL4Status::Unknown;
                            if !zero_outer {
                                assert_eq!(got.meta, CsumMeta::NONE, "{rx:?} {encap:?}");
                            }
                        }
                        let want_verdict = if outer_ip == OuterIpStatus::Bad {
                            RxVerdict::BadOuterIpHeader
                        } else if outer_l4 == OuterL4Status::Bad {
                            RxVerdict::BadOuterL4
                        } else if outer_l4 == OuterL4Status::Invalid {
                            RxVerdict::InvalidOuterL4Status
                        } else if ip == RxStatus::Bad {
                            RxVerdict::BadIpHeader
                        } else if l4 == RxStatus::Bad {
                            RxVerdict::BadL4
                        } else {
                            RxVerdict::Clean
                        };
                        assert_eq!(got.verdict, want_verdict);
                    }
                }
            }
        }
    }
    assert_eq!(rows, 4 * 4 * 4 * 2 * 5);
}

#[test]
fn all_zero_flags_mean_nothing_not_good() {
    let got = dpdk::rx_to_meta(RxCsum::from_ol_flags(0), Encap::None);
    assert_eq!(got.meta, CsumMeta::NONE);
    assert_eq!(got.verdict, RxVerdict::Clean);
}

#[test]
fn zero_outer_udp_checksum_counts_as_a_level_like_the_82599_case() {
    // Outer UDP checksum zero, NIC says nothing about it, inner TCP good: two
    // checksums verified (the zero one trivially).
    let rx = RxCsum {
        l4: RxStatus::Good,
        ..RxCsum::UNKNOWN
    };
    let m = dpdk::rx_to_meta(rx, Encap::UdpTunnel(OuterUdpCsum::Zero)).meta;
    assert_eq!(
        m.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L1
        }
    );
    // Non-zero outer checksum and no outer report: the inner good cannot be
    // claimed, because the run must start at the outermost checksum.
    let m = dpdk::rx_to_meta(rx, Encap::UdpTunnel(OuterUdpCsum::NonZero)).meta;
    assert_eq!(m, CsumMeta::NONE);
}

#[test]
fn meta_to_rx_round_trips_without_gaining_claims() {
    let metas = [
        CsumMeta::NONE,
        CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        }),
        CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L1,
        }),
        CsumMeta::new(CsumState::None, CsumFlags::DATA_VALID).unwrap(),
        CsumMeta::new(
            CsumState::Partial {
                start: 34,
                offset: 16,
                kind: PartialKind::Inet,
            },
            CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID,
        )
        .unwrap(),
        CsumMeta::from_state(CsumState::Complete {
            csum: netoffload::csum::Wsum::new(9),
        }),
    ];
    for encap in ENCAPS {
        for m in metas.iter() {
            let rx = dpdk::meta_to_rx(m.clone(), encap);
            let back = dpdk::rx_to_meta(rx, encap).meta;
            let level = |s: CsumState| match s {
                CsumState::Unnecessary { level } => level.covered(),
                _ => 0,
            };
            // A zero outer UDP checksum is verified by its bytes, not by the
            // flags: that one level may appear; nothing else may.
            let free = u8::from(encap == Encap::UdpTunnel(OuterUdpCsum::Zero));
            let had = level(m.state()).max(u8::from(m.data_valid()));
            assert!(
                level(back.state()) <= had.max(free),
                "{m:?} {encap:?} -> {back:?}"
            );
            if matches!(m.state(), CsumState::Complete { .. }) {
                assert_eq!(rx, RxCsum::UNKNOWN, "an unverified Complete claims nothing");
            }
            if matches!(m.state(), CsumState::Partial { .. }) {
                assert_eq!(rx.l4, RxStatus::NoneDataValid);
                assert!(
                    back.flags().is_empty(),
                    "NONE without the frame claims no side fact"
                );
            }
        }
    }
    let m = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L1,
    });
    let rx = dpdk::meta_to_rx(m.clone(), Encap::UdpTunnel(OuterUdpCsum::NonZero));
    assert_eq!(
        dpdk::rx_to_meta(rx, Encap::UdpTunnel(OuterUdpCsum::NonZero)).meta,
        m
    );
}

// ---- transmit ----

fn layers(frame: &[u8], spec: Spec) -> wire::Layers {
    wire::parse(frame, spec.link()).unwrap()
}

fn partial(start: usize, offset: usize) -> CsumMeta {
    CsumMeta::from_state(CsumState::Partial {
        start,
        offset,
        kind: PartialKind::Inet,
    })
}

#[test]
fn tx_requests_for_plain_packets() {
    let spec = Spec::tcp4(100);
    let f = make_partial(build(spec), spec);
    let tx = dpdk::meta_to_tx(
        partial(34, 16),
        &mut f.clone(),
        &layers(&f, spec),
        None,
        None,
        true,
    )
    .unwrap();
    assert_eq!(tx.ol_flags, (1 << 52) | (1 << 55) | (1 << 54));
    assert_eq!((tx.l2_len, tx.l3_len), (14, 20));
    let spec = Spec {
        vlan: true,
        ..Spec::udp6(100)
    };
    let f = make_partial(build(spec), spec);
    let tx = dpdk::meta_to_tx(
        partial(spec.l4(), 6),
        &mut f.clone(),
        &layers(&f, spec),
        None,
        None,
        true,
    )
    .unwrap();
    assert_eq!(tx.ol_flags, (3 << 52) | (1 << 56));
    assert_eq!((tx.l2_len, tx.l3_len), (18, 40));
    // Already checksummed: no L4 request.
    let tx = dpdk::meta_to_tx(
        CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        }),
        &mut f.clone(),
        &layers(&f, spec),
        None,
        None,
        false,
    )
    .unwrap();
    assert_eq!(tx.ol_flags & ol::TX_L4_MASK, 0);
    // A Partial DPDK cannot point at.
    let e = dpdk::meta_to_tx(
        partial(spec.l4() + 2, 4),
        &mut f.clone(),
        &layers(&f, spec),
        None,
        None,
        false,
    )
    .unwrap_err();
    assert_eq!(
        e.error,
        BoundaryError::forbidden(MetaField::State, Rule::PartialNotAtTransport)
    );
    // A blank field without a place cannot even be built (state's rule), so no
    // boundary can be handed one.
    assert!(CsumMeta::new(CsumState::None, CsumFlags::CSUM_BLANK).is_err());
}

#[test]
fn tx_sctp_asks_for_crc32c() {
    let mut f = vec![0u8; 14 + 20 + 12 + 4];
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14] = 0x45;
    f[16..18].copy_from_slice(&36u16.to_be_bytes());
    f[22] = 64;
    f[23] = 132;
    let l = wire::parse(&f, LinkType::Ethernet).unwrap();
    let m = CsumMeta::from_state(CsumState::Partial {
        start: 34,
        offset: 8,
        kind: PartialKind::Crc32c,
    });
    let tx = dpdk::meta_to_tx(m, &mut f.clone(), &l, None, None, false).unwrap();
    assert_eq!(tx.ol_flags, (2 << 52) | (1 << 55));
    let back = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
    assert_eq!(
        back.meta.state(),
        CsumState::Partial {
            start: 34,
            offset: 8,
            kind: PartialKind::Crc32c
        }
    );
}

/// The length-less seed DPDK's `rte_ipv4/6_phdr_cksum` puts under TSO/USO,
/// computed independently: addresses + protocol, no length.
fn dpdk_tso_seed(f: &[u8], spec: Spec) -> u16 {
    let l3 = spec.l3();
    let (addrs, proto) = if spec.v6 {
        (&f[l3 + 8..l3 + 40], f[l3 + 6])
    } else {
        (&f[l3 + 12..l3 + 20], f[l3 + 9])
    };
    support::naive_fold(support::naive_sum(addrs, u64::from(proto)))
}

fn field(f: &[u8], spec: Spec) -> u16 {
    let at = spec.l4() + spec.csum_offset();
    u16::from_be_bytes([f[at], f[at + 1]])
}

#[test]
fn tx_segmentation_uses_dpdk_seed_convention_both_ways() {
    for (spec, kind, bits) in [
        (
            Spec::tcp6(5000),
            GsoKind::TcpV6,
            (1u64 << 50) | (1 << 52) | (1 << 56),
        ),
        (
            Spec::tcp4(5000),
            GsoKind::TcpV4,
            // rte_validate_tx_offload: IPv4 TSO needs TX_IP_CKSUM.
            (1 << 50) | (1 << 52) | (1 << 55) | (1 << 54),
        ),
        (
            Spec::udp4(5000),
            GsoKind::UdpL4,
            (1 << 42) | (3 << 52) | (1 << 55),
        ),
        (
            Spec::udp6(5000),
            GsoKind::UdpL4,
            (1 << 42) | (3 << 52) | (1 << 56),
        ),
    ] {
        let linux = make_partial(build(spec), spec);
        let sp = GsoParams {
            kind,
            ecn: false,
            gso_size: 1440,
            hdr_len: spec.payload_at(),
            segs: 4,
        };
        let mut f = linux.clone();
        let l = layers(&linux, spec);
        let tx = dpdk::meta_to_tx(
            partial(spec.l4(), spec.csum_offset()),
            &mut f,
            &l,
            None,
            Some(sp),
            false,
        )
        .unwrap();
        assert_eq!(tx.ol_flags, bits, "{spec:?}");
        assert_eq!(tx.l4_len as usize, spec.payload_at() - spec.l4());
        assert_eq!(tx.tso_segsz, 1440);
        assert_eq!(
            field(&f, spec),
            dpdk_tso_seed(&f, spec),
            "DPDK wants the length left out"
        );
        assert_ne!(field(&f, spec), field(&linux, spec));
        // Back from DPDK: the full seed is restored and the Partial is sound.
        let back = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
        assert_eq!(back.seg, Some((kind, 1440)));
        assert_eq!(f, linux);
        support::sound(&f, false, &back.meta).unwrap();
    }
    let spec = Spec::tcp4(5000);
    let mut f = make_partial(build(spec), spec);
    let l = layers(&f, spec);
    let sp = GsoParams {
        kind: GsoKind::TcpV4,
        ecn: false,
        gso_size: 1440,
        hdr_len: 54,
        segs: 4,
    };
    let un = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    let before = f.clone();
    let refused = dpdk::meta_to_tx(un.clone(), &mut f, &l, None, Some(sp), false).unwrap_err();
    assert_eq!(
        refused.error,
        BoundaryError::forbidden(MetaField::Gso, Rule::GsoWithoutChecksumState)
    );
    assert_eq!(refused.meta, un, "the refusal hands the metadata back");
    assert_eq!(f, before);
}

#[test]
fn tx_vxlan_lengths() {
    // Outer Ethernet/IPv4/UDP(4789)/VXLAN, inner Ethernet/IPv4/TCP.
    let inner_spec = Spec::tcp4(200);
    let inner = make_partial(build(inner_spec), inner_spec);
    let mut f = Vec::new();
    etherparse::PacketBuilder::ethernet2([1; 6], [2; 6])
        .ipv4([9, 9, 9, 9], [8, 8, 8, 8], 30)
        .udp(5555, 4789)
        .write(
            &mut f,
            &[[0x08, 0, 0, 0, 0, 0, 1, 0].as_slice(), &inner].concat(),
        )
        .unwrap();
    let inner_l3 = 14 + 20 + 8 + 8 + 14;
    let l = wire::parse_ip_at(&f, inner_l3, 0x0800, LinkType::Ethernet, 0, [0; 2]).unwrap();
    let outer = OuterTx {
        tunnel: TunnelType::Vxlan,
        outer_l3: 14,
        outer_l4: 34,
        outer_net: Net::Ipv4,
        outer_ip_csum: true,
        outer_udp_csum: true,
    };
    let tx = dpdk::meta_to_tx(
        partial(l.l4, 16),
        &mut f.clone(),
        &l,
        Some(outer),
        None,
        true,
    )
    .unwrap();
    assert_eq!(
        (tx.outer_l2_len, tx.outer_l3_len, tx.l2_len, tx.l3_len),
        (14, 20, 30, 20)
    );
    assert_eq!(
        tx.ol_flags,
        (1 << 45) | (1 << 52) | (1 << 54) | (1 << 55) | (1 << 58) | (1 << 59) | (1 << 41)
    );
    let back = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
    assert_eq!(
        back.meta.state(),
        CsumState::Partial {
            start: l.l4,
            offset: 16,
            kind: PartialKind::Inet
        }
    );
}

#[test]
fn tx_to_meta_checks_untrusted_lengths() {
    let spec = Spec::tcp4(100);
    let mut f = make_partial(build(spec), spec);
    let good = TxOffload {
        ol_flags: ol::TX_TCP_CKSUM | ol::TX_IPV4,
        l2_len: 14,
        l3_len: 20,
        ..TxOffload::default()
    };
    let m = dpdk::tx_to_meta(&good, &mut f, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
    assert_eq!(
        m.meta.state(),
        CsumState::Partial {
            start: 34,
            offset: 16,
            kind: PartialKind::Inet
        }
    );
    assert!(support::sound(&f, false, &m.meta).is_ok());
    let cases = [
        (
            TxOffload {
                l3_len: 500,
                ..good
            },
            MetaField::DpdkLengths,
        ),
        (TxOffload { l3_len: 24, ..good }, MetaField::DpdkLengths),
        (
            TxOffload {
                ol_flags: ol::TX_UDP_CKSUM | ol::TX_IPV4,
                ..good
            },
            MetaField::DpdkOlFlags,
        ),
        (
            TxOffload {
                ol_flags: ol::TX_TCP_SEG | ol::TX_UDP_CKSUM | ol::TX_IPV4,
                tso_segsz: 100,
                ..good
            },
            MetaField::DpdkOlFlags,
        ),
        (
            TxOffload {
                ol_flags: ol::TX_UDP_SEG | ol::TX_IPV4,
                tso_segsz: 100,
                ..good
            },
            MetaField::DpdkOlFlags,
        ),
        (
            TxOffload {
                ol_flags: ol::TX_TCP_SEG | ol::TX_IPV4,
                tso_segsz: 0,
                ..good
            },
            MetaField::DpdkTsoSegsz,
        ),
        (
            TxOffload {
                ol_flags: ol::TX_TCP_CKSUM | ol::TX_IPV4 | ol::TX_TUNNEL_MASK,
                ..good
            },
            MetaField::DpdkOlFlags,
        ),
    ];
    for (tx, field) in cases {
        assert_eq!(
            dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Verify)
                .unwrap_err()
                .field,
            field,
            "{tx:?}"
        );
    }
    // No L4 request: nothing claimed.
    let none = TxOffload {
        ol_flags: ol::TX_IPV4,
        ..good
    };
    assert_eq!(
        dpdk::tx_to_meta(&none, &mut f, LinkType::Ethernet, TxSeedMode::Verify)
            .unwrap()
            .meta,
        CsumMeta::NONE
    );
}

#[test]
fn none_status_with_the_frame_becomes_a_partial_when_the_field_is_the_seed() {
    let rx = RxCsum {
        l4: RxStatus::NoneDataValid,
        ..RxCsum::UNKNOWN
    };
    for spec in [Spec::tcp4(300), Spec::udp6(90)] {
        let seeded = make_partial(build(spec), spec);
        let got = dpdk::rx_to_meta_frame(rx, Encap::None, &seeded, LinkType::Ethernet);
        assert_eq!(got.meta.state(), spec.partial());
        assert!(got.meta.is_blank() && got.meta.data_valid());
        support::sound(&seeded, false, &got.meta).unwrap();
        // A field that is not the seed: nothing can be claimed.
        let full = build(spec);
        let got = dpdk::rx_to_meta_frame(rx, Encap::None, &full, LinkType::Ethernet);
        assert_eq!(got.meta, CsumMeta::NONE);
        // Tunnelled: the inner field is not located here.
        let got = dpdk::rx_to_meta_frame(rx, Encap::NoOuterChecksum, &seeded, LinkType::Ethernet);
        assert_eq!(got.meta, CsumMeta::NONE);
    }
}
