//! Software checksum fill on transmit: the fallback when the device cannot
//! offload (Linux `skb_checksum_help`, `skb_crc32c_csum_help`, and Xen
//! netback's `skb_checksum_setup` for blank packets).

use super::decide::{Fill, FillFrom, TxAction};
use super::error::{TxError, TxRefusal};
use super::pseudo::{pseudo_sum, seed};
use crate::csum::{self, Sum16, Wsum};
use crate::state::{CsumFlags, CsumMeta, CsumState, PartialKind};
use crate::wire::{Layers, Transport};

/// Does a [`TxAction::FillSoftware`] on the frame and returns the new metadata
/// (`None`, `csum_blank` cleared, other facts kept), like `skb_checksum_help`.
///
/// The fill sums up to `layers.end` (the IP length), so trailing padding never
/// enters the sum. Checks every offset first: on error nothing is written and
/// the metadata comes back unchanged in the [`TxRefusal`].
pub fn fill(
    frame: &mut [u8],
    layers: &Layers,
    meta: CsumMeta,
    action: &TxAction,
) -> Result<CsumMeta, TxRefusal> {
    let TxAction::FillSoftware(f) = action else {
        return Err(TxRefusal {
            meta,
            error: TxError::NotAFill,
        });
    };
    match fill_bytes(frame, layers, f) {
        Ok(()) => {
            let flags = meta
                .flags()
                .difference(CsumFlags::CSUM_BLANK | CsumFlags::COMPLETE_SW);
            match CsumMeta::new(CsumState::None, flags) {
                Ok(m) => Ok(m),
                // Unreachable: None with no COMPLETE_SW and no blank is always valid.
                Err(_) => Ok(CsumMeta::from_state(CsumState::None)),
            }
        }
        Err(error) => Err(TxRefusal { meta, error }),
    }
}

fn fill_bytes(frame: &mut [u8], layers: &Layers, f: &Fill) -> Result<(), TxError> {
    let end = layers.end;
    if end > frame.len() {
        return Err(TxError::LayersBeyondBuffer {
            end,
            available: frame.len(),
        });
    }
    let width = match f.kind {
        PartialKind::Inet => 2,
        PartialKind::Crc32c => 4,
    };
    let at = f.start.checked_add(f.offset);
    let field = match at {
        Some(at) if at.checked_add(width).is_some_and(|e| e <= end) => at,
        _ => {
            return Err(TxError::PartialOutOfRange {
                start: f.start,
                offset: f.offset,
                end,
            });
        }
    };
    let pkt = frame.get_mut(..end).ok_or(TxError::LayersBeyondBuffer {
        end,
        available: end,
    })?;
    if f.kind == PartialKind::Crc32c {
        crc32c_help(pkt, f.start, field);
        return Ok(());
    }
    if f.from == FillFrom::Scratch {
        // Seed the field as the stack would have for a Partial packet.
        let s = match layers.transport {
            Transport::Icmp => Sum16::ZERO,
            Transport::Tcp | Transport::Udp | Transport::Icmpv6 => {
                let l4_len = end.saturating_sub(f.start);
                let p = pseudo_sum(pkt, layers, layers.ip_proto, l4_len).ok_or(
                    TxError::LayersBeyondBuffer {
                        end: layers.pseudo_dst,
                        available: end,
                    },
                )?;
                seed(p)
            }
            t => return Err(TxError::BlankWithoutChecksumField { transport: t }),
        };
        write16(pkt, field, s);
    }
    checksum_help(pkt, f.start, field);
    Ok(())
}

fn write16(pkt: &mut [u8], at: usize, v: Sum16) {
    if let Some(b) = pkt.get_mut(at..at + 2) {
        b.copy_from_slice(&v.to_bytes());
    }
}

/// `skb_checksum_help`: sum from `start` to the end (the field holds the seed),
/// store the folded result, 0 as `CSUM_MANGLED_0`. Offsets checked by the caller.
// TODO(state): replace by the state room's fill once it lands.
fn checksum_help(pkt: &mut [u8], start: usize, field: usize) {
    let sum = csum::partial(pkt.get(start..).unwrap_or(&[]), Wsum::ZERO);
    write16(pkt, field, csum::fold(sum).udp_mangle_zero());
}

/// `skb_crc32c_csum_help`: CRC32c from `start` to the end with the field zeroed,
/// stored little-endian (`cpu_to_le32`, as SCTP does).
// TODO(state): replace by the state room's fill once it lands.
fn crc32c_help(pkt: &mut [u8], start: usize, field: usize) {
    if let Some(b) = pkt.get_mut(field..field + 4) {
        b.fill(0);
    }
    let crc = csum::crc32c(pkt.get(start..).unwrap_or(&[]));
    if let Some(b) = pkt.get_mut(field..field + 4) {
        b.copy_from_slice(&crc.to_le_bytes());
    }
}
