//! Where the shared packet corpus lives, for the tests that need it.
//!
//! Those tests are `#[ignore = "needs ../shared/corpus"]`, so a plain
//! `cargo test` lists them as ignored instead of passing them silently; CI runs
//! them with `cargo test -- --ignored` where the corpus is present. Once asked
//! to run, a missing corpus is a failure, not a skip.

use std::path::PathBuf;

/// The corpus's `pcap/` folder: `$NETOFFLOAD_CORPUS/pcap` if set, else the
/// first `shared/corpus/pcap` beside the crate or one of its parent folders
/// (the project's shared folder is `../shared` from a checkout).
pub fn pcap_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("NETOFFLOAD_CORPUS") {
        return PathBuf::from(dir).join("pcap");
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/corpus/pcap"))
        .find(|p| p.is_dir())
        .expect("needs the shared packet corpus (../shared/corpus/pcap, or set NETOFFLOAD_CORPUS)")
}
