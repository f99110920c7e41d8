//! Wire parsing and checksum arithmetic: kernels, oracles, CRC32c, the parser.
//!
//! One test binary per concern (as etherparse keeps one): each former test file is
//! a module, and the shared support tree (tests/support) is compiled once.

#[path = "../support/mod.rs"]
mod support;

mod crc32c_vectors;
mod csum_kernels;
mod csum_oracle;
mod csum_replace;
mod simd_valgrind;
mod wire_parse;
mod wire_prop;
