//! Typed errors of the metadata boundaries: which field, what is wrong with it.

use core::fmt;

use crate::wire::ParseError;

/// The metadata field (or packet fact) whose value was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MetaField {
    /// The header bytes as a whole (too short for the layout).
    HeaderBytes,
    /// virtio `flags`.
    VirtioFlags,
    /// virtio `gso_type`.
    VirtioGsoType,
    /// virtio `hdr_len`.
    VirtioHdrLen,
    /// virtio `gso_size`.
    VirtioGsoSize,
    /// virtio `csum_start`.
    VirtioCsumStart,
    /// virtio `csum_offset`.
    VirtioCsumOffset,
    /// The L4 checksum field the offsets point at (its pseudo-header seed).
    ChecksumSeed,
    /// Xen netif request / response `flags`.
    XenFlags,
    /// Xen extra-info `type`.
    XenExtraType,
    /// Xen extra-info `flags`.
    XenExtraFlags,
    /// Xen GSO extra `type`.
    XenGsoType,
    /// Xen GSO extra `size`.
    XenGsoSize,
    /// DPDK `ol_flags`.
    DpdkOlFlags,
    /// DPDK `l2_len` / `l3_len` / `l4_len` / `outer_l2_len` / `outer_l3_len`.
    DpdkLengths,
    /// DPDK `tso_segsz`.
    DpdkTsoSegsz,
    /// AF_PACKET `tp_status`.
    TpStatus,
    /// The packet's own headers (they did not parse, or disagree with the metadata).
    Packet,
    /// Our own checksum state (it cannot be expressed at this boundary).
    State,
    /// Segmentation parameters handed in by the caller.
    Gso,
    /// The frame base / VLAN adjustment handed in by the caller.
    FrameBase,
}

/// What is wrong with the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MetaErrorKind {
    /// Fewer bytes than the layout needs.
    Truncated {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// A value this boundary does not know or refuses (unknown type, reserved bits).
    Unsupported {
        /// The value as read.
        value: u64,
    },
    /// An offset or length that reaches past the packet.
    OutOfPacket {
        /// The value (an end offset: `start + offset + 2` and the like).
        value: usize,
        /// The limit it had to stay within.
        limit: usize,
    },
    /// A value that disagrees with what the packet itself says.
    Mismatch {
        /// What the packet (or the protocol) requires.
        expected: u64,
        /// What the metadata says.
        found: u64,
    },
    /// Zero where zero is meaningless (`gso_size` 0 with a GSO type).
    Zero,
    /// A value below the smallest the protocol allows (a `csum_start` inside
    /// the minimal IP header: Linux's `nh_min_len`).
    TooSmall {
        /// The value.
        value: usize,
        /// The smallest allowed.
        min: usize,
    },
    /// A value that is too large for the field (`u16` offsets, `GSO_BY_FRAGS`).
    TooLarge {
        /// The value.
        value: usize,
        /// The largest allowed.
        max: usize,
    },
    /// A rule of the protocol is broken; the reason names it.
    Forbidden(Rule),
    /// The packet's headers did not parse.
    Parse(ParseError),
}

/// The protocol rules a [`MetaErrorKind::Forbidden`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// virtio: a driver must not set `RSC_INFO` on transmit.
    RscInfoOnTransmit,
    /// virtio: `RSC_INFO` without `VIRTIO_NET_F_RSC_EXT` negotiated.
    RscInfoNotNegotiated,
    /// virtio: `DATA_VALID` from a driver, refused by policy.
    DataValidOnTransmit,
    /// virtio: `UDP_TUNNEL_CSUM` with `DATA_VALID` from a device, without the
    /// tunnel checksum feature (Linux `virtio_net_handle_csum_offload`).
    TunnelCsumNotNegotiated,
    /// A GSO type without `NEEDS_CSUM` / `csum_blank` (spec: MUST set it; Linux
    /// requires it for `UDP_L4` since 2023, and `tcp_gso_segment` needs it).
    GsoWithoutNeedsCsum,
    /// ECN on a UDP GSO type (Linux refuses `UDP_L4 | ECN`).
    EcnWithUdp,
    /// `csum_start` before the transport header the packet parses to.
    StartBeforeTransport,
    /// GSO whose `csum_start` is not the transport header (`tcp_gso_segment` check).
    GsoStartNotTransport,
    /// GSO on an IP fragment.
    GsoOnFragment,
    /// `UDP_L4` payload more than `gso_size * UDP_MAX_SEGMENTS`.
    TooManySegments,
    /// SCTP needs CRC32c; this boundary can only ask for an Internet checksum.
    SctpNeedsCrc32c,
    /// A CRC32c `Partial` cannot be expressed at this boundary (fill it first).
    Crc32cNotExpressible,
    /// A blank checksum field without the offsets to fill it (restore `Partial`
    /// or fill it in software first).
    BlankWithoutOffsets,
    /// GSO handed out with a state that is neither `Partial` nor validated.
    GsoWithoutChecksumState,
    /// A `Partial` whose offsets the peer cannot re-derive (not the plain
    /// IPv4/IPv6 TCP/UDP transport header, as `skb_checksum_setup` needs).
    PartialNotAtTransport,
    /// `csum_blank` / `CSUMNOTREADY` on a packet that is not plain TCP/UDP.
    BlankOnUnsupportedProtocol,
    /// A GSO type this boundary cannot carry.
    GsoTypeNotExpressible,
    /// Both checksum bits of a 2-bit DPDK status set where that means "invalid".
    InvalidStatus,
    /// The TX request asks for segmentation without a checksum request.
    SegmentationWithoutChecksum,
    /// The `Partial` start lies before the frame handed to the peer.
    StartBeforeFrame,
}

/// A refused metadata value: the field and what is wrong with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoundaryError {
    /// The field at fault.
    pub field: MetaField,
    /// What is wrong with it.
    pub kind: MetaErrorKind,
}

impl BoundaryError {
    /// Builds an error.
    pub const fn new(field: MetaField, kind: MetaErrorKind) -> BoundaryError {
        BoundaryError { field, kind }
    }

    /// A broken rule on a field.
    pub const fn forbidden(field: MetaField, rule: Rule) -> BoundaryError {
        BoundaryError::new(field, MetaErrorKind::Forbidden(rule))
    }

    /// An offset past the packet.
    pub const fn out_of_packet(field: MetaField, value: usize, limit: usize) -> BoundaryError {
        BoundaryError::new(field, MetaErrorKind::OutOfPacket { value, limit })
    }

    /// A value the packet disagrees with.
    pub const fn mismatch(field: MetaField, expected: u64, found: u64) -> BoundaryError {
        BoundaryError::new(field, MetaErrorKind::Mismatch { expected, found })
    }

    /// A value below its minimum.
    pub const fn too_small(field: MetaField, value: usize, min: usize) -> BoundaryError {
        BoundaryError::new(field, MetaErrorKind::TooSmall { value, min })
    }

    /// A value above its maximum.
    pub const fn too_large(field: MetaField, value: usize, max: usize) -> BoundaryError {
        BoundaryError::new(field, MetaErrorKind::TooLarge { value, max })
    }

    /// An unknown or refused value.
    pub const fn unsupported(field: MetaField, value: u64) -> BoundaryError {
        BoundaryError::new(field, MetaErrorKind::Unsupported { value })
    }
}

impl From<ParseError> for BoundaryError {
    fn from(e: ParseError) -> Self {
        BoundaryError::new(MetaField::Packet, MetaErrorKind::Parse(e))
    }
}

impl fmt::Display for BoundaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: ", self.field)?;
        match self.kind {
            MetaErrorKind::Truncated { needed, available } => {
                write!(f, "needs {needed} bytes, {available} available")
            }
            MetaErrorKind::Unsupported { value } => write!(f, "value {value:#x} not supported"),
            MetaErrorKind::OutOfPacket { value, limit } => {
                write!(f, "reaches byte {value}, packet ends at {limit}")
            }
            MetaErrorKind::Mismatch { expected, found } => {
                write!(f, "is {found:#x}, the packet says {expected:#x}")
            }
            MetaErrorKind::Zero => write!(f, "must not be zero"),
            MetaErrorKind::TooSmall { value, min } => write!(f, "{value} is below {min}"),
            MetaErrorKind::TooLarge { value, max } => write!(f, "{value} exceeds {max}"),
            MetaErrorKind::Forbidden(rule) => write!(f, "forbidden: {rule:?}"),
            MetaErrorKind::Parse(e) => write!(f, "packet does not parse: {e}"),
        }
    }
}

#[cfg(feature = "std")]
impl core::error::Error for BoundaryError {}
