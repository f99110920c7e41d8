//! Real packets built with etherparse (headers and their checksums), plus the
//! proptest strategies the state tests draw them from. The builder itself is
//! `packet_build.rs` (re-exported here).

pub use super::packet_build::*;
use proptest::prelude::*;

/// Any transport.
pub fn arb_l4() -> impl Strategy<Value = L4> {
    prop_oneof![
        (0u8..=10).prop_map(|opt_words| L4::Tcp { opt_words }),
        Just(L4::Udp),
        Just(L4::UdpZero),
        Just(L4::Sctp),
        Just(L4::Icmp),
    ]
}

/// Any packet spec: IPv4/IPv6, options or extension headers, VLAN tags,
/// random payloads (0..=1500 bytes, odd lengths included) and padding.
pub fn arb_spec() -> impl Strategy<Value = Spec> {
    (
        any::<bool>(),
        any::<bool>(),
        0u8..=2,
        arb_l4(),
        prop::collection::vec(any::<u8>(), 0..=1500),
        0u8..=10,
        0u8..=3,
        prop::collection::vec(any::<u8>(), 0..=12),
        any::<u8>(),
        0u8..=255,
    )
        .prop_map(
            |(v6, raw_ip, vlans, l4, payload, v4_opt_words, v6_ext_blocks, pad, addr_seed, ttl)| {
                Spec {
                    v6,
                    raw_ip,
                    vlans,
                    l4,
                    payload,
                    v4_opt_words,
                    v6_ext_blocks,
                    pad,
                    addr_seed,
                    ttl,
                }
            },
        )
}
