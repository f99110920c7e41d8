//! Tunnelled segmentation (VXLAN, GENEVE, GRE; outer IPv4/IPv6; outer checksum
//! on or off): a super-packet built from N tunnelled segments the way GRO
//! leaves it re-splits into the originals byte for byte.
mod tx_support;

use netoffload::tx::{self, GsoInfo, GsoType, SegmentCsum, TunnelField, TxError};
use netoffload::wire::{self, LinkType, consts::ethertype};
use proptest::prelude::*;
use tx_support::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tun {
    Vxlan { v6: bool, csum: bool },
    Geneve,
    Gre { csum: bool, key: bool },
}

const OUTER_SRC4: [u8; 4] = [10, 0, 0, 1];
const OUTER_DST4: [u8; 4] = [10, 0, 0, 2];

/// Outer headers for one tunnelled packet around `inner` (an Ethernet frame),
/// with every length and checksum filled naively.
fn wrap(t: Tun, outer_id: u16, inner: &[u8]) -> Vec<u8> {
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

fn gso_type(t: Tun, inner_v6: bool) -> GsoType {
    let inner = if inner_v6 {
        GsoType::TCPV6
    } else {
        GsoType::TCPV4
    };
    inner
        | match t {
            Tun::Vxlan { csum: false, .. } => GsoType::UDP_TUNNEL,
            Tun::Vxlan { csum: true, .. } | Tun::Geneve => GsoType::UDP_TUNNEL_CSUM,
            Tun::Gre { csum: false, .. } => GsoType::GRE,
            Tun::Gre { csum: true, .. } => GsoType::GRE_CSUM,
        }
}

/// Inner layers of a tunnelled frame (offsets in the same frame).
fn inner_layers(t: Tun, frame: &[u8], outer: &wire::Layers) -> wire::Layers {
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

fn payload_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as u8
        })
        .collect()
}

struct Case {
    originals: Vec<Vec<u8>>,
    sup: Vec<u8>,
    gso: GsoInfo,
}

#[allow(clippy::too_many_arguments)]
fn case(
    t: Tun,
    inner_v6: bool,
    n: usize,
    mss: usize,
    last: usize,
    id: u16,
    oid: u16,
    seed: u64,
) -> Case {
    let data = payload_bytes(seed, (n - 1) * mss + last);
    let inner: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            tcp_segment(&Seg {
                v6: inner_v6,
                id: id.wrapping_add(i as u16),
                df: true,
                seq: 1000 + (i * mss) as u32,
                ack: 5,
                psh: i + 1 == n,
                fin: false,
                cwr: false,
                ts: true,
                payload: data[i * mss..((i + 1) * mss).min(data.len())].to_vec(),
            })
        })
        .collect();
    for f in &inner {
        assert_eq!(verify_frame(f), Verdict::Good);
    }
    let originals: Vec<Vec<u8>> = inner
        .iter()
        .enumerate()
        .map(|(i, f)| wrap(t, oid.wrapping_add(i as u16), f))
        .collect();
    // The super-packet: outer headers of the first, around GRO's inner super-packet.
    let sup = wrap(t, oid, &gro_super(&inner));
    Case {
        originals,
        sup,
        gso: GsoInfo::new(mss as u16, gso_type(t, inner_v6)),
    }
}

fn tun_strategy() -> impl Strategy<Value = Tun> {
    prop_oneof![
        (any::<bool>(), any::<bool>()).prop_map(|(v6, csum)| Tun::Vxlan { v6, csum }),
        Just(Tun::Geneve),
        (any::<bool>(), any::<bool>()).prop_map(|(csum, key)| Tun::Gre { csum, key }),
    ]
}

fn split(c: &Case, t: Tun, csum: SegmentCsum) -> (tx::Segments, Vec<Vec<u8>>) {
    let outer = wire::parse(&c.sup, LinkType::Ethernet).unwrap();
    let inner = inner_layers(t, &c.sup, &outer);
    let mut store = vec![vec![0u8; 2000]; c.originals.len()];
    let mut refs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
    let p = tx::segment_tunnel(&c.sup, &outer, &inner, c.gso, csum, &mut refs).unwrap();
    let out = (0..p.count())
        .map(|i| store[i][..p.len_of(i).unwrap()].to_vec())
        .collect();
    (p, out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn tunnelled_super_packet_resplits_byte_for_byte(
        t in tun_strategy(), inner_v6 in any::<bool>(), n in 2usize..6, mss in 1usize..1300,
        last_frac in 1usize..=100, id in any::<u16>(), oid in any::<u16>(), seed in any::<u64>(),
    ) {
        let last = (mss * last_frac).div_ceil(100).max(1);
        let c = case(t, inner_v6, n, mss, last, id, oid, seed);
        let (p, out) = split(&c, t, SegmentCsum::Compute);
        prop_assert_eq!(p.count(), n);
        for (i, (got, want)) in out.iter().zip(&c.originals).enumerate() {
            prop_assert_eq!(got, want, "segment {}", i);
        }
    }

    /// Partial inner checksums with the outer checksum already computed from
    /// the headers (LCO): once the device finishes the inner one, every byte
    /// matches.
    #[test]
    fn partial_inner_with_lco_outer_matches_after_device(
        t in tun_strategy(), inner_v6 in any::<bool>(), n in 2usize..5, mss in 8usize..1300,
        id in any::<u16>(), oid in any::<u16>(), seed in any::<u64>(),
    ) {
        let c = case(t, inner_v6, n, mss, mss, id, oid, seed);
        let (p, out) = split(&c, t, SegmentCsum::Partial);
        let netoffload::state::CsumState::Partial { start, offset, .. } = p.state() else {
            panic!("not partial")
        };
        for (mut got, want) in out.into_iter().zip(&c.originals) {
            let end = got.len();
            device_fill(&mut got, start, offset, end);
            prop_assert_eq!(&got, want);
        }
    }
}

#[test]
fn tunnel_refusals() {
    let t = Tun::Gre {
        csum: true,
        key: false,
    };
    let c = case(t, false, 3, 500, 500, 1, 1, 7);
    let outer = wire::parse(&c.sup, LinkType::Ethernet).unwrap();
    let inner = inner_layers(t, &c.sup, &outer);
    let plan = |gso_type: GsoType, outer: &wire::Layers, inner: &wire::Layers| {
        tx::plan_tunnel(
            &c.sup,
            outer,
            inner,
            GsoInfo::new(500, gso_type),
            SegmentCsum::Compute,
        )
        .err()
    };
    // C bit set but GRE_CSUM not asked.
    assert_eq!(
        plan(GsoType::TCPV4 | GsoType::GRE, &outer, &inner),
        Some(TxError::TunnelMismatch {
            field: TunnelField::GreChecksumBit
        })
    );
    // UDP tunnel type on a GRE packet.
    assert_eq!(
        plan(GsoType::TCPV4 | GsoType::UDP_TUNNEL_CSUM, &outer, &inner),
        Some(TxError::TunnelMismatch {
            field: TunnelField::OuterTransport
        })
    );
    assert_eq!(
        plan(
            GsoType::TCPV4 | GsoType::UDP_TUNNEL | GsoType::GRE_CSUM,
            &outer,
            &inner
        ),
        Some(TxError::TunnelMismatch {
            field: TunnelField::Type
        })
    );
    assert_eq!(
        plan(GsoType::TCPV4, &outer, &inner),
        Some(TxError::TunnelLayersMissing {
            gso_type: GsoType::TCPV4
        })
    );
    // Inner TCPV6 on an IPv4 inner packet.
    assert!(matches!(
        plan(GsoType::TCPV6 | GsoType::GRE_CSUM, &outer, &inner),
        Some(TxError::GsoTypeMismatch { .. })
    ));
    // Inner that ends before the outer.
    let mut short = inner;
    short.end -= 1;
    assert_eq!(
        plan(GsoType::TCPV4 | GsoType::GRE_CSUM, &outer, &short),
        Some(TxError::TunnelMismatch {
            field: TunnelField::InnerBounds
        })
    );
    // A tunnel type through the plain `plan`.
    assert_eq!(
        tx::plan(
            &c.sup,
            &outer,
            GsoInfo::new(500, GsoType::TCPV4 | GsoType::GRE_CSUM),
            SegmentCsum::Compute
        )
        .err(),
        Some(TxError::TunnelLayersMissing {
            gso_type: GsoType::TCPV4 | GsoType::GRE_CSUM
        })
    );
    // Nothing written on a refused tunnel segmentation (buffer too small).
    let mut store = vec![vec![0xAAu8; 100]; 3];
    let mut refs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
    let r = tx::segment_tunnel(
        &c.sup,
        &outer,
        &inner,
        c.gso,
        SegmentCsum::Compute,
        &mut refs,
    );
    assert!(matches!(r, Err(TxError::BufferTooSmall { index: 0, .. })));
    assert!(store.iter().all(|b| b.iter().all(|&x| x == 0xAA)));
}
