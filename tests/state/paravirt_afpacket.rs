//! AF_PACKET / TPACKET status bits, both ways.

use crate::support::paravirt as support;

use netoffload::state::paravirt::afpacket::{
    self, CaptureDirection, CaptureGso, Captured, TpStatus,
};
use netoffload::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use netoffload::wire::LinkType;
use support::{Spec, build, finish, l4_ok, make_partial, sound};

#[test]
fn status_bits_are_the_if_packet_h_values() {
    assert_eq!(TpStatus::CSUMNOTREADY.bits(), 1 << 3);
    assert_eq!(TpStatus::CSUM_VALID.bits(), 1 << 7);
    assert_eq!(TpStatus::GSO_TCP.bits(), 1 << 8);
    assert_eq!(TpStatus::VLAN_VALID.bits(), 1 << 4);
}

#[test]
fn meta_to_status_follows_tpacket_rcv() {
    use CaptureDirection::{Incoming, Outgoing};
    let partial = CsumMeta::from_state(CsumState::Partial {
        start: 34,
        offset: 16,
        kind: PartialKind::Inet,
    });
    let un = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    let complete = CsumMeta::from_state(CsumState::Complete {
        csum: netoffload::csum::Wsum::new(3),
    });
    let verified = CsumMeta::new(
        CsumState::Complete {
            csum: netoffload::csum::Wsum::new(3),
        },
        CsumFlags::CSUM_VALID,
    )
    .unwrap();
    let blank = CsumMeta::new(
        CsumState::Partial {
            start: 34,
            offset: 6,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID,
    )
    .unwrap();
    let table = [
        (&partial, Incoming, TpStatus::CSUMNOTREADY),
        (&partial, Outgoing, TpStatus::CSUMNOTREADY),
        (&blank, Outgoing, TpStatus::CSUMNOTREADY),
        (&un, Incoming, TpStatus::CSUM_VALID),
        (&un, Outgoing, TpStatus::empty()),
        // An unverified device sum is not "valid" (older kernels said it was).
        (&complete, Incoming, TpStatus::empty()),
        (&verified, Incoming, TpStatus::CSUM_VALID),
        (&CsumMeta::NONE, Incoming, TpStatus::empty()),
    ];
    for (m, dir, want) in table {
        assert_eq!(
            afpacket::meta_to_status(m, dir, CaptureGso::No),
            want,
            "{m:?} {dir:?}"
        );
    }
    assert_eq!(
        afpacket::meta_to_status(&un, Incoming, CaptureGso::Tcp),
        TpStatus::CSUM_VALID | TpStatus::GSO_TCP
    );
}

#[test]
fn not_ready_is_finished_not_called_bad() {
    for spec in [
        Spec::tcp4(300),
        Spec::udp6(77),
        Spec {
            vlan: true,
            ..Spec::tcp6(5)
        },
    ] {
        let frame = make_partial(build(spec), spec);
        assert_eq!(
            l4_ok(&frame, false),
            Some(false),
            "a captured Partial fails a naive check"
        );
        let Captured::NotReady(meta) = afpacket::status_to_meta(
            TpStatus::USER | TpStatus::CSUMNOTREADY,
            &frame,
            LinkType::Ethernet,
        ) else {
            panic!("{spec:?}")
        };
        sound(&frame, false, &meta).unwrap();
        let CsumState::Partial { start, offset, .. } = meta.state() else {
            panic!()
        };
        assert_eq!(
            l4_ok(&finish(&frame, false, start, offset, spec.udp), false),
            Some(true)
        );
    }
    // Not locatable (not TCP/UDP): the tool must skip the check.
    let mut icmp = Vec::new();
    etherparse::PacketBuilder::ethernet2([0; 6], [1; 6])
        .ipv4([1; 4], [2; 4], 3)
        .icmpv4_echo_request(1, 1)
        .write(&mut icmp, &[1, 2])
        .unwrap();
    assert_eq!(
        afpacket::status_to_meta(TpStatus::CSUMNOTREADY, &icmp, LinkType::Ethernet),
        Captured::NotReadyUnlocated
    );
}

#[test]
fn csum_valid_and_nothing() {
    let spec = Spec::udp4(30);
    let frame = build(spec);
    let Captured::Valid(m) = afpacket::status_to_meta(
        TpStatus::USER | TpStatus::CSUM_VALID,
        &frame,
        LinkType::Ethernet,
    ) else {
        panic!()
    };
    sound(&frame, false, &m).unwrap();
    assert_eq!(
        afpacket::status_to_meta(TpStatus::USER, &frame, LinkType::Ethernet),
        Captured::Unknown
    );
    // Round trip: incoming Unnecessary -> bits -> Valid.
    let bits = afpacket::meta_to_status(&m, CaptureDirection::Incoming, CaptureGso::No);
    assert!(matches!(
        afpacket::status_to_meta(bits, &frame, LinkType::Ethernet),
        Captured::Valid(_)
    ));
}
