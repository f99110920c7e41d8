//! GRO-side checksum bookkeeping: `NAPI_GRO_CB(skb)->csum_cnt`, `csum_valid`
//! and `csum`, and the validation helpers of `include/net/gro.h`.
//!
//! - `Unnecessary { level }` gives `cnt = level + 1` checksums, consumed one per
//!   layer, outermost first (`skb_gro_incr_csum_unnecessary`).
//! - `Complete { csum }` gives a running sum (`csum_valid`); each layer is
//!   checked by arithmetic against its pseudo-header.
//! - `Partial { start, .. }` vouches for every checksum at or before `start`.
//! - Otherwise the layer is summed in software (bytes counted), and the sum is
//!   kept so inner layers cost nothing more (`__skb_gro_checksum_complete`).
//!
//! The running sum is kept as "sum from `run_at` to the end"; moving it inward
//! subtracts the pulled bytes lazily (`skb_gro_postpull_rcsum`).
//!
//! Every sum here is of a received frame's bytes, fresh from the device, so
//! each is [`csum::partial_cold`] as on the fast paths (`Gro::sum_ok`, when
//! no group of the burst summed the frame already).

use crate::csum::{self, Wsum};
use crate::state::{CsumMeta, CsumState};

/// Why a layer's checksum did not pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Verified and wrong.
    Bad,
    /// Nothing vouches and software verification is off.
    Unknown,
}

/// The per-packet GRO checksum control block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cb {
    /// Checksums still covered by the device's `Unnecessary` report.
    pub cnt: u8,
    /// `run` is a valid sum of the bytes from `run_at` to the end.
    pub valid: bool,
    run: Wsum,
    run_at: usize,
    /// `Partial` start: checksums of layers at or before it are trusted.
    partial_start: Option<usize>,
    /// The running sum came from the device (`Complete`), not from software.
    from_device: bool,
    /// Bytes summed in software for this packet.
    pub sw_bytes: u32,
    /// A device `Complete` sum disagreed but software found the data good.
    pub fault: bool,
    /// Checksums verified in this pass, outermost first, counting only
    /// checksums that exist (for the single-packet state upgrade).
    pub verified: u8,
}

impl Cb {
    /// Builds the control block from a packet's metadata (`dev_gro_receive`
    /// init). `l3` is the outermost IP header; the Complete sum covers `l3` to
    /// `frame.len()` and is trimmed to `end` like `pskb_trim_rcsum`.
    #[inline]
    pub fn new(meta: &CsumMeta, frame: &[u8], l3: usize, end: usize) -> Cb {
        let mut cb = Cb {
            cnt: 0,
            valid: false,
            run: Wsum::ZERO,
            run_at: l3,
            partial_start: None,
            from_device: false,
            sw_bytes: 0,
            fault: false,
            verified: 0,
        };
        match meta.state() {
            CsumState::None => {}
            CsumState::Unnecessary { level } => cb.cnt = level.covered(),
            CsumState::Complete { csum } => {
                let mut run = csum;
                if let Some(pad) = frame.get(end..)
                    && !pad.is_empty()
                {
                    run = csum::block_sub(run, csum::partial_cold(pad, Wsum::ZERO), end - l3);
                }
                cb.run = run;
                cb.valid = true;
                cb.from_device = true;
            }
            CsumState::Partial { start, .. } => cb.partial_start = Some(start),
        }
        cb
    }

    /// True when the layer at `at` is vouched for by a `Partial` state.
    #[inline]
    pub fn partial_covers(&self, at: usize) -> bool {
        matches!(self.partial_start, Some(s) if at <= s)
    }

    /// Sum of the bytes from `at` to the end (`at >= run_at`).
    #[inline]
    fn sum_from(&self, frame: &[u8], at: usize) -> Wsum {
        if at == self.run_at {
            return self.run;
        }
        let pulled = frame.get(self.run_at..at).unwrap_or(&[]);
        let rest = csum::sub(self.run, csum::partial_cold(pulled, Wsum::ZERO));
        rest.shifted_by(at - self.run_at)
    }

    /// Validates the checksum of the layer at `at..end` whose pseudo-header sum
    /// is `pseudo` (`skb_gro_checksum_validate[_zero_check]` then
    /// `skb_gro_incr_csum_unnecessary`). `zero_means_none` is true for a UDP
    /// checksum field of zero (no checksum: nothing to verify).
    #[inline]
    pub fn validate(
        &mut self,
        frame: &[u8],
        at: usize,
        end: usize,
        pseudo: impl FnOnce() -> Wsum,
        zero_means_none: bool,
        software: bool,
    ) -> Result<(), Refusal> {
        let needed = !self.partial_covers(at) && self.cnt == 0 && !zero_means_none;
        if needed {
            let pseudo = pseudo();
            let arith_ok = self.valid
                && at >= self.run_at
                && csum::fold(pseudo.add(self.sum_from(frame, at))).is_zero();
            if !arith_ok {
                if !software {
                    return Err(Refusal::Unknown);
                }
                let data = frame.get(at..end).unwrap_or(&[]);
                let sum = csum::partial_cold(data, Wsum::ZERO);
                self.sw_bytes = self.sw_bytes.saturating_add(data.len() as u32);
                let had_device_sum = self.valid && self.from_device;
                self.run = sum;
                self.run_at = at;
                self.valid = true;
                self.from_device = false;
                if !csum::fold(pseudo.add(sum)).is_zero() {
                    return Err(Refusal::Bad);
                }
                if had_device_sum {
                    self.fault = true;
                }
            }
        } else if self.cnt > 0 && !self.partial_covers(at) {
            self.cnt -= 1;
        }
        self.verified = self.verified.saturating_add(1);
        Ok(())
    }

    /// After a non-zero UDP (or GRE) checksum validated: start a running sum of
    /// `~pseudo` at `at` when none is known (`skb_gro_checksum_try_convert`).
    #[inline]
    pub fn try_convert(&mut self, at: usize, pseudo: impl FnOnce() -> Wsum) {
        if self.cnt == 0 && !self.valid {
            self.run = pseudo().not();
            self.run_at = at;
            self.valid = true;
            self.from_device = false;
        }
    }

    /// The 2015 `udp_gro_receive` gate: inner checksums can be validated cheaply.
    #[inline]
    pub fn cheap_inner(&self, inner_l4: usize) -> bool {
        self.partial_covers(inner_l4) || self.cnt > 0 || self.valid
    }
}
