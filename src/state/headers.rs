//! Moving the current layer: pull and push header bytes, trim trailing bytes.

use super::outcome::{CsumVerdict, Outcome, Reason, Span, StateError, Transition, refuse};
use super::packet::Packet;
use super::sum::{normalised, remove, sum_at};
use super::types::{CsumFlags, CsumMeta, CsumState, PartialKind};

fn rebuilt(meta: &CsumMeta, state: CsumState, flags: CsumFlags) -> CsumMeta {
    CsumMeta::new(state, flags).unwrap_or(CsumMeta::from_state(meta.state()))
}

/// Pulls `len` header bytes `[cur, cur + len)`: the next layer becomes current
/// (Linux `skb_postpull_rcsum`). A `Complete` sum loses their contribution
/// (`-partial(x, -csum)`, the 2021 `wsum_negate` fix; an odd `len` byte-swaps
/// the rest, `csum_block_sub`); a `Partial` whose start is pulled past becomes
/// `None` without `CSUM_BLANK` / `DATA_VALID` (the packet is being consumed
/// locally, like Linux). `CSUM_VALID` is
/// cleared: it named the layer that was current. `DATA_VALID` is cleared once
/// the pull goes past `layers.l4`: the origin's word was about that layer and
/// never crosses into an inner packet (decapsulation). A sum left over only
/// zero bytes is `+0`, as a fresh sum would be.
///
/// After it, use `pkt.with_cur(pkt.cur() + len)`.
///
/// ```
/// use netoffload::csum::{self, Wsum};
/// use netoffload::state::{self, CsumMeta, CsumState, Packet, Reason};
/// use netoffload::wire::LinkType;
/// # let mut b = Vec::new();
/// # etherparse::PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
/// #     .udp(1, 2).write(&mut b, b"data").unwrap();
/// let pkt = Packet::parse(&b, LinkType::RawIp)?;
/// // A device sum of the packet from the IP header on (like mlx5).
/// let meta = CsumMeta::from_state(CsumState::Complete { csum: csum::partial(&b, Wsum::ZERO) });
/// let l4 = pkt.layers().l4;
/// let out = state::pull(meta, &pkt, l4).expect("in bounds");
/// assert_eq!(out.sw_bytes, l4); // only the pulled header was summed
/// let at_udp = pkt.with_cur(l4).expect("in bounds");
/// let v = state::validate(out.meta, &at_udp).expect("UDP");
/// assert_eq!((v.reason, v.sw_bytes), (Reason::CompleteChecked, 0));
/// # Ok::<(), netoffload::wire::ParseError>(())
/// ```
pub fn pull(meta: CsumMeta, pkt: &Packet<'_>, len: usize) -> Transition {
    let cur = pkt.cur();
    let new_cur = match cur.checked_add(len) {
        Some(n) if n <= pkt.len() => n,
        _ => {
            return refuse(
                meta,
                StateError::OutOfBounds {
                    what: Span::Pull,
                    offset: cur.saturating_add(len),
                    len: pkt.len(),
                },
            );
        }
    };
    let mut flags = meta.flags() - CsumFlags::CSUM_VALID;
    if new_cur > pkt.layers().l4 {
        // The origin's word was about the layer at l4, now behind us: it
        // never vouches for what follows (an inner packet after decap).
        flags -= CsumFlags::DATA_VALID;
    }
    let (state, reason, sw) = match meta.state() {
        CsumState::Complete { csum } => {
            let part = sum_at(pkt.bytes(), cur, cur, new_cur);
            let rest = remove(csum, part).shifted_by(len);
            let rest = normalised(rest, pkt.bytes().get(new_cur..).unwrap_or(&[]));
            (CsumState::Complete { csum: rest }, Reason::Pulled, len)
        }
        CsumState::Partial { start, .. } if start < new_cur => {
            // The layer the Partial (and the origin's DATA_VALID) spoke of is
            // behind us: nothing is claimed any more.
            flags -= CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID;
            (CsumState::None, Reason::PartialPulledPast, 0)
        }
        s => (s, Reason::Pulled, 0),
    };
    Ok(Outcome {
        meta: rebuilt(&meta, state, flags),
        verdict: CsumVerdict::NotChecked,
        reason,
        sw_bytes: sw,
    })
}

/// Pushes the `len` header bytes `[cur - len, cur)`, already written in the
/// buffer: they become part of the current layer (Linux `skb_postpush_rcsum`).
/// A `Complete` sum gains them; other states are unchanged. Clears `CSUM_VALID`,
/// and `DATA_VALID` when the bytes lie before `layers.l2` (a new outer header:
/// the origin's word never crosses an encapsulation).
///
/// After it, use `pkt.with_cur(pkt.cur() - len)`.
pub fn push(meta: CsumMeta, pkt: &Packet<'_>, len: usize) -> Transition {
    let cur = pkt.cur();
    let Some(new_cur) = cur.checked_sub(len) else {
        return refuse(
            meta,
            StateError::OutOfBounds {
                what: Span::Push,
                offset: len,
                len: pkt.len(),
            },
        );
    };
    let mut flags = meta.flags() - CsumFlags::CSUM_VALID;
    if new_cur < pkt.layers().l2 {
        // Headers in front of the parsed packet encapsulate it: the origin's
        // word stays with the layer it was about, it never covers a new outer one.
        flags -= CsumFlags::DATA_VALID;
    }
    let (state, sw) = match meta.state() {
        CsumState::Complete { csum } => {
            let part = sum_at(pkt.bytes(), new_cur, new_cur, cur);
            (
                CsumState::Complete {
                    csum: part.add(csum.shifted_by(len)),
                },
                len,
            )
        }
        s => (s, 0),
    };
    Ok(Outcome {
        meta: rebuilt(&meta, state, flags),
        verdict: CsumVerdict::NotChecked,
        reason: Reason::Pushed,
        sw_bytes: sw,
    })
}

/// Trims the packet to `new_len` bytes (Ethernet padding after the IP length;
/// Linux `pskb_trim_rcsum`, which today adjusts a `Complete` sum rather than
/// dropping it to `None`). Refused when `new_len` is before `cur`, before the
/// IP datagram's end (`layers.end`) or past the packet, or would cut a
/// `Partial` field.
///
/// After it, use `pkt.truncated(new_len)`.
pub fn trim(meta: CsumMeta, pkt: &Packet<'_>, new_len: usize) -> Transition {
    let cur = pkt.cur();
    let len = pkt.len();
    if new_len < cur || new_len > len || new_len < pkt.layers().end {
        return refuse(
            meta,
            StateError::OutOfBounds {
                what: Span::Trim,
                offset: new_len,
                len,
            },
        );
    }
    let (state, sw) = match meta.state() {
        CsumState::Complete { csum } => {
            let tail = sum_at(pkt.bytes(), cur, new_len, len);
            let kept = pkt.bytes().get(cur..new_len).unwrap_or(&[]);
            let csum = normalised(remove(csum, tail), kept);
            (CsumState::Complete { csum }, len - new_len)
        }
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            let size = match kind {
                PartialKind::Inet => 2,
                PartialKind::Crc32c => 4,
            };
            let field_end = start.saturating_add(offset).saturating_add(size);
            if field_end > new_len {
                return refuse(
                    meta,
                    StateError::OutOfBounds {
                        what: Span::PartialField,
                        offset: field_end,
                        len: new_len,
                    },
                );
            }
            (meta.state(), 0)
        }
        s => (s, 0),
    };
    Ok(Outcome {
        meta: rebuilt(&meta, state, meta.flags()),
        verdict: CsumVerdict::NotChecked,
        reason: Reason::Trimmed,
        sw_bytes: sw,
    })
}
