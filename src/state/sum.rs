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

/// A `Complete` sum after bytes were taken out of it, for the bytes `rest`
/// it now covers: `+0` when they are all zero. The kernel's `wsum_negate`
/// removal gives `-0` there, while a fresh sum of zeros is `+0`; normalised
/// so `fold(csum) == fold(sum of rest)` holds literally. Only a sum that folds
/// to zero is looked at, and the scan stops at the first non-zero byte.
pub(crate) fn normalised(sum: Wsum, rest: &[u8]) -> Wsum {
    if csum::fold(sum).is_zero() && rest.iter().all(|&b| b == 0) {
        Wsum::ZERO
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
