//! An independent model of a NIC transmit ring, written from the Linux Intel
//! drivers (ixgbe/igb: `ixgbe_xmit_frame_ring`, `ixgbe_tx_map`,
//! `ixgbe_maybe_stop_tx`, `ixgbe_clean_tx_irq` with `TX_WAKE_THRESHOLD`, and
//! `__netif_txq_completed_wake`), not from the planner: ring indices
//! (`next_to_use` / `next_to_clean`) over real slots, a first-descriptor record
//! per packet (`next_to_watch`), a doorbell on the last packet of a batch or
//! when the queue stops (`!netdev_xmit_more() || netif_xmit_stopped()`).
//!
//! [`run`] drives a `TxRing<N>` and the model with the same operations and
//! checks after every one: the two agree (reports, completions, state); nothing
//! in flight beyond the ring less the 2-descriptor gap; no packet lost or
//! reordered; a running queue has room for a worst-case packet and the gap; a
//! stopped queue has something in flight; one doorbell per batch; a refused
//! batch changed nothing; and at the end every packet goes out (no stall).
//! Shared by `tests/tx_planner.rs` and the `tx_ring` fuzz target.
#![allow(dead_code)]

use std::collections::VecDeque;

use netoffload::tx::{
    BatchEnd, BatchReport, PlanError, Prepared, QueueState, RingConfig, TxContext, TxRing,
    WakeOutcome,
};

/// The gap ixgbe keeps between tail and head ("+ 2 desc gap to keep tail from
/// touching head").
pub const GAP: usize = 2;

/// ixgbe's `DESC_NEEDED` for a device of `max_frags` fragments: every fragment
/// and the head, a context descriptor, the gap.
pub fn desc_needed(max_frags: usize) -> u128 {
    max_frags as u128 + 4
}

/// What the model says `RingConfig::new(slots, max_frags)` must answer: a ring
/// that holds two worst-case packets and the gap, in exact arithmetic.
pub fn config_ok(slots: usize, max_frags: usize) -> bool {
    let worst = max_frags as u128 + 2;
    slots as u128 >= 2 * worst + GAP as u128
}

/// A packet as the driver sees it.
#[derive(Clone, Copy, Debug)]
struct Pkt {
    id: u64,
    data: usize,
    ctx: Option<TxContext>,
}

/// The ring: slots, indices, one record per packet at its first descriptor.
#[derive(Clone, Debug)]
pub struct RingModel {
    slots: usize,
    max_frags: usize,
    wake: usize,
    /// `Some((id, descriptors))` at a packet's first descriptor.
    watch: Vec<Option<(u64, usize)>>,
    next_to_use: usize,
    next_to_clean: usize,
    last_ctx: Option<TxContext>,
    stopped: bool,
}

/// What the model predicts for one `xmit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelXmit {
    /// The batch is refused: packet `index` exceeds the ring's worst case.
    Refused { index: usize },
    /// Sent: packets, descriptors, context descriptors, doorbells, end.
    Sent(BatchReport),
}

impl RingModel {
    /// An empty ring; `wake` is the threshold the caller chose.
    pub fn new(slots: usize, max_frags: usize, wake: usize) -> RingModel {
        RingModel {
            slots,
            max_frags,
            wake,
            watch: vec![None; slots],
            next_to_use: 0,
            next_to_clean: 0,
            last_ctx: None,
            stopped: false,
        }
    }

    /// The driver's default wake threshold (tg3's quarter of the ring, at
    /// least `DESC_NEEDED`).
    pub fn default_wake(slots: usize, max_frags: usize) -> usize {
        (slots / 4).max(max_frags + 4)
    }

    /// Free slots from the two indices. `next_to_use == next_to_clean` reads as
    /// an empty ring, as on the NIC: a ring filled to the last slot would read
    /// as empty here, and the descriptor counts would disagree with the planner.
    pub fn unused(&self) -> usize {
        let (ntc, ntu) = (self.next_to_clean, self.next_to_use);
        if ntc > ntu {
            ntc - ntu
        } else {
            self.slots + ntc - ntu
        }
    }

    /// Descriptors in flight.
    pub fn used(&self) -> usize {
        self.slots - self.unused()
    }

    /// Packets in flight, oldest first.
    pub fn in_flight(&self) -> Vec<u64> {
        let mut ids = Vec::new();
        let mut at = self.next_to_clean;
        while at != self.next_to_use {
            let Some((id, n)) = self.watch[at] else {
                panic!("no packet at slot {at}");
            };
            ids.push(id);
            at = (at + n) % self.slots;
        }
        ids
    }

    fn advance(&mut self, n: usize) {
        self.next_to_use = (self.next_to_use + n) % self.slots;
    }

    /// `ndo_start_xmit` over a batch with `xmit_more`.
    fn xmit(&mut self, batch: &[Pkt]) -> ModelXmit {
        // A packet beyond DESC_NEEDED less the gap could never pass
        // `maybe_stop_tx(count + 3)`: the whole batch is refused up front.
        if let Some(index) = batch.iter().position(|p| p.data > self.max_frags + 1) {
            return ModelXmit::Refused { index };
        }
        let mut r = BatchReport {
            packets: 0,
            descriptors: 0,
            context_descriptors: 0,
            doorbells: 0,
            end: BatchEnd::Drained,
        };
        if self.stopped {
            r.end = BatchEnd::AlreadyStopped;
            return ModelXmit::Sent(r);
        }
        for (i, p) in batch.iter().enumerate() {
            // ixgbe_xmit_frame_ring: data + context + gap, else NETDEV_TX_BUSY.
            if (self.unused() as u128) < p.data as u128 + 3 {
                self.stopped = true;
                r.end = BatchEnd::QueueStopped;
                break;
            }
            let first = self.next_to_use;
            let ctx = usize::from(p.ctx.is_some() && p.ctx != self.last_ctx);
            if p.ctx.is_some() {
                self.last_ctx = p.ctx;
            }
            self.watch[first] = Some((p.id, ctx + p.data));
            self.advance(ctx + p.data);
            r.packets += 1;
            r.descriptors += ctx + p.data;
            r.context_descriptors += ctx;
            // ixgbe_tx_map's tail: maybe_stop_tx(DESC_NEEDED), then the
            // doorbell unless more packets follow on a running queue.
            if (self.unused() as u128) < desc_needed(self.max_frags) {
                self.stopped = true;
            }
            let last = i + 1 == batch.len();
            if self.stopped || last {
                r.doorbells += 1;
            }
            if self.stopped {
                r.end = BatchEnd::QueueStopped;
                break;
            }
        }
        ModelXmit::Sent(r)
    }

    /// The clean path: reclaim up to `budget` packets, wake when some were
    /// reclaimed and the wake threshold is free (`__netif_txq_completed_wake`).
    fn clean(&mut self, budget: usize) -> (Vec<u64>, usize, WakeOutcome) {
        let mut done = Vec::new();
        let mut descs = 0;
        while done.len() < budget && self.next_to_clean != self.next_to_use {
            let at = self.next_to_clean;
            let Some((id, n)) = self.watch[at].take() else {
                panic!("no packet at next_to_clean {at}");
            };
            done.push(id);
            descs += n;
            self.next_to_clean = (at + n) % self.slots;
        }
        let wake = if !self.stopped {
            WakeOutcome::WasRunning
        } else if !done.is_empty() && self.unused() >= self.wake {
            self.stopped = false;
            WakeOutcome::Woke
        } else {
            WakeOutcome::StillStopped
        };
        (done, descs, wake)
    }
}

/// A packet the workload offers: fragments (reduced modulo the ring's limit),
/// offload context selector, and whether it is prepared by another ring
/// configuration of `foreign` fragments (then the fragment count is kept).
#[derive(Clone, Copy, Debug)]
pub struct PktSpec {
    pub frags: usize,
    pub ctx: u8,
    pub foreign: Option<usize>,
}

/// One step of a workload.
#[derive(Clone, Debug)]
pub enum Op {
    /// New packets join the pending queue.
    Enqueue(Vec<PktSpec>),
    /// `xmit` on the first `n` pending packets.
    Xmit(usize),
    /// `complete` of up to `n` packets.
    Complete(usize),
}

/// One of four offload contexts (none, TCP csum, UDP csum, TSO).
pub fn ctx(k: u8) -> Option<TxContext> {
    let (csum_offset, mss) = match k % 4 {
        0 => return None,
        1 => (16, 0),
        2 => (6, 0),
        _ => (16, 1448),
    };
    Some(TxContext {
        csum_start: 34,
        csum_offset,
        mss,
    })
}

/// What a workload did, for the callers' statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    pub sent: u64,
    pub refused: u64,
    pub stops: u64,
}

fn state(q: QueueState) -> bool {
    q == QueueState::Stopped
}

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)*) => {
        if !$cond {
            return Err(format!($($fmt)*));
        }
    };
}

/// Everything observable of the ring agrees with the model, and the
/// invariants hold.
fn check<const N: usize>(ring: &TxRing<N>, m: &RingModel, cfg: &RingConfig) -> Result<(), String> {
    let used = ring.in_flight_descriptors();
    ensure!(used == m.used(), "in flight {used}, model {}", m.used());
    ensure!(
        used + ring.free() == N,
        "free {} + used {used} != {N}",
        ring.free()
    );
    ensure!(used + GAP <= N, "gap lost: {used} of {N} in flight");
    let ids = m.in_flight();
    ensure!(
        ring.in_flight_packets() == ids.len(),
        "packets in flight {}, model {}",
        ring.in_flight_packets(),
        ids.len()
    );
    ensure!(
        ring.oldest() == ids.first().copied(),
        "oldest {:?} vs {:?}",
        ring.oldest(),
        ids.first()
    );
    ensure!(
        state(ring.queue_state()) == m.stopped,
        "queue {:?}, model stopped {}",
        ring.queue_state(),
        m.stopped
    );
    if m.stopped {
        ensure!(
            !ids.is_empty(),
            "stopped with nothing in flight: nothing will wake it"
        );
    } else {
        let room = N - used;
        ensure!(
            room as u128 >= desc_needed(cfg.max_frags()),
            "running with {room} free, a worst-case packet and the gap need {}",
            desc_needed(cfg.max_frags())
        );
    }
    Ok(())
}

/// Runs `ops` on a fresh `TxRing<N>` of `max_frags` fragments (wake threshold
/// `wake`, or the default) beside the model, then drains. `Err` names the
/// first disagreement or broken invariant.
pub fn run<const N: usize>(
    max_frags: usize,
    wake: Option<usize>,
    ops: &[Op],
) -> Result<Outcome, String> {
    let cfg = match RingConfig::new(N, max_frags) {
        Ok(c) => c,
        Err(e) => {
            ensure!(
                !config_ok(N, max_frags),
                "RingConfig::new({N}, {max_frags}) refused: {e}"
            );
            return Ok(Outcome::default());
        }
    };
    ensure!(
        config_ok(N, max_frags),
        "RingConfig::new({N}, {max_frags}) accepted"
    );
    ensure!(
        cfg.stop_threshold() as u128 == desc_needed(max_frags),
        "stop threshold {} != DESC_NEEDED {}",
        cfg.stop_threshold(),
        desc_needed(max_frags)
    );
    let default_wake = RingModel::default_wake(N, max_frags);
    ensure!(
        cfg.wake_threshold() == default_wake,
        "default wake {}",
        cfg.wake_threshold()
    );
    let cfg = match wake {
        Some(w) => match cfg.with_wake_threshold(w) {
            Ok(c) => c,
            Err(_) => {
                ensure!(
                    (w as u128) < desc_needed(max_frags) || w > N,
                    "wake threshold {w} refused"
                );
                cfg
            }
        },
        None => cfg,
    };
    let mut ring = TxRing::<N>::with_config(cfg).map_err(|e| e.to_string())?;
    let mut m = RingModel::new(N, max_frags, cfg.wake_threshold());
    let mut pending: VecDeque<Prepared> = VecDeque::new();
    let mut sent: VecDeque<u64> = VecDeque::new();
    let mut next_id = 0u64;
    let mut out = Outcome::default();
    let mut batches_sent = 0u64;

    let mut step = |op: &Op,
                    ring: &mut TxRing<N>,
                    m: &mut RingModel,
                    pending: &mut VecDeque<Prepared>|
     -> Result<(), String> {
        match op {
            Op::Enqueue(specs) => {
                for s in specs {
                    let p = match s.foreign {
                        None => cfg.prep(next_id, s.frags % (max_frags + 1), ctx(s.ctx)),
                        Some(f) => {
                            // The smallest ring that takes `f` fragments (f is small here).
                            let slots = 2 * (f + 2) + GAP;
                            RingConfig::new(slots, f)
                                .and_then(|c| c.prep(next_id, s.frags % (f + 1), ctx(s.ctx)))
                        }
                    };
                    if let Ok(p) = p {
                        pending.push_back(p);
                        next_id += 1;
                    }
                }
            }
            Op::Xmit(n) => {
                let batch: Vec<Prepared> = pending.iter().take(*n).copied().collect();
                let pkts: Vec<Pkt> = batch
                    .iter()
                    .map(|p| Pkt {
                        id: p.id(),
                        data: p.data_descriptors(),
                        ctx: p.context(),
                    })
                    .collect();
                let before = (
                    ring.in_flight_descriptors(),
                    ring.in_flight_packets(),
                    ring.queue_state(),
                    ring.stats(),
                );
                let want = m.xmit(&pkts);
                match (ring.xmit(&batch), want) {
                    (
                        Err(PlanError::PacketTooLarge { index, .. }),
                        ModelXmit::Refused { index: mi },
                    ) => {
                        ensure!(index == mi, "refused packet {index}, model {mi}");
                        let after = (
                            ring.in_flight_descriptors(),
                            ring.in_flight_packets(),
                            ring.queue_state(),
                            ring.stats(),
                        );
                        ensure!(before == after, "a refused batch changed the ring");
                        // The driver drops the oversize packet (tx_dropped).
                        pending.remove(index);
                        out.refused += 1;
                    }
                    (Ok(r), ModelXmit::Sent(w)) => {
                        ensure!(r == w, "xmit {r:?}, model {w:?}");
                        ensure!(r.doorbells == usize::from(r.packets > 0), "doorbells {r:?}");
                        for _ in 0..r.packets {
                            let p = pending
                                .pop_front()
                                .ok_or_else(|| "sent more than given".to_string())?;
                            sent.push_back(p.id());
                        }
                        batches_sent += u64::from(r.packets > 0);
                        out.sent += r.packets as u64;
                    }
                    (got, w) => return Err(format!("xmit {got:?}, model {w:?}")),
                }
                ensure!(
                    ring.stats().doorbells == batches_sent,
                    "doorbells {} for {batches_sent} batches",
                    ring.stats().doorbells
                );
            }
            Op::Complete(n) => {
                let mut ids = Vec::new();
                let c = ring.complete(*n, |id| ids.push(id));
                let (want, descs, wake) = m.clean(*n);
                ensure!(ids == want, "completed {ids:?}, model {want:?}");
                ensure!(
                    c.packets == ids.len() && c.descriptors == descs && c.wake == wake,
                    "completion {c:?}, model {descs} descriptors, {wake:?}"
                );
                for id in ids {
                    let first = sent.pop_front();
                    ensure!(
                        first == Some(id),
                        "completion {id}, oldest sent {first:?}: lost or reordered"
                    );
                }
            }
        }
        check(ring, m, &cfg)
    };

    for op in ops {
        step(op, &mut ring, &mut m, &mut pending)?;
    }
    // Drain: every pending packet goes out and completes; a queue never stays stopped.
    let mut rounds = 0;
    while !pending.is_empty() || ring.in_flight_packets() > 0 {
        step(&Op::Xmit(64), &mut ring, &mut m, &mut pending)?;
        step(&Op::Complete(usize::MAX), &mut ring, &mut m, &mut pending)?;
        ensure!(
            ring.queue_state() == QueueState::Running,
            "stalled after a full completion"
        );
        rounds += 1;
        ensure!(rounds < 100_000, "no progress");
    }
    ensure!(sent.is_empty(), "sent but never completed: {sent:?}");
    out.stops = ring.stats().stops;
    Ok(out)
}
