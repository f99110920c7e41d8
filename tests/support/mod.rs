//! Shared test support: packet builders (etherparse) and the soundness oracle.
//!
//! Use from an integration test with `mod support;` (each test file compiles
//! it separately, so items unused by one file are allowed).
#![allow(dead_code)]

pub mod oracle;
pub mod packets;
