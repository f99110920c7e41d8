//! Xen netif (`xen/include/public/io/netif.h`): request / response checksum
//! flags and the 8-byte GSO extra-info slot, both directions.
//!
//! The 2005 semantics: *csum_blank* = the L4 field holds only the pseudo-header
//! seed and must be filled before a consumer that needs it; *data_validated* =
//! the data is known good, a fact that survives bridging and routing in the
//! host. Frames the NIC verified reach the guest with `data_validated`; frames
//! the host generated reach it with `csum_blank | data_validated`, and the guest
//! fills the field only if it passes the packet on. The bit positions of the two
//! flags are **swapped** between TX requests and RX responses.

use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::state::{CsumMeta, Refused};
use crate::wire::{Layers, LinkType};

use super::error::{BoundaryError, MetaErrorKind, MetaField, Rule};
use super::peer::{
    Claim, DataValidAs, blank_partial, check_padding, claim, data_valid_meta, inet_only,
};
use super::setup::{SeedCheck, SeedSkip, check_seed, checksum_setup, write_seed};
use super::virtio::{GsoOutcome, SeedPolicy};
use crate::wire::{GsoKind, GsoParams};

bitflags::bitflags! {
    /// `netif_tx_request.flags` (guest to backend).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct XenTxFlags: u16 {
        /// `NETTXF_csum_blank` (bit 0).
        const CSUM_BLANK = 1 << 0;
        /// `NETTXF_data_validated` (bit 1).
        const DATA_VALIDATED = 1 << 1;
        /// `NETTXF_more_data`.
        const MORE_DATA = 1 << 2;
        /// `NETTXF_extra_info`.
        const EXTRA_INFO = 1 << 3;
    }
}

bitflags::bitflags! {
    /// `netif_rx_response.flags` (backend to guest). Note the swap with TX.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct XenRxFlags: u16 {
        /// `NETRXF_data_validated` (bit 0).
        const DATA_VALIDATED = 1 << 0;
        /// `NETRXF_csum_blank` (bit 1).
        const CSUM_BLANK = 1 << 1;
        /// `NETRXF_more_data`.
        const MORE_DATA = 1 << 2;
        /// `NETRXF_extra_info`.
        const EXTRA_INFO = 1 << 3;
    }
}

/// The checksum facts a netif slot carries, independent of the bit positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XenCsum {
    /// Neither flag: the receiver must verify.
    Unknown,
    /// `data_validated` only: the field is filled and correct.
    Validated,
    /// `csum_blank` only (a peer that forgot `data_validated`; read as blank).
    Blank,
    /// `csum_blank | data_validated`: a locally generated packet.
    BlankValidated,
}

impl XenCsum {
    const fn from_bits(blank: bool, validated: bool) -> XenCsum {
        match (blank, validated) {
            (false, false) => XenCsum::Unknown,
            (false, true) => XenCsum::Validated,
            (true, false) => XenCsum::Blank,
            (true, true) => XenCsum::BlankValidated,
        }
    }

    /// The field is blank.
    pub const fn is_blank(self) -> bool {
        matches!(self, XenCsum::Blank | XenCsum::BlankValidated)
    }

    /// The data is validated.
    pub const fn is_validated(self) -> bool {
        matches!(self, XenCsum::Validated | XenCsum::BlankValidated)
    }

    /// From TX request flags (other bits ignored).
    pub const fn from_tx(flags: XenTxFlags) -> XenCsum {
        XenCsum::from_bits(
            flags.contains(XenTxFlags::CSUM_BLANK),
            flags.contains(XenTxFlags::DATA_VALIDATED),
        )
    }

    /// From RX response flags (other bits ignored).
    pub const fn from_rx(flags: XenRxFlags) -> XenCsum {
        XenCsum::from_bits(
            flags.contains(XenRxFlags::CSUM_BLANK),
            flags.contains(XenRxFlags::DATA_VALIDATED),
        )
    }

    /// As TX request flags.
    pub const fn to_tx(self) -> XenTxFlags {
        let mut f = XenTxFlags::empty();
        if self.is_blank() {
            f = f.union(XenTxFlags::CSUM_BLANK);
        }
        if self.is_validated() {
            f = f.union(XenTxFlags::DATA_VALIDATED);
        }
        f
    }

    /// As RX response flags.
    pub const fn to_rx(self) -> XenRxFlags {
        let mut f = XenRxFlags::empty();
        if self.is_blank() {
            f = f.union(XenRxFlags::CSUM_BLANK);
        }
        if self.is_validated() {
            f = f.union(XenRxFlags::DATA_VALIDATED);
        }
        f
    }
}

/// `XEN_NETIF_EXTRA_TYPE_GSO`.
pub const EXTRA_TYPE_GSO: u8 = 1;
/// `XEN_NETIF_EXTRA_FLAG_MORE`: another extra slot follows.
pub const EXTRA_FLAG_MORE: u8 = 1;
/// `XEN_NETIF_GSO_TYPE_TCPV4`.
pub const GSO_TYPE_TCPV4: u8 = 1;
/// `XEN_NETIF_GSO_TYPE_TCPV6`.
pub const GSO_TYPE_TCPV6: u8 = 2;

/// Wire image of `struct netif_extra_info` with the GSO union member (8 bytes,
/// host byte order; little-endian here, as on every Xen platform in use).
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
struct RawExtra {
    kind: u8,
    flags: u8,
    size: U16,
    gso_type: u8,
    pad: u8,
    features: U16,
}

/// A checked GSO extra-info slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XenGso {
    /// TCPv4 or TCPv6 (the only types netif defines).
    pub kind: GsoKind,
    /// Payload bytes per segment (`u.gso.size`).
    pub size: u16,
    /// `u.gso.features` (no bits defined; kept as read).
    pub features: u16,
    /// `XEN_NETIF_EXTRA_FLAG_MORE`.
    pub more: bool,
}

impl XenGso {
    /// Size of the slot.
    pub const LEN: usize = 8;

    /// Reads a GSO extra slot (`xenvif_set_skb_gso` checks: size non-zero, type
    /// TCPv4/TCPv6).
    pub fn parse(bytes: &[u8]) -> Result<XenGso, BoundaryError> {
        let (raw, _) = RawExtra::read_from_prefix(bytes).map_err(|_| {
            BoundaryError::new(
                MetaField::HeaderBytes,
                MetaErrorKind::Truncated {
                    needed: XenGso::LEN,
                    available: bytes.len(),
                },
            )
        })?;
        if raw.kind != EXTRA_TYPE_GSO {
            return Err(BoundaryError::unsupported(
                MetaField::XenExtraType,
                raw.kind as u64,
            ));
        }
        if raw.flags & !EXTRA_FLAG_MORE != 0 {
            return Err(BoundaryError::unsupported(
                MetaField::XenExtraFlags,
                raw.flags as u64,
            ));
        }
        let kind = match raw.gso_type {
            GSO_TYPE_TCPV4 => GsoKind::TcpV4,
            GSO_TYPE_TCPV6 => GsoKind::TcpV6,
            other => {
                return Err(BoundaryError::unsupported(
                    MetaField::XenGsoType,
                    other as u64,
                ));
            }
        };
        if raw.size.get() == 0 {
            return Err(BoundaryError::new(
                MetaField::XenGsoSize,
                MetaErrorKind::Zero,
            ));
        }
        Ok(XenGso {
            kind,
            size: raw.size.get(),
            features: raw.features.get(),
            more: raw.flags & EXTRA_FLAG_MORE != 0,
        })
    }

    /// Writes the 8 bytes (padding zeroed).
    pub fn write(&self, out: &mut [u8]) -> Result<usize, BoundaryError> {
        let gso_type = match self.kind {
            GsoKind::TcpV4 => GSO_TYPE_TCPV4,
            GsoKind::TcpV6 => GSO_TYPE_TCPV6,
            GsoKind::Ufo | GsoKind::UdpL4 => {
                return Err(BoundaryError::forbidden(
                    MetaField::Gso,
                    Rule::GsoTypeNotExpressible,
                ));
            }
        };
        let raw = RawExtra {
            kind: EXTRA_TYPE_GSO,
            flags: if self.more { EXTRA_FLAG_MORE } else { 0 },
            size: U16::new(self.size),
            gso_type,
            pad: 0,
            features: U16::new(self.features),
        };
        let available = out.len();
        let dst = out.get_mut(..XenGso::LEN).ok_or(BoundaryError::new(
            MetaField::HeaderBytes,
            MetaErrorKind::Truncated {
                needed: XenGso::LEN,
                available,
            },
        ))?;
        dst.copy_from_slice(raw.as_bytes());
        Ok(XenGso::LEN)
    }
}

/// What `data_validated` is worth from this peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XenTrust {
    /// `CHECKSUM_UNNECESSARY` level 0 plus the `DATA_VALID` fact (Linux).
    Unnecessary,
    /// Only the `DATA_VALID` fact.
    Flag,
    /// Dropped: the packet is verified like any other.
    Ignore,
}

/// The Linux fix-ups a received slot may need.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XenFixup {
    /// None.
    None,
    /// A GSO frame arrived without `csum_blank`: forced to `Partial` and the
    /// seed rewritten (netfront/netback `rx_gso_checksum_fixup`).
    GsoChecksumFixup,
}

/// What a received slot says about its packet.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub struct XenInbound {
    /// The checksum metadata.
    pub meta: CsumMeta,
    /// Segmentation.
    pub gso: GsoOutcome,
    /// Seed outcome of a `Partial`.
    pub seed: Option<SeedCheck>,
    /// Fix-up applied to the frame.
    pub fixup: XenFixup,
    /// The frame's layers when this mapping parsed it (a blank or GSO slot:
    /// `checksum_setup` parses); `None` otherwise. Hand them on instead of
    /// parsing again.
    pub layers: Option<Layers>,
}

/// A received slot to checksum metadata (netback `xenvif_tx_submit` +
/// `checksum_setup`, netfront `xennet_poll`): `csum_blank` -> `Partial` at the
/// parsed TCP/UDP header (Xen carries no offsets); `data_validated` -> per
/// `trust`; a GSO frame without `csum_blank` is forced to `Partial` and its seed
/// rewritten, as Linux does (the only write to `frame`, done after every check).
pub fn to_meta(
    csum: XenCsum,
    frame: &mut [u8],
    link: LinkType,
    gso: Option<XenGso>,
    trust: XenTrust,
    seed: SeedPolicy,
) -> Result<XenInbound, BoundaryError> {
    // A slot built by hand rather than by `XenGso::parse` gets the same
    // `xenvif_set_skb_gso` check (and no division by a zero size).
    if gso.is_some_and(|g| g.size == 0) {
        return Err(BoundaryError::new(
            MetaField::XenGsoSize,
            MetaErrorKind::Zero,
        ));
    }
    let force_partial = gso.is_some() && !csum.is_blank();
    if csum.is_blank() || force_partial {
        let setup = checksum_setup(frame, link)?;
        let l = setup.layers;
        check_padding(frame, &l, crate::state::PartialKind::Inet)?;
        let gso_out = match gso {
            None => GsoOutcome::NotGso,
            Some(g) => {
                let ok = matches!(
                    (g.kind, l.net, l.transport),
                    (
                        GsoKind::TcpV4,
                        crate::wire::Net::Ipv4,
                        crate::wire::Transport::Tcp
                    ) | (
                        GsoKind::TcpV6,
                        crate::wire::Net::Ipv6,
                        crate::wire::Transport::Tcp
                    )
                );
                if !ok {
                    let expected = GsoKind::for_layers(&l).map_or(0, |k| match k {
                        GsoKind::TcpV4 => GSO_TYPE_TCPV4,
                        GsoKind::TcpV6 => GSO_TYPE_TCPV6,
                        GsoKind::Ufo | GsoKind::UdpL4 => 0,
                    });
                    // `XenGso::parse` makes only the TCP kinds.
                    let found = match g.kind {
                        GsoKind::TcpV4 => GSO_TYPE_TCPV4,
                        GsoKind::TcpV6 | GsoKind::Ufo | GsoKind::UdpL4 => GSO_TYPE_TCPV6,
                    };
                    return Err(BoundaryError::mismatch(
                        MetaField::XenGsoType,
                        expected as u64,
                        found as u64,
                    ));
                }
                let payload = l.payload_len();
                if payload <= g.size as usize {
                    GsoOutcome::FitsOneSegment
                } else {
                    GsoOutcome::Segment(GsoParams {
                        kind: g.kind,
                        ecn: false,
                        gso_size: g.size,
                        hdr_len: l.payload,
                        segs: payload.div_ceil(g.size as usize),
                    })
                }
            }
        };
        let (check, fixup) = if force_partial {
            write_seed(frame, &setup)?;
            (SeedCheck::Recalculated, XenFixup::GsoChecksumFixup)
        } else {
            let check = match seed {
                SeedPolicy::Verify => check_seed(frame, &l, setup.start, setup.offset)?,
                SeedPolicy::Trust => SeedCheck::Skipped(SeedSkip::PolicyTrust),
            };
            (check, XenFixup::None)
        };
        return Ok(XenInbound {
            meta: blank_partial(setup.start, setup.offset),
            gso: gso_out,
            seed: Some(check),
            fixup,
            layers: Some(l),
        });
    }
    let meta = if csum.is_validated() {
        data_valid_meta(match trust {
            XenTrust::Unnecessary => DataValidAs::Level,
            XenTrust::Flag => DataValidAs::Flag,
            XenTrust::Ignore => DataValidAs::Ignored,
        })
    } else {
        CsumMeta::NONE
    };
    Ok(XenInbound {
        meta,
        gso: GsoOutcome::NotGso,
        seed: None,
        fixup: XenFixup::None,
        layers: None,
    })
}

/// What to put in an outgoing slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct XenOutbound {
    /// Checksum facts (turn into bits with [`XenCsum::to_tx`] / [`XenCsum::to_rx`]).
    pub csum: XenCsum,
    /// The GSO extra slot, if the packet is a super-packet.
    pub gso: Option<XenGso>,
}

/// Checksum metadata to an outgoing slot (netfront `xennet_start_xmit`, netback
/// guest-RX), consuming the metadata:
///
/// - `Partial` -> `csum_blank | data_validated`, only where the peer can re-derive
///   the offsets by parsing (plain IPv4/IPv6 TCP/UDP at the transport header);
/// - `Unnecessary`, `DATA_VALID`, or a verified `Complete` (`CSUM_VALID`) ->
///   `data_validated` (the NIC verified it; Linux forgets the verified sum);
/// - otherwise nothing.
///
/// A super-packet must carry `csum_blank` or `data_validated` (mirage-net-xen
/// #123: aggregated frames without it are re-segmented with the parent's
/// checksum by Windows, or fixed up in software by Linux); without either it is
/// refused, so the caller verifies first.
///
/// A refusal hands `meta` back, unchanged, beside the error.
pub fn from_meta(
    meta: CsumMeta,
    frame: &[u8],
    link: LinkType,
    gso: Option<GsoParams>,
) -> Result<XenOutbound, Refused<BoundaryError>> {
    outbound(&meta, frame, link, gso).map_err(|error| Refused { meta, error })
}

/// [`from_meta`] on borrowed metadata.
fn outbound(
    meta: &CsumMeta,
    frame: &[u8],
    link: LinkType,
    gso: Option<GsoParams>,
) -> Result<XenOutbound, BoundaryError> {
    let csum = match claim(meta) {
        Claim::Partial {
            start,
            offset,
            kind,
        } => {
            inet_only(kind)?;
            let setup = checksum_setup(frame, link).map_err(|_| {
                BoundaryError::forbidden(MetaField::State, Rule::PartialNotAtTransport)
            })?;
            if setup.start != start || setup.offset != offset {
                return Err(BoundaryError::forbidden(
                    MetaField::State,
                    Rule::PartialNotAtTransport,
                ));
            }
            XenCsum::BlankValidated
        }
        Claim::BlankWithoutOffsets => {
            return Err(BoundaryError::forbidden(
                MetaField::State,
                Rule::BlankWithoutOffsets,
            ));
        }
        Claim::Level(_) | Claim::Verified => XenCsum::Validated,
        Claim::Unknown => XenCsum::Unknown,
    };
    let gso = match gso {
        None => None,
        Some(sp) => {
            if csum == XenCsum::Unknown {
                return Err(BoundaryError::forbidden(
                    MetaField::Gso,
                    Rule::GsoWithoutChecksumState,
                ));
            }
            if !matches!(sp.kind, GsoKind::TcpV4 | GsoKind::TcpV6) {
                return Err(BoundaryError::forbidden(
                    MetaField::Gso,
                    Rule::GsoTypeNotExpressible,
                ));
            }
            if sp.gso_size == 0 {
                return Err(BoundaryError::new(MetaField::Gso, MetaErrorKind::Zero));
            }
            Some(XenGso {
                kind: sp.kind,
                size: sp.gso_size,
                features: 0,
                more: false,
            })
        }
    };
    Ok(XenOutbound { csum, gso })
}
