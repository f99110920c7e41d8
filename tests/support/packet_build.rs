//! Real packets built with etherparse (headers and their checksums). No
//! proptest here, so the fuzz crate can include it too; the strategies are in
//! `packets.rs`, which re-exports everything of this file.
//!
//! Nothing here uses the crate's checksum code: TCP/UDP/ICMP checksums come
//! from etherparse, SCTP CRC32c from the `crc32c` crate.

use etherparse::{
    EtherType, Ethernet2Header, IcmpEchoHeader, Icmpv4Header, Icmpv4Type, Icmpv6Header, Icmpv6Type,
    IpHeaders, IpNumber, Ipv4Extensions, Ipv4Header, Ipv4Options, Ipv6Extensions, Ipv6FlowLabel,
    Ipv6Header, Ipv6RawExtHeader, SingleVlanHeader, TcpHeader, UdpHeader, VlanId, VlanPcp,
};

/// The transport protocol of a built packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L4 {
    /// TCP with `opt_words` 4-byte option words (NOP padding).
    Tcp { opt_words: u8 },
    /// UDP with a computed checksum.
    Udp,
    /// UDP with checksum 0 ("no checksum").
    UdpZero,
    /// SCTP common header + payload as chunk bytes, CRC32c.
    Sctp,
    /// ICMP echo request (ICMPv6 over IPv6).
    Icmp,
}

/// Everything that varies in a built packet.
#[derive(Clone, Debug)]
pub struct Spec {
    /// IPv6 instead of IPv4.
    pub v6: bool,
    /// A bare IP packet (no Ethernet).
    pub raw_ip: bool,
    /// VLAN tags (0..=2), Ethernet only.
    pub vlans: u8,
    /// The transport.
    pub l4: L4,
    /// Transport payload.
    pub payload: Vec<u8>,
    /// IPv4 option words (0..=10), each a NOP x4 or a random-content option.
    pub v4_opt_words: u8,
    /// IPv6 destination-options headers worth of 8-byte blocks (0..=3).
    pub v6_ext_blocks: u8,
    /// Trailing bytes after the IP datagram (Ethernet padding or garbage).
    pub pad: Vec<u8>,
    /// Addresses seed.
    pub addr_seed: u8,
    /// TTL / hop limit.
    pub ttl: u8,
}

/// Where the parts of a built packet are.
#[derive(Clone, Copy, Debug)]
pub struct Built {
    /// Offset of the IP header.
    pub l3: usize,
    /// Offset of the L4 header.
    pub l4: usize,
    /// End of the IP datagram.
    pub end: usize,
}

fn v4_addrs(seed: u8) -> ([u8; 4], [u8; 4]) {
    ([10, seed, 1, 2], [192, 168, seed.wrapping_mul(7), 9])
}

fn v6_addrs(seed: u8) -> ([u8; 16], [u8; 16]) {
    let mut s = [0u8; 16];
    let mut d = [0u8; 16];
    for i in 0..16 {
        s[i] = seed.wrapping_add((i as u8).wrapping_mul(13));
        d[i] = seed
            .wrapping_mul(3)
            .wrapping_add((i as u8).wrapping_mul(29))
            ^ 0x5A;
    }
    s[0] = 0x20;
    d[0] = 0xfd;
    (s, d)
}

/// Builds the L4 bytes (header + payload) with a correct checksum.
fn transport(spec: &Spec, ip: &IpHeaders) -> Vec<u8> {
    let p = &spec.payload;
    let mut out = Vec::new();
    match spec.l4 {
        L4::Tcp { opt_words } => {
            let mut h = TcpHeader::new(40000 + spec.addr_seed as u16, 443, 0x0102_0304, 6000);
            h.ack = true;
            h.acknowledgment_number = 77;
            let opts = vec![1u8; opt_words as usize * 4];
            h.set_options_raw(&opts).unwrap();
            h.checksum = match ip {
                IpHeaders::Ipv4(v4, _) => h.calc_checksum_ipv4(v4, p).unwrap(),
                IpHeaders::Ipv6(v6, _) => h.calc_checksum_ipv6(v6, p).unwrap(),
            };
            out.extend_from_slice(&h.to_bytes());
        }
        L4::Udp | L4::UdpZero => {
            let sp = 5000 + spec.addr_seed as u16;
            let mut h = match ip {
                IpHeaders::Ipv4(v4, _) => UdpHeader::with_ipv4_checksum(sp, 53, v4, p).unwrap(),
                IpHeaders::Ipv6(v6, _) => UdpHeader::with_ipv6_checksum(sp, 53, v6, p).unwrap(),
            };
            if spec.l4 == L4::UdpZero {
                h.checksum = 0;
            }
            out.extend_from_slice(&h.to_bytes());
        }
        L4::Sctp => {
            out.extend_from_slice(&[0x13, 0x88, 0x00, 0x50, 1, 2, 3, 4, 0, 0, 0, 0]);
            out.extend_from_slice(p);
            let crc = crc32c::crc32c(&out);
            out[8..12].copy_from_slice(&crc.to_le_bytes());
            return out;
        }
        L4::Icmp => {
            let echo = IcmpEchoHeader { id: 0x1234, seq: 7 };
            match ip {
                IpHeaders::Ipv4(..) => {
                    let h = Icmpv4Header::with_checksum(Icmpv4Type::EchoRequest(echo), p);
                    out.extend_from_slice(&h.to_bytes());
                }
                IpHeaders::Ipv6(v6, _) => {
                    let h = Icmpv6Header::with_checksum(
                        Icmpv6Type::EchoRequest(echo),
                        v6.source,
                        v6.destination,
                        p,
                    )
                    .unwrap();
                    out.extend_from_slice(&h.to_bytes());
                }
            }
        }
    }
    out.extend_from_slice(p);
    out
}

fn l4_header_len(spec: &Spec) -> usize {
    match spec.l4 {
        L4::Tcp { opt_words } => 20 + opt_words as usize * 4,
        L4::Udp | L4::UdpZero | L4::Icmp => 8,
        L4::Sctp => 12,
    }
}

fn proto(spec: &Spec) -> IpNumber {
    match spec.l4 {
        L4::Tcp { .. } => IpNumber::TCP,
        L4::Udp | L4::UdpZero => IpNumber::UDP,
        L4::Sctp => IpNumber(132),
        L4::Icmp if spec.v6 => IpNumber::IPV6_ICMP,
        L4::Icmp => IpNumber::ICMP,
    }
}

/// Builds the frame for `spec`; returns the bytes and where its parts are.
pub fn build(spec: &Spec) -> (Vec<u8>, Built) {
    let l4_len = l4_header_len(spec) + spec.payload.len();
    let mut ip = if spec.v6 {
        let (s, d) = v6_addrs(spec.addr_seed);
        let h = Ipv6Header {
            traffic_class: 0,
            flow_label: Ipv6FlowLabel::try_new(0x12345).unwrap(),
            payload_length: 0,
            next_header: proto(spec),
            hop_limit: spec.ttl,
            source: s,
            destination: d,
        };
        let mut ext = Ipv6Extensions::default();
        if spec.v6_ext_blocks > 0 {
            // PadN option filling the header: type 1, length n-2.
            let n = spec.v6_ext_blocks as usize * 8 - 2;
            let mut opt = vec![0u8; n];
            opt[0] = 1;
            opt[1] = (n - 2) as u8;
            ext.destination_options = Some(Ipv6RawExtHeader::new_raw(proto(spec), &opt).unwrap());
        }
        IpHeaders::Ipv6(h, ext)
    } else {
        let (s, d) = v4_addrs(spec.addr_seed);
        let mut h = Ipv4Header::new(0, spec.ttl, proto(spec), s, d).unwrap();
        h.identification = 0x4242;
        if spec.v4_opt_words > 0 {
            let mut o = vec![1u8; spec.v4_opt_words as usize * 4]; // NOPs
            let last = o.len() - 1;
            o[last] = 0; // end of options list
            h.options = Ipv4Options::try_from(&o[..]).unwrap();
        }
        IpHeaders::Ipv4(h, Ipv4Extensions::default())
    };
    ip.set_next_headers(proto(spec));
    ip.set_payload_len(l4_len).unwrap();
    if let IpHeaders::Ipv4(h, _) = &mut ip {
        h.header_checksum = h.calc_header_checksum();
    }
    let mut out = Vec::new();
    let ether = if spec.v6 {
        EtherType::IPV6
    } else {
        EtherType::IPV4
    };
    if !spec.raw_ip {
        let first = match spec.vlans {
            0 => ether,
            1 => EtherType::VLAN_TAGGED_FRAME,
            _ => EtherType::PROVIDER_BRIDGING,
        };
        let eth = Ethernet2Header {
            source: [2, 0, 0, 0, 0, 1],
            destination: [2, 0, 0, 0, 0, 2],
            ether_type: first,
        };
        out.extend_from_slice(&eth.to_bytes());
        for i in 0..spec.vlans.min(2) {
            let next = if i + 1 < spec.vlans.min(2) {
                EtherType::VLAN_TAGGED_FRAME
            } else {
                ether
            };
            let tag = SingleVlanHeader {
                pcp: VlanPcp::try_new(0).unwrap(),
                drop_eligible_indicator: false,
                vlan_id: VlanId::try_new(100 + i as u16).unwrap(),
                ether_type: next,
            };
            out.extend_from_slice(&tag.to_bytes());
        }
    }
    let l3 = out.len();
    ip.write(&mut out).unwrap();
    let l4 = out.len();
    out.extend_from_slice(&transport(spec, &ip));
    let end = out.len();
    if !spec.raw_ip {
        out.extend_from_slice(&spec.pad);
    }
    (out, Built { l3, l4, end })
}

/// A plain packet spec with the given transport and payload.
pub fn simple(v6: bool, l4: L4, payload: &[u8]) -> Spec {
    Spec {
        v6,
        raw_ip: false,
        vlans: 0,
        l4,
        payload: payload.to_vec(),
        v4_opt_words: 0,
        v6_ext_blocks: 0,
        pad: Vec::new(),
        addr_seed: 3,
        ttl: 64,
    }
}
