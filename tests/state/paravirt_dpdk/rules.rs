//! One test per `rte_validate_tx_offload` rule (DPDK 22.11 `rte_mbuf.h`),
//! named after it: DPDK refuses the request with `-EINVAL`, so `tx_to_meta`
//! refuses it naming the rule (frame unchanged) and `meta_to_tx` never makes
//! it. Plus `rte_net_intel_cksum_flags_prepare`'s `-ENOTSUP`.

use super::dpdk_model::{self as model, Einval};
use super::support::{Spec, build, make_partial};
use netoffload::state::paravirt::dpdk::{self, TxOffload, TxSeedMode, ol};
use netoffload::state::paravirt::{BoundaryError, MetaField, Rule};
use netoffload::state::{CsumMeta, CsumState};
use netoffload::wire::{self, GsoKind, GsoParams, LinkType};

/// A request on a prepared (seeded) plain packet of `spec`.
fn request(spec: Spec, ol_flags: u64) -> TxOffload {
    TxOffload {
        ol_flags,
        l2_len: spec.l3() as u16,
        l3_len: (spec.l4() - spec.l3()) as u16,
        l4_len: (spec.payload_at() - spec.l4()) as u16,
        tso_segsz: 1400,
        ..TxOffload::default()
    }
}

/// `tx_to_meta` refuses `tx` on `frame` with `rule` on `field`, in both
/// modes, changing nothing; the crate's validator agrees; so does the model.
#[track_caller]
fn refused(frame: &[u8], tx: TxOffload, field: MetaField, rule: Rule, einval: Einval) {
    assert_eq!(model::validate(tx.ol_flags, tx.tso_segsz), Some(einval));
    let want = BoundaryError::forbidden(field, rule);
    assert_eq!(dpdk::validate_tx_offload(&tx), Err(want));
    for mode in [TxSeedMode::Verify, TxSeedMode::Prepare] {
        let mut f = frame.to_vec();
        let got = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, mode);
        assert_eq!(got.unwrap_err(), want, "{mode:?}");
        assert_eq!(f, frame, "a refusal changed the frame");
    }
}

#[track_caller]
fn accepted(frame: &[u8], tx: TxOffload) {
    assert_eq!(model::validate(tx.ol_flags, tx.tso_segsz), None);
    assert_eq!(dpdk::validate_tx_offload(&tx), Ok(()));
    let mut f = frame.to_vec();
    let got = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Prepare);
    assert!(got.is_ok(), "{got:?}");
}

fn partial(spec: Spec) -> CsumMeta {
    CsumMeta::from_state(spec.partial())
}

#[test]
fn offload_mask_is_the_header_value() {
    assert_eq!(ol::TX_OFFLOAD_MASK, model::OFFLOAD_MASK);
}

/// Rule 0: "Does packet set any of available offloads?" No: nothing checked.
#[test]
fn no_offload_flag_means_nothing_is_checked() {
    let spec = Spec::tcp4(100);
    let frame = build(spec);
    for junk in [0, 1 << 40, (1 << 61) | (1 << 62), 0xFF] {
        let tx = TxOffload {
            ol_flags: junk,
            l2_len: 127,
            l3_len: 511,
            tso_segsz: 0,
            ..TxOffload::default()
        };
        assert_eq!(model::validate(junk, 0), None);
        assert_eq!(dpdk::validate_tx_offload(&tx), Ok(()));
        let mut f = frame.clone();
        let got = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
        assert_eq!(got.meta, CsumMeta::NONE);
        assert_eq!(f, frame);
    }
}

/// Rule 1: "IP checksum can be counted only for IPv4 packet".
#[test]
fn ip_checksum_on_ipv6_is_refused() {
    let spec = Spec::tcp6(100);
    let frame = make_partial(build(spec), spec);
    let bad = ol::TX_IP_CKSUM | ol::TX_IPV6 | ol::TX_TCP_CKSUM;
    refused(
        &frame,
        request(spec, bad),
        MetaField::DpdkOlFlags,
        Rule::DpdkIpChecksumOnIpv6,
        Einval::IpChecksumOnIpv6,
    );
    // Even without an L4 request.
    refused(
        &frame,
        request(spec, ol::TX_IP_CKSUM | ol::TX_IPV6),
        MetaField::DpdkOlFlags,
        Rule::DpdkIpChecksumOnIpv6,
        Einval::IpChecksumOnIpv6,
    );
    accepted(&frame, request(spec, ol::TX_IPV6 | ol::TX_TCP_CKSUM));
    // meta_to_tx asked for an IPv4 header checksum on IPv6 never sets it.
    let l = wire::parse(&frame, LinkType::Ethernet).unwrap();
    let tx = dpdk::meta_to_tx(partial(spec), &mut frame.clone(), &l, None, None, true).unwrap();
    assert_eq!(tx.ol_flags & ol::TX_IP_CKSUM, 0);
}

/// Rule 2: "IP type not set when required" (an L4 checksum or TCP_SEG without
/// IPV4 / IPV6).
#[test]
fn l4_request_without_ip_version_is_refused() {
    for (spec, bits) in [
        (Spec::tcp4(100), ol::TX_TCP_CKSUM),
        (Spec::udp4(100), ol::TX_UDP_CKSUM),
        (Spec::tcp6(100), ol::TX_SCTP_CKSUM),
        (Spec::tcp4(3000), ol::TX_TCP_SEG),
        (
            Spec::tcp4(3000),
            ol::TX_TCP_SEG | ol::TX_TCP_CKSUM | ol::TX_IP_CKSUM,
        ),
    ] {
        let frame = make_partial(build(spec), spec);
        refused(
            &frame,
            request(spec, bits),
            MetaField::DpdkOlFlags,
            Rule::DpdkL4WithoutIpVersion,
            Einval::L4WithoutIpVersion,
        );
    }
}

/// Rule 3a: TSO "(m->tso_segsz == 0)".
#[test]
fn tso_without_segment_size_is_refused() {
    let spec = Spec::tcp6(3000);
    let frame = make_partial(build(spec), spec);
    let tx = TxOffload {
        tso_segsz: 0,
        ..request(spec, ol::TX_TCP_SEG | ol::TX_IPV6)
    };
    refused(
        &frame,
        tx,
        MetaField::DpdkTsoSegsz,
        Rule::DpdkTsoWithoutSegmentSize,
        Einval::TsoWithoutSegmentSize,
    );
    accepted(&frame, request(spec, ol::TX_TCP_SEG | ol::TX_IPV6));
}

/// Rule 3b: TSO "if it's IPv4, set RTE_MBUF_F_TX_IP_CKSUM".
#[test]
fn ipv4_tso_without_ip_checksum_is_refused() {
    let spec = Spec::tcp4(3000);
    let frame = make_partial(build(spec), spec);
    refused(
        &frame,
        request(spec, ol::TX_TCP_SEG | ol::TX_IPV4),
        MetaField::DpdkOlFlags,
        Rule::DpdkIpv4TsoWithoutIpChecksum,
        Einval::Ipv4TsoWithoutIpChecksum,
    );
    accepted(
        &frame,
        request(spec, ol::TX_TCP_SEG | ol::TX_IPV4 | ol::TX_IP_CKSUM),
    );
    // meta_to_tx asks for it even when the caller did not.
    let l = wire::parse(&frame, LinkType::Ethernet).unwrap();
    let sp = GsoParams {
        kind: GsoKind::TcpV4,
        ecn: false,
        gso_size: 1400,
        hdr_len: spec.payload_at(),
        segs: 3,
    };
    let tx =
        dpdk::meta_to_tx(partial(spec), &mut frame.clone(), &l, None, Some(sp), false).unwrap();
    assert_ne!(tx.ol_flags & ol::TX_IP_CKSUM, 0);
    assert_eq!(model::validate(tx.ol_flags, tx.tso_segsz), None);
}

/// Rule 4: "RTE_MBUF_F_TX_OUTER_IP_CKSUM set for non outer IPv4 packet".
#[test]
fn outer_ip_checksum_without_outer_ipv4_is_refused() {
    let spec = Spec::tcp4(100);
    let frame = make_partial(build(spec), spec);
    for outer in [0, ol::TX_OUTER_IPV6] {
        refused(
            &frame,
            request(
                spec,
                ol::TX_OUTER_IP_CKSUM | outer | ol::TX_IPV4 | ol::TX_TCP_CKSUM,
            ),
            MetaField::DpdkOlFlags,
            Rule::DpdkOuterIpChecksumWithoutOuterIpv4,
            Einval::OuterIpChecksumWithoutOuterIpv4,
        );
    }
}

/// `rte_net_intel_cksum_flags_prepare`: headers not all in the first segment
/// (`data_len < inner_l3 + l3_len + l4_len`) give `-ENOTSUP`.
#[test]
fn headers_past_the_frame_are_refused_like_prepare_enotsup() {
    let spec = Spec::tcp4(10);
    let frame = make_partial(build(spec), spec);
    let tx = TxOffload {
        l4_len: 255,
        ..request(spec, ol::TX_IPV4 | ol::TX_TCP_CKSUM)
    };
    assert!(model::intel_prepare(&mut frame.clone(), &tx, model::Release::Dpdk2211).is_err());
    let mut f = frame.clone();
    let e = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Prepare).unwrap_err();
    assert_eq!(e.field, MetaField::DpdkLengths);
    assert_eq!(f, frame);
    assert_eq!(
        CsumState::None,
        dpdk::tx_to_meta(
            &TxOffload { ol_flags: 0, ..tx },
            &mut f,
            LinkType::Ethernet,
            TxSeedMode::Prepare
        )
        .unwrap()
        .meta
        .state()
    );
}
