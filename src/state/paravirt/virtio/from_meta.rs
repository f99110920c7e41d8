//! From a checksum state to the virtio-net header handed to the peer (Linux
//! `virtio_net_hdr_from_skb`).

use crate::state::paravirt::peer::{Claim, claim, inet_only};
use crate::state::{CsumMeta, Refused};
use crate::wire::{GsoKind, GsoParams};

use super::hdr::{VirtioFlags, VirtioNetHdr, gso_type};
use super::linux_rules;
use crate::state::paravirt::error::{BoundaryError, MetaErrorKind, MetaField, Rule};

/// Where the frame the peer receives begins, relative to our buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct GuestFrame {
    /// Offset in our buffer of the peer's first byte (the IP header for an L3 TUN,
    /// the outer header after decapsulation, 0 for a plain Ethernet tap).
    pub base: usize,
    /// Bytes inserted in the peer's copy before `csum_start` (a VLAN tag taken
    /// from metadata and put back into the frame: Linux's `vlan_hlen`).
    pub vlan_hlen: usize,
}

/// What the peer negotiated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PeerFeatures {
    /// The peer understands `DATA_VALID` (Linux's `has_data_valid`).
    pub data_valid: bool,
    /// Report coalescing with `RSC_INFO` counts instead of offsets
    /// (`VIRTIO_NET_F_RSC_EXT`; the peer finds the checksum by parsing).
    pub rsc_info: bool,
}

fn to_u16(field: MetaField, value: usize) -> Result<u16, BoundaryError> {
    u16::try_from(value).map_err(|_| {
        BoundaryError::new(
            field,
            MetaErrorKind::TooLarge {
                value,
                max: u16::MAX as usize,
            },
        )
    })
}

impl VirtioNetHdr {
    /// The header for a packet handed to the peer, from its metadata, consumed by
    /// move: the header is derived when the packet leaves, never kept beside it
    /// (the wireguard-go stale-header bug cannot be written).
    ///
    /// - `Partial` (Internet) -> `NEEDS_CSUM` with `csum_start` relative to the
    ///   peer's frame (`start - base + vlan_hlen`) and `csum_offset` as is.
    /// - `Unnecessary`, the `DATA_VALID` fact, or a software-verified `Complete`
    ///   (`CSUM_VALID`) -> `DATA_VALID` when the peer negotiated it. Linux sets it
    ///   only for `CHECKSUM_UNNECESSARY`; a verified sum is as good.
    /// - `Complete` not verified and `None` -> no flag (Linux: "everything is
    ///   zero"; the peer must verify).
    /// - A super-packet -> `gso_type`, `gso_size`, `hdr_len`; it must be `Partial`.
    ///
    /// Refused: a CRC32c `Partial` (virtio cannot ask for CRC32c), a blank field
    /// without `Partial` offsets, `start` before `base`, offsets above 65535, GSO
    /// without `Partial`, UFO, `gso_size` 0, and offsets the peer's
    /// `virtio_net_hdr_to_skb` would refuse ([`linux_rules::check_handed_out`]:
    /// `csum_start` below `nh_min_len` or past 65470, a GSO type's other offset).
    ///
    /// A refusal hands `meta` back, unchanged, beside the error.
    pub fn from_meta(
        meta: CsumMeta,
        frame: GuestFrame,
        gso: Option<GsoParams>,
        peer: PeerFeatures,
    ) -> Result<VirtioNetHdr, Refused<BoundaryError>> {
        VirtioNetHdr::for_meta(&meta, frame, gso, peer).map_err(|error| Refused { meta, error })
    }

    /// [`Self::from_meta`] on borrowed metadata.
    fn for_meta(
        meta: &CsumMeta,
        frame: GuestFrame,
        gso: Option<GsoParams>,
        peer: PeerFeatures,
    ) -> Result<VirtioNetHdr, BoundaryError> {
        let mut hdr = VirtioNetHdr::ZERO;
        match claim(meta) {
            Claim::Partial {
                start,
                offset,
                kind,
            } => {
                inet_only(kind)?;
                let rel = start
                    .checked_sub(frame.base)
                    .ok_or(BoundaryError::forbidden(
                        MetaField::FrameBase,
                        Rule::StartBeforeFrame,
                    ))?;
                hdr.flags = VirtioFlags::NEEDS_CSUM;
                hdr.csum_start = to_u16(
                    MetaField::VirtioCsumStart,
                    rel.saturating_add(frame.vlan_hlen),
                )?;
                hdr.csum_offset = to_u16(MetaField::VirtioCsumOffset, offset)?;
            }
            Claim::BlankWithoutOffsets => {
                return Err(BoundaryError::forbidden(
                    MetaField::State,
                    Rule::BlankWithoutOffsets,
                ));
            }
            Claim::Level(_) | Claim::Verified if peer.data_valid => {
                hdr.flags = VirtioFlags::DATA_VALID;
            }
            _ => {}
        }
        if let Some(sp) = gso {
            if !hdr.flags.contains(VirtioFlags::NEEDS_CSUM) {
                return Err(BoundaryError::forbidden(
                    MetaField::Gso,
                    Rule::GsoWithoutChecksumState,
                ));
            }
            if sp.kind == GsoKind::Ufo {
                return Err(BoundaryError::forbidden(
                    MetaField::Gso,
                    Rule::GsoTypeNotExpressible,
                ));
            }
            if sp.gso_size == 0 {
                return Err(BoundaryError::new(MetaField::Gso, MetaErrorKind::Zero));
            }
            if sp.ecn && sp.kind == GsoKind::UdpL4 {
                return Err(BoundaryError::forbidden(MetaField::Gso, Rule::EcnWithUdp));
            }
            hdr.gso_type = sp.kind.virtio_type() | if sp.ecn { gso_type::ECN } else { 0 };
            hdr.gso_size = sp.gso_size;
            hdr.hdr_len = to_u16(MetaField::VirtioHdrLen, sp.hdr_len)?;
        }
        if hdr.flags.contains(VirtioFlags::NEEDS_CSUM) {
            linux_rules::check_handed_out(
                hdr.csum_start as usize,
                hdr.csum_offset as usize,
                gso.map(|sp| sp.kind),
            )?;
        }
        if let Some(sp) = gso
            && peer.rsc_info
        {
            hdr.flags |= VirtioFlags::RSC_INFO;
            hdr.csum_start = to_u16(MetaField::VirtioCsumStart, sp.segs)?;
            hdr.csum_offset = 0;
        }
        Ok(hdr)
    }
}
