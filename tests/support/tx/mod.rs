//! Test helpers for the tx tests: packet builders (etherparse) and a naive
//! checksum oracle written independently of `netoffload::csum`.
#![allow(dead_code)]

/// The shared naive arithmetic (tests/support/naive.rs).
pub use crate::support::oracle::naive;
pub mod ring_model;
pub mod tunnel;

use etherparse::{
    EtherType, Ethernet2Header, IpNumber, Ipv4Header, Ipv6Header, TcpHeader, UdpHeader,
};

pub const ETH_LEN: usize = 14;

/// Naive RFC 1071 sum: big-endian words into a u64, folded (not complemented).
pub fn naive_fold(words: &[u8], init: u64) -> u16 {
    naive::sum(words, init)
}

/// Pseudo-header word sum (unfolded), naive.
pub fn naive_pseudo(src: &[u8], dst: &[u8], proto: u8, len: usize) -> u64 {
    naive::pseudo(src, dst, proto, len)
}

/// `n` reproducible payload bytes from `seed` (xorshift64).
pub fn payload_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// What the naive oracle found.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Good,
    Bad,
}

/// Verifies the L4 checksum of an Ethernet frame (TCP, UDP, ICMPv6 with
/// pseudo-header; ICMP without; SCTP CRC32c via the `crc32c` crate) and the
/// IPv4 header checksum, from scratch. Bytes after the IP length are ignored.
pub fn verify_frame(frame: &[u8]) -> Verdict {
    let eth_type = u16::from_be_bytes([frame[12], frame[13]]);
    let l3 = ETH_LEN;
    let (src, dst, mut proto, mut l4, end) = match eth_type {
        0x0800 => {
            let ihl = usize::from(frame[l3] & 0x0f) * 4;
            if naive_fold(&frame[l3..l3 + ihl], 0) != 0xffff {
                return Verdict::Bad;
            }
            let total = usize::from(u16::from_be_bytes([frame[l3 + 2], frame[l3 + 3]]));
            (
                frame[l3 + 12..l3 + 16].to_vec(),
                frame[l3 + 16..l3 + 20].to_vec(),
                frame[l3 + 9],
                l3 + ihl,
                l3 + total,
            )
        }
        0x86dd => {
            let plen = usize::from(u16::from_be_bytes([frame[l3 + 4], frame[l3 + 5]]));
            (
                frame[l3 + 8..l3 + 24].to_vec(),
                frame[l3 + 24..l3 + 40].to_vec(),
                frame[l3 + 6],
                l3 + 40,
                l3 + 40 + plen,
            )
        }
        _ => panic!("not IP"),
    };
    // Skip simple IPv6 extension headers (hop-by-hop, dest opts, routing without segments left).
    while eth_type == 0x86dd && matches!(proto, 0 | 60 | 43) {
        proto = frame[l4];
        l4 += (usize::from(frame[l4 + 1]) + 1) * 8;
    }
    let seg = &frame[l4..end];
    let ok = match proto {
        6 | 17 | 58 => {
            if proto == 17 && eth_type == 0x0800 && seg[6] == 0 && seg[7] == 0 {
                true // IPv4 UDP without checksum
            } else {
                naive_fold(seg, naive_pseudo(&src, &dst, proto, seg.len())) == 0xffff
            }
        }
        1 => naive_fold(seg, 0) == 0xffff,
        132 => {
            let mut z = seg.to_vec();
            let stored = u32::from_le_bytes([z[8], z[9], z[10], z[11]]);
            z[8..12].fill(0);
            crc32c::crc32c(&z) == stored
        }
        _ => panic!("no checksum to verify"),
    };
    if ok { Verdict::Good } else { Verdict::Bad }
}

/// A device doing `CHECKSUM_PARTIAL`: sum from `start` to `end`, fold,
/// complement, store (0 as 0xFFFF), written naively.
pub fn device_fill(frame: &mut [u8], start: usize, offset: usize, end: usize) {
    let s = naive_fold(&frame[start..end], 0);
    let mut c = !s;
    if c == 0 {
        c = 0xffff;
    }
    frame[start + offset..start + offset + 2].copy_from_slice(&c.to_be_bytes());
}

/// `original` as [`device_fill`] leaves it: a zero checksum at `at` becomes 0xFFFF.
/// Software GSO (`gso_make_checksum`) writes +0 and `skb_checksum_help` -0
/// (`CSUM_MANGLED_0`); both verify, so a device-finished segment equals the
/// original with that one substitution.
pub fn as_device_writes(original: &[u8], at: usize) -> Vec<u8> {
    let mut v = original.to_vec();
    if v[at..at + 2] == [0, 0] {
        v[at..at + 2].copy_from_slice(&[0xff, 0xff]);
    }
    v
}

/// A device doing the SCTP CRC32c.
pub fn device_crc(frame: &mut [u8], start: usize, offset: usize, end: usize) {
    frame[start + offset..start + offset + 4].fill(0);
    let c = crc32c::crc32c(&frame[start..end]);
    frame[start + offset..start + offset + 4].copy_from_slice(&c.to_le_bytes());
}

/// Parameters of one TCP segment.
#[derive(Clone, Debug)]
pub struct Seg {
    pub v6: bool,
    pub id: u16,
    pub df: bool,
    pub seq: u32,
    pub ack: u32,
    pub psh: bool,
    pub fin: bool,
    pub cwr: bool,
    pub ts: bool,
    pub payload: Vec<u8>,
}

pub const SRC4: [u8; 4] = [192, 0, 2, 1];
pub const DST4: [u8; 4] = [198, 51, 100, 7];
pub const SRC6: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
pub const DST6: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];

fn eth(v6: bool) -> Vec<u8> {
    let e = Ethernet2Header {
        source: [2, 0, 0, 0, 0, 1],
        destination: [2, 0, 0, 0, 0, 2],
        ether_type: if v6 { EtherType::IPV6 } else { EtherType::IPV4 },
    };
    e.to_bytes().to_vec()
}

/// A TCP segment with correct checksums (etherparse computes them).
pub fn tcp_segment(s: &Seg) -> Vec<u8> {
    let mut tcp = TcpHeader::new(40000, 443, s.seq, 502);
    tcp.ack = true;
    tcp.acknowledgment_number = s.ack;
    tcp.psh = s.psh;
    tcp.fin = s.fin;
    tcp.cwr = s.cwr;
    if s.ts {
        tcp.set_options_raw(&[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2])
            .unwrap();
    }
    let mut out = eth(s.v6);
    let l4_len = tcp.header_len() + s.payload.len();
    if s.v6 {
        let ip = Ipv6Header {
            traffic_class: 0,
            flow_label: Default::default(),
            payload_length: l4_len as u16,
            next_header: IpNumber::TCP,
            hop_limit: 64,
            source: SRC6,
            destination: DST6,
        };
        tcp.checksum = tcp.calc_checksum_ipv6(&ip, &s.payload).unwrap();
        out.extend_from_slice(&ip.to_bytes());
    } else {
        let mut ip = Ipv4Header::new(l4_len as u16, 64, IpNumber::TCP, SRC4, DST4).unwrap();
        ip.identification = s.id;
        ip.dont_fragment = s.df;
        ip.header_checksum = ip.calc_header_checksum();
        tcp.checksum = tcp.calc_checksum_ipv4(&ip, &s.payload).unwrap();
        out.extend_from_slice(&ip.to_bytes());
    }
    out.extend_from_slice(&tcp.to_bytes());
    out.extend_from_slice(&s.payload);
    out
}

/// A UDP datagram with a correct checksum.
pub fn udp_packet(v6: bool, id: u16, payload: &[u8]) -> Vec<u8> {
    let mut out = eth(v6);
    if v6 {
        let ip = Ipv6Header {
            traffic_class: 0,
            flow_label: Default::default(),
            payload_length: (8 + payload.len()) as u16,
            next_header: IpNumber::UDP,
            hop_limit: 64,
            source: SRC6,
            destination: DST6,
        };
        let udp = UdpHeader::with_ipv6_checksum(5000, 6000, &ip, payload).unwrap();
        out.extend_from_slice(&ip.to_bytes());
        out.extend_from_slice(&udp.to_bytes());
    } else {
        let mut ip =
            Ipv4Header::new((8 + payload.len()) as u16, 64, IpNumber::UDP, SRC4, DST4).unwrap();
        ip.identification = id;
        ip.header_checksum = ip.calc_header_checksum();
        let udp = UdpHeader::with_ipv4_checksum(5000, 6000, &ip, payload).unwrap();
        out.extend_from_slice(&ip.to_bytes());
        out.extend_from_slice(&udp.to_bytes());
    }
    out.extend_from_slice(payload);
    out
}

/// Offsets of a plain Ethernet/IP/TCP-or-UDP frame built above (naive).
pub struct Off {
    pub l3: usize,
    pub l4: usize,
    pub payload: usize,
    pub end: usize,
}

pub fn offsets(frame: &[u8]) -> Off {
    let l3 = ETH_LEN;
    let v6 = frame[12] == 0x86;
    let (l4, end, proto) = if v6 {
        let plen = usize::from(u16::from_be_bytes([frame[l3 + 4], frame[l3 + 5]]));
        (l3 + 40, l3 + 40 + plen, frame[l3 + 6])
    } else {
        let ihl = usize::from(frame[l3] & 0xf) * 4;
        let total = usize::from(u16::from_be_bytes([frame[l3 + 2], frame[l3 + 3]]));
        (l3 + ihl, l3 + total, frame[l3 + 9])
    };
    let payload = match proto {
        6 => l4 + usize::from(frame[l4 + 12] >> 4) * 4,
        17 => l4 + 8,
        _ => l4,
    };
    Off {
        l3,
        l4,
        payload,
        end,
    }
}

/// The super-packet `tcp_gro_complete` leaves for these segments: the first
/// segment's headers, lengths for the whole, FIN/PSH of any segment ORed in,
/// IPv4 header checksum recomputed, the TCP field holding the pseudo-header
/// seed (`~tcp_v4_check(len, saddr, daddr, 0)`). Written independently of the
/// crate.
pub fn gro_super(segs: &[Vec<u8>]) -> Vec<u8> {
    let first = &segs[0];
    let o = offsets(first);
    let mut out = first[..o.payload].to_vec();
    let mut flags_or = 0u8;
    for s in segs {
        let so = offsets(s);
        out.extend_from_slice(&s[so.payload..so.end]);
        flags_or |= s[so.l4 + 13] & 0x09;
    }
    out[o.l4 + 13] |= flags_or;
    let l4_len = out.len() - o.l4;
    let v6 = out[12] == 0x86;
    if v6 {
        let plen = (out.len() - o.l3 - 40) as u16;
        out[o.l3 + 4..o.l3 + 6].copy_from_slice(&plen.to_be_bytes());
    } else {
        let total = (out.len() - o.l3) as u16;
        out[o.l3 + 2..o.l3 + 4].copy_from_slice(&total.to_be_bytes());
        out[o.l3 + 10..o.l3 + 12].fill(0);
        let c = !naive_fold(&out[o.l3..o.l4], 0);
        out[o.l3 + 10..o.l3 + 12].copy_from_slice(&c.to_be_bytes());
    }
    let (src, dst) = if v6 {
        (
            out[o.l3 + 8..o.l3 + 24].to_vec(),
            out[o.l3 + 24..o.l3 + 40].to_vec(),
        )
    } else {
        (
            out[o.l3 + 12..o.l3 + 16].to_vec(),
            out[o.l3 + 16..o.l3 + 20].to_vec(),
        )
    };
    // Seed: the folded pseudo-header sum, not complemented.
    let seed = naive_fold(&[], naive_pseudo(&src, &dst, 6, l4_len));
    out[o.l4 + 16..o.l4 + 18].copy_from_slice(&seed.to_be_bytes());
    out
}
