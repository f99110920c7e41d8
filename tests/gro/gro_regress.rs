//! Named regression tests for GRO bugs other implementations shipped.
use crate::support::gro as support;

use netoffload::gro::{FlushReason as R, GroConfig, GroKinds};
use netoffload::state::CsumMeta;
use support::*;

fn reasons<const N: usize>(h: &Harness<N>) -> Vec<(Vec<u32>, R)> {
    h.events.iter().map(|e| (e.ids(), e.reason())).collect()
}

/// IP fragments entering GRO and failing checksum checks: both the MF flag
/// and a fragment offset pass up as `Fragment`, before any checksum work.
#[test]
fn ipv4_mf_and_offset_stop_gro_before_checksum_work() {
    for (mf, off) in [(true, 0u16), (false, 185), (true, 185)] {
        let mut h = Harness::<8>::new(GroConfig::new());
        let s = Spec {
            mf,
            frag_off: off,
            bad_csum: true,
            ..Spec::default()
        };
        h.feed_meta(s.frame(), CsumMeta::NONE);
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::Fragment)],
            "mf={mf} off={off}"
        );
        assert_eq!(h.gro.stats().sw_bytes, 0, "no byte summed for a fragment");
    }
}

/// TCP over IPv4 and over IPv6 with the same ports never share a flow.
#[test]
fn tcp_over_ipv4_and_ipv6_never_share_a_flow() {
    let mut h = Harness::<8>::new(GroConfig::new());
    let a = Spec::default();
    let b = Spec {
        v6: true,
        ..a.next()
    };
    h.feed(a.frame());
    h.feed(b.frame());
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::PollEnd), (vec![2], R::PollEnd)]
    );
}

/// TTL / hop limit are compared (a routing loop or two paths must not merge).
#[test]
fn ttl_and_hop_limit_are_compared() {
    for v6 in [false, true] {
        let mut h = Harness::<8>::new(GroConfig::new());
        let a = Spec {
            v6,
            ..Spec::default()
        };
        let b = Spec {
            ttl: 63,
            ..a.next()
        };
        h.feed(a.frame());
        h.feed(b.frame());
        h.flush();
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::TtlDiffer), (vec![2], R::PollEnd)]
        );
    }
}

/// wireguard-go #6 / #32: a short segment may only be the tail. A full
/// segment after a short one must not join it, and a short first segment
/// cannot be followed by a longer one.
#[test]
fn short_segment_only_at_the_tail() {
    let mut h = Harness::<8>::new(GroConfig::new());
    let a = Spec::default();
    let b = Spec {
        payload: pay(500, 2),
        ..a.next()
    };
    let c = b.next();
    let c = Spec {
        payload: pay(1448, 3),
        ..c
    };
    h.feed(a.frame());
    h.feed(b.frame());
    h.feed(c.frame());
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![(vec![1, 2], R::ShortSegment), (vec![3], R::PollEnd)]
    );
    h.check_super(&h.events[0]);
    let mut h = Harness::<8>::new(GroConfig::new());
    let a = Spec {
        payload: pay(500, 1),
        ..Spec::default()
    };
    let b = Spec {
        payload: pay(1448, 2),
        ..a.next()
    };
    h.feed(a.frame());
    h.feed(b.frame());
    h.flush();
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::MssExceeded), (vec![2], R::PollEnd)]
    );
}

/// A zero IPv4 UDP checksum (VXLAN / GENEVE outer) is "no checksum", not bad.
#[test]
fn zero_checksum_ipv4_udp_tunnel_outer_is_no_checksum() {
    for t in [
        Tunnel::Vxlan { vni: 1 },
        Tunnel::Geneve {
            vni: 1,
            opts: vec![],
        },
    ] {
        let mut h = Harness::<8>::new(GroConfig::new());
        let o = Outer {
            tunnel: t.clone(),
            udp_csum: false,
            ..Outer::default()
        };
        let a = Spec::default();
        h.feed(tunnel_frame(&o, &a));
        h.feed(tunnel_frame(&o.next(), &a.next()));
        h.flush();
        assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)], "{t:?}");
    }
}

/// UDP GRO for a known tunnel port (4789, 6081) only when tunnel GRO is on:
/// with UDP GRO on and tunnel GRO off, a tunnel packet is not UDP-merged.
#[test]
fn udp_gro_for_tunnel_ports_only_with_tunnel_gro() {
    let mut cfg = GroConfig::new();
    cfg.kinds = GroKinds::UDP | GroKinds::TCP4;
    for t in [
        Tunnel::Vxlan { vni: 1 },
        Tunnel::Geneve {
            vni: 1,
            opts: vec![],
        },
    ] {
        let mut h = Harness::<8>::new(cfg);
        let o = Outer {
            tunnel: t.clone(),
            udp_csum: true,
            ..Outer::default()
        };
        let a = Spec::default();
        h.feed(tunnel_frame(&o, &a));
        h.feed(tunnel_frame(&o.next(), &a.next()));
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::Disabled), (vec![2], R::Disabled)],
            "{t:?}"
        );
    }
    cfg.kinds |= GroKinds::TUNNEL;
    let mut h = Harness::<8>::new(cfg);
    let o = Outer {
        udp_csum: true,
        ..Outer::default()
    };
    let a = Spec::default();
    h.feed(tunnel_frame(&o, &a));
    h.feed(tunnel_frame(&o.next(), &a.next()));
    h.flush();
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
}

/// Every GRO kind can be switched off at run time; held flows leave first.
#[test]
fn every_kind_can_be_switched_off_at_run_time() {
    let mut cfg = GroConfig::new();
    cfg.kinds = GroKinds::all();
    type Build = Box<dyn Fn(u32) -> Vec<u8>>;
    let mk: Vec<(GroKinds, Build)> = vec![
        (
            GroKinds::TCP4,
            Box::new(|i| {
                let mut s = Spec::default();
                for _ in 0..i {
                    s = s.next();
                }
                s.frame()
            }),
        ),
        (
            GroKinds::TCP6,
            Box::new(|i| {
                let mut s = Spec {
                    v6: true,
                    ..Spec::default()
                };
                for _ in 0..i {
                    s = s.next();
                }
                s.frame()
            }),
        ),
        (
            GroKinds::UDP,
            Box::new(|i| {
                let mut s = Spec {
                    udp: true,
                    dport: 9,
                    ..Spec::default()
                };
                for _ in 0..i {
                    s = s.next();
                }
                s.frame()
            }),
        ),
        (
            GroKinds::TUNNEL,
            Box::new(|i| {
                let mut s = Spec::default();
                let mut o = Outer::default();
                for _ in 0..i {
                    s = s.next();
                    o = o.next();
                }
                tunnel_frame(&o, &s)
            }),
        ),
    ];
    for (kind, build) in &mk {
        let mut h = Harness::<8>::new(cfg);
        h.feed(build(0));
        assert_eq!(h.gro.held_flows(), 1, "{kind:?} held while on");
        let Harness { gro, events, .. } = &mut h;
        gro.set_kinds(GroKinds::all() - *kind, &mut |sp| {
            events.push(Ev::Pass {
                id: sp.segments()[0].id,
                reason: sp.reason(),
                state: sp.meta().state(),
            })
        });
        h.feed(build(1));
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::ConfigChange), (vec![2], R::Disabled)],
            "{kind:?}"
        );
    }
}
