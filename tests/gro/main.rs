//! The GRO engine: rules, tables, checksums, tunnels, UDP, properties.
//!
//! One test binary per concern (as etherparse keeps one): each former test file is
//! a module, and the shared support tree (tests/support) is compiled once.

#[path = "../support/mod.rs"]
mod support;

mod gro_burst;
mod gro_csum;
mod gro_fast;
mod gro_prop;
mod gro_regress;
mod gro_rules;
mod gro_static;
mod gro_table;
mod gro_tunnels;
mod gro_udp;
mod gro_virtio;
