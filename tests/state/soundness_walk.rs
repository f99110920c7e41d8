//! The soundness walk as a property test (issue 14 item 5): every boundary's
//! `to_meta`, then random sequences of the public transitions, checked after
//! every step by the from-scratch oracle (tests/support/walk.rs says what is
//! checked). `PROPTEST_CASES` raises the case count (default 3000, about 6 s in the test profile once the known bugs are fixed).

use crate::support::{packet_build, walk};

use packet_build as pb;
use proptest::prelude::*;
use walk::{Case, DevReport, Field, Frame, Op, Start, TunnelKind, TunnelLayer, VirtioStart};

fn arb_field() -> impl Strategy<Value = Field> {
    prop_oneof![
        1 => Just(Field::AsBuilt),
        3 => Just(Field::Seed),
        1 => Just(Field::SeedNoLen),
        1 => any::<u16>().prop_map(Field::Garbage),
    ]
}

fn arb_tunnel() -> impl Strategy<Value = TunnelLayer> {
    let kind = prop_oneof![
        Just(TunnelKind::Vxlan),
        (0u8..=3, any::<bool>()).prop_map(|(opt_words, inner_eth)| TunnelKind::Geneve {
            opt_words,
            inner_eth
        }),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(c, k, s, inner_eth)| TunnelKind::Gre { c, k, s, inner_eth }),
        Just(TunnelKind::IpIp),
    ];
    (
        kind,
        any::<bool>(),
        0u8..=3,
        0u8..=2,
        any::<bool>(),
        prop::bool::weighted(0.3),
        0u8..=2,
    )
        .prop_map(
            |(kind, v6, v4_opt_words, v6_ext_blocks, udp_zero, corrupt, vlans)| TunnelLayer {
                kind,
                v6,
                v4_opt_words,
                v6_ext_blocks,
                udp_zero,
                corrupt,
                vlans,
            },
        )
}

fn arb_inner() -> impl Strategy<Value = pb::Spec> {
    (
        any::<bool>(),
        0u8..=2,
        prop_oneof![
            (0u8..=10).prop_map(|opt_words| pb::L4::Tcp { opt_words }),
            Just(pb::L4::Udp),
            Just(pb::L4::UdpZero),
            Just(pb::L4::Sctp),
            Just(pb::L4::Icmp),
        ],
        prop::collection::vec(any::<u8>(), 0..=200),
        0u8..=10,
        0u8..=3,
        prop::bool::weighted(0.2),
        any::<u8>(),
        1u8..=255,
    )
        .prop_map(
            |(v6, vlans, l4, payload, v4_opt_words, v6_ext_blocks, pad, addr_seed, ttl)| pb::Spec {
                v6,
                raw_ip: false,
                vlans,
                l4,
                payload,
                v4_opt_words,
                v6_ext_blocks,
                pad: if pad { vec![0; 6] } else { Vec::new() },
                addr_seed,
                ttl,
            },
        )
}

fn arb_frame() -> impl Strategy<Value = Frame> {
    prop_oneof![
        12 => (
            prop::bool::weighted(0.85),
            prop::collection::vec(arb_tunnel(), 0..=2),
            arb_inner(),
            prop::bool::weighted(0.4),
        )
            .prop_map(|(eth, tunnels, inner, corrupt_inner)| Frame::Ip {
                eth,
                tunnels,
                inner,
                corrupt_inner
            }),
        2 => (0u8..=18).prop_map(|pad| Frame::Arp { pad }),
        2 => (
            prop_oneof![Just(0x0800u16), Just(0x86DD), Just(0x0806), any::<u16>()],
            prop::collection::vec(any::<u8>(), 0..80)
        )
            .prop_map(|(ethertype, body)| Frame::Garbage { ethertype, body }),
    ]
}

fn arb_start() -> impl Strategy<Value = Start> {
    let device = prop_oneof![
        Just(DevReport::None),
        (0u8..=3).prop_map(DevReport::Level),
        Just(DevReport::Bad),
        Just(DevReport::Complete),
    ]
    .prop_map(Start::Device);
    let vstart = prop_oneof![
        3 => any::<u8>().prop_map(VirtioStart::Site),
        1 => (any::<u8>(), 0u16..40).prop_map(|(i, o)| VirtioStart::SiteOffset(i, o)),
        3 => (0u16..64, 0u16..40).prop_map(|(a, b)| VirtioStart::Raw(a, b)),
    ];
    let gso = prop_oneof![
        6 => Just(0u8),
        1 => Just(1u8),
        1 => Just(3u8),
        1 => Just(4u8),
        1 => Just(5u8),
        1 => Just(0x81u8),
        1 => any::<u8>(),
    ];
    let virtio = (
        (any::<bool>(), any::<bool>(), vstart, arb_field()),
        (gso, 0u16..1600, 0u16..200),
        (
            any::<bool>(),
            0u8..4,
            any::<bool>(),
            prop::bool::weighted(0.2),
        ),
    )
        .prop_map(
            |(
                (needs_csum, data_valid, start, field),
                (gso_type, gso_size, hdr_len),
                (from_device, dv_policy, seed_verify, hdr_len_exact),
            )| Start::Virtio {
                needs_csum,
                data_valid,
                start,
                field,
                gso_type,
                gso_size,
                hdr_len,
                from_device,
                dv_policy,
                seed_verify,
                hdr_len_exact,
            },
        );
    // Mostly `data_validated` (the flag item 1 is about).
    let xen_csum = prop_oneof![1 => Just(0u8), 3 => Just(1u8), 1 => Just(2u8), 2 => Just(3u8)];
    let xen = (xen_csum, 0u8..3, any::<bool>(), arb_field()).prop_map(
        |(csum, trust, seed_verify, field)| Start::Xen {
            csum,
            trust,
            seed_verify,
            field,
        },
    );
    let dpdk_rx = (
        0u8..4,
        0u8..4,
        0u8..4,
        prop::bool::weighted(0.1),
        any::<bool>(),
        arb_field(),
    )
        .prop_map(
            |(ip, l4, outer_l4, outer_ip_bad, with_frame, field)| Start::DpdkRx {
                ip,
                l4,
                outer_l4,
                outer_ip_bad,
                with_frame,
                field,
            },
        );
    let dpdk_tx = (
        // Mostly the packet's own request (DPDK accepts it), sometimes anything.
        (
            prop_oneof![3 => Just(4u8), 1 => 0u8..4],
            prop_oneof![3 => Just(4u8), 1 => 0u8..8],
            any::<bool>(),
            prop::bool::weighted(0.2),
        ),
        (
            prop_oneof![Just(0u16), Just(512u16), 1u16..2000],
            any::<bool>(),
            any::<bool>(),
            arb_field(),
        ),
    )
        .prop_map(
            |((l4, ip, ip_cksum, tcp_seg), (tso_segsz, tunnel, outer_ip_cksum, field))| {
                Start::DpdkTx {
                    l4,
                    ip,
                    ip_cksum,
                    tcp_seg,
                    tso_segsz,
                    tunnel,
                    outer_ip_cksum,
                    field,
                }
            },
        );
    let afp =
        (any::<bool>(), any::<bool>(), arb_field()).prop_map(|(csum_valid, not_ready, field)| {
            Start::AfPacket {
                csum_valid,
                not_ready,
                field,
            }
        });
    // WALK_STARTS=virtio,xen (names below) narrows the starts, to measure
    // how fast one boundary's bug is found.
    let all: Vec<(&str, u32, BoxedStrategy<Start>)> = vec![
        ("device", 2, device.boxed()),
        ("virtio", 3, virtio.boxed()),
        ("xen", 3, xen.boxed()),
        ("dpdk_rx", 1, dpdk_rx.boxed()),
        ("dpdk_tx", 2, dpdk_tx.boxed()),
        ("afpacket", 1, afp.boxed()),
    ];
    let want = std::env::var("WALK_STARTS").unwrap_or_default();
    let chosen: Vec<(u32, BoxedStrategy<Start>)> = all
        .into_iter()
        .filter(|(name, _, _)| want.is_empty() || want.split(',').any(|w| w == *name))
        .map(|(_, w, s)| (w, s))
        .collect();
    assert!(
        !chosen.is_empty(),
        "WALK_STARTS names none of device,virtio,xen,dpdk_rx,dpdk_tx,afpacket"
    );
    proptest::strategy::Union::new_weighted(chosen)
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Validate),
        1 => Just(Op::Deliver),
        1 => Just(Op::TryConvert),
        1 => (0u8..5, any::<bool>()).prop_map(|(hook, checksum)| Op::Conntrack { hook, checksum }),
        1 => any::<u16>().prop_map(Op::Pull),
        1 => any::<u16>().prop_map(Op::Push),
        1 => (any::<bool>(), any::<u16>()).prop_map(|(to_end, n)| Op::Trim { to_end, n }),
        1 => Just(Op::Bridge),
        1 => Just(Op::Route),
        1 => (0u8..4, any::<u8>(), any::<u8>()).prop_map(|(which, a, b)| Op::Nat { which, a, b }),
        2 => Just(Op::Fill),
        1 => Just(Op::CheckIpv4Header),
        4 => any::<bool>().prop_map(|zero6| Op::Decap { zero6 }),
        2 => any::<bool>().prop_map(|zero6| Op::DecapNested { zero6 }),
        2 => any::<bool>().prop_map(|convert| Op::Descend { convert }),
        2 => (0u8..5, 0u8..3, any::<bool>(), any::<bool>())
            .prop_map(|(kind, udp, v6, eth)| Op::Encap { kind, udp, v6, eth }),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(ip_csum, tso)| Op::DpdkTxRoundTrip { ip_csum, tso }),
    ]
}

fn arb_case() -> impl Strategy<Value = Case> {
    (
        arb_frame(),
        arb_start(),
        prop::collection::vec(arb_op(), 1..=8),
    )
        .prop_map(|(frame, start, ops)| Case { frame, start, ops })
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Every boundary, every transition, every checksum recomputed after every step.
    #[test]
    fn soundness_walk(case in arb_case()) {
        if let Err(f) = walk::run(&case) {
            if let Some(k) = walk::known_bug(&f).filter(|k| walk::tolerated(k)) {
                if std::env::var_os("WALK_VERBOSE").is_some() {
                    eprintln!("KNOWN {k} :: {} :: {}", f.what, f.detail.chars().take(160).collect::<String>());
                }
                return Ok(());
            }
            prop_assert!(false, "{f}\ncase: {case:#?}");
        }
    }
}

// The minimal counterexamples the walk finds for the known bugs of issue 14
// (each fails until its fix is merged; then the walk must pass them).

fn tcp_inner(payload: usize) -> pb::Spec {
    pb::simple(false, pb::L4::Tcp { opt_words: 0 }, &vec![0x61; payload])
}

fn vxlan_v4() -> TunnelLayer {
    TunnelLayer {
        kind: TunnelKind::Vxlan,
        v6: false,
        v4_opt_words: 0,
        v6_ext_blocks: 0,
        udp_zero: false,
        corrupt: false,
        vlans: 0,
    }
}

#[track_caller]
fn must_pass(case: Case) {
    if let Err(f) = walk::run(&case) {
        panic!("{f}");
    }
}

/// Item 1: Xen `data_validated` (trusted as `Unnecessary`) on
/// Ethernet/IPv4/UDP 4789/VXLAN/Ethernet/IPv4/TCP with a corrupted inner TCP
/// checksum: after `decap` the flag must not vouch for the inner layer
/// (`Unsound::DataValidOnBad`), nor make `validate` answer Good.
#[test]
fn walk_item1_xen_data_valid_does_not_cross_decap() {
    for udp_zero in [false, true] {
        must_pass(Case {
            frame: Frame::Ip {
                eth: true,
                tunnels: vec![TunnelLayer {
                    udp_zero,
                    ..vxlan_v4()
                }],
                inner: tcp_inner(100),
                corrupt_inner: true,
            },
            start: Start::Xen {
                csum: 1,  // Validated
                trust: 0, // Unnecessary
                seed_verify: true,
                field: Field::AsBuilt,
            },
            ops: vec![Op::Decap { zero6: false }, Op::Validate],
        });
    }
}

/// Item 2: a guest's `NEEDS_CSUM` with `csum_start` 14 / `csum_offset` 16 on
/// a 42-byte ARP frame: Linux refuses it (`csum_start` below `nh_min_len`).
#[test]
fn walk_item2_virtio_start_below_ip_header() {
    must_pass(Case {
        frame: Frame::Arp { pad: 0 },
        start: Start::Virtio {
            needs_csum: true,
            data_valid: false,
            start: VirtioStart::Raw(14, 16),
            field: Field::AsBuilt,
            gso_type: 0,
            gso_size: 0,
            hdr_len: 0,
            from_device: false,
            dv_policy: 2,
            seed_verify: true,
            hdr_len_exact: false,
        },
        ops: vec![],
    });
}

fn dpdk_tx(l4: u8, ip: u8, ip_cksum: bool, field: Field) -> Start {
    Start::DpdkTx {
        l4,
        ip,
        ip_cksum,
        tcp_seg: false,
        tso_segsz: 0,
        tunnel: false,
        outer_ip_cksum: false,
        field,
    }
}

/// Item 7: an mbuf asking for the TCP checksum of a plain IPv4/TCP packet
/// whose field holds the full checksum (DPDK's prepare writes the seed
/// later): a `Partial` from it is unsound (`Unsound::PartialFillWrong`).
#[test]
fn walk_item7_dpdk_tx_seed_not_checked() {
    must_pass(Case {
        frame: Frame::Ip {
            eth: true,
            tunnels: vec![],
            inner: tcp_inner(20),
            corrupt_inner: false,
        },
        start: dpdk_tx(4, 4, true, Field::AsBuilt),
        ops: vec![],
    });
}

/// Item 7: `TX_IPV6 | TX_IP_CKSUM`, which `rte_validate_tx_offload` refuses.
#[test]
fn walk_item7_dpdk_tx_ipv6_with_ip_cksum() {
    let mut inner = tcp_inner(20);
    inner.v6 = true;
    must_pass(Case {
        frame: Frame::Ip {
            eth: true,
            tunnels: vec![],
            inner,
            corrupt_inner: false,
        },
        start: dpdk_tx(4, 2, true, Field::Seed),
        ops: vec![],
    });
}

/// Item 7: `meta_to_tx` for an IPv4 TCP super-packet without `TX_IP_CKSUM`
/// asks for what `rte_validate_tx_offload` refuses.
#[test]
fn walk_item7_meta_to_tx_ipv4_tso_needs_ip_cksum() {
    must_pass(Case {
        frame: Frame::Ip {
            eth: true,
            tunnels: vec![],
            inner: tcp_inner(300),
            corrupt_inner: false,
        },
        start: Start::AfPacket {
            csum_valid: false,
            not_ready: true,
            field: Field::Seed,
        },
        ops: vec![Op::DpdkTxRoundTrip {
            ip_csum: false,
            tso: true,
        }],
    });
}

/// The generator reaches what the walk is for: every boundary starts a walk
/// (its `to_meta` accepted) and decapsulations happen, on a fixed seed.
#[test]
fn walk_generator_reaches_every_boundary_and_decap() {
    use proptest::strategy::ValueTree;
    if std::env::var_os("WALK_STARTS").is_some() {
        return;
    }
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = arb_case();
    let (mut started, mut decaps, mut steps) = ([0usize; 6], 0, 0);
    for _ in 0..600 {
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        let kind = match case.start {
            Start::Device(_) => 0,
            Start::Virtio { .. } => 1,
            Start::Xen { .. } => 2,
            Start::DpdkRx { .. } => 3,
            Start::DpdkTx { .. } => 4,
            Start::AfPacket { .. } => 5,
        };
        // A failure (a known bug before its fix) counts as reached.
        let st = walk::run(&case).unwrap_or(walk::Stats {
            started: true,
            ..walk::Stats::default()
        });
        started[kind] += usize::from(st.started);
        decaps += st.decaps;
        steps += st.steps;
    }
    println!("started per boundary {started:?}, decaps {decaps}, steps {steps}");
    assert!(started.iter().all(|&n| n >= 5), "{started:?}");
    assert!(decaps >= 50, "{decaps}");
}
