//! Shared test support: packet builders (etherparse) and the soundness oracle.
//!
//! Each test binary (tests/<group>/main.rs) declares it once; items unused by
//! one binary are allowed.
//! The soundness walk (`walk.rs`, with `peer_rules.rs`) names its neighbours
//! as `super::`, so the `state_ops` fuzz target can include the same files.
#![allow(dead_code)]

pub mod corpus;
pub mod encap;
pub mod gro;
pub mod oracle;
pub mod packet_build;
pub mod packets;
pub mod paravirt;
pub mod peer_rules;
pub mod tx;
pub mod walk;
pub mod wire_gen;
