//! Transmit batch planner: never overruns the ring, never stalls, one
//! doorbell per batch, context descriptors only on change.
use std::collections::VecDeque;

use netoffload::tx::{
    BatchEnd, PlanError, Prepared, QueueState, RingConfig, TxContext, TxRing, WakeOutcome,
};
use proptest::prelude::*;

const N: usize = 64;

fn ctx(k: u8) -> Option<TxContext> {
    match k % 4 {
        0 => None,
        1 => Some(TxContext {
            csum_start: 34,
            csum_offset: 16,
            mss: 0,
        }),
        2 => Some(TxContext {
            csum_start: 34,
            csum_offset: 6,
            mss: 0,
        }),
        _ => Some(TxContext {
            csum_start: 34,
            csum_offset: 16,
            mss: 1448,
        }),
    }
}

#[derive(Clone, Debug)]
enum Op {
    Xmit(usize),
    Complete(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1usize..40).prop_map(Op::Xmit),
        (0usize..20).prop_map(Op::Complete)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random packet shapes, batch sizes and completion timings: descriptors in
    /// flight never exceed the ring, accounting adds up, a running queue always
    /// has room for a worst-case packet, completions come back in order, and
    /// everything is eventually sent (no stall).
    #[test]
    fn no_overrun_no_stall(
        max_frags in 1usize..=10,
        wake_extra in 0usize..30,
        pkts in prop::collection::vec((0usize..=10, any::<u8>()), 1..300),
        ops in prop::collection::vec(op(), 1..200),
    ) {
        let cfg = RingConfig::new(N, max_frags).unwrap();
        let wake = (cfg.stop_threshold() + wake_extra).min(N);
        let cfg = cfg.with_wake_threshold(wake).unwrap();
        let mut ring = TxRing::<N>::with_config(cfg).unwrap();
        let mut pending: VecDeque<Prepared> = pkts
            .iter()
            .enumerate()
            .map(|(i, &(frags, c))| cfg.prep(i as u64, frags.min(max_frags), ctx(c)).unwrap())
            .collect();
        let total = pending.len() as u64;
        let mut next_done = 0u64;
        let mut sent = 0u64;

        let mut step = |ring: &mut TxRing<N>, pending: &mut VecDeque<Prepared>, op: &Op| -> Result<(), TestCaseError> {
            match *op {
                Op::Xmit(b) => {
                    let batch: Vec<Prepared> = pending.iter().take(b).copied().collect();
                    let was = ring.queue_state();
                    let mut expect_descs = 0;
                    let before_in_flight = ring.in_flight_descriptors();
                    let r = ring.xmit(&batch);
                    for _ in 0..r.packets {
                        let p = pending.pop_front().unwrap();
                        expect_descs += p.data_descriptors();
                    }
                    sent += r.packets as u64;
                    prop_assert_eq!(r.descriptors, expect_descs + r.context_descriptors);
                    prop_assert_eq!(ring.in_flight_descriptors(), before_in_flight + r.descriptors);
                    prop_assert_eq!(r.doorbells, usize::from(r.packets > 0));
                    if was == QueueState::Stopped {
                        prop_assert_eq!(r.end, BatchEnd::AlreadyStopped);
                        prop_assert_eq!(r.packets, 0);
                    } else if r.end == BatchEnd::Drained {
                        prop_assert_eq!(r.packets, batch.len());
                    }
                }
                Op::Complete(k) => {
                    let was = ring.queue_state();
                    let c = ring.complete(k, |id| {
                        assert_eq!(id, next_done, "completion out of order");
                        next_done += 1;
                    });
                    match c.wake {
                        WakeOutcome::Woke => prop_assert!(ring.free() >= cfg.wake_threshold()),
                        WakeOutcome::StillStopped => prop_assert!(ring.free() < cfg.wake_threshold()),
                        WakeOutcome::WasRunning => prop_assert_eq!(was, QueueState::Running),
                    }
                }
            }
            prop_assert!(ring.in_flight_descriptors() <= N, "overrun");
            prop_assert_eq!(ring.free() + ring.in_flight_descriptors(), N);
            if ring.queue_state() == QueueState::Running {
                prop_assert!(ring.free() >= cfg.stop_threshold());
            }
            Ok(())
        };
        for o in &ops {
            step(&mut ring, &mut pending, o)?;
        }
        // Drain: completions always let the queue run again, and every packet goes out.
        let mut rounds = 0;
        while !pending.is_empty() || ring.in_flight_packets() > 0 {
            step(&mut ring, &mut pending, &Op::Xmit(16))?;
            step(&mut ring, &mut pending, &Op::Complete(usize::MAX))?;
            prop_assert_eq!(ring.queue_state(), QueueState::Running, "stalled");
            rounds += 1;
            prop_assert!(rounds < 10_000);
        }
        prop_assert_eq!(sent, total);
        prop_assert_eq!(next_done, total);
        prop_assert_eq!(ring.stats().packets, total);
    }
}

/// Doorbells per packet fall as the batch grows (one per batch).
#[test]
fn doorbells_per_packet_fall_with_batch_size() {
    let mut last = f64::INFINITY;
    for batch in [1usize, 8, 32, 128] {
        let mut ring = TxRing::<512>::new(17).unwrap();
        let cfg = *ring.config();
        let pkts: Vec<Prepared> = (0..4096u64)
            .map(|i| cfg.prep(i, (i % 3) as usize, ctx(1)).unwrap())
            .collect();
        let mut at = 0;
        while at < pkts.len() {
            let end = (at + batch).min(pkts.len());
            let r = ring.xmit(&pkts[at..end]);
            at += r.packets;
            ring.complete(usize::MAX, |_| {});
        }
        let s = ring.stats();
        assert_eq!(s.packets, 4096);
        let per = s.doorbells as f64 / s.packets as f64;
        assert!(
            per < last,
            "batch {batch}: {per} doorbells/packet, not below {last}"
        );
        assert!(
            (per - 1.0 / batch as f64).abs() < 1e-9,
            "one doorbell per batch"
        );
        last = per;
    }
}

#[test]
fn context_descriptor_only_when_params_change() {
    let mut ring = TxRing::<64>::new(4).unwrap();
    let cfg = *ring.config();
    let p = |id, c| cfg.prep(id, 0, ctx(c)).unwrap();
    let batch = [p(0, 1), p(1, 1), p(2, 0), p(3, 1), p(4, 2), p(5, 2)];
    let r = ring.xmit(&batch);
    assert_eq!(r.packets, 6);
    // ctx 1 (new), same, none, same as last (1), ctx 2 (new), same.
    assert_eq!(r.context_descriptors, 2);
    assert_eq!(r.descriptors, 8);
}

#[test]
fn stops_before_a_worst_case_packet_could_overrun_and_wakes_at_quarter() {
    let mut ring = TxRing::<64>::new(4).unwrap();
    let cfg = *ring.config();
    assert_eq!(cfg.wake_threshold(), 16);
    assert_eq!(cfg.stop_threshold(), 6);
    let pkts: Vec<Prepared> = (0..100).map(|i| cfg.prep(i, 4, ctx(1)).unwrap()).collect();
    let r = ring.xmit(&pkts);
    assert_eq!(r.end, BatchEnd::QueueStopped);
    assert!(ring.free() < cfg.stop_threshold());
    assert_eq!(ring.queue_state(), QueueState::Stopped);
    // A stopped queue takes nothing.
    assert_eq!(ring.xmit(&pkts[r.packets..]).end, BatchEnd::AlreadyStopped);
    // Reclaim one packet at a time: wakes exactly when free reaches 16.
    loop {
        let c = ring.complete(1, |_| {});
        if c.wake == WakeOutcome::Woke {
            assert!(ring.free() >= 16 && ring.free() - c.descriptors < 16);
            break;
        }
        assert_eq!(c.wake, WakeOutcome::StillStopped);
    }
}

#[test]
fn config_errors() {
    assert_eq!(
        RingConfig::new(10, 4),
        Err(PlanError::RingTooSmall {
            slots: 10,
            worst_case: 6
        })
    );
    let cfg = RingConfig::new(64, 4).unwrap();
    assert_eq!(
        cfg.with_wake_threshold(5),
        Err(PlanError::WakeThreshold {
            threshold: 5,
            min: 6,
            max: 64
        })
    );
    assert!(cfg.with_wake_threshold(65).is_err());
    assert_eq!(
        cfg.prep(1, 5, None),
        Err(PlanError::TooManyFrags {
            nr_frags: 5,
            max_frags: 4
        })
    );
    assert_eq!(
        TxRing::<128>::with_config(cfg).err(),
        Some(PlanError::SlotsMismatch {
            config: 64,
            ring: 128
        })
    );
    // A packet prepared for a bigger-fragment ring does not overrun a smaller one.
    let big = RingConfig::new(256, 40).unwrap().prep(9, 40, None).unwrap();
    let mut ring = TxRing::<16>::new(2).unwrap();
    let r = ring.xmit(&[big]);
    assert_eq!(r.packets, 0);
    assert_eq!(r.end, BatchEnd::QueueStopped);
    assert_eq!(ring.in_flight_descriptors(), 0);
    // ...and the ring still wakes (no stall) on the next completion pass.
    assert_eq!(ring.complete(1, |_| {}).wake, WakeOutcome::Woke);
}

/// From decision to ring: offloads carry a context (with the MSS for
/// hardware segmentation), software-finished packets none.
#[test]
fn contexts_come_from_transmit_decisions() {
    use netoffload::state::PartialKind;
    use netoffload::tx::{DoneReason, Fill, FillReason, GsoInfo, GsoType, OffloadReason, TxAction};
    let tso = TxAction::Offload {
        start: 34,
        offset: 16,
        reason: OffloadReason::HardwareSegmentation,
    };
    let gso = Some(GsoInfo::new(1448, GsoType::TCPV4));
    assert_eq!(
        TxContext::from_action(&tso, gso),
        Some(TxContext {
            csum_start: 34,
            csum_offset: 16,
            mss: 1448
        })
    );
    let csum = TxAction::Offload {
        start: 34,
        offset: 6,
        reason: OffloadReason::HwCsum,
    };
    assert_eq!(
        TxContext::from_action(&csum, gso),
        Some(TxContext {
            csum_start: 34,
            csum_offset: 6,
            mss: 0
        })
    );
    let filled = TxAction::FillSoftware(Fill {
        start: 34,
        offset: 16,
        kind: PartialKind::Inet,
        reason: FillReason::NoChecksumFeature,
    });
    assert_eq!(TxContext::from_action(&filled, None), None);
    let done = TxAction::AlreadyComplete {
        reason: DoneReason::NothingPending,
    };
    assert_eq!(TxContext::from_action(&done, None), None);

    let mut ring = TxRing::<64>::new(4).unwrap();
    let cfg = *ring.config();
    let batch = [
        cfg.prep(0, 1, TxContext::from_action(&tso, gso)).unwrap(),
        cfg.prep(1, 0, TxContext::from_action(&filled, None))
            .unwrap(),
        cfg.prep(2, 0, TxContext::from_action(&tso, gso)).unwrap(),
        cfg.prep(3, 0, TxContext::from_action(&csum, None)).unwrap(),
    ];
    let r = ring.xmit(&batch);
    assert_eq!(
        (r.packets, r.context_descriptors, r.descriptors, r.doorbells),
        (4, 2, 7, 1)
    );
}
