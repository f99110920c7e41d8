//! `fold(partial(..))` against independent implementations: `internet-checksum`,
//! `smoltcp::wire::checksum::data`, `etherparse`'s `Sum16BitWords`, and the
//! transport checksums etherparse writes into real packets it builds.

use etherparse::PacketBuilder;
use netoffload::csum::{self, Level, Sum16, Wsum};
use proptest::prelude::*;

fn levels() -> Vec<Level> {
    Level::ALL
        .into_iter()
        .filter(|l| *l <= csum::detected_level())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn peers_agree_on_random_bytes(data in proptest::collection::vec(any::<u8>(), 0..3000), off in 0usize..8) {
        let d = &data[off.min(data.len())..];
        for l in levels() {
            let ours = csum::fold(csum::partial_at(l, d, Wsum::ZERO).unwrap());
            prop_assert_eq!(ours.to_bytes(), internet_checksum::checksum(d), "internet-checksum {:?}", l);
            prop_assert_eq!(!ours.to_be_u16(), smoltcp::wire::checksum::data(d), "smoltcp {:?}", l);
            // etherparse sums native-order words, like `Wsum`: compare raw values.
            let ep = etherparse::checksum::Sum16BitWords::new().add_slice(d).ones_complement();
            prop_assert_eq!(ours.raw(), ep, "etherparse {:?}", l);
        }
    }

    #[test]
    fn udp_tcp_v4_checksums_equal_etherparse(
        src in any::<[u8; 4]>(), dst in any::<[u8; 4]>(),
        sport in any::<u16>(), dport in any::<u16>(),
        seq in any::<u32>(), win in any::<u16>(),
        payload in proptest::collection::vec(any::<u8>(), 0..1600),
        tcp in any::<bool>(),
    ) {
        let b = PacketBuilder::ipv4(src, dst, 64);
        let mut pkt = Vec::new();
        let (proto, field) = if tcp {
            b.tcp(sport, dport, seq, win).write(&mut pkt, &payload).unwrap();
            (6u8, 16usize)
        } else {
            b.udp(sport, dport).write(&mut pkt, &payload).unwrap();
            (17u8, 6usize)
        };
        let mut l4 = pkt[20..].to_vec();
        let written = Sum16::from_bytes([l4[field], l4[field + 1]]);
        l4[field] = 0;
        l4[field + 1] = 0;
        let body = csum::partial(&l4, Wsum::ZERO);
        let mut ours = csum::fold(csum::pseudo_v4(src, dst, proto, l4.len() as u32, body));
        if !tcp {
            ours = ours.udp_mangle_zero();
        }
        prop_assert_eq!(ours, written);
        // The IPv4 header etherparse wrote verifies to 0, and recomputes.
        prop_assert!(csum::ipv4_header(&pkt[..20]).is_zero());
        let mut hdr = pkt[..20].to_vec();
        hdr[10] = 0;
        hdr[11] = 0;
        prop_assert_eq!(csum::ipv4_header(&hdr).to_bytes(), [pkt[10], pkt[11]]);
    }

    /// The 20-byte `ipv4_header` (two u64 words and a u32 with end-around
    /// carries) folds to what `partial` gives over the same bytes, and so to
    /// the naive sum, for any header.
    #[test]
    fn ipv4_header_of_20_bytes_equals_the_fold_of_partial(h in any::<[u8; 20]>()) {
        prop_assert_eq!(csum::ipv4_header(&h), csum::fold(csum::partial(&h, Wsum::ZERO)));
    }

    #[test]
    fn udp_tcp_v6_checksums_equal_etherparse(
        src in any::<[u8; 16]>(), dst in any::<[u8; 16]>(),
        sport in any::<u16>(), dport in any::<u16>(),
        payload in proptest::collection::vec(any::<u8>(), 0..1600),
        tcp in any::<bool>(),
    ) {
        let b = PacketBuilder::ipv6(src, dst, 64);
        let mut pkt = Vec::new();
        let (proto, field) = if tcp {
            b.tcp(sport, dport, 1, 2).write(&mut pkt, &payload).unwrap();
            (6u8, 16usize)
        } else {
            b.udp(sport, dport).write(&mut pkt, &payload).unwrap();
            (17u8, 6usize)
        };
        let l4 = &pkt[40..];
        // Verification form: summing the segment with its checksum in place
        // plus the pseudo-header folds to 0.
        let sum = csum::pseudo_v6(&src, &dst, proto, l4.len() as u32, csum::partial(l4, Wsum::ZERO));
        prop_assert!(csum::fold(sum).is_zero());
        let mut z = l4.to_vec();
        z[field] = 0;
        z[field + 1] = 0;
        let mut ours = csum::fold(csum::pseudo_v6(&src, &dst, proto, z.len() as u32, csum::partial(&z, Wsum::ZERO)));
        if !tcp {
            ours = ours.udp_mangle_zero();
        }
        prop_assert_eq!(ours.to_bytes(), [l4[field], l4[field + 1]]);
    }
}
