//! Encapsulate then decapsulate: bytes and state round-trip, outer checksums
//! verify by the independent oracle (after the simulated device fill for
//! Partial states), with random inner packets built by etherparse.

use crate::support::encap as encap_support;

use encap_support::oracle;
use encap_support::*;
use netoffload::encap::{
    DecapReason, EncapConfig, EncapError, EncapSpec, OuterCsumFill, OuterEthernet, OuterIp,
    TunnelSpec, UdpCsumMode, ZeroCsumPolicy, decap, encap,
};
use netoffload::state::{CsumLevel, CsumMeta, CsumState, PartialKind};
use netoffload::wire::{self, Layers, LinkType, Transport};
use proptest::prelude::*;

const HEADROOM: usize = 200;

fn cfg() -> EncapConfig {
    EncapConfig {
        ipv6_zero_csum_ports: [4789, 6081, 0, 0],
        ipv6_zero_csum_policy: ZeroCsumPolicy::Both,
        ..EncapConfig::DEFAULT
    }
}

/// Puts the pseudo-header seed into the inner L4 field: what a local stack
/// leaves for CHECKSUM_PARTIAL. Returns the Partial state (offsets from the
/// inner packet's first byte).
fn make_partial(inner: &mut [u8], l: &Layers) -> CsumState {
    let (proto, off) = match l.transport {
        Transport::Tcp => (6, 16),
        Transport::Udp => (17, 6),
        _ => unreachable!(),
    };
    let seed = naive_sum(&[], naive_pseudo(inner, l, proto, l.end - l.l4));
    inner[l.l4 + off..l.l4 + off + 2].copy_from_slice(&seed.to_be_bytes());
    CsumState::Partial {
        start: l.l4,
        offset: off,
        kind: PartialKind::Inet,
    }
}

/// The device's fill of a Partial checksum (naive loop; UDP 0 sent as 0xFFFF).
fn device_fill(frame: &mut [u8], start: usize, offset: usize, udp: bool) {
    let mut f = !naive_sum(&frame[start..], 0);
    if udp && f == 0 {
        f = 0xFFFF;
    }
    frame[start + offset..start + offset + 2].copy_from_slice(&f.to_be_bytes());
}

#[derive(Clone, Debug)]
struct Case {
    inner_v6: bool,
    inner_udp: bool,
    inner_eth: bool,
    inner_vlan: Option<u16>,
    payload: Vec<u8>,
    tunnel: u8,
    geneve_opts: Vec<u8>,
    gre_key: Option<u32>,
    gre_seq: Option<u32>,
    gre_csum: bool,
    outer_v6: bool,
    outer_vlan: Option<u16>,
    mode: UdpCsumMode,
    inner_state: u8,
    /// A byte to corrupt after the round trip (position fraction, xor mask).
    corrupt: (u16, u8),
}

fn geneve_opts() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((any::<u16>(), any::<u8>(), 0u8..4), 0..4).prop_map(|opts| {
        let mut v = Vec::new();
        for (class, ty, words) in opts {
            v.extend_from_slice(&class.to_be_bytes());
            v.push(ty);
            v.push(words);
            v.extend(std::iter::repeat_n(0xA5u8, words as usize * 4));
        }
        v
    })
}

fn case() -> impl Strategy<Value = Case> {
    (
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            prop::option::of(1u16..4095),
        ),
        prop::collection::vec(any::<u8>(), 0..300),
        (
            0u8..4,
            geneve_opts(),
            prop::option::of(any::<u32>()),
            prop::option::of(any::<u32>()),
            any::<bool>(),
        ),
        (any::<bool>(), prop::option::of(1u16..4095)),
        prop_oneof![
            Just(UdpCsumMode::Zero),
            Just(UdpCsumMode::Compute),
            Just(UdpCsumMode::Offload)
        ],
        0u8..3,
        (any::<u16>(), 1u8..=255),
    )
        .prop_map(
            |(
                (inner_v6, inner_udp, inner_eth, inner_vlan),
                payload,
                (tunnel, geneve_opts, gre_key, gre_seq, gre_csum),
                (outer_v6, outer_vlan),
                mode,
                inner_state,
                corrupt,
            )| Case {
                inner_v6,
                inner_udp,
                inner_eth,
                inner_vlan,
                payload,
                tunnel,
                geneve_opts,
                gre_key,
                gre_seq,
                gre_csum,
                outer_v6,
                outer_vlan,
                mode,
                inner_state,
                corrupt,
            },
        )
}

fn build_inner(c: &Case) -> (Vec<u8>, LinkType) {
    // VXLAN carries Ethernet only; IP-in-IP carries IP only.
    let eth = match c.tunnel {
        0 => true,
        3 => false,
        _ => c.inner_eth,
    };
    let pkt = if eth {
        if c.inner_udp {
            let mut out = Vec::new();
            let b = etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 9], [2, 0, 0, 0, 0, 8]);
            let b = match c.inner_vlan {
                Some(v) => b
                    .single_vlan(etherparse::VlanId::try_new(v).unwrap())
                    .ip(ip_hdr(c.inner_v6)),
                None => b.ip(ip_hdr(c.inner_v6)),
            };
            b.udp(7777, 8888).write(&mut out, &c.payload).unwrap();
            out
        } else {
            eth_tcp(c.inner_v6, c.inner_vlan, &c.payload)
        }
    } else if c.inner_udp {
        ip_udp(c.inner_v6, &c.payload)
    } else {
        ip_tcp(c.inner_v6, &c.payload)
    };
    (
        pkt,
        if eth {
            LinkType::Ethernet
        } else {
            LinkType::RawIp
        },
    )
}

fn ip_hdr(v6: bool) -> etherparse::IpHeaders {
    if v6 {
        etherparse::IpHeaders::Ipv6(
            etherparse::Ipv6Header {
                source: v6addr(9),
                destination: v6addr(10),
                hop_limit: 9,
                ..Default::default()
            },
            Default::default(),
        )
    } else {
        etherparse::IpHeaders::Ipv4(
            etherparse::Ipv4Header::new(
                0,
                9,
                etherparse::IpNumber::UDP,
                [10, 9, 9, 1],
                [10, 9, 9, 2],
            )
            .unwrap(),
            Default::default(),
        )
    }
}

fn spec<'a>(c: &'a Case) -> EncapSpec<'a> {
    let tunnel = match c.tunnel {
        0 => TunnelSpec::Vxlan {
            vni: 0x00ab_cdef,
            src_port: 49152,
            dst_port: 4789,
        },
        1 => TunnelSpec::Geneve {
            vni: 77,
            src_port: 50000,
            dst_port: 6081,
            options: &c.geneve_opts,
            oam: false,
            critical: false,
        },
        2 => TunnelSpec::Gre {
            key: c.gre_key,
            seq: c.gre_seq,
            checksum: c.gre_csum,
        },
        _ => TunnelSpec::IpInIp,
    };
    let ip = if c.outer_v6 {
        OuterIp::V6 {
            src: v6addr(0x31),
            dst: v6addr(0x32),
            hop_limit: 63,
            traffic_class: 0,
            flow_label: 0x12345,
        }
    } else {
        OuterIp::V4 {
            src: [203, 0, 113, 1],
            dst: [203, 0, 113, 2],
            ttl: 63,
            tos: 0,
            id: 0x4242,
            dont_fragment: true,
        }
    };
    EncapSpec {
        eth: Some(OuterEthernet {
            dst: [2, 1, 1, 1, 1, 1],
            src: [2, 2, 2, 2, 2, 2],
            vlan: c.outer_vlan,
        }),
        ip,
        tunnel,
        udp_csum: c.mode,
    }
}

fn run(c: &Case) -> Result<(), TestCaseError> {
    let (mut inner, link) = build_inner(c);
    let il = wire::parse(&inner, link).unwrap();
    let state = match c.inner_state {
        0 => CsumState::None,
        1 => make_partial(&mut inner, &il),
        _ => CsumState::Unnecessary {
            level: CsumLevel::L0,
        },
    };
    let mut buf = vec![0u8; HEADROOM];
    buf.extend_from_slice(&inner);
    let cfg = cfg();
    let e = encap(
        &spec(c),
        &cfg,
        &mut buf,
        HEADROOM,
        inner.len(),
        link,
        CsumMeta::from_state(state),
    )
    .unwrap();
    let outer_has_csum = match c.tunnel {
        0 | 1 => c.mode != UdpCsumMode::Zero,
        2 => c.gre_csum,
        _ => false,
    };
    // The inner bytes are untouched, the frame is contiguous.
    prop_assert!(buf[HEADROOM..] == inner[..], "inner bytes changed by encap");
    prop_assert_eq!(e.end, buf.len());
    prop_assert_eq!(e.start + e.inner, HEADROOM);
    let frame = &mut buf[e.start..e.end];
    let outer = wire::parse(frame, LinkType::Ethernet).unwrap();
    prop_assert_eq!(outer.l3, e.l3);
    prop_assert_eq!(outer.l4, e.l4);
    prop_assert_eq!(outer.end, frame.len());
    if !c.outer_v6 {
        prop_assert_eq!(
            naive_sum(&frame[outer.l3..outer.l4], 0),
            0xFFFF,
            "IPv4 header checksum"
        );
    }
    // Resulting transmit state and its effects.
    match (state, e.meta.state()) {
        (
            CsumState::Partial { start, offset, .. },
            CsumState::Partial {
                start: s2,
                offset: o2,
                ..
            },
        ) => {
            prop_assert_eq!(s2, start + e.inner);
            prop_assert_eq!(o2, offset);
            if outer_has_csum {
                prop_assert_eq!(e.outer_csum, OuterCsumFill::LocalOffload);
                prop_assert_eq!(e.sw_bytes, s2 - e.l4, "LCO reads only the headers");
            }
            device_fill(frame, s2, o2, c.inner_udp);
        }
        (_, CsumState::Partial { start, offset, .. }) => {
            prop_assert_eq!(e.outer_csum, OuterCsumFill::Device);
            prop_assert_eq!(start, e.l4);
            device_fill(frame, start, offset, true);
        }
        (CsumState::Unnecessary { .. }, CsumState::Unnecessary { level }) => {
            let counted = matches!(c.tunnel, 0 | 1) || (c.tunnel == 2 && c.gre_csum);
            prop_assert_eq!(level.get(), counted as u8);
        }
        (CsumState::None, CsumState::None) => {}
        (a, b) => prop_assert!(false, "{:?} -> {:?}", a, b),
    }
    if e.outer_csum == OuterCsumFill::Software {
        prop_assert_eq!(e.sw_bytes, outer.end - outer.l4);
    }
    // After the device's fill, every checksum in the frame verifies.
    let ch = chain(frame, &outer, true);
    prop_assert!(ch.iter().all(|&ok| ok), "chain {:?}", ch);
    prop_assert_eq!(
        ch.len(),
        1 + outer_has_csum as usize + (c.tunnel <= 1 && !outer_has_csum) as usize
    );

    // Receive the frame: no device report, then an honest tunnel-aware one.
    let frame = &buf[e.start..e.end];
    // The device fill changed at most the inner checksum field.
    let changed: Vec<usize> = (0..inner.len())
        .filter(|&i| frame[e.inner + i] != inner[i])
        .collect();
    if let CsumState::Partial { start, offset, .. } = state {
        prop_assert!(
            changed
                .iter()
                .all(|&i| i == start + offset || i == start + offset + 1)
        );
    } else {
        prop_assert!(changed.is_empty());
    }
    let inner = frame[e.inner..].to_vec();
    for report in [
        CsumState::None,
        CsumState::Unnecessary {
            level: CsumLevel::new((ch.len() - 1) as u8).unwrap(),
        },
    ] {
        let d = decap(frame, &outer, outer.l3, CsumMeta::from_state(report), &cfg).unwrap();
        prop_assert_eq!(d.inner, shift(il, e.inner));
        prop_assert!(frame[d.tunnel.inner_start..] == inner[..]);
        sound(frame, &d.inner, d.inner.l3, &d.meta, true).map_err(TestCaseError::fail)?;
        if report == CsumState::None && outer_has_csum {
            prop_assert_eq!(d.reason, DecapReason::SoftwareVerifiedConverted);
        }
        if let CsumState::Unnecessary { level } = report {
            // The level the encapsulator added comes back off.
            let expect = if ch.len() >= 2 {
                CsumState::Unnecessary {
                    level: CsumLevel::new(level.get() - 1).unwrap(),
                }
            } else {
                report
            };
            prop_assert_eq!(d.meta.state(), expect);
        }
    }
    corrupted(c, frame, &outer, &cfg)
}

/// One byte after the outer L4 header flipped: whatever an honest device
/// reports, decap either refuses with a typed error or gives a sound state,
/// and the inner checksum is never called good when it is not.
fn corrupted(
    c: &Case,
    frame: &[u8],
    outer: &Layers,
    cfg: &EncapConfig,
) -> Result<(), TestCaseError> {
    let mut bad = frame.to_vec();
    let span = bad.len() - outer.l4;
    let at = outer.l4 + (c.corrupt.0 as usize * span) / 65536;
    bad[at] ^= c.corrupt.1;
    let Ok(o) = wire::parse(&bad, LinkType::Ethernet) else {
        return Ok(());
    };
    let sites = oracle::sites(&bad, oracle::Link::Ethernet);
    let good_prefix = sites
        .iter()
        .filter(|s| s.counted)
        .take_while(|s| s.correct)
        .count();
    let mut reports = vec![
        CsumState::None,
        CsumState::Complete {
            csum: netoffload::csum::partial(&bad[o.l3..], netoffload::csum::Wsum::ZERO),
        },
    ];
    if good_prefix > 0 {
        reports.push(CsumState::Unnecessary {
            level: CsumLevel::new((good_prefix - 1).min(3) as u8).unwrap(),
        });
    }
    for report in reports {
        let Ok(d) = decap(&bad, &o, o.l3, CsumMeta::from_state(report), cfg) else {
            continue;
        };
        sound(&bad, &d.inner, d.inner.l3, &d.meta, true).map_err(TestCaseError::fail)?;
        if matches!(d.inner.transport, Transport::Tcp | Transport::Udp)
            && !d.inner.fragment.is_fragment
        {
            let (ok, _) = inner_validate(&bad, &d.inner, &d.meta);
            let truth = oracle::correct_at(&bad[..d.inner.end], oracle::Link::Ethernet, d.inner.l4);
            if ok {
                prop_assert_eq!(
                    truth,
                    Some(true),
                    "inner called good at {} ({:?})",
                    at,
                    report
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn encap_then_decap_round_trips_bytes_and_state(c in case()) {
        run(&c)?;
    }
}

#[test]
fn vxlan_over_ipv4_partial_inner_lco_round_trip_fixed_case() {
    let c = Case {
        inner_v6: false,
        inner_udp: false,
        inner_eth: true,
        inner_vlan: None,
        payload: (0..1000u32).map(|x| (x * 31) as u8).collect(),
        tunnel: 0,
        geneve_opts: Vec::new(),
        gre_key: None,
        gre_seq: None,
        gre_csum: false,
        outer_v6: false,
        outer_vlan: Some(5),
        mode: UdpCsumMode::Compute,
        inner_state: 1,
        corrupt: (1000, 0x40),
    };
    run(&c).unwrap();
}

#[test]
fn encap_refusals() {
    let cfg = EncapConfig::DEFAULT;
    let inner = ip_tcp(false, b"data");
    let mut buf = vec![0u8; 10];
    buf.extend_from_slice(&inner);
    let mut c = Case {
        inner_v6: false,
        inner_udp: false,
        inner_eth: false,
        inner_vlan: None,
        payload: Vec::new(),
        tunnel: 3,
        geneve_opts: Vec::new(),
        gre_key: None,
        gre_seq: None,
        gre_csum: false,
        outer_v6: false,
        outer_vlan: None,
        mode: UdpCsumMode::Zero,
        inner_state: 0,
        corrupt: (0, 1),
    };
    let r = encap(
        &spec(&c),
        &cfg,
        &mut buf,
        10,
        inner.len(),
        LinkType::RawIp,
        CsumMeta::NONE,
    )
    .unwrap_err();
    assert_eq!(
        r.error,
        EncapError::Headroom {
            needed: 34,
            available: 10
        }
    );
    let mut big = vec![0u8; HEADROOM];
    big.extend_from_slice(&inner);
    // Every refusal below: the inner packet behind full headroom.
    let refuse = |c: &Case, big: &mut Vec<u8>, meta: CsumMeta| {
        encap(
            &spec(c),
            &cfg,
            big,
            HEADROOM,
            inner.len(),
            LinkType::RawIp,
            meta,
        )
        .unwrap_err()
    };
    // VXLAN needs an Ethernet inner frame.
    c.tunnel = 0;
    let r = refuse(&c, &mut big, CsumMeta::NONE);
    assert_eq!(r.error, EncapError::InnerProtocol);
    // Zero IPv6 checksum without zero-checksum mode.
    c.tunnel = 1;
    c.outer_v6 = true;
    let r = refuse(&c, &mut big, CsumMeta::NONE);
    assert_eq!(r.error, EncapError::ZeroChecksumIpv6);
    // Malformed GENEVE options (length byte overruns).
    c.outer_v6 = false;
    c.geneve_opts = vec![0, 1, 2, 3];
    let r = refuse(&c, &mut big, CsumMeta::NONE);
    assert_eq!(r.error, EncapError::GeneveOptions);
    // CRC32c Partial inner with an outer checksum.
    c.geneve_opts = Vec::new();
    c.mode = UdpCsumMode::Compute;
    let crc = CsumMeta::from_state(CsumState::Partial {
        start: 20,
        offset: 8,
        kind: PartialKind::Crc32c,
    });
    let r = refuse(&c, &mut big, crc.clone());
    assert_eq!(r.error, EncapError::InnerCrcPartial);
    assert_eq!(r.meta, crc);
    // Partial offsets outside the inner packet.
    let oob = CsumMeta::from_state(CsumState::Partial {
        start: inner.len() - 1,
        offset: 16,
        kind: PartialKind::Inet,
    });
    let r = refuse(&c, &mut big, oob);
    assert_eq!(r.error, EncapError::PartialOutOfRange);
    // The inner packet is never touched by a refusal.
    assert_eq!(&big[HEADROOM..], &inner[..]);
}
