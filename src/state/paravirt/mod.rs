//! Metadata boundaries: virtio-net header, Xen netif flags, DPDK mbuf flags and
//! AF_PACKET status, both directions, with untrusted-peer checks.
//!
//! Each boundary has a `to_meta` direction (the peer's bits become a
//! [`CsumMeta`](crate::state::CsumMeta), every field bounds-checked against the
//! packet, typed [`BoundaryError`] naming the field) and a `from_meta` direction
//! (our metadata, consumed by move, becomes the peer's bits, or an error saying
//! why the boundary cannot express it).
//!
//! The metadata is consumed, so a header cannot be derived from stale metadata:
//!
//! ```compile_fail
//! use netoffload::state::{CsumMeta, CsumState};
//! use netoffload::state::paravirt::virtio::{GuestFrame, PeerFeatures, VirtioNetHdr};
//! let meta = CsumMeta::from_state(CsumState::None);
//! let a = VirtioNetHdr::from_meta(meta, GuestFrame::default(), None, PeerFeatures::default());
//! let b = VirtioNetHdr::from_meta(meta, GuestFrame::default(), None, PeerFeatures::default());
//! ```
#![forbid(unsafe_code)]

pub mod afpacket;
pub mod dpdk;
mod error;
pub mod leak;
mod peer;
pub mod setup;
pub mod virtio;
pub mod xen;

pub use error::{BoundaryError, MetaErrorKind, MetaField, Rule};
