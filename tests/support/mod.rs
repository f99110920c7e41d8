//! Shared test support: packet builders (etherparse) and the soundness oracle.
//!
//! Use from an integration test with `mod support;` (each test file compiles
//! it separately, so items unused by one file are allowed). The soundness walk
//! (`walk.rs`, with `peer_rules.rs`) is included on its own by
//! `tests/soundness_walk.rs` and the `state_ops` fuzz target, beside
//! `oracle.rs` and `packet_build.rs` (it names them as `super::`).
#![allow(dead_code)]

pub mod oracle;
pub mod packet_build;
pub mod packets;
