//! Trains: the frames of a burst that each continue the flow that followed
//! the previous frame's flow the last time (the same flow for one flow's
//! segments back to back, the next one in a round robin of flows), compared
//! with that flow's prediction alone.

use super::super::expect::Layout;
use super::super::output::{Disposition, SuperPacket};
use super::{BurstFrame, Gro, is_next_tcp4, is_next_tcp6, is_next_vxlan4, vouched};

impl<const FLOWS: usize> Gro<FLOWS> {
    /// Merges frames from `burst[i]` on while each is a vouched frame and the
    /// predicted next segment of the guessed flow (see [`Self::guessed`]):
    /// with `CYCLE` the successor of the flow the previous frame joined, a
    /// round robin of flows; without, that flow itself, one flow's segments
    /// back to back (the flow stays put, so its checks stay out of the loop:
    /// one loop for both cost VXLAN 1 flow 10 instructions per frame).
    /// Returns the index of the first frame it leaves. What
    /// [`Self::receive_inline`] does for such a frame, without the guess's
    /// table reads and the layout dispatch per frame.
    /// Why: a bulk flow's segments come back to back in a burst (one RSS
    /// queue, a sender's TSO bursts), and a few flows sharing a queue come
    /// round robin; finding the flow again for each was about a tenth of the
    /// frame's instructions (`docs/perf/gro-hot-path.md`). Out of line: a
    /// call per train costs less than what the inlined loops cost the
    /// caller in registers (inlined, TCP 8 flows 187.5 against 186.0
    /// instructions per packet, TCP `verify` 1 flow 635.9 against 630.9).
    #[inline(never)]
    pub(super) fn train<const CYCLE: bool, S, E>(
        &mut self,
        burst: &[BurstFrame<'_>],
        next: &[BurstFrame<'_>],
        i: usize,
        sink: &mut S,
        each: &mut E,
    ) -> usize
    where
        S: FnMut(&SuperPacket),
        E: FnMut(u32, Disposition),
    {
        let Some(s) = self.flows.get(self.last as usize) else {
            return i;
        };
        let slot = if CYCLE { s.succ } else { self.last };
        // The flows of a round robin may differ in layout. A TCP/IPv4 frame's
        // compare needs no layout test (as in `predicted_tcp4`: only
        // fixed-layout flows predict, an engine holds raw or Ethernet flows,
        // and a VXLAN flow's outer IP protocol differs, which the compare
        // covers); VXLAN and IPv6 test the layout, as their lookups do, when
        // the train moves between flows.
        if s.tcp4 {
            self.run::<CYCLE, S, E>(
                burst,
                next,
                i,
                slot,
                Layout::Tcp4,
                sink,
                each,
                #[inline(always)]
                |_: &Self, s: &SuperPacket, f: &BurstFrame<'_>| {
                    vouched(&f.meta) && is_next_tcp4::<false>(s, f.frame)
                },
            )
        } else if s.vx4 {
            self.run::<CYCLE, S, E>(
                burst,
                next,
                i,
                slot,
                Layout::Vxlan4,
                sink,
                each,
                #[inline(always)]
                |g: &Self, s: &SuperPacket, f: &BurstFrame<'_>| {
                    (!CYCLE || s.vx4)
                        && g.vxlan_covered(&f.meta, f.frame) == Some(true)
                        && is_next_vxlan4(s, f.frame)
                },
            )
        } else if s.tcp6 {
            self.run::<CYCLE, S, E>(
                burst,
                next,
                i,
                slot,
                Layout::Tcp6,
                sink,
                each,
                #[inline(always)]
                |_: &Self, s: &SuperPacket, f: &BurstFrame<'_>| {
                    (!CYCLE || s.tcp6) && vouched(&f.meta) && is_next_tcp6(s, f.frame)
                },
            )
        } else if s.raw4 {
            self.run::<CYCLE, S, E>(
                burst,
                next,
                i,
                slot,
                Layout::RawTcp4,
                sink,
                each,
                #[inline(always)]
                |_: &Self, s: &SuperPacket, f: &BurstFrame<'_>| {
                    vouched(&f.meta) && is_next_tcp4::<true>(s, f.frame)
                },
            )
        } else {
            i
        }
    }

    /// [`Self::train`] for one layout from flow `slot` on: `is` tells whether
    /// a frame is a flow's vouched predicted next segment by this layout's
    /// rules; with `CYCLE` the train moves to the flow's successor after
    /// each merge. A flush at the segment limit clears the prediction, which
    /// ends the train at that flow's next frame.
    /// Frames with [`HEADER_AHEAD`](super::HEADER_AHEAD) frames after them
    /// go by a window that moves ([`Self::windowed`]); by index, as the
    /// last few go ([`Self::hinted`]), TCP 1 flow took 10 instructions more
    /// per frame.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn run<const CYCLE: bool, S, E>(
        &mut self,
        burst: &[BurstFrame<'_>],
        next: &[BurstFrame<'_>],
        i: usize,
        mut slot: u16,
        layout: Layout,
        sink: &mut S,
        each: &mut E,
        is: impl Fn(&Self, &SuperPacket, &BurstFrame<'_>) -> bool,
    ) -> usize
    where
        S: FnMut(&SuperPacket),
        E: FnMut(u32, Disposition),
    {
        let mut rest = burst.get(i..).unwrap_or_default();
        while let Some(f) = self.windowed(rest) {
            let Some(succ) = self.step::<CYCLE, S, E>(f, slot, layout, sink, each, &is) else {
                return burst.len() - rest.len();
            };
            slot = succ;
            rest = rest.get(1..).unwrap_or_default();
        }
        let mut i = burst.len() - rest.len();
        while let Some(f) = self.hinted(burst, next, i) {
            let Some(succ) = self.step::<CYCLE, S, E>(f, slot, layout, sink, each, &is) else {
                break;
            };
            slot = succ;
            i += 1;
        }
        i
    }

    /// One frame of [`Self::run`]: merges `f` into flow `slot` when `is`
    /// accepts it, and returns the flow the train goes on with.
    #[inline(always)]
    fn step<const CYCLE: bool, S, E>(
        &mut self,
        f: &BurstFrame<'_>,
        slot: u16,
        layout: Layout,
        sink: &mut S,
        each: &mut E,
        is: &impl Fn(&Self, &SuperPacket, &BurstFrame<'_>) -> bool,
    ) -> Option<u16>
    where
        S: FnMut(&SuperPacket),
        E: FnMut(u32, Disposition),
    {
        let s = self.flows.get(slot as usize)?;
        if !is(self, s, f) {
            return None;
        }
        let hit = (slot, s.p.payload as usize);
        let succ = s.succ;
        let d = self.merge_guessed(hit, f.frame.len(), f.id, layout, sink);
        #[cfg(test)]
        {
            self.trained += 1;
        }
        each(f.id, d);
        Some(if CYCLE { succ } else { slot })
    }
}
