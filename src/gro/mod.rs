//! The GRO engine: Linux-exact TCP/UDP coalescing with flush reasons and
//! super-packet descriptors. Uses `state`, `encap`, `csum` and `wire`.
#![forbid(unsafe_code)]
