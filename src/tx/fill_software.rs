//! Software checksum fill on transmit: the fallback when the device cannot
//! offload. The arithmetic is the state room's [`state::fill_partial`]
//! (`skb_checksum_help`, `skb_crc32c_csum_help`); this module checks the
//! transmit decision's offsets against the frame and trims the padding.

use super::decide::{Fill, TxAction};
use super::error::TxError;
use crate::state::{self, CsumFlags, CsumMeta, CsumState, PacketMut, PartialKind, Refused};
use crate::wire::Layers;

/// Does a [`TxAction::FillSoftware`] on the frame and returns the new metadata
/// (`None`, `csum_blank` cleared, `DATA_VALID` kept), via [`state::fill_partial`].
///
/// The fill sums up to `layers.end` (the IP length), so trailing padding never
/// enters the sum. Checks every offset first: on error nothing is written and
/// the metadata comes back unchanged in the [`Refused`].
pub fn fill_software(
    frame: &mut [u8],
    layers: &Layers,
    meta: CsumMeta,
    action: &TxAction,
) -> Result<CsumMeta, Refused<TxError>> {
    let TxAction::FillSoftware(f) = action else {
        return Err(Refused {
            meta,
            error: TxError::NotAFill,
        });
    };
    match fill_bytes(frame, layers, &meta, f) {
        Ok(m) => Ok(m),
        Err(error) => Err(Refused { meta, error }),
    }
}

fn fill_bytes(
    frame: &mut [u8],
    layers: &Layers,
    meta: &CsumMeta,
    f: &Fill,
) -> Result<CsumMeta, TxError> {
    let end = layers.end;
    let available = frame.len();
    let pkt = frame
        .get_mut(..end)
        .ok_or(TxError::LayersBeyondBuffer { end, available })?;
    let width = match f.kind {
        PartialKind::Inet => 2,
        PartialKind::Crc32c => 4,
    };
    let field_end = f
        .start
        .checked_add(f.offset)
        .and_then(|at| at.checked_add(width));
    if field_end.is_none_or(|e| e > end) {
        return Err(TxError::PartialOutOfRange {
            start: f.start,
            offset: f.offset,
            end,
        });
    }
    // The decision's coordinates, with the packet's side facts.
    let partial = CsumState::Partial {
        start: f.start,
        offset: f.offset,
        kind: f.kind,
    };
    let flags = meta.flags().difference(CsumFlags::COMPLETE_SW);
    let as_partial = CsumMeta::new(partial, flags).map_err(|e| TxError::Fill {
        error: state::StateError::Meta(e),
    })?;
    let mut view =
        PacketMut::new(pkt, *layers, layers.l3).map_err(|error| TxError::Fill { error })?;
    state::fill_partial(as_partial, &mut view)
        .map(|outcome| outcome.meta)
        .map_err(|refused| TxError::Fill {
            error: refused.error,
        })
}
