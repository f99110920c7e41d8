//! The GRO header walker against `wire::parse` and `encap`'s tunnel parse:
//! whenever both accept a frame they agree on every offset (link, each IP
//! header and its end, the tunnel header, the inner packet, the transport
//! header, the payload, the datagram end).
extern crate std;

use std::vec::Vec;

use proptest::prelude::*;

use super::GroKinds;
use super::parse::{Encap, L4, parse};
use crate::encap::{EncapConfig, parse_inner, parse_tunnel};
use crate::wire::consts::{ethertype, ipproto, port};
use crate::wire::{LinkType, Net};

/// One frame's shape.
#[derive(Clone, Copy, Debug)]
struct Shape {
    raw_ip: bool,
    vlans: u8,
    outer_v6: bool,
    /// IPv4 options (one word) or IPv6 extension headers (0..=2).
    outer_ext: u8,
    /// 0 none, 1 VXLAN, 2 GENEVE, 3 GRE, 4 IP-in-IP.
    tunnel: u8,
    /// GENEVE option words, GRE flags (bit 0: C, bit 1: K).
    tunnel_opt: u8,
    /// The tunnel carries Ethernet (GENEVE, GRE; VXLAN always does).
    inner_eth: bool,
    inner_v6: bool,
    inner_ext: u8,
    /// Plain UDP instead of TCP (no tunnel only).
    udp: bool,
    tcp_opt_words: u8,
    payload: u8,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        (any::<bool>(), 0u8..3, any::<bool>(), 0u8..3, 0u8..5, 0u8..4),
        (
            any::<bool>(),
            any::<bool>(),
            0u8..3,
            any::<bool>(),
            0u8..4,
            0u8..40,
        ),
    )
        .prop_map(
            |(
                (raw_ip, vlans, outer_v6, outer_ext, tunnel, tunnel_opt),
                (inner_eth, inner_v6, inner_ext, udp, tcp_opt_words, payload),
            )| Shape {
                raw_ip,
                vlans,
                outer_v6,
                outer_ext,
                tunnel,
                tunnel_opt,
                inner_eth,
                inner_v6,
                inner_ext,
                udp,
                tcp_opt_words,
                payload,
            },
        )
}

fn be(v: u16) -> [u8; 2] {
    v.to_be_bytes()
}

fn tcp(opt_words: u8, payload: usize) -> Vec<u8> {
    let mut t = std::vec![0u8; 20];
    t[0..2].copy_from_slice(&be(40000));
    t[2..4].copy_from_slice(&be(80));
    t[4..8].copy_from_slice(&1000u32.to_be_bytes());
    t[12] = (5 + opt_words) << 4;
    t[13] = 0x10;
    t[14..16].copy_from_slice(&be(512));
    t.extend(core::iter::repeat_n(1u8, opt_words as usize * 4));
    t.extend((0..payload).map(|i| i as u8));
    t
}

fn udp(dport: u16, body: Vec<u8>) -> Vec<u8> {
    let mut u = Vec::new();
    u.extend_from_slice(&be(50000));
    u.extend_from_slice(&be(dport));
    u.extend_from_slice(&be((8 + body.len()) as u16));
    u.extend_from_slice(&be(0x1234));
    u.extend(body);
    u
}

fn ipv4(proto: u8, options: bool, body: Vec<u8>) -> Vec<u8> {
    let ihl = if options { 24 } else { 20 };
    let mut h = std::vec![0u8; ihl];
    h[0] = 0x40 | (ihl / 4) as u8;
    h[2..4].copy_from_slice(&be((ihl + body.len()) as u16));
    h[6] = 0x40;
    h[8] = 64;
    h[9] = proto;
    h[12..20].copy_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
    if options {
        h[20..24].copy_from_slice(&[1, 1, 1, 0]);
    }
    let sum: u32 = h
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
        .sum();
    let sum = (sum & 0xFFFF) + (sum >> 16);
    let sum = (sum & 0xFFFF) + (sum >> 16);
    h[10..12].copy_from_slice(&be(!(sum as u16)));
    h.extend(body);
    h
}

/// IPv6 with `ext` extension headers (hop-by-hop, then destination options),
/// each 8 bytes of padding.
fn ipv6(proto: u8, ext: u8, body: Vec<u8>) -> Vec<u8> {
    let kinds = [ipproto::HOPOPTS, ipproto::DSTOPTS];
    let mut exts = Vec::new();
    for k in 0..ext as usize {
        let next = if k + 1 < ext as usize {
            kinds[k + 1]
        } else {
            proto
        };
        exts.extend_from_slice(&[next, 0, 1, 4, 0, 0, 0, 0]);
    }
    let first = if ext == 0 { proto } else { kinds[0] };
    let mut h = std::vec![0x60, 0, 0, 0];
    h.extend_from_slice(&be((exts.len() + body.len()) as u16));
    h.extend_from_slice(&[first, 64]);
    h.extend((0..32).map(|i| i as u8));
    h.extend(exts);
    h.extend(body);
    h
}

fn ip(v6: bool, ext: u8, proto: u8, body: Vec<u8>) -> Vec<u8> {
    if v6 {
        ipv6(proto, ext, body)
    } else {
        ipv4(proto, ext > 0, body)
    }
}

fn eth(et: u16, vlans: u8, body: Vec<u8>) -> Vec<u8> {
    let mut e = std::vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2];
    for k in 0..vlans {
        let tpid = if k + 1 < vlans {
            ethertype::QINQ
        } else {
            ethertype::VLAN
        };
        e.extend_from_slice(&be(tpid));
        e.extend_from_slice(&be(100 + k as u16));
    }
    e.extend_from_slice(&be(et));
    e.extend(body);
    e
}

fn ethertype_of(v6: bool) -> u16 {
    if v6 { ethertype::IPV6 } else { ethertype::IPV4 }
}

/// The frame of `s`.
fn build(s: &Shape) -> Vec<u8> {
    let l4 = |v6: bool, ext: u8, udp_plain: bool| {
        let payload = s.payload as usize;
        if udp_plain {
            ip(
                v6,
                ext,
                ipproto::UDP,
                udp(9000, (0..payload).map(|i| i as u8).collect()),
            )
        } else {
            ip(v6, ext, ipproto::TCP, tcp(s.tcp_opt_words, payload))
        }
    };
    let inner_ip = || l4(s.inner_v6, s.inner_ext, false);
    let inner_et = ethertype_of(s.inner_v6);
    let (proto, body) = match s.tunnel {
        1 => {
            let mut v = std::vec![0x08, 0, 0, 0, 0, 0, 42, 0];
            v.extend(eth(inner_et, 0, inner_ip()));
            (ipproto::UDP, udp(port::VXLAN, v))
        }
        2 => {
            let words = s.tunnel_opt % 3;
            let pt = if s.inner_eth {
                ethertype::TEB
            } else {
                inner_et
            };
            let mut g = std::vec![words, 0];
            g.extend_from_slice(&be(pt));
            g.extend_from_slice(&[0, 0, 42, 0]);
            for _ in 0..words {
                g.extend_from_slice(&[0x01, 0x02, 0x03, 0x00]);
            }
            if s.inner_eth {
                g.extend(eth(inner_et, 0, inner_ip()));
            } else {
                g.extend(inner_ip());
            }
            (ipproto::UDP, udp(port::GENEVE, g))
        }
        3 => {
            let (c, k) = (s.tunnel_opt & 1 != 0, s.tunnel_opt & 2 != 0);
            let flags = if c { 0x8000 } else { 0 } | if k { 0x2000 } else { 0 };
            let pt = if s.inner_eth {
                ethertype::TEB
            } else {
                inner_et
            };
            let mut g = Vec::new();
            g.extend_from_slice(&be(flags));
            g.extend_from_slice(&be(pt));
            if c {
                g.extend_from_slice(&[0, 0, 0, 0]);
            }
            if k {
                g.extend_from_slice(&[0, 0, 0, 7]);
            }
            if s.inner_eth {
                g.extend(eth(inner_et, 0, inner_ip()));
            } else {
                g.extend(inner_ip());
            }
            (ipproto::GRE, g)
        }
        4 => {
            let p = if s.inner_v6 {
                ipproto::IPV6
            } else {
                ipproto::IPIP
            };
            (p, inner_ip())
        }
        _ => {
            let f = l4(s.outer_v6, s.outer_ext, s.udp);
            return if s.raw_ip {
                f
            } else {
                eth(ethertype_of(s.outer_v6), s.vlans, f)
            };
        }
    };
    let f = ip(s.outer_v6, s.outer_ext, proto, body);
    if s.raw_ip {
        f
    } else {
        eth(ethertype_of(s.outer_v6), s.vlans, f)
    }
}

/// Both walkers on `f`: `None` when either refuses; else the number of
/// offsets compared (the assertions are inside).
fn agree(f: &[u8], link: LinkType) -> Result<Option<usize>, TestCaseError> {
    let Ok(out) = parse(f, link, GroKinds::all()) else {
        return Ok(None);
    };
    let Ok(outer) = crate::wire::parse(f, link) else {
        return Ok(None);
    };
    let p = out.p;
    let ip0 = p.ips[0];
    prop_assert_eq!(ip0.off as usize, outer.l3);
    prop_assert_eq!(ip0.v6, outer.net == Net::Ipv6);
    prop_assert_eq!(ip0.next as usize, outer.l4);
    prop_assert_eq!(p.end as usize, outer.end);
    if p.encap == Encap::None {
        prop_assert_eq!(p.n, 1);
        prop_assert_eq!(p.l4 as usize, outer.l4);
        prop_assert_eq!(p.payload as usize, outer.payload);
        prop_assert_eq!(p.inner_l2, ip0.off);
        return Ok(Some(6));
    }
    let Ok(t) = parse_tunnel(f, &outer, &EncapConfig::default()) else {
        return Ok(None);
    };
    let Ok(inner) = parse_inner(f, &t) else {
        return Ok(None);
    };
    prop_assert_eq!(p.n, 2);
    if p.encap != Encap::Ipip {
        prop_assert_eq!(p.enc_off as usize, t.outer_l4);
    }
    prop_assert_eq!(p.inner_l2 as usize, t.inner_start);
    let ip1 = p.ips[1];
    prop_assert_eq!(ip1.off as usize, inner.l3);
    prop_assert_eq!(ip1.v6, inner.net == Net::Ipv6);
    prop_assert_eq!(ip1.next as usize, inner.l4);
    prop_assert_eq!(p.l4 as usize, inner.l4);
    prop_assert_eq!(p.l4kind, L4::Tcp);
    prop_assert_eq!(p.payload as usize, inner.payload);
    prop_assert_eq!(inner.end, p.end as usize);
    Ok(Some(13))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whenever the GRO walker and `wire::parse` (+ `encap`'s tunnel and
    /// inner parse) both accept a frame, they agree on every offset.
    #[test]
    fn gro_walker_agrees_with_wire_and_encap(s in shape()) {
        let f = build(&s);
        let link = if s.raw_ip { LinkType::RawIp } else { LinkType::Ethernet };
        agree(&f, link)?;
    }
}

/// The frames the property test draws are accepted by both walkers (so the
/// property is not vacuous): every shape of the cross product is compared.
#[test]
fn every_shape_is_accepted_by_both() {
    let mut compared = 0;
    let mut total = 0;
    for tunnel in 0..5u8 {
        for raw_ip in [false, true] {
            for outer_v6 in [false, true] {
                for inner_v6 in [false, true] {
                    for inner_eth in [false, true] {
                        for tunnel_opt in 0..4u8 {
                            for ext in 0..3u8 {
                                let s = Shape {
                                    raw_ip,
                                    vlans: ext,
                                    outer_v6,
                                    outer_ext: ext,
                                    tunnel,
                                    tunnel_opt,
                                    inner_eth,
                                    inner_v6,
                                    inner_ext: 2 - ext,
                                    udp: tunnel_opt == 1,
                                    tcp_opt_words: tunnel_opt,
                                    payload: 10,
                                };
                                let link = if raw_ip {
                                    LinkType::RawIp
                                } else {
                                    LinkType::Ethernet
                                };
                                total += 1;
                                let f = build(&s);
                                match agree(&f, link) {
                                    Ok(Some(_)) => compared += 1,
                                    Ok(None) => panic!("refused: {s:?}"),
                                    Err(e) => panic!("{e} for {s:?}"),
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert_eq!(compared, total);
}

proptest! {
    /// `pseudo` reads an IPv6 header's two addresses where they lie: the same
    /// checksum as `csum::pseudo_v6` of them, at any header offset, and only
    /// the length and protocol when the frame is too short.
    #[test]
    fn pseudo_v6_in_one_slice_is_pseudo_v6(
        off in 0usize..40,
        addrs in prop::collection::vec(any::<u8>(), 32),
        proto in any::<u8>(),
        len in any::<u32>(),
        cut in any::<bool>(),
    ) {
        use crate::csum::{self, Wsum};
        let off = off & !1;
        let mut f = std::vec![0u8; off + 40];
        f[off + 8..off + 40].copy_from_slice(&addrs);
        let ip = super::parse::Ip { off: off as u16, next: (off + 40) as u16, v6: true };
        let src: [u8; 16] = addrs[..16].try_into().unwrap_or([0; 16]);
        let dst: [u8; 16] = addrs[16..].try_into().unwrap_or([0; 16]);
        let (f, want) = if cut {
            (&f[..off + 39], csum::pseudo_v6(&[0; 16], &[0; 16], proto, len, Wsum::ZERO))
        } else {
            (&f[..], csum::pseudo_v6(&src, &dst, proto, len, Wsum::ZERO))
        };
        let got = super::parse::pseudo(f, ip, proto, len);
        prop_assert_eq!(csum::fold(got), csum::fold(want));
    }
}
