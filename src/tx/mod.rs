//! Transmit side: device features, checksum/segmentation decisions, software
//! fill, GSO and transmit batch planning. Uses every other room.
//!
//! # Transmit, one packet
//!
//! 1. The device's [`Features`] (stacked devices: [`Features::stacked`],
//!    [`Features::bridge`]) and limits make a [`Device`].
//! 2. [`decide()`] maps the packet's [`CsumMeta`](crate::state::CsumMeta),
//!    layers and GSO request to a [`TxAction`] with its reason
//!    (`validate_xmit_skb`): offload, CRC offload, fill in software
//!    ([`fill_software()`]), segment first ([`segment()`]) or nothing to do. A `csum_blank`
//!    packet always leaves filled or offloaded.
//! 3. A [`TxAction::Segment`] is carried out by [`segment()`] (TCP over IPv4/IPv6,
//!    UDP GSO, IPv6 BIG TCP jumbograms) or [`segment_tunnel`] (VXLAN, GENEVE and
//!    other UDP tunnels, GRE) into caller buffers; each segment's checksum is
//!    computed fused with the copy or left `Partial` for the device.
//! 4. [`RingConfig::prep`] (outside the lock) and [`TxRing::xmit`] put the
//!    packets on the descriptor ring, one doorbell per batch;
//!    [`TxRing::complete`] reclaims and wakes the queue.
//!
//! Every refusal is a [`TxError`] naming the field or limit; nothing is
//! written on error.
//!
//! # Files
//!
//! - `features.rs`: [`Features`] (`NETIF_F_*`) and their algebra, as the
//!   kernel's `netdev_intersect_features`, `netdev_increment_features`,
//!   `netdev_fix_features`, `harmonize_features` and the bridge's
//!   recomputation.
//! - `gso.rs`: what a [`GsoType`](crate::wire::GsoType) (`SKB_GSO_*`, the
//!   `wire` type GRO emits, so a GRO descriptor goes to [`decide()`]
//!   unchanged) needs: [`required_features`]
//!   (`net_gso_ok`), [`GsoInfo`], [`GsoLimits`].
//! - `decide.rs`: [`decide()`], modelling `validate_xmit_skb`,
//!   `netif_needs_gso` and `skb_csum_hwoffload_help`. Stricter than Linux in
//!   one place: `IP_CSUM` / `IPV6_CSUM` offload needs the TCP/UDP field at the
//!   transport header. Inside tunnels only `HW_CSUM` offloads the inner
//!   checksum.
//! - `fill_software.rs`: [`fill_software()`] carries out a software fill through
//!   [`state::fill_partial`](crate::state::fill_partial) (the only fill), after checking the
//!   decision's offsets and trimming Ethernet padding.
//! - `segment.rs`: [`plan`] / [`segment()`] / [`segment_one`] (TCP over IPv4 and
//!   IPv6, UDP GSO, IPv6 BIG TCP jumbograms without their Hop-by-Hop header,
//!   as `ipv6_gso_segment` does) and [`plan_tunnel`] / [`segment_tunnel`] (UDP
//!   tunnels, GRE, IP in IP). Per segment: IP lengths, IDs, header checksum,
//!   TCP sequence and flags (FIN/PSH only on the last, CWR only on the first
//!   unless AccECN), UDP length; the L4 checksum left `Partial` or computed
//!   fused with the payload copy; outer UDP and GRE checksums from the headers
//!   alone, `lco_csum` style. N segments -> the super-packet GRO builds -> the
//!   N originals, byte for byte.
//! - `planner.rs`: [`RingConfig`], [`RingConfig::prep`] and [`TxRing`]: a
//!   prefix of a batch enqueued, one doorbell per batch, a context descriptor
//!   only when the offload context changes. Every count is checked
//!   (`PlanError::FragsOverflow`; a ring holds two worst-case packets and the
//!   gap or is `RingTooSmall`); a batch holding a packet beyond this ring's
//!   worst case (one prepared for another ring) is refused whole
//!   (`PacketTooLarge`), ring unchanged; a context `csum_start` >= 65535 is
//!   refused as `skb_partial_csum_set` does, never clamped. The queue stops
//!   when free slots drop below ixgbe's `DESC_NEEDED` (`MAX_FRAGS + 4`: a
//!   worst-case packet and the 2-descriptor gap that keeps tail off head) and
//!   wakes only from a completion that reclaimed packets, at the threshold
//!   (`__netif_txq_completed_wake`), so a stopped queue always has a packet in
//!   flight. Deliberate difference: ixgbe's `desc_unused` keeps one more slot
//!   back (two indices cannot tell full from empty); descriptors are counted
//!   exactly here. Checked after every operation against an independent model
//!   of a Linux driver's ring (`tests/support/tx/ring_model.rs`).
#![forbid(unsafe_code)]

mod decide;
mod error;
mod features;
mod fill_software;
mod gso;
mod planner;
mod pseudo;
mod segment;
mod segment_into;
mod virtio_gso;

pub use decide::{
    CrcReason, Device, DoneReason, Fill, FillReason, OffloadReason, SegmentCsum, SegmentReason,
    TxAction, decide,
};
pub use error::{PlanError, TunnelField, TxError};
pub use features::{Features, FixedFeatures};
pub use fill_software::fill_software;
pub use gso::{GsoInfo, GsoLimits, required_features};
pub use planner::{
    BatchEnd, BatchReport, Completion, Prepared, QueueState, RingConfig, RingStats, TxContext,
    TxRing, WakeOutcome,
};
pub use segment::{Segments, plan, plan_tunnel, segment, segment_one, segment_tunnel};
pub use segment_into::{Packed, StrideLimits, segment_into};
