//! The checksum state of a packet and its typed transitions.
//!
//! Sound states only: every transition takes a state that is sound for the
//! packet's bytes to a sound state, or returns an error that says why it cannot.
//! Uses `csum` and `wire`.
#![forbid(unsafe_code)]

pub mod paravirt;
mod types;

pub use types::{CsumFlags, CsumLevel, CsumMeta, CsumState, MetaError, PartialKind};
