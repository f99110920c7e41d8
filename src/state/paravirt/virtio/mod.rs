//! virtio-net header (`struct virtio_net_hdr`, its v1 and hash-report variants)
//! and its mapping to and from [`CsumMeta`](crate::state::CsumMeta).
//!
//! - [`VirtioNetHdr::parse`] / [`VirtioNetHdr::write`]: bytes.
//! - [`VirtioNetHdr::to_meta`]: `virtio_net_hdr_to_skb`, every field checked;
//!   [`linux_rules`]: the rules Linux applies from the header and frame length alone.
//! - [`VirtioNetHdr::from_meta`]: `virtio_net_hdr_from_skb`, consuming the metadata.

mod from_meta;
mod hdr;
pub mod linux_rules;
mod presets;
mod to_meta;

pub use from_meta::{GuestFrame, PeerFeatures};
pub use hdr::{HdrLayout, VirtioFlags, VirtioNetHdr, gso_type};
pub use to_meta::{
    DataValidPolicy, Direction, GSO_BY_FRAGS, GsoOutcome, HdrLenRule, Inbound, RscInfo, SeedPolicy,
    UDP_MAX_SEGMENTS, VirtioPolicy,
};
