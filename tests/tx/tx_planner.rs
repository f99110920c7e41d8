//! Transmit batch planner: never overruns the ring, never stalls, one
//! doorbell per batch, context descriptors only on change; checked against an
//! independent model of a Linux driver's ring (`tests/support/tx/ring_model.rs`).
use netoffload::tx::{
    BatchEnd, PlanError, Prepared, QueueState, RingConfig, TxContext, TxRing, WakeOutcome,
};
use proptest::prelude::*;

use crate::support::tx::ring_model;
use ring_model::{GAP, Op, PktSpec, config_ok, ctx, desc_needed};

/// Counts from the ordinary to the absurd: small, around `usize::MAX / 2`,
/// around `usize::MAX`, anything.
fn count() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..300,
        1 => (0usize..8).prop_map(|d| usize::MAX / 2 - 4 + d),
        1 => (0usize..8).prop_map(|d| usize::MAX - d),
        1 => any::<usize>(),
    ]
}

fn spec() -> impl Strategy<Value = PktSpec> {
    (
        any::<usize>(),
        any::<u8>(),
        prop::option::weighted(0.1, 0usize..64),
    )
        .prop_map(|(frags, ctx, foreign)| PktSpec {
            frags,
            ctx,
            foreign,
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop::collection::vec(spec(), 1..40).prop_map(Op::Enqueue),
        3 => (0usize..48).prop_map(Op::Xmit),
        2 => prop_oneof![0usize..8, Just(usize::MAX)].prop_map(Op::Complete),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random ring sizes, fragment limits (absurd ones too), wake thresholds,
    /// packet shapes, foreign `Prepared`s, batch and completion patterns,
    /// against the model of a Linux driver's ring: see `ring_model::run` for
    /// what is checked after every operation.
    #[test]
    fn ring_matches_linux_model(
        size in 0usize..3,
        max_frags in prop_oneof![8 => 0usize..=12, 2 => 13usize..=130, 1 => count()],
        wake in prop::option::of(0usize..300),
        ops in prop::collection::vec(op(), 1..120),
    ) {
        let r = match size {
            0 => ring_model::run::<16>(max_frags, wake, &ops),
            1 => ring_model::run::<64>(max_frags, wake, &ops),
            _ => ring_model::run::<256>(max_frags, wake, &ops),
        };
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    /// `RingConfig::new`, `with_wake_threshold` and `prep` against exact
    /// (u128) arithmetic: accepted exactly when the model accepts, and every
    /// count they report is exact.
    #[test]
    fn ring_config_counts_are_exact(
        slots in count(),
        max_frags in count(),
        wake in count(),
        nr_frags in count(),
    ) {
        let min_slots = 2 * (max_frags as u128 + 2) + GAP as u128;
        match RingConfig::new(slots, max_frags) {
            Ok(cfg) => {
                prop_assert!(config_ok(slots, max_frags));
                prop_assert_eq!(cfg.stop_threshold() as u128, desc_needed(max_frags));
                prop_assert_eq!(cfg.worst_case() as u128, max_frags as u128 + 2);
                prop_assert!(cfg.wake_threshold() >= cfg.stop_threshold());
                prop_assert!(cfg.wake_threshold() <= slots);
                let w_ok = desc_needed(max_frags) <= wake as u128 && wake <= slots;
                prop_assert_eq!(cfg.with_wake_threshold(wake).is_ok(), w_ok);
                match cfg.prep(1, nr_frags, None) {
                    Ok(p) => {
                        prop_assert!(nr_frags <= max_frags);
                        prop_assert_eq!(p.data_descriptors() as u128, nr_frags as u128 + 1);
                    }
                    Err(e) => {
                        prop_assert!(nr_frags > max_frags);
                        prop_assert_eq!(e, PlanError::TooManyFrags { nr_frags, max_frags });
                    }
                }
            }
            Err(PlanError::RingTooSmall { slots: s, min_slots: m }) => {
                prop_assert_eq!(s, slots);
                prop_assert_eq!(m as u128, min_slots);
                prop_assert!((slots as u128) < min_slots);
            }
            Err(e) => {
                prop_assert_eq!(e, PlanError::FragsOverflow { max_frags });
                prop_assert!(min_slots > usize::MAX as u128);
            }
        }
    }

    /// A context carries exactly the decision's start and offset, or is
    /// refused: two different offloads never share one context.
    #[test]
    fn context_is_exact_or_refused(
        start in prop_oneof![65500usize..65600, count()],
        offset in prop_oneof![0usize..64, 65500usize..65600, count()],
        crc in any::<bool>(),
    ) {
        use netoffload::tx::{CrcReason, OffloadReason, TxAction};
        let action = if crc {
            TxAction::CrcOffload { start, offset, reason: CrcReason::SctpCrc }
        } else {
            TxAction::Offload { start, offset, reason: OffloadReason::HwCsum }
        };
        let fits = start < 65535 && offset <= 65535;
        match TxContext::from_action(&action, None) {
            Ok(Some(c)) => {
                prop_assert!(fits);
                prop_assert_eq!((c.csum_start as usize, c.csum_offset as usize), (start, offset));
            }
            Ok(None) => prop_assert!(false, "an offload without a context"),
            Err(e) => {
                prop_assert!(!fits);
                prop_assert_eq!(e, PlanError::ContextOutOfRange { csum_start: start, csum_offset: offset });
            }
        }
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
            let r = ring.xmit(&pkts[at..end]).unwrap();
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
    let r = ring.xmit(&batch).unwrap();
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
    // ixgbe's DESC_NEEDED: MAX_SKB_FRAGS + 4.
    assert_eq!(cfg.stop_threshold(), 8);
    let pkts: Vec<Prepared> = (0..100).map(|i| cfg.prep(i, 4, ctx(1)).unwrap()).collect();
    let r = ring.xmit(&pkts).unwrap();
    assert_eq!(r.end, BatchEnd::QueueStopped);
    assert!(ring.free() < cfg.stop_threshold());
    assert_eq!(ring.queue_state(), QueueState::Stopped);
    // A stopped queue takes nothing.
    assert_eq!(
        ring.xmit(&pkts[r.packets..]).unwrap().end,
        BatchEnd::AlreadyStopped
    );
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
        RingConfig::new(13, 4),
        Err(PlanError::RingTooSmall {
            slots: 13,
            min_slots: 14
        })
    );
    assert!(RingConfig::new(14, 4).is_ok());
    let cfg = RingConfig::new(64, 4).unwrap();
    assert_eq!(
        cfg.with_wake_threshold(7),
        Err(PlanError::WakeThreshold {
            threshold: 7,
            min: 8,
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
}

/// Issue 14 item 8: a packet prepared for a bigger-fragment ring used to stop
/// the queue with nothing in flight (no completion would ever wake it). Now
/// the whole batch is refused and the ring is unchanged.
#[test]
fn foreign_prepared_is_refused_ring_unchanged() {
    let big = RingConfig::new(256, 100)
        .unwrap()
        .prep(7, 100, None)
        .unwrap();
    let mut ring = TxRing::<64>::new(4).unwrap();
    let cfg = *ring.config();
    let ok = cfg.prep(1, 0, None).unwrap();
    assert_eq!(
        ring.xmit(&[ok, big]),
        Err(PlanError::PacketTooLarge {
            index: 1,
            data_descriptors: 101,
            max: 5
        })
    );
    assert_eq!(ring.in_flight_descriptors(), 0);
    assert_eq!(ring.queue_state(), QueueState::Running);
    assert_eq!(ring.stats(), Default::default());
    // Foreign but small enough: taken like any other packet.
    let small = RingConfig::new(256, 100).unwrap().prep(8, 4, None).unwrap();
    assert_eq!(ring.xmit(&[ok, small]).unwrap().packets, 2);
}

/// Issue 14 item 8: the counts in `RingConfig::new` overflowed (a permanent
/// stall, a zero-slot ring, a packet of 0 data descriptors).
#[test]
fn ring_config_counts_are_checked() {
    assert_eq!(
        RingConfig::new(64, usize::MAX / 2),
        Err(PlanError::FragsOverflow {
            max_frags: usize::MAX / 2
        })
    );
    assert_eq!(
        RingConfig::new(0, usize::MAX - 1),
        Err(PlanError::FragsOverflow {
            max_frags: usize::MAX - 1
        })
    );
    assert_eq!(
        RingConfig::new(64, usize::MAX),
        Err(PlanError::FragsOverflow {
            max_frags: usize::MAX
        })
    );
    assert_eq!(
        RingConfig::new(0, 0),
        Err(PlanError::RingTooSmall {
            slots: 0,
            min_slots: 6
        })
    );
    // The largest limit a usize ring can take: every count still exact.
    let max_frags = (usize::MAX - 6) / 2;
    let cfg = RingConfig::new(usize::MAX, max_frags).unwrap();
    assert_eq!(cfg.stop_threshold(), max_frags + 4);
    assert!(cfg.wake_threshold() >= cfg.stop_threshold());
    let p = cfg.prep(1, max_frags, None).unwrap();
    assert_eq!(p.data_descriptors(), max_frags + 1);
    assert!(RingConfig::new(usize::MAX, max_frags + 1).is_err());
}

/// Issue 14 item 8: the stop rule let the ring fill every slot (tail == head
/// reads as empty on a NIC). Worst-case packets now leave ixgbe's 2-descriptor
/// gap: the queue stops below `DESC_NEEDED` (`max_frags + 4`) free.
#[test]
fn stop_keeps_the_two_descriptor_gap() {
    // 4 fragments: a worst case of 6 descriptors (context changes every
    // packet), DESC_NEEDED 8.
    let worst = |cfg: RingConfig, n: u64| -> Vec<Prepared> {
        (0..n)
            .map(|i| cfg.prep(i, 4, ctx(1 + (i % 2) as u8)).unwrap())
            .collect()
    };
    // 26 slots: 6 + 6 + 6 leaves 8 free, still room; the 4th leaves the gap.
    let mut ring = TxRing::<26>::new(4).unwrap();
    let r = ring.xmit(&worst(*ring.config(), 10)).unwrap();
    assert_eq!((r.packets, r.end), (4, BatchEnd::QueueStopped));
    assert_eq!(ring.in_flight_descriptors(), 24);
    assert_eq!(ring.free(), GAP);
    // 24 slots: 6 free after three is a worst-case packet without the gap.
    let mut ring = TxRing::<24>::new(4).unwrap();
    let r = ring.xmit(&worst(*ring.config(), 3)).unwrap();
    assert_eq!((r.packets, r.end), (3, BatchEnd::QueueStopped));
    assert_eq!(ring.queue_state(), QueueState::Stopped);
    // A completion with nothing reclaimed does not wake (Linux wakes from the
    // clean path when it freed packets).
    assert_eq!(ring.complete(0, |_| {}).wake, WakeOutcome::StillStopped);
    assert_eq!(ring.complete(1, |_| {}).wake, WakeOutcome::Woke);
}

/// Issue 14 item 8: a `csum_start` past 65535 was clamped to 65535, giving two
/// offloads one context; Linux refuses a start at `U16_MAX`.
#[test]
fn context_start_beyond_u16_is_refused() {
    use netoffload::tx::{OffloadReason, TxAction};
    let at = |start, offset| {
        TxContext::from_action(
            &TxAction::Offload {
                start,
                offset,
                reason: OffloadReason::HwCsum,
            },
            None,
        )
    };
    for (start, offset) in [(65535, 16), (70_000, 16), (usize::MAX, 6), (34, 65_536)] {
        assert_eq!(
            at(start, offset),
            Err(PlanError::ContextOutOfRange {
                csum_start: start,
                csum_offset: offset
            })
        );
    }
    assert_eq!(
        at(65534, 65535),
        Ok(Some(TxContext {
            csum_start: 65534,
            csum_offset: 65535,
            mss: 0
        }))
    );
}

/// From decision to ring: offloads carry a context (with the MSS for
/// hardware segmentation), software-finished packets none.
#[test]
fn contexts_come_from_transmit_decisions() {
    use netoffload::state::PartialKind;
    use netoffload::tx::{DoneReason, Fill, FillReason, GsoInfo, OffloadReason, TxAction};
    use netoffload::wire::GsoType;
    let tso = TxAction::Offload {
        start: 34,
        offset: 16,
        reason: OffloadReason::HardwareSegmentation,
    };
    let gso = Some(GsoInfo::new(1448, GsoType::TCPV4));
    assert_eq!(
        TxContext::from_action(&tso, gso),
        Ok(Some(TxContext {
            csum_start: 34,
            csum_offset: 16,
            mss: 1448
        }))
    );
    let csum = TxAction::Offload {
        start: 34,
        offset: 6,
        reason: OffloadReason::HwCsum,
    };
    assert_eq!(
        TxContext::from_action(&csum, gso),
        Ok(Some(TxContext {
            csum_start: 34,
            csum_offset: 6,
            mss: 0
        }))
    );
    let filled = TxAction::FillSoftware(Fill {
        start: 34,
        offset: 16,
        kind: PartialKind::Inet,
        reason: FillReason::NoChecksumFeature,
    });
    assert_eq!(TxContext::from_action(&filled, None), Ok(None));
    let done = TxAction::AlreadyComplete {
        reason: DoneReason::NothingPending,
    };
    assert_eq!(TxContext::from_action(&done, None), Ok(None));

    let mut ring = TxRing::<64>::new(4).unwrap();
    let cfg = *ring.config();
    let c = |a, g| TxContext::from_action(a, g).unwrap();
    let batch = [
        cfg.prep(0, 1, c(&tso, gso)).unwrap(),
        cfg.prep(1, 0, c(&filled, None)).unwrap(),
        cfg.prep(2, 0, c(&tso, gso)).unwrap(),
        cfg.prep(3, 0, c(&csum, None)).unwrap(),
    ];
    let r = ring.xmit(&batch).unwrap();
    assert_eq!(
        (r.packets, r.context_descriptors, r.descriptors, r.doorbells),
        (4, 2, 7, 1)
    );
}
