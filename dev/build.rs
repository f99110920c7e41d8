//! Builds the in-process DPDK GRO peer (`benches/support/dpdk_peer.c`) for
//! `benches/gro_dpdk.rs` when `pkg-config` finds DPDK and the peer's source is
//! there (`../shared/bench-peers/dpdk-gro`, or `GRO_DPDK_PEER`); sets
//! `cfg(dpdk_peer)` then. Without them nothing is built and the bench runs
//! the peer as a separate process, or skips.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(dpdk_peer)");
    println!("cargo::rerun-if-changed=benches/support/dpdk_peer.c");
    println!("cargo::rerun-if-env-changed=GRO_DPDK_PEER");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let peer_dir = std::env::var_os("GRO_DPDK_PEER")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../shared/bench-peers/dpdk-gro"));
    let source = peer_dir.join("gro_dpdk.c");
    println!("cargo::rerun-if-changed={}", source.display());
    let pkg = |what: &str| {
        Command::new("pkg-config")
            .args([what, "libdpdk"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (Some(cflags), Some(libs)) = (pkg("--cflags"), pkg("--libs")) else {
        return;
    };
    let Ok(source) = source.canonicalize() else {
        return;
    };
    let mut build = cc::Build::new();
    build.file(manifest.join("benches/support/dpdk_peer.c"));
    for flag in cflags.split_whitespace() {
        build.flag(flag);
    }
    // As the peer's run.sh builds it: -O3, -march=native after DPDK's flags.
    build
        .opt_level(3)
        .flag("-march=native")
        .flag("-Wno-unused-function")
        .define("ALLOW_EXPERIMENTAL_API", None)
        .define(
            "PEER_SRC",
            Some(format!("\"{}\"", source.display()).as_str()),
        )
        .cargo_metadata(false)
        .compile("dpdk_peer");
    // Benches only: the tests and the library never link DPDK.
    let out = std::env::var("OUT_DIR").expect("cargo sets it");
    println!("cargo::rustc-link-arg-benches={out}/libdpdk_peer.a");
    for flag in libs.split_whitespace() {
        println!("cargo::rustc-link-arg-benches={flag}");
    }
    println!("cargo::rustc-cfg=dpdk_peer");
}
