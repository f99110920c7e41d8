//! Transmit batch planning over a descriptor ring (the 2007 xmit-batching
//! work: `xmit_more` / one doorbell per batch; ixgbe/tg3 stop and wake rules).
//!
//! A packet needs `nr_frags + 1` data descriptors, plus one context descriptor
//! when its offload parameters differ from the last ones the ring was given
//! (ixgbe/e1000e style). [`RingConfig::prep`] prepares a packet without the
//! ring (outside the lock); [`TxRing::xmit`] enqueues a batch, rings the
//! doorbell once, and stops the queue as soon as a worst-case packet and the
//! 2-descriptor gap might no longer fit (ixgbe's `ixgbe_maybe_stop_tx(ring,
//! DESC_NEEDED)`, `DESC_NEEDED = MAX_SKB_FRAGS + 4`); [`TxRing::complete`]
//! reclaims finished packets and wakes the queue from there only, at the wake
//! threshold (a quarter of the ring by default, like tg3's
//! `TG3_TX_WAKEUP_THRESH`), as Linux drivers do in their clean path.
//!
//! Invariants: descriptors in flight never exceed the ring less the gap (the
//! tail never reaches the head, which a NIC would read as an empty ring); a
//! running queue always has room for a worst-case packet and the gap; a stopped
//! queue always has a packet in flight, so a completion will wake it.
//!
//! One difference from ixgbe, on purpose: its `ixgbe_desc_unused` keeps one
//! more slot back (`count - used - 1`) because two ring indices cannot tell a
//! full ring from an empty one; this model counts descriptors in flight exactly,
//! and the gap already keeps the tail off the head.

use super::decide::{OffloadReason, TxAction};
use super::error::PlanError;
use super::gso::GsoInfo;

/// Descriptors kept empty between the tail and the head: the "+ 2 desc gap to
/// keep tail from touching head" ixgbe/igb count in `DESC_NEEDED`.
const RING_GAP: usize = 2;

/// Offload parameters a context descriptor carries (checksum start/offset,
/// segment size). A change between packets costs one context descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TxContext {
    /// `csum_start`.
    pub csum_start: u16,
    /// `csum_offset`.
    pub csum_offset: u16,
    /// Segment size for hardware segmentation, 0 for checksum only.
    pub mss: u16,
}

impl TxContext {
    /// The context a transmit decision needs: `Some` for a hardware checksum or
    /// segmentation offload, `None` when the device has nothing to compute.
    ///
    /// A `csum_start` of 65535 or more, or a `csum_offset` above 65535, is
    /// refused ([`PlanError::ContextOutOfRange`]), as `skb_partial_csum_set`
    /// refuses a start at `U16_MAX`: clamping would give two different offloads
    /// one context.
    pub fn from_action(
        action: &TxAction,
        gso: Option<GsoInfo>,
    ) -> Result<Option<TxContext>, PlanError> {
        let (start, offset, mss) = match *action {
            TxAction::Offload {
                start,
                offset,
                reason,
            } => {
                let mss = match (reason, gso) {
                    (OffloadReason::HardwareSegmentation, Some(g)) => g.gso_size,
                    _ => 0,
                };
                (start, offset, mss)
            }
            TxAction::CrcOffload { start, offset, .. } => (start, offset, 0),
            _ => return Ok(None),
        };
        let out_of_range = PlanError::ContextOutOfRange {
            csum_start: start,
            csum_offset: offset,
        };
        let csum_start = u16::try_from(start)
            .ok()
            .filter(|&s| s < u16::MAX)
            .ok_or(out_of_range)?;
        let csum_offset = u16::try_from(offset).map_err(|_| out_of_range)?;
        Ok(Some(TxContext {
            csum_start,
            csum_offset,
            mss,
        }))
    }
}

/// Ring geometry and thresholds, checked together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RingConfig {
    slots: usize,
    max_frags: usize,
    wake: usize,
}

impl RingConfig {
    /// A ring of `slots` descriptors for packets of at most `max_frags`
    /// fragments, waking at a quarter of the ring (tg3), or at the stop
    /// threshold when a quarter is less. The ring must hold two worst-case
    /// packets and the gap; every count is checked for overflow.
    pub const fn new(slots: usize, max_frags: usize) -> Result<RingConfig, PlanError> {
        let overflow = PlanError::FragsOverflow { max_frags };
        let Some(worst) = max_frags.checked_add(2) else {
            return Err(overflow);
        };
        let Some(stop) = worst.checked_add(RING_GAP) else {
            return Err(overflow);
        };
        let Some(min_slots) = worst.checked_add(stop) else {
            return Err(overflow);
        };
        if slots < min_slots {
            return Err(PlanError::RingTooSmall { slots, min_slots });
        }
        let quarter = slots / 4;
        Ok(RingConfig {
            slots,
            max_frags,
            wake: if quarter > stop { quarter } else { stop },
        })
    }

    /// The same ring with another wake threshold, in `stop_threshold()..=slots`
    /// (ixgbe's `TX_WAKE_THRESHOLD` is `2 * DESC_NEEDED`, tg3's a quarter).
    pub const fn with_wake_threshold(self, threshold: usize) -> Result<RingConfig, PlanError> {
        let min = self.stop_threshold();
        if threshold < min || threshold > self.slots {
            return Err(PlanError::WakeThreshold {
                threshold,
                min,
                max: self.slots,
            });
        }
        Ok(RingConfig {
            wake: threshold,
            ..self
        })
    }

    /// Descriptors in the ring.
    pub const fn slots(&self) -> usize {
        self.slots
    }

    /// Fragments a packet may have (`MAX_SKB_FRAGS` of the device).
    pub const fn max_frags(&self) -> usize {
        self.max_frags
    }

    /// Free slots at or above which a stopped queue wakes.
    pub const fn wake_threshold(&self) -> usize {
        self.wake
    }

    /// Descriptors a worst-case packet needs: `max_frags + 1` data descriptors
    /// and a context descriptor (cannot overflow: [`RingConfig::new`] checked).
    pub const fn worst_case(&self) -> usize {
        self.max_frags + 2
    }

    /// The queue stops when fewer free slots than this remain: a worst-case
    /// packet and the gap, ixgbe's `DESC_NEEDED` (`MAX_SKB_FRAGS + 4`).
    pub const fn stop_threshold(&self) -> usize {
        self.worst_case() + RING_GAP
    }

    /// Prepares a packet for the ring without touching it (the work done
    /// outside the transmit lock): checks its fragment count and fixes its
    /// descriptor needs and offload context.
    pub const fn prep(
        &self,
        id: u64,
        nr_frags: usize,
        ctx: Option<TxContext>,
    ) -> Result<Prepared, PlanError> {
        if nr_frags > self.max_frags {
            return Err(PlanError::TooManyFrags {
                nr_frags,
                max_frags: self.max_frags,
            });
        }
        Ok(Prepared {
            id,
            // nr_frags <= max_frags, and max_frags + 2 did not overflow.
            data_descs: nr_frags + 1,
            ctx,
        })
    }
}

/// A packet ready for the ring (made by [`RingConfig::prep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prepared {
    id: u64,
    data_descs: usize,
    ctx: Option<TxContext>,
}

impl Prepared {
    /// The caller's opaque packet id.
    pub const fn id(&self) -> u64 {
        self.id
    }

    /// Data descriptors (`nr_frags + 1`).
    pub const fn data_descriptors(&self) -> usize {
        self.data_descs
    }

    /// The offload context, if the device computes something.
    pub const fn context(&self) -> Option<TxContext> {
        self.ctx
    }
}

/// Whether the stack may hand the queue more packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueueState {
    /// Room for a worst-case packet.
    Running,
    /// Stopped until completions free the wake threshold (`netif_tx_stop_queue`).
    Stopped,
}

/// Why a batch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchEnd {
    /// Every packet given was enqueued.
    Drained,
    /// The ring ran low during the batch and the queue stopped; the rest waits.
    QueueStopped,
    /// The queue was stopped already; nothing was enqueued.
    AlreadyStopped,
}

/// What one call to [`TxRing::xmit`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchReport {
    /// Packets enqueued (a prefix of the batch).
    pub packets: usize,
    /// Descriptors used, context descriptors included.
    pub descriptors: usize,
    /// Of which context descriptors.
    pub context_descriptors: usize,
    /// Doorbell writes (1 when anything was enqueued, else 0).
    pub doorbells: usize,
    /// Why the batch ended.
    pub end: BatchEnd,
}

/// Whether a completion woke the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WakeOutcome {
    /// The queue was running.
    WasRunning,
    /// It was stopped and now runs (`netif_tx_wake_queue`).
    Woke,
    /// Still stopped: fewer free slots than the wake threshold.
    StillStopped,
}

/// What one call to [`TxRing::complete`] reclaimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Completion {
    /// Packets reclaimed.
    pub packets: usize,
    /// Descriptors freed.
    pub descriptors: usize,
    /// The queue afterwards.
    pub wake: WakeOutcome,
}

/// Running totals of a ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RingStats {
    /// Packets enqueued.
    pub packets: u64,
    /// Descriptors used.
    pub descriptors: u64,
    /// Context descriptors used.
    pub context_descriptors: u64,
    /// Doorbell writes.
    pub doorbells: u64,
    /// Times the queue stopped.
    pub stops: u64,
    /// Times it woke.
    pub wakes: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct InFlight {
    id: u64,
    descs: usize,
}

/// A transmit ring of `N` descriptor slots, modelled: it tracks descriptors
/// and packets in flight, the last offload context, and the queue state.
///
/// `N` bounds the packets in flight (each needs at least one descriptor).
/// Built with a checked [`RingConfig`] for `N` slots.
#[derive(Clone, Debug)]
pub struct TxRing<const N: usize> {
    cfg: RingConfig,
    used: usize,
    packets: [InFlight; N],
    head: usize,
    count: usize,
    last_ctx: Option<TxContext>,
    queue: QueueState,
    stats: RingStats,
}

impl<const N: usize> TxRing<N> {
    /// An empty running ring of `N` slots for packets of at most `max_frags` fragments.
    pub const fn new(max_frags: usize) -> Result<TxRing<N>, PlanError> {
        match RingConfig::new(N, max_frags) {
            Ok(cfg) => Ok(TxRing::with_config_unchecked(cfg)),
            Err(e) => Err(e),
        }
    }

    /// An empty ring with `cfg`; refused when `cfg.slots() != N`.
    pub const fn with_config(cfg: RingConfig) -> Result<TxRing<N>, PlanError> {
        if cfg.slots != N {
            return Err(PlanError::SlotsMismatch {
                config: cfg.slots,
                ring: N,
            });
        }
        Ok(TxRing::with_config_unchecked(cfg))
    }

    const fn with_config_unchecked(cfg: RingConfig) -> TxRing<N> {
        TxRing {
            cfg,
            used: 0,
            packets: [InFlight { id: 0, descs: 0 }; N],
            head: 0,
            count: 0,
            last_ctx: None,
            queue: QueueState::Running,
            stats: RingStats {
                packets: 0,
                descriptors: 0,
                context_descriptors: 0,
                doorbells: 0,
                stops: 0,
                wakes: 0,
            },
        }
    }

    /// The configuration.
    pub const fn config(&self) -> &RingConfig {
        &self.cfg
    }

    /// Free descriptor slots.
    pub const fn free(&self) -> usize {
        N - self.used
    }

    /// Descriptors in flight (never above `N` less the 2-descriptor gap).
    pub const fn in_flight_descriptors(&self) -> usize {
        self.used
    }

    /// Packets in flight.
    pub const fn in_flight_packets(&self) -> usize {
        self.count
    }

    /// Whether the queue takes packets.
    pub const fn queue_state(&self) -> QueueState {
        self.queue
    }

    /// Running totals.
    pub const fn stats(&self) -> RingStats {
        self.stats
    }

    /// The oldest packet in flight (the next to complete).
    pub fn oldest(&self) -> Option<u64> {
        if self.count == 0 {
            None
        } else {
            self.packets.get(self.head).map(|p| p.id)
        }
    }

    /// Descriptors `p` needs now: data plus a context descriptor when its
    /// offload context differs from the last one given to the ring.
    pub fn descriptors_needed(&self, p: &Prepared) -> usize {
        p.data_descs + usize::from(p.ctx.is_some() && p.ctx != self.last_ctx)
    }

    /// Enqueues a prefix of `batch` (`ndo_start_xmit` with `xmit_more`): as many
    /// packets as fit while the queue runs, one doorbell at the end, and a stop
    /// as soon as fewer than [`RingConfig::stop_threshold`] slots remain.
    ///
    /// A packet needing more data descriptors than this ring's worst case (it
    /// was prepared for another [`RingConfig`]) refuses the whole batch with
    /// [`PlanError::PacketTooLarge`], ring unchanged: taking it could stop the
    /// queue with nothing in flight, and only a completion wakes a queue.
    pub fn xmit(&mut self, batch: &[Prepared]) -> Result<BatchReport, PlanError> {
        let max = self.cfg.max_frags + 1;
        if let Some((index, p)) = batch.iter().enumerate().find(|(_, p)| p.data_descs > max) {
            return Err(PlanError::PacketTooLarge {
                index,
                data_descriptors: p.data_descs,
                max,
            });
        }
        let mut report = BatchReport {
            packets: 0,
            descriptors: 0,
            context_descriptors: 0,
            doorbells: 0,
            end: BatchEnd::Drained,
        };
        if self.queue == QueueState::Stopped {
            report.end = BatchEnd::AlreadyStopped;
            return Ok(report);
        }
        for p in batch {
            let need = self.descriptors_needed(p);
            // A running queue has room for a worst-case packet and the gap,
            // and every packet here is at most a worst case: this holds.
            if need + RING_GAP > self.free() || self.count >= N {
                self.stop();
                report.end = BatchEnd::QueueStopped;
                break;
            }
            let ctx = need - p.data_descs;
            if p.ctx.is_some() {
                self.last_ctx = p.ctx;
            }
            let tail = (self.head + self.count) % N;
            if let Some(slot) = self.packets.get_mut(tail) {
                *slot = InFlight {
                    id: p.id,
                    descs: need,
                };
            }
            self.count += 1;
            self.used += need;
            report.packets += 1;
            report.descriptors += need;
            report.context_descriptors += ctx;
            if self.free() < self.cfg.stop_threshold() {
                self.stop();
                report.end = BatchEnd::QueueStopped;
                break;
            }
        }
        if report.packets > 0 {
            report.doorbells = 1;
        }
        self.stats.packets += report.packets as u64;
        self.stats.descriptors += report.descriptors as u64;
        self.stats.context_descriptors += report.context_descriptors as u64;
        self.stats.doorbells += report.doorbells as u64;
        Ok(report)
    }

    fn stop(&mut self) {
        if self.queue == QueueState::Running {
            self.queue = QueueState::Stopped;
            self.stats.stops += 1;
        }
    }

    /// Reclaims up to `max_packets` finished packets, oldest first (the
    /// driver's TX completion), calling `done` with each id, and wakes the
    /// queue when it reclaimed something and at least the wake threshold is
    /// free (`__netif_txq_completed_wake`, as ixgbe's `ixgbe_clean_tx_irq`).
    pub fn complete(&mut self, max_packets: usize, mut done: impl FnMut(u64)) -> Completion {
        let mut c = Completion {
            packets: 0,
            descriptors: 0,
            wake: WakeOutcome::WasRunning,
        };
        while c.packets < max_packets && self.count > 0 {
            let p = self.packets.get(self.head).copied().unwrap_or_default();
            self.head = (self.head + 1) % N;
            self.count -= 1;
            self.used = self.used.saturating_sub(p.descs);
            c.packets += 1;
            c.descriptors += p.descs;
            done(p.id);
        }
        if self.queue == QueueState::Stopped {
            if c.packets > 0 && self.free() >= self.cfg.wake {
                self.queue = QueueState::Running;
                self.stats.wakes += 1;
                c.wake = WakeOutcome::Woke;
            } else {
                c.wake = WakeOutcome::StillStopped;
            }
        }
        c
    }
}
