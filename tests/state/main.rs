//! Checksum state: transitions, paravirt boundaries, tunnels, soundness walks.
//!
//! One test binary per concern (as etherparse keeps one): each former test file is
//! a module, and the shared support tree (tests/support) is compiled once.

#[path = "../support/mod.rs"]
mod support;

mod encap_decap;
mod encap_errors;
mod encap_pcap;
mod encap_roundtrip;
mod error_display;
mod fuzz_regressions;
mod paravirt_afpacket;
mod paravirt_dpdk;
mod paravirt_regressions;
mod paravirt_scenarios;
mod paravirt_virtio;
mod paravirt_xen;
mod soundness_regressions;
mod soundness_walk;
mod state_oracle;
mod state_props;
mod state_rules;
mod state_tunnel;
mod virtio_linux_rules;
mod virtio_tun_read;
