//! No panic on any input: arbitrary bytes, arbitrary (inconsistent) layer
//! offsets, metadata and requests go through every tx entry point.
use netoffload::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use netoffload::tx::{self, Device, Features, Fill, FillReason, GsoInfo, SegmentCsum, TxAction};
use netoffload::wire::{Fragment, GsoType, Layers, LinkType, Net, Transport};
use proptest::prelude::*;

fn offset() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..200,
        Just(usize::MAX),
        Just(usize::MAX - 1),
        0usize..70000
    ]
}

prop_compose! {
    fn any_layers()(
        o in prop::collection::vec(offset(), 7),
        v6 in any::<bool>(), t in 0u8..8, frag in any::<bool>(),
    ) -> Layers {
        let transport = [Transport::Tcp, Transport::Udp, Transport::Sctp, Transport::Icmp,
            Transport::Icmpv6, Transport::Gre, Transport::Ipip, Transport::Other(99)][t as usize];
        Layers {
            link: LinkType::Ethernet,
            l2: 0,
            vlan_count: 0,
            vlan_tci: [0; 2],
            l3: o[0],
            net: if v6 { Net::Ipv6 } else { Net::Ipv4 },
            l4: o[1],
            ip_proto: 6,
            transport,
            payload: o[2],
            end: o[3],
            fragment: Fragment { is_fragment: frag, ..Default::default() },
            pseudo_src: o[4],
            pseudo_dst: o[5],
        }
    }
}

fn any_meta() -> impl Strategy<Value = CsumMeta> {
    (0u8..4, offset(), offset(), any::<bool>(), any::<bool>()).prop_map(|(s, a, b, crc, blank)| {
        let state = match s {
            0 => CsumState::None,
            1 => CsumState::Unnecessary {
                level: CsumLevel::L1,
            },
            2 => CsumState::Complete {
                csum: netoffload::csum::Wsum::new(a as u32),
            },
            _ => CsumState::Partial {
                start: a,
                offset: b,
                kind: if crc {
                    PartialKind::Crc32c
                } else {
                    PartialKind::Inet
                },
            },
        };
        let flags = if blank {
            CsumFlags::CSUM_BLANK
        } else {
            CsumFlags::empty()
        };
        CsumMeta::new(state, flags).unwrap_or(CsumMeta::from_state(state))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_panic_anywhere(
        mut frame in prop::collection::vec(any::<u8>(), 0..400),
        layers in any_layers(), inner in any_layers(), meta in any_meta(),
        gso_size in any::<u16>(), gso_bits in any::<u32>(), feat in any::<u32>(),
        fill_start in offset(), fill_off in offset(), crc in any::<bool>(),
    ) {
        let gso = GsoInfo::new(gso_size, GsoType::from_bits_truncate(gso_bits));
        let dev = Device::new(Features::from_bits_truncate(feat));
        let _ = tx::decide(&meta, &layers, None, &dev);
        let _ = tx::decide(&meta, &layers, Some(gso), &dev);
        let mut store = vec![vec![0u8; 300]; 4];
        for csum in [SegmentCsum::Partial, SegmentCsum::Compute] {
            let mut refs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
            let _ = tx::segment(&frame, &layers, gso, csum, &mut refs);
            let _ = tx::segment_tunnel(&frame, &layers, &inner, gso, csum, &mut refs);
            if let Ok(p) = tx::plan(&frame, &layers, gso, csum) {
                let _ = tx::segment_one(&frame[..frame.len() / 2], &p, 0, &mut store[0]);
            }
        }
        let f = TxAction::FillSoftware(Fill {
            start: fill_start,
            offset: fill_off,
            kind: if crc { PartialKind::Crc32c } else { PartialKind::Inet },
            reason: FillReason::NoChecksumFeature,
        });
        let _ = tx::fill_software(&mut frame, &layers, meta, &f);
    }
}

/// A real packet's layers with one offset nudged: passes the cheap checks
/// more often, so the deeper code runs on inconsistent input.
fn real_tcp() -> Vec<u8> {
    let b = etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([192, 0, 2, 1], [198, 51, 100, 7], 64)
        .tcp(1, 2, 3, 4);
    let mut out = Vec::new();
    b.write(&mut out, &[7u8; 300]).unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_panic_on_nudged_layers(
        which in 0usize..6, delta in -80isize..80, cut in 0usize..400, gso_size in 0u16..400,
        gso_bits in any::<u32>(), udp in any::<bool>(), meta in any_meta(), feat in any::<u32>(),
    ) {
        let mut frame = real_tcp();
        let mut l = netoffload::wire::parse(&frame, LinkType::Ethernet).unwrap();
        if udp { l.transport = Transport::Udp; }
        let field = match which {
            0 => &mut l.l3, 1 => &mut l.l4, 2 => &mut l.payload, 3 => &mut l.end,
            4 => &mut l.pseudo_src, _ => &mut l.pseudo_dst,
        };
        *field = field.saturating_add_signed(delta);
        frame.truncate(cut.max(1).min(frame.len()));
        let gso = GsoInfo::new(gso_size, GsoType::from_bits_truncate(gso_bits) | GsoType::TCPV4);
        let dev = Device::new(Features::from_bits_truncate(feat));
        let _ = tx::decide(&meta, &l, Some(gso), &dev);
        if let Ok(a) = tx::decide(&meta, &l, None, &dev) {
            let _ = tx::fill_software(&mut frame, &l, meta.clone(), &a);
        }
        let mut store = vec![vec![0u8; 400]; 8];
        let mut refs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
        let _ = tx::segment(&frame, &l, gso, SegmentCsum::Compute, &mut refs);
        let _ = tx::segment_tunnel(&frame, &l, &l, gso, SegmentCsum::Partial, &mut refs);
    }
}
