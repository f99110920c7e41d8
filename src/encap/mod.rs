//! Tunnels (VXLAN, GENEVE, GRE, IP-in-IP): decapsulation and encapsulation as
//! checksum-state transitions. Uses `state`, `csum` and `wire`.
#![forbid(unsafe_code)]
