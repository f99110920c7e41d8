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
//! - `Complete { csum }`: `fold(csum) == fold(sum of bytes[cur..len])`,
//!   literally: over only zero bytes the sum is `+0` (a removal that leaves
//!   only zeros, where the kernel's `wsum_negate` arithmetic gives `-0`, is
//!   normalised by [`pull`] and [`trim`]).
//! - `Partial { start, offset, kind }`: the field at `start + offset` holds the
//!   folded pseudo-header seed (CRC32c: anything, read as zero); summing from
//!   `start` to the end and storing there yields a correct checksum. Locally
//!   generated and trusted: it and every checksum before it count as verified.
//! - `DATA_VALID`: the origin's word (Xen `data_validated`, virtio
//!   `DATA_VALID`) that the checksum of the layer at `layers.l4` is correct:
//!   exactly one checksum, as Linux reads it (`CHECKSUM_UNNECESSARY` level 0),
//!   never an inner one. It is consumed when [`validate`] accounts for that
//!   checksum by any rule (a device level, a zero UDP checksum, a trusted
//!   `Partial`, a `Complete` sum, software, or the flag itself; [`conntrack`]
//!   looks without consuming), and it never crosses a tunnel layer: [`pull`]
//!   past `layers.l4`, [`push`] before `layers.l2`, and the tunnel transitions
//!   ([`decap`](crate::encap::decap), [`decap_nested`](crate::encap::decap_nested),
//!   [`encap`](crate::encap::encap)) drop it.
//! - `CSUM_BLANK`: the L4 field is not filled yet (only with `Partial`).
//! - `CSUM_VALID`: the checksum of the layer at `layers.l4` counts as verified
//!   in this pass (Linux `csum_valid`): it was checked (device `Unnecessary`
//!   level, `DATA_VALID`, a `Complete` sum or software), or the state is a
//!   `Partial` starting at or after that layer (`skb_csum_unnecessary`), in
//!   which case the field may still be blank. It is never a claim about the
//!   field's bytes beyond what the state itself claims.
//! - `COMPLETE_SW`: the `Complete` sum was computed here, not by a device.
//!
//! Every transition takes a sound state to a sound state, or returns
//! [`Refused`] with the unchanged metadata and a [`StateError`]. A state only
//! claims validity that came from the device, a verified computation, or a
//! trusted local origin. Checking results are [`CsumVerdict`]s with a [`Reason`];
//! a bad checksum is `CsumVerdict::Bad`, not an error.
//!
//! # Transitions (and the Linux function each models)
//!
//! | function | Linux |
//! | --- | --- |
//! | [`receive`] | driver RX (`ixgbe_rx_checksum`, `mlx5e_handle_csum`) |
//! | [`validate()`], [`deliver`] | `__skb_checksum_validate`, `__skb_checksum_complete`, `sctp_rcv_checksum` |
//! | [`try_convert`] | `skb_checksum_try_convert` |
//! | [`pull`], [`push`], [`trim`] | `skb_postpull_rcsum`, `skb_postpush_rcsum`, `pskb_trim_rcsum` |
//! | [`bridge`], [`route`], [`check_ipv4_header`] | `br_forward`, `ip_forward` + `ip_decrease_ttl`, `ip_fast_csum` |
//! | [`nat()`] | `inet_proto_csum_replace4/16/2` |
//! | [`conntrack()`] | `nf_ip_checksum` / `nf_ip6_checksum` + L4 error handlers |
//! | [`checksum_setup`] | `skb_checksum_setup` (Xen `csum_blank` without offsets) |
//! | [`fill_partial()`] | `skb_checksum_help`, `skb_crc32c_csum_help` |
//!
//! # Example: a guest's blank checksum through a bridge and conntrack to a
//! device without offload (the Xen 2005 scenario)
//!
//! ```
//! use netoffload::state::{self, ConntrackConfig, CsumFlags, CsumMeta, Hook, Packet,
//!     PacketMut, Reason, CsumVerdict};
//! use netoffload::wire::LinkType;
//!
//! // A TCP packet as a guest hands it over: checksum field not filled yet.
//! let mut frame = Vec::new();
//! etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
//!     .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
//!     .tcp(1000, 80, 1, 8192)
//!     .write(&mut frame, b"hello")
//!     .unwrap();
//!
//! // Xen netback: csum_blank -> Partial at the TCP field, with the seed in it.
//! let mut pkt = PacketMut::parse(&mut frame, LinkType::Ethernet)?;
//! let set = state::checksum_setup(CsumMeta::NONE, &mut pkt, true).expect("TCP");
//! let meta = CsumMeta::new(set.meta.state(), CsumFlags::CSUM_BLANK).expect("Partial");
//!
//! let meta = state::bridge(meta).meta; // both Xen facts survive
//! let ct = state::conntrack(meta, &pkt.as_packet(), Hook::PreRouting,
//!     ConntrackConfig::default()).expect("TCP");
//! assert_eq!((ct.verdict, ct.reason), (CsumVerdict::Good, Reason::PartialTrusted));
//!
//! // The physical device has no checksum offload: fill in software.
//! let out = state::fill_partial(ct.meta, &mut pkt).expect("field in bounds");
//! assert_eq!(out.reason, Reason::Filled);
//! assert!(!out.meta.is_blank());
//!
//! // The wire bytes now verify.
//! let check = state::validate(CsumMeta::NONE, &Packet::parse(&frame, LinkType::Ethernet)?)
//!     .expect("TCP");
//! assert_eq!(check.verdict, CsumVerdict::Good);
//! # Ok::<(), netoffload::wire::ParseError>(())
//! ```
//!
//! Uses `csum` and `wire`.
#![forbid(unsafe_code)]

mod conntrack;
mod fill_partial;
mod forward;
mod headers;
mod nat;
mod outcome;
mod packet;
pub mod paravirt;
mod refused;
mod rewrite;
pub(crate) mod setup;
pub(crate) mod site;
mod sum;
mod types;
mod validate;

pub use conntrack::{ConntrackConfig, Hook, conntrack};
pub use fill_partial::fill_partial;
pub use forward::{bridge, check_ipv4_header, route};
pub use headers::{pull, push, trim};
pub use nat::{Addr, Rewrite, nat};
pub use outcome::{CsumVerdict, Outcome, Reason, Span, StateError, Transition};
pub use packet::{Packet, PacketMut};
pub use refused::Refused;
pub use setup::checksum_setup;
pub use types::{CsumFlags, CsumLevel, CsumMeta, CsumState, MetaError, PartialKind};
pub use validate::{
    DeviceReport, ValidateOptions, ZeroUdp6, deliver, receive, try_convert, validate, validate_with,
};
