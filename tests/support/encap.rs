//! Test support for the encap tests: an independent checksum oracle (naive
//! big-endian byte-pair loop, no crate arithmetic) and an independent outer
//! header builder, so decap is never checked against our own encap only.
#![allow(dead_code)]

/// The state room's soundness oracle (tests/support/oracle.rs), a second,
/// independent opinion beside [`sound`]'s own checks.
pub use crate::support::oracle;

use etherparse::PacketBuilder;
use netoffload::csum::Wsum;
use netoffload::state::{CsumMeta, CsumState, PartialKind};
use netoffload::wire::{self, Layers, LinkType, Net, Transport};

/// Ones-complement sum of big-endian byte pairs (odd byte padded), folded to 16 bits.
pub fn naive_sum(b: &[u8], init: u32) -> u16 {
    oracle::naive::sum(b, u64::from(init))
}

/// Pseudo-header sum (not folded) for the L4 segment at `l` with length `len`.
pub fn naive_pseudo(bytes: &[u8], l: &Layers, proto: u8, len: usize) -> u32 {
    let alen = if l.net == Net::Ipv4 { 4 } else { 16 };
    let src = &bytes[l.pseudo_src..l.pseudo_src + alen];
    let dst = &bytes[l.pseudo_dst..l.pseudo_dst + alen];
    u32::from(oracle::naive::fold(oracle::naive::pseudo(
        src, dst, proto, len,
    )))
}

/// True when the L4 checksum of the segment `[l4, end)` verifies.
fn seg_ok(bytes: &[u8], l: &Layers, proto: u8, end: usize, pseudo: bool) -> bool {
    let seg = &bytes[l.l4..end];
    let init = if pseudo {
        naive_pseudo(bytes, l, proto, seg.len())
    } else {
        0
    };
    naive_sum(seg, init) == 0xFFFF
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// The checksums of the packet at `l`, outermost first (TCP; UDP including a
/// zero one, which counts as correct over IPv4 and over IPv6 when `v6_zero`;
/// GRE only with C; tunnels descended by their well-known ports).
pub fn chain(bytes: &[u8], l: &Layers, v6_zero: bool) -> Vec<bool> {
    let mut out = Vec::new();
    chain_into(bytes, l, v6_zero, &mut out, 0);
    out
}

fn chain_into(bytes: &[u8], l: &Layers, v6_zero: bool, out: &mut Vec<bool>, depth: usize) {
    if depth > 4 || l.fragment.is_fragment {
        return;
    }
    let bytes = &bytes[..l.end];
    match l.transport {
        Transport::Tcp => out.push(seg_ok(bytes, l, 6, l.end, true)),
        Transport::Icmp => out.push(seg_ok(bytes, l, 1, l.end, false)),
        Transport::Icmpv6 => out.push(seg_ok(bytes, l, 58, l.end, true)),
        Transport::Udp => {
            let ulen = be16(bytes, l.l4 + 4) as usize;
            let end = if ulen == 0 { l.end } else { l.l4 + ulen };
            let check = be16(bytes, l.l4 + 6);
            out.push(if check == 0 {
                l.net == Net::Ipv4 || v6_zero
            } else {
                seg_ok(bytes, l, 17, end, true)
            });
            let dport = be16(bytes, l.l4 + 2);
            let h = l.l4 + 8;
            let next = match dport {
                4789 => Some((h + 8, 0x6558u16)),
                6081 if bytes.len() >= h + 8 => {
                    let optlen = (bytes[h] & 0x3F) as usize * 4;
                    Some((h + 8 + optlen, be16(bytes, h + 2)))
                }
                _ => None,
            };
            if let Some((at, et)) = next {
                descend(&bytes[..end], at, et, v6_zero, out, depth);
            }
        }
        Transport::Gre => {
            let flags = be16(bytes, l.l4);
            if flags & 0x8000 != 0 {
                out.push(naive_sum(&bytes[l.l4..l.end], 0) == 0xFFFF);
            }
            let et = be16(bytes, l.l4 + 2);
            descend(bytes, l.payload, et, v6_zero, out, depth);
        }
        Transport::Ipip => descend(bytes, l.l4, 0x0800, v6_zero, out, depth),
        Transport::Ipv6InIp => descend(bytes, l.l4, 0x86DD, v6_zero, out, depth),
        _ => {}
    }
}

/// `l` with every offset moved `by` bytes later (layers parsed from a slice
/// that starts `by` bytes into the frame).
pub fn shift(mut l: Layers, by: usize) -> Layers {
    for o in [
        &mut l.l2,
        &mut l.l3,
        &mut l.l4,
        &mut l.payload,
        &mut l.end,
        &mut l.pseudo_src,
        &mut l.pseudo_dst,
    ] {
        *o += by;
    }
    l
}

fn descend(bytes: &[u8], at: usize, et: u16, v6_zero: bool, out: &mut Vec<bool>, depth: usize) {
    let inner = match et {
        0x6558 => wire::parse(&bytes[at..], LinkType::Ethernet)
            .ok()
            .map(|l| shift(l, at)),
        0x0800 | 0x86DD => wire::parse_ip_at(bytes, at, et, LinkType::RawIp, 0, [0; 2]).ok(),
        _ => None,
    };
    if let Some(l) = inner {
        chain_into(bytes, &l, v6_zero, out, depth + 1);
    }
}

/// Big-endian checksum value a `Wsum` folds to.
pub fn folded_be(csum: Wsum) -> u16 {
    netoffload::csum::fold(csum).to_be_u16()
}

/// Checks the soundness contract (DESIGN.md 4) for the packet at `l` whose
/// current layer starts at `cur`.
pub fn sound(
    bytes: &[u8],
    l: &Layers,
    cur: usize,
    meta: &CsumMeta,
    v6_zero: bool,
) -> Result<(), String> {
    match meta.state() {
        CsumState::None => Ok(()),
        CsumState::Unnecessary { level } => {
            let c = chain(bytes, l, v6_zero);
            let n = level.get() as usize + 1;
            if c.len() < n {
                return Err(format!(
                    "level {} claims {n} checksums, packet has {}",
                    level.get(),
                    c.len()
                ));
            }
            if c[..n].iter().all(|&ok| ok) {
                Ok(())
            } else {
                Err(format!("level {} over chain {c:?}", level.get()))
            }
        }
        CsumState::Complete { csum } => {
            let real = !naive_sum(&bytes[cur..l.end], 0);
            let got = folded_be(csum);
            if real == got {
                Ok(())
            } else {
                Err(format!(
                    "Complete folds to {got:#06x}, bytes to {real:#06x}"
                ))
            }
        }
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            if kind == PartialKind::Crc32c {
                return Ok(());
            }
            let mut copy = bytes[..l.end].to_vec();
            let f = !naive_sum(&copy[start..], 0);
            copy[start + offset..start + offset + 2].copy_from_slice(&f.to_be_bytes());
            // The layer whose field it is must verify after the fill.
            let mut filled = *l;
            filled.l4 = start;
            let ok = match l.transport {
                Transport::Tcp => seg_ok(&copy, &filled, 6, l.end, true),
                Transport::Udp => seg_ok(&copy, &filled, 17, l.end, true),
                _ => naive_sum(&copy[start..l.end], 0) == 0xFFFF,
            };
            if ok {
                Ok(())
            } else {
                Err("Partial fill does not verify".into())
            }
        }
    }
}

/// An Ethernet frame with IPv4 or IPv6 and TCP (correct checksums), built by etherparse.
pub fn eth_tcp(v6: bool, vlan: Option<u16>, payload: &[u8]) -> Vec<u8> {
    let eth = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
    let mut out = Vec::new();
    match (v6, vlan) {
        (false, None) => eth
            .ipv4([10, 1, 0, 1], [10, 1, 0, 2], 64)
            .tcp(40000, 80, 12345, 1000)
            .write(&mut out, payload)
            .unwrap(),
        (true, None) => eth
            .ipv6(v6addr(1), v6addr(2), 64)
            .tcp(40000, 80, 12345, 1000)
            .write(&mut out, payload)
            .unwrap(),
        (false, Some(v)) => eth
            .single_vlan(etherparse::VlanId::try_new(v).unwrap())
            .ipv4([10, 1, 0, 1], [10, 1, 0, 2], 64)
            .tcp(40000, 80, 12345, 1000)
            .write(&mut out, payload)
            .unwrap(),
        (true, Some(v)) => eth
            .single_vlan(etherparse::VlanId::try_new(v).unwrap())
            .ipv6(v6addr(1), v6addr(2), 64)
            .tcp(40000, 80, 12345, 1000)
            .write(&mut out, payload)
            .unwrap(),
    }
    out
}

/// An IPv4 or IPv6 packet with TCP (correct checksums).
pub fn ip_tcp(v6: bool, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if v6 {
        PacketBuilder::ipv6(v6addr(3), v6addr(4), 64)
            .tcp(1234, 443, 99, 500)
            .write(&mut out, payload)
            .unwrap();
    } else {
        PacketBuilder::ipv4([192, 168, 7, 1], [192, 168, 7, 2], 64)
            .tcp(1234, 443, 99, 500)
            .write(&mut out, payload)
            .unwrap();
    }
    out
}

/// An IPv4 or IPv6 packet with UDP (correct checksum).
pub fn ip_udp(v6: bool, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if v6 {
        PacketBuilder::ipv6(v6addr(5), v6addr(6), 64)
            .udp(5000, 53)
            .write(&mut out, payload)
            .unwrap();
    } else {
        PacketBuilder::ipv4([172, 16, 0, 1], [172, 16, 0, 2], 64)
            .udp(5000, 53)
            .write(&mut out, payload)
            .unwrap();
    }
    out
}

pub fn v6addr(last: u8) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0x20;
    a[1] = 0x01;
    a[2] = 0x0d;
    a[3] = 0xb8;
    a[15] = last;
    a
}

/// The tunnel an independent test builder wraps around an inner packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wrap {
    /// VXLAN (port 4789) around an Ethernet frame.
    Vxlan,
    /// GENEVE (port 6081) with option bytes, around Ethernet or IP.
    Geneve(Vec<u8>),
    /// GRE with optional key, around IP or Ethernet (TEB).
    Gre { key: Option<u32> },
    /// IP-in-IP (4 / 41).
    IpIp,
}

/// Outer header choices for [`wrap`].
#[derive(Clone, Debug)]
pub struct Outer {
    pub wrap: Wrap,
    pub v6: bool,
    /// Non-zero UDP checksum / GRE C bit.
    pub csum: bool,
    pub vlan: Option<u16>,
    pub inner_eth: bool,
}

/// Builds Ethernet (+VLAN) / IP / tunnel / inner with naive checksums.
pub fn wrap(o: &Outer, inner: &[u8]) -> Vec<u8> {
    let mut tun = Vec::new();
    let inner_et: u16 = if o.inner_eth {
        0x6558
    } else if inner[0] >> 4 == 4 {
        0x0800
    } else {
        0x86DD
    };
    let proto: u8 = match &o.wrap {
        Wrap::Vxlan | Wrap::Geneve(_) => 17,
        Wrap::Gre { .. } => 47,
        Wrap::IpIp => {
            if inner_et == 0x0800 {
                4
            } else {
                41
            }
        }
    };
    match &o.wrap {
        Wrap::Vxlan => {
            tun.extend_from_slice(&[0x9c, 0x40, 0x12, 0xb5, 0, 0, 0, 0]);
            tun.extend_from_slice(&[0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0]);
        }
        Wrap::Geneve(opts) => {
            tun.extend_from_slice(&[0x9c, 0x41, 0x17, 0xc1, 0, 0, 0, 0]);
            tun.push((opts.len() / 4) as u8);
            tun.push(0);
            tun.extend_from_slice(&inner_et.to_be_bytes());
            tun.extend_from_slice(&[0xab, 0xcd, 0xef, 0]);
            tun.extend_from_slice(opts);
        }
        Wrap::Gre { key } => {
            let mut flags = 0u16;
            if o.csum {
                flags |= 0x8000;
            }
            if key.is_some() {
                flags |= 0x2000;
            }
            tun.extend_from_slice(&flags.to_be_bytes());
            tun.extend_from_slice(&inner_et.to_be_bytes());
            if o.csum {
                tun.extend_from_slice(&[0, 0, 0, 0]);
            }
            if let Some(k) = key {
                tun.extend_from_slice(&k.to_be_bytes());
            }
        }
        Wrap::IpIp => {}
    }
    let tun_len = tun.len();
    tun.extend_from_slice(inner);
    let seg_len = tun.len();
    if proto == 17 {
        tun[4..6].copy_from_slice(&(seg_len as u16).to_be_bytes());
    }
    let mut ip = Vec::new();
    if o.v6 {
        ip.extend_from_slice(&[0x60, 0, 0, 0]);
        ip.extend_from_slice(&(seg_len as u16).to_be_bytes());
        ip.extend_from_slice(&[proto, 64]);
        ip.extend_from_slice(&v6addr(0x11));
        ip.extend_from_slice(&v6addr(0x22));
    } else {
        ip.extend_from_slice(&[0x45, 0]);
        ip.extend_from_slice(&((20 + seg_len) as u16).to_be_bytes());
        ip.extend_from_slice(&[0, 7, 0x40, 0, 64, proto, 0, 0]);
        ip.extend_from_slice(&[198, 51, 100, 1, 198, 51, 100, 2]);
        let c = !naive_sum(&ip, 0);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
    }
    // Outer checksums over the finished segment.
    if o.csum {
        match proto {
            17 => {
                let (alen, s, d) = if o.v6 { (16, 8, 24) } else { (4, 12, 16) };
                let mut p =
                    naive_sum(&ip[s..s + alen], 0) as u32 + naive_sum(&ip[d..d + alen], 0) as u32;
                p += 17 + seg_len as u32;
                let mut c = !naive_sum(&tun, p);
                if c == 0 {
                    c = 0xFFFF;
                }
                tun[6..8].copy_from_slice(&c.to_be_bytes());
            }
            47 => {
                let c = !naive_sum(&tun, 0);
                tun[4..6].copy_from_slice(&c.to_be_bytes());
            }
            _ => {}
        }
    }
    let _ = tun_len;
    let mut out = vec![0x02, 0, 0, 0, 0, 0xaa, 0x02, 0, 0, 0, 0, 0xbb];
    if let Some(v) = o.vlan {
        out.extend_from_slice(&[0x81, 0x00]);
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(if o.v6 { &[0x86, 0xDD] } else { &[0x08, 0x00] });
    out.extend_from_slice(&ip);
    out.extend_from_slice(&tun);
    out
}

/// Validates the inner L4 checksum with the state room's `validate` from the
/// state decap left: (verdict good, software bytes).
pub fn inner_validate(bytes: &[u8], inner: &Layers, meta: &CsumMeta) -> (bool, usize) {
    use netoffload::state::{CsumVerdict, Packet, validate};
    let pkt = Packet::new(&bytes[..inner.end], *inner, inner.l3).expect("inner packet");
    let out = validate(meta.clone(), &pkt).expect("validate runs");
    (out.verdict == CsumVerdict::Good, out.sw_bytes)
}
