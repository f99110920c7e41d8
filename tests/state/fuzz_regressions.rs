//! Regression tests for bugs the fuzz targets (fuzz/) found: each feeds the
//! minimized input's situation through the library API and checks it with the
//! independent oracle (tests/support/oracle.rs).

use crate::support;

use netoffload::state::{
    self, Addr, CsumFlags, CsumMeta, CsumState, CsumVerdict, Packet, PacketMut, PartialKind,
    Reason, Rewrite,
};
use netoffload::wire::LinkType;
use support::oracle::{self, Link, View};
use support::packets::{self, L4};

/// Writes the pseudo-header seed of a TCP/IPv4 packet into its checksum field
/// (a locally generated packet whose checksum is still blank).
fn blank_tcp4(payload: &[u8]) -> (Vec<u8>, packets::Built) {
    let (mut b, at) = packets::build(&packets::simple(false, L4::Tcp { opt_words: 0 }, payload));
    let mut ph = Vec::new();
    ph.extend_from_slice(&b[at.l3 + 12..at.l3 + 20]);
    ph.extend_from_slice(&[0, 6]);
    ph.extend_from_slice(&((at.end - at.l4) as u16).to_be_bytes());
    let seed = oracle::naive_sum(&ph);
    b[at.l4 + 16..at.l4 + 18].copy_from_slice(&seed.to_be_bytes());
    (b, at)
}

/// state_ops: a Xen-style `Partial` + `CSUM_BLANK` + `DATA_VALID` packet
/// validated on receive got `CSUM_VALID` ("this layer's checksum verifies")
/// although its checksum field is still the blank seed.
#[test]
fn data_valid_partial_is_not_csum_valid() {
    let (b, at) = blank_tcp4(b"guest data");
    let m = CsumMeta::new(
        CsumState::Partial {
            start: at.l4,
            offset: 16,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID,
    )
    .unwrap();
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let out = state::validate(m, &pkt).unwrap();
    assert_eq!(out.verdict, CsumVerdict::Good, "{:?}", out.reason);
    let view = View {
        bytes: &b,
        link: Link::Ethernet,
        cur: at.l3,
        levels_from: at.l4 + 1,
        l4: at.l4,
    };
    assert_eq!(oracle::check(&view, &out.meta), Ok(()), "{:?}", out.meta);
}

/// IPv4 / GRE with the C bit (checksum over the GRE header and payload only,
/// no pseudo-header) carrying IPv4 / TCP; every checksum correct.
fn gre_csum_frame() -> Vec<u8> {
    let mut inner = Vec::new();
    etherparse::PacketBuilder::ipv4([192, 168, 0, 1], [192, 168, 0, 2], 64)
        .tcp(1, 2, 3, 4)
        .write(&mut inner, b"inner payload")
        .unwrap();
    let mut gre = vec![0x80, 0, 0x08, 0x00, 0, 0, 0, 0];
    gre.extend_from_slice(&inner);
    let c = !oracle::naive_sum(&gre);
    gre[4..6].copy_from_slice(&c.to_be_bytes());
    let ip = etherparse::Ipv4Header::new(
        0,
        64,
        etherparse::IpNumber::GRE,
        [10, 0, 0, 1],
        [10, 0, 0, 2],
    )
    .unwrap();
    let mut v = Vec::new();
    etherparse::PacketBuilder::ethernet2([2; 6], [4; 6])
        .ip(etherparse::IpHeaders::Ipv4(ip, Default::default()))
        .write(&mut v, etherparse::IpNumber::GRE, &gre)
        .unwrap();
    assert!(oracle::all_correct(&v, Link::Ethernet));
    v
}

/// state_ops: NAT of an outer IPv4 address "updated" the GRE checksum as if
/// the address were in a pseudo-header; GRE has none, so a correct GRE
/// checksum became wrong (and a validated layer kept `CSUM_VALID`).
#[test]
fn nat_address_leaves_gre_checksum_alone() {
    for rw in [
        Rewrite::Src(Addr::V4([0, 0, 0, 7])),
        Rewrite::Dst(Addr::V4([9, 9, 9, 9])),
    ] {
        let mut b = gre_csum_frame();
        let mut pm = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
        let out = state::nat(CsumMeta::NONE, &mut pm, rw).unwrap();
        assert_eq!(out.reason, Reason::NatRewritten);
        assert!(
            oracle::all_correct(&b, Link::Ethernet),
            "{rw:?}: {:?}",
            oracle::sites(&b, Link::Ethernet)
        );
    }
}

/// state_ops: with the current layer inside the IPv6 header (20 of its 40
/// bytes pulled), a NAT of the source address (bytes 8..24, straddling `cur`)
/// left the `Complete` sum unchanged: the covered tail of the address was
/// rewritten without being taken out of and put into the sum.
#[test]
fn nat_straddling_cur_keeps_complete_exact() {
    let (mut b, at) = packets::build(&packets::simple(true, L4::Udp, b"straddle"));
    let m = CsumMeta::from_state(CsumState::Complete {
        csum: oracle::honest_complete(&b, at.l3),
    });
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let layers = *pkt.layers();
    let pulled = state::pull(m, &pkt, 20).unwrap();
    let cur = at.l3 + 20;
    let mut pm = PacketMut::new(&mut b, layers, cur).unwrap();
    let out = state::nat(pulled.meta, &mut pm, Rewrite::Src(Addr::V6([0x14; 16]))).unwrap();
    let view = View {
        bytes: &b,
        link: Link::Ethernet,
        cur,
        levels_from: 0,
        l4: at.l4,
    };
    assert_eq!(oracle::check(&view, &out.meta), Ok(()));
}

/// virtio_hdr: a guest frame with bytes after the IP datagram (Ethernet
/// padding) and NEEDS_CSUM: the transmit fill must sum the segment only, up to
/// the IP length, or the checksum it writes is wrong.
#[test]
fn fill_stops_at_the_ip_end_of_a_padded_frame() {
    let (mut b, at) = blank_tcp4(b"x");
    b.extend_from_slice(&[0xAB; 9]);
    let m = CsumMeta::new(
        CsumState::Partial {
            start: at.l4,
            offset: 16,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK,
    )
    .unwrap();
    let mut pkt = PacketMut::parse(&mut b, LinkType::Ethernet).unwrap();
    let out = state::fill_partial(m, &mut pkt).unwrap();
    assert_eq!(out.sw_bytes, at.end - at.l4, "summed past the IP end");
    let sites = oracle::sites(&b[..at.end], Link::Ethernet);
    assert!(!sites.is_empty(), "the TCP checksum is found");
    assert!(
        sites.iter().all(|s| s.correct),
        "the filled checksum verifies: {sites:?}"
    );
}

/// decap (harness): a GRE header with the C bit cut off after 4..7 bytes made
/// the oracle place a checksum site whose field lies past the datagram, and
/// the fuzz target's checksum fixer wrote out of bounds. A header too short
/// for its checksum has no site; the library refuses such a tunnel with a
/// typed error.
#[test]
fn truncated_gre_checksum_header_has_no_site() {
    let full = gre_csum_frame();
    let l3 = 14;
    for gre_len in 4..8 {
        let mut b = full[..l3 + 20 + gre_len].to_vec();
        b[l3 + 2..l3 + 4].copy_from_slice(&((20 + gre_len) as u16).to_be_bytes());
        b[l3 + 10..l3 + 12].fill(0);
        let c = !oracle::naive_sum(&b[l3..l3 + 20]);
        b[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
        for s in oracle::sites(&b, Link::Ethernet) {
            assert!(
                s.field + 2 <= b.len(),
                "{gre_len}: site past the end: {s:?}"
            );
        }
        if let Ok(outer) = netoffload::wire::parse(&b, LinkType::Ethernet) {
            let cfg = netoffload::encap::EncapConfig::DEFAULT;
            assert!(
                netoffload::encap::parse_tunnel(&b, &outer, &cfg).is_err(),
                "{gre_len}: a GRE header without room for its checksum was accepted"
            );
        }
    }
}

/// decap: GENEVE over IPv6 whose outer pseudo-header sums to exactly
/// `0xFFFF_FFFF` (-0) as 32-bit words. Converting after the vouched outer UDP
/// checksum gave `Complete(~pseudo)` = `+0` over bytes that are not all zero,
/// and the two's-complement removal of the tunnel header
/// (`skb_postpull_rcsum`) then came out one too high: the inner `Complete` did
/// not match its bytes and, as our own sum (`COMPLETE_SW`), failed the inner
/// TCP checksum of a good packet. The outer headers are the fuzz input's; the
/// inner packet is made a whole TCP segment of the same length.
#[test]
fn converted_sum_of_minus_zero_pseudo_header_stays_exact() {
    use support::encap::{inner_validate, naive_sum, sound};
    let mut b: Vec<u8> = [
        "0404040404040202020202028100006486dd",
        "600000000038114021000000b3f5f5ac010101010101010102020202020202022302020202020202",
        "138817c10038ddb8",
        "0000080000000700",
        "4500002800004001010101010101010101010101",
        "010102020202020202022302020000042e870000",
    ]
    .concat()
    .as_bytes()
    .chunks(2)
    .map(|h| u8::from_str_radix(core::str::from_utf8(h).unwrap(), 16).unwrap())
    .collect();
    let (l4, ip, tcp, end) = (58, 74, 94, 114);
    assert_eq!(b.len(), end);
    b[ip + 6..ip + 8].copy_from_slice(&[0x40, 0]); // DF, not a fragment
    b[ip + 9] = 6; // TCP
    b[tcp + 12] = 0x50; // data offset 5, no options
    b[tcp + 13] = 0x10; // ACK
    let fix = |b: &mut Vec<u8>, at: usize, data: std::ops::Range<usize>, init: u32| {
        b[at..at + 2].fill(0);
        let c = !naive_sum(&b[data], init);
        b[at..at + 2].copy_from_slice(&c.to_be_bytes());
    };
    fix(&mut b, ip + 10, ip..tcp, 0);
    let inner_pseudo = naive_sum(&b[ip + 12..ip + 20], 0) as u32 + 6 + (end - tcp) as u32;
    fix(&mut b, tcp + 16, tcp..end, inner_pseudo);
    let outer_pseudo = naive_sum(&b[26..58], 0) as u32 + 17 + (end - l4) as u32;
    assert_eq!(
        naive_sum(&[], outer_pseudo),
        0xFFFF,
        "the pseudo-header sums to -0"
    );
    fix(&mut b, l4 + 6, l4..end, outer_pseudo);
    assert_ne!(b[l4 + 6..l4 + 8], [0, 0]);

    let outer = netoffload::wire::parse(&b, LinkType::Ethernet).unwrap();
    let meta = CsumMeta::from_state(CsumState::Unnecessary {
        level: state::CsumLevel::L0,
    });
    let cfg = netoffload::encap::EncapConfig::DEFAULT;
    let n = netoffload::encap::decap_nested(&b, &outer, outer.l3, meta, &cfg).unwrap();
    assert!(
        matches!(n.meta.state(), CsumState::Complete { .. }),
        "{:?}",
        n.meta
    );
    assert_eq!(sound(&b, &n.inner, n.inner.l3, &n.meta, false), Ok(()));
    let (good, sw) = inner_validate(&b, &n.inner, &n.meta);
    assert!(good, "a good inner TCP checksum failed: {:?}", n.meta);
    assert_eq!(sw, tcp - ip, "only the inner IP header is summed");
}
