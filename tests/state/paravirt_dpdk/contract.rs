//! Issue 14 item 7: the transmit mapping keeps DPDK's contract. A DPDK
//! application hands over flags and lengths, not seeds; a request must be the
//! packet; what `meta_to_tx` leaves is what `rte_net_intel_cksum_prepare`
//! would write.

use super::common::oracle::{self, Link, View};
use super::dpdk_model::{self as model, Release};
use super::support::{Spec, build, make_partial, seed};
use netoffload::state::paravirt::dpdk::{self, OuterTx, TunnelType, TxOffload, TxSeedMode, ol};
use netoffload::state::paravirt::setup::SeedCheck;
use netoffload::state::paravirt::{BoundaryError, MetaErrorKind, MetaField, Rule};
use netoffload::state::{CsumFlags, CsumMeta, CsumState};
use netoffload::wire::{self, GsoKind, GsoParams, LinkType, Net};

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

fn ip_flag(spec: Spec) -> u64 {
    if spec.v6 { ol::TX_IPV6 } else { ol::TX_IPV4 }
}

fn l4_flag(spec: Spec) -> u64 {
    if spec.udp {
        ol::TX_UDP_CKSUM
    } else {
        ol::TX_TCP_CKSUM
    }
}

fn field(f: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([f[at], f[at + 1]])
}

const SPECS: [Spec; 4] = [
    Spec::tcp4(300),
    Spec::tcp6(301),
    Spec::udp4(90),
    Spec::udp6(91),
];

/// The bug: the field held the full checksum (what an application built), the
/// request was taken as a `Partial` with the seed, and completing it gave a
/// wrong checksum. Verify refuses it; Prepare writes the seed and is sound.
#[test]
fn a_field_that_is_not_the_seed_is_refused_or_prepared() {
    for spec in SPECS {
        let frame = build(spec); // full checksum in the field
        let tx = request(spec, ip_flag(spec) | l4_flag(spec));
        let view = |f: &[u8]| (f.to_vec(), spec.l4());
        // What the old mapping claimed is unsound on these bytes.
        let claimed = CsumMeta::new(
            spec.partial(),
            CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID,
        )
        .unwrap();
        let (b, l4) = view(&frame);
        assert!(oracle::check(&View::new(&b, Link::Ethernet, 0, l4), &claimed).is_err());
        let mut f = frame.clone();
        let e = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Verify).unwrap_err();
        assert_eq!(e.field, MetaField::ChecksumSeed, "{spec:?}");
        assert_eq!(
            e.kind,
            MetaErrorKind::Mismatch {
                expected: u64::from(seed(&frame, false).unwrap()),
                found: u64::from(field(&frame, spec.l4() + spec.csum_offset())),
            }
        );
        assert_eq!(f, frame);
        let got = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Prepare).unwrap();
        assert_eq!(got.seed, SeedCheck::Recalculated);
        assert_eq!(got.meta, claimed);
        assert_eq!(
            f,
            make_partial(frame.clone(), spec),
            "only the seed is written"
        );
        oracle::check(&View::new(&f, Link::Ethernet, 0, spec.l4()), &got.meta).unwrap();
        // The prepared frame now verifies as is.
        let mut again = f.clone();
        let v = dpdk::tx_to_meta(&tx, &mut again, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
        assert_eq!((v.seed, v.meta), (SeedCheck::Verified, claimed));
        assert_eq!(again, f);
    }
}

/// An IPv4 flag on an IPv6 packet (and the reverse) used to be accepted and
/// gave a `Partial` whose seed nobody computed for that header.
#[test]
fn an_ip_version_flag_that_is_not_the_packet_is_refused() {
    for spec in SPECS {
        let frame = make_partial(build(spec), spec);
        let wrong = if spec.v6 { ol::TX_IPV4 } else { ol::TX_IPV6 };
        for mode in [TxSeedMode::Verify, TxSeedMode::Prepare] {
            let mut f = frame.clone();
            let e = dpdk::tx_to_meta(
                &request(spec, wrong | l4_flag(spec)),
                &mut f,
                LinkType::Ethernet,
                mode,
            )
            .unwrap_err();
            assert_eq!(
                e,
                BoundaryError::mismatch(MetaField::DpdkOlFlags, ip_flag(spec), wrong)
            );
            assert_eq!(f, frame);
            let e = dpdk::tx_to_meta(
                &request(spec, ol::TX_IPV4 | ol::TX_IPV6 | l4_flag(spec)),
                &mut f,
                LinkType::Ethernet,
                mode,
            )
            .unwrap_err();
            assert_eq!(
                e,
                BoundaryError::forbidden(MetaField::DpdkOlFlags, Rule::DpdkBothIpVersions)
            );
            assert_eq!(f, frame);
        }
    }
}

/// Under `TX_TCP_SEG` prepare leaves the length out; a full seed there would
/// make a TSO NIC count the length twice. Under `TX_UDP_SEG` 22.11 writes the
/// full seed and later releases the length-less one: both verify.
#[test]
fn segmentation_seeds_follow_prepare() {
    let tso = Spec::tcp6(4000);
    let linux = make_partial(build(tso), tso);
    let tx = request(tso, ol::TX_IPV6 | ol::TX_TCP_SEG);
    let mut f = linux.clone();
    let e = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Verify).unwrap_err();
    assert_eq!(e.field, MetaField::ChecksumSeed);
    let mut dpdk_frame = linux.clone();
    model::intel_prepare(&mut dpdk_frame, &tx, Release::Dpdk2211).unwrap();
    let got =
        dpdk::tx_to_meta(&tx, &mut dpdk_frame, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
    assert_eq!(dpdk_frame, linux, "converted to the full seed");
    assert_eq!(got.seg, Some((GsoKind::TcpV6, 1400)));
    let uso = Spec::udp4(4000);
    let linux = make_partial(build(uso), uso);
    let tx = request(uso, ol::TX_IPV4 | ol::TX_UDP_SEG | ol::TX_UDP_CKSUM);
    for release in [Release::Dpdk2211, Release::Later] {
        let mut f = linux.clone();
        model::intel_prepare(&mut f, &tx, release).unwrap();
        let got = dpdk::tx_to_meta(&tx, &mut f, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
        assert_eq!(f, linux, "{release:?}");
        assert_eq!(got.seg, Some((GsoKind::UdpL4, 1400)));
    }
    // `l4_len` is the header under segmentation.
    let mut f = linux.clone();
    let bad = TxOffload { l4_len: 20, ..tx };
    let e = dpdk::tx_to_meta(&bad, &mut f, LinkType::Ethernet, TxSeedMode::Prepare).unwrap_err();
    assert_eq!(e, BoundaryError::mismatch(MetaField::DpdkLengths, 8, 20));
    assert_eq!(f, linux);
}

#[test]
fn a_fragment_is_refused() {
    let spec = Spec::udp4(100);
    let mut frame = make_partial(build(spec), spec);
    frame[spec.l3() + 6] |= 0x20; // more fragments
    let mut f = frame.clone();
    let e = dpdk::tx_to_meta(
        &request(spec, ol::TX_IPV4 | ol::TX_UDP_CKSUM),
        &mut f,
        LinkType::Ethernet,
        TxSeedMode::Prepare,
    )
    .unwrap_err();
    assert_eq!(
        e,
        BoundaryError::forbidden(MetaField::Packet, Rule::DpdkL4OnFragment)
    );
    assert_eq!(f, frame);
}

/// Outer Ethernet / IPv4 or IPv6 / UDP 4789 / VXLAN / the inner packet.
pub struct Vxlan {
    pub frame: Vec<u8>,
    pub outer: OuterTx,
    pub inner_l3: usize,
}

pub fn vxlan(inner: &[u8], outer_v6: bool, udp_csum: bool) -> Vxlan {
    let b = etherparse::PacketBuilder::ethernet2([1; 6], [2; 6]);
    let payload = [[0x08, 0, 0, 0, 0, 0, 1, 0].as_slice(), inner].concat();
    let mut frame = Vec::new();
    let (ip_len, net) = if outer_v6 {
        let mut s = [0u8; 16];
        s[0] = 0x20;
        s[15] = 9;
        let mut d = s;
        d[15] = 8;
        b.ipv6(s, d, 30)
            .udp(5555, 4789)
            .write(&mut frame, &payload)
            .unwrap();
        (40, Net::Ipv6)
    } else {
        b.ipv4([9, 9, 9, 9], [8, 8, 8, 8], 30)
            .udp(5555, 4789)
            .write(&mut frame, &payload)
            .unwrap();
        (20, Net::Ipv4)
    };
    if !udp_csum && !outer_v6 {
        frame[14 + ip_len + 6..14 + ip_len + 8].fill(0);
    }
    Vxlan {
        frame,
        outer: OuterTx {
            tunnel: TunnelType::Vxlan,
            outer_l3: 14,
            outer_l4: 14 + ip_len,
            outer_net: net,
            outer_ip_csum: !outer_v6,
            outer_udp_csum: udp_csum,
        },
        inner_l3: 14 + ip_len + 8 + 8 + 14,
    }
}

/// Zeroes the IPv4 header checksums `rte_net_intel_cksum_flags_prepare`
/// zeroes for `tx` (the one thing `meta_to_tx` leaves correct instead).
pub fn zero_ip_header_csums(f: &mut [u8], tx: &TxOffload) {
    let outer = if tx.ol_flags & (ol::TX_OUTER_IPV4 | ol::TX_OUTER_IPV6) != 0 {
        usize::from(tx.outer_l2_len) + usize::from(tx.outer_l3_len)
    } else {
        0
    };
    if tx.ol_flags & ol::TX_OUTER_IP_CKSUM != 0 {
        let at = usize::from(tx.outer_l2_len) + 10;
        f[at..at + 2].fill(0);
    }
    if tx.ol_flags & ol::TX_IP_CKSUM != 0 {
        let at = outer + usize::from(tx.l2_len) + 10;
        f[at..at + 2].fill(0);
    }
}

/// `meta_to_tx` leaves the bytes `rte_net_intel_cksum_flags_prepare` writes
/// (IPv4 header checksums aside), so a PMD's prepare after it changes nothing
/// else: the L4 seed in DPDK's convention and the outer UDP seed (which was
/// missing: an Intel-style NIC would have summed the old field in).
#[test]
fn meta_to_tx_leaves_what_intel_prepare_writes() {
    let mut cases: Vec<(Vec<u8>, Spec, Option<OuterTx>, usize)> = Vec::new();
    for spec in SPECS {
        let f = make_partial(build(spec), spec);
        cases.push((f.clone(), spec, None, 0));
        for outer_v6 in [false, true] {
            for udp_csum in [false, true] {
                let v = vxlan(&f, outer_v6, udp_csum);
                cases.push((v.frame, spec, Some(v.outer), v.inner_l3 - spec.l3()));
            }
        }
    }
    let mut outer_seeds = 0;
    for (linux, spec, outer, shift) in cases {
        for tso in [false, true] {
            let gso = tso.then_some(GsoParams {
                kind: match (spec.udp, spec.v6) {
                    (true, _) => GsoKind::UdpL4,
                    (false, false) => GsoKind::TcpV4,
                    (false, true) => GsoKind::TcpV6,
                },
                ecn: false,
                gso_size: 100,
                hdr_len: shift + spec.payload_at(),
                segs: 4,
            });
            let l = wire::parse_ip_at(
                &linux,
                shift + spec.l3(),
                if spec.v6 { 0x86DD } else { 0x0800 },
                LinkType::Ethernet,
                0,
                [0; 2],
            )
            .unwrap();
            let meta = CsumMeta::from_state(CsumState::Partial {
                start: l.l4,
                offset: spec.csum_offset(),
                kind: netoffload::state::PartialKind::Inet,
            });
            let mut ours = linux.clone();
            let want_state = meta.state();
            let tx = dpdk::meta_to_tx(meta, &mut ours, &l, outer, gso, true).unwrap();
            assert_eq!(model::validate(tx.ol_flags, tx.tso_segsz), None, "{tx:?}");
            let mut prepared = linux.clone();
            model::intel_prepare(&mut prepared, &tx, Release::Later).unwrap();
            let mut expect = ours.clone();
            zero_ip_header_csums(&mut expect, &tx);
            assert_eq!(
                prepared, expect,
                "prepare on the original, {spec:?} {outer:?} tso {tso}"
            );
            let mut again = ours.clone();
            model::intel_prepare(&mut again, &tx, Release::Later).unwrap();
            assert_eq!(
                again, expect,
                "prepare after meta_to_tx changes only IP csums"
            );
            if let Some(o) = outer.filter(|o| o.outer_udp_csum) {
                outer_seeds += 1;
                let at = o.outer_l4 + 6;
                assert_ne!(field(&ours, at), field(&linux, at), "outer seed written");
            }
            // Back: the Linux bytes and the Partial (the outer UDP field stays
            // the NIC's job, reported).
            let back =
                dpdk::tx_to_meta(&tx, &mut ours, LinkType::Ethernet, TxSeedMode::Verify).unwrap();
            assert_eq!(back.meta.state(), want_state);
            assert_eq!(back.nic.outer_udp, outer.is_some_and(|o| o.outer_udp_csum));
            let mut want = linux.clone();
            if let Some(o) = outer.filter(|o| o.outer_udp_csum) {
                let at = o.outer_l4 + 6;
                want[at..at + 2].copy_from_slice(&ours[at..at + 2]);
            }
            assert_eq!(ours, want);
        }
    }
    assert_eq!(outer_seeds, 4 * 2 * 2);
}

/// A refused outer request (the outer L4 is not UDP where `outer_l4` says)
/// changes nothing, inner seed included.
#[test]
fn a_refused_outer_udp_request_changes_nothing() {
    let spec = Spec::tcp4(3000);
    let inner = make_partial(build(spec), spec);
    let v = vxlan(&inner, false, true);
    let l = wire::parse_ip_at(&v.frame, v.inner_l3, 0x0800, LinkType::Ethernet, 0, [0; 2]).unwrap();
    let outer = OuterTx {
        outer_l4: v.outer.outer_l4 + 4,
        ..v.outer
    };
    let sp = GsoParams {
        kind: GsoKind::TcpV4,
        ecn: false,
        gso_size: 1000,
        hdr_len: 0,
        segs: 3,
    };
    let mut f = v.frame.clone();
    let meta = CsumMeta::from_state(CsumState::Partial {
        start: l.l4,
        offset: 16,
        kind: netoffload::state::PartialKind::Inet,
    });
    assert!(dpdk::meta_to_tx(meta, &mut f, &l, Some(outer), Some(sp), true).is_err());
    assert_eq!(f, v.frame);
}
