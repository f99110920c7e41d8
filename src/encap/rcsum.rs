//! The `CHECKSUM_COMPLETE` arithmetic decap needs: remove pulled header bytes
//! (`skb_postpull_rcsum`) and trailing bytes (`pskb_trim_rcsum`) from a sum.

use crate::csum::{self, Wsum};

/// Removes the sum of `pulled` (the first bytes the sum covers) from `csum`
/// (Linux `skb_postpull_rcsum`, the 2021-fixed form `-partial(x, -csum)`, which
/// keeps the +0 / -0 distinction that `~partial(x, ~csum)` lost).
///
/// An odd-length pull leaves the rest at an odd offset, so the remainder is
/// byte-swapped back (every real header length is even).
#[inline]
pub fn postpull(csum: Wsum, pulled: &[u8]) -> Wsum {
    csum::partial(pulled, csum.negate())
        .negate()
        .shifted_by(pulled.len())
}

/// Removes trailing bytes `tail`, which start `offset` bytes after the sum's
/// first byte (Linux `pskb_trim_rcsum_slow`: `csum_block_sub`).
#[inline]
pub fn trim(csum: Wsum, tail: &[u8], offset: usize) -> Wsum {
    if tail.is_empty() {
        return csum;
    }
    csum::block_sub(csum, csum::partial(tail, Wsum::ZERO), offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eq_folded(a: Wsum, b: Wsum) -> bool {
        csum::fold(a) == csum::fold(b)
    }

    #[test]
    fn postpull_matches_sum_of_rest_even_and_odd() {
        let data: [u8; 11] = [0x45, 0, 0x12, 0xff, 0xfe, 1, 2, 3, 0x80, 0x7f, 9];
        let whole = csum::partial(&data, Wsum::ZERO);
        // The empty remainder is left out: +0 and -0 are the same number and
        // fold differently, and no decapsulated packet is empty.
        for cut in 0..data.len() {
            let (head, rest) = data.split_at(cut);
            let expect = csum::partial(rest, Wsum::ZERO);
            assert!(eq_folded(postpull(whole, head), expect), "cut {cut}");
        }
    }

    #[test]
    fn trim_matches_sum_of_front() {
        let data: [u8; 9] = [0xff, 0xff, 0, 1, 0xab, 0xcd, 0xef, 0x01, 0x55];
        let whole = csum::partial(&data, Wsum::ZERO);
        for cut in 1..=data.len() {
            let (front, tail) = data.split_at(cut);
            let expect = csum::partial(front, Wsum::ZERO);
            assert!(eq_folded(trim(whole, tail, cut), expect), "cut {cut}");
        }
    }
}
