//! All-or-nothing header rewrites that keep a `Complete` sum exact.

use super::outcome::{Span, StateError};
use super::packet::PacketMut;
use super::sum::{normalised, rewrite_in_sum};
use crate::csum::Wsum;

/// One pending write of up to 16 bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Write {
    pub at: usize,
    pub len: usize,
    pub data: [u8; 16],
    pub what: Span,
}

impl Write {
    /// A write of `data` (at most 16 bytes; longer input is cut) at `at`.
    pub(crate) fn new(at: usize, data: &[u8], what: Span) -> Write {
        let mut buf = [0u8; 16];
        let len = data.len().min(16);
        if let (Some(d), Some(s)) = (buf.get_mut(..len), data.get(..len)) {
            d.copy_from_slice(s);
        }
        Write {
            at,
            len,
            data: buf,
            what,
        }
    }
}

/// Checks every write against the buffer, then applies them in order. A
/// `Complete` sum starting at `cur` is updated byte-exactly for every changed
/// byte at or after `cur` (what `inet_proto_csum_replace4`'s `skb->csum`
/// update does for pseudo-header fields, generalised), and left `+0` when the
/// bytes it covers are all zero ([`normalised`]: a write outside the covered
/// bytes subtracts and adds nothing, which in ones-complement turns `+0`
/// into `-0`).
pub(crate) fn apply(
    pkt: &mut PacketMut<'_>,
    writes: &[Write],
    mut complete: Option<Wsum>,
) -> Result<Option<Wsum>, StateError> {
    let len = pkt.bytes().len();
    for w in writes {
        if w.at.checked_add(w.len).is_none_or(|e| e > len) {
            return Err(StateError::OutOfBounds {
                what: w.what,
                offset: w.at.saturating_add(w.len),
                len,
            });
        }
    }
    let cur = pkt.cur();
    for w in writes {
        let new = w.data.get(..w.len).unwrap_or(&[]);
        if let Some(old) = pkt.bytes_mut().get_mut(w.at..w.at + w.len) {
            if let Some(sum) = complete.as_mut() {
                *sum = rewrite_in_sum(*sum, cur, w.at, old, new);
            }
            old.copy_from_slice(new);
        }
    }
    let covered = pkt.bytes().get(cur..).unwrap_or(&[]);
    Ok(complete.map(|sum| normalised(sum, covered)))
}
