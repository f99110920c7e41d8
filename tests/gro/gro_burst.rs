//! `Gro::receive_burst` is `receive` frame by frame: for any interleaving of
//! flows (TCP/IPv4, TCP/IPv6, VXLAN, one bad checksum), any burst sizes and
//! any checksum states, the same dispositions and the same super-packets, in
//! the same order; so is `receive_burst_with_next`, given the next burst.
use crate::support::gro as support;

use netoffload::gro::{BurstFrame, Disposition, FlushReason, Gro, GroConfig, SuperPacket};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};
use proptest::prelude::*;
use support::*;

/// What a run gave out, in order: super-packets (ids, header, reason) and
/// each frame's disposition.
#[derive(Debug, PartialEq)]
enum Out {
    Super(Vec<u32>, Vec<u8>, FlushReason),
    Frame(u32, Disposition),
}

fn record(out: &mut Vec<Out>, sp: &SuperPacket) {
    let ids = sp.segments().iter().map(|s| s.id).collect();
    out.push(Out::Super(ids, sp.header().to_vec(), sp.reason()));
}

/// Frames of four flows interleaved by `order`, each flow in order (each
/// entry one to four segments of one flow back to back: the trains that
/// `receive_burst` merges on its own); frame `bad` (if any) carries a wrong
/// TCP checksum.
fn frames(order: &[u8], bad: Option<usize>) -> Vec<Vec<u8>> {
    let order: Vec<u8> = order
        .iter()
        .flat_map(|&o| std::iter::repeat_n(o % 4, 1 + usize::from(o / 4 % 4)))
        .collect();
    let mut specs: Vec<Spec> = (0..3)
        .map(|f| Spec {
            flow: f + 1,
            v6: f == 1,
            payload: pay(536, f as u32),
            ..Spec::default()
        })
        .collect();
    let mut outer = Outer {
        tunnel: Tunnel::Vxlan { vni: 5 },
        ..Outer::default()
    };
    let mut inner = Spec {
        flow: 9,
        payload: pay(536, 9),
        ..Spec::default()
    };
    let mut out = Vec::new();
    for (i, &o) in order.iter().enumerate() {
        let f = match o % 4 {
            3 => {
                let f = tunnel_frame(&outer, &inner);
                outer = outer.next();
                inner = inner.next();
                f
            }
            k => {
                let s = &mut specs[k as usize];
                s.bad_csum = bad == Some(i);
                let f = s.frame();
                *s = s.next();
                f
            }
        };
        out.push(f);
    }
    out
}

/// Runs `frames` through one engine frame by frame and through another in
/// bursts of the sizes `bursts` gives in turn (everything flushed after
/// each; every other burst with the next one to hint), and compares what
/// both gave out, and their counters.
fn burst_and_frames(
    frames: &[Vec<u8>],
    bursts: &[usize],
    meta: impl Fn(usize) -> CsumMeta,
) -> Result<(), TestCaseError> {
    let mut one = Box::new(Gro::<8>::new(GroConfig::new()));
    let mut burst = Box::new(Gro::<8>::new(GroConfig::new()));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut at, mut k) = (0, 0);
    while at < frames.len() {
        let n = bursts[k % bursts.len()].min(frames.len() - at);
        k += 1;
        for (i, f) in frames.iter().enumerate().skip(at).take(n) {
            let d = one.receive(f, i as u32, meta(i), 0, &mut |sp: &SuperPacket| {
                record(&mut a, sp)
            });
            a.push(Out::Frame(i as u32, d));
        }
        one.flush_all(&mut |sp: &SuperPacket| record(&mut a, sp));
        let items = |at: usize, n: usize| -> Vec<BurstFrame> {
            frames
                .iter()
                .enumerate()
                .skip(at)
                .take(n)
                .map(|(i, f)| BurstFrame {
                    frame: f,
                    id: i as u32,
                    meta: meta(i),
                })
                .collect()
        };
        let next = match k % 2 {
            0 => items(at + n, bursts[k % bursts.len()]),
            _ => Vec::new(),
        };
        // Both closures push to `b`: collect the dispositions apart and
        // put each after the super-packets its frame flushed.
        let mut log: Vec<Out> = Vec::new();
        let cell = std::cell::RefCell::new(&mut log);
        burst.receive_burst_with_next(
            &items(at, n),
            &next,
            0,
            &mut |sp: &SuperPacket| record(&mut cell.borrow_mut(), sp),
            |id, d| cell.borrow_mut().push(Out::Frame(id, d)),
        );
        b.append(&mut log);
        burst.flush_all(&mut |sp: &SuperPacket| record(&mut b, sp));
        at += n;
    }
    prop_assert_eq!(a, b);
    prop_assert_eq!(one.stats(), burst.stats());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn burst_is_frame_by_frame(
        order in prop::collection::vec(any::<u8>(), 1..120),
        bursts in prop::collection::vec(1usize..40, 1..20),
        states in prop::collection::vec(0u8..3, 1..120),
        bad in prop::option::of(0usize..120),
    ) {
        let frames = frames(&order, bad);
        burst_and_frames(&frames, &bursts, |i| match states[i % states.len()] {
            0 => CsumMeta::NONE,
            1 => CsumMeta::from_state(CsumState::Unnecessary { level: CsumLevel::L0 }),
            _ => CsumMeta::from_state(CsumState::Unnecessary { level: CsumLevel::L1 }),
        })?;
    }

    /// Every frame to verify in software: runs of `csum::GROUP` such frames
    /// are summed side by side ahead of the engine, with a bad checksum in
    /// any place of a group and bursts that end groups anywhere.
    #[test]
    fn verified_burst_is_frame_by_frame(
        order in prop::collection::vec(any::<u8>(), 1..120),
        bursts in prop::collection::vec(1usize..40, 1..20),
        bad in prop::option::of(0usize..120),
    ) {
        let frames = frames(&order, bad);
        burst_and_frames(&frames, &bursts, |_| CsumMeta::NONE)?;
    }
}
