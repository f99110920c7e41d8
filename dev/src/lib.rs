//! Holder of the repository's tests, benches and examples (never published).
//!
//! Cargo needs a target per package; this empty library is it. See
//! `dev/Cargo.toml` for why these targets live in their own package.
#![no_std]
