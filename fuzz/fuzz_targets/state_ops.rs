//! The soundness walk (tests/support/walk.rs, issue 14 item 5) driven by the
//! fuzzer's bytes: a frame (built from a decoded spec with tunnels and
//! corrupted checksums, or the input's own mutated frame), a start at one of
//! the crate's boundaries (device report, virtio under every policy, Xen,
//! DPDK receive and transmit, AF_PACKET), then up to 8 public transitions
//! (validate, deliver, conntrack, try_convert, pull, push, trim, bridge,
//! route, NAT, fill, IPv4 header check, decap, decap_nested, descend, encap,
//! DPDK transmit round trip). After every step the from-scratch oracle
//! accepts the state (`oracle::check_strict`), every verdict is true of the
//! bytes, a refusal changed nothing, and no boundary accepted what its peer
//! (Linux, DPDK) refuses. Same code and same oracle as
//! `tests/soundness_walk.rs`; the input layout is `walk::Case::decode`.
#![no_main]

#[allow(dead_code)]
#[path = "../../tests/support/oracle.rs"]
mod oracle;
#[allow(dead_code)]
#[path = "../../tests/support/packet_build.rs"]
mod packet_build;
#[allow(dead_code)]
#[path = "../../tests/support/peer_rules.rs"]
mod peer_rules;
#[path = "../../tests/support/walk.rs"]
mod walk;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let case = walk::Case::decode(data);
    if let Err(f) = walk::run(&case) {
        // WALK_TOLERATE_KNOWN (see `walk::tolerated`) looks past known bugs.
        if walk::known_bug(&f).is_some_and(walk::tolerated) {
            return;
        }
        panic!("{f}\ncase: {case:#?}");
    }
});
