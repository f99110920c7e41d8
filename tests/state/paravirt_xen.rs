//! Xen netif flags (with the TX/RX bit swap) and the GSO extra slot, both ways.

use crate::support::paravirt as support;

use netoffload::state::paravirt::setup::SeedCheck;
use netoffload::state::paravirt::virtio::{GsoOutcome, SeedPolicy};
use netoffload::state::paravirt::xen::{
    self, XenCsum, XenFixup, XenGso, XenRxFlags, XenTrust, XenTxFlags,
};
use netoffload::state::paravirt::{BoundaryError, MetaErrorKind, MetaField, Rule};
use netoffload::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use netoffload::wire::{GsoKind, GsoParams, LinkType};
use support::{Spec, build, make_partial, seed, sound};

const ALL: [XenCsum; 4] = [
    XenCsum::Unknown,
    XenCsum::Validated,
    XenCsum::Blank,
    XenCsum::BlankValidated,
];

#[test]
fn tx_and_rx_bits_are_swapped_as_netif_h_defines() {
    // (fact, NETTXF bits, NETRXF bits): csum_blank is TX bit 0 / RX bit 1,
    // data_validated is TX bit 1 / RX bit 0.
    let table = [
        (XenCsum::Unknown, 0u16, 0u16),
        (XenCsum::Validated, 0x2, 0x1),
        (XenCsum::Blank, 0x1, 0x2),
        (XenCsum::BlankValidated, 0x3, 0x3),
    ];
    for (fact, tx, rx) in table {
        assert_eq!(fact.to_tx().bits(), tx, "{fact:?}");
        assert_eq!(fact.to_rx().bits(), rx, "{fact:?}");
        assert_eq!(
            XenCsum::from_tx(XenTxFlags::from_bits_retain(tx | 0xC)),
            fact
        );
        assert_eq!(
            XenCsum::from_rx(XenRxFlags::from_bits_retain(rx | 0xC)),
            fact
        );
    }
    for fact in ALL {
        assert_eq!(XenCsum::from_tx(fact.to_tx()), fact);
        assert_eq!(XenCsum::from_rx(fact.to_rx()), fact);
    }
    // Reading TX bits with the RX layout turns "validated" into "blank": the bug
    // the swap invites.
    let tx = XenCsum::Validated.to_tx();
    assert_eq!(
        XenCsum::from_rx(XenRxFlags::from_bits_retain(tx.bits())),
        XenCsum::Blank
    );
}

#[test]
fn gso_extra_slot_bytes() {
    let bytes = [1u8, 0, 0xA8, 0x05, 1, 0, 0, 0];
    let g = XenGso::parse(&bytes).unwrap();
    assert_eq!(
        (g.kind, g.size, g.features, g.more),
        (GsoKind::TcpV4, 1448, 0, false)
    );
    let mut out = [0xFFu8; 8];
    assert_eq!(g.write(&mut out), Ok(8));
    assert_eq!(out, bytes);
    let g6 = XenGso::parse(&[1, 1, 0x10, 0x00, 2, 0xEE, 3, 0]).unwrap();
    assert_eq!(
        (g6.kind, g6.size, g6.features, g6.more),
        (GsoKind::TcpV6, 16, 3, true)
    );
    let mut out = [0u8; 8];
    g6.write(&mut out).unwrap();
    assert_eq!(
        out,
        [1, 1, 0x10, 0x00, 2, 0, 3, 0],
        "pad is written as zero"
    );

    let bad = [
        (
            [2u8, 0, 0xA8, 5, 1, 0, 0, 0],
            BoundaryError::unsupported(MetaField::XenExtraType, 2),
        ),
        (
            [1, 2, 0xA8, 5, 1, 0, 0, 0],
            BoundaryError::unsupported(MetaField::XenExtraFlags, 2),
        ),
        (
            [1, 0, 0xA8, 5, 3, 0, 0, 0],
            BoundaryError::unsupported(MetaField::XenGsoType, 3),
        ),
        (
            [1, 0, 0, 0, 1, 0, 0, 0],
            BoundaryError::new(MetaField::XenGsoSize, MetaErrorKind::Zero),
        ),
    ];
    for (b, e) in bad {
        assert_eq!(XenGso::parse(&b), Err(e));
    }
    assert_eq!(
        XenGso::parse(&[1, 0, 1]).unwrap_err().field,
        MetaField::HeaderBytes
    );
    let udp = XenGso {
        kind: GsoKind::UdpL4,
        size: 1,
        features: 0,
        more: false,
    };
    assert_eq!(
        udp.write(&mut [0; 8]).unwrap_err().kind,
        MetaErrorKind::Forbidden(Rule::GsoTypeNotExpressible)
    );
}

fn specs(payload: usize) -> Vec<Spec> {
    let mut v = Vec::new();
    for v6 in [false, true] {
        for udp in [false, true] {
            for vlan in [false, true] {
                v.push(Spec {
                    v6,
                    udp,
                    vlan,
                    raw_ip: false,
                    payload,
                    seed: 9,
                });
            }
        }
    }
    v
}

#[test]
fn blank_becomes_a_parsed_sound_partial() {
    for spec in specs(200) {
        for fact in [XenCsum::Blank, XenCsum::BlankValidated] {
            let mut frame = make_partial(build(spec), spec);
            let before = frame.clone();
            let got = xen::to_meta(
                fact,
                &mut frame,
                LinkType::Ethernet,
                None,
                XenTrust::Unnecessary,
                SeedPolicy::Verify,
            )
            .unwrap();
            assert_eq!(frame, before, "no write without the GSO fix-up");
            assert_eq!(got.meta.state(), spec.partial());
            assert!(got.meta.is_blank() && got.meta.data_valid());
            assert_eq!(got.seed, Some(SeedCheck::Verified));
            sound(&frame, false, &got.meta).unwrap();
        }
    }
}

#[test]
fn validated_follows_trust_and_unknown_claims_nothing() {
    let spec = Spec::tcp6(100);
    let mut frame = build(spec);
    let v = |t, f: &mut Vec<u8>| {
        xen::to_meta(
            XenCsum::Validated,
            f,
            LinkType::Ethernet,
            None,
            t,
            SeedPolicy::Verify,
        )
        .unwrap()
        .meta
    };
    let m = v(XenTrust::Unnecessary, &mut frame);
    assert_eq!(
        (m.state(), m.flags()),
        (
            CsumState::Unnecessary {
                level: CsumLevel::L0
            },
            CsumFlags::DATA_VALID
        )
    );
    sound(&frame, false, &m).unwrap();
    let m = v(XenTrust::Flag, &mut frame);
    assert_eq!(
        (m.state(), m.flags()),
        (CsumState::None, CsumFlags::DATA_VALID)
    );
    assert_eq!(v(XenTrust::Ignore, &mut frame), CsumMeta::NONE);
    let m = xen::to_meta(
        XenCsum::Unknown,
        &mut frame,
        LinkType::Ethernet,
        None,
        XenTrust::Unnecessary,
        SeedPolicy::Verify,
    )
    .unwrap();
    assert_eq!(m.meta, CsumMeta::NONE);
}

#[test]
fn blank_that_cannot_be_located_or_is_not_a_seed_is_refused_and_nothing_changes() {
    // ICMP (not TCP/UDP): skb_checksum_setup cannot set it up.
    let mut icmp = Vec::new();
    etherparse::PacketBuilder::ethernet2([0; 6], [1; 6])
        .ipv4([1, 1, 1, 1], [2, 2, 2, 2], 9)
        .icmpv4_echo_request(1, 2)
        .write(&mut icmp, &[0; 8])
        .unwrap();
    let e = xen::to_meta(
        XenCsum::BlankValidated,
        &mut icmp,
        LinkType::Ethernet,
        None,
        XenTrust::Unnecessary,
        SeedPolicy::Verify,
    )
    .unwrap_err();
    assert_eq!(
        e,
        BoundaryError::forbidden(MetaField::Packet, Rule::BlankOnUnsupportedProtocol)
    );
    // A full checksum where the seed should be.
    let spec = Spec::udp4(64);
    let mut frame = build(spec);
    let before = frame.clone();
    let e = xen::to_meta(
        XenCsum::BlankValidated,
        &mut frame,
        LinkType::Ethernet,
        None,
        XenTrust::Unnecessary,
        SeedPolicy::Verify,
    )
    .unwrap_err();
    assert_eq!(e.field, MetaField::ChecksumSeed);
    assert_eq!(frame, before);
}

#[test]
fn gso_without_blank_is_fixed_up_like_linux() {
    // A GSO frame whose checksum field is complete (not the seed), flagged only
    // data_validated: Linux forces CHECKSUM_PARTIAL and rewrites the seed.
    let spec = Spec::tcp4(4000);
    let mut frame = build(spec);
    let gso = XenGso {
        kind: GsoKind::TcpV4,
        size: 1448,
        features: 0,
        more: false,
    };
    let got = xen::to_meta(
        XenCsum::Validated,
        &mut frame,
        LinkType::Ethernet,
        Some(gso),
        XenTrust::Unnecessary,
        SeedPolicy::Verify,
    )
    .unwrap();
    assert_eq!(got.fixup, XenFixup::GsoChecksumFixup);
    assert_eq!(got.seed, Some(SeedCheck::Recalculated));
    let at = spec.l4() + 16;
    assert_eq!(
        u16::from_be_bytes([frame[at], frame[at + 1]]),
        seed(&frame, false).unwrap()
    );
    assert!(matches!(got.gso, GsoOutcome::Segment(p) if p.segs == 3 && p.gso_size == 1448));
    sound(&frame, false, &got.meta).unwrap();
    // A GSO type that does not match the packet: refused, frame untouched.
    let mut frame = build(spec);
    let before = frame.clone();
    let g6 = XenGso {
        kind: GsoKind::TcpV6,
        ..gso
    };
    let e = xen::to_meta(
        XenCsum::Validated,
        &mut frame,
        LinkType::Ethernet,
        Some(g6),
        XenTrust::Unnecessary,
        SeedPolicy::Verify,
    )
    .unwrap_err();
    assert_eq!(e, BoundaryError::mismatch(MetaField::XenGsoType, 1, 2));
    assert_eq!(frame, before);
}

#[test]
fn from_meta_maps_the_2005_semantics() {
    let spec = Spec::tcp4(100);
    let frame = make_partial(build(spec), spec);
    let partial = |s, o| {
        CsumMeta::from_state(CsumState::Partial {
            start: s,
            offset: o,
            kind: PartialKind::Inet,
        })
    };
    // Host-generated: csum_blank | data_validated.
    let out = xen::from_meta(partial(spec.l4(), 16), &frame, LinkType::Ethernet, None).unwrap();
    assert_eq!(out.csum, XenCsum::BlankValidated);
    assert_eq!(out.csum.to_rx().bits(), 0x3);
    // A Partial the peer could not re-derive (not at the transport header).
    let e =
        xen::from_meta(partial(spec.l4() + 4, 12), &frame, LinkType::Ethernet, None).unwrap_err();
    assert_eq!(
        e.error,
        BoundaryError::forbidden(MetaField::State, Rule::PartialNotAtTransport)
    );
    // NIC-verified: data_validated only.
    let good = build(spec);
    let un = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    let out = xen::from_meta(un, &good, LinkType::Ethernet, None).unwrap();
    assert_eq!(
        (out.csum, out.csum.to_rx().bits(), out.csum.to_tx().bits()),
        (XenCsum::Validated, 0x1, 0x2)
    );
    // Complete: nothing, unless verified.
    let c = CsumMeta::from_state(CsumState::Complete {
        csum: netoffload::csum::Wsum::new(5),
    });
    assert_eq!(
        xen::from_meta(c, &good, LinkType::Ethernet, None)
            .unwrap()
            .csum,
        XenCsum::Unknown
    );
    let c = CsumMeta::new(
        CsumState::Complete {
            csum: netoffload::csum::Wsum::new(5),
        },
        CsumFlags::CSUM_VALID,
    )
    .unwrap();
    assert_eq!(
        xen::from_meta(c, &good, LinkType::Ethernet, None)
            .unwrap()
            .csum,
        XenCsum::Validated
    );
    // Refusals.
    assert!(CsumMeta::new(CsumState::None, CsumFlags::CSUM_BLANK).is_err());
    let crc = CsumMeta::from_state(CsumState::Partial {
        start: 34,
        offset: 8,
        kind: PartialKind::Crc32c,
    });
    assert_eq!(
        xen::from_meta(crc, &good, LinkType::Ethernet, None)
            .unwrap_err()
            .error
            .kind,
        MetaErrorKind::Forbidden(Rule::Crc32cNotExpressible)
    );
    let sp = GsoParams {
        kind: GsoKind::UdpL4,
        ecn: false,
        gso_size: 1000,
        hdr_len: 42,
        segs: 2,
    };
    let un = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    assert_eq!(
        xen::from_meta(un, &good, LinkType::Ethernet, Some(sp))
            .unwrap_err()
            .error,
        BoundaryError::forbidden(MetaField::Gso, Rule::GsoTypeNotExpressible)
    );
}

#[test]
fn round_trip_guest_to_host_to_guest_keeps_the_partial() {
    for spec in specs(700) {
        let mut frame = make_partial(build(spec), spec);
        let meta = CsumMeta::new(
            spec.partial(),
            CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID,
        )
        .unwrap();
        let out = xen::from_meta(meta.clone(), &frame, LinkType::Ethernet, None).unwrap();
        // Guest netfront TX bits -> host netback.
        let fact = XenCsum::from_tx(out.csum.to_tx());
        let back = xen::to_meta(
            fact,
            &mut frame,
            LinkType::Ethernet,
            None,
            XenTrust::Unnecessary,
            SeedPolicy::Verify,
        )
        .unwrap();
        assert_eq!(back.meta, meta, "{spec:?}");
    }
}

mod prop {
    use super::support::{Spec, build, make_partial, sound};
    use netoffload::state::paravirt::afpacket::{self, Captured, TpStatus};
    use netoffload::state::paravirt::dpdk::{self, Encap, RxCsum, RxStatus};
    use netoffload::state::paravirt::setup::SeedCheck;
    use netoffload::state::paravirt::virtio::SeedPolicy;
    use netoffload::state::paravirt::xen::{self, XenCsum, XenGso, XenTrust};
    use netoffload::state::{CsumFlags, CsumState};
    use netoffload::wire::GsoKind;
    use netoffload::wire::LinkType;
    use proptest::prelude::*;

    fn spec_of(pick: u8, payload: usize) -> Spec {
        Spec {
            v6: pick & 1 != 0,
            udp: pick & 2 != 0,
            vlan: pick & 4 != 0,
            raw_ip: false,
            payload,
            seed: pick,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Xen slots, AF_PACKET CSUMNOTREADY and DPDK NONE over seeded frames with
        /// header bytes flipped: errors change nothing, and every derived `Partial`
        /// passes the oracle (the blank is located and its seed checked).
        #[test]
        fn derived_partials_are_sound_and_errors_change_nothing(
            pick in 0u8..8, payload in 0usize..3000,
            flips in proptest::collection::vec((any::<u16>(), any::<u8>()), 0..3),
            fact in 0usize..4, gso_size in 0u16..2000, with_gso in any::<bool>(),
        ) {
            let spec = spec_of(pick, payload);
            let mut frame = make_partial(build(spec), spec);
            for (at, x) in flips {
                let n = frame.len().min(spec.payload_at() + 2);
                frame[at as usize % n] ^= x;
            }
            let fact = [XenCsum::Unknown, XenCsum::Validated, XenCsum::Blank, XenCsum::BlankValidated][fact];
            let gso = with_gso.then_some(XenGso {
                kind: if spec.v6 { GsoKind::TcpV6 } else { GsoKind::TcpV4 },
                size: gso_size,
                features: 0,
                more: false,
            });
            let before = frame.clone();
            match xen::to_meta(fact, &mut frame, LinkType::Ethernet, gso, XenTrust::Flag, SeedPolicy::Verify) {
                Err(_) => prop_assert_eq!(&frame, &before),
                Ok(got) => {
                    if let CsumState::Partial { .. } = got.meta.state() {
                        prop_assert!(matches!(got.seed, Some(SeedCheck::Verified | SeedCheck::Recalculated)));
                        prop_assert!(sound(&frame, false, &got.meta).is_ok(), "{:?}", got);
                    } else {
                        prop_assert_eq!(&frame, &before);
                        // Trusted data_validated is a claim about the peer, not the bytes.
                        prop_assert!(got.meta.flags() - CsumFlags::DATA_VALID == CsumFlags::empty());
                    }
                }
            }
            let frame = before;
            if let Captured::NotReady(m) = afpacket::status_to_meta(TpStatus::CSUMNOTREADY, &frame, LinkType::Ethernet) {
                prop_assert!(sound(&frame, false, &m).is_ok(), "{:?}", m);
            }
            let rx = RxCsum { l4: RxStatus::NoneDataValid, ..RxCsum::UNKNOWN };
            let got = dpdk::rx_to_meta_frame(rx, Encap::None, &frame, LinkType::Ethernet);
            if matches!(got.meta.state(), CsumState::Partial { .. }) {
                prop_assert!(sound(&frame, false, &got.meta).is_ok(), "{:?}", got);
            }
        }
    }
}
