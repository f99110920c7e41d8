//! virtio-net header: bytes, `to_meta` (virtio_net_hdr_to_skb) with every guest
//! field checked, `from_meta` (virtio_net_hdr_from_skb).

use crate::support::paravirt as support;

use netoffload::state::paravirt::setup::SeedCheck;
use netoffload::state::paravirt::virtio::{
    DataValidPolicy, Direction, GsoOutcome, GuestFrame, HdrLayout, HdrLenRule, PeerFeatures,
    SeedPolicy, VirtioFlags, VirtioNetHdr, VirtioPolicy, gso_type,
};
use netoffload::state::paravirt::{BoundaryError, MetaErrorKind, MetaField, Rule};
use netoffload::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use netoffload::wire::{GsoKind, GsoParams};
use proptest::prelude::*;
use support::{Spec, build, make_partial, needs_csum, sound};

fn policy(spec: Spec) -> VirtioPolicy {
    VirtioPolicy {
        link: spec.link(),
        ..VirtioPolicy::GUEST_TX
    }
}

fn tso(spec: Spec, gso_size: u16) -> VirtioNetHdr {
    let t = match (spec.udp, spec.v6) {
        (true, _) => gso_type::UDP_L4,
        (false, false) => gso_type::TCPV4,
        (false, true) => gso_type::TCPV6,
    };
    VirtioNetHdr {
        gso_type: t,
        gso_size,
        hdr_len: spec.payload_at() as u16,
        ..needs_csum(spec)
    }
}

fn all_specs(payload: usize) -> Vec<Spec> {
    let mut v = Vec::new();
    for v6 in [false, true] {
        for udp in [false, true] {
            for (vlan, raw_ip) in [(false, false), (true, false), (false, true)] {
                v.push(Spec {
                    v6,
                    udp,
                    vlan,
                    raw_ip,
                    payload,
                    seed: 3,
                });
            }
        }
    }
    v
}

fn err_of(r: Result<netoffload::state::paravirt::virtio::Inbound, BoundaryError>) -> BoundaryError {
    match r {
        Ok(i) => panic!("accepted: {i:?}"),
        Err(e) => e,
    }
}

#[test]
fn layouts_have_the_spec_sizes() {
    assert_eq!(HdrLayout::Legacy.len(), 10);
    assert_eq!(HdrLayout::V1.len(), 12);
    assert_eq!(HdrLayout::HashReport.len(), 20);
}

#[test]
fn parse_reads_little_endian_fields_at_spec_offsets() {
    let bytes = [
        0x01, 0x01, 0x36, 0x00, 0xa8, 0x05, 0x22, 0x00, 0x10, 0x00, 0x02, 0x00, 0x78, 0x56, 0x34,
        0x12, 0x07, 0x00, 0xEE, 0xEE, 0xAA,
    ];
    let (h, rest) = VirtioNetHdr::parse(&bytes, HdrLayout::HashReport).unwrap();
    assert_eq!(h.flags, VirtioFlags::NEEDS_CSUM);
    assert_eq!(h.gso_type, gso_type::TCPV4);
    assert_eq!(h.hdr_len, 0x36);
    assert_eq!(h.gso_size, 1448);
    assert_eq!(h.csum_start, 34);
    assert_eq!(h.csum_offset, 16);
    assert_eq!(h.num_buffers, 2);
    assert_eq!(h.hash_value, 0x1234_5678);
    assert_eq!(h.hash_report, 7);
    assert_eq!(rest, &[0xAA]);
    let (legacy, rest) = VirtioNetHdr::parse(&bytes, HdrLayout::Legacy).unwrap();
    assert_eq!(
        legacy.num_buffers, 0,
        "the legacy header has no num_buffers"
    );
    assert_eq!(rest.len(), bytes.len() - 10);
}

#[test]
fn parse_refuses_short_bytes_naming_the_header() {
    for layout in [HdrLayout::Legacy, HdrLayout::V1, HdrLayout::HashReport] {
        let e = VirtioNetHdr::parse(&[0u8; 9], layout).unwrap_err();
        assert_eq!(e.field, MetaField::HeaderBytes);
        assert_eq!(
            e.kind,
            MetaErrorKind::Truncated {
                needed: layout.len(),
                available: 9
            }
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn write_then_parse_round_trips_and_overwrites_every_byte(
        flags in any::<u8>(), gt in any::<u8>(), hl in any::<u16>(), gs in any::<u16>(),
        cs in any::<u16>(), co in any::<u16>(), nb in any::<u16>(), hv in any::<u32>(), hr in any::<u16>(),
        junk in any::<u8>(), which in 0usize..3,
    ) {
        let layout = [HdrLayout::Legacy, HdrLayout::V1, HdrLayout::HashReport][which];
        let h = VirtioNetHdr {
            flags: VirtioFlags::from_bits_retain(flags), gso_type: gt, hdr_len: hl, gso_size: gs,
            csum_start: cs, csum_offset: co, num_buffers: nb, hash_value: hv, hash_report: hr,
        };
        let mut buf = vec![junk; 24];
        let n = h.write(layout, &mut buf).unwrap();
        prop_assert_eq!(n, layout.len());
        // Padding of the hash-report layout is written as zero, not left stale.
        if layout == HdrLayout::HashReport {
            prop_assert_eq!(&buf[18..20], &[0, 0]);
        }
        prop_assert!(buf[n..].iter().all(|&b| b == junk));
        let (back, _) = VirtioNetHdr::parse(&buf, layout).unwrap();
        let mut expect = h;
        if layout == HdrLayout::Legacy { expect.num_buffers = 0; }
        if layout != HdrLayout::HashReport { expect.hash_value = 0; expect.hash_report = 0; }
        prop_assert_eq!(back, expect);
    }
}

#[test]
fn needs_csum_on_every_plain_packet_becomes_a_sound_partial() {
    for spec in all_specs(100) {
        let frame = make_partial(build(spec), spec);
        let got = needs_csum(spec).to_meta(&frame, &policy(spec)).unwrap();
        assert_eq!(got.meta.state(), spec.partial(), "{spec:?}");
        // CSUM_BLANK only: virtio_net_hdr_to_skb sets CHECKSUM_PARTIAL and
        // nothing else; the Partial itself is the validity claim.
        assert!(got.meta.is_blank() && !got.meta.data_valid());
        assert_eq!(got.seed, Some(SeedCheck::Verified));
        assert_eq!(got.gso, GsoOutcome::NotGso);
        sound(&frame, spec.raw_ip, &got.meta).unwrap();
    }
}

#[test]
fn oracle_agrees_with_etherparse_on_built_packets() {
    for spec in all_specs(123) {
        let good = build(spec);
        assert_eq!(support::l4_ok(&good, spec.raw_ip), Some(true), "{spec:?}");
        assert_eq!(support::l4_ok_etherparse(&good, spec.raw_ip), Some(true));
        let mut bad = good.clone();
        let n = bad.len();
        bad[n - 1] ^= 0x01;
        assert_eq!(support::l4_ok(&bad, spec.raw_ip), Some(false), "{spec:?}");
        assert_eq!(support::l4_ok_etherparse(&bad, spec.raw_ip), Some(false));
        let partial = make_partial(good, spec);
        assert_eq!(support::l4_ok(&partial, spec.raw_ip), Some(false));
    }
}

#[test]
fn zero_header_claims_nothing() {
    let spec = Spec::tcp4(10);
    let frame = build(spec);
    let got = VirtioNetHdr::ZERO.to_meta(&frame, &policy(spec)).unwrap();
    assert_eq!(got.meta, CsumMeta::NONE);
}

#[test]
fn data_valid_follows_the_policy() {
    let spec = Spec::udp6(40);
    let frame = build(spec);
    let hdr = VirtioNetHdr {
        flags: VirtioFlags::DATA_VALID,
        ..VirtioNetHdr::ZERO
    };
    let mut p = VirtioPolicy {
        link: spec.link(),
        ..VirtioPolicy::DRIVER_RX
    };
    let m = hdr.to_meta(&frame, &p).unwrap().meta;
    assert_eq!(
        m.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L0
        }
    );
    assert!(m.data_valid());
    sound(&frame, false, &m).unwrap();
    p.data_valid = DataValidPolicy::TrustAsFlag;
    let m = hdr.to_meta(&frame, &p).unwrap().meta;
    assert_eq!(
        (m.state(), m.flags()),
        (CsumState::None, CsumFlags::DATA_VALID)
    );
    p.data_valid = DataValidPolicy::Ignore;
    assert_eq!(hdr.to_meta(&frame, &p).unwrap().meta, CsumMeta::NONE);
    // From a driver (guest TX), Refuse names the flags field.
    let tx = VirtioPolicy {
        data_valid: DataValidPolicy::Refuse,
        ..policy(spec)
    };
    let e = err_of(hdr.to_meta(&frame, &tx));
    assert_eq!(
        e,
        BoundaryError::forbidden(MetaField::VirtioFlags, Rule::DataValidOnTransmit)
    );
    // The default guest-TX policy ignores it: an untrusted guest cannot vouch.
    assert_eq!(
        hdr.to_meta(&frame, &policy(spec)).unwrap().meta,
        CsumMeta::NONE
    );
}

#[test]
fn csum_start_and_offset_bounds_are_exact() {
    // A frame whose field ends exactly at the packet end is accepted; one byte
    // further is refused. Use a UDP packet whose checksum field is the last
    // thing before 0 payload bytes... build start so start+offset+2 == end.
    let spec = Spec::udp4(0);
    let frame = build(spec);
    let end = frame.len();
    let mut h = needs_csum(spec);
    h.csum_start = (end - 2) as u16;
    h.csum_offset = 0;
    // start past the transport header: accepted, seed unchecked (tunnel-like).
    let got = h.to_meta(&frame, &policy(spec)).unwrap();
    assert!(matches!(got.seed, Some(SeedCheck::Skipped(_))));
    h.csum_offset = 1;
    let e = err_of(h.to_meta(&frame, &policy(spec)));
    assert_eq!(
        e,
        BoundaryError::out_of_packet(MetaField::VirtioCsumOffset, end + 1, end)
    );
    h.csum_start = end as u16;
    h.csum_offset = 0;
    let e = err_of(h.to_meta(&frame, &policy(spec)));
    assert_eq!(e.field, MetaField::VirtioCsumStart);
    // Offsets that wrap a u16 in C do not wrap here.
    h.csum_start = 0xFFFF;
    h.csum_offset = 0xFFFF;
    assert_eq!(
        err_of(h.to_meta(&frame, &policy(spec))).field,
        MetaField::VirtioCsumStart
    );
}

#[test]
fn ethernet_padding_is_never_inside_a_partial() {
    // 60-byte minimum frame: a tiny UDP packet plus padding. A csum_start in the
    // padding is beyond the packet (IP length), though inside the frame.
    let spec = Spec::udp4(2);
    let mut frame = make_partial(build(spec), spec);
    let ip_end = frame.len();
    frame.resize(60, 0);
    let mut h = needs_csum(spec);
    assert!(h.to_meta(&frame, &policy(spec)).is_ok());
    h.csum_start = (ip_end + 2) as u16;
    h.csum_offset = 0;
    let e = err_of(h.to_meta(&frame, &policy(spec)));
    assert_eq!(
        e,
        BoundaryError::out_of_packet(MetaField::VirtioCsumStart, ip_end + 2, ip_end)
    );
}

/// Found by the `virtio_hdr` fuzz target: a UDP length shorter than the IP
/// payload. A Partial sums to the IP end, the UDP checksum covers only the UDP
/// length, so the filled checksum would be wrong: refused, naming the packet.
#[test]
fn fuzz_udp_length_shorter_than_ip_payload_is_refused() {
    let spec = Spec::udp4(40);
    let mut frame = build(spec);
    frame[spec.l4() + 4..spec.l4() + 6].copy_from_slice(&18u16.to_be_bytes());
    let s = support::seed(&frame, false).unwrap();
    frame[spec.l4() + 6..spec.l4() + 8].copy_from_slice(&s.to_be_bytes());
    let e = err_of(needs_csum(spec).to_meta(&frame, &policy(spec)));
    assert_eq!(e, BoundaryError::mismatch(MetaField::Packet, 48, 18));
}

#[test]
fn offset_must_match_the_parsed_protocol() {
    for spec in all_specs(30) {
        let frame = make_partial(build(spec), spec);
        let mut h = needs_csum(spec);
        h.csum_offset = if spec.udp { 16 } else { 6 };
        let e = err_of(h.to_meta(&frame, &policy(spec)));
        assert_eq!(
            e,
            BoundaryError::mismatch(
                MetaField::VirtioCsumOffset,
                spec.csum_offset() as u64,
                h.csum_offset as u64
            ),
            "{spec:?}"
        );
    }
}

#[test]
fn start_before_the_transport_header_is_refused() {
    // Past Linux's nh_min_len (20 bytes after the network header), still inside
    // the 40-byte IPv6 header: Linux accepts it, the parsed packet does not.
    let spec = Spec::tcp6(30);
    let frame = make_partial(build(spec), spec);
    let mut h = needs_csum(spec);
    h.csum_start = spec.l3() as u16 + 20; // the destination address
    h.csum_offset = 0;
    let e = err_of(h.to_meta(&frame, &policy(spec)));
    assert_eq!(
        e,
        BoundaryError::forbidden(MetaField::VirtioCsumStart, Rule::StartBeforeTransport)
    );
}

#[test]
fn a_field_that_is_not_the_seed_is_refused_unless_trusted() {
    let spec = Spec::tcp6(50);
    let frame = build(spec); // field holds the full checksum, not the seed
    let e = err_of(needs_csum(spec).to_meta(&frame, &policy(spec)));
    assert_eq!(e.field, MetaField::ChecksumSeed);
    let trusting = VirtioPolicy {
        seed: SeedPolicy::Trust,
        ..policy(spec)
    };
    let got = needs_csum(spec).to_meta(&frame, &trusting).unwrap();
    assert!(matches!(got.seed, Some(SeedCheck::Skipped(_))));
}

#[test]
fn gso_header_field_checks() {
    let spec = Spec::tcp4(3000);
    let frame = make_partial(build(spec), spec);
    let p = policy(spec);
    let cases: Vec<(VirtioNetHdr, BoundaryError)> = vec![
        (
            VirtioNetHdr {
                gso_size: 0,
                ..tso(spec, 1448)
            },
            BoundaryError::new(MetaField::VirtioGsoSize, MetaErrorKind::Zero),
        ),
        (
            VirtioNetHdr {
                gso_size: 0xFFFF,
                ..tso(spec, 1448)
            },
            BoundaryError::new(
                MetaField::VirtioGsoSize,
                MetaErrorKind::TooLarge {
                    value: 0xFFFF,
                    max: 0xFFFE,
                },
            ),
        ),
        (
            VirtioNetHdr {
                gso_type: 2,
                ..tso(spec, 1448)
            },
            BoundaryError::unsupported(MetaField::VirtioGsoType, 2),
        ),
        (
            VirtioNetHdr {
                gso_type: gso_type::ECN,
                ..tso(spec, 1448)
            },
            BoundaryError::unsupported(MetaField::VirtioGsoType, 0x80),
        ),
        (
            VirtioNetHdr {
                gso_type: 0x21,
                ..tso(spec, 1448)
            },
            BoundaryError::unsupported(MetaField::VirtioGsoType, 0x21),
        ),
        (
            VirtioNetHdr {
                flags: VirtioFlags::empty(),
                ..tso(spec, 1448)
            },
            BoundaryError::forbidden(MetaField::VirtioFlags, Rule::GsoWithoutNeedsCsum),
        ),
        (
            VirtioNetHdr {
                hdr_len: (frame.len() + 1) as u16,
                ..tso(spec, 1448)
            },
            BoundaryError::out_of_packet(MetaField::VirtioHdrLen, frame.len() + 1, frame.len()),
        ),
        (
            VirtioNetHdr {
                gso_type: gso_type::TCPV6,
                ..tso(spec, 1448)
            },
            // TCPV6 raises nh_min_len to 40: an IPv4 transport at 34 is below
            // it before the type is matched against the packet.
            BoundaryError::too_small(MetaField::VirtioCsumStart, 34, 14 + 40),
        ),
        (
            // UDP_L4 fixes csum_offset 6 (Linux's rule), which the parsed
            // TCP packet refuses before the type is matched.
            VirtioNetHdr {
                gso_type: gso_type::UDP_L4,
                csum_offset: 6,
                ..tso(spec, 1448)
            },
            BoundaryError::mismatch(MetaField::VirtioCsumOffset, 16, 6),
        ),
        (
            VirtioNetHdr {
                flags: VirtioFlags::NEEDS_CSUM | VirtioFlags::RSC_INFO,
                ..tso(spec, 1448)
            },
            BoundaryError::forbidden(MetaField::VirtioFlags, Rule::RscInfoOnTransmit),
        ),
    ];
    for (h, want) in cases {
        assert_eq!(err_of(h.to_meta(&frame, &p)), want, "{h:?}");
    }
    // Exact hdr_len when GUEST_HDRLEN was negotiated.
    let exact = VirtioPolicy {
        hdr_len: HdrLenRule::Exact,
        ..p
    };
    let h = VirtioNetHdr {
        hdr_len: spec.payload_at() as u16 + 4,
        ..tso(spec, 1448)
    };
    assert_eq!(
        h.to_meta(&frame, &p)
            .map(|i| i.gso)
            .map(|g| matches!(g, GsoOutcome::Segment(_))),
        Ok(true)
    );
    assert_eq!(
        err_of(h.to_meta(&frame, &exact)).field,
        MetaField::VirtioHdrLen
    );
}

#[test]
fn gso_on_ipv6_with_tcpv4_type_is_a_protocol_mismatch() {
    let spec = Spec::tcp6(3000);
    let frame = make_partial(build(spec), spec);
    let h = VirtioNetHdr {
        gso_type: gso_type::TCPV4,
        ..tso(spec, 1000)
    };
    let e = err_of(h.to_meta(&frame, &policy(spec)));
    assert_eq!(
        e,
        BoundaryError::mismatch(
            MetaField::VirtioGsoType,
            gso_type::TCPV6 as u64,
            gso_type::TCPV4 as u64
        )
    );
}

#[test]
fn gso_segments_and_small_packets() {
    for spec in all_specs(3000) {
        let frame = make_partial(build(spec), spec);
        let got = tso(spec, 1000).to_meta(&frame, &policy(spec)).unwrap();
        let GsoOutcome::Segment(p) = got.gso else {
            panic!("{spec:?}: {:?}", got.gso)
        };
        assert_eq!(p.segs, 3);
        assert_eq!(p.hdr_len, spec.payload_at());
        assert_eq!(p.gso_size, 1000);
        assert_eq!(
            p.kind,
            match (spec.udp, spec.v6) {
                (true, _) => GsoKind::UdpL4,
                (false, false) => GsoKind::TcpV4,
                (false, true) => GsoKind::TcpV6,
            }
        );
        sound(&frame, spec.raw_ip, &got.meta).unwrap();
        // Payload not larger than gso_size: Linux drops the GSO request.
        let got = tso(spec, 3000).to_meta(&frame, &policy(spec)).unwrap();
        assert_eq!(got.gso, GsoOutcome::FitsOneSegment);
    }
}

#[test]
fn udp_l4_rules() {
    let spec = Spec::udp4(3000);
    let frame = make_partial(build(spec), spec);
    let p = policy(spec);
    // ECN on UDP.
    let h = VirtioNetHdr {
        gso_type: gso_type::UDP_L4 | gso_type::ECN,
        ..tso(spec, 1000)
    };
    assert_eq!(
        err_of(h.to_meta(&frame, &p)),
        BoundaryError::forbidden(MetaField::VirtioGsoType, Rule::EcnWithUdp)
    );
    // More than 128 segments.
    let h = tso(spec, 23);
    assert_eq!(
        err_of(h.to_meta(&frame, &p)),
        BoundaryError::forbidden(MetaField::VirtioGsoSize, Rule::TooManySegments)
    );
    let h = tso(spec, 24); // 3000 / 24 = 125 segments
    assert!(matches!(h.to_meta(&frame, &p).unwrap().gso, GsoOutcome::Segment(s) if s.segs == 125));
    // csum_start not at the transport header (tcp_gso_segment / __udp_gso_segment check).
    let mut h = tso(spec, 1000);
    h.csum_start += 8;
    let e = err_of(h.to_meta(&frame, &p));
    assert_eq!(
        e,
        BoundaryError::forbidden(MetaField::VirtioCsumStart, Rule::GsoStartNotTransport)
    );
}

#[test]
fn gso_on_a_fragment_is_refused() {
    let spec = Spec::udp4(3000);
    let mut frame = make_partial(build(spec), spec);
    frame[spec.l3() + 6] |= 0x20; // MF
    // Repair the IPv4 header checksum so only the fragment matters.
    frame[spec.l3() + 10..spec.l3() + 12].copy_from_slice(&[0, 0]);
    let c = !support::naive_fold(support::naive_sum(&frame[spec.l3()..spec.l3() + 20], 0));
    frame[spec.l3() + 10..spec.l3() + 12].copy_from_slice(&c.to_be_bytes());
    let e = err_of(tso(spec, 1000).to_meta(&frame, &policy(spec)));
    assert_eq!(e.field, MetaField::VirtioCsumStart);
    assert_eq!(e.kind, MetaErrorKind::Forbidden(Rule::GsoOnFragment));
}

#[test]
fn rsc_info_from_a_device_gives_counts_and_a_parsed_partial() {
    let spec = Spec::tcp4(3000);
    let frame = make_partial(build(spec), spec);
    let h = VirtioNetHdr {
        flags: VirtioFlags::NEEDS_CSUM | VirtioFlags::RSC_INFO,
        gso_type: gso_type::TCPV4,
        gso_size: 1000,
        csum_start: 3,  // segments
        csum_offset: 1, // dup ACKs
        ..VirtioNetHdr::ZERO
    };
    let mut p = VirtioPolicy::DRIVER_RX;
    assert_eq!(
        err_of(h.to_meta(&frame, &p)),
        BoundaryError::forbidden(MetaField::VirtioFlags, Rule::RscInfoNotNegotiated)
    );
    p.rsc_ext = true;
    let got = h.to_meta(&frame, &p).unwrap();
    let rsc = got.rsc.unwrap();
    assert_eq!((rsc.segments, rsc.dup_acks), (3, 1));
    assert_eq!(
        got.meta.state(),
        CsumState::Partial {
            start: spec.l4(),
            offset: 16,
            kind: PartialKind::Inet
        }
    );
    sound(&frame, false, &got.meta).unwrap();
}

/// Found by the `virtio_hdr` fuzz target against the Linux model: with
/// `RSC_INFO` the offsets are counts, so the `UDP_L4` segment cap is counted
/// from the parsed transport instead of `csum_start`, not skipped.
#[test]
fn fuzz_rsc_info_udp_l4_segments_are_capped_from_the_parsed_transport() {
    let spec = Spec::udp4(3000);
    let frame = make_partial(build(spec), spec);
    let h = VirtioNetHdr {
        flags: VirtioFlags::NEEDS_CSUM | VirtioFlags::RSC_INFO,
        gso_type: gso_type::UDP_L4,
        gso_size: 23, // 3000 bytes need 131 segments
        ..VirtioNetHdr::ZERO
    };
    let p = VirtioPolicy {
        rsc_ext: true,
        ..VirtioPolicy::DRIVER_RX
    };
    assert_eq!(
        err_of(h.to_meta(&frame, &p)),
        BoundaryError::forbidden(MetaField::VirtioGsoSize, Rule::TooManySegments)
    );
    let h = VirtioNetHdr { gso_size: 24, ..h };
    assert!(matches!(h.to_meta(&frame, &p).unwrap().gso, GsoOutcome::Segment(g) if g.segs == 125));
}

#[test]
fn sctp_partial_is_refused_virtio_cannot_ask_for_crc32c() {
    // Hand-built IPv4 + SCTP common header.
    let mut f = vec![0u8; 14 + 20 + 12 + 4];
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14] = 0x45;
    f[16..18].copy_from_slice(&((20 + 16) as u16).to_be_bytes());
    f[22] = 64;
    f[23] = 132;
    let h = VirtioNetHdr {
        flags: VirtioFlags::NEEDS_CSUM,
        csum_start: 34,
        csum_offset: 8,
        ..VirtioNetHdr::ZERO
    };
    let e = err_of(h.to_meta(&f, &VirtioPolicy::GUEST_TX));
    assert_eq!(
        e,
        BoundaryError::forbidden(MetaField::VirtioCsumOffset, Rule::SctpNeedsCrc32c)
    );
}

// ---- from_meta ----

fn partial(start: usize, offset: usize) -> CsumMeta {
    CsumMeta::from_state(CsumState::Partial {
        start,
        offset,
        kind: PartialKind::Inet,
    })
}

#[test]
fn from_meta_partial_offsets_are_relative_to_the_peer_frame() {
    let h = VirtioNetHdr::from_meta(
        partial(34, 16),
        GuestFrame::default(),
        None,
        PeerFeatures::default(),
    )
    .unwrap();
    assert_eq!(
        (h.flags, h.csum_start, h.csum_offset),
        (VirtioFlags::NEEDS_CSUM, 34, 16)
    );
    // L3 TUN: the peer's frame starts at the IP header.
    let h = VirtioNetHdr::from_meta(
        partial(34, 16),
        GuestFrame {
            base: 14,
            vlan_hlen: 0,
        },
        None,
        PeerFeatures::default(),
    )
    .unwrap();
    assert_eq!(h.csum_start, 20);
    // A VLAN tag re-inserted before the IP header.
    let h = VirtioNetHdr::from_meta(
        partial(34, 6),
        GuestFrame {
            base: 0,
            vlan_hlen: 4,
        },
        None,
        PeerFeatures::default(),
    )
    .unwrap();
    assert_eq!((h.csum_start, h.csum_offset), (38, 6));
    let e = VirtioNetHdr::from_meta(
        partial(10, 6),
        GuestFrame {
            base: 14,
            vlan_hlen: 0,
        },
        None,
        PeerFeatures::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.error,
        BoundaryError::forbidden(MetaField::FrameBase, Rule::StartBeforeFrame)
    );
    assert_eq!(
        e.meta,
        partial(10, 6),
        "the refusal hands the metadata back"
    );
    let e = VirtioNetHdr::from_meta(
        partial(70_000, 6),
        GuestFrame::default(),
        None,
        PeerFeatures::default(),
    )
    .unwrap_err();
    assert_eq!(e.error.field, MetaField::VirtioCsumStart);
    // The GSO parameters are `usize` (one type both ways): a header length
    // or segment count above the 16-bit field is refused, not truncated.
    let big = |hdr_len, segs| GsoParams {
        kind: GsoKind::TcpV4,
        ecn: false,
        gso_size: 1000,
        hdr_len,
        segs,
    };
    let rsc = PeerFeatures {
        rsc_info: true,
        ..PeerFeatures::default()
    };
    let e = VirtioNetHdr::from_meta(
        partial(34, 16),
        GuestFrame::default(),
        Some(big(70_000, 2)),
        rsc,
    )
    .unwrap_err();
    assert_eq!(e.error.field, MetaField::VirtioHdrLen);
    let e = VirtioNetHdr::from_meta(
        partial(34, 16),
        GuestFrame::default(),
        Some(big(54, 70_000)),
        rsc,
    )
    .unwrap_err();
    assert_eq!(e.error.field, MetaField::VirtioCsumStart);
}

#[test]
fn from_meta_data_valid_only_when_negotiated_and_complete_says_nothing() {
    let dv = PeerFeatures {
        data_valid: true,
        rsc_info: false,
    };
    let un = || {
        CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        })
    };
    assert_eq!(
        VirtioNetHdr::from_meta(un(), GuestFrame::default(), None, dv)
            .unwrap()
            .flags,
        VirtioFlags::DATA_VALID
    );
    assert_eq!(
        VirtioNetHdr::from_meta(un(), GuestFrame::default(), None, PeerFeatures::default())
            .unwrap(),
        VirtioNetHdr::ZERO
    );
    let complete = || {
        CsumMeta::from_state(CsumState::Complete {
            csum: netoffload::csum::Wsum::new(0x1234),
        })
    };
    assert_eq!(
        VirtioNetHdr::from_meta(complete(), GuestFrame::default(), None, dv).unwrap(),
        VirtioNetHdr::ZERO
    );
    let verified = CsumMeta::new(
        CsumState::Complete {
            csum: netoffload::csum::Wsum::new(1),
        },
        CsumFlags::CSUM_VALID,
    )
    .unwrap();
    assert_eq!(
        VirtioNetHdr::from_meta(verified, GuestFrame::default(), None, dv)
            .unwrap()
            .flags,
        VirtioFlags::DATA_VALID
    );
    assert_eq!(
        VirtioNetHdr::from_meta(CsumMeta::NONE, GuestFrame::default(), None, dv).unwrap(),
        VirtioNetHdr::ZERO
    );
}

#[test]
fn from_meta_refuses_what_virtio_cannot_say() {
    let crc = CsumMeta::from_state(CsumState::Partial {
        start: 34,
        offset: 8,
        kind: PartialKind::Crc32c,
    });
    assert_eq!(
        VirtioNetHdr::from_meta(crc, GuestFrame::default(), None, PeerFeatures::default())
            .unwrap_err()
            .error,
        BoundaryError::forbidden(MetaField::State, Rule::Crc32cNotExpressible)
    );
    // A blank field without Partial offsets cannot be built (state's rule).
    assert!(
        CsumMeta::new(
            CsumState::None,
            CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID
        )
        .is_err()
    );
    let sp = GsoParams {
        kind: GsoKind::TcpV4,
        ecn: false,
        gso_size: 1448,
        hdr_len: 54,
        segs: 3,
    };
    let un = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    assert_eq!(
        VirtioNetHdr::from_meta(
            un,
            GuestFrame::default(),
            Some(sp),
            PeerFeatures {
                data_valid: true,
                rsc_info: false
            }
        )
        .unwrap_err()
        .error,
        BoundaryError::forbidden(MetaField::Gso, Rule::GsoWithoutChecksumState)
    );
    let ufo = GsoParams {
        kind: GsoKind::Ufo,
        ..sp
    };
    assert_eq!(
        VirtioNetHdr::from_meta(
            partial(34, 6),
            GuestFrame::default(),
            Some(ufo),
            PeerFeatures::default()
        )
        .unwrap_err()
        .error,
        BoundaryError::forbidden(MetaField::Gso, Rule::GsoTypeNotExpressible)
    );
}

#[test]
fn from_meta_super_packet_fields_and_round_trip_through_to_meta() {
    for spec in all_specs(4000) {
        let frame = make_partial(build(spec), spec);
        let kind = match (spec.udp, spec.v6) {
            (true, _) => GsoKind::UdpL4,
            (false, false) => GsoKind::TcpV4,
            (false, true) => GsoKind::TcpV6,
        };
        let sp = GsoParams {
            kind,
            ecn: false,
            gso_size: 1400,
            hdr_len: spec.payload_at(),
            segs: 3,
        };
        let h = VirtioNetHdr::from_meta(
            partial(spec.l4(), spec.csum_offset()),
            GuestFrame::default(),
            Some(sp),
            PeerFeatures::default(),
        )
        .unwrap();
        assert_eq!(h.gso_type, kind.virtio_type());
        assert_eq!((h.gso_size, h.hdr_len), (1400, spec.payload_at() as u16));
        let back = h
            .to_meta(
                &frame,
                &VirtioPolicy {
                    link: spec.link(),
                    hdr_len: HdrLenRule::Exact,
                    direction: Direction::FromDevice,
                    ..VirtioPolicy::DRIVER_RX
                },
            )
            .unwrap();
        assert_eq!(back.meta.state(), spec.partial());
        assert!(matches!(back.gso, GsoOutcome::Segment(p) if p.segs == 3 && p.kind == kind));
    }
}

#[test]
fn from_meta_rsc_info_carries_the_segment_count() {
    let sp = GsoParams {
        kind: GsoKind::TcpV6,
        ecn: true,
        gso_size: 1400,
        hdr_len: 74,
        segs: 5,
    };
    let h = VirtioNetHdr::from_meta(
        partial(54, 16),
        GuestFrame::default(),
        Some(sp),
        PeerFeatures {
            data_valid: true,
            rsc_info: true,
        },
    )
    .unwrap();
    assert_eq!(h.flags, VirtioFlags::NEEDS_CSUM | VirtioFlags::RSC_INFO);
    assert_eq!(h.gso_type, gso_type::TCPV6 | gso_type::ECN);
    assert_eq!((h.csum_start, h.csum_offset), (5, 0));
}

// ---- the fuzz property, in proptest form ----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Arbitrary header bytes against real and mutated frames: never a panic,
    /// and every accepted Partial whose seed was verified (and every claimed
    /// validity) passes the oracle.
    #[test]
    fn arbitrary_headers_never_produce_an_unsound_state(
        hdr in proptest::collection::vec(any::<u8>(), 10),
        pick in 0usize..12, payload in 0usize..3000,
        flips in proptest::collection::vec((any::<u16>(), any::<u8>()), 0..3),
        steer in any::<bool>(), dir in any::<bool>(),
    ) {
        let spec = { let mut s = all_specs(payload)[pick]; s.seed = payload as u8; s };
        let mut frame = make_partial(build(spec), spec);
        // Flip bytes in the headers, where the claims live.
        for (at, x) in flips { let n = frame.len().min(spec.payload_at() + 2); frame[at as usize % n] ^= x; }
        let (mut h, _) = VirtioNetHdr::parse(&hdr, HdrLayout::Legacy).unwrap();
        if steer {
            // Point the offsets at the real field half of the time, so the
            // accepting paths are explored too.
            h.csum_start = spec.l4() as u16;
            h.csum_offset = spec.csum_offset() as u16;
            h.flags = VirtioFlags::from_bits_retain((h.flags.bits() & !4) | 1);
            h.hdr_len %= frame.len() as u16 + 1;
            h.gso_type = [0, 0, gso_type::TCPV4, gso_type::TCPV6, gso_type::UDP_L4][h.gso_type as usize % 5];
            h.gso_size %= 2000;
        }
        let p = if dir { VirtioPolicy { link: spec.link(), ..VirtioPolicy::DRIVER_RX } } else { policy(spec) };
        if let Ok(got) = h.to_meta(&frame, &p) {
            let judged = match got.meta.state() {
                CsumState::Partial { .. } => got.seed == Some(SeedCheck::Verified),
                _ => true,
            };
            // DATA_VALID trusted from a device is a claim about the device,
            // not the bytes: only states from a driver are judged.
            if judged && !dir {
                prop_assert!(sound(&frame, spec.raw_ip, &got.meta).is_ok(), "{:?} {:?}", h, got);
            }
        }
    }
}
