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
//!
//! # Files
//!
//! | file | models |
//! | --- | --- |
//! | `virtio/hdr.rs` | `struct virtio_net_hdr` (10-byte legacy, 12-byte v1, 20-byte hash report), little endian |
//! | `virtio/linux_rules.rs` | the rules Linux applies from header and frame length alone (`virtio_net_hdr_to_skb`, `skb_partial_csum_set`, tun's `tun_vnet_hdr_get` / `tun_get_user`, virtio_net's `receive_buf`), under every policy, before parsing |
//! | `virtio/to_meta.rs` | `virtio_net_hdr_to_skb` and the virtio_net receive `DATA_VALID`, under a policy |
//! | `virtio/from_meta.rs` | `virtio_net_hdr_from_skb` |
//! | `xen.rs` | netif.h flags and the GSO extra slot; netfront / netback mappings |
//! | `dpdk/` | `rte_mbuf` `ol_flags` (DPDK 22.11): receive statuses (`rx.rs`), transmit requests both ways (`tx.rs`, `tx_in.rs`), `rte_validate_tx_offload` (`validate.rs`) |
//! | `afpacket.rs` | `tpacket_rcv` status bits |
//! | `setup.rs` | `skb_checksum_setup` and the pseudo-header seed, shared by Xen, AF_PACKET and virtio `RSC_INFO` (the protocol switch itself is `state::setup`) |
//! | `peer.rs` | what a peer's bits may claim, in one order for every boundary |
//! | `leak.rs` | diagnosis of a failing L4 checksum (a field that still holds the seed: a leaked `Partial`) |
//!
//! # Invariants
//!
//! - Every offset a peer gives is checked against the parsed packet before
//!   any arithmetic; caller-supplied layers are checked too
//!   ([`setup::layers_fit`]). A `Partial` made here satisfies the soundness
//!   contract of [`state`](crate::state) or the boundary refuses.
//! - Validity is claimed only from a device report under a policy, never from
//!   zero bits: DPDK's all-zero status is "unknown", not good.
//! - A virtio `NEEDS_CSUM` is `Partial` + `CSUM_BLANK` only
//!   (`virtio_net_hdr_to_skb` sets `CHECKSUM_PARTIAL`, nothing more); a Xen
//!   `csum_blank` carries `CSUM_BLANK | DATA_VALID` (netback's 2005 facts).
//! - virtio headers meet Linux's own rules first, under every policy, parsed
//!   frame or not (`nh_min_len` counted from the network header: stricter),
//!   and `from_meta` never hands out offsets they refuse.
//! - No boundary hands out a `Partial` over non-zero bytes after the IP
//!   datagram (`peer::check_padding`, `Rule::BytesAfterDatagram`): a fill runs
//!   to the end of the data and would sum them in.
//! - GSO from a peer is checked as Linux does since the syzbot reports (known
//!   type, ECN only on TCP, a sane `gso_size`, type matching the parsed
//!   packet, not a fragment, `csum_start` at the transport header); segment
//!   counts are computed, never read.
//! - Frame bytes are written only where a protocol requires it (the Xen GSO
//!   seed fix-up, DPDK's TSO seed convention and outer UDP seed,
//!   `TxSeedMode::Prepare`) and only after every check: nothing changes on
//!   error.
//! - DPDK transmit: a request made or accepted is one `rte_validate_tx_offload`
//!   accepts; an application's mbuf carries flags and lengths, not seeds (its
//!   PMD's `tx_prepare` writes them), so a `Partial` from one is verified or
//!   prepared, never assumed.
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
