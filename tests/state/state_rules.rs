//! One test per kernel rule the state transitions model, on real packets built
//! with etherparse, each result checked by the independent oracle.

use crate::support;

use netoffload::csum::Wsum;
use netoffload::state::{
    self, Addr, ConntrackConfig, CsumFlags, CsumLevel, CsumMeta, CsumState, CsumVerdict,
    DeviceReport, Hook, Packet, PacketMut, PartialKind, Reason, Rewrite, StateError,
};
use netoffload::wire::LinkType;
use support::oracle::{self, Link, View};
use support::packets::{self, L4, Spec};

fn view(bytes: &[u8], cur: usize, levels_from: usize, l4: usize) -> View<'_> {
    View {
        bytes,
        link: Link::Ethernet,
        cur,
        levels_from,
        l4,
    }
}

#[track_caller]
fn sound(bytes: &[u8], pkt_cur: usize, levels_from: usize, l4: usize, meta: &CsumMeta) {
    oracle::assert_sound(&view(bytes, pkt_cur, levels_from, l4), meta);
}

fn tcp4(payload: &[u8]) -> (Vec<u8>, packets::Built) {
    packets::build(&packets::simple(false, L4::Tcp { opt_words: 0 }, payload))
}

/// What a device that verified `level + 1` checksums reports.
fn l4ok(level: CsumLevel) -> CsumMeta {
    state::receive(DeviceReport::L4Ok { level }).meta
}

fn corrupt(bytes: &mut [u8], at: usize) {
    bytes[at] ^= 0x40;
}

#[test]
fn software_validation_keeps_the_sum_as_complete() {
    let (b, at) = tcp4(b"hello, world");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let out = state::validate(CsumMeta::NONE, &pkt).unwrap();
    assert_eq!(out.verdict, CsumVerdict::Good);
    assert_eq!(out.reason, Reason::SoftwareVerified);
    assert!(matches!(out.meta.state(), CsumState::Complete { .. }));
    assert!(
        out.meta
            .flags()
            .contains(CsumFlags::COMPLETE_SW | CsumFlags::CSUM_VALID)
    );
    sound(&b, pkt.cur(), at.l4, at.l4, &out.meta);
    // A second validation is arithmetic only: no byte summed twice.
    let pkt_l4 = pkt.with_cur(at.l4).unwrap();
    let pulled = state::pull(out.meta, &pkt, at.l4 - at.l3).unwrap();
    let again = state::validate(pulled.meta, &pkt_l4).unwrap();
    assert_eq!(
        (again.verdict, again.reason, again.sw_bytes),
        (CsumVerdict::Good, Reason::CompleteChecked, 0)
    );
}

#[test]
fn corrupted_packet_with_no_claim_is_bad() {
    let (mut b, at) = tcp4(b"payload bytes");
    corrupt(&mut b, at.end - 1);
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let out = state::validate(CsumMeta::NONE, &pkt).unwrap();
    assert_eq!(
        (out.verdict, out.reason),
        (CsumVerdict::Bad, Reason::BadChecksum)
    );
    assert!(!out.meta.flags().contains(CsumFlags::CSUM_VALID));
    sound(&b, pkt.cur(), at.l4, at.l4, &out.meta);
}

#[test]
fn unnecessary_level_is_consumed_one_per_layer() {
    let (b, _) = tcp4(b"x");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = l4ok(CsumLevel::L1);
    let out = state::validate(m, &pkt).unwrap();
    assert_eq!(
        (out.verdict, out.reason, out.sw_bytes),
        (CsumVerdict::Good, Reason::LevelConsumed, 0)
    );
    assert_eq!(
        out.meta.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L0
        }
    );
    let m0 = l4ok(CsumLevel::L0);
    let out = state::validate(m0, &pkt).unwrap();
    assert_eq!(out.meta.state(), CsumState::None);
    assert!(out.meta.flags().contains(CsumFlags::CSUM_VALID));
}

#[test]
fn icmp_is_never_covered_by_a_level() {
    let (mut b, at) = packets::build(&packets::simple(false, L4::Icmp, b"ping"));
    corrupt(&mut b, at.end - 1);
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = l4ok(CsumLevel::L0);
    let out = state::validate(m, &pkt).unwrap();
    assert_eq!(out.verdict, CsumVerdict::Bad);
    // The software sum replaces levels nothing after ICMP could use.
    assert!(matches!(out.meta.state(), CsumState::Complete { .. }));
    sound(&b, at.l3, at.l4, at.l4, &out.meta);
}

#[test]
fn complete_from_device_checks_by_arithmetic() {
    let (b, at) = tcp4(b"some data here!");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = state::receive(DeviceReport::Complete {
        csum: oracle::honest_complete(&b, at.l3),
    })
    .meta;
    let out = state::validate(m, &pkt).unwrap();
    assert_eq!(out.verdict, CsumVerdict::Good);
    assert_eq!(out.reason, Reason::CompleteChecked);
    // only the IP header is summed to take it out of the device sum
    assert_eq!(out.sw_bytes, at.l4 - at.l3);
}

#[test]
fn lying_device_sum_is_a_device_fault_and_gets_replaced() {
    let (b, at) = tcp4(b"some data here!");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let wrong = Wsum::new(oracle::honest_complete(&b, at.l3).get() ^ 0x0101);
    let m = state::receive(DeviceReport::Complete { csum: wrong }).meta;
    let out = state::validate(m, &pkt).unwrap();
    assert_eq!(
        (out.verdict, out.reason),
        (CsumVerdict::Good, Reason::DeviceChecksumFault)
    );
    assert!(out.meta.flags().contains(CsumFlags::COMPLETE_SW));
    sound(&b, at.l3, at.l4, at.l4, &out.meta);
}

#[test]
fn corrupted_packet_with_honest_complete_is_bad() {
    let (mut b, at) = tcp4(b"some data here!");
    corrupt(&mut b, at.l4 + 25);
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = state::receive(DeviceReport::Complete {
        csum: oracle::honest_complete(&b, at.l3),
    })
    .meta;
    let out = state::validate(m, &pkt).unwrap();
    assert_eq!(out.verdict, CsumVerdict::Bad);
    sound(&b, at.l3, at.l4, at.l4, &out.meta);
}

#[test]
fn zero_udp_checksum_v4_is_no_checksum_and_consumes_a_level() {
    let (b, _) = packets::build(&packets::simple(false, L4::UdpZero, b"dns?"));
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = l4ok(CsumLevel::L1);
    let out = state::validate(m, &pkt).unwrap();
    assert_eq!(
        (out.verdict, out.reason),
        (CsumVerdict::NoChecksum, Reason::ZeroUdpNoChecksum)
    );
    assert_eq!(
        out.meta.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L0
        }
    );
}

#[test]
fn zero_udp_checksum_v6_is_rejected_unless_allowed() {
    let (b, _) = packets::build(&packets::simple(true, L4::UdpZero, b"tunnel"));
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let out = state::validate(CsumMeta::NONE, &pkt).unwrap();
    assert_eq!(
        (out.verdict, out.reason),
        (CsumVerdict::Bad, Reason::ZeroUdp6Rejected)
    );
    let opts = state::ValidateOptions {
        zero_udp6: state::ZeroUdp6::Accept,
    };
    let out = state::validate_with(CsumMeta::NONE, &pkt, opts).unwrap();
    assert_eq!(out.verdict, CsumVerdict::NoChecksum);
}

#[test]
fn sctp_crc32c_is_verified_in_software() {
    let (mut b, at) = packets::build(&packets::simple(false, L4::Sctp, &[7u8; 33]));
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let out = state::validate(CsumMeta::NONE, &pkt).unwrap();
    assert_eq!(
        (out.verdict, out.reason),
        (CsumVerdict::Good, Reason::Crc32cVerified)
    );
    assert_eq!(out.sw_bytes, at.end - at.l4);
    corrupt(&mut b, at.end - 2);
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let out = state::validate(CsumMeta::NONE, &pkt).unwrap();
    assert_eq!(out.verdict, CsumVerdict::Bad);
}

#[test]
fn try_convert_after_level_zero_consumed_gives_complete_of_not_pseudo() {
    let (b, at) = packets::build(&packets::simple(false, L4::Udp, b"vxlan-ish payload"));
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = l4ok(CsumLevel::L0);
    let v = state::validate(m, &pkt).unwrap();
    assert_eq!(v.meta.state(), CsumState::None);
    let c = state::try_convert(v.meta, &pkt).unwrap();
    assert_eq!(c.reason, Reason::Converted);
    assert!(matches!(c.meta.state(), CsumState::Complete { .. }));
    sound(&b, at.l3, at.l4 + 1, at.l4, &c.meta);
}

#[test]
fn try_convert_skips_zero_udp() {
    let (b, _) = packets::build(&packets::simple(false, L4::UdpZero, b"abc"));
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = l4ok(CsumLevel::L0);
    let v = state::validate(m, &pkt).unwrap();
    let c = state::try_convert(v.meta, &pkt).unwrap();
    assert_eq!(c.reason, Reason::NotConverted);
}

#[test]
fn pull_and_push_keep_complete_exact_including_odd_lengths() {
    let (b, at) = tcp4(b"odd length payload!");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = CsumMeta::from_state(CsumState::Complete {
        csum: oracle::honest_complete(&b, at.l3),
    });
    for len in [0usize, 1, 7, 20, at.end - at.l3] {
        let p = state::pull(m.clone(), &pkt, len).unwrap();
        sound(&b, at.l3 + len, at.l4, at.l4, &p.meta);
        let moved = pkt.with_cur(at.l3 + len).unwrap();
        let back = state::push(p.meta, &moved, len).unwrap();
        sound(&b, at.l3, at.l4, at.l4, &back.meta);
    }
    assert!(matches!(
        state::pull(m, &pkt, b.len()),
        Err(state::Refused {
            error: StateError::OutOfBounds { .. },
            ..
        })
    ));
}

#[test]
fn trim_removes_padding_from_complete() {
    let mut spec = packets::simple(false, L4::Udp, b"x");
    spec.pad = vec![0xAB; 9];
    let (b, at) = packets::build(&spec);
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = CsumMeta::from_state(CsumState::Complete {
        csum: oracle::honest_complete(&b, at.l3),
    });
    let t = state::trim(m, &pkt, at.end).unwrap();
    assert_eq!(t.sw_bytes, 9);
    sound(&b[..at.end], at.l3, at.l4, at.l4, &t.meta);
    let short = pkt.truncated(at.end).unwrap();
    let v = state::validate(t.meta, &short).unwrap();
    assert_eq!(v.reason, Reason::CompleteChecked);
}

#[test]
fn partial_pulled_past_becomes_none() {
    let (b, at) = tcp4(b"abc");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = CsumMeta::new(
        CsumState::Partial {
            start: at.l4,
            offset: 16,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK,
    )
    .unwrap();
    let p = state::pull(m, &pkt, at.l4 - at.l3 + 1).unwrap();
    assert_eq!(
        (p.meta.state(), p.reason),
        (CsumState::None, Reason::PartialPulledPast)
    );
}

#[test]
fn route_decrements_ttl_with_rfc1624_and_keeps_complete() {
    let (mut b, at) = tcp4(b"forward me");
    let m = CsumMeta::from_state(CsumState::Complete {
        csum: oracle::honest_complete(&b, at.l3),
    });
    let ttl = b[at.l3 + 8];
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let out = state::route(m, &mut pm).unwrap();
    assert_eq!(out.reason, Reason::Routed);
    assert_eq!(b[at.l3 + 8], ttl - 1);
    let hdr = etherparse::Ipv4HeaderSlice::from_slice(&b[at.l3..])
        .unwrap()
        .to_header();
    assert_eq!(hdr.header_checksum, hdr.calc_header_checksum());
    sound(&b, at.l3, at.l4, at.l4, &out.meta);
}

#[test]
fn route_refuses_at_ttl_one_and_changes_nothing() {
    let mut spec = packets::simple(true, L4::Udp, b"x");
    spec.ttl = 1;
    let (mut b, _) = packets::build(&spec);
    let before = b.clone();
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let r = state::route(CsumMeta::NONE, &mut pm).unwrap_err();
    assert_eq!(r.error, StateError::HopLimitExpired { hop_limit: 1 });
    assert_eq!(b, before);
}

fn nat_case(spec: &Spec, meta: CsumMeta, rw: Rewrite) -> (Vec<u8>, packets::Built, state::Outcome) {
    let (mut b, at) = packets::build(spec);
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let out = state::nat(meta, &mut pm, rw).unwrap();
    (b, at, out)
}

#[test]
fn nat_v4_address_and_port_keep_every_checksum_correct() {
    for l4 in [L4::Tcp { opt_words: 2 }, L4::Udp, L4::Sctp, L4::Icmp] {
        let spec = packets::simple(false, l4, b"natted payload");
        let (b, at, out) = nat_case(&spec, CsumMeta::NONE, Rewrite::Src(Addr::V4([1, 2, 3, 4])));
        assert!(oracle::all_correct(&b, Link::Ethernet), "{l4:?}");
        let hdr = etherparse::Ipv4HeaderSlice::from_slice(&b[at.l3..])
            .unwrap()
            .to_header();
        assert_eq!(hdr.header_checksum, hdr.calc_header_checksum());
        assert_eq!(out.verdict, CsumVerdict::NotChecked);
        if l4 != L4::Icmp {
            let (b, _, _) = nat_case(&spec, CsumMeta::NONE, Rewrite::DstPort(8080));
            assert!(oracle::all_correct(&b, Link::Ethernet), "{l4:?} port");
        }
    }
}

#[test]
fn nat_v6_address_keeps_complete_sound() {
    let spec = packets::simple(true, L4::Tcp { opt_words: 0 }, b"six");
    let (b0, at0) = packets::build(&spec);
    let m = CsumMeta::from_state(CsumState::Complete {
        csum: oracle::honest_complete(&b0, at0.l3),
    });
    let (b, at, out) = nat_case(&spec, m, Rewrite::Dst(Addr::V6([0xfe; 16])));
    assert!(oracle::all_correct(&b, Link::Ethernet));
    sound(&b, at.l3, at.l4, at.l4, &out.meta);
}

#[test]
fn nat_keeps_udp_zero_and_never_writes_a_computed_zero() {
    let spec = packets::simple(false, L4::UdpZero, b"zero");
    let (b, at, out) = nat_case(&spec, CsumMeta::NONE, Rewrite::SrcPort(1));
    assert_eq!(out.reason, Reason::NatZeroUdpKept);
    assert_eq!(&b[at.l4 + 6..at.l4 + 8], &[0, 0]);
}

#[test]
fn nat_on_partial_moves_the_seed_only_for_addresses() {
    let spec = packets::simple(false, L4::Tcp { opt_words: 0 }, b"local");
    let (mut b, at) = packets::build(&spec);
    // Make it a locally generated Partial packet: field = pseudo-header seed.
    let len = (at.end - at.l4) as u16;
    let mut ph = Vec::new();
    ph.extend_from_slice(&b[at.l3 + 12..at.l3 + 20]);
    ph.extend_from_slice(&[0, 6]);
    ph.extend_from_slice(&len.to_be_bytes());
    let seed = oracle::naive_sum(&ph);
    b[at.l4 + 16..at.l4 + 18].copy_from_slice(&seed.to_be_bytes());
    let m = CsumMeta::new(
        CsumState::Partial {
            start: at.l4,
            offset: 16,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK,
    )
    .unwrap();
    sound(&b, at.l3, at.l4, at.l4, &m);
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let out = state::nat(m, &mut pm, Rewrite::Src(Addr::V4([9, 9, 9, 9]))).unwrap();
    let out = state::nat(out.meta, &mut pm, Rewrite::DstPort(1234)).unwrap();
    sound(&b, at.l3, at.l4, at.l4, &out.meta);
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let f = state::fill_partial(out.meta, &mut pm).unwrap();
    assert_eq!(f.reason, Reason::Filled);
    assert!(oracle::all_correct(&b, Link::Ethernet));
}

#[test]
fn conntrack_checks_only_at_prerouting_with_the_sysctl_on() {
    let (mut b, at) = tcp4(b"ct");
    corrupt(&mut b, at.end - 1);
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let on = ConntrackConfig::default();
    for hook in [
        Hook::LocalIn,
        Hook::Forward,
        Hook::LocalOut,
        Hook::PostRouting,
    ] {
        let o = state::conntrack(CsumMeta::NONE, &pkt, hook, on).unwrap();
        assert_eq!(
            (o.verdict, o.reason),
            (CsumVerdict::NotChecked, Reason::ConntrackHookSkipped)
        );
    }
    let off = ConntrackConfig { checksum: false };
    let o = state::conntrack(CsumMeta::NONE, &pkt, Hook::PreRouting, off).unwrap();
    assert_eq!(o.reason, Reason::ConntrackChecksumOff);
    let o = state::conntrack(CsumMeta::NONE, &pkt, Hook::PreRouting, on).unwrap();
    assert_eq!(o.verdict, CsumVerdict::Bad);
    sound(&b, at.l3, at.l4, at.l4, &o.meta);
}

#[test]
fn conntrack_does_not_consume_levels() {
    let (b, _) = tcp4(b"ct");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = l4ok(CsumLevel::L0);
    let o = state::conntrack(m, &pkt, Hook::PreRouting, ConntrackConfig::default()).unwrap();
    assert_eq!(o.verdict, CsumVerdict::Good);
    assert_eq!(
        o.meta.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L0
        }
    );
}

/// Xen 2005: a guest sends a TCP packet with a blank checksum (csum_blank)
/// through a bridge and conntrack to a physical device without offload.
/// Conntrack must accept it, transmit must fill it, the wire bytes must verify.
#[test]
fn xen_2005_blank_checksum_through_bridge_and_conntrack_to_a_dumb_nic() {
    let spec = packets::simple(
        false,
        L4::Tcp { opt_words: 3 },
        b"guest data that is not yet checksummed",
    );
    let (mut b, at) = packets::build(&spec);
    let len = (at.end - at.l4) as u16;
    let mut ph = Vec::new();
    ph.extend_from_slice(&b[at.l3 + 12..at.l3 + 20]);
    ph.extend_from_slice(&[0, 6]);
    ph.extend_from_slice(&len.to_be_bytes());
    b[at.l4 + 16..at.l4 + 18].copy_from_slice(&oracle::naive_sum(&ph).to_be_bytes());
    assert!(
        !oracle::all_correct(&b, Link::Ethernet),
        "the field is blank (seed only)"
    );
    // netback: csum_blank | data_validated -> Partial at the TCP header.
    let m = CsumMeta::new(
        CsumState::Partial {
            start: at.l4,
            offset: 16,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID,
    )
    .unwrap();
    let m = state::bridge(m).meta;
    assert!(
        m.is_blank() && m.data_valid(),
        "both facts survive the bridge"
    );
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let ct = state::conntrack(m, &pkt, Hook::PreRouting, ConntrackConfig::default()).unwrap();
    assert_eq!(
        ct.verdict,
        CsumVerdict::Good,
        "conntrack must not drop a blank checksum"
    );
    assert_eq!(ct.reason, Reason::PartialTrusted);
    let m = state::bridge(ct.meta).meta;
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let f = state::fill_partial(m, &mut pm).unwrap();
    assert_eq!(f.reason, Reason::Filled);
    assert!(!f.meta.is_blank());
    assert!(oracle::all_correct(&b, Link::Ethernet), "wire bytes verify");
    let parsed = etherparse::SlicedPacket::from_ethernet(&b).unwrap();
    if let Some(etherparse::TransportSlice::Tcp(tcp)) = parsed.transport {
        let ip = etherparse::Ipv4HeaderSlice::from_slice(&b[at.l3..])
            .unwrap()
            .to_header();
        let expect = tcp
            .to_header()
            .calc_checksum_ipv4(&ip, tcp.payload())
            .unwrap();
        assert_eq!(tcp.checksum(), expect);
    } else {
        panic!("not TCP");
    }
}

#[test]
fn fill_sctp_partial_writes_crc32c() {
    let (mut b, at) = packets::build(&packets::simple(false, L4::Sctp, &[1u8; 20]));
    b[at.l4 + 8..at.l4 + 12].fill(0);
    let m = CsumMeta::from_state(CsumState::Partial {
        start: at.l4,
        offset: 8,
        kind: PartialKind::Crc32c,
    });
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let f = state::fill_partial(m, &mut pm).unwrap();
    assert_eq!(f.reason, Reason::FilledCrc32c);
    assert!(oracle::all_correct(&b, Link::Ethernet));
}

#[test]
fn bad_input_is_refused_with_the_meta_handed_back() {
    let (b, at) = tcp4(b"x");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L2,
    });
    let past = pkt.with_cur(at.l4 + 1).unwrap();
    let r = state::validate(m.clone(), &past).unwrap_err();
    assert_eq!(r.meta, m);
    assert!(matches!(r.error, StateError::CurPastLayer { .. }));
    let bad = CsumMeta::from_state(CsumState::Partial {
        start: b.len(),
        offset: 16,
        kind: PartialKind::Inet,
    });
    let mut b2 = b.clone();
    let mut pm = PacketMut::parse(&mut b2, LinkType::Ethernet).unwrap();
    let r = state::fill_partial(bad.clone(), &mut pm).unwrap_err();
    assert_eq!(r.meta, bad);
    assert_eq!(b2, b);
    assert_eq!(
        CsumMeta::new(CsumState::None, CsumFlags::CSUM_BLANK),
        Err(state::MetaError::BlankWithoutPartial)
    );
}

#[test]
fn checksum_setup_points_partial_at_the_field_and_recalculates_the_seed() {
    for (v6, l4) in [
        (false, L4::Udp),
        (true, L4::Tcp { opt_words: 1 }),
        (true, L4::Udp),
    ] {
        let (mut b, at) = packets::build(&packets::simple(v6, l4, b"from a guest"));
        b[at.l4 + if l4 == L4::Udp { 6 } else { 16 }] ^= 0x77; // garbage in the field
        let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
        let s = state::checksum_setup(CsumMeta::NONE, &mut pm, true).unwrap();
        assert_eq!(s.reason, Reason::PartialSetUp);
        let blank = CsumMeta::new(s.meta.state(), s.meta.flags() | CsumFlags::CSUM_BLANK).unwrap();
        sound(&b, at.l3, at.l4, at.l4, &blank);
        let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
        let f = state::fill_partial(blank, &mut pm).unwrap();
        assert_eq!(f.reason, Reason::Filled);
        assert!(oracle::all_correct(&b, Link::Ethernet), "{v6} {l4:?}");
    }
    let (mut b, _) = packets::build(&packets::simple(false, L4::Icmp, b"x"));
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let r = state::checksum_setup(CsumMeta::NONE, &mut pm, true).unwrap_err();
    assert!(matches!(r.error, StateError::LayerNotHandled { .. }));
}

/// IPv4 / GRE (with or without the C bit) / IPv4 / UDP, checksums by the oracle's sum.
fn gre(with_c: bool) -> (Vec<u8>, usize, usize) {
    let (inner, _) = packets::build(&Spec {
        raw_ip: true,
        ..packets::simple(false, L4::Udp, b"inside gre")
    });
    let mut g = if with_c {
        vec![0x80, 0, 0x08, 0, 0, 0, 0, 0]
    } else {
        vec![0, 0, 0x08, 0]
    };
    g.extend_from_slice(&inner);
    if with_c {
        let c = !oracle::naive_sum(&g);
        g[4..6].copy_from_slice(&c.to_be_bytes());
    }
    let mut ip = etherparse::Ipv4Header::new(
        g.len() as u16,
        64,
        etherparse::IpNumber::GRE,
        [10, 0, 0, 1],
        [10, 0, 0, 2],
    )
    .unwrap();
    ip.header_checksum = ip.calc_header_checksum();
    let mut b = ip.to_bytes().to_vec();
    b.extend_from_slice(&g);
    (b, 0, 20)
}

#[test]
fn gre_checksum_is_validated_and_converted_only_with_the_c_bit() {
    let (b, l3, l4) = gre(true);
    let sites = oracle::sites(&b, Link::RawIp);
    assert_eq!(sites.len(), 2, "GRE and the inner UDP");
    let pkt = Packet::parse(&b, LinkType::RawIp)
        .unwrap()
        .with_cur(l4)
        .unwrap();
    let m = l4ok(CsumLevel::L0);
    let v = state::validate(m, &pkt).unwrap();
    assert_eq!(
        (v.verdict, v.reason),
        (CsumVerdict::Good, Reason::LevelConsumed)
    );
    let c = state::try_convert(v.meta, &pkt).unwrap();
    assert_eq!(c.reason, Reason::Converted);
    let view = View {
        bytes: &b,
        link: Link::RawIp,
        cur: l4,
        levels_from: l4 + 1,
        l4,
    };
    oracle::check(&view, &c.meta).unwrap();
    let _ = l3;

    let (b, _, l4) = gre(false);
    let pkt = Packet::parse(&b, LinkType::RawIp).unwrap();
    let m = l4ok(CsumLevel::L0);
    let v = state::validate(m.clone(), &pkt).unwrap();
    assert_eq!(
        (v.verdict, v.reason),
        (CsumVerdict::NoChecksum, Reason::NoChecksumField)
    );
    assert_eq!(v.meta, m, "no checksum, no level consumed");
    let _ = l4;
}

#[test]
fn fragments_are_not_validated_and_conntrack_waits_for_reassembly() {
    let (mut b, at) = tcp4(b"fragment");
    b[at.l3 + 6] |= 0x20; // MF
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let r = state::validate(CsumMeta::NONE, &pkt).unwrap_err();
    assert_eq!(r.error, StateError::Fragment);
    let c = state::conntrack(
        CsumMeta::NONE,
        &pkt,
        Hook::PreRouting,
        ConntrackConfig::default(),
    )
    .unwrap();
    assert_eq!(c.reason, Reason::ConntrackFragment);
}

#[test]
fn conntrack_catches_a_lying_device_sum_and_keeps_the_software_sum() {
    let (b, at) = tcp4(b"conntrack and a liar");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let wrong = Wsum::new(oracle::honest_complete(&b, at.l3).get().wrapping_add(3));
    let m = state::receive(DeviceReport::Complete { csum: wrong }).meta;
    let c = state::conntrack(m, &pkt, Hook::PreRouting, ConntrackConfig::default()).unwrap();
    assert_eq!(
        (c.verdict, c.reason),
        (CsumVerdict::Good, Reason::DeviceChecksumFault)
    );
    sound(&b, at.l3, at.l4, at.l4, &c.meta);
    let v = state::validate(c.meta, &pkt).unwrap();
    assert_eq!(v.reason, Reason::CompleteChecked);
}

#[test]
fn conntrack_records_a_verified_sctp_crc_so_delivery_does_not_redo_it() {
    let (b, at) = packets::build(&packets::simple(true, L4::Sctp, &[3u8; 40]));
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let c = state::conntrack(
        CsumMeta::NONE,
        &pkt,
        Hook::PreRouting,
        ConntrackConfig::default(),
    )
    .unwrap();
    assert_eq!(
        c.meta.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L0
        }
    );
    sound(&b, at.l3, at.l4, at.l4, &c.meta);
    let d = state::deliver(c.meta, &pkt).unwrap();
    assert_eq!((d.verdict, d.sw_bytes), (CsumVerdict::Good, 0));
}

#[test]
fn nat_refusals_change_nothing() {
    let (mut b, _) = packets::build(&packets::simple(false, L4::Icmp, b"x"));
    let before = b.clone();
    let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let r = state::nat(CsumMeta::NONE, &mut pm, Rewrite::Src(Addr::V6([1; 16]))).unwrap_err();
    assert_eq!(r.error, StateError::AddressFamily);
    let r = state::nat(CsumMeta::NONE, &mut pm, Rewrite::DstPort(9)).unwrap_err();
    assert!(matches!(r.error, StateError::LayerNotHandled { .. }));
    assert_eq!(b, before);
}

#[test]
fn nat_sctp_port_updates_the_crc_by_linearity_and_keeps_a_bad_crc_bad() {
    for bad in [false, true] {
        let (mut b, at) = packets::build(&packets::simple(false, L4::Sctp, &[9u8; 27]));
        if bad {
            b[at.end - 1] ^= 1;
        }
        let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
        let n = state::nat(CsumMeta::NONE, &mut pm, Rewrite::SrcPort(4242)).unwrap();
        assert_eq!(n.reason, Reason::NatRewritten);
        assert_eq!(oracle::all_correct(&b, Link::Ethernet), !bad);
    }
}

#[test]
fn trim_refuses_to_cut_a_partial_field_or_the_datagram() {
    let (b, at) = tcp4(b"abc");
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let m = CsumMeta::from_state(CsumState::Partial {
        start: at.l4,
        offset: 16,
        kind: PartialKind::Inet,
    });
    assert!(state::trim(m, &pkt, at.end - 1).is_err());
}

#[test]
fn packet_context_rejects_offsets_outside_the_bytes() {
    let (b, _) = tcp4(b"abc");
    let layers = netoffload::wire::parse(&b, LinkType::Ethernet).unwrap();
    assert!(Packet::new(&b[..layers.end - 1], layers, 0).is_err());
    assert!(Packet::new(&b, layers, b.len() + 1).is_err());
    let mut odd = layers;
    odd.l4 = odd.end + 1;
    assert!(Packet::new(&b, odd, 0).is_err());
}
