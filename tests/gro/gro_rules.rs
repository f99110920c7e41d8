//! One test per GRO rule, in both directions (merges when equal, flushes with
//! that rule's reason when different), for TCP over IPv4, IPv6 and VXLAN.
use crate::support::gro as support;

use netoffload::gro::{FlushReason as R, GroConfig};
use netoffload::wire::GsoType;
use support::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fam {
    V4,
    V6,
    Vxlan,
}

const FAMS: [Fam; 3] = [Fam::V4, Fam::V6, Fam::Vxlan];

fn base(fam: Fam) -> (Spec, Outer) {
    let s = Spec {
        v6: fam == Fam::V6,
        ..Spec::default()
    };
    (s, Outer::default())
}

fn frame(fam: Fam, s: &Spec, o: &Outer) -> Vec<u8> {
    match fam {
        Fam::Vxlan => tunnel_frame(o, s),
        _ => s.frame(),
    }
}

/// Two segments of one flow; `m` mutates the second. Flushes at the end.
fn two(fam: Fam, cfg: GroConfig, m: impl Fn(&mut Spec, &mut Outer)) -> Harness<8> {
    let mut h = Harness::<8>::new(cfg);
    let (a, oa) = base(fam);
    let (mut b, mut ob) = (a.next(), oa.next());
    m(&mut b, &mut ob);
    h.feed(frame(fam, &a, &oa));
    h.feed(frame(fam, &b, &ob));
    h.flush();
    h
}

fn reasons(h: &Harness<8>) -> Vec<(Vec<u32>, R)> {
    h.events.iter().map(|e| (e.ids(), e.reason())).collect()
}

/// The rule flushes the held packet, and the second one starts a new flow.
fn expect_split(fam: Fam, reason: R, m: impl Fn(&mut Spec, &mut Outer)) {
    let h = two(fam, GroConfig::new(), m);
    assert_eq!(
        reasons(&h),
        vec![(vec![1], reason), (vec![2], R::PollEnd)],
        "{fam:?} {reason}"
    );
    for e in &h.events {
        h.check_super(e);
    }
}

/// The rule flushes the held packet, and the second one passes up alone.
fn expect_pass(fam: Fam, held: R, pass: R, m: impl Fn(&mut Spec, &mut Outer)) {
    let h = two(fam, GroConfig::new(), m);
    assert_eq!(
        reasons(&h),
        vec![(vec![1], held), (vec![2], pass)],
        "{fam:?} {pass}"
    );
    h.check_super(&h.events[0]);
}

/// Both merge, and the rule completes the super-packet at once.
fn expect_complete(fam: Fam, reason: R, m: impl Fn(&mut Spec, &mut Outer)) -> Vec<u8> {
    let h = two(fam, GroConfig::new(), m);
    assert_eq!(reasons(&h), vec![(vec![1, 2], reason)], "{fam:?} {reason}");
    h.check_super(&h.events[0]);
    match &h.events[0] {
        Ev::Super { bytes, .. } => bytes.clone(),
        _ => unreachable!(),
    }
}

#[test]
fn equal_segments_merge_and_resegment_exactly() {
    for fam in FAMS {
        let h = two(fam, GroConfig::new(), |_, _| {});
        assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)], "{fam:?}");
        h.check_super(&h.events[0]);
        let Ev::Super { gso, gso_size, .. } = &h.events[0] else {
            panic!()
        };
        assert_eq!(*gso_size, 1448);
        let l4 = if fam == Fam::V6 {
            GsoType::TCPV6
        } else {
            GsoType::TCPV4
        };
        assert!(gso.contains(l4), "{fam:?} {gso:?}");
        if fam == Fam::Vxlan {
            assert!(gso.contains(GsoType::UDP_TUNNEL));
        }
    }
}

#[test]
fn flags_differ() {
    for fam in FAMS {
        expect_split(fam, R::FlagsDiffer, |b, _| b.flags |= 0x40);
    }
}

#[test]
fn cwr_must_be_equal() {
    for fam in FAMS {
        expect_split(fam, R::Cwr, |b, _| b.flags |= 0x80);
    }
    // A run of CWR segments merges and is marked for AccECN-safe segmentation.
    for fam in FAMS {
        let mut h = Harness::<8>::new(GroConfig::new());
        let (mut a, oa) = base(fam);
        a.flags |= 0x80;
        h.feed(frame(fam, &a, &oa));
        h.feed(frame(fam, &a.next(), &oa.next()));
        h.flush();
        assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)], "{fam:?}");
        let Ev::Super { gso, .. } = &h.events[0] else {
            panic!()
        };
        assert!(gso.contains(GsoType::TCP_ACCECN));
        h.check_super(&h.events[0]);
    }
}

/// The kernel selftest's "cwr flag ends coalescing": packets 0..4 with CWR on
/// 1 and 2 come out as [0], [1, 2], [3, 4].
#[test]
fn selftest_cwr_flag_ends_coalescing() {
    let mut h = Harness::<8>::new(GroConfig::new());
    let mut s = Spec::default();
    for i in 0..5 {
        let mut seg = s.clone();
        if i == 1 || i == 2 {
            seg.flags |= 0x80;
        }
        h.feed(seg.frame());
        s = s.next();
    }
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![
            (vec![1], R::Cwr),
            (vec![2, 3], R::Cwr),
            (vec![4, 5], R::PollEnd)
        ]
    );
    for e in &h.events {
        h.check_super(e);
    }
}

#[test]
fn ack_differ() {
    for fam in FAMS {
        expect_split(fam, R::AckDiffer, |b, _| b.ack += 1);
    }
}

#[test]
fn window_differ() {
    for fam in FAMS {
        expect_split(fam, R::WindowDiffer, |b, _| b.window += 1);
    }
}

#[test]
fn option_bytes_differ() {
    for fam in FAMS {
        expect_split(fam, R::OptionsDiffer, |b, _| b.tcp_opts[11] ^= 1);
    }
}

#[test]
fn header_length_differs() {
    for fam in FAMS {
        expect_split(fam, R::OptionsDiffer, |b, _| b.tcp_opts.clear());
    }
}

#[test]
fn seq_gap() {
    for fam in FAMS {
        expect_split(fam, R::SeqGap, |b, _| b.seq += 1);
    }
}

#[test]
fn ttl_and_hop_limit_differ() {
    for fam in FAMS {
        expect_split(fam, R::TtlDiffer, |b, _| b.ttl -= 1);
    }
    expect_split(Fam::Vxlan, R::TtlDiffer, |_, o| o.ttl -= 1);
}

#[test]
fn tos_and_ecn_differ() {
    for fam in FAMS {
        expect_split(fam, R::TosDiffer, |b, _| b.tos = 1);
        expect_split(fam, R::TosDiffer, |b, _| b.tos = 0x20);
    }
    expect_split(Fam::Vxlan, R::TosDiffer, |_, o| o.tos = 2);
}

#[test]
fn df_differ() {
    for fam in [Fam::V4, Fam::Vxlan] {
        expect_split(fam, R::DfDiffer, |b, _| b.df = false);
    }
    expect_split(Fam::Vxlan, R::DfDiffer, |_, o| o.df = false);
}

#[test]
fn ip_id_not_incrementing() {
    for fam in [Fam::V4, Fam::Vxlan] {
        expect_split(fam, R::IpIdNotIncrementing, |b, _| b.id += 4);
    }
    // Outer IDs are checked too (mainline).
    expect_split(Fam::Vxlan, R::IpIdNotIncrementing, |_, o| o.id += 3);
}

#[test]
fn ip_id_fixed_mode_merges_and_switching_flushes() {
    for df in [true, false] {
        // Fixed IDs merge with or without DF (mainline).
        let mut h = Harness::<8>::new(GroConfig::new());
        let a = Spec {
            df,
            ..Spec::default()
        };
        let mut b = a.next();
        b.id = a.id;
        let mut c = b.next();
        c.id = a.id;
        h.feed(a.frame());
        h.feed(b.frame());
        h.feed(c.frame());
        h.flush();
        assert_eq!(reasons(&h), vec![(vec![1, 2, 3], R::PollEnd)]);
        let Ev::Super { gso, .. } = &h.events[0] else {
            panic!()
        };
        assert!(gso.contains(GsoType::TCP_FIXEDID));
        h.check_super(&h.events[0]);
    }
    // Second segment sets fixed mode; an incrementing third flushes.
    let mut h = Harness::<8>::new(GroConfig::new());
    let a = Spec::default();
    let mut b = a.next();
    b.id = a.id;
    let c = b.next();
    h.feed(a.frame());
    h.feed(b.frame());
    h.feed(c.frame());
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![(vec![1, 2], R::IpIdNotFixed), (vec![3], R::PollEnd)]
    );
    h.check_super(&h.events[0]);
    // Incrementing mode then a repeated ID flushes.
    let mut h = Harness::<8>::new(GroConfig::new());
    let b = a.next();
    let mut c = b.next();
    c.id = b.id;
    h.feed(a.frame());
    h.feed(b.frame());
    h.feed(c.frame());
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![(vec![1, 2], R::IpIdNotIncrementing), (vec![3], R::PollEnd)]
    );
}

#[test]
fn v6_extension_headers_must_be_identical() {
    let mk = |body: Vec<u8>| move |b: &mut Spec, _: &mut Outer| b.v6_dstopts = Some(body.clone());
    // Both with the same destination options: merge.
    let mut h = Harness::<8>::new(GroConfig::new());
    let a = Spec {
        v6: true,
        v6_dstopts: Some(vec![1, 4, 0, 0, 0, 0]),
        ..Spec::default()
    };
    let b = a.next();
    h.feed(a.frame());
    h.feed(b.frame());
    h.flush();
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    h.check_super(&h.events[0]);
    // The second one with none / different bytes: flush.
    expect_split(Fam::V6, R::ExtHeadersDiffer, mk(vec![1, 4, 0, 0, 0, 0]));
    let mut h = Harness::<8>::new(GroConfig::new());
    let mut b2 = a.next();
    b2.v6_dstopts = Some(vec![1, 4, 0, 0, 0, 9]);
    h.feed(a.frame());
    h.feed(b2.frame());
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::ExtHeadersDiffer), (vec![2], R::PollEnd)]
    );
}

#[test]
fn longer_than_mss() {
    for fam in FAMS {
        expect_split(fam, R::MssExceeded, |b, _| b.payload = pay(1449, 3));
    }
}

#[test]
fn psh_and_fin_complete_and_are_kept() {
    for fam in FAMS {
        for (flag, reason) in [(0x08u8, R::Psh), (0x01, R::Fin)] {
            let bytes = expect_complete(fam, reason, |b, _| b.flags |= flag);
            let w = walk(&bytes);
            assert_eq!(
                bytes[w.l4 + 13] & flag,
                flag,
                "{fam:?}: flag merged into the header"
            );
        }
    }
}

#[test]
fn short_segment_completes() {
    for fam in FAMS {
        expect_complete(fam, R::ShortSegment, |b, _| b.payload = pay(100, 9));
    }
}

#[test]
fn urg_rst_syn_go_up_alone() {
    for fam in FAMS {
        expect_pass(fam, R::FlagsDiffer, R::Urg, |b, _| b.flags |= 0x20);
        expect_pass(fam, R::FlagsDiffer, R::Rst, |b, _| b.flags |= 0x04);
        expect_pass(fam, R::FlagsDiffer, R::Syn, |b, _| b.flags |= 0x02);
    }
}

#[test]
fn first_segment_with_psh_is_not_held() {
    let mut h = Harness::<8>::new(GroConfig::new());
    let a = Spec {
        flags: 0x18,
        ..Spec::default()
    };
    h.feed(a.frame());
    assert_eq!(reasons(&h), vec![(vec![1], R::Psh)]);
}

#[test]
fn pure_ack_flushes_and_goes_up() {
    for fam in FAMS {
        expect_pass(fam, R::PureAck, R::PureAck, |b, _| b.payload.clear());
    }
}

#[test]
fn bad_checksum_flushes_first_then_goes_up() {
    for fam in FAMS {
        expect_pass(fam, R::BadChecksum, R::BadChecksum, |b, _| {
            b.bad_csum = true
        });
    }
}

#[test]
fn ip_options_never_merge() {
    for fam in [Fam::V4, Fam::Vxlan] {
        expect_pass(fam, R::IpOptions, R::IpOptions, |b, _| {
            b.ip_opts = vec![1, 1, 1, 1]
        });
    }
}

#[test]
fn fragments_never_merge() {
    for fam in [Fam::V4, Fam::Vxlan] {
        expect_pass(fam, R::Fragment, R::Fragment, |b, _| b.mf = true);
    }
    // A later fragment has no ports: every held flow between those addresses
    // leaves first.
    expect_pass(Fam::V4, R::Fragment, R::Fragment, |b, _| b.frag_off = 100);
    expect_pass(Fam::V6, R::Fragment, R::Fragment, |b, _| b.v6_frag = true);
}

#[test]
fn frame_longer_than_ip_length_flushes() {
    for fam in FAMS {
        expect_pass(fam, R::LengthMismatch, R::LengthMismatch, |b, _| {
            b.trailer = 4
        });
    }
}

#[test]
fn different_flows_are_kept_apart() {
    for fam in FAMS {
        let h = two(fam, GroConfig::new(), |b, _| b.flow = 9);
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::PollEnd), (vec![2], R::PollEnd)],
            "{fam:?}"
        );
    }
    let h = two(Fam::V4, GroConfig::new(), |b, _| b.vlan = Some(5));
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::PollEnd), (vec![2], R::PollEnd)]
    );
    let h = two(Fam::V6, GroConfig::new(), |b, _| b.flow_label = 7);
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::PollEnd), (vec![2], R::PollEnd)]
    );
    let h = two(Fam::Vxlan, GroConfig::new(), |_, o| {
        o.tunnel = Tunnel::Vxlan { vni: 43 }
    });
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::PollEnd), (vec![2], R::PollEnd)]
    );
    let h = two(Fam::Vxlan, GroConfig::new(), |_, o| o.sport += 1);
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::PollEnd), (vec![2], R::PollEnd)]
    );
}

#[test]
fn oversize_refused() {
    for fam in FAMS {
        let (a, oa) = base(fam);
        let one = frame(fam, &a, &oa);
        let ip_len = walk(&one).end - 14;
        let cfg = GroConfig {
            max_size: (ip_len + 1447) as u32,
            ..GroConfig::new()
        };
        let h = two(fam, cfg, |_, _| {});
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::Oversize), (vec![2], R::PollEnd)],
            "{fam:?}"
        );
        let cfg = GroConfig {
            max_size: (ip_len + 1448) as u32,
            ..GroConfig::new()
        };
        let h = two(fam, cfg, |_, _| {});
        assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)], "{fam:?}");
    }
}

#[test]
fn segment_limit() {
    for fam in FAMS {
        let cfg = GroConfig {
            max_segs: 2,
            ..GroConfig::new()
        };
        let h = two(fam, cfg, |_, _| {});
        assert_eq!(reasons(&h), vec![(vec![1, 2], R::TooManySegs)], "{fam:?}");
        let cfg = GroConfig {
            max_segs: 3,
            ..GroConfig::new()
        };
        let h = two(fam, cfg, |_, _| {});
        assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)], "{fam:?}");
    }
}

#[test]
fn default_limit_is_64_kib() {
    // 1448-byte segments: 45 fit in 65535 bytes of IPv4 datagram (52 + 45*1448 = 65212).
    let mut h = Harness::<8>::new(GroConfig::new());
    let mut s = Spec::default();
    for _ in 0..50 {
        h.feed(s.frame());
        s = s.next();
    }
    h.flush();
    let Ev::Super {
        ids, reason, bytes, ..
    } = &h.events[0]
    else {
        panic!()
    };
    assert_eq!(ids.len(), 45);
    assert_eq!(*reason, R::Oversize);
    assert!(bytes.len() - 14 <= 65535);
    h.check_super(&h.events[0]);
}

#[test]
fn padded_minimum_frames_merge() {
    // Deliberate difference from Linux: 6-byte segments padded to 60 bytes.
    {
        let fam = Fam::V4;
        let mut h = Harness::<8>::new(GroConfig::new());
        let a = Spec {
            payload: pay(6, 1),
            tcp_opts: vec![],
            ..Spec::default()
        };
        let b = a.next();
        let fa = frame(fam, &a, &Outer::default());
        assert_eq!(fa.len(), 60);
        h.feed(fa);
        h.feed(frame(fam, &b, &Outer::default()));
        h.flush();
        assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
        h.check_super(&h.events[0]);
    }
}
