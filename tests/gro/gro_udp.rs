//! UDP L4 GRO (`udp_gro_receive_segment`): off by default, same-size datagrams
//! of one flow, the last may be shorter, a checksum is required, 64 at most.
use crate::support::gro as support;

use netoffload::gro::{FlushReason as R, GroConfig, GroKinds};
use netoffload::wire::GsoType;
use support::*;

fn udp_cfg() -> GroConfig {
    let mut c = GroConfig::new();
    c.kinds |= GroKinds::UDP;
    c
}

fn udp(v6: bool, n: usize) -> Spec {
    Spec {
        v6,
        udp: true,
        dport: 5000,
        payload: pay(n, 1),
        ..Spec::default()
    }
}

fn next(s: &Spec) -> Spec {
    let mut n = s.next();
    n.payload = pay(s.payload.len(), n.seq);
    n
}

fn reasons(h: &Harness<8>) -> Vec<(Vec<u32>, R)> {
    h.events.iter().map(|e| (e.ids(), e.reason())).collect()
}

#[test]
fn udp_gro_is_off_by_default() {
    let mut h = Harness::<8>::new(GroConfig::new());
    h.feed(udp(false, 1200).frame());
    assert_eq!(reasons(&h), vec![(vec![1], R::Disabled)]);
}

#[test]
fn same_size_datagrams_merge_last_may_be_shorter() {
    for v6 in [false, true] {
        let mut h = Harness::<8>::new(udp_cfg());
        let a = udp(v6, 1200);
        let b = next(&a);
        let mut c = next(&b);
        c.payload = pay(300, 5);
        h.feed(a.frame());
        h.feed(b.frame());
        h.feed(c.frame());
        assert_eq!(
            reasons(&h),
            vec![(vec![1, 2, 3], R::ShortSegment)],
            "v6={v6}"
        );
        h.check_super(&h.events[0]);
        let Ev::Super { gso, gso_size, .. } = &h.events[0] else {
            panic!()
        };
        assert!(gso.contains(GsoType::UDP_L4));
        assert_eq!(*gso_size, 1200);
    }
}

#[test]
fn larger_datagram_starts_a_new_train() {
    let mut h = Harness::<8>::new(udp_cfg());
    let a = udp(false, 1000);
    let mut b = next(&a);
    b.payload = pay(1001, 2);
    h.feed(a.frame());
    h.feed(b.frame());
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::MssExceeded), (vec![2], R::PollEnd)]
    );
}

#[test]
fn zero_checksum_is_no_checksum_not_bad() {
    let mut h = Harness::<8>::new(udp_cfg());
    let a = udp(false, 1000);
    let b = Spec {
        udp_zero_csum: true,
        ..next(&a)
    };
    h.feed(a.frame());
    h.feed(b.frame());
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::UdpNoChecksum), (vec![2], R::UdpNoChecksum)]
    );
}

#[test]
fn bad_udp_checksum() {
    let mut h = Harness::<8>::new(udp_cfg());
    let a = udp(false, 1000);
    let b = Spec {
        bad_csum: true,
        ..next(&a)
    };
    h.feed(a.frame());
    h.feed(b.frame());
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::BadChecksum), (vec![2], R::BadChecksum)]
    );
}

#[test]
fn at_most_64_segments() {
    let mut h = Harness::<8>::new(udp_cfg());
    let mut s = udp(false, 100);
    for _ in 0..70 {
        h.feed(s.frame());
        s = next(&s);
    }
    h.flush();
    let r = reasons(&h);
    assert_eq!(r[0].0.len(), 64);
    assert_eq!(r[0].1, R::TooManySegs);
    assert_eq!(r[1].0.len(), 6);
    h.check_super(&h.events[0]);
}

#[test]
fn empty_datagram_goes_up() {
    let mut h = Harness::<8>::new(udp_cfg());
    let a = udp(false, 1000);
    let mut b = next(&a);
    b.payload.clear();
    h.feed(a.frame());
    h.feed(b.frame());
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::PureAck), (vec![2], R::PureAck)]
    );
}

#[test]
fn network_rules_apply_to_udp() {
    let mut h = Harness::<8>::new(udp_cfg());
    let a = udp(false, 1000);
    let mut b = next(&a);
    b.ttl = 3;
    h.feed(a.frame());
    h.feed(b.frame());
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::TtlDiffer), (vec![2], R::PollEnd)]
    );
}
