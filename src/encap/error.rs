//! Typed refusals of decapsulation and encapsulation: each names the layer or
//! field at fault, and nothing is changed when one is returned.

use core::fmt;

use crate::csum::Sum16;
use crate::state::MetaError;
use crate::wire::{Layer, ParseError};

/// Why a packet could not be decapsulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecapError {
    /// The outer transport is not a tunnel this configuration knows.
    NotTunnel,
    /// The outer IP packet is a fragment: reassemble before decapsulating.
    OuterFragment {
        /// Offset of the outer IP header.
        offset: usize,
    },
    /// The given layers or current offset do not fit the buffer.
    BadContext {
        /// The offending offset.
        offset: usize,
    },
    /// A tunnel or inner header is truncated or invalid (names layer and field).
    Header(ParseError),
    /// The inner Ethernet frame carries something other than IP (ARP, ...):
    /// there is no inner checksum state to give; bridge it as it is.
    InnerNotIp {
        /// The inner EtherType.
        ethertype: u16,
        /// Offset of the inner Ethernet header.
        offset: usize,
    },
    /// The outer UDP or GRE checksum does not verify: the packet must be dropped
    /// (RFC 7348 5: a failed check MUST drop).
    BadOuterChecksum {
        /// UDP or GRE.
        layer: Layer,
        /// Offset of the header holding the checksum.
        offset: usize,
        /// The field as received.
        field: Sum16,
    },
    /// A zero UDP checksum over IPv6 on a port without zero-checksum mode
    /// (RFC 8200 8.1, RFC 6936).
    ZeroChecksumIpv6 {
        /// The UDP destination port.
        port: u16,
    },
    /// GENEVE with the C bit and critical options not accepted by the configuration.
    CriticalOptions {
        /// Offset of the GENEVE header.
        offset: usize,
    },
    /// More nested tunnels than [`EncapConfig::max_depth`](super::EncapConfig::max_depth).
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The resulting state and flags contradict each other (should not happen).
    Meta(MetaError),
}

impl fmt::Display for DecapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecapError::NotTunnel => write!(f, "not a configured tunnel"),
            DecapError::OuterFragment { offset } => {
                write!(f, "outer IP packet at byte {offset} is a fragment")
            }
            DecapError::BadContext { offset } => {
                write!(f, "offset {offset} does not fit the packet")
            }
            DecapError::Header(e) => write!(f, "{e}"),
            DecapError::InnerNotIp { ethertype, offset } => write!(
                f,
                "inner frame at byte {offset} carries EtherType {ethertype:#06x}, not IP"
            ),
            DecapError::BadOuterChecksum {
                layer,
                offset,
                field,
            } => write!(
                f,
                "the outer {layer} checksum {field} at byte {offset} is bad: the packet is dropped"
            ),
            DecapError::ZeroChecksumIpv6 { port } => write!(
                f,
                "zero IPv6 UDP checksum on port {port} without zero-checksum mode"
            ),
            DecapError::CriticalOptions { offset } => {
                write!(f, "GENEVE header at byte {offset} has critical options")
            }
            DecapError::TooDeep { limit } => write!(f, "more than {limit} nested tunnels"),
            DecapError::Meta(e) => write!(f, "{e}"),
        }
    }
}

impl From<ParseError> for DecapError {
    fn from(e: ParseError) -> Self {
        DecapError::Header(e)
    }
}

impl core::error::Error for DecapError {}

/// Why an encapsulation could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncapError {
    /// Not enough headroom in front of the inner packet.
    Headroom {
        /// Bytes the outer headers need.
        needed: usize,
        /// Bytes available before the inner packet.
        available: usize,
    },
    /// The inner range does not fit the buffer, or is empty.
    InnerRange,
    /// The resulting outer length does not fit its length field.
    TooLong {
        /// The length that would have been written.
        len: usize,
    },
    /// The inner packet's first bytes do not match what the tunnel carries
    /// (IP version nibble for IP-in-IP / GRE / GENEVE, VXLAN needs Ethernet).
    InnerProtocol,
    /// GENEVE options must be a whole number of 4-byte words, at most 252 bytes,
    /// and well-formed TLVs.
    GeneveOptions,
    /// VNI above 24 bits.
    Vni,
    /// A zero IPv6 UDP checksum on a port without zero-checksum mode (RFC 6936).
    ZeroChecksumIpv6,
    /// The inner state is `Partial` CRC32c (SCTP): an outer ones-complement checksum
    /// cannot be derived before the CRC is filled.
    InnerCrcPartial,
    /// The inner `Partial` offsets point outside the inner packet.
    PartialOutOfRange,
    /// The resulting state and flags contradict each other (should not happen).
    Meta(MetaError),
}

impl fmt::Display for EncapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncapError::Headroom { needed, available } => {
                write!(
                    f,
                    "outer headers need {needed} bytes, {available} available"
                )
            }
            EncapError::InnerRange => write!(f, "inner packet range outside the buffer"),
            EncapError::TooLong { len } => write!(f, "outer length {len} overflows its field"),
            EncapError::InnerProtocol => write!(f, "inner packet does not fit the tunnel"),
            EncapError::GeneveOptions => write!(f, "malformed GENEVE options"),
            EncapError::Vni => write!(f, "VNI wider than 24 bits"),
            EncapError::ZeroChecksumIpv6 => {
                write!(f, "zero IPv6 UDP checksum without zero-checksum mode")
            }
            EncapError::InnerCrcPartial => {
                write!(
                    f,
                    "inner CRC32c still to be filled: outer checksum impossible"
                )
            }
            EncapError::PartialOutOfRange => write!(f, "inner Partial offsets out of range"),
            EncapError::Meta(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for EncapError {}
