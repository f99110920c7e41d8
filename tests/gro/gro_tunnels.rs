//! Tunnelled TCP: VXLAN, GENEVE, GRE, IP-in-IP, over IPv4 and IPv6 outers,
//! with IPv4 and IPv6 inners. Outer headers must match; written super-packets
//! verify and re-segment to the originals.
use crate::support::gro as support;

use netoffload::gro::{FlushReason as R, GroConfig};
use netoffload::wire::GsoType;
use support::*;

fn run(
    o: &Outer,
    inner_v6: bool,
    n: usize,
    m: impl Fn(usize, &mut Spec, &mut Outer),
) -> Harness<8> {
    let mut h = Harness::<8>::new(GroConfig::new());
    let mut s = Spec {
        v6: inner_v6,
        ..Spec::default()
    };
    let mut oo = o.clone();
    for i in 0..n {
        let (mut s2, mut o2) = (s.clone(), oo.clone());
        m(i, &mut s2, &mut o2);
        h.feed(tunnel_frame(&o2, &s2));
        s = s.next();
        oo = oo.next();
    }
    h.flush();
    h
}

fn reasons(h: &Harness<8>) -> Vec<(Vec<u32>, R)> {
    h.events.iter().map(|e| (e.ids(), e.reason())).collect()
}

fn tunnels() -> Vec<(Tunnel, GsoType)> {
    vec![
        (Tunnel::Vxlan { vni: 7 }, GsoType::UDP_TUNNEL),
        (
            Tunnel::Geneve {
                vni: 9,
                opts: vec![],
            },
            GsoType::UDP_TUNNEL,
        ),
        (
            Tunnel::Geneve {
                vni: 9,
                opts: vec![0x01, 0x02, 0x03, 0x01, 0xAA, 0xBB, 0xCC, 0xDD],
            },
            GsoType::UDP_TUNNEL,
        ),
        (
            Tunnel::Gre {
                key: None,
                csum: false,
            },
            GsoType::GRE,
        ),
        (
            Tunnel::Gre {
                key: Some(0xABCD),
                csum: false,
            },
            GsoType::GRE,
        ),
        (
            Tunnel::Gre {
                key: Some(5),
                csum: true,
            },
            GsoType::GRE_CSUM,
        ),
        (Tunnel::Ipip, GsoType::empty()),
    ]
}

#[test]
fn every_tunnel_merges_and_resegments() {
    for (t, flag) in tunnels() {
        for outer_v6 in [false, true] {
            for inner_v6 in [false, true] {
                for udp_csum in [false, true] {
                    let o = Outer {
                        v6: outer_v6,
                        tunnel: t.clone(),
                        udp_csum,
                        ..Outer::default()
                    };
                    let h = run(&o, inner_v6, 3, |_, _, _| {});
                    let ctx =
                        format!("{t:?} outer_v6={outer_v6} inner_v6={inner_v6} csum={udp_csum}");
                    assert_eq!(reasons(&h), vec![(vec![1, 2, 3], R::PollEnd)], "{ctx}");
                    h.check_super(&h.events[0]);
                    let Ev::Super { gso, .. } = &h.events[0] else {
                        panic!()
                    };
                    let want = match (&t, udp_csum) {
                        (Tunnel::Ipip, _) if outer_v6 => GsoType::IPXIP6,
                        (Tunnel::Ipip, _) => GsoType::IPXIP4,
                        (Tunnel::Vxlan { .. } | Tunnel::Geneve { .. }, true) => {
                            GsoType::UDP_TUNNEL_CSUM
                        }
                        _ => flag,
                    };
                    assert!(gso.contains(want), "{ctx}: {gso:?}");
                    let l4 = if inner_v6 {
                        GsoType::TCPV6
                    } else {
                        GsoType::TCPV4
                    };
                    assert!(gso.contains(l4), "{ctx}: {gso:?}");
                }
            }
        }
    }
}

#[test]
fn outer_identity_differences_are_other_flows() {
    let split = vec![(vec![1], R::PollEnd), (vec![2], R::PollEnd)];
    let base = Outer {
        tunnel: Tunnel::Geneve {
            vni: 1,
            opts: vec![1, 2, 3, 1, 0, 0, 0, 1],
        },
        ..Outer::default()
    };
    // GENEVE options must be byte-equal.
    let h = run(&base, false, 2, |i, _, o| {
        if i == 1 {
            o.tunnel = Tunnel::Geneve {
                vni: 1,
                opts: vec![1, 2, 3, 1, 0, 0, 0, 2],
            };
        }
    });
    assert_eq!(reasons(&h), split);
    let h = run(&base, false, 2, |i, _, o| {
        if i == 1 {
            o.tunnel = Tunnel::Geneve {
                vni: 2,
                opts: vec![1, 2, 3, 1, 0, 0, 0, 1],
            };
        }
    });
    assert_eq!(reasons(&h), split);
    // GRE key must match.
    let gre = Outer {
        tunnel: Tunnel::Gre {
            key: Some(1),
            csum: false,
        },
        ..Outer::default()
    };
    let h = run(&gre, false, 2, |i, _, o| {
        if i == 1 {
            o.tunnel = Tunnel::Gre {
                key: Some(2),
                csum: false,
            };
        }
    });
    assert_eq!(reasons(&h), split);
    // Outer UDP checksum present vs absent (`!uh->check ^ !uh2->check`).
    let vx = Outer::default();
    let h = run(&vx, false, 2, |i, _, o| o.udp_csum = i == 1);
    assert_eq!(reasons(&h), split);
}

#[test]
fn outer_network_rules_apply_to_every_tunnel() {
    for (t, _) in tunnels() {
        let o = Outer {
            tunnel: t.clone(),
            ..Outer::default()
        };
        let h = run(&o, false, 2, |i, _, o| {
            if i == 1 {
                o.ttl = 1;
            }
        });
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::TtlDiffer), (vec![2], R::PollEnd)],
            "{t:?}"
        );
        let h = run(&o, false, 2, |i, _, o| {
            if i == 1 {
                o.id = o.id.wrapping_add(9);
            }
        });
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::IpIdNotIncrementing), (vec![2], R::PollEnd)],
            "{t:?}"
        );
        // Fixed outer IDs merge and are marked.
        let h = run(&o, false, 3, |_, _, o| o.id = 5000);
        assert_eq!(reasons(&h), vec![(vec![1, 2, 3], R::PollEnd)], "{t:?}");
        let Ev::Super { gso, .. } = &h.events[0] else {
            panic!()
        };
        assert!(
            gso.contains(GsoType::TCP_FIXEDID) && !gso.contains(GsoType::TCP_FIXEDID_INNER),
            "{t:?}"
        );
        h.check_super(&h.events[0]);
        // Fixed inner IDs too.
        let h = run(&o, false, 3, |_, s, _| s.id = 100);
        let Ev::Super { gso, .. } = &h.events[0] else {
            panic!()
        };
        assert!(
            gso.contains(GsoType::TCP_FIXEDID_INNER) && !gso.contains(GsoType::TCP_FIXEDID),
            "{t:?}"
        );
        h.check_super(&h.events[0]);
    }
}

#[test]
fn inner_rules_apply_through_every_tunnel() {
    for (t, _) in tunnels() {
        let o = Outer {
            tunnel: t.clone(),
            ..Outer::default()
        };
        let h = run(&o, false, 3, |i, s, _| {
            if i == 2 {
                s.seq += 1;
            }
        });
        assert_eq!(
            reasons(&h),
            vec![(vec![1, 2], R::SeqGap), (vec![3], R::PollEnd)],
            "{t:?}"
        );
        let h = run(&o, true, 3, |i, s, _| {
            if i == 1 {
                s.flags |= 0x08;
            }
        });
        assert_eq!(
            reasons(&h),
            vec![(vec![1, 2], R::Psh), (vec![3], R::PollEnd)],
            "{t:?}"
        );
        let h = run(&o, false, 2, |i, s, _| s.bad_csum = i == 1);
        assert_eq!(
            reasons(&h),
            vec![(vec![1], R::BadChecksum), (vec![2], R::BadChecksum)],
            "{t:?}"
        );
    }
}

#[test]
fn tunnels_off_means_no_tunnel_gro() {
    let mut cfg = GroConfig::new();
    cfg.kinds.remove(netoffload::gro::GroKinds::TUNNEL);
    for (t, _) in tunnels() {
        let mut h = Harness::<8>::new(cfg);
        let o = Outer {
            tunnel: t.clone(),
            ..Outer::default()
        };
        h.feed(tunnel_frame(&o, &Spec::default()));
        assert_eq!(reasons_of(&h), vec![(vec![1], R::Disabled)], "{t:?}");
    }
}

fn reasons_of(h: &Harness<8>) -> Vec<(Vec<u32>, R)> {
    reasons(h)
}
