//! Tunnel builders for the tx tests: outer headers (VXLAN, GENEVE, GRE over
//! IPv4/IPv6) around an inner Ethernet frame, lengths and checksums filled
//! naively.
#![allow(dead_code)]

use super::*;
use netoffload::wire::{self, LinkType, consts::ethertype};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tun {
    Vxlan { v6: bool, csum: bool },
    Geneve,
    Gre { csum: bool, key: bool },
}

pub const OUTER_SRC4: [u8; 4] = [10, 0, 0, 1];
pub const OUTER_DST4: [u8; 4] = [10, 0, 0, 2];

/// Outer headers for one tunnelled packet around `inner` (an Ethernet frame),
/// with every length and checksum filled naively.
pub fn wrap(t: Tun, outer_id: u16, inner: &[u8]) -> Vec<u8> {
    let (v6, proto) = match t {
        Tun::Vxlan { v6, .. } => (v6, 17u8),
        Tun::Geneve => (false, 17),
        Tun::Gre { .. } => (false, 47),
    };
    // The tunnel header and what it carries.
    let mut tun = match t {
        Tun::Vxlan { .. } => {
            let mut h = vec![0x08, 0, 0, 0, 0, 0x12, 0x34, 0];
            h.extend_from_slice(inner);
            h
        }
        Tun::Geneve => {
            let mut h = vec![2, 0, 0x65, 0x58, 0, 0, 0x42, 0];
            h.extend_from_slice(&[0x01, 0x02, 0x80, 0x01, 0xde, 0xad, 0xbe, 0xef]);
            h.extend_from_slice(inner);
            h
        }
        Tun::Gre { csum, key } => {
            let flags: u16 = if csum { 0x8000 } else { 0 } | if key { 0x2000 } else { 0 };
            let et: u16 = if inner[12] == 0x86 { 0x86dd } else { 0x0800 };
            let mut h = flags.to_be_bytes().to_vec();
            h.extend_from_slice(&et.to_be_bytes());
            if csum {
                h.extend_from_slice(&[0, 0, 0, 0]);
            }
            if key {
                h.extend_from_slice(&[0, 0, 0x30, 0x39]);
            }
            h.extend_from_slice(&inner[ETH_LEN..]);
            if csum {
                let c = !naive_fold(&h, 0);
                h[4..6].copy_from_slice(&c.to_be_bytes());
            }
            h
        }
    };
    if proto == 17 {
        let dport: u16 = if t == Tun::Geneve { 6081 } else { 4789 };
        let len = (8 + tun.len()) as u16;
        let mut u = vec![0xd4, 0x31];
        u.extend_from_slice(&dport.to_be_bytes());
        u.extend_from_slice(&len.to_be_bytes());
        u.extend_from_slice(&[0, 0]);
        u.append(&mut tun);
        let with_csum = !matches!(t, Tun::Vxlan { csum: false, .. });
        if with_csum {
            let p = if v6 {
                naive_pseudo(&SRC6, &DST6, 17, u.len())
            } else {
                naive_pseudo(&OUTER_SRC4, &OUTER_DST4, 17, u.len())
            };
            let mut c = !naive_fold(&u, p);
            if c == 0 {
                c = 0xffff;
            }
            u[6..8].copy_from_slice(&c.to_be_bytes());
        }
        tun = u;
    }
    let mut f = vec![2, 0, 0, 0, 0, 9, 2, 0, 0, 0, 0, 8];
    if v6 {
        f.extend_from_slice(&[0x86, 0xdd, 0x60, 0, 0, 0]);
        f.extend_from_slice(&(tun.len() as u16).to_be_bytes());
        f.extend_from_slice(&[proto, 64]);
        f.extend_from_slice(&SRC6);
        f.extend_from_slice(&DST6);
    } else {
        f.extend_from_slice(&[0x08, 0x00]);
        let mut ip = vec![0x45, 0];
        ip.extend_from_slice(&((20 + tun.len()) as u16).to_be_bytes());
        ip.extend_from_slice(&outer_id.to_be_bytes());
        ip.extend_from_slice(&[0x40, 0, 64, proto, 0, 0]);
        ip.extend_from_slice(&OUTER_SRC4);
        ip.extend_from_slice(&OUTER_DST4);
        let c = !naive_fold(&ip, 0);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        f.extend_from_slice(&ip);
    }
    f.extend_from_slice(&tun);
    f
}

/// Inner layers of a tunnelled frame (offsets in the same frame).
pub fn inner_layers(t: Tun, frame: &[u8], outer: &wire::Layers) -> wire::Layers {
    let l3 = match t {
        Tun::Vxlan { .. } => outer.payload + 8 + ETH_LEN,
        Tun::Geneve => outer.payload + 8 + 8 + ETH_LEN,
        Tun::Gre { .. } => outer.payload,
    };
    let et = if frame[l3] >> 4 == 6 {
        ethertype::IPV6
    } else {
        ethertype::IPV4
    };
    wire::parse_ip_at(frame, l3, et, LinkType::Ethernet, 0, [0; 2]).unwrap()
}
