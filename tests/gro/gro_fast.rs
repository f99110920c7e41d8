//! The fixed-layout fast paths against the general path through the public
//! API: two engines, one with the hidden `GroConfig::fast_path` off, fed the
//! same random stream (bulk segments of several flows and families with
//! random deviations, checksum states, limits and flushes) give identical
//! verdicts, super-packets (bytes, segments, reasons, GSO, metadata) and
//! counters.
use crate::support::gro as support;

use netoffload::gro::{GroConfig, SoftwareVerify, TunnelPolicy};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};
use proptest::prelude::*;
use support::*;

/// One frame of the stream: which flow, and what deviates from the bulk
/// segment that flow sends next.
#[derive(Clone, Copy, Debug)]
struct Step {
    flow: u8,
    deviation: u8,
    state: u8,
    flush: bool,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..4,
        prop::sample::select(
            (0u8..20)
                .chain(std::iter::repeat_n(0, 30))
                .collect::<Vec<_>>(),
        ),
        0u8..4,
        prop::bool::weighted(0.05),
    )
        .prop_map(|(flow, deviation, state, flush)| Step {
            flow,
            deviation,
            state,
            flush,
        })
}

/// Where one flow of the stream stands.
#[derive(Clone)]
struct Flow {
    spec: Spec,
    outer: Outer,
    /// 0 TCP/IPv4, 1 TCP/IPv6, 2 VXLAN, 3 GRE.
    fam: u8,
}

fn flows(fixed_id: bool) -> Vec<Flow> {
    (0..4u8)
        .map(|fam| {
            let mut spec = Spec {
                flow: fam + 1,
                v6: fam == 1,
                ..Spec::default()
            };
            let mut outer = Outer::default();
            if fam == 3 {
                outer.tunnel = Tunnel::Gre {
                    key: Some(3),
                    csum: false,
                };
            }
            if fixed_id {
                spec.id = 100;
                outer.id = 7;
            }
            Flow { spec, outer, fam }
        })
        .collect()
}

/// The frame of `f`'s next segment with `deviation` applied; advances `f`
/// as the sender would (a gap or a changed field stays for this frame only).
fn next_frame(f: &mut Flow, deviation: u8, fixed_id: bool) -> Vec<u8> {
    let mut s = f.spec.clone();
    let mut o = f.outer.clone();
    match deviation {
        1 => s.ttl = 63,
        2 => s.tos = 4,
        3 => s.df = !s.df,
        4 => s.window = 511,
        5 => s.ack += 1,
        6 => s.flags |= 0x08,
        7 => s.flags |= 0x01,
        8 => s.flags |= 0x20,
        9 => s.payload.truncate(600),
        10 => s.seq = s.seq.wrapping_add(100),
        11 => s.id = s.id.wrapping_add(5),
        12 => s.tcp_opts = vec![1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 2],
        13 => s.bad_csum = true,
        14 => s.payload.clear(),
        15 => o.ttl = 31,
        16 => s.flags |= 0x80,
        17 => s.ip_opts = vec![1, 1, 1, 0],
        18 => s.payload.truncate(8),
        19 => o.udp_csum = true,
        _ => {}
    }
    let frame = match f.fam {
        2 | 3 => tunnel_frame(&o, &s),
        _ => s.frame(),
    };
    let mut n = f.spec.next();
    n.payload = pay(1448, n.seq);
    if fixed_id {
        n.id = f.spec.id;
    }
    f.spec = n;
    f.outer = if fixed_id {
        f.outer.clone()
    } else {
        f.outer.next()
    };
    frame
}

fn meta(state: u8) -> CsumMeta {
    match state {
        0 => CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        }),
        1 => CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L1,
        }),
        _ => CsumMeta::NONE,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Fast and general paths give the same events, verdicts and counters.
    #[test]
    fn fast_path_equals_general_path(
        steps in prop::collection::vec(step(), 1..80),
        fixed_id in any::<bool>(),
        max_segs in prop::sample::select(vec![1u16, 2, 5, 64]),
        max_size in prop::sample::select(vec![3000u32, 6000, 65535]),
        sw_off in prop::bool::weighted(0.2),
        strict in prop::bool::weighted(0.2),
    ) {
        let mut cfg = GroConfig { max_segs, max_size, ..GroConfig::new() };
        if sw_off {
            cfg.software_verify = SoftwareVerify::Off;
        }
        if strict {
            cfg.tunnel_policy = TunnelPolicy::Strict;
        }
        let mut fast = Harness::<3>::new(cfg);
        let mut general = Harness::<3>::new(GroConfig { fast_path: false, ..cfg });
        let mut fl = flows(fixed_id);
        for s in &steps {
            let f = &mut fl[s.flow as usize];
            let frame = next_frame(f, s.deviation, fixed_id);
            fast.feed_meta(frame.clone(), meta(s.state));
            general.feed_meta(frame, meta(s.state));
            if s.flush {
                fast.flush();
                general.flush();
            }
        }
        fast.flush();
        general.flush();
        prop_assert_eq!(&fast.verdicts, &general.verdicts);
        prop_assert_eq!(&fast.events, &general.events);
        prop_assert_eq!(fast.gro.stats(), general.gro.stats());
    }
}
