//! Shared test support: packet builders (etherparse) and the soundness oracle.
//!
//! Each test binary (tests/<group>/main.rs) declares it once; items unused by
//! one binary are allowed.
#![allow(dead_code)]

pub mod corpus;
pub mod encap;
pub mod gro;
pub mod oracle;
pub mod packets;
pub mod paravirt;
pub mod tx;
pub mod wire_gen;
