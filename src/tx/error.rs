//! Why a transmit decision, fill or segmentation was refused.

use core::fmt;

use crate::state::StateError;
use crate::wire::{GsoType, Net, Transport};

/// A refused transmit request: the field or limit at fault. Nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TxError {
    /// The layer offsets do not fit the frame or are out of order
    /// (`l2 <= l3 < l4 <= payload <= end <= frame length` must hold).
    LayersBeyondBuffer {
        /// The IP end the layers claim.
        end: usize,
        /// Bytes the frame has.
        available: usize,
    },
    /// The layer offsets are out of order (`l2 <= l3 < l4 <= payload <= end`
    /// must hold); they were not made by `wire::parse` for this packet.
    LayersOutOfOrder,
    /// `csum_start + csum_offset` (plus the field) lies outside the packet
    /// (the range check a driver may do on `CHECKSUM_PARTIAL`).
    PartialOutOfRange {
        /// `csum_start`.
        start: usize,
        /// `csum_offset`.
        offset: usize,
        /// End of the packet.
        end: usize,
    },
    /// `gso_size` 0 with a segmentation type.
    GsoSizeZero,
    /// `gso_size` larger than the payload, or no payload to segment.
    GsoSizeBeyondPayload {
        /// The requested segment size.
        gso_size: usize,
        /// The payload bytes.
        payload: usize,
    },
    /// The segmentation type does not match the packet (TCPV4 on IPv6, UDP_L4
    /// on TCP, no type at all).
    GsoTypeMismatch {
        /// The type asked.
        gso_type: GsoType,
        /// The network layer found.
        net: Net,
        /// The transport found.
        transport: Transport,
    },
    /// A tunnel type without the inner layers, or inner layers without a
    /// tunnel type: use [`plan_tunnel`](super::plan_tunnel) with both.
    TunnelLayersMissing {
        /// The type asked.
        gso_type: GsoType,
    },
    /// The tunnel headers do not match the request: the outer transport is not
    /// the tunnel's, the GRE C bit and `GRE_CSUM` disagree, or the inner
    /// packet does not end where the outer one does.
    TunnelMismatch {
        /// What disagrees.
        field: TunnelField,
    },
    /// An IP fragment cannot be segmented.
    Fragment,
    /// A header field would not hold the segment's value (hand-made layers
    /// claiming an IPv4 datagram above 65535 bytes, an IPv6 jumbogram).
    LengthFieldOverflow {
        /// The length that does not fit.
        length: usize,
    },
    /// An IPv6 jumbogram (payload length 0) whose Hop-by-Hop header is not the
    /// lone Jumbo Payload option this crate can drop from the segments.
    Jumbogram,
    /// Fewer destination buffers than segments.
    TooFewBuffers {
        /// Segments to write.
        needed: usize,
        /// Buffers given.
        given: usize,
    },
    /// A destination buffer is shorter than its segment.
    BufferTooSmall {
        /// Which segment.
        index: usize,
        /// Bytes the segment needs.
        needed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
    /// A segment index at or beyond the segment count.
    SegmentIndexOutOfRange {
        /// The index asked.
        index: usize,
        /// Segments the packet makes.
        count: usize,
    },
    /// The state room's fill refused (its error names the span).
    Fill {
        /// Why.
        error: StateError,
    },
    /// An action that is not a software fill was passed to [`fill_software`](super::fill_software).
    NotAFill,
}

impl fmt::Display for TxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TxError::LayersBeyondBuffer { end, available } => {
                write!(f, "layers end at {end} but the frame has {available} bytes")
            }
            TxError::LayersOutOfOrder => write!(f, "layer offsets out of order"),
            TxError::PartialOutOfRange { start, offset, end } => write!(
                f,
                "csum_start {start} + csum_offset {offset} outside the packet (end {end})"
            ),
            TxError::GsoSizeZero => write!(f, "gso_size 0 with a gso type"),
            TxError::GsoSizeBeyondPayload { gso_size, payload } => {
                write!(
                    f,
                    "gso_size {gso_size} beyond the payload of {payload} bytes"
                )
            }
            TxError::GsoTypeMismatch {
                gso_type,
                net,
                transport,
            } => {
                write!(f, "gso type ")?;
                gso_names(gso_type, f)?;
                write!(f, " does not fit a {net:?} / {transport:?} packet")
            }
            TxError::TunnelLayersMissing { gso_type } => {
                write!(f, "gso type ")?;
                gso_names(gso_type, f)?;
                write!(f, " needs outer and inner layers together")
            }
            TxError::TunnelMismatch { field } => {
                write!(f, "the tunnel does not match its gso type: {field}")
            }
            TxError::Fragment => write!(f, "an IP fragment cannot be segmented"),
            TxError::LengthFieldOverflow { length } => {
                write!(f, "length {length} does not fit its header field")
            }
            TxError::Jumbogram => write!(f, "IPv6 jumbogram with other Hop-by-Hop options"),
            TxError::TooFewBuffers { needed, given } => {
                write!(f, "{needed} segments but {given} buffers")
            }
            TxError::BufferTooSmall {
                index,
                needed,
                available,
            } => write!(
                f,
                "segment {index} needs {needed} bytes, its buffer has {available}"
            ),
            TxError::SegmentIndexOutOfRange { index, count } => {
                write!(f, "segment index {index} is past the {count} segments")
            }
            TxError::Fill { error } => write!(f, "fill refused: {error}"),
            TxError::NotAFill => write!(f, "the action is not a software fill"),
        }
    }
}

impl core::error::Error for TxError {}

/// A GSO type as its flag names (`TCPV4 | TCP_FIXEDID`), or `none`.
fn gso_names(t: GsoType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if t.is_empty() {
        return f.write_str("none");
    }
    bitflags::parser::to_writer(&t, f)
}

/// The tunnel fact that disagrees with a segmentation request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TunnelField {
    /// The outer transport is not UDP (UDP tunnel types) or GRE (GRE types).
    OuterTransport,
    /// The GRE C bit is set without `GRE_CSUM`, or `GRE_CSUM` without the C bit.
    GreChecksumBit,
    /// Both UDP and GRE tunnel types, or neither inner TCP nor UDP type.
    Type,
    /// The inner packet does not start after the outer transport header or
    /// does not end where the outer packet ends.
    InnerBounds,
}

impl fmt::Display for TunnelField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TunnelField::OuterTransport => "the outer transport is not the tunnel's",
            TunnelField::GreChecksumBit => "the GRE C bit and GRE_CSUM disagree",
            TunnelField::Type => "the type names both UDP and GRE tunnels, or no inner protocol",
            TunnelField::InnerBounds => "the inner packet does not sit inside the outer one",
        })
    }
}

/// A refused ring configuration, packet or batch. Nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PlanError {
    /// A worst-case packet's descriptor count (`max_frags + 2`, plus the
    /// 2-descriptor gap) does not fit in `usize`.
    FragsOverflow {
        /// The fragment limit asked.
        max_frags: usize,
    },
    /// The ring cannot hold two worst-case packets and the gap (it would stop
    /// after every packet, or never take one).
    RingTooSmall {
        /// Slots in the ring.
        slots: usize,
        /// Slots this fragment limit needs: `2 * (max_frags + 2) + 2`.
        min_slots: usize,
    },
    /// The wake threshold is below the stop threshold (the queue would wake
    /// without room for a worst-case packet) or above the ring (it would never wake).
    WakeThreshold {
        /// The threshold asked.
        threshold: usize,
        /// Lowest allowed.
        min: usize,
        /// Highest allowed.
        max: usize,
    },
    /// The configuration was made for another ring size.
    SlotsMismatch {
        /// Slots in the configuration.
        config: usize,
        /// Slots in the ring type.
        ring: usize,
    },
    /// A packet with more fragments than the device takes (linearize it first).
    TooManyFrags {
        /// Its fragments.
        nr_frags: usize,
        /// The limit.
        max_frags: usize,
    },
    /// A packet of the batch, prepared for another ring, needs more data
    /// descriptors than this ring's worst case: it could stop the queue with
    /// nothing in flight to wake it. The whole batch was refused.
    PacketTooLarge {
        /// Its position in the batch.
        index: usize,
        /// Data descriptors it needs.
        data_descriptors: usize,
        /// Data descriptors this ring takes per packet (`max_frags + 1`).
        max: usize,
    },
    /// A checksum start or offset a context descriptor (and `sk_buff`) cannot
    /// hold: `csum_start` must be below 65535 (`skb_partial_csum_set`),
    /// `csum_offset` at most 65535.
    ContextOutOfRange {
        /// `csum_start`.
        csum_start: usize,
        /// `csum_offset`.
        csum_offset: usize,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PlanError::FragsOverflow { max_frags } => {
                write!(
                    f,
                    "a fragment limit of {max_frags} overflows the descriptor count"
                )
            }
            PlanError::RingTooSmall { slots, min_slots } => {
                write!(
                    f,
                    "a ring of {slots} slots is too small: this fragment limit needs {min_slots}"
                )
            }
            PlanError::WakeThreshold {
                threshold,
                min,
                max,
            } => write!(
                f,
                "the wake threshold {threshold} lies outside {min}..={max}"
            ),
            PlanError::SlotsMismatch { config, ring } => {
                write!(
                    f,
                    "the configuration is for {config} slots, the ring has {ring}"
                )
            }
            PlanError::TooManyFrags {
                nr_frags,
                max_frags,
            } => write!(
                f,
                "a packet of {nr_frags} fragments exceeds the device's {max_frags}"
            ),
            PlanError::PacketTooLarge {
                index,
                data_descriptors,
                max,
            } => write!(
                f,
                "packet {index} of the batch needs {data_descriptors} data descriptors, the ring takes {max}"
            ),
            PlanError::ContextOutOfRange {
                csum_start,
                csum_offset,
            } => write!(
                f,
                "csum_start {csum_start} / csum_offset {csum_offset} do not fit a context descriptor"
            ),
        }
    }
}

impl core::error::Error for PlanError {}
