//! Transmit fill: finishing a `Partial` checksum in software.

use super::outcome::{CsumVerdict, Outcome, Reason, Span, StateError, Transition, refuse};
use super::packet::PacketMut;
use super::rewrite::{Write, apply};
use super::site::sctp_crc;
use super::types::{CsumFlags, CsumMeta, CsumState, PartialKind};
use crate::csum::{self, Sum16, Wsum};

/// Finishes a `Partial` packet in software before it reaches a consumer that
/// needs a real checksum (a device without offload, a guest without the flag,
/// a capture): Linux `skb_checksum_help` for the Internet checksum (sum from
/// `start` to the end of the packet, the seed in the field included, fold,
/// store; a result of 0 is stored as 0xFFFF, `CSUM_MANGLED_0`) and
/// `skb_crc32c_csum_help` for SCTP (CRC32c with the field read as zero, stored
/// little-endian). The state becomes `None` and `CSUM_BLANK` is cleared;
/// `DATA_VALID` stays. Other states have nothing to fill
/// ([`Reason::NothingToFill`]).
///
/// The sum stops at the end of the IP datagram (`layers.end`): bytes after it
/// (Ethernet padding a guest left on the frame) are not part of the segment,
/// as `ip_rcv` would have trimmed them (`pskb_trim_rcsum`).
/// Which packets to fill (by device features) is the transmit room's decision.
pub fn fill_partial(meta: CsumMeta, pkt: &mut PacketMut<'_>) -> Transition {
    let CsumState::Partial {
        start,
        offset,
        kind,
    } = meta.state()
    else {
        return Ok(Outcome::same(meta, Reason::NothingToFill));
    };
    let len = pkt.bytes().len().min(pkt.layers().end);
    let size = match kind {
        PartialKind::Inet => 2,
        PartialKind::Crc32c => 4,
    };
    let field = start.saturating_add(offset);
    if start > len || field.saturating_add(size) > len {
        return refuse(
            meta,
            StateError::OutOfBounds {
                what: Span::PartialField,
                offset: field.saturating_add(size),
                len,
            },
        );
    }
    let b = pkt.bytes();
    let (write, reason) = match kind {
        PartialKind::Inet => {
            let sum = csum::partial(b.get(start..len).unwrap_or(&[]), Wsum::ZERO);
            let v = csum::fold(sum);
            let v = if v.is_zero() { Sum16::MANGLED_ZERO } else { v };
            (
                Write::new(field, &v.to_bytes(), Span::PartialField),
                Reason::Filled,
            )
        }
        PartialKind::Crc32c => {
            let crc = sctp_crc(b, start, field, len).unwrap_or(0);
            (
                Write::new(field, &crc.to_le_bytes(), Span::PartialField),
                Reason::FilledCrc32c,
            )
        }
    };
    if let Err(e) = apply(pkt, &[write], None) {
        return refuse(meta, e);
    }
    let flags = meta.flags() - CsumFlags::CSUM_BLANK - CsumFlags::CSUM_VALID;
    let meta = CsumMeta::new(CsumState::None, flags).unwrap_or(CsumMeta::NONE);
    Ok(Outcome {
        meta,
        verdict: CsumVerdict::NotChecked,
        reason,
        sw_bytes: len - start,
    })
}
