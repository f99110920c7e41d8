//! End-to-end scenarios across the metadata boundaries (issue 8 item 3): each
//! step is a transition of the crate, each state is judged by the soundness
//! oracle of `tests/support/oracle.rs` (independent of the crate's arithmetic),
//! and each scenario asserts how many bytes were summed in software (none
//! where offload or trust allows it).

use crate::support;

use crate::support::paravirt as pv;

use netoffload::encap::{
    self, EncapConfig, EncapSpec, OuterEthernet, OuterIp, TunnelSpec, UdpCsumMode,
};
use netoffload::state::paravirt::virtio::SeedPolicy;
use netoffload::state::paravirt::virtio::{
    GuestFrame, HdrLayout, PeerFeatures, VirtioFlags, VirtioNetHdr, VirtioPolicy,
};
use netoffload::state::paravirt::xen::{self, XenCsum, XenTrust};
use netoffload::state::{
    self, ConntrackConfig, CsumFlags, CsumLevel, CsumMeta, CsumState, CsumVerdict, DeviceReport,
    Hook, Packet, PacketMut, PartialKind,
};
use netoffload::wire::{self, LinkType};
use pv::{Spec, build, make_partial, needs_csum};
use support::oracle::{self, Link, View};

/// Oracle check of `meta` for the packet whose current layer is the first
/// L4 header at or after `l4`.
#[track_caller]
fn sound_at(frame: &[u8], cur: usize, l4: usize, meta: &CsumMeta) {
    oracle::assert_sound(&View::new(frame, Link::Ethernet, cur, l4), meta);
}

#[track_caller]
fn sound(frame: &[u8], spec: Spec, meta: &CsumMeta) {
    sound_at(frame, spec.l3(), spec.l4(), meta);
}

const DV: PeerFeatures = PeerFeatures {
    data_valid: true,
    rsc_info: false,
};

/// What a guest hands the host: its frame with a `NEEDS_CSUM` header, read
/// through the header bytes as a backend would.
fn guest_tx(spec: Spec) -> (Vec<u8>, CsumMeta) {
    let frame = make_partial(build(spec), spec);
    let mut wire = vec![0u8; 10];
    needs_csum(spec)
        .write(HdrLayout::Legacy, &mut wire)
        .unwrap();
    wire.extend_from_slice(&frame);
    let (hdr, payload) = VirtioNetHdr::parse(&wire, HdrLayout::Legacy).unwrap();
    let got = hdr.to_meta(payload, &VirtioPolicy::GUEST_TX).unwrap();
    sound(&frame, spec, &got.meta);
    (frame, got.meta)
}

#[test]
fn guest_bridge_nic_without_offload_fills_once() {
    for spec in [Spec::tcp4(1400), Spec::udp6(900)] {
        let (mut frame, meta) = guest_tx(spec);
        let mut sw = 0;
        let out = state::bridge(meta);
        sw += out.sw_bytes;
        sound(&frame, spec, &out.meta);
        // The physical NIC has no checksum offload: fill in software.
        let mut pkt = PacketMut::parse(&mut frame, LinkType::Ethernet).unwrap();
        let out = state::fill_partial(out.meta, &mut pkt).unwrap();
        sw += out.sw_bytes;
        assert!(oracle::all_correct(&frame, Link::Ethernet), "{spec:?}");
        sound(&frame, spec, &out.meta);
        assert_eq!(
            sw,
            frame.len() - spec.l4(),
            "one pass over the segment, nothing else"
        );
    }
}

#[test]
fn guest_bridge_conntrack_local_socket_sums_nothing() {
    for spec in [Spec::tcp6(1400), Spec::udp4(300)] {
        let (frame, meta) = guest_tx(spec);
        let mut sw = 0;
        let out = state::bridge(meta);
        sw += out.sw_bytes;
        let pkt = Packet::parse(&frame, LinkType::Ethernet).unwrap();
        // The 2005 bug: conntrack must not call the blank field bad.
        let out =
            state::conntrack(out.meta, &pkt, Hook::PreRouting, ConntrackConfig::default()).unwrap();
        assert_ne!(
            out.verdict,
            CsumVerdict::Bad,
            "a blank field is not a bad checksum"
        );
        sw += out.sw_bytes;
        sound(&frame, spec, &out.meta);
        let out = state::deliver(out.meta, &pkt).unwrap();
        assert_ne!(out.verdict, CsumVerdict::Bad);
        sw += out.sw_bytes;
        sound(&frame, spec, &out.meta);
        assert_eq!(sw, 0);
    }
}

#[test]
fn nic_unnecessary_bridge_guest_sums_nothing_when_data_valid_negotiated() {
    for spec in [Spec::tcp4(1000), Spec::udp6(500)] {
        let frame = build(spec);
        let pkt = Packet::parse(&frame, LinkType::Ethernet).unwrap();
        let rx = state::receive(DeviceReport::L4Ok {
            level: CsumLevel::L0,
        });
        sound(&frame, spec, &rx.meta);
        let out = state::bridge(rx.meta);
        // virtio guest that negotiated DATA_VALID.
        let hdr =
            VirtioNetHdr::from_meta(out.meta.clone(), GuestFrame::default(), None, DV).unwrap();
        assert_eq!(hdr.flags, VirtioFlags::DATA_VALID);
        let guest = hdr.to_meta(&frame, &VirtioPolicy::DRIVER_RX).unwrap();
        sound(&frame, spec, &guest.meta);
        let got = state::deliver(guest.meta, &pkt).unwrap();
        assert_eq!((got.verdict, got.sw_bytes), (CsumVerdict::Good, 0));
        // Without DATA_VALID the guest must sum the segment itself.
        let hdr = VirtioNetHdr::from_meta(
            out.meta.clone(),
            GuestFrame::default(),
            None,
            PeerFeatures::default(),
        )
        .unwrap();
        assert_eq!(hdr, VirtioNetHdr::ZERO);
        let guest = hdr.to_meta(&frame, &VirtioPolicy::DRIVER_RX).unwrap();
        let got = state::deliver(guest.meta, &pkt).unwrap();
        assert_eq!(got.verdict, CsumVerdict::Good);
        // The stack sums from the current layer (the IP header) so the sum can
        // be kept as Complete for later layers.
        assert_eq!(got.sw_bytes, frame.len() - spec.l3());
        // Xen guest: data_validated in the RX response.
        let x = xen::from_meta(out.meta, &frame, LinkType::Ethernet, None).unwrap();
        let bits = x.csum.to_rx();
        let mut copy = frame.clone();
        let g = xen::to_meta(
            XenCsum::from_rx(bits),
            &mut copy,
            LinkType::Ethernet,
            None,
            XenTrust::Unnecessary,
            SeedPolicy::Verify,
        )
        .unwrap();
        sound(&frame, spec, &g.meta);
        let got = state::deliver(g.meta, &pkt).unwrap();
        assert_eq!((got.verdict, got.sw_bytes), (CsumVerdict::Good, 0));
    }
}

#[test]
fn guest_a_to_guest_b_through_the_host_never_sums() {
    for spec in [
        Spec::tcp4(1400),
        Spec {
            vlan: true,
            ..Spec::udp4(700)
        },
    ] {
        // virtio: A's NEEDS_CSUM travels as B's NEEDS_CSUM.
        let (frame, meta) = guest_tx(spec);
        let out = state::bridge(meta);
        let pkt = Packet::parse(&frame, LinkType::Ethernet).unwrap();
        let ct =
            state::conntrack(out.meta, &pkt, Hook::PreRouting, ConntrackConfig::default()).unwrap();
        let hdr = VirtioNetHdr::from_meta(ct.meta, GuestFrame::default(), None, DV).unwrap();
        assert_eq!(
            (hdr.flags, hdr.csum_start as usize),
            (VirtioFlags::NEEDS_CSUM, spec.l4())
        );
        let b = hdr.to_meta(&frame, &VirtioPolicy::DRIVER_RX).unwrap();
        sound(&frame, spec, &b.meta);
        let got = state::deliver(b.meta, &pkt).unwrap();
        assert_ne!(got.verdict, CsumVerdict::Bad);
        assert_eq!(ct.sw_bytes + got.sw_bytes, 0);
        // Xen: netfront A TX (blank | validated) -> netback -> netback RX to B.
        let mut copy = frame.clone();
        let a = xen::to_meta(
            XenCsum::from_tx(XenCsum::BlankValidated.to_tx()),
            &mut copy,
            LinkType::Ethernet,
            None,
            XenTrust::Unnecessary,
            SeedPolicy::Verify,
        )
        .unwrap();
        let out = state::bridge(a.meta);
        let x = xen::from_meta(out.meta, &copy, LinkType::Ethernet, None).unwrap();
        assert_eq!(x.csum.to_rx().bits(), 0x3);
        let b = xen::to_meta(
            XenCsum::from_rx(x.csum.to_rx()),
            &mut copy,
            LinkType::Ethernet,
            None,
            XenTrust::Unnecessary,
            SeedPolicy::Verify,
        )
        .unwrap();
        assert_eq!(copy, frame, "the field was never touched");
        let got = state::deliver(b.meta, &pkt).unwrap();
        assert_eq!(got.sw_bytes, 0);
    }
}

#[test]
fn host_to_guest_blank_field_is_filled_only_if_the_guest_forwards() {
    let spec = Spec::tcp6(1200);
    let mut frame = make_partial(build(spec), spec);
    // Generated by the host stack: Partial, blank, data valid.
    let local = CsumMeta::new(
        CsumState::Partial {
            start: spec.l4(),
            offset: 16,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID,
    )
    .unwrap();
    sound(&frame, spec, &local);
    let hdr = VirtioNetHdr::from_meta(local.clone(), GuestFrame::default(), None, DV).unwrap();
    let g = hdr.to_meta(&frame, &VirtioPolicy::DRIVER_RX).unwrap();
    let pkt = Packet::parse(&frame, LinkType::Ethernet).unwrap();
    let got = state::deliver(g.meta.clone(), &pkt).unwrap();
    assert_eq!(got.sw_bytes, 0, "consumed locally: never filled");
    // The guest routes it on to a device without offload: fill once.
    let mut p = PacketMut::parse(&mut frame, LinkType::Ethernet).unwrap();
    let f = state::fill_partial(g.meta, &mut p).unwrap();
    assert_eq!(f.sw_bytes, frame.len() - spec.l4());
    assert!(oracle::all_correct(&frame, Link::Ethernet));
    // Xen guest: csum_blank | data_validated.
    let frame = make_partial(build(spec), spec);
    let x = xen::from_meta(local, &frame, LinkType::Ethernet, None).unwrap();
    assert_eq!(x.csum, XenCsum::BlankValidated);
}

/// The VXLAN host pair: guest A's frame is encapsulated (outer UDP checksum by
/// local checksum offload from the inner Partial), leaves through a NIC
/// without offload (fill), arrives at a NIC that verifies only the outer UDP
/// checksum (82599-like, level 0), is decapsulated and delivered to guest B.
fn vxlan_pair(udp_csum: UdpCsumMode, spec: Spec) -> (usize, CsumVerdict) {
    let (inner, meta) = guest_tx(spec);
    let head = 64;
    let mut buf = vec![0u8; head + inner.len()];
    buf[head..].copy_from_slice(&inner);
    // Partial offsets count from `head` going in, from the frame start coming out.
    let es = EncapSpec {
        eth: Some(OuterEthernet {
            dst: [6; 6],
            src: [7; 6],
            vlan: None,
        }),
        ip: OuterIp::V4 {
            src: [172, 16, 0, 1],
            dst: [172, 16, 0, 2],
            ttl: 64,
            tos: 0,
            id: 1,
            dont_fragment: true,
        },
        tunnel: TunnelSpec::Vxlan {
            vni: 42,
            src_port: 50000,
            dst_port: 4789,
        },
        udp_csum,
    };
    let cfg = EncapConfig::DEFAULT;
    let e = encap::encap(
        &es,
        &cfg,
        &mut buf,
        head,
        inner.len(),
        LinkType::Ethernet,
        meta,
    )
    .unwrap();
    let mut sw = e.sw_bytes;
    let frame = &mut buf[e.start..e.end];
    // Sender NIC without offload.
    let mut p = PacketMut::parse(frame, LinkType::Ethernet).unwrap();
    let f = state::fill_partial(e.meta, &mut p).unwrap();
    sw += f.sw_bytes;
    let frame: Vec<u8> = frame.to_vec();
    assert!(
        oracle::all_correct(&frame, Link::Ethernet),
        "every checksum on the wire is right"
    );
    // Receiver NIC: verifies the outer UDP checksum only (csum_level 0).
    let rx = state::receive(DeviceReport::L4Ok {
        level: CsumLevel::L0,
    });
    let outer = wire::parse(&frame, LinkType::Ethernet).unwrap();
    sound_at(&frame, outer.l3, outer.l4, &rx.meta);
    let d = encap::decap(&frame, &outer, outer.l3, rx.meta, &cfg).unwrap();
    sw += d.sw_bytes;
    sound_at(&frame, d.inner.l3, d.inner.l4, &d.meta);
    let out = state::bridge(d.meta);
    // Validate the inner layer before handing to guest B (the host's check).
    let pkt = Packet::new(&frame, d.inner, d.inner.l3).unwrap();
    let v = state::validate(out.meta, &pkt).unwrap();
    sw += v.sw_bytes;
    sound_at(&frame, d.inner.l3, d.inner.l4, &v.meta);
    // Guest B's frame is the inner Ethernet frame.
    let base = d.inner.l2;
    let hdr = VirtioNetHdr::from_meta(v.meta, GuestFrame { base, vlan_hlen: 0 }, None, DV).unwrap();
    let b_frame = &frame[base..];
    let b = hdr.to_meta(b_frame, &VirtioPolicy::DRIVER_RX).unwrap();
    let bpkt = Packet::parse(b_frame, LinkType::Ethernet).unwrap();
    let got = state::deliver(b.meta, &bpkt).unwrap();
    sw += got.sw_bytes;
    (sw - f.sw_bytes, got.verdict)
}

#[test]
fn vxlan_nonzero_outer_checksum_validates_the_inner_by_arithmetic() {
    let spec = Spec::tcp4(1300);
    let (sw, verdict) = vxlan_pair(UdpCsumMode::Compute, spec);
    assert_eq!(verdict, CsumVerdict::Good);
    // Headers only, never the payload: local checksum offload sums outer UDP +
    // VXLAN + inner Ethernet + inner IPv4 (8 + 8 + 14 + 20); decap converts to
    // Complete and pulls UDP + VXLAN + inner Ethernet (30); the inner check
    // pulls the inner IPv4 header (20) and is then pure arithmetic; guest B
    // gets DATA_VALID and sums nothing.
    assert_eq!(sw, (8 + 8 + 14 + 20) + (8 + 8 + 14) + 20);
    assert!(sw < spec.payload);
}

#[test]
fn vxlan_zero_outer_checksum_costs_one_inner_pass_82599() {
    let spec = Spec::tcp4(1300);
    let (sw, verdict) = vxlan_pair(UdpCsumMode::Zero, spec);
    assert_eq!(verdict, CsumVerdict::Good);
    // Level 0 consumed by the zero outer checksum: the inner packet (IPv4 +
    // TCP + payload, from the current layer) is summed once in software, and
    // never again in the guest (DATA_VALID). No LCO: the outer checksum is 0.
    assert_eq!(sw, 20 + 20 + 1300);
}

/// The agreed rule (Linux `__skb_checksum_validate_needed`: a `Partial`
/// starting at or after the layer makes `skb_csum_unnecessary` true, so
/// `csum_valid` is set): `deliver` on a trusted guest `Partial` marks the
/// layer `CSUM_VALID` while its field is still blank, and the shared oracle
/// accepts that; the same flag on the blank field without the `Partial` is
/// unsound.
#[test]
fn csum_valid_on_trusted_partial_agrees_with_the_oracle() {
    let spec = Spec::tcp6(1400);
    let (frame, meta) = guest_tx(spec);
    let pkt = Packet::parse(&frame, LinkType::Ethernet).unwrap();
    let ct = state::conntrack(meta, &pkt, Hook::PreRouting, ConntrackConfig::default()).unwrap();
    let out = state::deliver(ct.meta, &pkt).unwrap();
    assert_eq!(out.verdict, CsumVerdict::Good);
    assert!(matches!(out.meta.state(), CsumState::Partial { .. }));
    assert!(
        out.meta.flags().contains(CsumFlags::CSUM_VALID),
        "{:?}",
        out.meta
    );
    let v = View {
        bytes: &frame,
        link: Link::Ethernet,
        cur: spec.l3(),
        levels_from: spec.l4(),
        l4: spec.l4(),
    };
    assert_eq!(oracle::check(&v, &out.meta), Ok(()), "{:?}", out.meta);
    // Without the Partial's trust the blank field does not verify.
    let bare = CsumMeta::new(CsumState::None, CsumFlags::CSUM_VALID).unwrap();
    assert!(matches!(
        oracle::check(&v, &bare),
        Err(oracle::Unsound::CsumValidOnBad { .. })
    ));
}
