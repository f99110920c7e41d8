//! Named regressions for issue 14 items 1 and 3: a peer's "data validated"
//! scoped to the one checksum it covers, conntrack's reason for a layer
//! without a checksum, and `+0` for a `Complete` sum over zero bytes.
//!
//! Every packet's checksums are recomputed from scratch by the oracle
//! (tests/support/oracle.rs): the tests never take the library's word for
//! which checksum is good.

use crate::support::encap as encap_support;

use encap_support::oracle::{self, Link, Proto, View};
use encap_support::{Outer, Wrap, eth_tcp, ip_tcp, naive_pseudo, naive_sum, wrap};
use netoffload::csum::{self, Wsum};
use netoffload::encap::{DecapError, EncapConfig, decap, decap_nested};
use netoffload::state::paravirt::virtio::{SeedPolicy, VirtioFlags, VirtioNetHdr, VirtioPolicy};
use netoffload::state::paravirt::xen::{self, XenCsum, XenTrust};
use netoffload::state::{
    self, ConntrackConfig, CsumFlags, CsumMeta, CsumState, CsumVerdict, Hook, Packet, PartialKind,
    Reason,
};
use netoffload::wire::{self, Layer, Layers, LinkType};

fn outer(wrap: Wrap, csum: bool, inner_eth: bool) -> Outer {
    Outer {
        wrap,
        v6: false,
        csum,
        vlan: None,
        inner_eth,
    }
}

/// The frame of the issue: Ethernet / IPv4 / UDP 4789 / VXLAN / Ethernet /
/// IPv4 / TCP with 100 payload bytes and a corrupted inner TCP checksum; the
/// outer UDP checksum is zero or computed over the corrupted inner frame.
fn vxlan_bad_inner(outer_csum: bool) -> Vec<u8> {
    let mut inner = eth_tcp(false, None, &[0x5A; 100]);
    inner[14 + 20 + 16] ^= 0xA5; // the inner TCP checksum field
    let frame = wrap(&outer(Wrap::Vxlan, outer_csum, true), &inner);
    let sites = oracle::sites(&frame, Link::Ethernet);
    let got: Vec<_> = sites.iter().map(|s| (s.proto, s.zero, s.correct)).collect();
    assert_eq!(
        got,
        [(Proto::Udp, !outer_csum, true), (Proto::Tcp, false, false)],
        "oracle: the outer checksum holds, the inner TCP checksum does not"
    );
    frame
}

/// Decapsulates `frame` from `meta` (the state at the outer IP header), checks
/// the inner state with the oracle, then validates the inner TCP checksum.
fn decap_then_validate(frame: &[u8], meta: CsumMeta) -> state::Outcome {
    let outer = wire::parse(frame, LinkType::Ethernet).unwrap();
    let d = decap(frame, &outer, outer.l3, meta, &EncapConfig::DEFAULT).unwrap();
    let inner_bytes = &frame[..d.inner.end];
    let view = View::new(inner_bytes, Link::Ethernet, d.inner.l3, d.inner.l4);
    oracle::assert_sound(&view, &d.meta);
    assert!(
        !d.meta.data_valid(),
        "DATA_VALID crossed the decapsulation: {:?}",
        d.meta
    );
    let pkt = Packet::new(inner_bytes, d.inner, d.inner.l3).unwrap();
    let v = state::validate(d.meta, &pkt).unwrap();
    oracle::assert_sound(&view.validated(), &v.meta);
    let inner_ok = oracle::correct_at(frame, Link::Ethernet, d.inner.l4).unwrap();
    let good = v.verdict == CsumVerdict::Good;
    assert_eq!(good, inner_ok, "inner verdict {v:?} against the oracle");
    v
}

fn xen_meta(frame: &[u8], csum: XenCsum, trust: XenTrust) -> CsumMeta {
    let mut f = frame.to_vec();
    let x = xen::to_meta(
        csum,
        &mut f,
        LinkType::Ethernet,
        None,
        trust,
        SeedPolicy::Verify,
    )
    .unwrap();
    assert_eq!(f, frame, "to_meta wrote nothing");
    // The peer's word is honest about the one checksum it covers.
    oracle::assert_sound(&View::new(frame, Link::Ethernet, 14, 34), &x.meta);
    x.meta
}

/// Item 1, outer UDP checksum computed: data_validated read as level 0 must
/// not vouch for the inner TCP checksum after decap.
#[test]
fn xen_data_validated_does_not_vouch_for_inner_after_decap_outer_udp_nonzero() {
    let frame = vxlan_bad_inner(true);
    let meta = xen_meta(&frame, XenCsum::Validated, XenTrust::Unnecessary);
    // The level and the flag are one word about one checksum: the outer
    // layer's validation uses both up.
    let outer = wire::parse(&frame, LinkType::Ethernet).unwrap();
    let at_udp = Packet::new(&frame, outer, outer.l4).unwrap();
    let o = state::validate(meta.clone(), &at_udp).unwrap();
    assert_eq!(o.reason, Reason::LevelConsumed);
    assert_eq!(o.meta.state(), CsumState::None);
    assert!(
        !o.meta.data_valid(),
        "flag kept after its layer: {:?}",
        o.meta
    );
    let v = decap_then_validate(&frame, meta);
    assert_eq!(
        (v.verdict, v.reason),
        (CsumVerdict::Bad, Reason::BadChecksum)
    );
    // Without the flag the same steps answer the same.
    let none = decap_then_validate(
        &frame,
        xen_meta(&frame, XenCsum::Unknown, XenTrust::Unnecessary),
    );
    assert_eq!(none.verdict, CsumVerdict::Bad);
}

/// Item 1, outer UDP checksum zero: the zero accounts for the outer layer and
/// uses the flag up.
#[test]
fn xen_data_validated_does_not_vouch_for_inner_after_decap_outer_udp_zero() {
    let frame = vxlan_bad_inner(false);
    let meta = xen_meta(&frame, XenCsum::Validated, XenTrust::Unnecessary);
    let v = decap_then_validate(&frame, meta);
    assert_eq!(
        (v.verdict, v.reason),
        (CsumVerdict::Bad, Reason::BadChecksum)
    );
    assert!(v.sw_bytes >= 20 + 100, "the inner segment was summed");
}

/// Item 1, `XenTrust::Flag` (no level): a zero outer UDP checksum consumes the flag.
#[test]
fn xen_flag_trust_with_zero_outer_udp_is_consumed_by_the_outer_layer() {
    let frame = vxlan_bad_inner(false);
    let meta = xen_meta(&frame, XenCsum::Validated, XenTrust::Flag);
    assert_eq!(meta.flags(), CsumFlags::DATA_VALID);
    // Validating the outer layer alone already uses the flag up.
    let outer = wire::parse(&frame, LinkType::Ethernet).unwrap();
    let at_udp = Packet::new(&frame, outer, outer.l4).unwrap();
    let o = state::validate(meta.clone(), &at_udp).unwrap();
    assert_eq!(o.reason, Reason::ZeroUdpNoChecksum);
    assert!(
        !o.meta.data_valid(),
        "flag kept after its layer: {:?}",
        o.meta
    );
    let v = decap_then_validate(&frame, meta);
    assert_eq!(
        (v.verdict, v.reason),
        (CsumVerdict::Bad, Reason::BadChecksum)
    );
}

/// Item 1, the virtio driver's `DATA_VALID` read as `CHECKSUM_UNNECESSARY`
/// (`DataValidPolicy::TrustAsUnnecessary`, the same trust helper).
#[test]
fn virtio_data_valid_trusted_as_unnecessary_does_not_cross_decap() {
    for outer_csum in [true, false] {
        let frame = vxlan_bad_inner(outer_csum);
        let hdr = VirtioNetHdr {
            flags: VirtioFlags::DATA_VALID,
            ..VirtioNetHdr::ZERO
        };
        let inb = hdr.to_meta(&frame, &VirtioPolicy::DRIVER_RX).unwrap();
        oracle::assert_sound(&View::new(&frame, Link::Ethernet, 14, 34), &inb.meta);
        assert!(inb.meta.data_valid());
        let v = decap_then_validate(&frame, inb.meta);
        assert_eq!(
            (v.verdict, v.reason),
            (CsumVerdict::Bad, Reason::BadChecksum),
            "outer checksum {outer_csum}"
        );
    }
}

/// Item 1: a tunnel with no outer checksum (GRE without C) accounts for
/// nothing, so only decapsulation itself (the pull past the outer layer)
/// keeps the flag from crossing into the inner packet.
#[test]
fn xen_flag_trust_does_not_cross_a_tunnel_without_outer_checksum() {
    let mut inner = ip_tcp(false, &[0x33; 100]);
    inner[20 + 16] ^= 0xA5;
    let frame = wrap(&outer(Wrap::Gre { key: None }, false, false), &inner);
    let sites = oracle::sites(&frame, Link::Ethernet);
    assert_eq!(sites.len(), 1, "no GRE checksum, one TCP checksum");
    assert!(!sites[0].correct);
    let meta = xen_meta(&frame, XenCsum::Validated, XenTrust::Flag);
    let v = decap_then_validate(&frame, meta);
    assert_eq!(
        (v.verdict, v.reason),
        (CsumVerdict::Bad, Reason::BadChecksum)
    );
}

/// Item 1: IP-in-IP has no tunnel header, so its pull stops at the outer
/// `l4`; decap itself drops the flag.
#[test]
fn xen_flag_trust_does_not_cross_ip_in_ip() {
    let mut inner = ip_tcp(false, &[0x66; 100]);
    inner[20 + 16] ^= 0xA5;
    let frame = wrap(&outer(Wrap::IpIp, false, false), &inner);
    let sites = oracle::sites(&frame, Link::Ethernet);
    assert_eq!(sites.len(), 1, "one TCP checksum, none at the outer layer");
    assert!(!sites[0].correct);
    let meta = xen_meta(&frame, XenCsum::Validated, XenTrust::Flag);
    let v = decap_then_validate(&frame, meta);
    assert_eq!(
        (v.verdict, v.reason),
        (CsumVerdict::Bad, Reason::BadChecksum)
    );
}

/// Item 1 at the state level: `pull` keeps `DATA_VALID` up to the layer it
/// speaks for and drops it once the pull goes past that layer.
#[test]
fn pull_past_the_vouched_layer_drops_data_valid() {
    let frame = vxlan_bad_inner(true);
    let meta = CsumMeta::new(CsumState::None, CsumFlags::DATA_VALID).unwrap();
    let pkt = Packet::parse(&frame, LinkType::Ethernet).unwrap();
    let l4 = pkt.layers().l4;
    let to_l4 = state::pull(meta.clone(), &pkt, l4 - pkt.cur()).unwrap();
    assert!(to_l4.meta.data_valid(), "still the layer it spoke for");
    oracle::assert_sound(&View::new(&frame, Link::Ethernet, l4, l4), &to_l4.meta);
    let past = state::pull(meta, &pkt, 64 - pkt.cur()).unwrap(); // the inner IP header
    assert!(!past.meta.data_valid(), "crossed into the inner packet");
    oracle::assert_sound(&View::new(&frame, Link::Ethernet, 64, 84), &past.meta);
}

/// Item 1 on the way out: `push` of headers before the parsed packet and
/// `encap` put a new outer layer in front; the origin's word stays behind.
#[test]
fn encapsulation_drops_data_valid() {
    use netoffload::encap::{EncapSpec, OuterEthernet, OuterIp, TunnelSpec, UdpCsumMode, encap};
    let inner = eth_tcp(false, None, &[0x44; 100]);
    assert!(oracle::all_correct(&inner, Link::Ethernet));
    let meta = CsumMeta::new(CsumState::None, CsumFlags::DATA_VALID).unwrap();
    let head = 64;
    let mut buf = vec![0u8; head + inner.len()];
    buf[head..].copy_from_slice(&inner);

    // State level: 50 bytes pushed in front of the Ethernet header.
    let layers = wire::parse(&buf[head..], LinkType::Ethernet).unwrap();
    let shifted = encap_support::shift(layers, head);
    let pkt = Packet::new(&buf, shifted, head).unwrap();
    let own = state::push(meta.clone(), &pkt.with_cur(head + 14).unwrap(), 14).unwrap();
    assert!(own.meta.data_valid(), "its own link header: same packet");
    let pushed = state::push(meta.clone(), &pkt, 50).unwrap();
    assert!(
        !pushed.meta.data_valid(),
        "a new outer layer: {:?}",
        pushed.meta
    );

    // The encap room's transition.
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
        tunnel: TunnelSpec::Vxlan {
            vni: 42,
            src_port: 49152,
            dst_port: 4789,
        },
        udp_csum: UdpCsumMode::Zero,
    };
    let cfg = EncapConfig::DEFAULT;
    let e = encap(
        &spec,
        &cfg,
        &mut buf,
        head,
        inner.len(),
        LinkType::Ethernet,
        meta,
    )
    .unwrap();
    assert!(!e.meta.data_valid(), "encap kept DATA_VALID: {:?}", e.meta);
    let frame = &buf[e.start..e.end];
    oracle::assert_sound(&View::new(frame, Link::Ethernet, e.l3, e.l4), &e.meta);
}

/// A VXLAN frame whose inner frame is itself a tunnel (`mid`), outer UDP
/// checksum computed over it; the oracle must see the outer checksum good and
/// the second tunnel's checksum bad.
fn nested(mid: &[u8], bad: Proto) -> Vec<u8> {
    let frame = wrap(&outer(Wrap::Vxlan, true, true), mid);
    let sites = oracle::sites(&frame, Link::Ethernet);
    assert!(sites[0].correct && sites[0].proto == Proto::Udp);
    assert_eq!((sites[1].proto, sites[1].correct), (bad, false));
    assert!(sites[2].correct, "the innermost TCP checksum holds");
    frame
}

fn decap_nested_from_xen(frame: &[u8]) -> DecapError {
    let meta = xen_meta(frame, XenCsum::Validated, XenTrust::Unnecessary);
    let outer = wire::parse(frame, LinkType::Ethernet).unwrap();
    let r = decap_nested(frame, &outer, outer.l3, meta.clone(), &EncapConfig::DEFAULT)
        .expect_err("a bad second-tunnel checksum must be refused");
    assert_eq!(r.meta, meta, "refused: metadata handed back unchanged");
    r.error
}

/// Item 1: `decap_nested` must not let the flag vouch for a second VXLAN's
/// UDP checksum.
#[test]
fn decap_nested_refuses_bad_second_tunnel_udp_checksum_under_data_valid() {
    let mut mid = wrap(
        &outer(Wrap::Vxlan, true, true),
        &eth_tcp(false, None, &[7; 64]),
    );
    mid[34 + 6] ^= 0x5A; // the second tunnel's UDP checksum (stays non-zero)
    assert_ne!(&mid[40..42], &[0, 0]);
    let frame = nested(&mid, Proto::Udp);
    assert!(matches!(
        decap_nested_from_xen(&frame),
        DecapError::BadOuterChecksum { layer: Layer::Udp, offset, .. } if offset == 50 + 34
    ));
}

/// Item 1: likewise for a GRE checksum (C bit) in the second tunnel.
#[test]
fn decap_nested_refuses_bad_second_tunnel_gre_checksum_under_data_valid() {
    let mut mid = wrap(
        &outer(Wrap::Gre { key: None }, true, false),
        &ip_tcp(false, &[9; 64]),
    );
    mid[34 + 4] ^= 0x5A; // the GRE checksum field
    let frame = nested(&mid, Proto::Gre);
    assert!(matches!(
        decap_nested_from_xen(&frame),
        DecapError::BadOuterChecksum { layer: Layer::Gre, offset, .. } if offset == 50 + 34
    ));
}

/// Writes the pseudo-header seed into the TCP checksum field of an inner
/// IPv4 / TCP packet starting at `l3` (what a `Partial` claims it holds).
fn seed_inner_tcp(frame: &mut [u8], l3: usize) {
    let l = wire::parse(&frame[l3..], LinkType::RawIp).unwrap();
    let tcp_len = l.end - l.l4;
    let seed = naive_sum(&[], naive_pseudo(&frame[l3..], &l, 6, tcp_len));
    let field = l3 + l.l4 + 16;
    frame[field..field + 2].copy_from_slice(&seed.to_be_bytes());
}

/// Conntrack and validate on the outer layer of `frame` with an honest
/// `Partial` at the inner TCP at `inner_l4`: both must give the same answer.
fn conntrack_like_validate(frame: &[u8], inner_l4: usize) -> state::Outcome {
    let meta = CsumMeta::new(
        CsumState::Partial {
            start: inner_l4,
            offset: 16,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK,
    )
    .unwrap();
    let layers: Layers = wire::parse(frame, LinkType::Ethernet).unwrap();
    let view = View::new(frame, Link::Ethernet, layers.l3, layers.l4);
    oracle::assert_sound(&view, &meta);
    let pkt = Packet::parse(frame, LinkType::Ethernet).unwrap();
    let ct = state::conntrack(
        meta.clone(),
        &pkt,
        Hook::PreRouting,
        ConntrackConfig::default(),
    )
    .unwrap();
    let v = state::validate(meta, &pkt).unwrap();
    assert_eq!((ct.verdict, ct.reason), (v.verdict, v.reason));
    oracle::assert_sound(&view, &ct.meta);
    ct
}

/// Item 3: a zero UDP checksum carries no checksum, whatever `Partial`
/// vouches for the packet: conntrack says what validate says.
#[test]
fn conntrack_zero_udp_under_partial_says_no_checksum() {
    let mut inner = eth_tcp(false, None, &[3; 40]);
    seed_inner_tcp(&mut inner, 14);
    let frame = wrap(&outer(Wrap::Vxlan, false, true), &inner);
    let outer_udp = oracle::sites(&frame, Link::Ethernet)[0];
    assert!(outer_udp.proto == Proto::Udp && outer_udp.zero);
    let ct = conntrack_like_validate(&frame, 34 + 16 + 14 + 20);
    assert_eq!(
        (ct.verdict, ct.reason),
        (CsumVerdict::NoChecksum, Reason::ZeroUdpNoChecksum)
    );
}

/// Item 3: GRE without the C bit carries no checksum: conntrack says so too.
#[test]
fn conntrack_gre_without_checksum_under_partial_says_no_checksum() {
    let mut inner = ip_tcp(false, &[4; 40]);
    seed_inner_tcp(&mut inner, 0);
    let frame = wrap(&outer(Wrap::Gre { key: None }, false, false), &inner);
    // The oracle finds no GRE checksum, only the inner TCP one.
    let sites = oracle::sites(&frame, Link::Ethernet);
    assert_eq!(sites.len(), 1);
    assert_eq!(sites[0].proto, Proto::Tcp);
    let ct = conntrack_like_validate(&frame, 34 + 4 + 20);
    assert_eq!(
        (ct.verdict, ct.reason),
        (CsumVerdict::NoChecksum, Reason::NoChecksumField)
    );
}

/// IPv4 / UDP with `zeros` zero payload bytes and `pad` bytes of trailing
/// garbage, with an honest device `Complete` sum from the IP header.
fn zero_payload_udp(zeros: usize, pad: usize) -> (Vec<u8>, CsumMeta) {
    let mut b = Vec::new();
    etherparse::PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .udp(1234, 5678)
        .write(&mut b, &vec![0; zeros])
        .unwrap();
    b.extend(std::iter::repeat_n(0xEE, pad));
    let meta = CsumMeta::from_state(CsumState::Complete {
        csum: oracle::honest_complete(&b, 0),
    });
    oracle::assert_sound(&View::new(&b, Link::RawIp, 0, 20), &meta);
    (b, meta)
}

/// The sum a `Complete` must hold over `rest`, compared literally (`+0` is not `-0`).
#[track_caller]
fn literally_equal(meta: &CsumMeta, rest: &[u8]) {
    let CsumState::Complete { csum } = meta.state() else {
        panic!("not Complete: {meta:?}");
    };
    assert_eq!(
        csum::fold(csum),
        csum::fold(csum::partial(rest, Wsum::ZERO)),
        "fold(csum) == fold(sum of the bytes), literally"
    );
    assert_eq!(
        oracle::naive_sum(rest),
        0,
        "the oracle: only zero bytes left"
    );
}

/// Item 3: a pull that leaves only zero bytes leaves a `+0` sum.
#[test]
fn complete_after_pull_to_zero_bytes_is_plus_zero() {
    for zeros in [1, 2, 7, 32] {
        let (b, meta) = zero_payload_udp(zeros, 0);
        let pkt = Packet::parse(&b, LinkType::RawIp).unwrap();
        let o = state::pull(meta, &pkt, 28).unwrap();
        literally_equal(&o.meta, &b[28..]);
        oracle::assert_sound(&View::new(&b, Link::RawIp, 28, 20).validated(), &o.meta);
    }
}

/// Item 3: a trim that leaves only zero bytes after `cur` leaves a `+0` sum.
#[test]
fn complete_after_trim_to_zero_bytes_is_plus_zero() {
    for (zeros, pad) in [(1, 5), (4, 6), (17, 1)] {
        let (b, meta) = zero_payload_udp(zeros, pad);
        let pkt = Packet::parse(&b, LinkType::RawIp).unwrap();
        let o = state::pull(meta, &pkt, 28).unwrap();
        let at_payload = pkt.with_cur(28).unwrap();
        let end = b.len() - pad;
        let t = state::trim(o.meta, &at_payload, end).unwrap();
        literally_equal(&t.meta, &b[28..end]);
        oracle::assert_sound(
            &View::new(&b[..end], Link::RawIp, 28, 20).validated(),
            &t.meta,
        );
    }
}

/// Found by the paravirt_xen property test while checking this work: a GSO
/// slot of size 0 built by hand (not by `XenGso::parse`) divided by zero.
/// Linux's `xenvif_set_skb_gso` refuses it ("GSO size must not be zero").
#[test]
fn xen_gso_size_zero_is_refused_not_a_panic() {
    use netoffload::state::paravirt::xen::XenGso;
    use netoffload::state::paravirt::{MetaErrorKind, MetaField};
    use netoffload::wire::GsoKind;
    let mut frame = eth_tcp(false, None, &[1; 100]);
    let before = frame.clone();
    let gso = XenGso {
        kind: GsoKind::TcpV4,
        size: 0,
        features: 0,
        more: false,
    };
    for csum in [XenCsum::Unknown, XenCsum::BlankValidated] {
        let e = xen::to_meta(
            csum,
            &mut frame,
            LinkType::Ethernet,
            Some(gso),
            XenTrust::Unnecessary,
            SeedPolicy::Verify,
        )
        .unwrap_err();
        assert_eq!(
            (e.field, e.kind),
            (MetaField::XenGsoSize, MetaErrorKind::Zero)
        );
        assert_eq!(frame, before, "refused: nothing written");
    }
}

/// Found by the `state_ops` fuzz smoke (fixed seed): a `Complete` pulled to
/// the end of the packet covers no bytes (`+0`); a NAT that rewrites only
/// bytes before `cur` subtracted and added nothing, which in ones-complement
/// turned `+0` into `-0`. Every rewrite now leaves `+0` over zero bytes.
#[test]
fn nat_outside_an_empty_complete_keeps_plus_zero() {
    use netoffload::state::{Addr, PacketMut, Rewrite};
    for zeros in [0, 3] {
        let (mut b, meta) = zero_payload_udp(zeros, 0);
        let end = b.len();
        let pkt = Packet::parse(&b, LinkType::RawIp).unwrap();
        let o = state::pull(meta, &pkt, end).unwrap();
        literally_equal(&o.meta, &[]);
        let layers = *pkt.layers();
        let mut m = PacketMut::new(&mut b, layers, end).unwrap();
        let out = state::nat(o.meta, &mut m, Rewrite::Src(Addr::V4([192, 0, 2, 9]))).unwrap();
        literally_equal(&out.meta, &[]);
        let out = state::nat(out.meta, &mut m, Rewrite::DstPort(4242)).unwrap();
        literally_equal(&out.meta, &[]);
    }
}

/// Found by the `state_ops` fuzz run: an all-zero ICMPv4 message (checksum
/// field 0, which is wrong: zeros sum to +0, the field must make it -0)
/// followed by padding, under a device `Complete` sum over everything. Taking
/// the padding and the IP header out of the sum leaves -0, which without a
/// pseudo-header folds to "valid". The sum over all-zero bytes is +0: Bad.
#[test]
fn all_zero_icmp_under_complete_is_bad() {
    for pad in [0usize, 6, 217] {
        let mut b = Vec::new();
        etherparse::PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .icmpv4_echo_request(0, 0)
            .write(&mut b, &[])
            .unwrap();
        // The ICMP message: type 8 -> make every byte zero (type 0 = echo reply).
        for x in &mut b[20..28] {
            *x = 0;
        }
        b.extend((0..pad).map(|i| (i * 37 + 11) as u8));
        let meta = CsumMeta::from_state(CsumState::Complete {
            csum: oracle::honest_complete(&b, 0),
        });
        let pkt = Packet::parse(&b, LinkType::RawIp).unwrap();
        let v = state::validate(meta, &pkt).unwrap();
        assert_eq!(v.verdict, CsumVerdict::Bad, "pad {pad}: {v:?}");
        oracle::assert_sound(&View::new(&b, Link::RawIp, 0, 20), &v.meta);
    }
}

/// Found by the `state_ops` fuzz run after the virtio padding fix: DPDK's
/// `NONE` (data valid, field blank) on a UDP frame with 496 bytes of non-zero
/// junk after the datagram became a `Partial` whose fill would sum the junk
/// in. Every boundary that hands out a `Partial` applies the one padding
/// rule: DPDK and AF_PACKET fall back to no `Partial`, Xen refuses.
#[test]
fn no_boundary_hands_out_a_partial_over_non_zero_padding() {
    use netoffload::state::paravirt::afpacket::{self, Captured, TpStatus};
    use netoffload::state::paravirt::dpdk::{self, Encap, RxCsum, RxStatus};
    use netoffload::state::paravirt::setup;
    use netoffload::state::paravirt::virtio::SeedPolicy;
    use netoffload::state::paravirt::xen::{self, XenCsum, XenTrust, XenTxFlags};
    use netoffload::state::paravirt::{BoundaryError, MetaField, Rule};
    for junk in [false, true] {
        let mut b = Vec::new();
        etherparse::PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(1234, 5678)
            .write(&mut b, &[7; 40])
            .unwrap();
        let found = setup::checksum_setup(&b, LinkType::RawIp).unwrap();
        setup::write_seed(&mut b, &found).unwrap();
        b.extend((0..496).map(|i| if junk { (i * 13 + 5) as u8 } else { 0 }));
        let rx = RxCsum {
            l4: RxStatus::NoneDataValid,
            ..RxCsum::UNKNOWN
        };
        let d = dpdk::rx_to_meta_frame(rx, Encap::None, &b, LinkType::RawIp);
        let partial = matches!(d.meta.state(), CsumState::Partial { .. });
        assert_eq!(partial, !junk, "dpdk, junk {junk}: {:?}", d.meta);
        let a = afpacket::status_to_meta(TpStatus::CSUMNOTREADY, &b, LinkType::RawIp);
        assert_eq!(
            matches!(a, Captured::NotReady(_)),
            !junk,
            "af_packet, junk {junk}: {a:?}"
        );
        let mut frame = b.clone();
        let x = xen::to_meta(
            XenCsum::from_tx(XenTxFlags::CSUM_BLANK),
            &mut frame,
            LinkType::RawIp,
            None,
            XenTrust::Ignore,
            SeedPolicy::Verify,
        );
        if junk {
            assert_eq!(
                x.err(),
                Some(BoundaryError::forbidden(
                    MetaField::Packet,
                    Rule::BytesAfterDatagram
                ))
            );
            assert_eq!(frame, b, "a refusal changes nothing");
        } else {
            assert!(x.is_ok(), "{x:?}");
        }
    }
}
