//! What a paravirtual peer's checksum bits become, shared by the virtio and
//! Xen boundaries (both model Linux's reading of a guest's `NEEDS_CSUM` /
//! `csum_blank` and `DATA_VALID` / `data_validated`).

use crate::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};

use super::error::{BoundaryError, MetaField, Rule};
use crate::wire::Layers;

/// A peer's `Partial` (virtio `NEEDS_CSUM`, Xen `csum_blank`): its own locally
/// generated data, so the field is blank (to be filled) and the data is as
/// good as the peer made it.
pub(crate) fn blank_partial(start: usize, offset: usize) -> CsumMeta {
    CsumMeta::new(
        CsumState::Partial {
            start,
            offset,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK.union(CsumFlags::DATA_VALID),
    )
    .unwrap_or(CsumMeta::NONE)
}

/// How a trusted "data validated" bit is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataValidAs {
    /// `CHECKSUM_UNNECESSARY` level 0 plus `DATA_VALID` (what Linux does).
    Level,
    /// Only the `DATA_VALID` flag.
    Flag,
    /// Not recorded.
    Ignored,
}

/// The metadata for a peer's "data validated" bit, recorded as `how`. Either
/// way it covers one checksum, the outermost (Linux: `CHECKSUM_UNNECESSARY`
/// level 0): validation of that layer uses it up and decapsulation drops it.
pub(crate) fn data_valid_meta(how: DataValidAs) -> CsumMeta {
    let state = match how {
        DataValidAs::Level => CsumState::Unnecessary {
            level: CsumLevel::L0,
        },
        DataValidAs::Flag => CsumState::None,
        DataValidAs::Ignored => return CsumMeta::NONE,
    };
    CsumMeta::new(state, CsumFlags::DATA_VALID).unwrap_or(CsumMeta::NONE)
}

/// Virtio and Xen carry only Internet-checksum offsets: a CRC32c `Partial`
/// must be filled before it crosses.
pub(crate) fn inet_only(kind: PartialKind) -> Result<(), BoundaryError> {
    match kind {
        PartialKind::Inet => Ok(()),
        PartialKind::Crc32c => Err(BoundaryError::forbidden(
            MetaField::State,
            Rule::Crc32cNotExpressible,
        )),
    }
}

/// What checksum metadata lets a boundary tell its peer, decided in the one
/// order every exporter uses: a `Partial` first, then a blank field, then a
/// device level, then a verification. No exporter may claim more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// A `Partial`: the field at `start + offset` is still to be filled.
    Partial {
        start: usize,
        offset: usize,
        kind: PartialKind,
    },
    /// `CSUM_BLANK` without a `Partial` (refused by [`CsumMeta::new`]; kept
    /// so a boundary never reads it as "valid").
    BlankWithoutOffsets,
    /// `Unnecessary`: the device verified `level + 1` checksums.
    Level(CsumLevel),
    /// Verified in this pass (`CSUM_VALID`) or vouched for by the origin
    /// (`DATA_VALID`).
    Verified,
    /// Nothing is known.
    Unknown,
}

/// The [`Claim`] of `meta`.
pub(crate) fn claim(meta: &CsumMeta) -> Claim {
    let flags = meta.flags();
    match meta.state() {
        CsumState::Partial {
            start,
            offset,
            kind,
        } => Claim::Partial {
            start,
            offset,
            kind,
        },
        CsumState::None | CsumState::Unnecessary { .. } | CsumState::Complete { .. }
            if flags.contains(CsumFlags::CSUM_BLANK) =>
        {
            Claim::BlankWithoutOffsets
        }
        CsumState::Unnecessary { level } => Claim::Level(level),
        CsumState::None | CsumState::Complete { .. }
            if flags.intersects(CsumFlags::DATA_VALID.union(CsumFlags::CSUM_VALID)) =>
        {
            Claim::Verified
        }
        CsumState::None | CsumState::Complete { .. } => Claim::Unknown,
    }
}

/// Refuses bytes after the datagram at `layers` (Ethernet padding) that a
/// `Partial` fill would sum in: it runs to the end of the data, as a NIC does,
/// so only zeros (which add nothing to an Internet checksum, but change a
/// CRC32c) may follow. Linux trims them in `ip_rcv`, but not before a fill on
/// the forwarding path.
pub(crate) fn check_padding(
    frame: &[u8],
    layers: &Layers,
    kind: PartialKind,
) -> Result<(), BoundaryError> {
    let pad = frame.get(layers.end..).unwrap_or(&[]);
    let summed_in = match kind {
        PartialKind::Inet => pad.iter().any(|&b| b != 0),
        PartialKind::Crc32c => !pad.is_empty(),
    };
    if summed_in {
        return Err(BoundaryError::forbidden(
            MetaField::Packet,
            Rule::BytesAfterDatagram,
        ));
    }
    Ok(())
}
