//! Property test: for any interleaving of valid in-order segments of random
//! flows (TCP over IPv4, IPv6, VXLAN, GRE), every packet leaves exactly once,
//! the payload per flow comes out in order and complete, no super-packet
//! exceeds the limits, and every super-packet verifies and re-segments to the
//! original frames.
use crate::support::gro as support;

use std::collections::HashMap;

use netoffload::gro::GroConfig;
use netoffload::state::{CsumLevel, CsumMeta, CsumState};
use proptest::prelude::*;
use support::*;

#[derive(Clone, Debug)]
struct FlowPlan {
    fam: u8,
    mss: usize,
    /// Per segment: (short?, psh?)
    segs: Vec<(bool, bool)>,
    fixed_id: bool,
}

fn flow_plan() -> impl Strategy<Value = FlowPlan> {
    (
        0u8..4,
        prop::sample::select(vec![64usize, 536, 1448]),
        prop::collection::vec(
            (prop::bool::weighted(0.1), prop::bool::weighted(0.08)),
            1..12,
        ),
        any::<bool>(),
    )
        .prop_map(|(fam, mss, segs, fixed_id)| FlowPlan {
            fam,
            mss,
            segs,
            fixed_id,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn payload_in_order_and_limits(
        plans in prop::collection::vec(flow_plan(), 1..6),
        order_seed in any::<u64>(),
        max_segs in 2u16..=64,
        max_size in 3000u32..=65535,
        unnecessary in any::<bool>(),
    ) {
        // Build every flow's frames.
        let mut frames: Vec<Vec<(Vec<u8>, Vec<u8>)>> = Vec::new();
        for (fi, p) in plans.iter().enumerate() {
            let mut s = Spec { flow: fi as u8 + 1, v6: p.fam == 1, payload: pay(p.mss, fi as u32), ..Spec::default() };
            let mut o = Outer { tunnel: if p.fam == 3 { Tunnel::Gre { key: Some(3), csum: false } } else { Tunnel::Vxlan { vni: 5 } }, ..Outer::default() };
            let mut v = Vec::new();
            for &(short, psh) in &p.segs {
                let mut seg = s.clone();
                if short {
                    seg.payload.truncate(p.mss / 3 + 1);
                }
                if psh {
                    seg.flags |= 0x08;
                }
                if p.fixed_id {
                    seg.id = 100;
                    o.id = 7;
                }
                let f = if p.fam >= 2 { tunnel_frame(&o, &seg) } else { seg.frame() };
                v.push((f, seg.payload.clone()));
                let mut n = seg.next();
                n.payload = pay(p.mss, n.seq);
                n.flags = 0x10;
                s = n;
                o = o.next();
            }
            frames.push(v);
        }
        // A random interleaving that keeps each flow in order.
        let mut cursors = vec![0usize; frames.len()];
        let mut rng = order_seed | 1;
        let cfg = GroConfig { max_segs, max_size, ..GroConfig::new() };
        let mut h = Harness::<4>::new(cfg);
        let mut flow_of: HashMap<u32, usize> = HashMap::new();
        let total: usize = frames.iter().map(|f| f.len()).sum();
        for _ in 0..total {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
            let live: Vec<usize> = (0..frames.len()).filter(|&i| cursors[i] < frames[i].len()).collect();
            let fi = live[(rng % live.len() as u64) as usize];
            let (f, _) = frames[fi][cursors[fi]].clone();
            cursors[fi] += 1;
            let meta = if unnecessary {
                CsumMeta::from_state(CsumState::Unnecessary { level: CsumLevel::L1 })
            } else {
                CsumMeta::NONE
            };
            let id = h.feed_meta(f, meta);
            flow_of.insert(id, fi);
            if rng % 7 == 0 {
                h.flush();
            }
        }
        h.flush();
        // Every id exactly once.
        let mut all: Vec<u32> = h.events.iter().flat_map(|e| e.ids()).collect();
        all.sort();
        prop_assert_eq!(all, (1..=total as u32).collect::<Vec<_>>());
        prop_assert_eq!(h.gro.stats().packets, total as u64);
        // Payload per flow, in order.
        let mut got: Vec<Vec<u8>> = vec![Vec::new(); frames.len()];
        for e in &h.events {
            let ids = e.ids();
            let fi = flow_of[&ids[0]];
            prop_assert!(ids.iter().all(|i| flow_of[i] == fi));
            let bytes = match e {
                Ev::Super { bytes, .. } => bytes.clone(),
                Ev::Pass { id, .. } => h.original(*id),
            };
            let w = walk(&bytes);
            got[fi].extend_from_slice(&bytes[w.payload..w.end]);
            if let Ev::Super { .. } = e {
                prop_assert!(ids.len() <= max_segs as usize);
                prop_assert!((w.end - w.ips[0].0) as u32 <= max_size);
                h.check_super(e);
            }
        }
        for (fi, v) in frames.iter().enumerate() {
            let want: Vec<u8> = v.iter().flat_map(|(_, p)| p.clone()).collect();
            prop_assert_eq!(&got[fi], &want, "flow {}", fi);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    /// Untrusted bytes: mutated and truncated frames (and raw garbage) never
    /// panic, every id leaves exactly once, and whatever merges still verifies.
    #[test]
    fn mutated_frames_never_panic(
        base_kind in 0u8..4,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in prop::option::of(any::<prop::sample::Index>()),
        garbage in prop::collection::vec(any::<u8>(), 0..200),
        state in 0u8..3,
    ) {
        let mut h = Harness::<4>::new(GroConfig { kinds: netoffload::gro::GroKinds::all(), ..GroConfig::new() });
        let s = Spec { v6: base_kind == 1, udp: base_kind == 3, ..Spec::default() };
        let frames: Vec<Vec<u8>> = (0..3)
            .map(|i| {
                let mut sp = s.clone();
                for _ in 0..i {
                    sp = sp.next();
                }
                if base_kind == 2 { tunnel_frame(&Outer::default(), &sp) } else { sp.frame() }
            })
            .collect();
        let mut bad = frames[1].clone();
        for (at, v) in &edits {
            let i = at.index(bad.len());
            bad[i] ^= v | 1;
        }
        if let Some(c) = cut {
            bad.truncate(c.index(bad.len() + 1));
        }
        let meta = || match state {
            0 => CsumMeta::NONE,
            1 => CsumMeta::from_state(CsumState::Unnecessary { level: CsumLevel::L0 }),
            _ => CsumMeta::from_state(CsumState::Partial { start: 34, offset: 16, kind: netoffload::state::PartialKind::Inet }),
        };
        h.feed_meta(frames[0].clone(), meta());
        h.feed_meta(bad, meta());
        h.feed_meta(garbage, meta());
        h.feed_meta(frames[2].clone(), meta());
        h.flush();
        let mut all: Vec<u32> = h.events.iter().flat_map(|e| e.ids()).collect();
        all.sort();
        prop_assert_eq!(all, vec![1, 2, 3, 4]);
        // Every packet is counted once as merged, new flow or passed up.
        prop_assert_eq!(h.gro.stats().packets, 4);
        // Super-packets built only from unmutated frames must verify; a mutated
        // frame can only merge if its bytes still parse as the same flow and
        // its checksum was vouched for (Unnecessary/Partial claim it), so only
        // check those built without the mutated frame under CHECKSUM_NONE.
        for e in &h.events {
            if let Ev::Super { ids, .. } = e
                && (state == 0 || !ids.contains(&2))
            {
                h.check_super(e);
            }
        }
    }
}
