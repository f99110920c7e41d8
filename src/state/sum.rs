//! Bounds-checked sums over packet ranges, and exact `Complete` bookkeeping.

use crate::csum::{self, Wsum};

/// Sum of `bytes[from..to]` as it contributes to a sum that starts at `base`
/// (a block at an odd distance contributes byte-swapped, `csum_block_add`).
/// The caller has checked the range; an empty or bad range sums to zero.
pub(crate) fn sum_at(bytes: &[u8], base: usize, from: usize, to: usize) -> Wsum {
    match bytes.get(from..to) {
        Some(b) => csum::partial(b, Wsum::ZERO).shifted_by(from.wrapping_sub(base)),
        None => Wsum::ZERO,
    }
}

/// Removes `part` from `sum` the way `skb_postpull_rcsum` does since the 2021
/// fix: `-partial(x, -sum)`, i.e. `wsum_negate(wsum_negate(sum) + part)`.
pub(crate) const fn remove(sum: Wsum, part: Wsum) -> Wsum {
    sum.negate().add(part).negate()
}

/// A `Complete` sum for the bytes `rest` it covers, in the representation a
/// fresh sum of them has: `+0` when they are all zero, never `+0` otherwise
/// (`-0` then). The kernel's `wsum_negate` removal gives `-0` over zero
/// bytes; `~pseudo` (`skb_checksum_try_convert`) gives `+0` when the
/// pseudo-header sums to `0xFFFF_FFFF`, and a later two's-complement removal
/// from that `+0` comes out one too high. Normalised so that
/// `fold(csum) == fold(sum of rest)` holds literally and removals stay exact.
/// Only a sum that folds to zero or is `+0` is looked at, and the scan stops
/// at the first non-zero byte.
pub(crate) fn normalised(sum: Wsum, rest: &[u8]) -> Wsum {
    let all_zero = || rest.iter().all(|&b| b == 0);
    if csum::fold(sum).is_zero() && all_zero() {
        Wsum::ZERO
    } else if sum == Wsum::ZERO && !all_zero() {
        Wsum::new(u32::MAX)
    } else {
        sum
    }
}

/// A byte rewrite under a `Complete` sum that starts at `base`: replaces
/// `old` (at offset `at`) by `new` in the sum, for the bytes at or after `base`.
pub(crate) fn rewrite_in_sum(sum: Wsum, base: usize, at: usize, old: &[u8], new: &[u8]) -> Wsum {
    // Only the bytes at or after `base` are covered (a write may straddle it).
    let skip = base.saturating_sub(at);
    let (Some(old), Some(new)) = (old.get(skip..), new.get(skip..)) else {
        return sum;
    };
    let at = at + skip;
    let shift = at - base;
    let o = csum::partial(old, Wsum::ZERO).shifted_by(shift);
    let n = csum::partial(new, Wsum::ZERO).shifted_by(shift);
    sum.sub(o).add(n)
}
