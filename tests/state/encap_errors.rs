//! Truncation at every byte offset of the outer and tunnel headers, and every
//! invalid tunnel field: a typed error naming the layer / field, never a panic,
//! never a decapsulated packet, and the metadata handed back unchanged.

use crate::support::encap as encap_support;

use encap_support::*;
use netoffload::encap::{DecapError, EncapConfig, decap, decap_nested};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};
use netoffload::wire::{self, ErrorKind, Field, Layer, LinkType};

fn samples() -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for outer_v6 in [false, true] {
        for (name, wrap_kind, inner_eth) in [
            ("vxlan", Wrap::Vxlan, true),
            ("geneve", Wrap::Geneve(vec![0, 1, 2, 1, 9, 9, 9, 9]), true),
            ("geneve-ip", Wrap::Geneve(Vec::new()), false),
            ("gre-key", Wrap::Gre { key: Some(7) }, false),
            ("gre-teb", Wrap::Gre { key: None }, true),
            ("ipip", Wrap::IpIp, false),
        ] {
            let inner = if inner_eth {
                eth_tcp(!outer_v6, Some(3), b"payload!")
            } else {
                ip_tcp(!outer_v6, b"payload!")
            };
            let o = Outer {
                wrap: wrap_kind,
                v6: outer_v6,
                csum: name.starts_with("gre") || (outer_v6 && name != "ipip"),
                vlan: Some(10),
                inner_eth,
            };
            v.push((format!("{name} v6={outer_v6}"), wrap(&o, &inner)));
        }
    }
    v
}

/// Rewrites the outer IP length (and the UDP length) so the packet ends at `cut`.
fn cut_consistently(bytes: &[u8], cut: usize) -> Vec<u8> {
    let outer = wire::parse(bytes, LinkType::Ethernet).unwrap();
    fix_lengths(&bytes[..cut], &outer)
}

/// Sets the outer IP (and UDP) lengths from `outer`'s offsets to the buffer's end.
fn fix_lengths(bytes: &[u8], outer: &wire::Layers) -> Vec<u8> {
    let cut = bytes.len();
    let mut b = bytes.to_vec();
    match outer.net {
        wire::Net::Ipv4 => {
            let total = (cut - outer.l3) as u16;
            b[outer.l3 + 2..outer.l3 + 4].copy_from_slice(&total.to_be_bytes());
        }
        wire::Net::Ipv6 => {
            let plen = (cut - outer.l3 - 40) as u16;
            b[outer.l3 + 4..outer.l3 + 6].copy_from_slice(&plen.to_be_bytes());
        }
    }
    if outer.ip_proto == 17 && cut >= outer.l4 + 8 {
        let ulen = (cut - outer.l4) as u16;
        b[outer.l4 + 4..outer.l4 + 6].copy_from_slice(&ulen.to_be_bytes());
    }
    b
}

#[test]
fn truncation_at_every_offset_of_the_outer_headers_is_a_typed_error() {
    let cfg = EncapConfig::DEFAULT;
    let meta = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L1,
    });
    let mut typed = 0;
    for (name, bytes) in samples() {
        let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
        // Every byte of outer L4 + tunnel header + inner headers, and the whole
        // inner packet short of its last byte.
        for cut in outer.l4..bytes.len() {
            // 1. The buffer simply ends early: the outer parse fails (wire's
            //    error), or decap is given layers that do not fit -> BadContext.
            let short = &bytes[..cut];
            assert!(
                wire::parse(short, LinkType::Ethernet).is_err(),
                "{name} cut {cut}"
            );
            let r = decap(short, &outer, outer.l3, meta.clone(), &cfg).unwrap_err();
            assert!(
                matches!(r.error, DecapError::BadContext { .. }),
                "{name} cut {cut}: {:?}",
                r.error
            );
            assert_eq!(r.meta, meta);

            // 2. Lengths rewritten so the outer packet is self-consistent but
            //    ends inside a tunnel or inner header (or the inner payload).
            let b = cut_consistently(&bytes, cut);
            let Ok(o2) = wire::parse(&b, LinkType::Ethernet) else {
                continue; // the outer UDP / GRE header itself is cut: wire's error
            };
            let r = decap(&b, &o2, o2.l3, meta.clone(), &cfg).unwrap_err();
            assert_eq!(r.meta, meta);
            match r.error {
                DecapError::Header(e) => {
                    assert!(e.offset <= cut, "{name} cut {cut}: {e:?}");
                    assert!(
                        matches!(
                            e.kind,
                            ErrorKind::Truncated { .. } | ErrorKind::LengthBeyondBuffer { .. }
                        ),
                        "{name} cut {cut}: {e:?}"
                    );
                    typed += 1;
                }
                other => panic!("{name} cut {cut}: {other:?}"),
            }
            let r = decap_nested(&b, &o2, o2.l3, meta.clone(), &cfg).unwrap_err();
            assert!(matches!(r.error, DecapError::Header(_)));
        }
    }
    assert!(typed > 500, "{typed}");
}

fn vxlan_sample() -> (Vec<u8>, wire::Layers) {
    let inner = eth_tcp(false, None, b"x");
    let b = wrap(
        &Outer {
            wrap: Wrap::Vxlan,
            v6: false,
            csum: false,
            vlan: None,
            inner_eth: true,
        },
        &inner,
    );
    let l = wire::parse(&b, LinkType::Ethernet).unwrap();
    (b, l)
}

fn header_err(b: &[u8], l: &wire::Layers, cfg: &EncapConfig) -> DecapError {
    decap(b, l, l.l3, CsumMeta::NONE, cfg).unwrap_err().error
}

#[test]
fn invalid_tunnel_fields_name_the_field() {
    let cfg = EncapConfig::DEFAULT;
    // VXLAN without the I flag.
    let (mut b, l) = vxlan_sample();
    b[l.l4 + 8] = 0;
    let e = header_err(&b, &l, &cfg);
    assert!(
        matches!(e, DecapError::Header(p) if p.layer == Layer::Vxlan && p.field == Field::VxlanFlags && p.offset == l.l4 + 8),
        "{e:?}"
    );
    // VXLAN reserved bits are ignored on receipt (RFC 7348 5).
    let (mut b, l) = vxlan_sample();
    b[l.l4 + 8] = 0xFF;
    b[l.l4 + 15] = 0xFF;
    assert!(decap(&b, &l, l.l3, CsumMeta::NONE, &cfg).is_ok());

    let geneve = |opts: Vec<u8>, inner_eth: bool| {
        let inner = if inner_eth {
            eth_tcp(false, None, b"g")
        } else {
            ip_tcp(false, b"g")
        };
        let b = wrap(
            &Outer {
                wrap: Wrap::Geneve(opts),
                v6: false,
                csum: false,
                vlan: None,
                inner_eth,
            },
            &inner,
        );
        let l = wire::parse(&b, LinkType::Ethernet).unwrap();
        (b, l)
    };
    // GENEVE version 1.
    let (mut b, l) = geneve(Vec::new(), true);
    b[l.l4 + 8] |= 0x40;
    let e = header_err(&b, &l, &cfg);
    assert!(
        matches!(e, DecapError::Header(p) if p.field == Field::GeneveVersion),
        "{e:?}"
    );
    // GENEVE option length beyond the packet.
    let (mut b, l) = geneve(Vec::new(), true);
    b[l.l4 + 8] = 0x3F;
    let e = header_err(&b, &l, &cfg);
    assert!(
        matches!(e, DecapError::Header(p) if p.field == Field::GeneveOptLength),
        "{e:?}"
    );
    // An option whose own length overruns the option area.
    let (b, l) = geneve(vec![0, 1, 2, 5, 0, 0, 0, 0], true);
    let e = header_err(&b, &l, &cfg);
    assert!(
        matches!(e, DecapError::Header(p) if p.field == Field::GeneveOption),
        "{e:?}"
    );
    // Critical options refused unless accepted.
    let (mut b, l) = geneve(Vec::new(), true);
    b[l.l4 + 9] |= 0x40;
    assert_eq!(
        header_err(&b, &l, &cfg),
        DecapError::CriticalOptions { offset: l.l4 + 8 }
    );
    let accept = EncapConfig {
        geneve_accept_critical: true,
        ..cfg
    };
    let d = decap(&b, &l, l.l3, CsumMeta::NONE, &accept).unwrap();
    assert!(d.tunnel.geneve.unwrap().critical);
    // Unknown protocol type.
    let (mut b, l) = geneve(Vec::new(), false);
    b[l.l4 + 10..l.l4 + 12].copy_from_slice(&0x88BEu16.to_be_bytes());
    let e = header_err(&b, &l, &cfg);
    assert!(
        matches!(e, DecapError::Header(p) if p.layer == Layer::Geneve && p.field == Field::EtherType),
        "{e:?}"
    );

    let gre = || {
        let b = wrap(
            &Outer {
                wrap: Wrap::Gre { key: None },
                v6: false,
                csum: false,
                vlan: None,
                inner_eth: false,
            },
            &ip_tcp(false, b"q"),
        );
        let l = wire::parse(&b, LinkType::Ethernet).unwrap();
        (b, l)
    };
    // GRE version 1 (PPTP) is not a tunnel we decapsulate.
    let (mut b, l) = gre();
    b[l.l4..l.l4 + 4].copy_from_slice(&[0x30, 0x81, 0x88, 0x0B]);
    b.extend_from_slice(&[0; 8]);
    let b2 = cut_consistently(&b, b.len());
    let l2 = wire::parse(&b2, LinkType::Ethernet).unwrap();
    let e = header_err(&b2, &l2, &cfg);
    assert!(
        matches!(e, DecapError::Header(p) if p.layer == Layer::Gre && p.field == Field::GreVersion),
        "{e:?}"
    );
    // GRE routing bit.
    let (mut b, l) = gre();
    b[l.l4] = 0x40;
    let e = decap(&b, &l, l.l3, CsumMeta::NONE, &cfg).unwrap_err().error;
    assert!(
        matches!(e, DecapError::Header(p) if p.field == Field::GreFlags),
        "{e:?}"
    );
    // GRE carrying an unknown protocol.
    let (mut b, l) = gre();
    b[l.l4 + 2..l.l4 + 4].copy_from_slice(&0x880Bu16.to_be_bytes());
    let e = header_err(&b, &l, &cfg);
    assert!(
        matches!(e, DecapError::Header(p) if p.field == Field::EtherType),
        "{e:?}"
    );
    // An inner header that is not IPv4 although GRE says so.
    let (mut b, l) = gre();
    b[l.payload] = 0x65;
    let e = header_err(&b, &l, &cfg);
    assert!(
        matches!(e, DecapError::Header(p) if p.field == Field::Version && p.offset == l.payload),
        "{e:?}"
    );

    // An outer fragment.
    let (mut b, _) = vxlan_sample();
    b[14 + 6] = 0x20; // MF
    b[14 + 10] = 0;
    b[14 + 11] = 0;
    let c = !naive_sum(&b[14..34], 0);
    b[24..26].copy_from_slice(&c.to_be_bytes());
    let l = wire::parse(&b, LinkType::Ethernet).unwrap();
    assert_eq!(
        header_err(&b, &l, &cfg),
        DecapError::OuterFragment { offset: 14 }
    );

    // A current-layer offset outside the outer packet.
    let (b, l) = vxlan_sample();
    assert!(matches!(
        decap(&b, &l, l.l4 + 1, CsumMeta::NONE, &cfg)
            .unwrap_err()
            .error,
        DecapError::BadContext { .. }
    ));
    // Not a tunnel at all.
    let plain = eth_tcp(false, None, b"plain");
    let pl = wire::parse(&plain, LinkType::Ethernet).unwrap();
    assert_eq!(header_err(&plain, &pl, &cfg), DecapError::NotTunnel);
    let n = decap_nested(&plain, &pl, pl.l3, CsumMeta::NONE, &cfg).unwrap();
    assert!(n.steps.is_empty());
    assert_eq!(n.inner, pl);
}

#[test]
fn arbitrary_bytes_after_a_valid_outer_never_panic() {
    // Random tunnel + inner bytes behind valid outer headers.
    let cfg = EncapConfig {
        geneve_accept_critical: true,
        ..EncapConfig::DEFAULT
    };
    let mut seed = 0x1234_5678u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for round in 0..4000 {
        let len = (next() % 120) as usize;
        let junk: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let kinds = [
            Wrap::Vxlan,
            Wrap::Geneve(Vec::new()),
            Wrap::Gre { key: None },
            Wrap::IpIp,
        ];
        let w = kinds[round % 4].clone();
        let mut b = wrap(
            &Outer {
                wrap: w,
                v6: round % 8 >= 4,
                csum: false,
                vlan: None,
                inner_eth: false,
            },
            &[0x45],
        );
        let outer0 = wire::parse(&b, LinkType::Ethernet).unwrap();
        let l4 = outer0.l4;
        // Keep the outer L4 header and overwrite the rest with junk.
        let keep = match round % 4 {
            0 | 1 => l4 + 8,
            2 => l4 + 4,
            _ => l4,
        };
        b.truncate(keep.min(b.len()));
        b.extend_from_slice(&junk);
        let b = fix_lengths(&b, &outer0);
        if let Ok(o) = wire::parse(&b, LinkType::Ethernet) {
            for meta in [
                CsumMeta::NONE,
                CsumMeta::from_state(CsumState::Unnecessary {
                    level: CsumLevel::L0,
                }),
            ] {
                let _ = decap(&b, &o, o.l3, meta.clone(), &cfg);
                let _ = decap_nested(&b, &o, o.l3, meta, &cfg);
            }
        }
    }
}
