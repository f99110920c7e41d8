//! # netoffload
//!
//! Per-packet checksum-offload and GRO decisions for network datapaths, with the
//! fastest correct arithmetic behind them (SIMD ones-complement sums, fused
//! copy+sum, CRC32c).
//!
//! The crate is `no_std` and never allocates: callers pass byte slices and opaque
//! packet ids; the library returns decisions, rewritten header bytes and new
//! checksum states.
//!
//! ## Rooms (data flows one way, top to bottom)
//!
//! - [`wire`]: zero-copy, bounds-checked header views and [`wire::parse`].
//! - [`csum`]: the arithmetic (knows nothing of what packets mean).
//! - [`state`]: the checksum state of a packet and its typed transitions.
//! - [`encap`]: tunnel decapsulation and encapsulation as state transitions.
//! - [`gro`]: the coalescing engine.
//! - [`tx`]: device features, transmit decisions, segmentation, batching.
//!
//! ## Where to start
//!
//! One runnable example per use case, each under 80 lines; each asserts its
//! results (every checksum verified), so `cargo run --example NAME` is a test.
//!
//! | I have | I want | use | example |
//! | --- | --- | --- | --- |
//! | frames and per-frame checksum reports from a NIC's RX ring | fewer, bigger packets for the stack, with sound checksum state | [`state::receive`], [`gro::Gro`] in a poll loop, [`gro::SuperPacket::write_into`] + [`meta`](gro::SuperPacket::meta), [`state::deliver`] | `examples/nic_rx.rs` |
//! | one `read()` from a TUN fd with `IFF_VNET_HDR` (virtio-net header + packet) | checked metadata, and wire-size segments of a GSO super-packet | [`VirtioNetHdr::parse`](state::paravirt::virtio::VirtioNetHdr::parse), [`to_meta`](state::paravirt::virtio::VirtioNetHdr::to_meta), [`tx::segment`] | `examples/tun_reader.rs` |
//! | a packet with a device `CHECKSUM_COMPLETE` sum, to forward with NAT | TTL and address rewritten, the sum still usable | [`state::route`], [`state::nat`], [`state::validate`] | `examples/nat_hop.rs` |
//! | a Xen guest frame with `csum_blank` | bridged, conntracked, sent on a NIC without offload with a correct checksum | [`xen::to_meta`](state::paravirt::xen::to_meta), [`state::bridge`], [`state::conntrack`], [`tx::decide`], [`tx::fill_software`] | `examples/xen_guest_tx.rs` |
//! | outgoing packets with metadata, and a device's features | per-packet offload decisions, one doorbell per batch, software GSO where the device cannot | [`tx::decide`], [`tx::TxContext::from_action`], [`tx::TxRing`], [`tx::segment`] | `examples/tx_batch.rs` |
//! | a GRO super-packet to write out as plain bytes (capture, a peer that checks) | every checksum filled | [`gro::SuperPacket::write_finished_into`] | `tests/gro_static.rs` |
//! | a GRO table of thousands of flows | no stack overflow, no allocation | a `static` with the `const fn` [`gro::Gro::new`]; [`gro::Gro::reset`] in place | `tests/gro_static.rs` |
//!
//! ## Panic contract
//!
//! Every input from the wire or from a guest is untrusted. Untrusted bytes enter
//! only through checked constructors (`*::new_checked`, [`wire::parse`]) and
//! transitions that return `Result`; once a checked constructor has succeeded, no
//! accessor of the view panics. Bad input gets a typed error that names the
//! field, and nothing is changed. The only documented panic in the crate is
//! [`csum::partial_copy`] (and its siblings) with slices of different
//! lengths, exactly like `copy_from_slice`.
//!
//! ## Cargo features
//!
//! - `std` (off by default): conveniences for hosted users only (`std`
//!   error-trait impls); the library itself never needs `std` and never
//!   allocates. docs.rs builds with every feature on.
//!
//! ## Unsafe
//!
//! `unsafe` appears only in the SIMD / CPU-feature kernels under `csum::arch`;
//! every other module carries `#![forbid(unsafe_code)]`.
#![no_std]
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(clippy::std_instead_of_core)]
#![deny(clippy::alloc_instead_of_core)]
#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

#[cfg(feature = "std")]
extern crate std;

pub mod csum;
pub mod encap;
pub mod gro;
pub mod state;
pub mod tx;
pub mod wire;
