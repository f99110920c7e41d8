//! Decap over the matrix tunnel kind x outer v4/v6 x outer checksum zero /
//! non-zero x device report (none, level 0, level 1, Complete): the inner state
//! is sound by the independent oracle and the software byte count is the
//! expected one. Plus the 82599 case, errors and nesting.

use crate::support::encap as encap_support;

use encap_support::*;
use netoffload::csum::{self, Wsum};
use netoffload::encap::{
    DecapError, DecapReason, EncapConfig, ZeroCsumPolicy, decap, decap_nested,
};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};
use netoffload::wire::{self, Layers, LinkType, Net};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Report {
    None,
    Level0,
    Level1,
    Complete,
}

const REPORTS: [Report; 4] = [
    Report::None,
    Report::Level0,
    Report::Level1,
    Report::Complete,
];

fn cfg_v6_zero() -> EncapConfig {
    EncapConfig {
        ipv6_zero_csum_ports: [4789, 6081, 0, 0],
        ipv6_zero_csum_policy: ZeroCsumPolicy::Both,
        ..EncapConfig::DEFAULT
    }
}

/// The state an honest device would report, or `None` when the report would lie.
fn honest(report: Report, bytes: &[u8], outer: &Layers) -> Option<CsumMeta> {
    let c = chain(bytes, outer, true);
    let state = match report {
        Report::None => CsumState::None,
        Report::Level0 => {
            if !c.first().copied().unwrap_or(false) {
                return None;
            }
            CsumState::Unnecessary {
                level: CsumLevel::L0,
            }
        }
        Report::Level1 => {
            if c.len() < 2 || !c[0] || !c[1] {
                return None;
            }
            CsumState::Unnecessary {
                level: CsumLevel::L1,
            }
        }
        // A full-packet sum after the link header (mlx5-like).
        Report::Complete => CsumState::Complete {
            csum: csum::partial(&bytes[outer.l3..outer.end], Wsum::ZERO),
        },
    };
    Some(CsumMeta::from_state(state))
}

fn kinds() -> Vec<(Wrap, bool)> {
    // (tunnel, inner is Ethernet)
    vec![
        (Wrap::Vxlan, true),
        (
            Wrap::Geneve(vec![0x01, 0x02, 0x80, 0x01, 0xde, 0xad, 0xbe, 0xef]),
            true,
        ),
        (Wrap::Geneve(Vec::new()), false),
        (
            Wrap::Gre {
                key: Some(0x0a0b0c0d),
            },
            false,
        ),
        (Wrap::Gre { key: None }, true),
        (Wrap::IpIp, false),
    ]
}

fn inner_packet(inner_eth: bool, v6: bool, payload: &[u8], corrupt: bool) -> Vec<u8> {
    let mut p = if inner_eth {
        eth_tcp(v6, if v6 { Some(7) } else { None }, payload)
    } else {
        ip_tcp(v6, payload)
    };
    if corrupt {
        let last = p.len() - 1;
        p[last] ^= 0x5a;
    }
    p
}

/// Expected (software bytes, state kind) per the rules in the module docs.
fn expect(
    report: Report,
    outer_csum: &str,
    hdr: usize,
    seg: usize,
    pulled_all: usize,
) -> (usize, &'static str) {
    match (outer_csum, report) {
        // Software sum of the segment, then the tunnel headers pulled from it.
        ("csum", Report::None) => (seg + hdr, "complete"),
        ("csum", Report::Level0) => (hdr, "complete"),
        ("csum", Report::Level1) => (0, "unnecessary0"),
        ("zero", Report::None) => (0, "none"),
        ("zero", Report::Level0) => (0, "none"),
        ("zero", Report::Level1) => (0, "unnecessary0"),
        ("absent", Report::None) => (0, "none"),
        ("absent", Report::Level0) => (0, "unnecessary0"),
        ("absent", Report::Level1) => (0, "unnecessary1"),
        (_, Report::Complete) => (pulled_all, "complete"),
        _ => unreachable!(),
    }
}

fn kind_of(s: CsumState) -> &'static str {
    match s {
        CsumState::None => "none",
        CsumState::Unnecessary { level } if level.get() == 0 => "unnecessary0",
        CsumState::Unnecessary { .. } => "unnecessary1",
        CsumState::Complete { .. } => "complete",
        CsumState::Partial { .. } => "partial",
    }
}

#[test]
fn matrix_kind_outer_csum_report_is_sound_with_expected_sw_bytes() {
    let cfg = cfg_v6_zero();
    let mut checked = 0;
    for (wrap, inner_eth) in kinds() {
        for outer_v6 in [false, true] {
            for with_csum in [false, true] {
                if wrap == Wrap::IpIp && with_csum {
                    continue;
                }
                for corrupt in [false, true] {
                    for (i, payload_len) in [37usize, 200].into_iter().enumerate() {
                        let payload: Vec<u8> =
                            (0..payload_len).map(|x| (x * 7 + 3) as u8).collect();
                        let inner_v6 = (i == 1) ^ outer_v6;
                        let inner = inner_packet(inner_eth, inner_v6, &payload, corrupt);
                        let o = Outer {
                            wrap: wrap.clone(),
                            v6: outer_v6,
                            csum: with_csum,
                            vlan: if i == 0 { Some(100) } else { None },
                            inner_eth,
                        };
                        let bytes = wrap_outer(&o, &inner);
                        let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
                        let outer_csum = match (&wrap, with_csum) {
                            (Wrap::IpIp, _) | (Wrap::Gre { .. }, false) => "absent",
                            (_, true) => "csum",
                            (_, false) => "zero",
                        };
                        for report in REPORTS {
                            let Some(meta) = honest(report, &bytes, &outer) else {
                                continue;
                            };
                            let ctx = format!(
                                "{wrap:?} outer_v6 {outer_v6} csum {with_csum} corrupt {corrupt} len {payload_len} {report:?}"
                            );
                            let d = decap(&bytes, &outer, outer.l3, meta, &cfg)
                                .unwrap_or_else(|r| panic!("{ctx}: {:?}", r.error));
                            sound(&bytes, &d.inner, d.inner.l3, &d.meta, true)
                                .unwrap_or_else(|e| panic!("{ctx}: unsound: {e}"));
                            let seg_end = d.tunnel.segment_end;
                            let (sw, kind) = expect(
                                report,
                                outer_csum,
                                d.inner.l3 - outer.l4,
                                seg_end - outer.l4,
                                d.inner.l3 - outer.l3,
                            );
                            assert_eq!(kind_of(d.meta.state()), kind, "{ctx}");
                            assert_eq!(d.sw_bytes, sw, "{ctx}");
                            // Inner TCP validation by the resulting state: a
                            // corrupted inner packet must never pass, and the
                            // segment is summed only when nothing is known.
                            let (inner_ok, inner_sw) = inner_validate(&bytes, &d.inner, &d.meta);
                            assert_eq!(inner_ok, !corrupt, "{ctx}");
                            let ip_hdr = d.inner.l4 - d.inner.l3;
                            let expect_inner = match d.meta.state() {
                                // The segment, plus the inner IP header so the
                                // computed sum is kept as Complete from `cur`.
                                CsumState::None => d.inner.end - d.inner.l3,
                                CsumState::Complete { .. } => ip_hdr,
                                _ => 0,
                            };
                            // A device sum that fails is re-summed (fault or bad).
                            if !(corrupt && matches!(d.meta.state(), CsumState::Complete { .. })) {
                                assert_eq!(inner_sw, expect_inner, "{ctx}");
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    // 6 kinds, minus IpIp's checksum half; honest reports only.
    assert!(checked > 150, "only {checked} cases");
}

fn outer_for(wrap: Wrap, v6: bool, csum: bool, inner_eth: bool) -> Outer {
    Outer {
        wrap,
        v6,
        csum,
        vlan: None,
        inner_eth,
    }
}

fn wrap_outer(o: &Outer, inner: &[u8]) -> Vec<u8> {
    wrap(o, inner)
}

/// DESIGN.md 1, the 2015 VXLAN / Intel 82599 case.
#[test]
fn vxlan_82599_zero_outer_leaves_inner_to_software_nonzero_converts_to_complete() {
    let cfg = EncapConfig::DEFAULT;
    let payload = vec![0x42u8; 1400];
    let inner = eth_tcp(false, None, &payload);

    // Zero outer UDP checksum, ixgbe-like report: the NIC verified only the
    // (trivially valid) outer UDP checksum.
    let bytes = wrap(&outer_for(Wrap::Vxlan, false, false, true), &inner);
    let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
    let meta = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    let d = decap(&bytes, &outer, outer.l3, meta, &cfg).unwrap();
    assert_eq!(d.reason, DecapReason::ZeroChecksumLevelExhausted);
    assert_eq!(d.meta.state(), CsumState::None);
    assert_eq!(d.sw_bytes, 0);
    // The inner TCP checksum is left to software: every TCP byte (and the
    // inner IP header, so the computed sum is kept as Complete).
    let (ok, inner_sw) = inner_validate(&bytes, &d.inner, &d.meta);
    assert!(ok);
    assert_eq!(inner_sw, 20 + 20 + 1400);

    // Non-zero outer checksum, no report: software verifies the outer UDP
    // checksum once and converts to Complete ...
    let bytes = wrap(&outer_for(Wrap::Vxlan, false, true, true), &inner);
    let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
    let d = decap(&bytes, &outer, outer.l3, CsumMeta::NONE, &cfg).unwrap();
    assert_eq!(d.reason, DecapReason::SoftwareVerifiedConverted);
    // The outer segment once, then the 30 header bytes pulled from the sum.
    assert_eq!(d.sw_bytes, (outer.end - outer.l4) + (d.inner.l3 - outer.l4));
    assert!(matches!(d.meta.state(), CsumState::Complete { .. }));
    sound(&bytes, &d.inner, d.inner.l3, &d.meta, false).unwrap();
    // ... so the inner TCP check reads only the inner IP header (pulled from
    // the sum), never the segment: pseudo-header arithmetic on the carried sum.
    let (ok, inner_sw) = inner_validate(&bytes, &d.inner, &d.meta);
    assert!(ok);
    assert_eq!(inner_sw, d.inner.l4 - d.inner.l3);

    // And the device's level 0 on a non-zero checksum converts too (Linux:
    // decrement to NONE with csum_valid, then skb_checksum_try_convert).
    let meta = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    let d = decap(&bytes, &outer, outer.l3, meta, &cfg).unwrap();
    assert_eq!(d.reason, DecapReason::LevelExhaustedConverted);
    assert!(matches!(d.meta.state(), CsumState::Complete { .. }));
    assert_eq!(d.sw_bytes, d.inner.l3 - outer.l4);
}

#[test]
fn bad_outer_checksum_is_an_error_for_every_report_that_does_not_cover_it() {
    let cfg = EncapConfig::DEFAULT;
    let inner = eth_tcp(false, None, b"hello tunnel");
    for wrap_kind in [Wrap::Vxlan, Wrap::Gre { key: None }] {
        let mut bytes = wrap(&outer_for(wrap_kind.clone(), false, true, true), &inner);
        let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
        // Corrupt one inner payload byte: the outer checksum no longer verifies.
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        for meta in [
            CsumMeta::NONE,
            CsumMeta::from_state(CsumState::Complete {
                csum: csum::partial(&bytes[outer.l3..outer.end], Wsum::ZERO),
            }),
        ] {
            let r = decap(&bytes, &outer, outer.l3, meta.clone(), &cfg).unwrap_err();
            assert!(
                matches!(r.error, DecapError::BadOuterChecksum { offset, .. } if offset == outer.l4),
                "{wrap_kind:?}: {:?}",
                r.error
            );
            assert_eq!(r.meta, meta, "metadata comes back unchanged");
        }
    }
}

#[test]
fn wrong_device_complete_with_good_packet_is_a_device_fault() {
    let cfg = EncapConfig::DEFAULT;
    let inner = eth_tcp(true, None, &[9u8; 301]);
    let bytes = wrap(&outer_for(Wrap::Vxlan, true, true, true), &inner);
    let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
    let wrong = csum::partial(&bytes[outer.l3..outer.end], Wsum::new(0x1234));
    let d = decap(
        &bytes,
        &outer,
        outer.l3,
        CsumMeta::from_state(CsumState::Complete { csum: wrong }),
        &cfg,
    )
    .unwrap();
    assert_eq!(d.reason, DecapReason::DeviceChecksumFault);
    sound(&bytes, &d.inner, d.inner.l3, &d.meta, false).unwrap();
}

#[test]
fn zero_ipv6_udp_checksum_needs_zero_checksum_mode() {
    let inner = eth_tcp(false, None, b"x");
    let bytes = wrap(&outer_for(Wrap::Vxlan, true, false, true), &inner);
    let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
    let r = decap(
        &bytes,
        &outer,
        outer.l3,
        CsumMeta::NONE,
        &EncapConfig::DEFAULT,
    )
    .unwrap_err();
    assert_eq!(r.error, DecapError::ZeroChecksumIpv6 { port: 4789 });
    // Transmit-only mode does not open receive.
    let tx_only = EncapConfig {
        ipv6_zero_csum_ports: [4789, 0, 0, 0],
        ipv6_zero_csum_policy: ZeroCsumPolicy::Transmit,
        ..EncapConfig::DEFAULT
    };
    assert!(decap(&bytes, &outer, outer.l3, CsumMeta::NONE, &tx_only).is_err());
    assert!(decap(&bytes, &outer, outer.l3, CsumMeta::NONE, &cfg_v6_zero()).is_ok());
}

#[test]
fn configurable_vxlan_port_and_not_a_tunnel() {
    let inner = eth_tcp(false, None, b"abc");
    let mut bytes = wrap(&outer_for(Wrap::Vxlan, false, false, true), &inner);
    let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
    // Move the destination port to 8472 (Linux's historical VXLAN port).
    bytes[outer.l4 + 2..outer.l4 + 4].copy_from_slice(&8472u16.to_be_bytes());
    let r = decap(
        &bytes,
        &outer,
        outer.l3,
        CsumMeta::NONE,
        &EncapConfig::DEFAULT,
    )
    .unwrap_err();
    assert_eq!(r.error, DecapError::NotTunnel);
    let cfg = EncapConfig {
        vxlan_ports: [4789, 8472, 0, 0],
        ..EncapConfig::DEFAULT
    };
    let d = decap(&bytes, &outer, outer.l3, CsumMeta::NONE, &cfg).unwrap();
    assert_eq!(d.tunnel.vni, Some(0x123456));
    assert_eq!(d.inner.net, Net::Ipv4);
}

#[test]
fn partial_state_kept_inside_dropped_behind() {
    let cfg = EncapConfig::DEFAULT;
    let inner = eth_tcp(false, None, b"partial");
    let bytes = wrap(&outer_for(Wrap::Vxlan, false, true, true), &inner);
    let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
    let inner_l = wire::parse(&bytes[outer.l4 + 16..], LinkType::Ethernet).unwrap();
    let tcp = outer.l4 + 16 + inner_l.l4;
    let keep = CsumMeta::from_state(CsumState::Partial {
        start: tcp,
        offset: 16,
        kind: netoffload::state::PartialKind::Inet,
    });
    let d = decap(&bytes, &outer, outer.l3, keep.clone(), &cfg).unwrap();
    assert_eq!(d.reason, DecapReason::PartialKept);
    assert_eq!(d.meta, keep);
    let behind = CsumMeta::from_state(CsumState::Partial {
        start: outer.l4,
        offset: 6,
        kind: netoffload::state::PartialKind::Inet,
    });
    let d = decap(&bytes, &outer, outer.l3, behind, &cfg).unwrap();
    assert_eq!(d.reason, DecapReason::PartialBehind);
    assert_eq!(d.meta.state(), CsumState::None);
}

#[test]
fn nesting_up_to_the_limit_then_too_deep() {
    // GRE inside GRE inside VXLAN: three layers.
    let tcp = ip_tcp(false, &[1, 2, 3, 4, 5]);
    let gre1 = wrap(
        &outer_for(Wrap::Gre { key: Some(1) }, false, true, false),
        &tcp,
    );
    let gre1_ip = &gre1[14..]; // strip the builder's Ethernet header
    let gre2 = wrap(
        &outer_for(Wrap::Gre { key: None }, true, false, false),
        gre1_ip,
    );
    let vx = wrap(&outer_for(Wrap::Vxlan, false, true, true), &gre2);
    let outer = wire::parse(&vx, LinkType::Ethernet).unwrap();

    let r = decap_nested(&vx, &outer, outer.l3, CsumMeta::NONE, &EncapConfig::DEFAULT).unwrap_err();
    assert_eq!(r.error, DecapError::TooDeep { limit: 2 });
    assert_eq!(r.meta, CsumMeta::NONE);

    let cfg = EncapConfig {
        max_depth: 3,
        ..EncapConfig::DEFAULT
    };
    let n = decap_nested(&vx, &outer, outer.l3, CsumMeta::NONE, &cfg).unwrap();
    assert_eq!(n.steps.len(), 3);
    assert_eq!(n.steps[0].reason, DecapReason::SoftwareVerifiedConverted);
    // The carried sum verifies the GRE checksum by arithmetic: no more bytes
    // beyond the pulled headers.
    assert_eq!(n.steps[2].reason, DecapReason::CompleteVerified);
    assert_eq!(n.steps[2].tunnel.gre.unwrap().key, Some(1));
    // Step 0 sums the VXLAN segment and pulls its 30 header bytes from the
    // sum; the GRE steps only pull headers from the carried sum.
    assert_eq!(n.sw_bytes, (outer.end - outer.l4) + (n.inner.l3 - outer.l4));
    sound(&vx, &n.inner, n.inner.l3, &n.meta, false).unwrap();
    assert!(matches!(n.meta.state(), CsumState::Complete { .. }));
}

#[test]
fn trailing_bytes_are_trimmed_from_a_device_sum() {
    let cfg = EncapConfig::DEFAULT;
    // (a) Ethernet padding after the outer IP datagram (GRE, IPv4).
    let mut a = wrap(
        &outer_for(Wrap::Gre { key: None }, false, true, false),
        &ip_tcp(false, b"tiny"),
    );
    a.extend_from_slice(&[0xEE; 9]);
    // (b) Bytes inside the outer IP datagram but after the UDP length (VXLAN).
    let mut b = wrap(
        &outer_for(Wrap::Vxlan, false, true, true),
        &eth_tcp(false, None, b"tiny"),
    );
    b.extend_from_slice(&[0x11; 7]);
    let total = (b.len() - 14) as u16;
    b[16..18].copy_from_slice(&total.to_be_bytes());
    b[24..26].copy_from_slice(&[0, 0]);
    let c = !naive_sum(&b[14..34], 0);
    b[24..26].copy_from_slice(&c.to_be_bytes());
    for bytes in [a, b] {
        let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
        for meta in [
            CsumMeta::NONE,
            CsumMeta::from_state(CsumState::Complete {
                csum: csum::partial(&bytes[outer.l3..], Wsum::ZERO),
            }),
        ] {
            let d = decap(&bytes, &outer, outer.l3, meta, &cfg).unwrap();
            assert!(d.inner.end < bytes.len());
            assert!(matches!(d.meta.state(), CsumState::Complete { .. }));
            sound(&bytes, &d.inner, d.inner.l3, &d.meta, false).unwrap();
            let (ok, _) = inner_validate(&bytes, &d.inner, &d.meta);
            assert!(ok);
        }
    }
}
