//! Tunnels (VXLAN, GENEVE, GRE, IP-in-IP): decapsulation and encapsulation as
//! checksum-state transitions. Uses `state`, `csum` and `wire`.
//!
//! # Receive: [`decap()`] and [`decap_nested`]
//!
//! A tunnel is found at the outer transport layer ([`detect`]): UDP to a VXLAN
//! port (RFC 7348, 4789 and configurable) or the GENEVE port (RFC 8926, 6081),
//! GRE version 0 (IP protocol 47, RFC 2784 / 2890 with C, K, S bits), or IPv4 /
//! IPv6 in IP (protocols 4 and 41), over an IPv4 or IPv6 outer header, with VLAN
//! tags on either side. Its header is checked (a typed error names the field)
//! and the inner packet's layers are returned with the new checksum state:
//!
//! - `Unnecessary { level }` MUST consume one level for an outer UDP checksum,
//!   zero or not, and for a GRE checksum (C bit); none for IP-in-IP or GRE
//!   without C (Linux `__skb_checksum_validate_needed` with `zero_okay`; the
//!   soundness contract of [`state`](crate::state) counts a zero UDP checksum). Level 0 consumed on a
//!   zero checksum leaves `None`: the inner checksum is computed in software
//!   (the 82599 case). Level 0 consumed on a non-zero checksum converts to
//!   `Complete { !pseudo }` (`skb_checksum_try_convert`), so the inner check is free.
//! - `Complete` MUST be adjusted for every pulled byte (`skb_postpull_rcsum`
//!   with two's-complement negation) and trailing byte (`pskb_trim_rcsum`);
//!   the outer checksum is checked against it by arithmetic; a sum that fails
//!   but whose software recomputation passes is a device checksum fault.
//! - `None` with a non-zero outer checksum: verified in software, the computed
//!   inner part kept as `Complete` (no byte summed twice).
//! - A bad outer checksum is [`DecapError::BadOuterChecksum`]: drop the packet.
//! - `Partial` (local origin) stays when it points into the inner packet and
//!   becomes `None` when it pointed into the outer headers.
//! - `DATA_VALID` (a peer's "data validated") speaks for the outer checksum
//!   only, like the level 0 Linux reads it as: validating the outer layer uses
//!   it up and the inner packet never has it (also behind IP-in-IP or GRE
//!   without C, whose outer layer has no checksum). [`encap`] drops it likewise.
//!
//! A zero UDP checksum over IPv6 is refused unless the port is configured for
//! zero-checksum mode (RFC 6935 / 6936, [`ZeroCsumPolicy`]).
//!
//! # Transmit: [`encap`]
//!
//! Writes the outer headers into the caller's headroom in front of the inner
//! packet (no payload copy). The outer UDP checksum is zero, computed, or
//! derived by local checksum offload from the inner `Partial` ([`lco_csum`]); the
//! GRE checksum likewise; the outer IPv4 header checksum is filled. The inner
//! `Partial` stays `Partial` with its start shifted by the outer header length.
//! Remote checksum offload (VXLAN RCO, Linux `remcsum`) is not implemented: a
//! VXLAN header with the RCO bit is decapsulated as a plain one.
//!
//! # Worked example (receiver `csum_level`)
//!
//! IPv4 -> UDP (non-zero checksum) -> VXLAN -> Ethernet -> IPv4 -> TCP. An
//! 82599-like device verifies only the outer UDP checksum: `Unnecessary { 0 }`.
//! [`decap()`] consumes level 0 and converts to `Complete`; validating the inner
//! TCP checksum then costs only the pseudo-header. With a zero outer checksum
//! the same report leaves `None` and the inner TCP segment is summed in software.
//! A tunnel-aware device reporting `Unnecessary { 1 }` leaves `Unnecessary { 0 }`
//! for the inner TCP checksum.
//!
//! # Files
//!
//! `config.rs` ([`EncapConfig`]: ports, depth, zero-checksum policy),
//! `header.rs` ([`detect`], [`parse_tunnel`], [`parse_inner`]: the header
//! checks of `vxlan_rcv`, `geneve_rx`, `gre_parse_header`, `ipip_rcv` over the
//! wire room's views), `tunnel.rs` ([`Tunnel`]: kind, outer offsets, VNI,
//! options, key, [`OuterCsum`]), `decap.rs` (the receive steps; no checksum
//! arithmetic of its own), `push.rs` ([`encap()`]), `lco.rs` ([`lco_csum`]).
//!
//! Cost: with `None` and a non-zero outer checksum the tunnel header bytes
//! (30 to 50) are summed twice, once in the outer segment and once when
//! pulled: the price of composing the state transitions. Not done: GRE in UDP
//! (port 4754); a non-IP inner frame (ARP in VXLAN) is refused with
//! [`DecapError::InnerNotIp`].
#![forbid(unsafe_code)]

mod config;
mod decap;
mod error;
mod header;
mod lco;
mod push;
mod tunnel;

pub use config::{EncapConfig, MAX_DEPTH, MAX_PORTS, ZeroCsumPolicy};
pub use decap::{Decap, DecapReason, Nested, Step, decap, decap_nested};
pub use error::{DecapError, EncapError};
pub use header::{detect, parse_inner, parse_tunnel};
pub use lco::lco_csum;
pub use push::{
    EncapSpec, Encapsulated, OuterCsumFill, OuterEthernet, OuterIp, TunnelSpec, UdpCsumMode, encap,
};
pub use tunnel::{GeneveFacts, GreFacts, InnerProto, OuterCsum, Tunnel, TunnelKind};
