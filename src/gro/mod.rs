//! The GRO engine: Linux-exact TCP/UDP coalescing with flush reasons and
//! super-packet descriptors.
//!
//! The engine models current mainline Linux (`dev_gro_receive`,
//! `inet_gro_receive`, `ipv6_gro_receive`, `tcp_gro_receive`,
//! `udp_gro_receive[_segment]`, `vxlan`/`geneve`/`gre`/`ipip` receive, and the
//! `*_gro_complete` chain) with two deliberate improvements from the design
//! brief: packets of one flow never leave out of order (a held super-packet
//! goes up before an unmergeable packet of its flow), and frames padded to the
//! 60-byte Ethernet minimum are trimmed to their IP length and may merge.
//!
//! The caller passes each frame with an opaque `u32` id and its [`CsumMeta`];
//! the engine keeps per flow only the first packet's header bytes and the
//! segments' ids and payload ranges. It never copies payload and never
//! allocates. Flushed flows come out as [`SuperPacket`] descriptors through a
//! sink closure; [`SuperPacket::write_into`] builds the contiguous packet
//! (`CHECKSUM_PARTIAL`: the TCP/UDP field holds the pseudo-header seed, as
//! Linux hands it up), [`SuperPacket::write_finished_into`] the same with
//! every checksum filled. The caller keeps each held frame's bytes alive
//! until the super-packet holding it is written: the engine has only its id.
//!
//! Checksums follow `NAPI_GRO_CB` bookkeeping (see `cb`): no segment joins a
//! super-packet unless its checksum is vouched for by its state or verified
//! now in software (bytes counted in [`GroStats::sw_bytes`]).
//!
//! [`CsumMeta`]: crate::state::CsumMeta
#![forbid(unsafe_code)]

mod cb;
mod config;
mod engine;
mod expect;
#[cfg(test)]
mod fast_tests;
mod flow;
mod output;
mod parse;
mod reason;
mod segs;

pub use config::{
    DEFAULT_MAX_SIZE, GroConfig, GroKinds, MAX_HEADER, MAX_SEGS, SoftwareVerify, TunnelPolicy,
};
pub use engine::{Gro, GroStats};
pub use output::{GsoType, Held, IdMode, Segment, SuperPacket, Verdict, WriteError};
pub use reason::FlushReason;
