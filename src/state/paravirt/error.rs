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
    // DPDK `rte_validate_tx_offload` (22.11), one variant per `-EINVAL` rule,
    // then the checks this crate adds for a sound state.
    /// DPDK: `TX_IP_CKSUM` with `TX_IPV6` (only IPv4 has a header checksum).
    DpdkIpChecksumOnIpv6,
    /// DPDK: an L4 checksum or `TX_TCP_SEG` without `TX_IPV4` / `TX_IPV6`.
    DpdkL4WithoutIpVersion,
    /// DPDK: `TX_TCP_SEG` with `tso_segsz` 0.
    DpdkTsoWithoutSegmentSize,
    /// DPDK: IPv4 `TX_TCP_SEG` without `TX_IP_CKSUM` (each segment's header
    /// checksum changes, so the NIC must write it).
    DpdkIpv4TsoWithoutIpChecksum,
    /// DPDK: `TX_OUTER_IP_CKSUM` without `TX_OUTER_IPV4`.
    DpdkOuterIpChecksumWithoutOuterIpv4,
    /// DPDK (this crate): both `TX_IPV4` and `TX_IPV6`; a packet is one of them.
    DpdkBothIpVersions,
    /// DPDK (this crate): an L4 request on an IP fragment (its checksum covers
    /// the whole datagram, not this fragment).
    DpdkL4OnFragment,
    /// Bytes after the IP datagram (Ethernet padding) that a `Partial` fill
    /// would sum in (it runs to the end of the data, as a NIC and Linux's
    /// `skb_checksum_help` do): any for SCTP's CRC32c, non-zero ones for an
    /// Internet checksum. This crate's rule for every boundary that hands out
    /// a `Partial` (DPDK transmit, virtio `NEEDS_CSUM`); Linux trims on
    /// `ip_rcv` but forwards untrimmed.
    BytesAfterDatagram,
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

impl fmt::Display for MetaField {
    /// The field as the boundary's own documentation spells it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MetaField::HeaderBytes => "the metadata header",
            MetaField::VirtioFlags => "virtio flags",
            MetaField::VirtioGsoType => "virtio gso_type",
            MetaField::VirtioHdrLen => "virtio hdr_len",
            MetaField::VirtioGsoSize => "virtio gso_size",
            MetaField::VirtioCsumStart => "virtio csum_start",
            MetaField::VirtioCsumOffset => "virtio csum_offset",
            MetaField::ChecksumSeed => "the checksum field's pseudo-header seed",
            MetaField::XenFlags => "Xen netif flags",
            MetaField::XenExtraType => "Xen extra-info type",
            MetaField::XenExtraFlags => "Xen extra-info flags",
            MetaField::XenGsoType => "Xen GSO type",
            MetaField::XenGsoSize => "Xen GSO size",
            MetaField::DpdkOlFlags => "DPDK ol_flags",
            MetaField::DpdkLengths => "the DPDK header lengths",
            MetaField::DpdkTsoSegsz => "DPDK tso_segsz",
            MetaField::TpStatus => "AF_PACKET tp_status",
            MetaField::Packet => "the packet's headers",
            MetaField::State => "the checksum state",
            MetaField::Gso => "the segmentation parameters",
            MetaField::FrameBase => "the frame base",
        })
    }
}

impl MetaField {
    /// Flag words and type codes read best in hex; offsets and sizes in decimal.
    fn is_code(self) -> bool {
        matches!(
            self,
            MetaField::VirtioFlags
                | MetaField::VirtioGsoType
                | MetaField::ChecksumSeed
                | MetaField::XenFlags
                | MetaField::XenExtraType
                | MetaField::XenExtraFlags
                | MetaField::XenGsoType
                | MetaField::DpdkOlFlags
                | MetaField::TpStatus
        )
    }
}

impl fmt::Display for BoundaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = self.field;
        match self.kind {
            MetaErrorKind::Truncated { needed, available } => write!(
                f,
                "{field} needs {needed} bytes, but only {available} are there"
            ),
            MetaErrorKind::Unsupported { value } => {
                write!(f, "{field} value {value:#x} is not supported")
            }
            MetaErrorKind::OutOfPacket { value, limit } => write!(
                f,
                "{field} reaches byte {value}, past the packet's end at {limit}"
            ),
            MetaErrorKind::Mismatch { expected, found } if field.is_code() => write!(
                f,
                "{field} {found:#x} does not match the packet, which needs {expected:#x}"
            ),
            MetaErrorKind::Mismatch { expected, found } => write!(
                f,
                "{field} {found} does not match the packet, which needs {expected}"
            ),
            MetaErrorKind::Zero => write!(f, "{field} is 0, where 0 is meaningless"),
            MetaErrorKind::TooLarge { value, max } => {
                write!(f, "{field} {value} is larger than the maximum {max}")
            }
            MetaErrorKind::Forbidden(rule) => {
                write!(f, "{field} breaks a protocol rule: {rule}")
            }
            MetaErrorKind::TooSmall { value, min } => {
                write!(f, "{field} {value} is below the minimum {min}")
            }
            MetaErrorKind::Parse(e) => write!(f, "{field} could not be parsed: {e}"),
        }
    }
}

impl fmt::Display for Rule {
    /// The rule as a clause.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::RscInfoOnTransmit => "a driver must not set RSC_INFO on transmit",
            Rule::RscInfoNotNegotiated => "RSC_INFO without VIRTIO_NET_F_RSC_EXT negotiated",
            Rule::DataValidOnTransmit => "DATA_VALID from a driver is refused by policy",
            Rule::TunnelCsumNotNegotiated => {
                "UDP_TUNNEL_CSUM needs the tunnel-checksum feature negotiated"
            }
            Rule::GsoWithoutNeedsCsum => "a GSO type needs NEEDS_CSUM (csum_blank)",
            Rule::EcnWithUdp => "ECN cannot go with a UDP GSO type",
            Rule::StartBeforeTransport => "csum_start lies before the transport header",
            Rule::GsoStartNotTransport => "GSO needs csum_start at the transport header",
            Rule::GsoOnFragment => "an IP fragment cannot carry GSO",
            Rule::TooManySegments => "the payload makes more than UDP_MAX_SEGMENTS segments",
            Rule::SctpNeedsCrc32c => "SCTP needs CRC32c, not an Internet checksum",
            Rule::Crc32cNotExpressible => "a CRC32c Partial cannot be expressed here",
            Rule::BlankWithoutOffsets => "a blank checksum field needs its offsets",
            Rule::GsoWithoutChecksumState => "GSO needs a Partial or validated state",
            Rule::PartialNotAtTransport => {
                "the peer can only re-derive a Partial at a plain TCP/UDP header"
            }
            Rule::BlankOnUnsupportedProtocol => {
                "a blank checksum is only possible on plain TCP or UDP"
            }
            Rule::GsoTypeNotExpressible => "this GSO type cannot be carried here",
            Rule::InvalidStatus => "both checksum status bits set mean invalid",
            Rule::SegmentationWithoutChecksum => "segmentation needs a checksum request",
            Rule::StartBeforeFrame => "the Partial start lies before the frame",
            Rule::DpdkIpChecksumOnIpv6 => "TX_IP_CKSUM cannot go with TX_IPV6",
            Rule::DpdkL4WithoutIpVersion => {
                "an L4 checksum or TCP segmentation needs TX_IPV4 or TX_IPV6"
            }
            Rule::DpdkTsoWithoutSegmentSize => "TX_TCP_SEG needs a non-zero tso_segsz",
            Rule::DpdkIpv4TsoWithoutIpChecksum => "IPv4 TX_TCP_SEG needs TX_IP_CKSUM",
            Rule::DpdkOuterIpChecksumWithoutOuterIpv4 => "TX_OUTER_IP_CKSUM needs TX_OUTER_IPV4",
            Rule::DpdkBothIpVersions => "TX_IPV4 and TX_IPV6 cannot both be set",
            Rule::DpdkL4OnFragment => "an L4 checksum request cannot go on an IP fragment",
            Rule::BytesAfterDatagram => "bytes after the IP datagram would be summed in by the NIC",
        })
    }
}

impl core::error::Error for BoundaryError {}
