//! Tunnelled segmentation (VXLAN, GENEVE, GRE; outer IPv4/IPv6; outer checksum
//! on or off): a super-packet built from N tunnelled segments the way GRO
//! leaves it re-splits into the originals byte for byte.
use crate::support;
use crate::support::tx as tx_support;

use netoffload::tx::{self, GsoInfo, SegmentCsum, TunnelField, TxError};
use netoffload::wire::{self, GsoType, LinkType};
use proptest::prelude::*;
use support::oracle::{self, Link, View};
use tx_support::tunnel::{Tun, inner_layers, wrap};
use tx_support::*;

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
            // The shared oracle walks the tunnel: outer UDP/GRE and inner TCP checksums.
            prop_assert!(oracle::all_correct(got, Link::Ethernet), "oracle: segment {}", i);
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
        let meta = netoffload::state::CsumMeta::from_state(p.state());
        for (mut got, want) in out.into_iter().zip(&c.originals) {
            let view = View { bytes: &got, link: Link::Ethernet, cur: 0, levels_from: 0, l4: start };
            prop_assert_eq!(oracle::check(&view, &meta), Ok(()));
            let end = got.len();
            device_fill(&mut got, start, offset, end);
            prop_assert_eq!(&got, &as_device_writes(want, start + offset));
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
