//! RFC 1071 and RFC 1624 worked examples (from the reference notes) and
//! incremental updates against full recomputation by etherparse (proptest),
//! including the 0x0000 / 0xFFFF corner.

use etherparse::PacketBuilder;
use netoffload::csum::{self, Sum16, Wsum};
use proptest::prelude::*;

#[test]
fn rfc1071_byte_order_example() {
    let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    let s = csum::partial(&bytes, Wsum::ZERO);
    // LE words 0x0100+0x03f2+0xf5f4+0xf7f6 fold to 0xf2dd; the checksum is
    // ~0xddf2 = 0x220d in network order.
    assert_eq!(!csum::fold(s).raw(), 0xf2dd);
    assert_eq!(csum::fold(s).to_be_u16(), 0x220d);
    assert_eq!(csum::fold(s).to_bytes(), [0x22, 0x0d]);
}

fn wiki_header() -> [u8; 20] {
    [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ]
}

#[test]
fn ipv4_header_example_and_ttl_decrement() {
    let mut h = wiki_header();
    let c = csum::ipv4_header(&h);
    assert_eq!(c.to_be_u16(), 0xb861);
    h[10..12].copy_from_slice(&c.to_bytes());
    assert!(csum::ipv4_header(&h).is_zero());
    // TTL 0x40 -> 0x3f: the word 0x4011 becomes 0x3f11.
    let updated = csum::replace2(c, [0x40, 0x11], [0x3f, 0x11]);
    assert_eq!(updated.to_be_u16(), 0xb961);
    h[8] = 0x3f;
    h[10..12].copy_from_slice(&updated.to_bytes());
    assert!(csum::ipv4_header(&h).is_zero());
}

#[test]
fn rfc1624_example_gives_plus_zero() {
    // Other words sum to 0xCD7A; the field changes 0x5555 -> 0x3285.
    let old = [0xcd, 0x7a, 0x55, 0x55];
    let hc = csum::fold(csum::partial(&old, Wsum::ZERO));
    assert_eq!(hc.to_be_u16(), 0xDD2F);
    let hc2 = csum::replace2(hc, [0x55, 0x55], [0x32, 0x85]);
    assert_eq!(hc2.to_be_u16(), 0x0000, "eq. 3, not eq. 2's 0xFFFF");
    let fresh = csum::fold(csum::partial(&[0xcd, 0x7a, 0x32, 0x85], Wsum::ZERO));
    assert_eq!(hc2, fresh);
}

#[test]
fn rfc1624_unchanged_field_corners() {
    // Erratum 4782's case: with end-around carry, m == m' leaves HC = 0x0000 alone.
    for hc in [0x0000u16, 0x1234, 0xFFFE] {
        let f = Sum16::from_be_u16(hc);
        for m in [[0u8, 0], [0xff, 0xff], [0x55, 0x55]] {
            assert_eq!(csum::replace2(f, m, m), f, "hc {hc:#x} m {m:?}");
        }
    }
    // A UDP field of 0xFFFF is a computed 0 sent mangled: eq. 3 gives the
    // computed value 0x0000 (as Linux's csum_replace2 does), which the UDP
    // transmit rule maps back to 0xFFFF.
    for m in [[0u8, 0], [0xff, 0xff], [0x55, 0x55]] {
        let r = csum::replace2(Sum16::MANGLED_ZERO, m, m);
        assert_eq!(r, Sum16::ZERO, "m {m:?}");
        assert_eq!(r.udp_mangle_zero(), Sum16::MANGLED_ZERO);
    }
}

#[test]
fn udp_zero_rules() {
    assert_eq!(Sum16::ZERO.udp_mangle_zero(), Sum16::MANGLED_ZERO);
    assert_eq!(Sum16::MANGLED_ZERO.to_bytes(), [0xff, 0xff]);
    let x = Sum16::from_be_u16(0x1234);
    assert_eq!(x.udp_mangle_zero(), x);
}

/// Builds an IPv4 UDP or TCP packet; with `force_zero` the payload's first
/// word is adjusted so that the computed UDP checksum is 0 (sent as 0xFFFF).
fn build_v4(
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    tcp: bool,
    mut payload: Vec<u8>,
    force_zero: bool,
) -> Vec<u8> {
    let build = |p: &[u8]| {
        let b = PacketBuilder::ipv4(src, dst, 64);
        let mut pkt = Vec::new();
        if tcp {
            b.tcp(sport, 80, 7, 1000).write(&mut pkt, p).unwrap();
        } else {
            b.udp(sport, 53).write(&mut pkt, p).unwrap();
        }
        pkt
    };
    let pkt = build(&payload);
    if !force_zero || tcp || payload.len() < 2 {
        return pkt;
    }
    let c = u16::from_be_bytes([pkt[26], pkt[27]]) as u32;
    let w = u16::from_be_bytes([payload[0], payload[1]]) as u32;
    let mut t = w + if c == 0xFFFF { 0 } else { c };
    t = (t & 0xFFFF) + (t >> 16);
    payload[..2].copy_from_slice(&(t as u16).to_be_bytes());
    let pkt = build(&payload);
    assert_eq!([pkt[26], pkt[27]], [0xff, 0xff], "forced zero checksum");
    pkt
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn nat_replace_equals_recomputation_v4(
        src in any::<[u8; 4]>(), dst in any::<[u8; 4]>(), new_src in any::<[u8; 4]>(),
        sport in any::<u16>(), new_sport in any::<u16>(),
        payload in proptest::collection::vec(any::<u8>(), 2..600),
        tcp in any::<bool>(), force_zero in any::<bool>(),
    ) {
        let old = build_v4(src, dst, sport, tcp, payload.clone(), force_zero);
        let payload_now = old[20 + if tcp { 20 } else { 8 }..].to_vec();
        let new = build_v4(new_src, dst, new_sport, tcp, payload_now, false);
        let f = if tcp { 20 + 16 } else { 20 + 6 };
        let field = Sum16::from_bytes([old[f], old[f + 1]]);
        // inet_proto_csum_replace4 (pseudo-header address) then replace2 (port).
        let mut upd = csum::replace4(field, src, new_src);
        upd = csum::replace2(upd, sport.to_be_bytes(), new_sport.to_be_bytes());
        let want = Sum16::from_bytes([new[f], new[f + 1]]);
        if tcp {
            prop_assert_eq!(upd, want);
        } else {
            prop_assert_eq!(upd.udp_mangle_zero(), want);
        }
        // The IPv4 header's own checksum follows the address too.
        let ip = Sum16::from_bytes([old[10], old[11]]);
        prop_assert_eq!(csum::replace4(ip, src, new_src).to_bytes(), [new[10], new[11]]);
    }

    #[test]
    fn nat_replace16_equals_recomputation_v6(
        src in any::<[u8; 16]>(), dst in any::<[u8; 16]>(), new_dst in any::<[u8; 16]>(),
        payload in proptest::collection::vec(any::<u8>(), 0..600),
    ) {
        let build = |d: [u8; 16]| {
            let mut pkt = Vec::new();
            PacketBuilder::ipv6(src, d, 9).tcp(1, 2, 3, 4).write(&mut pkt, &payload).unwrap();
            pkt
        };
        let (old, new) = (build(dst), build(new_dst));
        let f = 40 + 16;
        let upd = csum::replace16(Sum16::from_bytes([old[f], old[f + 1]]), &dst, &new_dst);
        prop_assert_eq!(upd.to_bytes(), [new[f], new[f + 1]]);
    }

    #[test]
    fn partial_seed_moves_with_the_pseudo_header(
        src in any::<[u8; 4]>(), dst in any::<[u8; 4]>(), new_src in any::<[u8; 4]>(),
        src6 in any::<[u8; 16]>(), new_src6 in any::<[u8; 16]>(),
        len in 8u32..65536, proto in prop_oneof![Just(6u8), Just(17u8)],
    ) {
        // CHECKSUM_PARTIAL leaves ~csum_fold(pseudo) = the folded pseudo sum in the field.
        let seed = |s: Wsum| Sum16::from_raw(!csum::fold(s).raw());
        let old = seed(csum::pseudo_v4(src, dst, proto, len, Wsum::ZERO));
        let want = seed(csum::pseudo_v4(new_src, dst, proto, len, Wsum::ZERO));
        prop_assert_eq!(csum::replace_seed(old, &src, &new_src), want);
        let old6 = seed(csum::pseudo_v6(&src6, &src6, proto, len, Wsum::ZERO));
        let want6 = seed(csum::pseudo_v6(&new_src6, &src6, proto, len, Wsum::ZERO));
        prop_assert_eq!(csum::replace_seed(old6, &src6, &new_src6), want6);
    }

    #[test]
    fn complete_sum_update_equals_resum(
        mut data in proptest::collection::vec(any::<u8>(), 4..2000),
        at in 0usize..1000, to in any::<[u8; 4]>(),
    ) {
        let at = (at.min(data.len() - 4)) & !1;
        let sum = csum::partial(&data, Wsum::new(0x1234));
        let from: [u8; 4] = data[at..at + 4].try_into().unwrap();
        data[at..at + 4].copy_from_slice(&to);
        let upd = csum::replace_in_sum(sum, &from, &to);
        prop_assert_eq!(csum::fold(upd), csum::fold(csum::partial(&data, Wsum::new(0x1234))));
    }
}

/// The carries of the 20-byte `ipv4_header`: all zeros, all ones, and
/// headers whose u64 adds carry out (end-around) once or twice.
#[test]
fn ipv4_header_carries_equal_partial() {
    let ones_then_one = {
        let mut h = [0u8; 20];
        h[..8].fill(0xFF);
        h[8] = 1;
        h
    };
    let ones_but_last = {
        let mut h = [0xFFu8; 20];
        h[19] = 0;
        h
    };
    for h in [[0u8; 20], [0xFF; 20], ones_then_one, ones_but_last] {
        assert_eq!(
            csum::ipv4_header(&h),
            csum::fold(csum::partial(&h, Wsum::ZERO)),
            "{h:02x?}"
        );
    }
}
