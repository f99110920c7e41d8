//! The GRO engine: Linux-exact TCP/UDP coalescing with flush reasons and
//! super-packet descriptors.
//!
//! The engine models current mainline Linux (`dev_gro_receive`,
//! `inet_gro_receive`, `ipv6_gro_receive`, `tcp_gro_receive`,
//! `udp_gro_receive[_segment]`, `vxlan`/`geneve`/`gre`/`ipip` receive, and the
//! `*_gro_complete` chain) with two deliberate improvements: packets of one
//! flow never leave out of order (a held super-packet
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
//! # Shape
//!
//! [`Gro`] owns a fixed array of flow records (each a [`SuperPacket`]: merge
//! state and the predicted next header first, then the segment list, then the
//! first packet's header bytes up to [`MAX_HEADER`]), hash buckets indexed by
//! the top bits of the flow hash with chains through the records, a free list
//! and an age list (oldest first). [`Gro::receive`] returns a [`Disposition`]
//! (held: merged or new flow; or passed up with its [`FlushReason`] and
//! metadata); every super-packet the call flushes goes to the sink *before*
//! it returns, so a passed-up packet follows them. [`Gro::tick`] flushes by
//! age, [`Gro::flush_all`] at the end of a poll (oldest first),
//! [`Gro::set_kinds`] switches kinds at run time (flushing first).
//! [`Gro::receive_burst`] takes a driver's descriptor array ([`BurstFrame`]s,
//! DPDK's `rte_gro_reassemble_burst` shape) and hints each frame's header to
//! the cache a few frames before it reads it;
//! [`Gro::receive_burst_with_next`] also hints the start of the next burst,
//! for a poll loop that has polled it.
//!
//! # Files
//!
//! `parse.rs` (the one-pass header walker: Ethernet with two VLAN tags or raw
//! IP, IPv4, IPv6 with extension headers, one tunnel level of VXLAN, GENEVE,
//! GRE with C/K only, or IP-in-IP), `cb.rs` (checksum control block),
//! `layout.rs` (the fixed layouts of the fast paths, as data from `wire`'s
//! offsets: Ethernet / IPv4 / TCP and its VXLAN tunnel, inlined into the
//! caller's poll loop; raw IP / IPv4 / TCP and Ethernet / IPv6 / TCP, inlined
//! after them), `rules.rs` (the field rules, one row each: bytes, mask,
//! [`FlushReason`]; the general path names the failing row, the fast paths'
//! masks are built from the rows), `flow.rs` (hash, identity, the other merge
//! rules, the fixed-layout merge tests), `expect.rs` (the predicted next
//! header of a fixed-layout flow), `words.rs` (the words its compare reads,
//! derived from each layout's varying fields), `engine.rs` (table, receive, flush, one
//! bucket walk `find`),
//! `output.rs` ([`Disposition`], [`SuperPacket`], its [`GsoType`](crate::wire::GsoType), completion,
//! [`SuperPacket::write_into`]), `segs.rs` (the segment list), `reason.rs`
//! ([`FlushReason`], one value per rule, stable snake_case names),
//! `config.rs` (with the hidden `fast_path` switch: off, every frame takes
//! the general path, which tests and fuzzing compare with the fast paths).
//! Optimisation history: `docs/perf/gro-hot-path.md`.
//!
//! # Checksums (`cb.rs`, Linux `include/net/gro.h`)
//!
//! `Unnecessary { level }` gives `level + 1` checksums, consumed outermost
//! first (a zero UDP checksum consumes one). `Complete` (from the outermost
//! IP header to the end of the frame, padding trimmed) is a running sum
//! checked by arithmetic and moved inward as headers are pulled. `Partial`
//! vouches for every checksum at or before its start. Otherwise the layer is
//! summed in software once and the sum kept, so inner layers cost nothing
//! more. A non-zero outer UDP or GRE checksum converts to a running sum. A
//! device sum that fails while software finds the data good counts a
//! checksum fault and the packet merges. [`TunnelPolicy::Strict`] is the 2015
//! `udp_gro_receive` gate (no tunnel GRO without `Partial`, a remaining level
//! or a valid running sum: [`FlushReason::TunnelChecksumStrict`]);
//! [`TunnelPolicy::Compute`] is current kernels (inner checksum verified in
//! software). Fragments, IP options, bad IPv4 header checksums and length
//! mismatches are decided before any checksum work.
//!
//! # Identity and merge rules (`flow.rs`)
//!
//! Same flow: link header bytes (MACs, VLAN tags); per IP layer the version,
//! addresses, protocol and IPv6 flow label; for tunnels the UDP ports and
//! checksum presence, VXLAN flags and VNI, GENEVE header and options, GRE
//! flags, protocol and key, the inner Ethernet header; TCP/UDP ports.
//!
//! Merge (the first failing rule names the reason): pure ACK; the TCP flag
//! word (data offset, CWR, other flags except FIN/PSH, window); ACK; option
//! bytes; per IP layer TTL / hop limit, TOS / traffic class, DF, IPv6
//! extension bytes and the IPv4 ID (the second segment sets the mode:
//! incrementing or fixed, each layer its own); a segment longer than the
//! first; sequence continuity; [`GroConfig::max_size`]. After a merge the flow
//! completes on URG/PSH/RST/SYN/FIN, a short segment, or
//! [`GroConfig::max_segs`]. A packet that cannot merge flushes its flow and,
//! unless it must go up alone, starts a new one (`tcp_gro_receive`). UDP
//! (`udp_gro_receive_segment`): off by default, a checksum required, same
//! size or a shorter last; known tunnel ports are never plain-UDP-merged.
//!
//! # Output (completion)
//!
//! A single-packet flow leaves unchanged with its metadata (upgraded to
//! `Unnecessary` for what this pass verified, `__skb_incr_checksum_unnecessary`).
//! A merged one gets every IPv4 total length and header checksum, IPv6 payload
//! length, tunnel UDP length, FIN/PSH ORed into the TCP flags, the
//! pseudo-header seed in the TCP (UDP) checksum field, an outer UDP checksum
//! turned into its seed, the [`GsoType`](crate::wire::GsoType) bits, and the state
//! `Partial { start: l4 }` with `CSUM_BLANK` (the field holds a seed, as
//! Linux's `CHECKSUM_PARTIAL`).
//!
//! Not modelled: BIG TCP (> 64 KiB), fraglist GRO, GRO of packets already
//! GSO, remote checksum offload, nested tunnels and IPv6 routing headers with
//! segments left ([`FlushReason::NotCandidate`]), the Home Address option.
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
mod layout;
mod output;
mod parse;
#[cfg(test)]
mod parse_tests;
mod reason;
mod rules;
mod segs;
mod virtio;
mod words;

pub use config::{
    DEFAULT_MAX_SIZE, GroConfig, GroKinds, MAX_HEADER, MAX_SEGS, SoftwareVerify, TunnelPolicy,
};
pub use engine::{BurstFrame, Gro, GroStats};
pub use output::{Disposition, Held, IdMode, Segment, SuperPacket, WriteError};
pub use reason::FlushReason;
pub use virtio::{VirtioGsoError, VirtioWriteError, virtio_gso};
