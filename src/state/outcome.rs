//! What a transition returns: the new metadata with a verdict, a printable
//! reason and the software cost, or a refusal that hands the metadata back.

use core::fmt;

use super::refused::Refused;
use super::types::{CsumLevel, CsumMeta, MetaError};
use crate::wire::Transport;

/// What a transition found out about the checksum of the layer it looked at.
///
/// A bad checksum is a verdict, not an error: the transition worked and the new
/// metadata is sound (GRO flushes, local delivery drops). Errors ([`StateError`])
/// mean the transition could not run at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CsumVerdict {
    /// The checksum is known good: verified now, by the device, or trusted origin.
    Good,
    /// The checksum is wrong (verified in software).
    Bad,
    /// The layer carries no checksum (UDP checksum 0, GRE without the C bit).
    NoChecksum,
    /// The transition did not look at any checksum (pull, bridge, NAT...).
    NotChecked,
}

/// Why a transition produced its outcome (printable; one per kernel rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reason {
    /// Device report: nothing verified (`CHECKSUM_NONE`).
    DeviceNone,
    /// Device report: `level + 1` checksums verified (`CHECKSUM_UNNECESSARY`).
    DeviceVerified {
        /// The reported `csum_level`.
        level: CsumLevel,
    },
    /// Device report: the device flagged the L4 checksum bad; software decides.
    DeviceReportedBad,
    /// Device report: full-packet sum (`CHECKSUM_COMPLETE`).
    DeviceSum,
    /// One `csum_level` was consumed (`__skb_decr_checksum_unnecessary`).
    LevelConsumed,
    /// The device's `CHECKSUM_UNNECESSARY` covers this layer (not consumed).
    LevelCovers,
    /// The origin said the data is good (`DATA_VALID`, Xen `data_validated`).
    DataValidTrusted,
    /// A `Partial` packet is locally generated: this checksum is trusted.
    PartialTrusted,
    /// The `Complete` sum checked against the pseudo-header.
    CompleteChecked,
    /// Summed in software; the sum is kept as `Complete` (`__skb_checksum_complete`).
    SoftwareVerified,
    /// SCTP CRC32c computed in software (`sctp_rcv_checksum`).
    Crc32cVerified,
    /// The device's `Complete` sum did not check but software did: the device
    /// lied (`netdev_rx_csum_fault`); the packet is good.
    DeviceChecksumFault,
    /// The checksum is wrong.
    BadChecksum,
    /// UDP checksum 0: no checksum (RFC 768); a level is still consumed.
    ZeroUdpNoChecksum,
    /// UDP over IPv6 with checksum 0 and no tunnel permission (RFC 8200 8.1).
    ZeroUdp6Rejected,
    /// GRE without the C bit carries no checksum.
    NoChecksumField,
    /// Converted to `Complete` with `~pseudo` (`skb_checksum_try_convert`).
    Converted,
    /// Nothing to convert (not `None` + just verified, or checksum 0).
    NotConverted,
    /// Header bytes pulled (`skb_postpull_rcsum`).
    Pulled,
    /// Pulled past a `Partial` start: the packet is consumed locally, state `None`.
    PartialPulledPast,
    /// Header bytes pushed (`skb_postpush_rcsum`).
    Pushed,
    /// Trailing bytes trimmed (`pskb_trim_rcsum`).
    Trimmed,
    /// Bridged: nothing changes.
    Bridged,
    /// Routed: TTL / hop limit decremented (`ip_decrease_ttl`).
    Routed,
    /// IPv4 header checksum checked (`ip_fast_csum` in `ip_rcv_core`).
    Ipv4HeaderChecked,
    /// NAT rewrote a field and updated the checksums (`inet_proto_csum_replace*`).
    NatRewritten,
    /// NAT rewrote a field; the UDP checksum 0 stays 0.
    NatZeroUdpKept,
    /// NAT: the new value equals the old one.
    NatNoChange,
    /// Conntrack does not check at this hook (only at `PreRouting`).
    ConntrackHookSkipped,
    /// Conntrack checksum checking is off (`nf_conntrack_checksum = 0`).
    ConntrackChecksumOff,
    /// Conntrack does not check fragments (they are reassembled first).
    ConntrackFragment,
    /// Conntrack has no checksum rule for this protocol (generic tracker).
    ConntrackGeneric,
    /// `Partial` pointed at the L4 checksum from the headers (`skb_checksum_setup`).
    PartialSetUp,
    /// The Internet checksum was filled in software (`skb_checksum_help`).
    Filled,
    /// The SCTP CRC32c was filled in software (`skb_crc32c_csum_help`).
    FilledCrc32c,
    /// Nothing to fill: the state is not `Partial`.
    NothingToFill,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::DeviceVerified { level } => {
                write!(f, "DeviceVerified(level {})", level.get())
            }
            other => fmt::Debug::fmt(other, f),
        }
    }
}

/// The result of a transition that ran.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub struct Outcome {
    /// The new metadata (sound for the packet as it is after the transition).
    pub meta: CsumMeta,
    /// What was found out about the checksum.
    pub verdict: CsumVerdict,
    /// Why.
    pub reason: Reason,
    /// Bytes summed in software (ones-complement or CRC) by this transition.
    pub sw_bytes: usize,
}

impl Outcome {
    /// An outcome that looked at no checksum and summed nothing.
    pub(crate) const fn same(meta: CsumMeta, reason: Reason) -> Outcome {
        Outcome {
            meta,
            verdict: CsumVerdict::NotChecked,
            reason,
            sw_bytes: 0,
        }
    }
}

/// Which offset or length of a transition's input was out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Span {
    /// The current layer offset (`cur`).
    Cur,
    /// A layer offset of the parsed `Layers` (l2..end, pseudo addresses).
    Layers,
    /// A checksum field.
    ChecksumField,
    /// `Partial` start or start + offset (+ field size).
    PartialField,
    /// Bytes to pull.
    Pull,
    /// Bytes to push.
    Push,
    /// A trim length.
    Trim,
    /// An IP header field (TTL, address, checksum).
    IpHeader,
    /// A port field.
    Port,
}

/// Why a transition could not run. Nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StateError {
    /// An offset or length is outside the packet.
    OutOfBounds {
        /// What it was.
        what: Span,
        /// The offending offset (or end).
        offset: usize,
        /// The packet length.
        len: usize,
    },
    /// The transition does not handle this layer kind.
    LayerNotHandled {
        /// The layer found at `l4`.
        transport: Transport,
    },
    /// The packet is an IP fragment: its L4 checksum cannot be checked alone.
    Fragment,
    /// `cur` is past the layer the transition works on.
    CurPastLayer {
        /// The current offset.
        cur: usize,
        /// The layer's offset.
        layer: usize,
    },
    /// IPv4 TTL would reach 0 (`ip_forward`: TTL <= 1, ICMP time exceeded).
    TtlExpired {
        /// The TTL found.
        ttl: u8,
    },
    /// IPv6 hop limit would reach 0 (`ip6_forward`).
    HopLimitExpired {
        /// The hop limit found.
        hop_limit: u8,
    },
    /// A NAT address of the other IP version.
    AddressFamily,
    /// A `Partial` checksum points into this layer at another field: the
    /// rewrite cannot tell which checksum to update.
    PartialElsewhere {
        /// `start + offset` of the Partial.
        field: usize,
    },
    /// The transition needs an IPv4 packet.
    NotIpv4,
    /// The state and flags would contradict each other.
    Meta(MetaError),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::OutOfBounds { what, offset, len } => {
                write!(
                    f,
                    "the {what} at byte {offset} lies beyond the packet of {len} bytes"
                )
            }
            StateError::LayerNotHandled { transport } => {
                write!(f, "this transition does not handle a {transport:?} layer")
            }
            StateError::Fragment => write!(f, "IP fragment: L4 checksum not checkable"),
            StateError::CurPastLayer { cur, layer } => {
                write!(f, "current offset {cur} is past the layer at {layer}")
            }
            StateError::TtlExpired { ttl } => write!(f, "TTL {ttl} expires on forwarding"),
            StateError::HopLimitExpired { hop_limit } => {
                write!(f, "hop limit {hop_limit} expires on forwarding")
            }
            StateError::AddressFamily => write!(f, "address of the wrong IP version"),
            StateError::PartialElsewhere { field } => {
                write!(
                    f,
                    "Partial checksum at {field} is another field of this layer"
                )
            }
            StateError::NotIpv4 => write!(f, "not an IPv4 packet"),
            StateError::Meta(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for StateError {}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Span::Cur => "current layer offset",
            Span::Layers => "layer offset",
            Span::ChecksumField => "checksum field",
            Span::PartialField => "Partial checksum field",
            Span::Pull => "pull length",
            Span::Push => "push length",
            Span::Trim => "trim length",
            Span::IpHeader => "IP header field",
            Span::Port => "port field",
        })
    }
}

impl From<MetaError> for StateError {
    fn from(e: MetaError) -> StateError {
        StateError::Meta(e)
    }
}

/// The return type of every fallible transition.
pub type Transition = Result<Outcome, Refused<StateError>>;

/// Shorthand for a refusal.
pub(crate) const fn refuse(meta: CsumMeta, error: StateError) -> Transition {
    Err(Refused { meta, error })
}
