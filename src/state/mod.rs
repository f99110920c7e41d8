//! The checksum state of a packet and its typed transitions.
//!
//! # The soundness contract
//!
//! A [`CsumMeta`] is *sound* for a packet (its bytes, layers and current
//! offset `cur`, see [`Packet`]) when:
//!
//! - `None`: nothing is claimed.
//! - `Unnecessary { level: n }`: the next n+1 checksums of the packet,
//!   outermost first, counting only those that exist (TCP; UDP including a
//!   zero UDP checksum; GRE only with its C bit; SCTP CRC32c; never ICMP), are
//!   correct.
//! - `Complete { csum }`: `fold(csum) == fold(sum of bytes[cur..len])`.
//! - `Partial { start, offset, kind }`: the field at `start + offset` holds the
//!   folded pseudo-header seed (CRC32c: anything, read as zero); summing from
//!   `start` to the end and storing there yields a correct checksum. Locally
//!   generated and trusted: it and every checksum before it count as verified.
//! - `DATA_VALID`: the current layer's data is known good (origin's word).
//! - `CSUM_BLANK`: the L4 field is not filled yet (only with `Partial`).
//! - `CSUM_VALID`: the checksum of the layer at `layers.l4` was verified.
//! - `COMPLETE_SW`: the `Complete` sum was computed here, not by a device.
//!
//! Every transition takes a sound state to a sound state, or returns
//! [`Refused`] with the unchanged metadata and a [`StateError`]. A state only
//! claims validity that came from the device, a verified computation, or a
//! trusted local origin. Checking results are [`Verdict`]s with a [`Reason`];
//! a bad checksum is `Verdict::Bad`, not an error.
//!
//! # Transitions (and the Linux function each models)
//!
//! | function | Linux |
//! | --- | --- |
//! | [`receive`] | driver RX (`ixgbe_rx_checksum`, `mlx5e_handle_csum`) |
//! | [`validate`], [`deliver`] | `__skb_checksum_validate`, `__skb_checksum_complete`, `sctp_rcv_checksum` |
//! | [`try_convert`] | `skb_checksum_try_convert` |
//! | [`pull`], [`push`], [`trim`] | `skb_postpull_rcsum`, `skb_postpush_rcsum`, `pskb_trim_rcsum` |
//! | [`bridge`], [`route`], [`check_ipv4_header`] | `br_forward`, `ip_forward` + `ip_decrease_ttl`, `ip_fast_csum` |
//! | [`nat`] | `inet_proto_csum_replace4/16/2` |
//! | [`conntrack`] | `nf_ip_checksum` / `nf_ip6_checksum` + L4 error handlers |
//! | [`fill`] | `skb_checksum_help`, `skb_crc32c_csum_help` |
//!
//! Uses `csum` and `wire`.
#![forbid(unsafe_code)]

mod conntrack;
mod fill;
mod forward;
mod headers;
mod nat;
mod outcome;
mod packet;
pub mod paravirt;
mod rewrite;
mod site;
mod sum;
mod types;
mod validate;

pub use conntrack::{ConntrackConfig, Hook, conntrack};
pub use fill::fill;
pub use forward::{bridge, check_ipv4_header, route};
pub use headers::{pull, push, trim};
pub use nat::{Addr, Rewrite, nat};
pub use outcome::{Outcome, Reason, Refused, Span, StateError, Transition, Verdict};
pub use packet::{Packet, PacketMut};
pub use types::{CsumFlags, CsumLevel, CsumMeta, CsumState, MetaError, PartialKind};
pub use validate::{
    DeviceReport, ValidateOptions, ZeroUdp6, deliver, receive, try_convert, validate, validate_with,
};
