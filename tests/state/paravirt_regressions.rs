//! Named regression tests for bugs others shipped at metadata boundaries.

use crate::support::paravirt as support;

use netoffload::state::paravirt::leak::{self, L4Diagnosis};
use netoffload::state::paravirt::virtio::{
    GuestFrame, HdrLayout, PeerFeatures, VirtioFlags, VirtioNetHdr, VirtioPolicy,
};
use netoffload::state::paravirt::xen::{self, XenCsum};
use netoffload::state::paravirt::{BoundaryError, MetaField, Rule};
use netoffload::state::{CsumLevel, CsumMeta, CsumState, PartialKind};
use netoffload::wire::{self, GsoKind, GsoParams, LinkType};
use support::{Spec, build, make_partial, seed};

/// wireguard-go #145: a packet held for coalescing had its virtio header bytes
/// written into its buffer; when the merge was refused (bad checksum) and the
/// item deleted, the stale header went out with it. Here the header is derived
/// from the metadata when the packet leaves, the metadata is consumed by move
/// (re-use does not compile: see the `compile_fail` doc test of
/// `state::paravirt`), and `write` overwrites every byte of the slot.
#[test]
fn wireguard_go_145_unmerged_packet_carries_no_stale_header() {
    let spec = Spec::tcp4(1000);
    // The held packet was going to be the head of a super-packet...
    let head_meta = CsumMeta::from_state(CsumState::Partial {
        start: spec.l4(),
        offset: 16,
        kind: PartialKind::Inet,
    });
    let sp = GsoParams {
        kind: GsoKind::TcpV4,
        ecn: false,
        gso_size: 1000,
        hdr_len: 54,
        segs: 2,
    };
    let mut slot = [0u8; 10];
    let stale = VirtioNetHdr::from_meta(
        head_meta,
        GuestFrame::default(),
        Some(sp),
        PeerFeatures::default(),
    )
    .unwrap();
    stale.write(HdrLayout::Legacy, &mut slot).unwrap();
    assert_ne!(slot, [0; 10]);
    // ...but the merge was refused: the packet goes out alone, and its metadata
    // is what the refusal left (nothing known about the bad checksum).
    let refused = CsumMeta::NONE;
    let hdr = VirtioNetHdr::from_meta(
        refused,
        GuestFrame::default(),
        None,
        PeerFeatures::default(),
    )
    .unwrap();
    hdr.write(HdrLayout::Legacy, &mut slot).unwrap();
    assert_eq!(slot, [0; 10], "no byte of the previous header survives");
    let (back, _) = VirtioNetHdr::parse(&slot, HdrLayout::Legacy).unwrap();
    assert_eq!(back.gso_type, 0);
    assert!(!back.flags.contains(VirtioFlags::NEEDS_CSUM));
}

/// virtio-win #1630: DHCP ACKs reached Windows with the UDP checksum field equal
/// to the pseudo-header sum (0x9783) because a NEEDS_CSUM packet was never
/// finished. The diagnosis names it a leaked Partial, not a random bad checksum.
#[test]
fn virtio_win_1630_leaked_partial_is_detected_as_such() {
    // The flow: 192.168.10.1:67 -> 192.168.10.215:68, UDP length 329.
    let payload = vec![0x42u8; 329 - 8];
    let mut frame = Vec::new();
    etherparse::PacketBuilder::ethernet2([2; 6], [4; 6])
        .ipv4([192, 168, 10, 1], [192, 168, 10, 215], 64)
        .udp(67, 68)
        .write(&mut frame, &payload)
        .unwrap();
    let layers = wire::parse(&frame, LinkType::Ethernet).unwrap();
    assert_eq!(leak::diagnose(&frame, &layers), L4Diagnosis::Valid);
    // The pseudo-header sum the issue reports.
    assert_eq!(seed(&frame, false), Some(0x9783));
    let at = layers.l4 + 6;
    let good = [frame[at], frame[at + 1]];
    frame[at..at + 2].copy_from_slice(&0x9783u16.to_be_bytes());
    let L4Diagnosis::LeakedPartial {
        start,
        offset,
        seed: s,
    } = leak::diagnose(&frame, &layers)
    else {
        panic!("{:?}", leak::diagnose(&frame, &layers))
    };
    assert_eq!((start, offset, s.to_be_u16()), (layers.l4, 6, 0x9783));
    // Any other wrong value is a plain bad checksum, with the right value named.
    frame[at..at + 2].copy_from_slice(&0x9784u16.to_be_bytes());
    let L4Diagnosis::Bad { found, expected } = leak::diagnose(&frame, &layers) else {
        panic!()
    };
    assert_eq!(found.to_be_u16(), 0x9784);
    assert_eq!(expected.to_bytes(), good);
    // And the boundary refuses to accept such a field as a finished one: a
    // NEEDS_CSUM-less header claims nothing, so the receiver verifies.
    let m = VirtioNetHdr::ZERO
        .to_meta(&frame, &VirtioPolicy::GUEST_TX)
        .unwrap();
    assert_eq!(m.meta, CsumMeta::NONE);
}

#[test]
fn leak_diagnosis_on_tcp_v6_and_zero_udp() {
    let spec = Spec::tcp6(500);
    let frame = make_partial(build(spec), spec);
    let l = wire::parse(&frame, LinkType::Ethernet).unwrap();
    assert!(matches!(
        leak::diagnose(&frame, &l),
        L4Diagnosis::LeakedPartial { offset: 16, .. }
    ));
    let spec = Spec::udp4(20);
    let mut frame = build(spec);
    frame[spec.l4() + 6..spec.l4() + 8].copy_from_slice(&[0, 0]);
    let l = wire::parse(&frame, LinkType::Ethernet).unwrap();
    assert_eq!(leak::diagnose(&frame, &l), L4Diagnosis::NoChecksum);
}

/// mirage-net-xen #123: a backend handed aggregated (GSO) frames to the guest
/// with no checksum flag; Linux netfront fixed 86% of frames up in software and
/// Windows re-segmented with the parent's checksum (0.05 MB/s). Aggregated
/// frames with complete, verified checksums carry `data_validated`; frames that
/// nobody verified are refused rather than sent flagless.
#[test]
fn mirage_net_xen_123_aggregated_frames_carry_data_validated() {
    let spec = Spec::tcp4(10_000);
    let frame = build(spec); // complete, correct checksum
    let sp = GsoParams {
        kind: GsoKind::TcpV4,
        ecn: false,
        gso_size: 1448,
        hdr_len: 54,
        segs: 7,
    };
    let verified = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    let out = xen::from_meta(verified, &frame, LinkType::Ethernet, Some(sp)).unwrap();
    assert_eq!(out.csum, XenCsum::Validated);
    assert_eq!(out.csum.to_rx().bits() & 0x1, 0x1, "NETRXF_data_validated");
    assert_eq!(
        out.csum.to_rx().bits() & 0x2,
        0,
        "not csum_blank: the field is complete"
    );
    let g = out.gso.unwrap();
    assert_eq!((g.kind, g.size), (GsoKind::TcpV4, 1448));
    // A super-packet nobody verified cannot leave flagless.
    let e = xen::from_meta(CsumMeta::NONE, &frame, LinkType::Ethernet, Some(sp)).unwrap_err();
    assert_eq!(
        e.error,
        BoundaryError::forbidden(MetaField::Gso, Rule::GsoWithoutChecksumState)
    );
    assert_eq!(
        e.meta,
        CsumMeta::NONE,
        "the refusal hands the metadata back"
    );
    // A GRO super-packet (Partial, seed in the field) goes as blank + validated.
    let pframe = make_partial(frame, spec);
    let p = CsumMeta::from_state(CsumState::Partial {
        start: spec.l4(),
        offset: 16,
        kind: PartialKind::Inet,
    });
    let out = xen::from_meta(p, &pframe, LinkType::Ethernet, Some(sp)).unwrap();
    assert_eq!(out.csum.to_rx().bits(), 0x3);
}

mod caller_layers {
    use netoffload::state::paravirt::dpdk::{self, SeedLength};
    use netoffload::state::paravirt::leak;
    use netoffload::state::paravirt::setup;
    use netoffload::state::{CsumMeta, CsumState, PartialKind};
    use netoffload::wire::{Fragment, Layers, LinkType, Net, Transport};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// `Layers` is a plain struct a caller can fill with anything: every
        /// public function that takes one refuses a disordered or oversized one
        /// instead of underflowing.
        #[test]
        fn disordered_layers_never_panic(
            offs in proptest::array::uniform7(0usize..120),
            proto in prop_oneof![Just(6u8), Just(17u8), Just(1u8), Just(58u8), any::<u8>()],
            v6 in any::<bool>(),
            len in 0usize..100,
        ) {
            let l = Layers {
                link: LinkType::Ethernet, l2: offs[0], vlan_count: 0, vlan_tci: [0; 2],
                l3: offs[1], net: if v6 { Net::Ipv6 } else { Net::Ipv4 }, l4: offs[2],
                ip_proto: proto, transport: Transport::from_proto(proto), payload: offs[3],
                end: offs[4], fragment: Fragment::default(), pseudo_src: offs[5], pseudo_dst: offs[6],
            };
            let mut frame = vec![0x45u8; len];
            let _ = leak::diagnose(&frame, &l);
            let _ = setup::check_seed(&frame, &l, l.l4, 16);
            let _ = setup::check_udp_length(&frame, &l);
            let _ = setup::pseudo_seed(&frame, &l);
            let _ = dpdk::convert_seed(&mut frame, &l, 16, SeedLength::Included, SeedLength::Excluded);
            let m = CsumMeta::from_state(CsumState::Partial { start: l.l4, offset: 16, kind: PartialKind::Inet });
            let _ = dpdk::meta_to_tx(m, &mut frame, &l, None, None, true);
        }
    }
}

#[test]
fn huge_caller_offsets_are_errors_not_overflows() {
    use netoffload::state::paravirt::dpdk::{self, SeedLength};
    use netoffload::state::paravirt::setup;
    let spec = Spec::tcp4(20);
    let mut frame = make_partial(build(spec), spec);
    let l = wire::parse(&frame, LinkType::Ethernet).unwrap();
    assert!(setup::check_seed(&frame, &l, l.l4, usize::MAX).is_err());
    assert!(
        dpdk::convert_seed(
            &mut frame,
            &l,
            usize::MAX,
            SeedLength::Included,
            SeedLength::Excluded
        )
        .is_err()
    );
    let mut s = setup::checksum_setup(&frame, LinkType::Ethernet).unwrap();
    s.offset = usize::MAX;
    assert!(setup::write_seed(&mut frame, &s).is_err());
}

#[test]
fn huge_vlan_hlen_is_an_error() {
    let m = CsumMeta::from_state(CsumState::Partial {
        start: 34,
        offset: 16,
        kind: PartialKind::Inet,
    });
    let e = VirtioNetHdr::from_meta(
        m,
        GuestFrame {
            base: 0,
            vlan_hlen: usize::MAX,
        },
        None,
        PeerFeatures::default(),
    )
    .unwrap_err();
    assert_eq!(e.error.field, MetaField::VirtioCsumStart);
}
