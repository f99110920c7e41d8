//! Transmit side: device features, checksum/segmentation decisions, software
//! fill, GSO and transmit batch planning. Uses every other room.
//!
//! # Transmit, one packet
//!
//! 1. The device's [`Features`] (stacked devices: [`Features::stacked`],
//!    [`Features::bridge`]) and limits make a [`Device`].
//! 2. [`decide`] maps the packet's [`CsumMeta`](crate::state::CsumMeta),
//!    layers and GSO request to a [`TxAction`] with its reason
//!    (`validate_xmit_skb`): offload, CRC offload, fill in software
//!    ([`fill`]), segment first ([`segment`]) or nothing to do. A `csum_blank`
//!    packet always leaves filled or offloaded.
//! 3. A [`TxAction::Segment`] is carried out by [`segment`] (TCP over IPv4/IPv6,
//!    UDP GSO, IPv6 BIG TCP jumbograms) or [`segment_tunnel`] (VXLAN, GENEVE and
//!    other UDP tunnels, GRE) into caller buffers; each segment's checksum is
//!    computed fused with the copy or left `Partial` for the device.
//! 4. [`RingConfig::prep`] (outside the lock) and [`TxRing::xmit`] put the
//!    packets on the descriptor ring, one doorbell per batch;
//!    [`TxRing::complete`] reclaims and wakes the queue.
//!
//! Every refusal is a [`TxError`] naming the field or limit; nothing is
//! written on error.
#![forbid(unsafe_code)]

mod decide;
mod error;
mod features;
mod fill;
mod gso;
mod planner;
mod pseudo;
mod segment;

pub use decide::{
    CrcReason, Device, DoneReason, Fill, FillReason, OffloadReason, SegmentCsum, SegmentReason,
    TxAction, decide,
};
pub use error::{PlanError, TunnelField, TxError, TxRefusal};
pub use features::{Features, FixedFeatures};
pub use fill::fill;
pub use gso::{GsoInfo, GsoLimits, GsoType, required_features};
pub use planner::{
    BatchEnd, BatchReport, Completion, Prepared, QueueState, RingConfig, RingStats, TxContext,
    TxRing, WakeOutcome,
};
pub use segment::{Segments, plan, plan_tunnel, segment, segment_one, segment_tunnel};
