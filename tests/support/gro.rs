//! Test support for the GRO tests: packet builders (etherparse headers), an
//! independent checksum oracle (naive RFC 1071 sums, big-endian words), a
//! GSO-like re-segmenter, and a harness that records what leaves the engine.
//!
//! Included by the gro_* test files with `#[path]`; nothing here uses the
//! crate's own checksum code, so the oracle can catch its mistakes.
#![allow(dead_code)]

use std::collections::HashMap;

use etherparse::{IpNumber, Ipv4Header, Ipv6FlowLabel, Ipv6Header, TcpHeader, UdpHeader};
use netoffload::gro::{Disposition, FlushReason, Gro, GroConfig, SuperPacket};
use netoffload::state::{CsumMeta, CsumState};
use netoffload::wire::GsoType;

// ---------------------------------------------------------------- oracle

/// Naive ones-complement sum of big-endian 16-bit words (odd byte padded).
pub fn ones_sum(data: &[u8]) -> u64 {
    let mut s: u64 = 0;
    let mut i = 0;
    while i + 1 < data.len() {
        s += u16::from_be_bytes([data[i], data[i + 1]]) as u64;
        i += 2;
    }
    if i < data.len() {
        s += (data[i] as u64) << 8;
    }
    s
}

/// Folds to 16 bits (no complement).
pub fn fold16(mut s: u64) -> u16 {
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    s as u16
}

pub fn pseudo_sum(src: &[u8], dst: &[u8], proto: u8, len: usize) -> u64 {
    ones_sum(src) + ones_sum(dst) + proto as u64 + len as u64
}

/// Where the layers of a frame are, found by a naive walk.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// (offset, is_v6, end of header incl. ext)
    pub ips: Vec<(usize, bool, usize)>,
    pub outer_udp: Option<usize>,
    pub gre: Option<(usize, u16)>,
    pub l4: usize,
    pub udp: bool,
    pub payload: usize,
    pub end: usize,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Walks Ethernet [+VLAN] / IP / [tunnel / [Eth] / IP] / TCP|UDP.
pub fn walk(f: &[u8]) -> Walk {
    let mut w = Walk::default();
    let mut et = be16(f, 12);
    let mut at = 14;
    while et == 0x8100 || et == 0x88A8 {
        et = be16(f, at + 2);
        at += 4;
    }
    loop {
        let (proto, next, end) = if et == 0x0800 {
            let ihl = (f[at] & 0xF) as usize * 4;
            (f[at + 9], at + ihl, at + be16(f, at + 2) as usize)
        } else {
            let mut nh = f[at + 6];
            let mut p = at + 40;
            while nh == 0 || nh == 60 || nh == 43 || nh == 44 {
                let len = if nh == 44 {
                    8
                } else {
                    (f[p + 1] as usize + 1) * 8
                };
                nh = f[p];
                p += len;
            }
            (nh, p, at + 40 + be16(f, at + 4) as usize)
        };
        w.ips.push((at, et == 0x86DD, next));
        w.end = end;
        match proto {
            6 => {
                w.l4 = next;
                w.payload = next + (f[next + 12] >> 4) as usize * 4;
                return w;
            }
            17 => {
                let dport = be16(f, next + 2);
                if dport == 4789 && w.ips.len() == 1 {
                    w.outer_udp = Some(next);
                    at = next + 16 + 14;
                    et = be16(f, next + 16 + 12);
                } else if dport == 6081 && w.ips.len() == 1 {
                    w.outer_udp = Some(next);
                    let optlen = (f[next + 8] & 0x3F) as usize * 4;
                    let pt = be16(f, next + 10);
                    at = next + 16 + optlen;
                    if pt == 0x6558 {
                        et = be16(f, at + 12);
                        at += 14;
                    } else {
                        et = pt;
                    }
                } else {
                    w.l4 = next;
                    w.udp = true;
                    w.payload = next + 8;
                    return w;
                }
            }
            47 => {
                let flags = be16(f, next);
                let pt = be16(f, next + 2);
                let mut h = 4;
                if flags & 0x8000 != 0 {
                    h += 4;
                }
                if flags & 0x2000 != 0 {
                    h += 4;
                }
                w.gre = Some((next, flags));
                at = next + h;
                if pt == 0x6558 {
                    et = be16(f, at + 12);
                    at += 14;
                } else {
                    et = pt;
                }
            }
            4 => {
                at = next;
                et = 0x0800;
            }
            41 => {
                at = next;
                et = 0x86DD;
            }
            p => panic!("walk: protocol {p}"),
        }
    }
}

fn pseudo_of(f: &[u8], ip: (usize, bool, usize), proto: u8, len: usize) -> u64 {
    let (o, v6, _) = ip;
    if v6 {
        pseudo_sum(&f[o + 8..o + 24], &f[o + 24..o + 40], proto, len)
    } else {
        pseudo_sum(&f[o + 12..o + 16], &f[o + 16..o + 20], proto, len)
    }
}

/// Recomputes every checksum of the frame from scratch; Err names the bad one.
pub fn verify(f: &[u8]) -> Result<(), String> {
    let w = walk(f);
    for &(o, v6, next) in &w.ips {
        if !v6 && fold16(ones_sum(&f[o..next])) != 0xFFFF {
            return Err(format!("IPv4 header checksum at {o}"));
        }
    }
    if let Some(u) = w.outer_udp
        && be16(f, u + 6) != 0
        && fold16(pseudo_of(f, w.ips[0], 17, w.end - u) + ones_sum(&f[u..w.end])) != 0xFFFF
    {
        return Err("outer UDP checksum".into());
    }
    if let Some((g, flags)) = w.gre
        && flags & 0x8000 != 0
        && fold16(ones_sum(&f[g..w.end])) != 0xFFFF
    {
        return Err("GRE checksum".into());
    }
    let inner = *w.ips.last().unwrap();
    let proto = if w.udp { 17 } else { 6 };
    let s = pseudo_of(f, inner, proto, w.end - w.l4) + ones_sum(&f[w.l4..w.end]);
    if fold16(s) != 0xFFFF {
        return Err(format!("L4 checksum at {}", w.l4));
    }
    Ok(())
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Fills every checksum from scratch (used after GSO-style edits and to
/// finish a `Partial` super-packet the way a device would).
pub fn fill_all(f: &mut [u8], outer_udp_csum: bool, finish_partial_only: bool) {
    fill(f, outer_udp_csum, finish_partial_only, false)
}

/// `fill_all`, optionally leaving the innermost L4 checksum as it is.
pub fn fill(f: &mut [u8], outer_udp_csum: bool, finish_partial_only: bool, keep_l4: bool) {
    let w = walk(f);
    let inner = *w.ips.last().unwrap();
    let proto = if w.udp { 17 } else { 6 };
    let field = w.l4 + if w.udp { 6 } else { 16 };
    // IP headers first: the outer UDP / GRE checksums cover the inner one.
    for &(o, v6, next) in &w.ips {
        if !v6 {
            put16(f, o + 10, 0);
            let c = !fold16(ones_sum(&f[o..next]));
            put16(f, o + 10, c);
        }
    }
    if keep_l4 {
        // The caller built (or deliberately broke) the L4 checksum.
    } else if finish_partial_only {
        // The field holds the pseudo seed: sum from l4 to end, complement, store.
        let c = !fold16(ones_sum(&f[w.l4..w.end]));
        let c = if w.udp && c == 0 { 0xFFFF } else { c };
        put16(f, field, c);
    } else {
        put16(f, field, 0);
        let c = !fold16(pseudo_of(f, inner, proto, w.end - w.l4) + ones_sum(&f[w.l4..w.end]));
        let c = if w.udp && c == 0 { 0xFFFF } else { c };
        put16(f, field, c);
    }
    if let Some((g, flags)) = w.gre
        && flags & 0x8000 != 0
    {
        put16(f, g + 4, 0);
        let c = !fold16(ones_sum(&f[g..w.end]));
        put16(f, g + 4, c);
    }
    if let Some(u) = w.outer_udp {
        put16(f, u + 6, 0);
        if outer_udp_csum {
            let c = !fold16(pseudo_of(f, w.ips[0], 17, w.end - u) + ones_sum(&f[u..w.end]));
            put16(f, u + 6, if c == 0 { 0xFFFF } else { c });
        }
    }
}

/// Splits a finished super-packet back into segments as GSO would
/// (`tcp_gso_segment` / `__udp_gso_segment` / tunnel segmentation): lengths,
/// IDs (incrementing unless fixed), sequence numbers, PSH/FIN only on the last,
/// every checksum recomputed.
pub fn resegment(s: &[u8], mss: usize, gso: GsoType) -> Vec<Vec<u8>> {
    let w = walk(s);
    let hl = w.payload;
    let payload = &s[hl..w.end];
    let outer_csum = w.outer_udp.map(|u| be16(s, u + 6) != 0).unwrap_or(false)
        && gso.contains(GsoType::UDP_TUNNEL_CSUM);
    let n = payload.len().div_ceil(mss);
    let mut out = Vec::new();
    for i in 0..n {
        let chunk = &payload[i * mss..((i + 1) * mss).min(payload.len())];
        let mut h = s[..hl].to_vec();
        h.extend_from_slice(chunk);
        let end = h.len();
        for (j, &(o, v6, _)) in w.ips.iter().enumerate() {
            if v6 {
                put16(&mut h, o + 4, (end - o - 40) as u16);
            } else {
                put16(&mut h, o + 2, (end - o) as u16);
                let fixed = if j == 0 {
                    gso.contains(GsoType::TCP_FIXEDID)
                } else {
                    gso.contains(GsoType::TCP_FIXEDID_INNER)
                };
                if !fixed {
                    let id = be16(s, o + 4).wrapping_add(i as u16);
                    put16(&mut h, o + 4, id);
                }
            }
        }
        if let Some(u) = w.outer_udp {
            put16(&mut h, u + 4, (end - u) as u16);
        }
        if w.udp {
            put16(&mut h, w.l4 + 4, (end - w.l4) as u16);
        } else {
            let seq = u32::from_be_bytes(s[w.l4 + 4..w.l4 + 8].try_into().unwrap());
            h[w.l4 + 4..w.l4 + 8]
                .copy_from_slice(&seq.wrapping_add((i * mss) as u32).to_be_bytes());
            if i + 1 != n {
                h[w.l4 + 13] &= !(0x01 | 0x08);
            }
        }
        fill_all(&mut h, outer_csum, false);
        out.push(h);
    }
    out
}

// ---------------------------------------------------------------- builders

/// One TCP (or UDP) packet's fields. Every field has a sane default.
#[derive(Clone, Debug)]
pub struct Spec {
    pub v6: bool,
    pub flow: u8,
    pub seq: u32,
    pub ack: u32,
    /// Raw TCP flags byte (ACK = 0x10 by default).
    pub flags: u8,
    pub window: u16,
    pub tcp_opts: Vec<u8>,
    pub payload: Vec<u8>,
    pub ttl: u8,
    pub tos: u8,
    pub df: bool,
    pub id: u16,
    pub ip_opts: Vec<u8>,
    pub mf: bool,
    pub frag_off: u16,
    /// Raw IPv6 destination-options body (6 + 8k bytes after next/len).
    pub v6_dstopts: Option<Vec<u8>>,
    pub v6_frag: bool,
    pub flow_label: u32,
    pub vlan: Option<u16>,
    pub bad_csum: bool,
    pub udp: bool,
    pub udp_zero_csum: bool,
    pub dport: u16,
    /// Extra bytes after the IP datagram (Ethernet padding or junk).
    pub trailer: usize,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            v6: false,
            flow: 1,
            seq: 1000,
            ack: 77,
            flags: 0x10,
            window: 512,
            tcp_opts: vec![1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2],
            payload: pay(1448, 0),
            ttl: 64,
            tos: 0,
            df: true,
            id: 100,
            ip_opts: vec![],
            mf: false,
            frag_off: 0,
            v6_dstopts: None,
            v6_frag: false,
            flow_label: 0x12345,
            vlan: None,
            bad_csum: false,
            udp: false,
            udp_zero_csum: false,
            dport: 80,
            trailer: 0,
        }
    }
}

/// A payload of `n` bytes derived from `tag`.
pub fn pay(n: usize, tag: u32) -> Vec<u8> {
    (0..n)
        .map(|i| {
            ((i as u32)
                .wrapping_mul(31)
                .wrapping_add(tag.wrapping_mul(7))
                >> 1) as u8
        })
        .collect()
}

impl Spec {
    /// The next in-order segment of the same flow (seq, IP ID advance).
    pub fn next(&self) -> Spec {
        let mut n = self.clone();
        n.seq = self.seq.wrapping_add(self.payload.len() as u32);
        n.id = self.id.wrapping_add(1);
        n.payload = pay(self.payload.len(), n.seq);
        n
    }

    fn addrs4(&self) -> ([u8; 4], [u8; 4]) {
        ([10, 0, self.flow, 1], [10, 0, 0, 2])
    }

    fn addrs6(&self) -> ([u8; 16], [u8; 16]) {
        let mut s = [0u8; 16];
        s[0] = 0xfd;
        s[14] = self.flow;
        s[15] = 1;
        let mut d = [0u8; 16];
        d[0] = 0xfd;
        d[15] = 2;
        (s, d)
    }

    /// The L4 header + payload bytes with a correct checksum (etherparse).
    fn l4_bytes(&self, pseudo_v4: Option<&Ipv4Header>, pseudo_v6: Option<&Ipv6Header>) -> Vec<u8> {
        let sport = 40000 + self.flow as u16;
        let mut out = Vec::new();
        if self.udp {
            let mut u = UdpHeader {
                source_port: sport,
                destination_port: self.dport,
                length: (8 + self.payload.len()) as u16,
                checksum: 0,
            };
            if !self.udp_zero_csum {
                u.checksum = match (pseudo_v4, pseudo_v6) {
                    (Some(ip), _) => u.calc_checksum_ipv4(ip, &self.payload).unwrap(),
                    (_, Some(ip)) => u.calc_checksum_ipv6(ip, &self.payload).unwrap(),
                    _ => unreachable!(),
                };
            }
            if self.bad_csum {
                u.checksum ^= 0x0101;
            }
            out.extend_from_slice(&u.to_bytes());
        } else {
            let mut t = TcpHeader::new(sport, self.dport, self.seq, self.window);
            t.acknowledgment_number = self.ack;
            let fl = self.flags;
            t.fin = fl & 0x01 != 0;
            t.syn = fl & 0x02 != 0;
            t.rst = fl & 0x04 != 0;
            t.psh = fl & 0x08 != 0;
            t.ack = fl & 0x10 != 0;
            t.urg = fl & 0x20 != 0;
            t.ece = fl & 0x40 != 0;
            t.cwr = fl & 0x80 != 0;
            t.set_options_raw(&self.tcp_opts).unwrap();
            t.checksum = match (pseudo_v4, pseudo_v6) {
                (Some(ip), _) => t.calc_checksum_ipv4(ip, &self.payload).unwrap(),
                (_, Some(ip)) => t.calc_checksum_ipv6(ip, &self.payload).unwrap(),
                _ => unreachable!(),
            };
            if self.bad_csum {
                t.checksum ^= 0x0101;
            }
            out.extend_from_slice(&t.to_bytes());
        }
        out.extend_from_slice(&self.payload);
        out
    }

    /// The IP datagram (no link header).
    pub fn ip(&self) -> Vec<u8> {
        let proto = if self.udp {
            IpNumber::UDP
        } else {
            IpNumber::TCP
        };
        if self.v6 {
            let (s, d) = self.addrs6();
            let mut ext = Vec::new();
            let mut chain = Vec::new();
            if let Some(body) = &self.v6_dstopts {
                chain.push((60u8, body.clone()));
            }
            if self.v6_frag {
                chain.push((44u8, vec![0, 0, 0, 0, 0, 42]));
            }
            let first_nh = chain.first().map(|c| c.0).unwrap_or(proto.0);
            for (i, (kind, body)) in chain.iter().enumerate() {
                let nh = chain.get(i + 1).map(|c| c.0).unwrap_or(proto.0);
                ext.push(nh);
                if *kind == 44 {
                    ext.push(0);
                    let w: u16 = self.frag_off << 3 | self.mf as u16;
                    ext.extend_from_slice(&w.to_be_bytes());
                    ext.extend_from_slice(&body[2..]);
                } else {
                    ext.push(((body.len() + 2) / 8 - 1) as u8);
                    ext.extend_from_slice(body);
                }
            }
            let mut ip = Ipv6Header {
                traffic_class: self.tos,
                flow_label: Ipv6FlowLabel::try_new(self.flow_label).unwrap(),
                payload_length: 0,
                next_header: IpNumber(first_nh),
                hop_limit: self.ttl,
                source: s,
                destination: d,
            };
            let l4 = self.l4_bytes(None, Some(&ip));
            ip.payload_length = (ext.len() + l4.len()) as u16;
            let mut out = ip.to_bytes().to_vec();
            out.extend_from_slice(&ext);
            out.extend_from_slice(&l4);
            out
        } else {
            let (s, d) = self.addrs4();
            let mut ip = Ipv4Header::new(0, self.ttl, proto, s, d).unwrap();
            ip.identification = self.id;
            ip.dont_fragment = self.df;
            ip.more_fragments = self.mf;
            ip.fragment_offset = etherparse::IpFragOffset::try_new(self.frag_off).unwrap();
            ip.dscp = etherparse::IpDscp::try_new(self.tos >> 2).unwrap();
            ip.ecn = etherparse::IpEcn::try_new(self.tos & 3).unwrap();
            ip.options = self.ip_opts.as_slice().try_into().unwrap();
            let l4 = self.l4_bytes(Some(&ip), None);
            ip.set_payload_len(l4.len()).unwrap();
            ip.header_checksum = ip.calc_header_checksum();
            let mut out = ip.to_bytes().to_vec();
            out.extend_from_slice(&l4);
            out
        }
    }

    /// The Ethernet frame.
    pub fn frame(&self) -> Vec<u8> {
        let mut f = eth(&self.ip(), self.v6, self.vlan, 0);
        if f.len() < 60 && self.trailer == 0 {
            // Real drivers hand over minimum-size frames with their padding.
            f.resize(60, 0);
        }
        f.resize(f.len() + self.trailer, 0xEE);
        f
    }
}

/// Prepends an Ethernet header (and a VLAN tag).
pub fn eth(ip: &[u8], v6: bool, vlan: Option<u16>, mac_tag: u8) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 1 + mac_tag, 2, 0, 0, 0, 0, 2];
    if let Some(t) = vlan {
        f.extend_from_slice(&[0x81, 0x00]);
        f.extend_from_slice(&t.to_be_bytes());
    }
    f.extend_from_slice(if v6 { &[0x86, 0xDD] } else { &[0x08, 0x00] });
    f.extend_from_slice(ip);
    f
}

/// A tunnel around an inner packet.
#[derive(Clone, Debug)]
pub enum Tunnel {
    Vxlan { vni: u32 },
    Geneve { vni: u32, opts: Vec<u8> },
    Gre { key: Option<u32>, csum: bool },
    Ipip,
}

/// The outer IP header fields.
#[derive(Clone, Debug)]
pub struct Outer {
    pub v6: bool,
    pub id: u16,
    pub df: bool,
    pub ttl: u8,
    pub tos: u8,
    pub sport: u16,
    pub udp_csum: bool,
    pub tunnel: Tunnel,
}

impl Default for Outer {
    fn default() -> Self {
        Outer {
            v6: false,
            id: 5000,
            df: true,
            ttl: 32,
            tos: 0,
            sport: 51000,
            udp_csum: false,
            tunnel: Tunnel::Vxlan { vni: 42 },
        }
    }
}

impl Outer {
    pub fn next(&self) -> Outer {
        let mut o = self.clone();
        o.id = o.id.wrapping_add(1);
        o
    }
}

/// Wraps `inner` (the inner spec) into the tunnel, returning an Ethernet frame
/// with every checksum correct.
pub fn tunnel_frame(o: &Outer, inner: &Spec) -> Vec<u8> {
    let inner_ip = inner.ip();
    let (proto, body): (u8, Vec<u8>) = match &o.tunnel {
        Tunnel::Vxlan { vni } => {
            let mut b = vec![0u8; 8];
            b.extend_from_slice(&[0x08, 0, 0, 0]);
            b.extend_from_slice(&(vni << 8).to_be_bytes());
            b.extend_from_slice(&eth(&inner_ip, inner.v6, None, 7));
            put16(&mut b, 0, o.sport);
            put16(&mut b, 2, 4789);
            (17, b)
        }
        Tunnel::Geneve { vni, opts } => {
            let mut b = vec![0u8; 8];
            b.push((opts.len() / 4) as u8);
            b.push(0);
            b.extend_from_slice(&[0x65, 0x58]);
            b.extend_from_slice(&(vni << 8).to_be_bytes());
            b.extend_from_slice(opts);
            b.extend_from_slice(&eth(&inner_ip, inner.v6, None, 7));
            put16(&mut b, 0, o.sport);
            put16(&mut b, 2, 6081);
            (17, b)
        }
        Tunnel::Gre { key, csum } => {
            let mut flags = 0u16;
            if *csum {
                flags |= 0x8000;
            }
            if key.is_some() {
                flags |= 0x2000;
            }
            let mut b = flags.to_be_bytes().to_vec();
            b.extend_from_slice(if inner.v6 {
                &[0x86, 0xDD]
            } else {
                &[0x08, 0x00]
            });
            if *csum {
                b.extend_from_slice(&[0, 0, 0, 0]);
            }
            if let Some(k) = key {
                b.extend_from_slice(&k.to_be_bytes());
            }
            b.extend_from_slice(&inner_ip);
            (47, b)
        }
        Tunnel::Ipip => (if inner.v6 { 41 } else { 4 }, inner_ip.clone()),
    };
    let mut body = body;
    if proto == 17 {
        let l = body.len() as u16;
        put16(&mut body, 4, l);
    }
    let ip = if o.v6 {
        let ip = Ipv6Header {
            traffic_class: o.tos,
            flow_label: Ipv6FlowLabel::try_new(0x777).unwrap(),
            payload_length: body.len() as u16,
            next_header: IpNumber(proto),
            hop_limit: o.ttl,
            source: [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 1],
            destination: [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 2],
        };
        let mut v = ip.to_bytes().to_vec();
        v.extend_from_slice(&body);
        v
    } else {
        let mut ip = Ipv4Header::new(
            body.len() as u16,
            o.ttl,
            IpNumber(proto),
            [192, 168, 0, 1],
            [192, 168, 0, 2],
        )
        .unwrap();
        ip.identification = o.id;
        ip.dont_fragment = o.df;
        ip.dscp = etherparse::IpDscp::try_new(o.tos >> 2).unwrap();
        ip.ecn = etherparse::IpEcn::try_new(o.tos & 3).unwrap();
        ip.header_checksum = ip.calc_header_checksum();
        let mut v = ip.to_bytes().to_vec();
        v.extend_from_slice(&body);
        v
    };
    let mut f = eth(&ip, o.v6, None, 0);
    fill(&mut f, o.udp_csum, false, true);
    f.resize(f.len() + inner.trailer, 0xEE);
    f
}

// ---------------------------------------------------------------- harness

/// What left the engine, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Ev {
    Super {
        ids: Vec<u32>,
        reason: FlushReason,
        bytes: Vec<u8>,
        gso_size: u16,
        gso: GsoType,
        state: CsumState,
    },
    Pass {
        id: u32,
        reason: FlushReason,
        state: CsumState,
    },
}

impl Ev {
    pub fn reason(&self) -> FlushReason {
        match self {
            Ev::Super { reason, .. } | Ev::Pass { reason, .. } => *reason,
        }
    }
    pub fn ids(&self) -> Vec<u32> {
        match self {
            Ev::Super { ids, .. } => ids.clone(),
            Ev::Pass { id, .. } => vec![*id],
        }
    }
}

pub struct Harness<const N: usize> {
    pub gro: Box<Gro<N>>,
    pub frames: HashMap<u32, Vec<u8>>,
    pub events: Vec<Ev>,
    pub verdicts: Vec<Disposition>,
    pub next_id: u32,
    pub now: u64,
}

fn record(frames: &HashMap<u32, Vec<u8>>, events: &mut Vec<Ev>, sp: &SuperPacket) {
    let mut buf = vec![0u8; sp.len()];
    let n = sp
        .write_into(&mut buf, |id| frames.get(&id).map(|v| v.as_slice()))
        .expect("write_into");
    assert_eq!(n, sp.len());
    // The engine rewrites IPv4 total lengths and must leave every IPv4 header
    // checksum right (`inet_gro_complete`); later fills would hide it.
    for &(o, v6, next) in &walk(&buf).ips {
        assert!(
            v6 || fold16(ones_sum(&buf[o..next])) == 0xFFFF,
            "super-packet IPv4 header checksum at {o} ({:?})",
            sp.reason()
        );
    }
    events.push(Ev::Super {
        ids: sp.segments().iter().map(|s| s.id).collect(),
        reason: sp.reason(),
        bytes: buf,
        gso_size: sp.gso_size(),
        gso: sp.gso_type(),
        state: sp.meta().state(),
    });
}

impl<const N: usize> Harness<N> {
    pub fn new(cfg: GroConfig) -> Self {
        Harness {
            gro: Box::new(Gro::new(cfg)),
            frames: HashMap::new(),
            events: Vec::new(),
            verdicts: Vec::new(),
            next_id: 1,
            now: 0,
        }
    }

    /// Feeds a frame with metadata; returns its id (the verdict is kept in
    /// `verdicts`, a PassUp also in `events`).
    pub fn feed_meta(&mut self, frame: Vec<u8>, meta: CsumMeta) -> u32 {
        let (id, v) = self.feed_verdict(frame, meta);
        self.verdicts.push(v);
        id
    }

    /// Feeds a frame with metadata; returns (id, verdict).
    pub fn feed_verdict(&mut self, frame: Vec<u8>, meta: CsumMeta) -> (u32, Disposition) {
        let id = self.next_id;
        self.next_id += 1;
        self.frames.insert(id, frame);
        let Harness {
            gro,
            frames,
            events,
            now,
            ..
        } = self;
        let f = frames.get(&id).unwrap().clone();
        let v = gro.receive(&f, id, meta, *now, &mut |sp: &SuperPacket| {
            record(frames, events, sp)
        });
        if let Disposition::PassUp { reason, meta } = &v {
            events.push(Ev::Pass {
                id,
                reason: *reason,
                state: meta.state(),
            });
        }
        (id, v)
    }

    /// Feeds with `CHECKSUM_NONE` (software verification).
    pub fn feed(&mut self, frame: Vec<u8>) -> u32 {
        self.feed_meta(frame, CsumMeta::NONE)
    }

    pub fn flush(&mut self) {
        let Harness {
            gro,
            frames,
            events,
            ..
        } = self;
        gro.flush_all(&mut |sp: &SuperPacket| record(frames, events, sp));
    }

    pub fn tick(&mut self, now: u64) {
        self.now = now;
        let Harness {
            gro,
            frames,
            events,
            ..
        } = self;
        gro.tick(now, &mut |sp: &SuperPacket| record(frames, events, sp));
    }

    /// The original frame of `id`, trimmed to its IP length.
    pub fn original(&self, id: u32) -> Vec<u8> {
        let f = &self.frames[&id];
        let w = walk(f);
        f[..w.end].to_vec()
    }

    /// Checks one super-packet event: finished by the oracle, it verifies, and
    /// re-segmented it gives back the original frames byte for byte.
    pub fn check_super(&self, ev: &Ev) {
        let Ev::Super {
            ids,
            bytes,
            gso_size,
            gso,
            state,
            ..
        } = ev
        else {
            panic!("not a super-packet: {ev:?}");
        };
        if ids.len() == 1 {
            assert_eq!(
                bytes,
                &self.original(ids[0]),
                "single packet must leave unchanged"
            );
            verify(bytes).expect("single packet verifies");
            return;
        }
        let CsumState::Partial { start, offset, .. } = *state else {
            panic!("super-packet state {state:?}");
        };
        let w = walk(bytes);
        assert_eq!(start, w.l4, "csum_start at the (inner) L4 header");
        assert_eq!(offset, if w.udp { 6 } else { 16 });
        // The seed in the field equals the pseudo-header sum of the new length.
        let inner = *w.ips.last().unwrap();
        let proto = if w.udp { 17 } else { 6 };
        let seed = be16(bytes, w.l4 + offset);
        assert_eq!(
            seed,
            fold16(pseudo_of(bytes, inner, proto, w.end - w.l4)),
            "pseudo seed"
        );
        let mut fin = bytes.clone();
        fill_all(&mut fin, gso.contains(GsoType::UDP_TUNNEL_CSUM), true);
        verify(&fin).expect("finished super-packet verifies");
        let segs = resegment(&fin, *gso_size as usize, *gso);
        assert_eq!(segs.len(), ids.len(), "segment count");
        for (seg, id) in segs.iter().zip(ids) {
            let orig = self.original(*id);
            if seg != &orig {
                let at = seg.iter().zip(&orig).position(|(a, b)| a != b);
                panic!(
                    "re-segmented {id} differs: lengths {} vs {}, first difference at {at:?}",
                    seg.len(),
                    orig.len()
                );
            }
        }
    }
}
