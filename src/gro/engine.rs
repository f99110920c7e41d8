//! The engine: a fixed-capacity flow table and the receive / flush loop
//! (Linux `dev_gro_receive`, `napi_gro_complete`, `napi_gro_flush`).

use super::cb::{Cb, Refusal};
use super::config::{GroConfig, GroKinds, MAX_HEADER, SoftwareVerify, TunnelPolicy};
use super::expect::{Layout, Next, TCP4_SPAN, TCP6_SPAN, VXLAN4_SPAN, mode_after_match};
use super::flow::{self, final_flag, load8};
use super::layout::{
    RAW_TCP4, TCP4, TCP4_HDR, TCP4_ID, TCP4_IP_END, TCP6, TCP6_HDR, TCP6_ID, VXLAN4, VXLAN4_HDR,
    VXLAN4_ID, VXLAN4_IP_END,
};
use super::output::{Disposition, Held, IdMode, Segment, SuperPacket};
use super::parse::{self, Encap, L4, Parsed, be16, be32, byte};
use super::reason::FlushReason;
use crate::csum::{GROUP, Wsum};
use crate::state::{CsumFlags, CsumLevel, CsumMeta, CsumState};
use crate::wire::LinkType;
use crate::wire::consts::ipproto;
use crate::wire::{gre, ipv4, tcp, udp};

mod train;

const NIL: u16 = u16::MAX;
/// Where the low 8 bytes of the source address start in an IPv6 header.
const IPV6_SRC_LOW: usize = crate::wire::ipv6::SRC_OFFSET + 8;

/// Counters of what the engine did (for reports and the replay tool).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, zerocopy::FromZeros)]
pub struct GroStats {
    /// Packets passed to `receive`.
    pub packets: u64,
    /// Packets appended to a held flow.
    pub merged: u64,
    /// Packets that started a held flow.
    pub new_flows: u64,
    /// Packets passed up alone.
    pub passed_up: u64,
    /// Super-packets (including single held packets) flushed.
    pub flushed: u64,
    /// Payload and header bytes summed in software to verify checksums.
    pub sw_bytes: u64,
    /// Device `Complete` sums that disagreed with a good software sum
    /// (`netdev_rx_csum_fault`).
    pub csum_faults: u64,
}

/// How many frames ahead [`Gro::receive_burst`] hints a frame's header to
/// the cache: its page walk must end before the frame is read, so the
/// faster a frame goes through, the further ahead (six against four: TCP 1
/// flow 11% faster once trains took 10-12 ns a frame; one was too late).
/// The burst is a slice so looking ahead costs nothing: taking an iterator
/// meant moving every frame through a ring, 3-14% of the time per packet.
pub(super) const HEADER_AHEAD: usize = 6;

/// How many frames ahead [`Gro::receive_burst`] hints a whole frame whose
/// sum is due (`verify`): two, the second at the burst's start (the first
/// is read at once; a loop over both cost 2 instructions a packet). Against
/// the next frame, `gro_dpdk` TCP `verify` 8 / 64 flows in 10 alternating
/// process pairs: ratio medians 1.68 / 2.02 -> 1.70 / 2.08x. Three ahead
/// was even; the frame's first four lines alone, or its parts hinted
/// between parts of the sum, were slower (`docs/perf/gro-hot-path.md`).
const FRAME_AHEAD: usize = 2;

/// Hints the first two cache lines of `frame` (every fixed-layout header the
/// fast paths read, TCP options included) to the cache.
#[inline(always)]
fn prefetch_header(frame: &[u8]) {
    crate::csum::prefetch_head(frame);
}

/// One frame of a burst for [`Gro::receive_burst`]: what [`Gro::receive`]
/// takes, as a driver reads it from one receive descriptor.
#[derive(Clone, Debug)]
pub struct BurstFrame<'f> {
    /// The frame, from its link header.
    pub frame: &'f [u8],
    /// The caller's packet id.
    pub id: u32,
    /// Its checksum metadata.
    pub meta: CsumMeta,
}

/// A GRO engine with room for `FLOWS` held flows (1..65535). Never allocates.
///
/// Each flow keeps the first packet's header bytes (up to
/// [`MAX_HEADER`](super::MAX_HEADER)), and the id and payload range of every
/// segment: [`Gro::FLOW_BYTES`] = 923 bytes per flow on 64-bit targets
/// (`size_of`, checked by `tests/gro/gro_static.rs`), so 16,384 flows take about
/// 15 MB. A table that large does not fit a thread stack (`Box::new(Gro::new(..))`
/// builds the value on the stack first, and overflows an 8 MB one even
/// optimised). Build it where it stays:
///
/// - in a `static` with the `const fn` [`Gro::new`]:
///   `static GRO: Mutex<Gro<16384>> = Mutex::new(Gro::new(GroConfig::new()));`
///   (built at compile time; the image carries it in its data section);
/// - in zeroed memory: all-zero bytes are a valid `Gro` ([`zerocopy::FromZeros`],
///   proven at compile time), so heap or pool memory is zeroed where it lies
///   and then made an empty engine by [`Gro::reset`], which needs one flow's
///   worth of stack: `let mut g = Gro::<16384>::new_box_zeroed()?; g.reset(cfg);`
///   (zerocopy's `alloc` feature), or for a `&mut MaybeUninit<Gro<N>>` pool
///   slot, zero it with `write_bytes` and `assume_init_mut` (sound because
///   `Gro: FromZeros`), then `reset`;
/// - in memory that already holds a table (a pool slot, a `static` reused
///   for another device), emptied and reconfigured in place by [`Gro::reset`].
///
/// A zeroed engine must be [`reset`](Gro::reset) before use. There is no
/// initialiser taking `&mut MaybeUninit<Gro>` itself: safe Rust fills a
/// `MaybeUninit` only by moving a whole value into it, which passes through
/// the stack, and this crate forbids `unsafe` outside its SIMD kernels.
///
/// # Frames stay alive while held
///
/// The engine tracks held frames by their `u32` id only (it keeps the first
/// packet's header bytes, never payload). The caller keeps every held frame's
/// bytes alive and unchanged until the super-packet holding it has been
/// written ([`SuperPacket::write_into`] reads each segment's payload through
/// its id); a frame whose `receive` returned `PassUp` is the caller's again at
/// once.
#[derive(Debug, zerocopy::FromZeros)]
pub struct Gro<const FLOWS: usize> {
    cfg: GroConfig,
    flows: [SuperPacket; FLOWS],
    used: [bool; FLOWS],
    buckets: [u16; FLOWS],
    free: u16,
    oldest: u16,
    newest: u16,
    held: usize,
    /// The slot the previous frame joined (merged into or started), or `NIL`.
    last: u16,
    stats: GroStats,
    /// `cfg.size_limit()`, computed once (the limits never change after `new`).
    size_limit: u32,
    /// `cfg.seg_limit()`, computed once.
    seg_limit: u16,
    /// The fixed-layout fast paths apply: [`GroConfig::fast_path`] and
    /// Ethernet frames (computed once: one test per frame).
    fast_eth: bool,
    /// The raw-IP TCP/IPv4 fast path applies: [`GroConfig::fast_path`] and
    /// raw IP frames.
    fast_raw: bool,
    /// Within [`Gro::receive_burst`]: the current frame's sum, summed with
    /// its group ([`Self::group_sum`]), if [`Self::presum_set`].
    presum: u32,
    /// Whether [`Self::presum`] holds the current frame's sum.
    presum_set: bool,
    /// Within [`Gro::receive_burst`]: frames to verify are summed in groups.
    grouping: bool,
    /// Within [`Gro::receive_burst`]: the frame [`FRAME_AHEAD`] into the
    /// rest of the burst is hinted whole ([`Self::hint_frame`]) only when
    /// that rest is at most this long: past the burst's last whole group
    /// while grouping (such frames are summed alone), else always.
    whole_hint_rest: usize,
    /// Merges accepted by the prediction alone (tests check that the
    /// shortcut is taken).
    #[cfg(test)]
    pub(crate) predicted: u64,
    /// Frames the fast paths found good by their group's sum (tests check
    /// that the groups are used, and right).
    #[cfg(test)]
    pub(crate) presummed: u64,
    /// Frames hinted whole by [`Self::hint_frame`] (tests check which).
    #[cfg(test)]
    pub(crate) hinted_whole: core::cell::Cell<u64>,
    /// Hints given to frames of the next burst
    /// ([`Gro::receive_burst_with_next`]): headers and group leads.
    #[cfg(test)]
    pub(crate) hinted_next: core::cell::Cell<u64>,
    /// Of those, merges into the guessed flow ([`Gro::guessed`]).
    #[cfg(test)]
    pub(crate) guessed: u64,
    /// Of those, merges by a train ([`Gro::train`]).
    #[cfg(test)]
    pub(crate) trained: u64,
}

impl GroStats {
    /// All counters zero (`Default`, usable in `const` context).
    pub const ZERO: GroStats = GroStats {
        packets: 0,
        merged: 0,
        new_flows: 0,
        passed_up: 0,
        flushed: 0,
        sw_bytes: 0,
        csum_faults: 0,
    };
}

impl<const FLOWS: usize> Gro<FLOWS> {
    const CHECK: () = assert!(FLOWS > 0 && FLOWS < NIL as usize, "FLOWS must be 1..65535");

    /// Bytes each flow slot adds to `size_of::<Gro<FLOWS>>()`: the flow
    /// (header bytes, segment list, merge state), its in-use flag and its
    /// hash bucket.
    pub const FLOW_BYTES: usize = size_of::<SuperPacket>() + size_of::<bool>() + size_of::<u16>();

    /// An empty engine with `cfg`; `const`, so a table can live in a `static`
    /// (built at compile time, nothing runs at start-up).
    pub const fn new(cfg: GroConfig) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CHECK;
        let mut g = Gro {
            cfg,
            flows: [const { SuperPacket::EMPTY }; FLOWS],
            used: [false; FLOWS],
            buckets: [NIL; FLOWS],
            free: 0,
            oldest: NIL,
            newest: NIL,
            held: 0,
            last: NIL,
            stats: GroStats::ZERO,
            size_limit: cfg.size_limit(),
            seg_limit: cfg.seg_limit(),
            fast_eth: Self::fast_eth(&cfg),
            fast_raw: cfg.fast_path && matches!(cfg.link, LinkType::RawIp),
            presum: 0,
            presum_set: false,
            grouping: false,
            whole_hint_rest: usize::MAX,
            #[cfg(test)]
            predicted: 0,
            #[cfg(test)]
            presummed: 0,
            #[cfg(test)]
            hinted_whole: core::cell::Cell::new(0),
            #[cfg(test)]
            hinted_next: core::cell::Cell::new(0),
            #[cfg(test)]
            guessed: 0,
            #[cfg(test)]
            trained: 0,
        };
        // Free list threaded through `next` (`while`: `for` is not `const`).
        let mut i = 0;
        while i < FLOWS {
            g.flows[i].next = if i + 1 < FLOWS { (i + 1) as u16 } else { NIL };
            i += 1;
        }
        g
    }

    /// Empties the table in place and sets `cfg`, as a fresh [`Gro::new`]
    /// would, one flow slot at a time (the stack holds at most one slot).
    /// Held flows are dropped, not flushed: call [`Gro::flush_all`] first to
    /// keep them. Counters restart at zero.
    pub fn reset(&mut self, cfg: GroConfig) {
        for (next, f) in (1..).zip(self.flows.iter_mut()) {
            *f = SuperPacket::EMPTY;
            f.next = if next < FLOWS { next as u16 } else { NIL };
        }
        self.used.fill(false);
        self.buckets.fill(NIL);
        self.free = 0;
        self.oldest = NIL;
        self.newest = NIL;
        self.held = 0;
        self.last = NIL;
        self.stats = GroStats::ZERO;
        self.cfg = cfg;
        self.size_limit = cfg.size_limit();
        self.seg_limit = cfg.seg_limit();
        self.fast_eth = Self::fast_eth(&cfg);
        self.fast_raw = cfg.fast_path && matches!(cfg.link, LinkType::RawIp);
        self.presum_set = false;
        self.grouping = false;
        self.whole_hint_rest = usize::MAX;
        #[cfg(test)]
        {
            self.presummed = 0;
            self.hinted_whole.set(0);
            self.hinted_next.set(0);
            self.predicted = 0;
            self.guessed = 0;
            self.trained = 0;
        }
    }

    /// The configuration.
    pub fn config(&self) -> &GroConfig {
        &self.cfg
    }

    /// Counters so far. `packets` is the sum of the three outcomes (every
    /// packet is merged, starts a flow, or passes up), not counted apart.
    pub fn stats(&self) -> GroStats {
        GroStats {
            packets: self.stats.merged + self.stats.new_flows + self.stats.passed_up,
            ..self.stats
        }
    }

    /// Hints that `frame`, with `meta`, is the next frame the caller passes
    /// to [`Gro::receive`] (call it before receiving the current one): its
    /// bytes start moving toward the cache while the current frame is
    /// processed, when its checksum will be summed in software (`meta`
    /// vouches for nothing); otherwise nothing is done.
    /// Why: a software sum of a frame from L3 or memory is bound by the
    /// transfer, which the engine cannot start for a frame it has not seen
    /// yet (drivers prefetch the next descriptor's data the same way, Linux
    /// `net_prefetch`). Only a hint: nothing is read, nothing changes.
    /// (Hinting only the header one frame ahead made the DPDK-stream replay
    /// slower, too late to hide the miss; [`Gro::receive_burst`] hints
    /// headers six frames ahead itself: `docs/perf/gro-hot-path.md`.)
    #[inline(always)]
    pub fn prefetch(&self, frame: &[u8], meta: &CsumMeta) {
        if matches!(meta.state(), CsumState::None) && self.cfg.software_verify == SoftwareVerify::On
        {
            crate::csum::prefetch(frame);
        }
    }

    /// Number of held flows.
    pub fn held_flows(&self) -> usize {
        self.held
    }

    /// Switches GRO kinds on or off at run time; held flows are flushed first
    /// (with [`FlushReason::ConfigChange`]) so nothing stays held under a rule
    /// that no longer applies.
    pub fn set_kinds<S: FnMut(&SuperPacket)>(&mut self, kinds: GroKinds, sink: &mut S) {
        self.flush_all_with(FlushReason::ConfigChange, sink);
        self.cfg.kinds = kinds;
    }

    /// Changes the tunnel checksum policy (held flows are kept).
    pub fn set_tunnel_policy(&mut self, policy: TunnelPolicy) {
        self.cfg.tunnel_policy = policy;
    }

    /// Flushes every held flow, oldest first (`napi_gro_flush` at the end of a
    /// poll), with [`FlushReason::PollEnd`].
    pub fn flush_all<S: FnMut(&SuperPacket)>(&mut self, sink: &mut S) {
        self.flush_all_with(FlushReason::PollEnd, sink);
    }

    /// Flushes every held flow oldest first, as repeated [`Self::flush_slot`]
    /// on the oldest would, but without unlinking each flow from its bucket
    /// chain and the age list one by one: every chain and the age list end up
    /// empty anyway, and the sink cannot look at the table in between. The
    /// free list gets the slots in the same order.
    fn flush_all_with<S: FnMut(&SuperPacket)>(&mut self, reason: FlushReason, sink: &mut S) {
        let mut i = self.oldest;
        while let Some(s) = self.flows.get_mut(i as usize) {
            let newer = s.newer;
            if let Some(b) = self.buckets.get_mut(Self::bucket(s.hash)) {
                *b = NIL;
            }
            s.reason = reason;
            s.finalize();
            sink(s);
            s.exp.clear();
            s.next = self.free;
            self.free = i;
            if let Some(u) = self.used.get_mut(i as usize) {
                *u = false;
            }
            i = newer;
        }
        // Every held flow is on the age list: all of them left.
        self.stats.flushed += self.held as u64;
        self.held = 0;
        self.oldest = NIL;
        self.newest = NIL;
    }

    /// Flushes flows held for at least `flush_age_ticks` ticks before `now`
    /// (`napi_gro_flush(napi, true)`), with [`FlushReason::Aged`].
    pub fn tick<S: FnMut(&SuperPacket)>(&mut self, now: u64, sink: &mut S) {
        let age = self.cfg.flush_age_ticks;
        if age == 0 {
            return;
        }
        while self.oldest != NIL {
            let slot = self.oldest;
            let born = self.flows.get(slot as usize).map_or(now, |f| f.born);
            if now.saturating_sub(born) < age {
                break;
            }
            self.flush_slot(slot, FlushReason::Aged, sink);
        }
    }

    /// Offers one received frame with its packet id and checksum metadata.
    ///
    /// `frame` starts with the link header of [`GroConfig::link`]. A
    /// `Complete` sum in `meta` covers the bytes from the outermost IP header
    /// to the end of the frame (Ethernet padding included; it is trimmed here);
    /// a `Partial` start is an offset from the start of `frame`.
    ///
    /// Super-packets flushed by this call (the packet's own flow when it cannot
    /// merge, the oldest flow when the table is full, or the flow this packet
    /// completed) go to `sink` before this returns; a `PassUp` disposition is for
    /// delivery after them, so one flow's packets never leave out of order.
    pub fn receive<S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: CsumMeta,
        now: u64,
        sink: &mut S,
    ) -> Disposition {
        // A burst's group sum is for its own frames only (one a panicking
        // sink left behind included).
        self.presum_set = false;
        self.receive_inline(frame, id, &meta, now, sink)
    }

    /// Offers a burst of frames in order (a driver's array of receive
    /// descriptors), each as [`Gro::receive`] would, and gives `each` every
    /// frame's id and disposition.
    /// Why: the shape of DPDK's `rte_gro_reassemble_burst`; seeing the burst,
    /// the engine hints frames to the cache before it reads them, which a
    /// one-frame call cannot do: the header of the frame six places ahead,
    /// and the frame two places ahead whole when its checksum will be
    /// summed ([`Gro::prefetch`]). Headers of frames one per page, cold in
    /// the cache, were most of the time per packet otherwise
    /// (`docs/perf/gro-hot-path.md`). It also merges a train (frames that
    /// continue the flow that came next the last time: one flow's segments
    /// back to back, or a round robin of flows) by the prediction alone.
    /// [`Gro::receive_burst_with_next`] hints the next burst as well.
    pub fn receive_burst<S, E>(&mut self, burst: &[BurstFrame<'_>], now: u64, sink: &mut S, each: E)
    where
        S: FnMut(&SuperPacket),
        E: FnMut(u32, Disposition),
    {
        self.receive_burst_with_next(burst, &[], now, sink, each);
    }

    /// [`Gro::receive_burst`] of `burst`, hinting to the cache, while it
    /// works on its last frames, the start of `next`: the burst the caller
    /// will offer next (polled already). Nothing of `next` but its frames'
    /// checksum states is read; a `next` that differs from the burst
    /// offered later costs only the hints.
    /// Why: a poll loop that has its next burst's descriptors can overlap
    /// their transfer with this burst's work, as drivers prefetch the next
    /// descriptor's data: otherwise the first headers, and with software
    /// verify the first group of frames, of every burst arrive cold
    /// (`docs/perf/gro-hot-path.md`, session 24).
    pub fn receive_burst_with_next<S, E>(
        &mut self,
        burst: &[BurstFrame<'_>],
        next: &[BurstFrame<'_>],
        now: u64,
        sink: &mut S,
        mut each: E,
    ) where
        S: FnMut(&SuperPacket),
        E: FnMut(u32, Disposition),
    {
        self.grouping = burst.len() >= GROUP
            && self.cfg.software_verify == SoftwareVerify::On
            && crate::csum::has_group_kernel();
        if self.grouping {
            self.whole_hint_rest = burst.len() % GROUP + FRAME_AHEAD;
        }
        for f in burst.iter().take(HEADER_AHEAD) {
            prefetch_header(f.frame);
        }
        // The one frame before `FRAME_AHEAD` that no window hints (the first
        // is read at once; `windowed` holds `FRAME_AHEAD` at 2).
        if let Some(f) = burst.get(FRAME_AHEAD - 1) {
            self.hint_frame(f, burst.len() + 1);
        }
        let mut group = Group::NONE;
        let mut i = 0;
        while let Some(f) = self.hinted(burst, next, i) {
            if matches!(f.meta.state(), CsumState::None) && self.grouping {
                self.group_sum(burst, next, i, &mut group);
            }
            i += 1;
            match self.fast_guessed(f.frame, f.id, &f.meta, sink) {
                Some((d, train)) => {
                    each(f.id, d);
                    i = if train {
                        self.train::<false, S, E>(burst, next, i, sink, &mut each)
                    } else {
                        self.train::<true, S, E>(burst, next, i, sink, &mut each)
                    };
                }
                None => each(
                    f.id,
                    self.receive_unguessed(f.frame, f.id, &f.meta, now, sink),
                ),
            }
        }
        self.presum_set = false;
        self.grouping = false;
        self.whole_hint_rest = usize::MAX;
    }

    /// `burst[i]`, after the hints [`Self::receive_burst`] gives before it
    /// reads it: the header [`HEADER_AHEAD`] frames on (in `next` past the
    /// burst's end), the frame [`FRAME_AHEAD`] on whole when its sum is due.
    #[inline(always)]
    fn hinted<'b, 'f>(
        &self,
        burst: &'b [BurstFrame<'f>],
        next: &[BurstFrame<'_>],
        i: usize,
    ) -> Option<&'b BurstFrame<'f>> {
        let rest = burst.get(i..)?;
        if let Some(f) = self.windowed(rest) {
            return Some(f);
        }
        let first = rest.first()?;
        // Past the window, the frame `HEADER_AHEAD` on is in `next` if any.
        if let Some(later) = in_sequence(burst, next, i + HEADER_AHEAD) {
            prefetch_header(later.frame);
            #[cfg(test)]
            self.hinted_next.set(self.hinted_next.get() + 1);
        }
        if let Some(ahead) = rest.get(FRAME_AHEAD) {
            self.hint_frame(ahead, rest.len());
        }
        Some(first)
    }

    /// The first frame of `rest` when [`HEADER_AHEAD`] more follow it, after
    /// its hints. Matched as a window, one length test covers the frame and
    /// both hints (three tests apart cost 4 instructions a frame).
    #[inline(always)]
    fn windowed<'b, 'f>(&self, rest: &'b [BurstFrame<'f>]) -> Option<&'b BurstFrame<'f>> {
        const _: () = assert!(HEADER_AHEAD == 6 && FRAME_AHEAD == 2);
        let [f, _, ahead, _, _, _, later, ..] = rest else {
            return None;
        };
        prefetch_header(later.frame);
        self.hint_frame(ahead, rest.len());
        Some(f)
    }

    /// [`Gro::prefetch`] of `f`, the frame [`FRAME_AHEAD`] into `rest_len`
    /// frames of the burst (the current one first), unless its sum comes
    /// with its group's ([`Self::whole_hint_rest`]).
    #[inline(always)]
    fn hint_frame(&self, f: &BurstFrame<'_>, rest_len: usize) {
        if matches!(f.meta.state(), CsumState::None) && rest_len <= self.whole_hint_rest {
            self.prefetch(f.frame, &f.meta);
            #[cfg(test)]
            self.hinted_whole.set(self.hinted_whole.get() + 1);
        }
    }

    /// Sets [`Self::presum`] for `burst[i]`, a frame to verify, before it is
    /// received: from `group`, or from a new group of the [`GROUP`] frames
    /// from `burst[i]` on when `burst[i]` is past `group` and all of them are
    /// to be verified (`CsumState::None`). Otherwise none: the frame is
    /// summed alone. (Only such a frame reads the sum: other frames leave a
    /// sum set for an earlier frame unread.) It also hints the lead
    /// ([`crate::csum::prefetch_lead`]) of the frame a group later (in
    /// `next` past the burst's end), so the next group's transfer runs while
    /// the engine works on this one.
    /// Why: frames summed side by side arrive from L3 faster than one after
    /// another, and a group's work then hides behind the next group's
    /// transfer (`docs/perf/gro-hot-path.md`, sessions 22 and 23).
    #[inline(always)]
    fn group_sum(
        &mut self,
        burst: &[BurstFrame<'_>],
        next: &[BurstFrame<'_>],
        i: usize,
        group: &mut Group,
    ) {
        if !group.covers(i) {
            let frames = burst.get(i..).and_then(|r| r.first_chunk::<GROUP>());
            if let Some(frames) = frames
                && frames
                    .iter()
                    .all(|f| matches!(f.meta.state(), CsumState::None))
                && let Some(sums) = crate::csum::grouped(&frames.each_ref().map(|f| f.frame))
            {
                *group = Group { from: i, sums };
            }
        }
        let k = i.checked_sub(group.from).filter(|&k| k < GROUP);
        let at = k.map(|k| group.from + GROUP + k);
        if let Some(later) = at.and_then(|at| in_sequence(burst, next, at))
            && matches!(later.meta.state(), CsumState::None)
        {
            crate::csum::prefetch_lead(later.frame);
            #[cfg(test)]
            if at.is_some_and(|at| at >= burst.len()) {
                self.hinted_next.set(self.hinted_next.get() + 1);
            }
        }
        let sum = k.and_then(|k| group.sums.get(k));
        self.presum_set = sum.is_some();
        self.presum = sum.map_or(0, |s| s.get());
    }

    /// The body of [`Self::receive`]. Kept apart, `#[inline(always)]`: with
    /// this split LLVM inlines `receive` into the caller's poll loop, which
    /// drops the call, the register saves and the disposition's trip through
    /// memory (about 45 instructions of 280 per segment, callgrind).
    #[inline(always)]
    fn receive_inline<S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: &CsumMeta,
        now: u64,
        sink: &mut S,
    ) -> Disposition {
        if let Some((v, _)) = self.fast_guessed(frame, id, meta, sink) {
            return v;
        }
        self.receive_unguessed(frame, id, meta, now, sink)
    }

    /// [`Self::receive_inline`] after [`Self::fast_guessed`] left the frame.
    #[inline(always)]
    fn receive_unguessed<S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: &CsumMeta,
        now: u64,
        sink: &mut S,
    ) -> Disposition {
        if self.fast_eth {
            let v = if self.cfg.kinds.contains(GroKinds::TCP4) {
                self.fast_tcp4::<false, S>(frame, id, meta, now, sink)
            } else {
                None
            };
            let v = match v {
                None if self.cfg.kinds.contains(GroKinds::TUNNEL) => {
                    self.fast_vxlan4(frame, id, meta, now, sink)
                }
                v => v,
            };
            if let Some(v) = v {
                return v;
            }
        }
        if (self.fast_raw || self.fast_eth)
            && let Some(v) = self.fast_other(frame, id, meta, now, sink)
        {
            return v;
        }
        self.receive_general(frame, id, meta.clone(), now, sink)
    }

    /// A vouched frame that is the predicted next segment of the guessed flow
    /// ([`Self::guess`]), merged by that flow's layout's compare before any
    /// other test: the compare covers every byte the fast paths' lead checks
    /// read, so a train of one flow's segments (or a round robin of flows)
    /// skips the lead checks of the paths tried before its own. Frames the
    /// software verifies take their path, which sums before it guesses.
    /// With the disposition, whether the frame continued the previous
    /// frame's own flow (which picks the kind of [`Self::train`] that
    /// follows). `None` with nothing changed otherwise.
    #[inline(always)]
    fn fast_guessed<S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: &CsumMeta,
        sink: &mut S,
    ) -> Option<(Disposition, bool)> {
        if !vouched(meta) {
            return None;
        }
        let (slot, s) = self.guess()?;
        let train = slot == self.last;
        if frame.len() != s.exp.len() as usize {
            return None;
        }
        let same8 = |at: usize| load8(&s.hdr, at) == load8(frame, at);
        let hit = (slot, s.p.payload as usize);
        let n = frame.len();
        // The device vouched: the TCP layouts need no other state test.
        // One merge call per layout: with the layout a run-time value, LLVM
        // kept it in a register and tested it again in the commit. Each test
        // costs the layouts after it: raw IP last (an engine of raw frames
        // holds no other layout).
        if s.tcp4 {
            let ok = same8(TCP4.ip[0] + ipv4::SRC_OFFSET) && is_next_tcp4::<false>(s, frame);
            return ok.then(|| (self.merge_guessed(hit, n, id, Layout::Tcp4, sink), train));
        }
        if s.vx4 {
            let ok = self.vxlan_covered(meta, frame)?
                && same8(VXLAN4.ip[1] + ipv4::SRC_OFFSET)
                && is_next_vxlan4(s, frame);
            return ok.then(|| (self.merge_guessed(hit, n, id, Layout::Vxlan4, sink), train));
        }
        if s.tcp6 {
            let ok = same8(TCP6.ip[0] + IPV6_SRC_LOW) && is_next_tcp6(s, frame);
            return ok.then(|| (self.merge_guessed(hit, n, id, Layout::Tcp6, sink), train));
        }
        if s.raw4 {
            let ok = same8(RAW_TCP4.ip[0] + ipv4::SRC_OFFSET) && is_next_tcp4::<true>(s, frame);
            return ok.then(|| (self.merge_guessed(hit, n, id, Layout::RawTcp4, sink), train));
        }
        None
    }

    /// Whether the device vouched for a fast-path TCP frame (`Some(true)`),
    /// the engine verifies it in software (`Some(false)`), or the fast paths
    /// leave it to the general path (`None`).
    #[inline(always)]
    fn tcp_covered(&self, meta: &CsumMeta) -> Option<bool> {
        match meta.state() {
            CsumState::Unnecessary { .. } => Some(true),
            CsumState::None if self.cfg.software_verify == SoftwareVerify::On => Some(false),
            _ => None,
        }
    }

    /// [`Self::tcp_covered`] for a fixed-layout VXLAN frame: a vouched level
    /// must cover both layers; software verifies the inner TCP checksum only
    /// under the current-kernel policy and with a zero outer UDP checksum.
    #[inline(always)]
    fn vxlan_covered(&self, meta: &CsumMeta, frame: &[u8]) -> Option<bool> {
        match meta.state() {
            CsumState::Unnecessary { level } if level.covered() >= 2 => Some(true),
            CsumState::None
                if self.cfg.software_verify == SoftwareVerify::On
                    && self.cfg.tunnel_policy == TunnelPolicy::Compute
                    && be16(frame, VXLAN4.udp + udp::CHECKSUM_OFFSET)? == 0 =>
            {
                Some(false)
            }
            _ => None,
        }
    }

    /// The raw-IP TCP/IPv4 and the TCP/IPv6 fast paths, inlined after the
    /// Ethernet IPv4 ones: at the start of [`Self::receive_general`] (or in
    /// a function of their own) they paid a call, register saves and the
    /// disposition's trip through memory on every frame, 1.2-1.4x the Ethernet
    /// IPv4 time on the DPDK streams; inlined, 0.9-1.15x, for 2-3% more
    /// Ethernet IPv4 time (`docs/perf/gro-hot-path.md`).
    #[inline(always)]
    fn fast_other<S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: &CsumMeta,
        now: u64,
        sink: &mut S,
    ) -> Option<Disposition> {
        if self.fast_raw && self.cfg.kinds.contains(GroKinds::TCP4) {
            return self.fast_tcp4::<true, S>(frame, id, meta, now, sink);
        }
        if self.fast_eth && self.cfg.kinds.contains(GroKinds::TCP6) {
            return self.fast_tcp6(frame, id, meta, now, sink);
        }
        None
    }

    /// Why a packet that joins no held flow goes up alone instead of starting
    /// one (`tcp_gro_receive`: no payload, a final flag, or room for one
    /// segment only), or `None`: it starts a flow. The fast paths leave such a
    /// packet to the general path, which names the reason.
    #[inline(always)]
    fn alone(&self, len: u32, flags: u8) -> Option<FlushReason> {
        if len == 0 {
            return Some(FlushReason::PureAck);
        }
        if let Some(r) = final_flag(flags) {
            return Some(r);
        }
        (self.seg_limit <= 1).then_some(FlushReason::TooManySegs)
    }

    /// Everything the fast paths leave: the general walk and rules (kept out
    /// of line so the fast paths stay small).
    #[inline(never)]
    fn receive_general<S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: CsumMeta,
        now: u64,
        sink: &mut S,
    ) -> Disposition {
        let eth = self.cfg.link == LinkType::Ethernet;
        let mut fast = None;
        if eth && self.cfg.kinds.contains(GroKinds::TCP4) {
            fast = parse::fast_tcp4(frame);
        }
        if fast.is_none() && eth && self.cfg.kinds.contains(GroKinds::TUNNEL) {
            fast = parse::fast_vxlan4(frame);
        }
        let parsed = match fast {
            Some(p) => Ok(parse::Outcome { p, defect: None }),
            None => parse::parse(frame, self.cfg.link, self.cfg.kinds),
        };
        let out = match parsed {
            Ok(o) => o,
            Err(FlushReason::Fragment) => {
                // A later fragment has no ports: flush every held flow between
                // the same outer addresses so none of them is overtaken.
                self.flush_fragment_peers(frame, sink);
                return self.pass(FlushReason::Fragment, meta);
            }
            Err(reason) => return self.pass(reason, meta),
        };
        let p = out.p;
        let hash = flow::hash(frame, &p);
        if let Some(reason) = out.defect {
            self.flush_flow(hash, frame, &p, reason, sink);
            return self.pass(reason, meta);
        }
        // Checksums, outermost first (before any flow work, as Linux). Plain
        // TCP with `Unnecessary` needs no control block: the one checksum is
        // covered, nothing is summed, and the state needs no upgrade.
        let verified = if p.encap == Encap::None
            && p.l4kind == L4::Tcp
            && matches!(meta.state(), CsumState::Unnecessary { .. })
        {
            1
        } else {
            let mut cb = Cb::new(&meta, frame, p.ips[0].off as usize, p.end as usize);
            let checked = self.check_csums(frame, &p, &mut cb);
            self.stats.sw_bytes += cb.sw_bytes as u64;
            if cb.fault {
                self.stats.csum_faults += 1;
            }
            if let Err(reason) = checked {
                self.flush_flow(hash, frame, &p, reason, sink);
                return self.pass(reason, meta);
            }
            cb.verified
        };
        let flags = match p.l4kind {
            L4::Tcp => byte(frame, p.l4 as usize + tcp::FLAGS_OFFSET).unwrap_or(0),
            L4::Udp => 0,
        };
        let len = p.payload_len();
        if let Some(slot) = self.lookup(hash, frame, &p) {
            let s = &self.flows[slot as usize];
            let fast = if self.fast_on() {
                flow::can_merge_tcp4_fast(s, frame, &p)
            } else {
                None
            };
            let merge = match fast {
                Some(plan) => Ok(plan),
                None => flow::can_merge(s, frame, &p),
            };
            match merge {
                Ok(plan) => {
                    self.commit_merge(slot, id, p.payload, len, plan, flags, sink);
                    return Disposition::Held(Held::Merged);
                }
                Err(reason) => self.flush_slot(slot, reason, sink),
            }
        }
        // A new flow, unless this packet must go up alone.
        if let Some(r) = self.alone(len, flags) {
            return self.pass(r, self.upgraded(meta, verified));
        }
        let meta = self.upgraded(meta, verified);
        let first = (meta.state(), meta.flags());
        // With the fast paths off no flow is marked fixed-layout, so none of
        // the fixed-offset code runs.
        let layout = if !self.fast_on() {
            None
        } else if flow::is_tcp4_layout(&p) {
            Some(Layout::Tcp4)
        } else if flow::is_vxlan4_layout(&p) {
            Some(Layout::Vxlan4)
        } else if flow::is_raw_tcp4_layout(&p) {
            Some(Layout::RawTcp4)
        } else if flow::is_tcp6_layout(&p) {
            Some(Layout::Tcp6)
        } else {
            None
        };
        self.insert(hash, frame, &p, layout, id, first, now, sink);
        self.stats.new_flows += 1;
        Disposition::Held(Held::NewFlow)
    }

    /// The common frame (Ethernet + IPv4 without options + TCP, see
    /// [`parse::fast_tcp4_payload`]) with `Unnecessary` or `None` in one pass of
    /// fixed-offset loads: a merge into its held flow or a new flow. Returns
    /// `None` with nothing changed whenever the outcome is anything else (a
    /// flush reason, a bad checksum, a pure ACK, a final flag), so the
    /// general path decides those and names the reason: the verdicts and
    /// descriptors are the general path's. `RAW`: the same for raw IP frames
    /// (IPv4 at 0, an L3 TUN's), [`RAW_TCP4`] instead of [`TCP4`].
    #[inline(always)]
    fn fast_tcp4<const RAW: bool, S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: &CsumMeta,
        now: u64,
        sink: &mut S,
    ) -> Option<Disposition> {
        let (l, layout) = if RAW {
            (RAW_TCP4, Layout::RawTcp4)
        } else {
            (TCP4, Layout::Tcp4)
        };
        let h: &[u8; TCP4_HDR] = frame.get(..TCP4_HDR)?.try_into().ok()?;
        // IPv4 without options carrying TCP, or not this path (a tunnel frame
        // goes on to the VXLAN path without hashing and walking here).
        let lead = if RAW {
            parse::is_raw_tcp4_lead(h)
        } else {
            parse::is_tcp4_lead(h)
        };
        if !lead {
            return None;
        }
        let covered = self.tcp_covered(meta)?;
        // The software check first: its loads of the whole frame are then in
        // flight while the lookup and compare run (a bad sum goes to the
        // general path, which names it).
        let sum = if covered {
            0
        } else {
            self.sum_ok(frame, tcp4_at(l.ip[0]))?
        };
        // The predicted next segment of a held flow (the guessed flow's, else
        // one with this hash): merges with no other test. A vouched frame
        // met the guess in `fast_guessed` already. Two separate tries: as
        // one expression LLVM hashed before guessing.
        if !covered && let Some(hit) = self.predicted_tcp4::<RAW>(None, frame) {
            return Some(self.merge_predicted(hit, frame.len(), sum, id, layout, true, sink));
        }
        let hash = flow::hash_tcp4_at(l, frame);
        if let Some(hit) = self.predicted_tcp4::<RAW>(Some(hash), frame) {
            return Some(self.merge_predicted(hit, frame.len(), sum, id, layout, false, sink));
        }
        let payload = parse::fast_tcp4_after_lead_at(l, h, frame)?;
        let end = frame.len();
        let len = (end - payload) as u32;
        let sw_bytes = sum;
        let flags = byte(frame, l.flags())?;
        if let Some(slot) = self.lookup_tcp4::<RAW>(hash, frame) {
            let s = self.flows.get(slot as usize)?;
            let marked = if RAW { s.raw4 } else { s.tcp4 };
            let plan = flow::merge_tcp4_at(l, marked, s, frame, payload, len)?;
            // The merge test compared every header word but these.
            let h: &[u8; TCP4_IP_END] = frame.get(..TCP4_IP_END)?.try_into().ok()?;
            if !flow::ip4_sum_follows(&s.hdr, h, l.ip[0]) {
                return None;
            }
            self.stats.sw_bytes += sw_bytes;
            self.commit_merge(slot, id, payload as u16, len, plan, flags, sink);
            return Some(Disposition::Held(Held::Merged));
        }
        if self.alone(len, flags).is_some() {
            return None;
        }
        let ip = l.ip[0];
        if !parse::ipv4_header_ok(frame.get(ip..ip + ipv4::MIN_HEADER_LEN)?) {
            return None;
        }
        self.stats.sw_bytes += sw_bytes;
        let verified = 1;
        let first = (upgraded_state(meta, verified), meta.flags());
        let p = parse::tcp4_parsed_at(l, payload, end);
        self.insert(hash, frame, &p, Some(layout), id, first, now, sink);
        self.stats.new_flows += 1;
        Some(Disposition::Held(Held::NewFlow))
    }

    /// Ethernet / IPv6 without extension headers / TCP with `Unnecessary` or
    /// `None`, like [`Self::fast_tcp4`]: a merge (predicted, or by the
    /// fixed-offset rules) or a new flow. A new flow takes the general path
    /// while any held flow of another layout has its hash: that flow may be
    /// this one's identity with extension headers, which the fixed lookup
    /// does not see and the general one flushes first.
    #[inline(always)]
    fn fast_tcp6<S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: &CsumMeta,
        now: u64,
        sink: &mut S,
    ) -> Option<Disposition> {
        let l = TCP6;
        let h: &[u8; TCP6_HDR] = frame.get(..TCP6_HDR)?.try_into().ok()?;
        if !parse::is_tcp6_lead(h) {
            return None;
        }
        let covered = self.tcp_covered(meta)?;
        // The software check first, as on the TCP/IPv4 path: the frame's loads
        // are in flight during the lookup and compare.
        let sum = if covered {
            0
        } else {
            self.sum_ok(frame, TCP6_AT)?
        };
        let layout = Layout::Tcp6;
        if !covered && let Some(hit) = self.predicted_tcp6(None, frame) {
            return Some(self.merge_predicted(hit, frame.len(), sum, id, layout, true, sink));
        }
        let hash = flow::hash_tcp6(frame);
        if let Some(hit) = self.predicted_tcp6(Some(hash), frame) {
            return Some(self.merge_predicted(hit, frame.len(), sum, id, layout, false, sink));
        }
        let payload = parse::fast_tcp6_after_lead(h, frame)?;
        let len = (frame.len() - payload) as u32;
        let flags = byte(frame, l.flags())?;
        if let Some(slot) = self.lookup_tcp6(hash, frame) {
            let s = self.flows.get(slot as usize)?;
            let plan = flow::merge_tcp6_fixed(s, frame, payload, len)?;
            self.stats.sw_bytes += sum;
            self.commit_merge(slot, id, payload as u16, len, plan, flags, sink);
            return Some(Disposition::Held(Held::Merged));
        }
        if self.alone(len, flags).is_some() {
            return None;
        }
        if self.find(hash, |s| !s.tcp6).is_some() {
            return None;
        }
        self.stats.sw_bytes += sum;
        let first = (upgraded_state(meta, 1), meta.flags());
        let p = parse::tcp6_parsed(payload, frame.len());
        self.insert(hash, frame, &p, Some(Layout::Tcp6), id, first, now, sink);
        self.stats.new_flows += 1;
        Some(Disposition::Held(Held::NewFlow))
    }

    /// [`Self::predicted_tcp4`] for a fixed-layout TCP/IPv6 frame.
    #[inline(always)]
    fn predicted_tcp6(&self, hash: Option<u32>, f: &[u8]) -> Option<(u16, usize)> {
        // The low 8 bytes of the source address as the guess's check.
        let addrs = TCP6.ip[0] + IPV6_SRC_LOW;
        self.predicted(
            f,
            addrs,
            hash,
            #[inline(always)]
            |s| s.tcp6 && is_next_tcp6(s, f),
        )
    }

    /// The flow of a fixed-layout TCP/IPv6 frame among the flows of that
    /// layout (the only candidates while no other flow of its identity is
    /// held, which the general path's inserts keep true).
    #[inline(always)]
    fn lookup_tcp6(&self, hash: u32, f: &[u8]) -> Option<u16> {
        let b: &[u8; TCP6_ID] = f.get(..TCP6_ID)?.try_into().ok()?;
        Some(self.find(hash, |s| s.tcp6 && flow::same_tcp6(&s.hdr, b))?.0)
    }

    /// The common tunnel frame (Ethernet / IPv4 / UDP 4789 / VXLAN / Ethernet /
    /// IPv4 / TCP, see [`parse::fast_vxlan4`]) in one pass, like
    /// [`Self::fast_tcp4`]: `Unnecessary` covering both layers, or `None` with
    /// a zero outer UDP checksum and the current-kernel policy (the inner TCP
    /// checksum verified in software). Everything else: `None`, nothing changed.
    #[inline(always)]
    fn fast_vxlan4<S: FnMut(&SuperPacket)>(
        &mut self,
        frame: &[u8],
        id: u32,
        meta: &CsumMeta,
        now: u64,
        sink: &mut S,
    ) -> Option<Disposition> {
        if frame.len() < VXLAN4_HDR {
            return None;
        }
        let covered = self.vxlan_covered(meta, frame)?;
        // The software check first, as in `fast_tcp4`.
        let sw_bytes = if covered {
            0
        } else {
            self.sum_ok(frame, tcp4_at(VXLAN4.ip[1]))?
        };
        let (layout, sum) = (Layout::Vxlan4, sw_bytes);
        if !covered && let Some(hit) = self.predicted_vxlan4(None, frame) {
            return Some(self.merge_predicted(hit, frame.len(), sum, id, layout, true, sink));
        }
        let hash = flow::hash_vxlan4(frame);
        if let Some(hit) = self.predicted_vxlan4(Some(hash), frame) {
            return Some(self.merge_predicted(hit, frame.len(), sum, id, layout, false, sink));
        }
        let p = parse::fast_vxlan4_unchecked(frame)?;
        let len = p.payload_len();
        let verified = 2;
        let flags = byte(frame, VXLAN4.flags())?;
        if let Some(slot) = self.lookup_vxlan4(hash, frame) {
            let s = self.flows.get(slot as usize)?;
            let plan = flow::merge_vxlan4_fixed(s, frame, &p)?;
            let h: &[u8; VXLAN4_IP_END] = frame.get(..VXLAN4_IP_END)?.try_into().ok()?;
            let [outer, inner] = VXLAN4.ip;
            if !(flow::ip4_sum_follows(&s.hdr, h, outer) && flow::ip4_sum_follows(&s.hdr, h, inner))
            {
                return None;
            }
            self.stats.sw_bytes += sw_bytes;
            self.commit_merge(slot, id, p.payload, len, plan, flags, sink);
            return Some(Disposition::Held(Held::Merged));
        }
        if self.alone(len, flags).is_some() {
            return None;
        }
        let ip4 = |at: usize| {
            frame
                .get(at..at + ipv4::MIN_HEADER_LEN)
                .is_some_and(parse::ipv4_header_ok)
        };
        if !(ip4(VXLAN4.ip[0]) && ip4(VXLAN4.ip[1])) {
            return None;
        }
        self.stats.sw_bytes += sw_bytes;
        let first = (upgraded_state(meta, verified), meta.flags());
        self.insert(hash, frame, &p, Some(Layout::Vxlan4), id, first, now, sink);
        self.stats.new_flows += 1;
        Some(Disposition::Held(Held::NewFlow))
    }

    /// The held flow whose predicted next segment ([`Expect`](super::expect::Expect))
    /// is this fixed-layout TCP/IPv4 frame (its predicted frame length, which
    /// is 0 when the size limit leaves no room, and its header and TCP
    /// options), and the payload offset: among the flows with `hash`, or
    /// the guessed flow without one ([`Self::predicted`]).
    #[inline(always)]
    fn predicted_tcp4<const RAW: bool>(&self, hash: Option<u32>, f: &[u8]) -> Option<(u16, usize)> {
        // No layout test: only fixed-layout flows have a predicted length,
        // an engine holds raw-IP or Ethernet flows, not both, and a VXLAN
        // flow's header differs from this frame in the outer IP protocol
        // (UDP, not TCP), which the compare covers. The closure is inlined by
        // force: LLVM called it, 20 instructions more per packet (callgrind).
        let l = if RAW { RAW_TCP4 } else { TCP4 };
        let addrs = l.ip[0] + ipv4::SRC_OFFSET;
        self.predicted(
            f,
            addrs,
            hash,
            #[inline(always)]
            |s| is_next_tcp4::<RAW>(s, f),
        )
    }

    /// The held flow `is` accepts as the one whose predicted next segment
    /// this frame is, and the payload offset: among the flows with `hash`,
    /// or without one the guessed flow ([`Self::guessed`], `addrs` its
    /// check).
    #[inline(always)]
    fn predicted(
        &self,
        f: &[u8],
        addrs: usize,
        hash: Option<u32>,
        is: impl Fn(&SuperPacket) -> bool,
    ) -> Option<(u16, usize)> {
        let (i, s) = match hash {
            None => match self.guessed(f, addrs) {
                Some((i, s)) if is(s) => (i, s),
                _ => return None,
            },
            Some(hash) => self.find(hash, is)?,
        };
        Some((i, s.p.payload as usize))
    }

    /// [`Self::predicted_tcp4`] for a fixed-layout VXLAN frame (the outer UDP
    /// checksum's presence is part of the flow, as in `udp_gro_receive`).
    #[inline(always)]
    fn predicted_vxlan4(&self, hash: Option<u32>, f: &[u8]) -> Option<(u16, usize)> {
        let addrs = VXLAN4.ip[1] + ipv4::SRC_OFFSET;
        self.predicted(
            f,
            addrs,
            hash,
            #[inline(always)]
            |s| s.vx4 && is_next_vxlan4(s, f),
        )
    }

    /// The flow of a fast-path VXLAN frame (held flows of the same layout
    /// only, as for [`Self::lookup_tcp4`]).
    #[inline(always)]
    fn lookup_vxlan4(&self, hash: u32, f: &[u8]) -> Option<u16> {
        let b: &[u8; VXLAN4_ID] = f.get(..VXLAN4_ID)?.try_into().ok()?;
        Some(
            self.find(hash, |s| s.vx4 && flow::same_vxlan4(&s.hdr, b))?
                .0,
        )
    }

    /// The flow of a fast-path frame: only flows of the same fixed layout can
    /// match it (a held IPv4 flow at offset 14 never has options: those pass
    /// up), so this finds what [`Self::lookup`] finds.
    #[inline(always)]
    fn lookup_tcp4<const RAW: bool>(&self, hash: u32, f: &[u8]) -> Option<u16> {
        let b: &[u8; TCP4_ID] = f.get(..TCP4_ID)?.try_into().ok()?;
        let same = |s: &SuperPacket| {
            if RAW {
                s.raw4 && flow::same_raw_tcp4(&s.hdr, b)
            } else {
                s.tcp4 && flow::same_tcp4(&s.hdr, b)
            }
        };
        Some(self.find(hash, same)?.0)
    }

    /// Appends a segment to held flow `slot` and flushes it when this segment
    /// ends it (final flag, short segment, segment limit).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn commit_merge<S: FnMut(&SuperPacket)>(
        &mut self,
        slot: u16,
        id: u32,
        start: u16,
        len: u32,
        plan: flow::MergePlan,
        flags: u8,
        sink: &mut S,
    ) {
        let limit = self.seg_limit;
        let Some(f) = self.flows.get_mut(slot as usize) else {
            return;
        };
        f.append(id, start, len);
        f.id_mode = plan.id_mode;
        f.fin_psh |= plan.fin_psh;
        let mss = f.mss;
        let count = f.segs.len();
        self.joined(slot);
        self.stats.merged += 1;
        let done = if let Some(r) = final_flag(flags) {
            Some(r)
        } else if len < mss as u32 {
            Some(FlushReason::ShortSegment)
        } else if count >= limit as usize {
            Some(FlushReason::TooManySegs)
        } else {
            None
        };
        if let Some(r) = done {
            self.flush_slot(slot, r, sink);
        }
    }

    /// [`Self::merge_predicted`] for a vouched frame found by the guess or
    /// a train (nothing summed in software).
    #[inline(always)]
    fn merge_guessed<S: FnMut(&SuperPacket)>(
        &mut self,
        hit: (u16, usize),
        frame_len: usize,
        id: u32,
        layout: Layout,
        sink: &mut S,
    ) -> Disposition {
        self.merge_predicted(hit, frame_len, 0, id, layout, true, sink)
    }

    /// Merges a frame of `frame_len` bytes that is the predicted next
    /// segment of flow `slot` (`hit`: the slot and the payload offset, found
    /// by the guess when `guessed`), with `sw_bytes` summed in software to
    /// verify it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn merge_predicted<S: FnMut(&SuperPacket)>(
        &mut self,
        (slot, payload): (u16, usize),
        frame_len: usize,
        sw_bytes: u64,
        id: u32,
        layout: Layout,
        guessed: bool,
        sink: &mut S,
    ) -> Disposition {
        #[cfg(test)]
        {
            self.guessed += u64::from(guessed);
        }
        self.stats.sw_bytes += sw_bytes;
        let len = (frame_len - payload) as u32;
        self.commit_predicted(slot, id, payload as u16, len, layout, guessed, sink);
        Disposition::Held(Held::Merged)
    }

    /// Appends a segment that matched its flow's prediction
    /// ([`Expect`](super::expect::Expect)): it is full-size and carries no
    /// final flag, so only the segment limit can end the flow here.
    /// `guessed`: `slot` is already the previous frame's flow's successor.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn commit_predicted<S: FnMut(&SuperPacket)>(
        &mut self,
        slot: u16,
        id: u32,
        start: u16,
        len: u32,
        layout: Layout,
        guessed: bool,
        sink: &mut S,
    ) {
        let limit = self.seg_limit;
        let Some(f) = self.flows.get_mut(slot as usize) else {
            return;
        };
        f.append(id, start, len);
        // Only an undecided mode changes (to incrementing, as the prediction
        // assumed), so only then are both modes stored, in one store: the
        // next frame's compare loads them as one unit right after it in a
        // train, which two fresh byte stores cannot forward. IPv6 has no ID:
        // the modes stay as the rules leave them.
        let [m0, m1] = f.id_mode;
        let outer = layout != Layout::Tcp6 && m0 == IdMode::Undecided;
        let inner = layout == Layout::Vxlan4 && m1 == IdMode::Undecided;
        if outer || inner {
            let after = |changes: bool, m: IdMode| if changes { mode_after_match(m) } else { m };
            f.id_mode = [after(outer, m0), after(inner, m1)];
        }
        let count = f.segs.len();
        if guessed {
            self.last = slot;
        } else {
            self.joined(slot);
        }
        self.stats.merged += 1;
        #[cfg(test)]
        {
            self.predicted += 1;
        }
        if count >= limit as usize {
            self.flush_slot(slot, FlushReason::TooManySegs, sink);
        }
    }

    /// [`Self::fast_eth`] of `cfg` (the link type and the switch never
    /// change after [`Gro::new`] / [`Gro::reset`]).
    const fn fast_eth(cfg: &GroConfig) -> bool {
        cfg.fast_path && matches!(cfg.link, LinkType::Ethernet)
    }

    /// The fixed-offset fast paths are on ([`GroConfig::fast_path`], hidden:
    /// off only to compare them with the general path).
    #[inline(always)]
    fn fast_on(&self) -> bool {
        self.cfg.fast_path
    }

    fn pass(&mut self, reason: FlushReason, meta: CsumMeta) -> Disposition {
        self.stats.passed_up += 1;
        Disposition::PassUp { reason, meta }
    }

    /// The metadata a packet leaves with alone: `None` upgraded to
    /// `Unnecessary` covering the checksums this pass verified
    /// (`__skb_incr_checksum_unnecessary` from `skb_gro_incr_csum_unnecessary`).
    fn upgraded(&self, meta: CsumMeta, verified: u8) -> CsumMeta {
        let state = upgraded_state(&meta, verified);
        if state == meta.state() {
            meta
        } else {
            CsumMeta::new(state, meta.flags()).unwrap_or(meta)
        }
    }

    /// The checksum chain of one packet (outer UDP / GRE, the strict gate,
    /// inner or plain TCP/UDP).
    fn check_csums(&self, f: &[u8], p: &Parsed, cb: &mut Cb) -> Result<(), FlushReason> {
        let sw = self.cfg.software_verify == SoftwareVerify::On;
        let end = p.end as usize;
        let refuse = |r: Refusal| match r {
            Refusal::Bad => FlushReason::BadChecksum,
            Refusal::Unknown => FlushReason::ChecksumUnknown,
        };
        let outer = p.ips[0];
        match p.encap {
            Encap::Vxlan | Encap::Geneve => {
                let u = p.enc_off as usize;
                let zero = be16(f, u + udp::CHECKSUM_OFFSET) == Some(0);
                let ps = || parse::pseudo(f, outer, ipproto::UDP, (end - u) as u32);
                cb.validate(f, u, end, ps, zero, sw).map_err(refuse)?;
                if !zero {
                    cb.try_convert(u, ps);
                }
                if self.cfg.tunnel_policy == TunnelPolicy::Strict && !cb.cheap_inner(p.l4 as usize)
                {
                    return Err(FlushReason::TunnelChecksumStrict);
                }
            }
            Encap::Gre => {
                let g = p.enc_off as usize;
                if be16(f, g + gre::FLAGS_OFFSET).unwrap_or(0) & gre::FLAG_CHECKSUM != 0 {
                    cb.validate(f, g, end, || Wsum::ZERO, false, sw)
                        .map_err(refuse)?;
                    cb.try_convert(g, || Wsum::ZERO);
                }
            }
            Encap::Ipip | Encap::None => {}
        }
        let l4 = p.l4 as usize;
        let inner = p.inner();
        match p.l4kind {
            L4::Tcp => {
                let ps = || parse::pseudo(f, inner, ipproto::TCP, (end - l4) as u32);
                cb.validate(f, l4, end, ps, false, sw).map_err(refuse)
            }
            L4::Udp => {
                if be16(f, l4 + udp::CHECKSUM_OFFSET) == Some(0) {
                    return Err(FlushReason::UdpNoChecksum);
                }
                let ps = || parse::pseudo(f, inner, ipproto::UDP, (end - l4) as u32);
                cb.validate(f, l4, end, ps, false, sw).map_err(refuse)
            }
        }
    }

    /// The bucket of a flow hash: its top bits (multiply-shift range
    /// reduction; the top bits of a Fibonacci hash are its best mixed, and
    /// for a power-of-two table this is a shift).
    #[inline]
    fn bucket(hash: u32) -> usize {
        ((hash as u64 * FLOWS as u64) >> 32) as usize
    }

    #[inline]
    fn lookup(&self, hash: u32, f: &[u8], p: &Parsed) -> Option<u16> {
        Some(self.find(hash, |s| flow::same_flow(s, f, p))?.0)
    }

    /// The held flow with `hash` that `is` accepts, and its slot: the one
    /// walk of a bucket chain (identity, fixed-layout identity, prediction).
    #[inline(always)]
    fn find(
        &self,
        hash: u32,
        mut is: impl FnMut(&SuperPacket) -> bool,
    ) -> Option<(u16, &SuperPacket)> {
        let mut i = *self.buckets.get(Self::bucket(hash))?;
        while i != NIL {
            let s = self.flows.get(i as usize)?;
            if s.hash == hash && is(s) {
                return Some((i, s));
            }
            i = s.next;
        }
        None
    }

    /// Flushes the held flow of a packet that goes up alone (order first).
    fn flush_flow<S: FnMut(&SuperPacket)>(
        &mut self,
        hash: u32,
        f: &[u8],
        p: &Parsed,
        reason: FlushReason,
        sink: &mut S,
    ) {
        if let Some(slot) = self.lookup(hash, f, p) {
            self.flush_slot(slot, reason, sink);
        }
    }

    /// Flushes held flows whose outermost IP header has the fragment's
    /// addresses and protocol (a scan: fragments are rare).
    fn flush_fragment_peers<S: FnMut(&SuperPacket)>(&mut self, f: &[u8], sink: &mut S) {
        let Some(ip) = parse::outer_ip(f, self.cfg.link) else {
            return;
        };
        let mut i = self.oldest;
        while i != NIL {
            let Some(s) = self.flows.get(i as usize) else {
                return;
            };
            let next = s.newer;
            if flow::same_outer_ip(s, f, ip) {
                self.flush_slot(i, FlushReason::Fragment, sink);
            }
            i = next;
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn insert<S: FnMut(&SuperPacket)>(
        &mut self,
        hash: u32,
        f: &[u8],
        p: &Parsed,
        fixed: Option<Layout>,
        id: u32,
        (first_state, first_flags): (CsumState, CsumFlags),
        now: u64,
        sink: &mut S,
    ) {
        if self.free == NIL {
            let victim = self.oldest;
            self.flush_slot(victim, FlushReason::TableFull, sink);
        }
        let slot = self.free;
        let Some(s) = self.flows.get_mut(slot as usize) else {
            return;
        };
        self.free = s.next;
        let hl = p.payload as usize;
        copy_header(&mut s.hdr, f, hl);
        s.p = *p;
        s.tcp4 = fixed == Some(Layout::Tcp4);
        s.vx4 = fixed == Some(Layout::Vxlan4);
        s.raw4 = fixed == Some(Layout::RawTcp4);
        s.tcp6 = fixed == Some(Layout::Tcp6);
        s.segs.clear();
        let len = p.payload_len();
        s.segs.push(Segment {
            id,
            start: p.payload,
            len: len as u16,
        });
        s.room = self.size_limit.saturating_sub(p.outer_ip_len());
        s.payload = len;
        s.mss = len as u16;
        s.seq = match p.l4kind {
            L4::Tcp => be32(f, p.l4 as usize + tcp::SEQ_OFFSET).unwrap_or(0),
            L4::Udp => 0,
        };
        let id_at = |i: usize| match p.ips.get(i) {
            Some(ip) if i < p.n as usize && !ip.v6 => {
                be16(f, ip.off as usize + ipv4::ID_OFFSET).unwrap_or(0)
            }
            _ => 0,
        };
        s.ids = [id_at(0), id_at(1)];
        s.id_mode = [IdMode::Undecided; 2];
        s.fin_psh = 0;
        s.first_state = first_state;
        s.first_flags = first_flags;
        s.born = now;
        s.hash = hash;
        s.succ = NIL;
        if let Some(layout) = fixed {
            // From the frame, not from what was just stored in `s` (wider
            // loads of fresh narrow stores stall store forwarding).
            s.exp.start(f, layout, hl, p.end, len <= s.room);
        } else {
            s.exp.clear();
        }
        let b = Self::bucket(hash);
        s.next = self.buckets[b];
        self.buckets[b] = slot;
        // Append to the age list.
        s.older = self.newest;
        s.newer = NIL;
        if let Some(n) = self.flows.get_mut(self.newest as usize) {
            n.newer = slot;
        } else {
            self.oldest = slot;
        }
        self.newest = slot;
        if let Some(u) = self.used.get_mut(slot as usize) {
            *u = true;
        }
        self.held += 1;
        self.joined(slot);
    }

    /// Records that the current frame joined `slot`: the successor of the
    /// previous frame's flow (for [`Self::guessed`]).
    #[inline(always)]
    fn joined(&mut self, slot: u16) {
        if let Some(prev) = self.flows.get_mut(self.last as usize) {
            prev.succ = slot;
        }
        self.last = slot;
    }

    /// The flow this frame most likely continues, before any hash: the one
    /// whose frame followed the previous frame's flow last time (the same flow
    /// in a train of one flow's segments, the next in a round-robin of
    /// flows), when the 8 bytes at `addrs` (the innermost IPv4 addresses)
    /// are the frame's. Only a guess: the caller's prediction compare
    /// decides. A free slot never passes that compare (its predicted length
    /// is 0), so a stale guess costs a miss, never a wrong merge.
    /// Why: the hash, bucket and chain loads form a chain of dependent loads
    /// from the frame's (cold) header; a guess skips it (TCP 1 flow: 16.8 ->
    /// 12.9 ns per packet, `docs/perf/gro-hot-path.md`).
    #[inline(always)]
    fn guessed(&self, f: &[u8], addrs: usize) -> Option<(u16, &SuperPacket)> {
        let (i, s) = self.guess()?;
        (load8(&s.hdr, addrs) == load8(f, addrs)).then_some((i, s))
    }

    /// The flow whose frame followed the previous frame's flow last time,
    /// and its slot (no check: [`Self::guessed`]).
    #[inline(always)]
    fn guess(&self) -> Option<(u16, &SuperPacket)> {
        let i = self.flows.get(self.last as usize)?.succ;
        Some((i, self.flows.get(i as usize)?))
    }

    /// Completes flow `slot`, hands it to `sink`, and frees the slot.
    fn flush_slot<S: FnMut(&SuperPacket)>(&mut self, slot: u16, reason: FlushReason, sink: &mut S) {
        let si = slot as usize;
        if !self.used.get(si).copied().unwrap_or(false) {
            return;
        }
        // Unlink from its bucket chain.
        let b = Self::bucket(self.flows[si].hash);
        let next = self.flows[si].next;
        if self.buckets[b] == slot {
            self.buckets[b] = next;
        } else {
            let mut i = self.buckets[b];
            while i != NIL {
                let n = self.flows[i as usize].next;
                if n == slot {
                    self.flows[i as usize].next = next;
                    break;
                }
                i = n;
            }
        }
        // Unlink from the age list.
        let (older, newer) = (self.flows[si].older, self.flows[si].newer);
        match self.flows.get_mut(older as usize) {
            Some(o) => o.newer = newer,
            None => self.oldest = newer,
        }
        match self.flows.get_mut(newer as usize) {
            Some(n) => n.older = older,
            None => self.newest = older,
        }
        let s = &mut self.flows[si];
        s.reason = reason;
        s.finalize();
        sink(s);
        s.exp.clear();
        s.next = self.free;
        self.free = slot;
        self.used[si] = false;
        self.held -= 1;
        self.stats.flushed += 1;
    }
}

/// Whether the device vouched for the frame's checksums (`Unnecessary` at
/// any level): the only state a guessed merge or a train takes.
#[inline(always)]
fn vouched(meta: &CsumMeta) -> bool {
    matches!(meta.state(), CsumState::Unnecessary { .. })
}

/// The state of [`Gro::upgraded`]'s metadata (its flags are the packet's):
/// `__skb_incr_checksum_unnecessary` raises an existing `Unnecessary` level
/// too (a device level 0 consumed by a zero outer UDP checksum, then the
/// inner TCP checksum verified in software: level 1), or the stack sums the
/// inner segment a second time.
#[inline(always)]
fn upgraded_state(meta: &CsumMeta, verified: u8) -> CsumState {
    let state = meta.state();
    let covered = match state {
        CsumState::None => 0,
        CsumState::Unnecessary { level } => level.get() + 1,
        _ => return state,
    };
    if verified > covered {
        let level = CsumLevel::new(verified.min(4) - 1).unwrap_or(CsumLevel::L0);
        CsumState::Unnecessary { level }
    } else {
        state
    }
}

/// Where flow `f` stands for the prediction of its next segment.
#[inline(always)]
fn next_of(f: &SuperPacket) -> Next {
    Next {
        ids: f.ids,
        modes: f.id_mode,
        count: f.segs.len() as u16,
        seq: f.seq.wrapping_add(f.payload),
    }
}

/// Whether `f` is held flow `s`'s predicted next fixed-layout TCP/IPv4
/// segment: its length and its header and options ([`Expect`](super::expect::Expect)).
/// No layout test (the callers know or the compare covers it).
#[inline(always)]
fn is_next_tcp4<const RAW: bool>(s: &SuperPacket, f: &[u8]) -> bool {
    let Some(h) = f.get(..TCP4_SPAN).and_then(|h| h.try_into().ok()) else {
        return false;
    };
    f.len() == s.exp.len() as usize
        && if RAW {
            s.exp.raw_tcp4_matches(&s.hdr, h, &next_of(s))
        } else {
            s.exp.tcp4_matches(&s.hdr, h, &next_of(s))
        }
}

/// [`is_next_tcp4`] for a fixed-layout TCP/IPv6 frame.
#[inline(always)]
fn is_next_tcp6(s: &SuperPacket, f: &[u8]) -> bool {
    let Some(h) = f.get(..TCP6_SPAN).and_then(|h| h.try_into().ok()) else {
        return false;
    };
    f.len() == s.exp.len() as usize && s.exp.tcp6_matches(&s.hdr, h, &next_of(s))
}

/// [`is_next_tcp4`] for a fixed-layout VXLAN frame (the outer UDP checksum's
/// presence is part of the flow, as in `udp_gro_receive`).
#[inline(always)]
fn is_next_vxlan4(s: &SuperPacket, f: &[u8]) -> bool {
    let Some(h) = f.get(..VXLAN4_SPAN).and_then(|h| h.try_into().ok()) else {
        return false;
    };
    f.len() == s.exp.len() as usize
        && s.exp.vxlan4_matches(&s.hdr, h, &next_of(s))
        && flow::udp_csum_zero(h, VXLAN4.udp) == flow::udp_csum_zero(&s.hdr, VXLAN4.udp)
}

/// Copies the first `hl` bytes of `src` (a header) into `dst` with at most two
/// fixed-size overlapping copies for the common lengths (no `memcpy` call).
#[inline(always)]
fn copy_header(dst: &mut [u8; MAX_HEADER], src: &[u8], hl: usize) {
    fn pair<const N: usize>(dst: &mut [u8], src: &[u8], hl: usize) {
        if let (Some(d), Some(s)) = (dst.get_mut(..N), src.get(..N)) {
            d.copy_from_slice(s);
        }
        let tail = hl - N;
        if let (Some(d), Some(s)) = (dst.get_mut(tail..hl), src.get(tail..hl)) {
            d.copy_from_slice(s);
        }
    }
    if src.len() < hl {
        return;
    }
    match hl {
        64..=128 => pair::<64>(dst, src, hl),
        32..=63 => pair::<32>(dst, src, hl),
        _ => {
            if let (Some(d), Some(s)) = (dst.get_mut(..hl), src.get(..hl)) {
                d.copy_from_slice(s);
            }
        }
    }
}

/// The TCP/IPv6 header of a fixed-layout frame, for [`Gro::sum_ok`].
const TCP6_AT: parse::Ip = parse::Ip {
    off: TCP6.ip[0] as u16,
    next: TCP6.tcp as u16,
    v6: true,
};

/// The option-less IPv4 header at `ip` of a fixed-layout frame and the TCP
/// header after it, for [`Gro::sum_ok`].
#[inline(always)]
const fn tcp4_at(ip: usize) -> parse::Ip {
    parse::Ip {
        off: ip as u16,
        next: (ip + ipv4::MIN_HEADER_LEN) as u16,
        v6: false,
    }
}

/// The frame `at` places into `burst`, counting on into `next` past its end:
/// what [`Gro::receive_burst_with_next`] hints ahead of the frame it reads.
#[inline(always)]
fn in_sequence<'b>(
    burst: &'b [BurstFrame<'b>],
    next: &'b [BurstFrame<'b>],
    at: usize,
) -> Option<&'b BurstFrame<'b>> {
    match at.checked_sub(burst.len()) {
        Some(past) => next.get(past),
        None => burst.get(at),
    }
}

/// The sums of a group of frames of a burst ([`Gro::group_sum`]), the first
/// being `burst[from]`.
struct Group {
    from: usize,
    sums: [Wsum; GROUP],
}

impl Group {
    /// No group yet.
    const NONE: Group = Group {
        from: usize::MAX,
        sums: [Wsum::ZERO; GROUP],
    };

    /// Whether `burst[i]` is in this group.
    #[inline(always)]
    fn covers(&self, i: usize) -> bool {
        i.checked_sub(self.from).is_some_and(|k| k < GROUP)
    }
}

impl<const FLOWS: usize> Gro<FLOWS> {
    /// Software check of the TCP checksum of a fixed-layout frame whose TCP
    /// header follows the IP header `at`: the bytes summed, or `None` when
    /// it is bad (the general path then names it). From the frame's sum
    /// when its group gave one ([`Self::presum`]), less the headers' (hot in
    /// the cache); else the frame is summed as cold from the device
    /// ([`csum::partial_cold`](crate::csum::partial_cold)).
    #[inline(always)]
    fn sum_ok(&mut self, frame: &[u8], at: parse::Ip) -> Option<u64> {
        let (headers, data) = frame.split_at_checked(at.next as usize)?;
        let ps = parse::pseudo(frame, at, ipproto::TCP, data.len() as u32);
        let presummed = core::mem::take(&mut self.presum_set);
        let sum = if presummed {
            Wsum::new(self.presum).sub(crate::csum::partial(headers, Wsum::ZERO))
        } else {
            crate::csum::partial_cold(data, Wsum::ZERO)
        };
        let good = crate::csum::fold(ps.add(sum)).is_zero();
        #[cfg(test)]
        {
            self.presummed += u64::from(presummed && good);
        }
        good.then_some(data.len() as u64)
    }
}

/// All-zero memory is a valid `Gro` (for in-place construction, see
/// [`Gro::reset`]): checked at compile time, as the derive alone only adds bounds.
const _: fn() = || {
    fn from_zeros<T: zerocopy::FromZeros>() {}
    from_zeros::<Gro<1>>();
};
