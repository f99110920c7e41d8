//! The fixed-offset fast path against the general path: two engines, one
//! with the fast path switched off, fed the same stream of mixed frames
//! (mergeable segments and every kind of deviation), must give identical
//! verdicts, super-packets and counters.
extern crate std;

use std::vec::Vec;

use proptest::prelude::*;

use super::engine::{BurstFrame, Gro, HEADER_AHEAD};
use super::{DEFAULT_MAX_SIZE, GroConfig, SoftwareVerify, SuperPacket};
use crate::csum::{self, Wsum};
use crate::state::{CsumLevel, CsumMeta, CsumState};

/// Ones-complement sum of big-endian 16-bit words (independent of `csum`).
fn sum16(data: &[u8]) -> u32 {
    data.chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32)
        .sum()
}

fn fold(mut s: u32) -> u16 {
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}

/// What one frame of the stream looks like.
#[derive(Clone, Copy, Debug)]
struct Spec {
    flow: u8,
    gap: bool,
    id_mode: u8,
    len: u16,
    flags: u8,
    mutate: u8,
    state: u8,
    vx: bool,
}

/// A full-size, unflagged, unmutated segment of flow 0: the directed tests
/// change one field of it.
fn bulk(id_mode: u8, state: u8, vx: bool) -> Spec {
    Spec {
        flow: 0,
        gap: false,
        id_mode,
        len: 1448,
        flags: 0x10,
        mutate: 0,
        state,
        vx,
    }
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        0u8..4,
        prop::bool::weighted(0.05),
        0u8..3,
        prop::sample::select(std::vec![1448u16, 1448, 1448, 1448, 600, 0, 1449, 7]),
        prop::sample::select(std::vec![
            0x10u8, 0x10, 0x10, 0x10, 0x10, 0x18, 0x11, 0x12, 0x14, 0x30, 0x90, 0x50
        ]),
        prop::sample::select(std::vec![
            0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
            12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 10, 21, 22
        ]),
        0u8..4,
        prop::bool::ANY,
    )
        .prop_map(|(flow, gap, id_mode, len, flags, mutate, state, vx)| Spec {
            flow,
            gap,
            id_mode,
            len,
            flags,
            mutate,
            state,
            vx,
        })
}

#[derive(Default, Clone, Copy)]
struct FlowState {
    seq: u32,
    id: u16,
}

/// Builds the frame of `s` for its flow's next segment (and advances it).
fn frame(s: Spec, st: &mut FlowState, salt: u8) -> (Vec<u8>, CsumMeta) {
    let opts: &[u8] = match s.mutate {
        7 => &[],
        6 => &[1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 2],
        // Longer than the prediction's two option words: the rules compare them.
        22 => &[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 4, 2, 1, 1, 1, 1],
        _ => &[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2],
    };
    let ip_opts: &[u8] = if s.mutate == 8 { &[1, 1, 1, 0] } else { &[] };
    let len = s.len as usize;
    let ihl = 20 + ip_opts.len();
    let tcp_len = 20 + opts.len() + len;
    let mut ip = std::vec![0u8; 20];
    ip[0] = 0x40 | (ihl / 4) as u8;
    ip[1] = if s.mutate == 2 { 0x10 } else { 0 };
    ip[2..4].copy_from_slice(&((ihl + tcp_len) as u16).to_be_bytes());
    let id = match s.id_mode {
        0 => st.id,
        1 => 77,
        // 77 + 1 and 77 + 2: after fixed-ID segments, the ID of an
        // incrementing run (a break for a fixed flow).
        3 => 78,
        4 => 79,
        _ => salt as u16 * 31,
    };
    ip[4..6].copy_from_slice(&id.to_be_bytes());
    ip[6] = match s.mutate {
        3 => 0,
        9 => 0x60,
        // The reserved bit (checksum still good): not compared, not a flush.
        20 => 0xC0,
        _ => 0x40,
    };
    ip[8] = if s.mutate == 1 { 63 } else { 64 };
    ip[9] = 6;
    ip[12..16].copy_from_slice(&[10, 0, s.flow, 1]);
    ip[16..20].copy_from_slice(&[10, 0, 0, 2]);
    ip.extend_from_slice(ip_opts);
    let c = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    if s.mutate == 10 || (s.mutate == 21 && !s.vx) {
        ip[10] ^= 0x40;
    }
    let seq = if s.gap {
        st.seq.wrapping_add(100)
    } else {
        st.seq
    };
    let mut t = std::vec![0u8; 20];
    t[0..2].copy_from_slice(&(40000u16 + s.flow as u16).to_be_bytes());
    t[2..4].copy_from_slice(&80u16.to_be_bytes());
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&(if s.mutate == 5 { 2u32 } else { 1 }).to_be_bytes());
    t[12] = (((20 + opts.len()) / 4) as u8) << 4 | if s.mutate == 14 { 1 } else { 0 };
    t[13] = s.flags;
    t[14..16].copy_from_slice(&(if s.mutate == 4 { 511u16 } else { 512 }).to_be_bytes());
    t.extend_from_slice(opts);
    t.extend((0..len).map(|i| (i as u8) ^ salt));
    let ps = sum16(&ip[12..20]) + 6 + tcp_len as u32;
    let c = fold(ps + sum16(&t));
    t[16..18].copy_from_slice(&c.to_be_bytes());
    if s.mutate == 11 {
        t[16] ^= 0x01;
    }
    let mac_last = if s.mutate == 15 { 9 } else { 1 };
    let mut f = std::vec![2, 0, 0, 0, 0, mac_last, 2, 0, 0, 0, 0, 2];
    if s.mutate == 12 {
        f.extend_from_slice(&[0x81, 0x00, 0, 5]);
    }
    f.extend_from_slice(&[8, 0]);
    let l3 = f.len();
    f.extend_from_slice(&ip);
    f.extend_from_slice(&t);
    if s.mutate == 13 {
        f.extend_from_slice(&[0; 6]);
    }
    if s.mutate == 16 {
        // Padding on a frame at least 60 bytes long: a length mismatch.
        f.push(0);
    }
    st.seq = seq.wrapping_add(len as u32);
    st.id = st.id.wrapping_add(1);
    let (f, l3) = if s.vx { vxlan(s, &f, id) } else { (f, l3) };
    let meta = match s.state {
        0 => CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        }),
        1 => CsumMeta::NONE,
        3 => CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L1,
        }),
        _ => CsumMeta::from_state(CsumState::Complete {
            csum: csum::partial(&f[l3..], Wsum::ZERO),
        }),
    };
    (f, meta)
}

/// `inner` inside Ethernet / IPv4 / UDP 4789 / VXLAN (outer UDP checksum
/// zero unless mutated); returns the frame and its outer IP offset.
fn vxlan(s: Spec, inner: &[u8], id: u16) -> (Vec<u8>, usize) {
    let mut body = std::vec![0u8; 16];
    body[0..2].copy_from_slice(&(50000u16 + s.flow as u16).to_be_bytes());
    body[2..4].copy_from_slice(&4789u16.to_be_bytes());
    body[4..6].copy_from_slice(&((16 + inner.len()) as u16).to_be_bytes());
    body[8] = 0x08;
    let vni: u32 = if s.mutate == 18 { 43 } else { 42 };
    body[12..16].copy_from_slice(&(vni << 8).to_be_bytes());
    body.extend_from_slice(inner);
    let mut ip = std::vec![0u8; 20];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&((20 + body.len()) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&id.wrapping_add(7).to_be_bytes());
    ip[6] = 0x40;
    ip[8] = if s.mutate == 19 { 9 } else { 64 };
    ip[9] = 17;
    ip[12..16].copy_from_slice(&[192, 168, 0, 1]);
    ip[16..20].copy_from_slice(&[192, 168, 0, 2]);
    if s.mutate == 17 {
        let ps = sum16(&ip[12..20]) + 17 + body.len() as u32;
        let c = fold(ps + sum16(&body));
        body[6..8].copy_from_slice(&c.to_be_bytes());
    }
    let c = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    if s.mutate == 21 {
        // A bad outer header checksum (the inner one is good).
        ip[11] ^= 0x01;
    }
    let mut f = std::vec![2, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 4, 8, 0];
    f.extend_from_slice(&ip);
    f.extend_from_slice(&body);
    (f, 14)
}

/// What leaves the engine, comparably.
#[derive(Debug, PartialEq)]
enum Out {
    Super {
        header: Vec<u8>,
        segs: Vec<(u32, usize, usize)>,
        gso_size: u16,
        gso: u32,
        reason: std::string::String,
        meta: std::string::String,
    },
    Disposition(std::string::String),
}

fn record(out: &mut Vec<Out>, sp: &SuperPacket) {
    out.push(Out::Super {
        header: sp.header().to_vec(),
        segs: sp
            .segments()
            .iter()
            .map(|s| (s.id, s.range().start, s.range().end))
            .collect(),
        gso_size: sp.gso_size(),
        gso: sp.gso_type().bits(),
        reason: std::format!("{:?}", sp.reason()),
        meta: std::format!("{:?}", sp.meta()),
    });
}

fn run(
    specs: &[Spec],
    sw: bool,
    max_segs: u16,
    strict: bool,
    fast_off: bool,
) -> (Vec<Out>, std::string::String) {
    let (out, stats, _) = run_counting(specs, sw, max_segs, strict, fast_off, DEFAULT_MAX_SIZE);
    (out, stats)
}

/// [`run`], also returning how many merges the prediction accepted alone.
fn run_counting(
    specs: &[Spec],
    sw: bool,
    max_segs: u16,
    strict: bool,
    fast_off: bool,
    max_size: u32,
) -> (Vec<Out>, std::string::String, u64) {
    run_link(specs, sw, max_segs, strict, fast_off, max_size, false)
}

/// [`run_counting`] on raw IP frames when `raw` (the frames without their
/// first 14 bytes, an L3 TUN's view; VLAN-mutated ones become malformed).
fn run_link(
    specs: &[Spec],
    sw: bool,
    max_segs: u16,
    strict: bool,
    fast_off: bool,
    max_size: u32,
    raw: bool,
) -> (Vec<Out>, std::string::String, u64) {
    let mut cfg = GroConfig::new();
    if raw {
        cfg.link = crate::wire::LinkType::RawIp;
    }
    cfg.max_segs = max_segs;
    cfg.max_size = max_size;
    cfg.flush_age_ticks = 3;
    if strict {
        cfg.tunnel_policy = super::TunnelPolicy::Strict;
    }
    if !sw {
        cfg.software_verify = SoftwareVerify::Off;
    }
    cfg.fast_path = !fast_off;
    let mut g: Gro<3> = Gro::new(cfg);
    let out = feed(&mut g, specs, raw);
    (out, std::format!("{:?}", g.stats()), g.predicted)
}

/// `frames` as a burst, their ids counted from `first`.
fn burst_of(frames: &[(Vec<u8>, CsumMeta)], first: usize) -> Vec<BurstFrame<'_>> {
    (first..)
        .zip(frames)
        .map(|(id, (f, meta))| BurstFrame {
            frame: f,
            id: id as u32,
            meta: meta.clone(),
        })
        .collect()
}

/// Feeds `specs` to `g` as one stream (four frames per tick, aged every
/// nine frames, everything flushed at the end), as raw IP frames when
/// `raw`; every verdict and super-packet in order. The groups of four go
/// in turn through [`Gro::receive_burst`] (which merges trains of one flow
/// on its own: [`Gro::train`]) and through [`Gro::receive`] frame by frame;
/// a group with a ninth frame is aged after it.
fn feed<const N: usize>(g: &mut Gro<N>, specs: &[Spec], raw: bool) -> Vec<Out> {
    let mut flows = [FlowState { seq: 1000, id: 5 }; 4];
    let mut out = Vec::new();
    for (k, group) in specs.chunks(4).enumerate() {
        let first = 4 * k;
        let now = first as u64 / 4;
        let frames: Vec<(Vec<u8>, CsumMeta)> = group
            .iter()
            .enumerate()
            .map(|(j, s)| {
                let (f, meta) = frame(*s, &mut flows[s.flow as usize], (first + j) as u8);
                (if raw { f[14..].to_vec() } else { f }, meta)
            })
            .collect();
        if k % 2 == 0 {
            let burst = burst_of(&frames, first);
            // Both closures write to `out`: the dispositions go after the
            // super-packets their frames flushed, as frame by frame.
            let log = core::cell::RefCell::new(&mut out);
            g.receive_burst(
                &burst,
                now,
                &mut |sp| record(&mut log.borrow_mut(), sp),
                |_, v| {
                    log.borrow_mut()
                        .push(Out::Disposition(std::format!("{v:?}")))
                },
            );
        } else {
            for (j, (f, meta)) in frames.into_iter().enumerate() {
                let v = g.receive(&f, (first + j) as u32, meta, now, &mut |sp| {
                    record(&mut out, sp)
                });
                out.push(Out::Disposition(std::format!("{v:?}")));
            }
        }
        if (first..first + group.len()).any(|n| n % 9 == 8) {
            g.tick(now, &mut |sp| record(&mut out, sp));
        }
    }
    g.flush_all(&mut |sp| record(&mut out, sp));
    out
}

/// Feeds `specs` ([`feed`]) to a 4-flow engine with the fast paths on, or
/// off when `fast_off`, aged only after the stream's end (every flow is held
/// from tick 0): the verdicts and super-packets, the stats, and the engine
/// (for its test counters).
fn run_held(specs: &[Spec], fast_off: bool) -> (Vec<Out>, std::string::String, Gro<4>) {
    let mut cfg = GroConfig::new();
    cfg.fast_path = !fast_off;
    cfg.flush_age_ticks = 5;
    let mut g: Gro<4> = Gro::new(cfg);
    let out = feed(&mut g, specs, false);
    let stats = std::format!("{:?}", g.stats());
    (out, stats, g)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fast_path_matches_general_path(
        specs in prop::collection::vec(spec(), 1..80),
        sw in prop::bool::weighted(0.8),
        max_segs in prop::sample::select(std::vec![64u16, 64, 5, 1]),
        strict in prop::bool::weighted(0.2),
    ) {
        let fast = run(&specs, sw, max_segs, strict, false);
        let general = run(&specs, sw, max_segs, strict, true);
        prop_assert_eq!(fast, general);
    }

    /// Small size limits: a flow's room for the next full-size segment runs
    /// out (the prediction stops, the rules flush with `Oversize`) alike.
    #[test]
    fn fast_path_matches_general_path_under_small_size_limits(
        specs in prop::collection::vec(spec(), 1..80),
        max_size in prop::sample::select(std::vec![1600u32, 3000, 4600, 6000, 10_000]),
    ) {
        let fast = run_counting(&specs, true, 64, false, false, max_size);
        let general = run_counting(&specs, true, 64, false, true, max_size);
        prop_assert_eq!((fast.0, fast.1), (general.0, general.1));
    }

    /// Raw IP frames (an L3 TUN): the raw TCP/IPv4 fast path and the
    /// general path agree.
    #[test]
    fn raw_ip_fast_path_matches_general_path(
        specs in prop::collection::vec(spec(), 1..80),
        sw in prop::bool::weighted(0.8),
        max_segs in prop::sample::select(std::vec![64u16, 64, 5, 1]),
        max_size in prop::sample::select(std::vec![3000u32, 6000, 65535]),
    ) {
        let fast = run_link(&specs, sw, max_segs, false, false, max_size, true);
        let general = run_link(&specs, sw, max_segs, false, true, max_size, true);
        prop_assert_eq!((fast.0, fast.1), (general.0, general.1));
    }
}

/// A raw-IP bulk stream merges by prediction (the raw fast path is taken)
/// with the general path's results, each checksum state and ID mode.
#[test]
fn raw_bulk_stream_merges_by_prediction() {
    for state in [0u8, 1, 3] {
        for id_mode in [0u8, 1] {
            let specs: Vec<Spec> = (0..10).map(|_| bulk(id_mode, state, false)).collect();
            let (out, stats, predicted) =
                run_link(&specs, true, 64, false, false, DEFAULT_MAX_SIZE, true);
            let (gout, gstats, none) =
                run_link(&specs, true, 64, false, true, DEFAULT_MAX_SIZE, true);
            assert_eq!((&out, &stats), (&gout, &gstats));
            assert_eq!(none, 0, "the general path never predicts");
            assert!(
                predicted >= 8,
                "{state} {id_mode}: {predicted} of 9 merges predicted"
            );
        }
    }
}

/// Every mutation on a mergeable raw-IP segment: fast engine == general.
#[test]
fn raw_each_mutation_on_a_mergeable_segment() {
    for mutate in 0u8..23 {
        for flags in [0x10u8, 0x18, 0x11, 0x12, 0x14, 0x30, 0x90, 0x50] {
            for state in [0u8, 1, 3] {
                let mut specs: Vec<Spec> = (0..4).map(|_| bulk(0, state, false)).collect();
                specs[3].mutate = mutate;
                specs[3].flags = flags;
                specs.push(bulk(0, state, false));
                let fast = run_link(&specs, true, 64, false, false, DEFAULT_MAX_SIZE, true);
                let general = run_link(&specs, true, 64, false, true, DEFAULT_MAX_SIZE, true);
                assert_eq!(
                    (fast.0, fast.1),
                    (general.0, general.1),
                    "mutation {mutate} flags {flags:#x} state {state}"
                );
            }
        }
    }
}

/// The stream above does exercise merges (a property that only ever sees
/// pass-ups would compare nothing interesting).
#[test]
fn plain_stream_merges() {
    let specs: Vec<Spec> = (0..16)
        .map(|i| Spec {
            flow: i % 2,
            gap: false,
            id_mode: 0,
            len: 1448,
            // The last segments end their flows with FIN / PSH merged in.
            flags: match i {
                14 => 0x11,
                15 => 0x18,
                _ => 0x10,
            },
            mutate: 0,
            state: i % 4,
            vx: i % 2 == 1,
        })
        .collect();
    let (out, _) = run(&specs, true, 64, false, false);
    let merged = out
        .iter()
        .filter(|o| matches!(o, Out::Super { segs, .. } if segs.len() > 1))
        .count();
    assert!(merged >= 2, "{out:?}");
    assert_eq!(out, run(&specs, true, 64, false, true).0);
}

/// A segment that would merge but for a bad IPv4 header checksum (plain,
/// inner and outer VXLAN header, every fast-path state): the fast path checks
/// it by arithmetic against the held flow's header, so a merge here would
/// mean that arithmetic is wrong. The general path flushes and passes it up.
#[test]
fn bad_ip_checksum_on_a_mergeable_segment() {
    for (vx, mutate) in [
        (false, 10u8),
        (false, 21),
        (true, 10),
        (true, 21),
        (false, 20),
    ] {
        for state in [0u8, 1, 3] {
            for id_mode in [0u8, 1] {
                let specs: Vec<Spec> = (0..6)
                    .map(|i| Spec {
                        mutate: if i == 3 { mutate } else { 0 },
                        ..bulk(id_mode, state, vx)
                    })
                    .collect();
                let (out, stats) = run(&specs, true, 64, false, false);
                assert_eq!(
                    (&out, &stats),
                    (
                        &run(&specs, true, 64, false, true).0,
                        &run(&specs, true, 64, false, true).1
                    )
                );
                let v = &out
                    .iter()
                    .filter(|o| matches!(o, Out::Disposition(_)))
                    .nth(3);
                let merged = matches!(v, Some(Out::Disposition(v)) if v.contains("Merged"));
                // A good checksum (reserved bit only) merges where the flow
                // merges at all; a bad one never does.
                assert_eq!(
                    merged,
                    mutate == 20,
                    "{vx} {mutate} {state} {id_mode}: {out:?}"
                );
            }
        }
    }
}

/// Every single mutation and flag byte, alone, on the fourth segment of an
/// otherwise mergeable stream (plain and VXLAN, each fast-path state, both ID
/// modes): the fast engine gives what the general one gives. The random
/// streams above reach a given mutation on a mergeable segment only now and
/// then; this reaches each one every time.
#[test]
fn each_mutation_on_a_mergeable_segment() {
    let flags = [0x10u8, 0x18, 0x11, 0x12, 0x14, 0x30, 0x90, 0x50];
    for vx in [false, true] {
        for mutate in 0u8..=21 {
            for (k, &fl) in flags.iter().enumerate() {
                for state in [0u8, 1, 3] {
                    let id_mode = (k % 2) as u8;
                    let specs: Vec<Spec> = (0..6)
                        .map(|i| Spec {
                            flags: if i == 3 { fl } else { 0x10 },
                            mutate: if i == 3 { mutate } else { 0 },
                            ..bulk(id_mode, state, vx)
                        })
                        .collect();
                    let fast = run(&specs, true, 64, false, false);
                    let general = run(&specs, true, 64, false, true);
                    assert_eq!(fast, general, "{vx} {mutate} {fl:#x} {state}");
                }
            }
        }
    }
}

/// IPv4 ID sequences against the ID mode (plain and VXLAN, where both
/// layers carry them): fixed then +1 / +2, incrementing then fixed, and so on.
#[test]
fn id_sequences_on_a_mergeable_stream() {
    let seqs: [&[u8]; 6] = [
        &[1, 1, 4],
        &[1, 1, 3],
        &[1, 3, 4],
        &[1, 3, 3],
        &[1, 4, 4],
        &[1, 1, 1],
    ];
    for vx in [false, true] {
        for state in [0u8, 1, 3] {
            for ids in seqs {
                let specs: Vec<Spec> = ids.iter().map(|&id| bulk(id, state, vx)).collect();
                let fast = run(&specs, true, 64, false, false);
                assert_eq!(
                    fast,
                    run(&specs, true, 64, false, true),
                    "{vx} {state} {ids:?}"
                );
            }
        }
    }
}

/// A bulk stream (plain and VXLAN, incrementing and fixed IDs, every
/// fast-path state) merges its third and later segments by the prediction
/// alone (the second decides the ID mode by the rules), with the same result
/// as the general path.
#[test]
fn bulk_stream_merges_by_prediction() {
    for vx in [false, true] {
        for state in [0u8, 1, 3] {
            for id_mode in [0u8, 1] {
                let specs: Vec<Spec> = (0..10).map(|_| bulk(id_mode, state, vx)).collect();
                let (out, stats, predicted) =
                    run_counting(&specs, true, 64, false, false, DEFAULT_MAX_SIZE);
                let (gout, gstats, none) =
                    run_counting(&specs, true, 64, false, true, DEFAULT_MAX_SIZE);
                assert_eq!((&out, &stats), (&gout, &gstats));
                assert_eq!(none, 0, "the general path never predicts");
                // VXLAN with a level-0 report takes the general path.
                let want = if vx && state == 0 { 0 } else { 8 };
                if want == 0 {
                    assert_eq!(predicted, 0);
                }
                assert!(
                    predicted >= want,
                    "{vx} {state} {id_mode}: {predicted} of 9 merges predicted"
                );
            }
        }
    }
}

/// `specs` through the fast and the general engine ([`run_held`]), whose
/// outputs and counters must agree (`what` names the case); both engines,
/// for the fast paths' counters.
fn held_alike(specs: &[Spec], what: &str) -> (Gro<4>, Gro<4>) {
    let (out, stats, fast) = run_held(specs, false);
    let (gout, gstats, general) = run_held(specs, true);
    assert_eq!((&out, &stats), (&gout, &gstats), "{what}");
    (fast, general)
}

/// `n` bulk segments of `flows` flows interleaved round robin.
fn round_robin(n: u8, flows: u8, state: u8, vx: bool) -> Vec<Spec> {
    (0..n)
        .map(|k| Spec {
            flow: k % flows,
            ..bulk(0, state, vx)
        })
        .collect()
}

/// Flows interleaved round-robin (plain and VXLAN, vouched and verified)
/// merge by the guess (the flow that followed the previous frame's flow the
/// last time) from their third round on, with the general path's result.
#[test]
fn round_robin_flows_merge_into_the_guessed_flow() {
    for vx in [false, true] {
        for state in [1u8, 3] {
            let (fast, _) = held_alike(
                &round_robin(18, 3, state, vx),
                &std::format!("{vx} {state}"),
            );
            let guessed = fast.guessed;
            // Rounds 3 to 6 of three flows: 12 merges by the guess.
            assert!(guessed >= 12, "{vx} {state}: {guessed} merges by the guess");
        }
    }
}

/// One flow's segments back to back merge by trains in the bursts (the
/// frames after a guessed merge into the previous frame's flow), with the
/// general path's result; segments the software verifies never do.
#[test]
fn bulk_bursts_merge_by_trains() {
    for vx in [false, true] {
        for state in [1u8, 3] {
            let (fast, general) = held_alike(
                &round_robin(16, 1, state, vx),
                &std::format!("{vx} {state}"),
            );
            assert_eq!(general.trained, 0, "the general path has no trains");
            let trained = fast.trained;
            // Bursts of frames 0-3 and 8-11: frame 3 (after frame 2's guessed
            // merge), then 9 to 11 (frame 8's guess is frame 7's flow).
            let want = if state == 3 { 4 } else { 0 };
            assert_eq!(trained, want, "{vx} {state}: {trained} merges by trains");
        }
    }
}

/// Two flows interleaved in each burst merge by trains too: a train follows
/// each flow's successor (the flow whose frame came next the last time), so
/// a round robin of flows runs as one flow's segments back to back do, with
/// the general path's result.
#[test]
fn round_robin_bursts_merge_by_trains() {
    for vx in [false, true] {
        for state in [1u8, 3] {
            let (fast, _) = held_alike(
                &round_robin(24, 2, state, vx),
                &std::format!("{vx} {state}"),
            );
            let trained = fast.trained;
            // Bursts of frames 8-11 and 16-19: frame 8 (or 16) merges by the
            // guess, the three after it by the train.
            let want = if state == 3 { 6 } else { 0 };
            assert_eq!(trained, want, "{vx} {state}: {trained} merges by trains");
        }
    }
}

/// A train stops at a segment the device did not vouch for (verified in
/// software, reported `Complete`, a level that leaves the inner TCP
/// unchecked), good or with a bad TCP checksum: the general path's result.
#[test]
fn trains_stop_at_segments_they_cannot_vouch_for() {
    for vx in [false, true] {
        for (state, mutate) in [(1u8, 0u8), (1, 11), (2, 0), (2, 11), (0, 0), (0, 11)] {
            let mut specs: Vec<Spec> = (0..16).map(|_| bulk(0, 3, vx)).collect();
            // Frame 10 lies inside the train of frames 9 to 11.
            specs[10] = Spec {
                state,
                mutate,
                ..specs[10]
            };
            let run = |fast_off| {
                let (out, stats, _) = run_held(&specs, fast_off);
                (out, stats)
            };
            assert_eq!(
                run(false),
                run(true),
                "{vx} state {state} mutation {mutate}"
            );
        }
    }
}

/// The predicted next segment of a flow flushed meanwhile starts a new flow.
/// Here the guess points at the freed slot, which still holds the flow's
/// first header (a flow of one segment is not rewritten by its completion),
/// so only the flush's clearing of the prediction keeps the segment out of
/// a slot that holds no flow. Sequence: C1, A1, C2 (C2 follows A1: A's slot
/// guesses C, C's guesses A), A2 with a bad checksum (flushes A, passes up),
/// then A2 again, good.
#[test]
fn guess_never_merges_into_a_flushed_flow() {
    for vx in [false, true] {
        let mut g: Gro<3> = Gro::new(GroConfig::new());
        let a = bulk(0, 1, vx);
        let c = Spec { flow: 1, ..a };
        let (mut sa, mut sc) = (
            FlowState { seq: 1000, id: 5 },
            FlowState { seq: 9000, id: 50 },
        );
        let mut sink = |_: &SuperPacket| {};
        let mut feed = |g: &mut Gro<3>, s: Spec, st: &mut FlowState, n: u8| {
            let (f, meta) = frame(s, st, n);
            std::format!("{:?}", g.receive(&f, n.into(), meta, 0, &mut sink))
        };
        feed(&mut g, c, &mut sc, 0);
        feed(&mut g, a, &mut sa, 1);
        assert_eq!(feed(&mut g, c, &mut sc, 2), "Held(Merged)");
        let before = sa;
        let bad = Spec { mutate: 11, ..a };
        assert!(feed(&mut g, bad, &mut sa, 3).contains("PassUp"), "{vx}");
        sa = before;
        let v = feed(&mut g, a, &mut sa, 4);
        assert_eq!(v, "Held(NewFlow)", "{vx}: merged into a flushed flow");
    }
}

/// VXLAN with a non-zero outer UDP checksum on every segment (the fixed
/// layout's completion writes the outer pseudo-header seed and
/// `UDP_TUNNEL_CSUM`), and PSH / FIN on the last: fast and general engines
/// give the same super-packets, and they do merge.
#[test]
fn vxlan_with_outer_checksum_completes_alike() {
    for last_flags in [0x10u8, 0x18, 0x11, 0x90] {
        for id_mode in [0u8, 1] {
            let specs: Vec<Spec> = (0..6)
                .map(|i| Spec {
                    mutate: 17,
                    flags: if i == 5 { last_flags } else { 0x10 },
                    ..bulk(id_mode, 3, true)
                })
                .collect();
            let (out, stats, predicted) =
                run_counting(&specs, true, 64, false, false, DEFAULT_MAX_SIZE);
            assert_eq!((out, stats), run(&specs, true, 64, false, true));
            assert!(predicted >= 3, "{last_flags:#x} {id_mode}: {predicted}");
        }
    }
}

/// A bulk stream under a size limit that holds four full segments: the
/// prediction merges until the room runs out, then the rules flush the flow
/// with `Oversize` and start the next; fast and general engines alike.
#[test]
fn prediction_stops_where_the_size_limit_is_reached() {
    for vx in [false, true] {
        let specs: Vec<Spec> = (0..12).map(|_| bulk(0, 3, vx)).collect();
        // Headers (IP to payload) + 4 payloads of 1448, and a few bytes more.
        let headers = if vx {
            20 + 8 + 8 + 14 + 20 + 32
        } else {
            20 + 32
        };
        let max_size = headers + 4 * 1448 + 100;
        let (out, stats, predicted) = run_counting(&specs, true, 64, false, false, max_size);
        let (gout, gstats, _) = run_counting(&specs, true, 64, false, true, max_size);
        assert_eq!((&out, &stats), (&gout, &gstats));
        let supers: Vec<(usize, &str)> = out
            .iter()
            .filter_map(|o| match o {
                Out::Super { segs, reason, .. } => Some((segs.len(), reason.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(
            supers,
            [(4, "Oversize"), (4, "Oversize"), (4, "PollEnd")],
            "{vx}"
        );
        // Per flow of 4: the second to fourth segments merge by the
        // prediction; the fifth does not fit, is not predicted, and the rules
        // flush the flow with `Oversize` (without the room test it would be
        // predicted too: 4 per flow).
        assert_eq!(predicted, 9, "{vx}");
    }
}

/// TCP options longer than the prediction's two words (20 bytes): every
/// merge is by the rules, with the same result.
#[test]
fn long_options_merge_by_the_rules() {
    for vx in [false, true] {
        let specs: Vec<Spec> = (0..8)
            .map(|_| Spec {
                mutate: 22,
                ..bulk(0, 3, vx)
            })
            .collect();
        let (out, stats, predicted) =
            run_counting(&specs, true, 64, false, false, DEFAULT_MAX_SIZE);
        let (gout, gstats, _) = run_counting(&specs, true, 64, false, true, DEFAULT_MAX_SIZE);
        assert_eq!((&out, &stats), (&gout, &gstats));
        assert_eq!(predicted, 0, "{vx}");
        let merged = out
            .iter()
            .any(|o| matches!(o, Out::Super { segs, .. } if segs.len() == 8));
        assert!(merged, "{vx}: {out:?}");
    }
}

/// Ethernet / IPv6 / TCP segment `k` of a bulk flow (timestamps, 1448
/// bytes), with the hop limit `hops` and the TCP flags `flags`.
fn tcp6_frame(k: u32, hops: u8, flags: u8) -> Vec<u8> {
    let len = 1448usize;
    let opts = [1u8, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
    let mut t = std::vec![0u8; 20];
    t[0..2].copy_from_slice(&40000u16.to_be_bytes());
    t[2..4].copy_from_slice(&80u16.to_be_bytes());
    t[4..8].copy_from_slice(&(1000 + k * len as u32).to_be_bytes());
    t[8..12].copy_from_slice(&1u32.to_be_bytes());
    t[12] = (((20 + opts.len()) / 4) as u8) << 4;
    t[13] = flags;
    t[14..16].copy_from_slice(&512u16.to_be_bytes());
    t.extend_from_slice(&opts);
    t.extend((0..len).map(|i| (i as u8) ^ k as u8));
    let mut ip = std::vec![0x60, 0, 0, 0];
    ip.extend_from_slice(&(t.len() as u16).to_be_bytes());
    ip.extend_from_slice(&[6, hops]);
    ip.extend((0..32).map(|i| i as u8));
    let ps = sum16(&ip[8..40]) + 6 + t.len() as u32;
    let c = fold(ps + sum16(&t));
    t[16..18].copy_from_slice(&c.to_be_bytes());
    let mut f = std::vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x86, 0xDD];
    f.extend_from_slice(&ip);
    f.extend_from_slice(&t);
    f
}

/// Runs `frames` through an engine (fast path on or off); the outputs, the
/// counters and the merges the prediction accepted.
fn run_frames(
    frames: &[Vec<u8>],
    meta: &CsumMeta,
    fast: bool,
) -> (Vec<Out>, std::string::String, u64) {
    let mut cfg = GroConfig::new();
    cfg.fast_path = fast;
    let mut g: Gro<3> = Gro::new(cfg);
    let mut out = Vec::new();
    for (n, f) in frames.iter().enumerate() {
        let v = g.receive(f, n as u32, meta.clone(), 0, &mut |sp| record(&mut out, sp));
        out.push(Out::Disposition(std::format!("{v:?}")));
    }
    g.flush_all(&mut |sp| record(&mut out, sp));
    (out, std::format!("{:?}", g.stats()), g.predicted)
}

/// A TCP/IPv6 bulk stream merges by prediction (the IPv6 fast path is
/// taken), and a changed hop limit or a PSH on a full segment is decided
/// alike by both engines.
#[test]
fn tcp6_bulk_stream_merges_by_prediction() {
    let metas = [
        CsumMeta::NONE,
        CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        }),
    ];
    for meta in &metas {
        let frames: Vec<Vec<u8>> = (0..10).map(|k| tcp6_frame(k, 64, 0x10)).collect();
        let (out, stats, predicted) = run_frames(&frames, meta, true);
        let (gout, gstats, none) = run_frames(&frames, meta, false);
        assert_eq!((&out, &stats), (&gout, &gstats));
        assert_eq!(none, 0);
        assert!(predicted >= 8, "{predicted} of 9 merges predicted");
        for (hops, flags) in [(63u8, 0x10u8), (64, 0x18), (64, 0x11), (64, 0x90)] {
            let mut frames: Vec<Vec<u8>> = (0..6).map(|k| tcp6_frame(k, 64, 0x10)).collect();
            frames[3] = tcp6_frame(3, hops, flags);
            let fast = run_frames(&frames, meta, true);
            let general = run_frames(&frames, meta, false);
            assert_eq!(
                (fast.0, fast.1),
                (general.0, general.1),
                "{hops} {flags:#x}"
            );
        }
    }
}

/// [`tcp6_frame`] with an 8-byte hop-by-hop header (PadN) before TCP: the
/// same flow identity to the fixed-layout lookup, another layout to the walk.
fn tcp6_hbh_frame(k: u32) -> Vec<u8> {
    let mut f = tcp6_frame(k, 64, 0x10);
    let plen = u16::from_be_bytes([f[18], f[19]]) + 8;
    f[18..20].copy_from_slice(&plen.to_be_bytes());
    f[20] = 0;
    f.splice(54..54, [6u8, 0, 1, 4, 0, 0, 0, 0]);
    f
}

/// A plain TCP/IPv6 segment whose identity is held by a flow with extension
/// headers: the fast path may not start a flow beside it (the walk flushes
/// it first), so both engines give the same outputs, in either order and
/// with the plain flow's new flows taken by the fast path otherwise.
#[test]
fn tcp6_new_flow_beside_an_extension_header_flow() {
    let metas = [
        CsumMeta::NONE,
        CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        }),
    ];
    let orders: [&[bool]; 4] = [
        &[true, false, false, false],
        &[false, true, false, false],
        &[true, true, false, true, false],
        &[false, false, true, false],
    ];
    for meta in &metas {
        for hbh in orders {
            let frames: Vec<Vec<u8>> = (0..hbh.len() as u32)
                .map(|k| {
                    if hbh[k as usize] {
                        tcp6_hbh_frame(k)
                    } else {
                        tcp6_frame(k, 64, 0x10)
                    }
                })
                .collect();
            let fast = run_frames(&frames, meta, true);
            let general = run_frames(&frames, meta, false);
            assert_eq!((fast.0, fast.1), (general.0, general.1), "{hbh:?}");
        }
    }
}

/// Trains longer than the hint window (a frame and the six after it) run
/// through the window and on through the burst's last frames: one burst of
/// 24 vouched frames, of one flow or three round robin, merges every frame
/// from the third (one flow) or fifth (three flows) on by a train, with what
/// frame-by-frame receives give.
#[test]
fn long_trains_cross_from_the_window_to_the_burst_end() {
    for vx in [false, true] {
        for (flows, want) in [(1u8, 21u64), (3, 19)] {
            let mut st = [FlowState { seq: 1000, id: 5 }; 4];
            let frames: Vec<(Vec<u8>, CsumMeta)> = round_robin(24, flows, 3, vx)
                .iter()
                .enumerate()
                .map(|(j, s)| frame(*s, &mut st[s.flow as usize], j as u8))
                .collect();
            let burst = burst_of(&frames, 0);
            let mut by_burst: Gro<4> = Gro::new(GroConfig::new());
            let mut out = Vec::new();
            let mut sink = |sp: &SuperPacket| record(&mut out, sp);
            let mut verdicts = Vec::new();
            by_burst.receive_burst(&burst, 0, &mut sink, |id, v| verdicts.push((id, v)));
            by_burst.flush_all(&mut sink);
            let mut by_frame: Gro<4> = Gro::new(GroConfig::new());
            let mut each_out = Vec::new();
            let mut sink = |sp: &SuperPacket| record(&mut each_out, sp);
            let each_verdicts: Vec<_> = burst
                .iter()
                .map(|f| {
                    (
                        f.id,
                        by_frame.receive(f.frame, f.id, f.meta.clone(), 0, &mut sink),
                    )
                })
                .collect();
            by_frame.flush_all(&mut sink);
            assert_eq!((out, verdicts), (each_out, each_verdicts), "{vx} {flows}");
            assert_eq!(by_burst.trained, want, "{vx} {flows}");
        }
    }
}

/// `n` bulk TCP/IPv4 segments of one flow in order, in checksum state
/// `state` (as `bulk`: 1 to verify, 0 vouched).
fn one_flow(n: usize, state: u8) -> Vec<(Vec<u8>, CsumMeta)> {
    let mut st = FlowState::default();
    (0..n)
        .map(|k| frame(bulk(0, state, false), &mut st, k as u8))
        .collect()
}

/// In a burst of frames to verify, the frames summed alone are hinted
/// whole before they are read: all but the first where the CPU has no group
/// kernel, else those past the burst's last whole group. Frames in a group
/// are not (their group reads them side by side).
#[test]
fn frames_summed_alone_are_hinted_whole() {
    let grouped = crate::csum::has_group_kernel();
    for n in [5usize, 8, 12, 19, 32] {
        let frames = one_flow(n, 1);
        let mut g: Gro<3> = Gro::new(GroConfig::new());
        g.receive_burst(&burst_of(&frames, 0), 0, &mut |_| {}, |_, _| {});
        let want = match grouped && n >= csum::GROUP {
            true => n % csum::GROUP,
            false => n - 1,
        };
        assert_eq!(g.hinted_whole.get(), want as u64, "burst of {n}");
        assert_eq!(g.stats().merged, n as u64 - 1, "burst of {n}");
    }
}

/// `receive_burst_with_next` hints the start of the next burst while it
/// works on the burst's last frames: the headers of its first
/// `HEADER_AHEAD` frames, and where frames are grouped the leads of the
/// frames one group after the last whole group's. Nothing with no next
/// burst; the merges are those of `receive_burst`.
#[test]
fn next_burst_is_hinted() {
    let grouped = crate::csum::has_group_kernel();
    // (frames in the burst, frames in the next, state: 1 to verify, 0 vouched)
    for (n, m, state) in [
        (32usize, 32usize, 1u8),
        (12, 32, 1),
        (32, 3, 1),
        (32, 32, 0),
        (32, 0, 1),
    ] {
        let frames = one_flow(n + m, state);
        let all = burst_of(&frames, 0);
        let (burst, next) = all.split_at(n);
        let mut g: Gro<3> = Gro::new(GroConfig::new());
        g.receive_burst_with_next(burst, next, 0, &mut |_| {}, |_, _| {});
        let leads = match grouped && state == 1 && n >= csum::GROUP {
            // The last whole group hints the `GROUP` frames after it.
            true => (n / csum::GROUP * csum::GROUP + csum::GROUP)
                .saturating_sub(n)
                .min(m),
            false => 0,
        };
        let want = HEADER_AHEAD.min(m) + leads;
        let case = std::format!("burst {n}, next {m}, state {state}");
        assert_eq!(g.hinted_next.get(), want as u64, "{case}");
        assert_eq!(g.stats().merged, n as u64 - 1, "{case}");
    }
}

/// In a burst of frames to verify, each run of `GROUP` is summed side by
/// side and the fast paths check every frame of it by that sum (TCP/IPv4,
/// VXLAN, TCP/IPv6): where the CPU has the kernel, all but the burst's
/// last `n % GROUP` frames; elsewhere none. A burst shorter than `GROUP`
/// (the first here) is not grouped. A bad checksum inside a group is still found: the frame goes up alone,
/// named by the general path.
#[test]
fn verified_bursts_are_checked_by_their_group_sums() {
    let grouped = crate::csum::has_group_kernel();
    for (vx, v6) in [(false, false), (true, false), (false, true)] {
        let mut st = FlowState::default();
        let mut frames: std::vec::Vec<(Vec<u8>, CsumMeta)> = (0..26)
            .map(|k| match v6 {
                true => (tcp6_frame(u32::from(k), 64, 0x10), CsumMeta::NONE),
                false => frame(bulk(0, 1, vx), &mut st, k),
            })
            .collect();
        let case = std::format!("vx {vx} v6 {v6}");
        let run = |frames: &[(Vec<u8>, CsumMeta)]| {
            let mut g: Gro<3> = Gro::new(GroConfig::new());
            let mut passed = Vec::new();
            let mut counts = Vec::new();
            for part in [&frames[..5], &frames[5..]] {
                let burst = burst_of(part, 0);
                g.receive_burst(&burst, 0, &mut |_| {}, |id, d| {
                    if matches!(d, super::Disposition::PassUp { .. }) {
                        passed.push((id, std::format!("{d:?}")));
                    }
                });
                counts.push(g.presummed);
            }
            (counts, g.stats().merged, passed)
        };
        let (counts, merged, passed) = run(&frames);
        let want = if grouped { 16 } else { 0 };
        assert_eq!(counts, [0, want], "{case}");
        assert_eq!(merged, 25, "{case}: {passed:?}");
        // One bad TCP checksum in the middle of the second burst's second group.
        let last = frames[16].0.len() - 1;
        frames[16].0[last] ^= 0x40;
        let (_, _, passed) = run(&frames);
        assert_eq!(passed.len(), 1, "{case}: {passed:?}");
        assert_eq!(passed[0].0, 11, "{case}");
        assert!(passed[0].1.contains("BadChecksum"), "{passed:?}");
    }
}
