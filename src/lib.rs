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
//! ## Panic contract
//!
//! Every input from the wire or from a guest is untrusted. Untrusted bytes enter
//! only through checked constructors (`*::new_checked`, [`wire::parse`]) and
//! transitions that return `Result`; once a checked constructor has succeeded, no
//! accessor of the view panics. Bad input gets a typed error that names the
//! field, and nothing is changed. The only documented panic in the crate is
//! [`csum::partial_copy`] with slices of different lengths, exactly like
//! `copy_from_slice`.
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
