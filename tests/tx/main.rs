//! Transmit: decisions, features, segmentation, the ring planner.
//!
//! One test binary per concern (as etherparse keeps one): each former test file is
//! a module, and the shared support tree (tests/support) is compiled once.

#[path = "../support/mod.rs"]
mod support;

mod tx_corpus;
mod tx_decide;
mod tx_features;
mod tx_gro;
mod tx_planner;
mod tx_robust;
mod tx_segment;
mod tx_segment_into;
mod tx_tunnel;
mod tx_virtio_gso;
