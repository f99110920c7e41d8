//! The two rooms together: N wire segments go through the GRO engine, its
//! super-packet descriptor is written out (`SuperPacket::write_into`), the
//! transmit decision for a device without TSO says "segment", and software
//! segmentation gives back the N original segments byte for byte, plain and
//! tunnelled, with incrementing or fixed IPv4 IDs.
use crate::support::tx as tx_support;

use netoffload::gro::{Gro, GroConfig, SuperPacket};
use netoffload::state::CsumMeta;
use netoffload::tx::{self, Device, Features, GsoInfo, SegmentCsum, TxAction};
use netoffload::wire::{self, LinkType};
use proptest::prelude::*;
use tx_support::tunnel::{Tun, inner_layers, wrap};
use tx_support::*;

/// Feeds the frames to a fresh engine and returns what it flushed.
fn coalesce(frames: &[Vec<u8>]) -> Vec<SuperPacket> {
    let mut gro = Gro::<8>::new(GroConfig::new());
    let mut out = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        // The verdict (held / merged / passed up) is the GRO room's to test.
        let _ = gro.receive(f, i as u32, CsumMeta::NONE, 0, &mut |sp: &SuperPacket| {
            out.push(sp.clone())
        });
    }
    gro.flush_all(&mut |sp: &SuperPacket| out.push(sp.clone()));
    out
}

#[derive(Debug, Clone, Copy)]
struct Case {
    v6: bool,
    tun: Option<Tun>,
    n: usize,
    mss: usize,
    last: usize,
    fixed_inner: bool,
    fixed_outer: bool,
    ts: bool,
    seed: u64,
}

fn originals(c: &Case) -> Vec<Vec<u8>> {
    let d = payload_bytes(c.seed, (c.n - 1) * c.mss + c.last);
    (0..c.n)
        .map(|i| {
            let inner = tcp_segment(&Seg {
                v6: c.v6,
                id: if c.fixed_inner {
                    777
                } else {
                    777u16.wrapping_add(i as u16)
                },
                df: true,
                seq: 9_000 + (i * c.mss) as u32,
                ack: 3,
                psh: i + 1 == c.n,
                fin: false,
                cwr: false,
                ts: c.ts,
                payload: d[i * c.mss..((i + 1) * c.mss).min(d.len())].to_vec(),
            });
            match c.tun {
                None => inner,
                Some(t) => {
                    let oid = if c.fixed_outer {
                        50
                    } else {
                        50u16.wrapping_add(i as u16)
                    };
                    wrap(t, oid, &inner)
                }
            }
        })
        .collect()
}

fn round_trip(c: &Case) -> Result<(), TestCaseError> {
    let segs = originals(c);
    let supers = coalesce(&segs);
    prop_assert_eq!(supers.len(), 1, "GRO made one super-packet");
    let sp = &supers[0];
    prop_assert_eq!(sp.seg_count() as usize, c.n);
    let mut buf = vec![0u8; sp.len()];
    sp.write_into(&mut buf, |id| segs.get(id as usize).map(|v| v.as_slice()))
        .unwrap();
    let gso = GsoInfo::new(sp.gso_size(), sp.gso_type());
    let outer = wire::parse(&buf, LinkType::Ethernet).unwrap();
    // A device without TSO: the decision is to segment in software.
    let a = tx::decide(
        &sp.meta(),
        &outer,
        Some(gso),
        &Device::new(Features::empty()),
    )
    .unwrap();
    let TxAction::Segment { gso, csum, .. } = a else {
        return Err(TestCaseError::fail(format!("not a Segment: {a:?}")));
    };
    prop_assert_eq!(csum, SegmentCsum::Compute);
    let mut store = vec![vec![0u8; 2000]; c.n];
    let mut refs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
    let p = match c.tun {
        None => tx::segment(&buf, &outer, gso, csum, &mut refs),
        Some(t) => {
            let inner = inner_layers(t, &buf, &outer);
            tx::segment_tunnel(&buf, &outer, &inner, gso, csum, &mut refs)
        }
    }
    .map_err(|e| TestCaseError::fail(format!("{e} ({:?})", sp.gso_type())))?;
    prop_assert_eq!(p.count(), c.n);
    for (i, want) in segs.iter().enumerate() {
        prop_assert_eq!(
            &store[i][..p.len_of(i).unwrap()],
            want.as_slice(),
            "segment {}",
            i
        );
    }
    Ok(())
}

fn tun() -> impl Strategy<Value = Option<Tun>> {
    prop_oneof![
        Just(None),
        (any::<bool>(), any::<bool>()).prop_map(|(v6, csum)| Some(Tun::Vxlan { v6, csum })),
        Just(Some(Tun::Geneve)),
        (any::<bool>(), any::<bool>()).prop_map(|(csum, key)| Some(Tun::Gre { csum, key })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn gro_then_segment_gives_back_the_wire_segments(
        v6 in any::<bool>(), tun in tun(), n in 2usize..8, mss in 100usize..1400,
        last_frac in 1usize..=100, fixed_inner in any::<bool>(), fixed_outer in any::<bool>(),
        ts in any::<bool>(), seed in any::<u64>(),
    ) {
        let last = (mss * last_frac).div_ceil(100).max(1);
        let c = Case { v6, tun, n, mss, last, fixed_inner, fixed_outer, ts, seed };
        round_trip(&c)?;
    }
}
