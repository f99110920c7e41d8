//! `wire::parse` on hand-made packets (every error it can return, padding,
//! fragments, jumbograms) and on the real captures in the shared corpus
//! (routing type 0, SRH, Home Address, BIG TCP jumbo, QinQ, PPTP GRE); the
//! corpus tests are ignored unless asked for (`-- --ignored`).

use crate::support::corpus;

use etherparse::PacketBuilder;
use netoffload::wire::{
    self, ErrorKind, Field, Layer, Layers, LinkType, Net, ParseError, Transport,
};

const MAC_A: [u8; 6] = [2, 0, 0, 0, 0, 1];
const MAC_B: [u8; 6] = [2, 0, 0, 0, 0, 2];
const V6_A: [u8; 16] = [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
const V6_B: [u8; 16] = [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];

fn eth() -> Vec<u8> {
    [MAC_B, MAC_A].concat()
}

/// Ethernet + IPv4 (20 bytes) + UDP, payload `n` bytes.
fn udp4(n: usize) -> Vec<u8> {
    let mut v = Vec::new();
    PacketBuilder::ethernet2(MAC_A, MAC_B)
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .udp(1, 2)
        .write(&mut v, &vec![0xAB; n])
        .unwrap();
    v
}

/// Ethernet + IPv4 + TCP (no options), payload `n` bytes.
fn tcp4(n: usize) -> Vec<u8> {
    let mut v = Vec::new();
    PacketBuilder::ethernet2(MAC_A, MAC_B)
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .tcp(1, 2, 3, 4)
        .write(&mut v, &vec![0xCD; n])
        .unwrap();
    v
}

/// Ethernet + IPv6 with the given next header and raw bytes after the fixed header.
fn v6(next: u8, rest: &[u8]) -> Vec<u8> {
    let mut v = eth();
    v.extend([0x86, 0xDD, 0x60, 0, 0, 0]);
    v.extend((rest.len() as u16).to_be_bytes());
    v.extend([next, 64]);
    v.extend(V6_A);
    v.extend(V6_B);
    v.extend(rest);
    v
}

fn err(bytes: &[u8]) -> ParseError {
    wire::parse(bytes, LinkType::Ethernet).expect_err("must be refused")
}

fn ok(bytes: &[u8]) -> Layers {
    wire::parse(bytes, LinkType::Ethernet).unwrap_or_else(|e| panic!("{e}"))
}

fn is(e: ParseError, layer: Layer, field: Field, offset: usize) -> ErrorKind {
    assert_eq!((e.layer, e.field, e.offset), (layer, field, offset), "{e}");
    e.kind
}

#[test]
fn link_errors() {
    let e = err(&[0u8; 13]);
    assert_eq!(e, ParseError::truncated(Layer::Ethernet, 0, 14, 13));
    // ARP.
    let mut b = eth();
    b.extend([0x08, 0x06, 0, 0]);
    assert_eq!(
        is(err(&b), Layer::Ethernet, Field::EtherType, 0),
        ErrorKind::Unsupported { value: 0x0806 }
    );
    // One tag cut short.
    let mut b = eth();
    b.extend([0x81, 0x00, 0x00]);
    assert!(matches!(
        is(err(&b), Layer::Vlan, Field::Header, 14),
        ErrorKind::Truncated {
            needed: 4,
            available: 1
        }
    ));
    // Three tags.
    let mut b = eth();
    b.extend([0x88, 0xA8, 0, 1, 0x81, 0, 0, 2, 0x81, 0, 0, 3, 0x08, 0]);
    assert_eq!(
        is(err(&b), Layer::Vlan, Field::Nesting, 22),
        ErrorKind::TooDeep { limit: 2 }
    );
    // Raw IP: empty, then a version-5 nibble.
    assert!(wire::parse(&[], LinkType::RawIp).is_err());
    let e = wire::parse(&[0x50; 40], LinkType::RawIp).unwrap_err();
    assert_eq!(
        (e.field, e.kind),
        (Field::Version, ErrorKind::Unsupported { value: 5 })
    );
}

#[test]
fn vlan_tags_are_reported_outermost_first() {
    let mut v = Vec::new();
    PacketBuilder::ethernet2(MAC_A, MAC_B)
        .double_vlan(
            etherparse::VlanId::try_new(100).unwrap(),
            etherparse::VlanId::try_new(200).unwrap(),
        )
        .ipv4([1, 1, 1, 1], [2, 2, 2, 2], 1)
        .udp(1, 2)
        .write(&mut v, &[])
        .unwrap();
    let l = ok(&v);
    assert_eq!((l.vlan_count, l.vlan_tci, l.l3), (2, [100, 200], 22));
    assert_eq!(&v[12..14], &[0x88, 0xA8]);
}

#[test]
fn ipv4_errors() {
    let base = udp4(4);
    let set = |at: usize, val: u8| {
        let mut b = base.clone();
        b[14 + at] = val;
        b
    };
    assert_eq!(
        is(err(&set(0, 0x65)), Layer::Ipv4, Field::Version, 14),
        ErrorKind::Unsupported { value: 6 }
    );
    assert_eq!(
        is(err(&set(0, 0x44)), Layer::Ipv4, Field::Ihl, 14),
        ErrorKind::LengthTooSmall { value: 16, min: 20 }
    );
    // Total length 19 < IHL 20.
    assert_eq!(
        is(err(&set(3, 19)), Layer::Ipv4, Field::TotalLength, 14),
        ErrorKind::LengthTooSmall { value: 19, min: 20 }
    );
    // Total length one past the buffer.
    assert_eq!(
        is(err(&set(3, 33)), Layer::Ipv4, Field::TotalLength, 14),
        ErrorKind::LengthBeyondBuffer {
            claimed: 33,
            available: 32
        }
    );
    // Header cut inside the fixed part.
    assert!(matches!(
        is(err(&base[..30]), Layer::Ipv4, Field::Header, 14),
        ErrorKind::Truncated {
            needed: 20,
            available: 16
        }
    ));
    // IHL 6 whose option claims 6 bytes in a 4-byte option area.
    let mut b = base.clone();
    b[14] = 0x46;
    b[14 + 3] = 36;
    b.splice(34..34, [0x07, 6, 4, 0]);
    assert_eq!(
        is(err(&b), Layer::Ipv4, Field::OptionLength, 34),
        ErrorKind::LengthBeyondBuffer {
            claimed: 6,
            available: 4
        }
    );
}

#[test]
fn ethernet_padding_is_not_part_of_the_datagram() {
    let mut b = tcp4(0);
    assert_eq!(b.len(), 54);
    b.resize(60, 0xEE);
    let l = ok(&b);
    assert_eq!((l.l3, l.l4, l.payload, l.end), (14, 34, 54, 54));
    assert_eq!(l.payload_len(), 0);
    assert_eq!(l.l4_len(), 20);
    // A TCP header whose options would spill into the padding is refused.
    b[34 + 12] = 0x60;
    assert_eq!(
        is(err(&b), Layer::Tcp, Field::DataOffset, 34),
        ErrorKind::LengthBeyondBuffer {
            claimed: 24,
            available: 20
        }
    );
}

#[test]
fn transport_errors() {
    let b = tcp4(0);
    let mut t = b.clone();
    t[34 + 12] = 0x40;
    assert_eq!(
        is(err(&t), Layer::Tcp, Field::DataOffset, 34),
        ErrorKind::LengthTooSmall { value: 16, min: 20 }
    );
    let u = udp4(4);
    let mut x = u.clone();
    x[34 + 5] = 7;
    assert_eq!(
        is(err(&x), Layer::Udp, Field::UdpLength, 34),
        ErrorKind::LengthTooSmall { value: 7, min: 8 }
    );
    x[34 + 5] = 13;
    assert_eq!(
        is(err(&x), Layer::Udp, Field::UdpLength, 34),
        ErrorKind::LengthBeyondBuffer {
            claimed: 13,
            available: 12
        }
    );
    // UDP length 0 is for IPv6 jumbograms only.
    x[34 + 5] = 0;
    assert_eq!(
        is(err(&x), Layer::Udp, Field::UdpLength, 34),
        ErrorKind::LengthTooSmall { value: 0, min: 8 }
    );
    let mut udp6 = [0u8; 12];
    udp6[..4].copy_from_slice(&[0, 1, 0, 2]);
    let l = ok(&v6(17, &udp6));
    assert_eq!((l.transport, l.payload, l.end), (Transport::Udp, 62, 66));

    // Protocol 132 / 1 / 47 with too few bytes for their headers.
    let short = |proto: u8, n: usize| {
        let mut b = udp4(16);
        b[14 + 9] = proto;
        b.truncate(34 + n);
        b[14 + 3] = 20 + n as u8;
        b
    };
    assert!(matches!(
        is(err(&short(132, 11)), Layer::Sctp, Field::Header, 34),
        ErrorKind::Truncated {
            needed: 12,
            available: 11
        }
    ));
    assert!(matches!(
        is(err(&short(1, 3)), Layer::Icmp, Field::Header, 34),
        ErrorKind::Truncated {
            needed: 4,
            available: 3
        }
    ));
    let mut g = short(47, 4);
    g[35] = 2; // GRE version 2
    assert_eq!(
        is(err(&g), Layer::Gre, Field::GreVersion, 34),
        ErrorKind::Unsupported { value: 2 }
    );
    g[35] = 1; // enhanced GRE without K
    assert_eq!(
        is(err(&g), Layer::Gre, Field::GreFlags, 34),
        ErrorKind::Unsupported { value: 1 }
    );
    g[34] = 0x20; // K bit, but the key is missing
    g[35] = 0;
    assert!(matches!(
        is(err(&g), Layer::Gre, Field::GreFlags, 34),
        ErrorKind::Truncated {
            needed: 8,
            available: 4
        }
    ));
}

#[test]
fn ipv4_fragments() {
    // Non-first fragment: the transport bytes are not a header (doff 0 here).
    let mut b = tcp4(8);
    b[14 + 6] = 0x00;
    b[14 + 7] = 0x10; // offset 16 units
    b[34 + 12] = 0;
    let l = ok(&b);
    assert!(l.fragment.is_fragment && !l.fragment.more);
    assert_eq!((l.fragment.offset, l.payload, l.l4), (128, 34, 34));
    // First fragment of a UDP datagram: the UDP length counts more than is here.
    let mut b = udp4(16);
    b[14 + 6] = 0x20; // MF
    b[34 + 4..34 + 6].copy_from_slice(&1000u16.to_be_bytes());
    let l = ok(&b);
    assert!(l.fragment.is_fragment && l.fragment.more);
    assert_eq!((l.fragment.offset, l.payload), (0, 42));
}

#[test]
fn ipv6_extension_errors() {
    // Payload length beyond the buffer.
    let mut b = v6(59, &[]);
    b[14 + 5] = 1;
    assert_eq!(
        is(err(&b), Layer::Ipv6, Field::PayloadLength, 14),
        ErrorKind::LengthBeyondBuffer {
            claimed: 1,
            available: 0
        }
    );
    // Destination options claiming 16 bytes in an 8-byte payload.
    let b = v6(60, &[59, 1, 1, 4, 0, 0, 0, 0]);
    assert_eq!(
        is(err(&b), Layer::Ipv6Ext, Field::ExtLength, 54),
        ErrorKind::LengthBeyondBuffer {
            claimed: 16,
            available: 8
        }
    );
    // Hop-by-hop after a destination options header.
    let b = v6(60, &[0, 0, 1, 4, 0, 0, 0, 0, 59, 0, 1, 4, 0, 0, 0, 0]);
    assert_eq!(
        is(err(&b), Layer::Ipv6Ext, Field::ExtHeader, 62),
        ErrorKind::Unsupported { value: 0 }
    );
    // Nine destination options headers.
    let mut chain = Vec::new();
    for i in 0..9 {
        chain.extend([if i == 8 { 59 } else { 60 }, 0, 1, 4, 0, 0, 0, 0]);
    }
    assert_eq!(
        is(
            err(&v6(60, &chain)),
            Layer::Ipv6Ext,
            Field::Nesting,
            54 + 64
        ),
        ErrorKind::TooDeep { limit: 8 }
    );
    // An option running past its header.
    let b = v6(60, &[59, 0, 1, 5, 0, 0, 0, 0]);
    assert!(matches!(
        is(err(&b), Layer::Ipv6Ext, Field::OptionLength, 56),
        ErrorKind::LengthBeyondBuffer { .. }
    ));
    // Payload length 0 with a Hop-by-Hop header but no jumbo option.
    let mut b = v6(0, &[17, 0, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b[14 + 5] = 0;
    assert!(matches!(
        is(err(&b), Layer::Ipv6, Field::PayloadLength, 14),
        ErrorKind::LengthTooSmall { value: 0, .. }
    ));
    // Payload length 0 and no Hop-by-Hop header: an empty datagram (RFC 2675,
    // Linux `ipv6_rcv` trims to it), so the UDP header after it is missing.
    let mut b = v6(17, &[0u8; 8]);
    b[14 + 5] = 0;
    assert!(matches!(
        is(err(&b), Layer::Udp, Field::Header, 54),
        ErrorKind::Truncated { .. }
    ));
    // ...and an empty packet of a protocol without a header to parse is fine.
    let l = ok(&v6(253, &[]));
    assert_eq!((l.l4, l.end, l.transport), (54, 54, Transport::Other(253)));
    let l = ok(&v6(59, &[]));
    assert_eq!((l.l4, l.end, l.transport), (54, 54, Transport::Other(59)));
}

/// IPv6 with a hop-by-hop Jumbo Payload option and UDP (length 0), `jumbo` bytes after the fixed header.
fn jumbogram(jumbo: u32, payload_len: u16, opt_len: u8, extra: usize) -> Vec<u8> {
    let mut rest = vec![17, 0, 0xC2, opt_len, 0, 0, 0, 0];
    rest[4..8].copy_from_slice(&jumbo.to_be_bytes());
    rest.extend([0, 1, 0, 2, 0, 0, 0, 0]); // UDP, length 0
    rest.resize(jumbo as usize + extra, 0x5A);
    let mut b = v6(0, &rest);
    b[18..20].copy_from_slice(&payload_len.to_be_bytes());
    b
}

#[test]
fn ipv6_jumbo_payload() {
    let b = jumbogram(70_000, 0, 4, 6);
    let l = ok(&b);
    assert_eq!((l.l4, l.payload, l.end), (62, 70, 54 + 70_000));
    assert_eq!(l.transport, Transport::Udp);
    let jerr = |b: &[u8]| is(err(b), Layer::Ipv6Ext, Field::JumboLength, 56);
    assert_eq!(
        jerr(&jumbogram(65_535, 0, 4, 0)),
        ErrorKind::LengthTooSmall {
            value: 65_535,
            min: 65_536
        }
    );
    let mut cut = jumbogram(70_000, 0, 4, 0);
    cut.pop();
    assert_eq!(
        jerr(&cut),
        ErrorKind::LengthBeyondBuffer {
            claimed: 70_000,
            available: 69_999
        }
    );
    // A jumbo option beside a non-zero payload length (RFC 2675 section 3).
    assert_eq!(
        jerr(&jumbogram(70_000, 16, 4, 0)),
        ErrorKind::Unsupported { value: 16 }
    );
    // Option length 2 instead of 4 (the next option slot holds the rest).
    let mut b = jumbogram(70_000, 0, 4, 0);
    b[57] = 2;
    b[60] = 1; // PadN over the last two bytes
    b[61] = 0;
    assert_eq!(jerr(&b), ErrorKind::Unsupported { value: 2 });
}

#[test]
fn ipv6_non_first_fragment_stops_the_walk() {
    // Fragment header (offset 8 units) naming destination options next; the
    // bytes after it are fragment data, not a header (length byte 0xFF).
    let b = v6(44, &[60, 0, 0, 64, 0, 0, 0, 1, 59, 0xFF, 1, 2, 3, 4, 5, 6]);
    let l = ok(&b);
    assert!(l.fragment.has_header && l.fragment.is_fragment);
    assert_eq!(
        (l.fragment.offset, l.l4, l.payload, l.ip_proto),
        (64, 62, 62, 60)
    );
    // Atomic fragment: a whole packet, transport parsed.
    let mut rest = vec![17, 0, 0, 0, 0, 0, 0, 1];
    rest.extend([0, 1, 0, 2, 0, 8, 0, 0]);
    let l = ok(&v6(44, &rest));
    assert!(l.fragment.has_header && !l.fragment.is_fragment);
    assert_eq!((l.transport, l.payload), (Transport::Udp, 70));
}

// ---- the shared capture corpus ----

/// Packets of a classic pcap file of the corpus (either byte order) and its
/// link type.
fn read_pcap(name: &str) -> (u32, Vec<Vec<u8>>) {
    let path = corpus::pcap_dir().join(name);
    let d = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let le = d[..4] == [0xD4, 0xC3, 0xB2, 0xA1];
    let u32_at = |o: usize| {
        let w: [u8; 4] = d[o..o + 4].try_into().unwrap();
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let link = u32_at(20);
    let mut out = Vec::new();
    let mut o = 24;
    while o + 16 <= d.len() {
        let cap = u32_at(o + 8) as usize;
        out.push(d[o + 16..o + 16 + cap].to_vec());
        o += 16 + cap;
    }
    (link, out)
}

/// RFC 1071 sum over `parts`, folded (an independent oracle for these tests).
fn inet_sum(parts: &[&[u8]]) -> u16 {
    let mut s: u64 = 0;
    for p in parts {
        for c in p.chunks(2) {
            s += u64::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
        }
    }
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    s as u16
}

/// Does the L4 checksum verify with these pseudo-header addresses?
fn l4_verifies(b: &[u8], l: &Layers, src: usize, dst: usize) -> bool {
    let seg = &b[l.l4..l.end];
    let len = (seg.len() as u32).to_be_bytes();
    let proto = [0, 0, 0, l.ip_proto];
    inet_sum(&[&b[src..src + 16], &b[dst..dst + 16], &len, &proto, seg]) == 0xFFFF
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn corpus_srh_pseudo_header_uses_segment_list_0() {
    let (_, pkts) = read_pcap("tcpdump__ipv6-srh-insert-cksum.pcap");
    let b = &pkts[0];
    let l = ok(b);
    assert_eq!((l.net, l.transport), (Net::Ipv6, Transport::Udp));
    let rh = l.l3 + 40;
    assert_eq!((b[rh + 2], b[rh + 3]), (4, 2), "SRH with segments left");
    assert_eq!(l.pseudo_dst, rh + 8, "Segment List[0]");
    assert!(l4_verifies(b, &l, l.pseudo_src, l.pseudo_dst));
    assert!(
        !l4_verifies(b, &l, l.pseudo_src, l.l3 + 24),
        "the IPv6 destination is not final"
    );
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn corpus_routing_type0_pseudo_header_uses_the_last_address() {
    // zeek's capture: the TCP checksum was computed over the IPv6 destination
    // field, which RFC 8200 8.1 says is wrong with segments left: it must not verify.
    let (_, pkts) = read_pcap("zeek__chksums__ip6-route0-tcp-bad-chksum.pcap");
    let b = &pkts[0];
    let l = ok(b);
    let rh = l.l3 + 40;
    let addrs = (b[rh + 1] as usize * 8) / 16;
    assert_eq!((b[rh + 2], addrs), (0, 2));
    assert_eq!(l.pseudo_dst, rh + 8 + 16 * (addrs - 1));
    assert_eq!(l.transport, Transport::Tcp);
    assert!(!l4_verifies(b, &l, l.pseudo_src, l.pseudo_dst));
    assert!(l4_verifies(b, &l, l.pseudo_src, l.l3 + 24));

    // The same layout with a correct checksum (hop-by-hop in front).
    let (_, pkts) = read_pcap("zeek__ipv6-hbh-routing0.pcap");
    let b = &pkts[0];
    let l = ok(b);
    let hbh = l.l3 + 40;
    let rh = hbh + (b[hbh + 1] as usize + 1) * 8;
    assert_eq!(
        l.pseudo_dst,
        rh + 8 + 16 * ((b[rh + 1] as usize * 8) / 16 - 1)
    );
    assert!(l4_verifies(b, &l, l.pseudo_src, l.pseudo_dst));
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn corpus_home_address_option_moves_the_pseudo_source() {
    let (_, pkts) = read_pcap("zeek__chksums__ip6-hoa-udp-bad-chksum.pcap");
    let b = &pkts[0];
    let l = ok(b);
    let dst_opts = l.l3 + 40;
    assert_eq!(b[l.l3 + 6], 60);
    // Find the option the slow way: walk TLVs by hand.
    let end = dst_opts + (b[dst_opts + 1] as usize + 1) * 8;
    let mut o = dst_opts + 2;
    let mut hoa = None;
    while o < end {
        match b[o] {
            0 => o += 1,
            0xC9 => {
                hoa = Some(o + 2);
                break;
            }
            _ => o += 2 + b[o + 1] as usize,
        }
    }
    assert_eq!(Some(l.pseudo_src), hoa);
    assert_eq!(l.pseudo_dst, l.l3 + 24);
    assert_eq!((l.transport, l.l4), (Transport::Udp, end));
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn corpus_big_tcp_jumbogram() {
    let (_, pkts) = read_pcap("tcpdump__bigtcp-ipv6-hbh.pcap");
    let b = &pkts[0];
    let l = ok(b);
    assert_eq!(u16::from_be_bytes([b[l.l3 + 4], b[l.l3 + 5]]), 0);
    let hbh = l.l3 + 40;
    let jumbo = u32::from_be_bytes(b[hbh + 4..hbh + 8].try_into().unwrap()) as usize;
    assert_eq!(b[hbh + 2], 0xC2);
    assert_eq!(l.end, l.l3 + 40 + jumbo);
    assert_eq!(l.end, b.len());
    assert_eq!((l.transport, l.l4), (Transport::Tcp, hbh + 8));
    assert!(l.payload_len() > 65_535);
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn corpus_qinq_and_pptp() {
    {
        let (_, pkts) = read_pcap("zeek__http-qinq-0.pcap");
        let l = ok(&pkts[0]);
        assert_eq!((l.vlan_count, l.l3), (2, 22));
    }
    {
        let (_, pkts) = read_pcap("tcpdump__pptp.pcap");
        let gre: Vec<Layers> = pkts
            .iter()
            .filter_map(|p| wire::parse(p, LinkType::Ethernet).ok())
            .filter(|l| l.transport == Transport::Gre)
            .collect();
        assert_eq!(gre.len(), 1, "one enhanced GRE packet");
        let b = &pkts
            .iter()
            .find(|p| {
                wire::parse(p, LinkType::Ethernet).is_ok_and(|l| l.transport == Transport::Gre)
            })
            .unwrap();
        let g = wire::GreHeader::new_checked(&b[gre[0].l4..]).unwrap();
        assert_eq!(g.version(), wire::GreVersion::Enhanced);
        assert_eq!(gre[0].payload, gre[0].l4 + g.header_len());
        assert_eq!(g.protocol(), 0x880B);
    }
}

/// Every Ethernet packet of every capture: no panic, invariants on Ok, and
/// nearly all of them parse.
#[test]
#[ignore = "needs ../shared/corpus"]
fn corpus_sweep() {
    let dir = corpus::pcap_dir();
    let (mut ok_count, mut total) = (0, 0);
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    names.sort();
    for name in names {
        let name = name.to_string_lossy().into_owned();
        let (link, pkts) = read_pcap(&name);
        if link != 1 {
            continue;
        }
        for p in &pkts {
            total += 1;
            if let Ok(l) = wire::parse(p, LinkType::Ethernet) {
                ok_count += 1;
                assert!(l.l2 <= l.l3 && l.l3 < l.l4 && l.l4 <= l.payload);
                assert!(l.payload <= l.end && l.end <= p.len(), "{name}: {l:?}");
            }
        }
    }
    eprintln!("corpus: {ok_count} of {total} Ethernet packets parsed");
    // STP/ARP/LLC frames and TSO frames with IPv4 total length 0 are refused.
    assert!(ok_count * 10 >= total * 8, "{ok_count} of {total}");
}
