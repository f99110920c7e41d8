//! Where a large GRO table can live, and the finished super-packet form.
//!
//! A 16,384-flow table (about 15 MB) lives in a `static` (the `const fn`
//! constructor) and is used from a 2 MB thread stack; a heap table is
//! emptied and reconfigured in place (`Gro::reset`) on a 2 MB stack, and one
//! is built from zeroed heap memory and from an uninitialised slot
//! (`Gro: FromZeros`); all coalesce. The per-flow size the docs state is the
//! one `size_of` gives. `SuperPacket::write_finished_into` leaves every
//! checksum correct by the independent oracle (`tests/support/oracle.rs`),
//! where `write_into` leaves the seed.

use crate::support::gro as gro_support;
use crate::support::oracle;

use std::collections::HashMap;
use std::mem::size_of;
use std::sync::Mutex;

use gro_support::{Outer, Spec, Tunnel, tunnel_frame};
use netoffload::gro::{Disposition, Gro, GroConfig, GroKinds, SuperPacket};
use netoffload::state::{CsumMeta, CsumState, PartialKind};
use oracle::Link;

const BIG: usize = 16_384;

/// Built at compile time; nothing runs at start-up.
static TABLE: Mutex<Gro<BIG>> = Mutex::new(Gro::new(GroConfig::new()));

/// The source of `Gro`'s docs, which state the per-flow cost.
const GRO_DOCS: &str = include_str!("../../src/gro/engine.rs");

/// Feeds `frames` (ids 0..) to `gro`, flushes, and returns each super-packet
/// written both ways: (as `write_into` leaves it, finished, segment count).
fn run<const N: usize>(
    gro: &mut Gro<N>,
    frames: &[Vec<u8>],
    meta: CsumMeta,
) -> Vec<(Vec<u8>, Vec<u8>, u16)> {
    let by_id: HashMap<u32, &[u8]> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| (i as u32, f.as_slice()))
        .collect();
    let mut out = Vec::new();
    let mut sink = |sp: &SuperPacket| {
        let mut seeded = vec![0u8; sp.len()];
        let mut finished = vec![0u8; sp.len()];
        sp.write_into(&mut seeded, |id| by_id.get(&id).copied())
            .unwrap();
        let n = sp
            .write_finished_into(&mut finished, |id| by_id.get(&id).copied())
            .unwrap();
        assert_eq!(n, sp.len());
        out.push((seeded, finished, sp.seg_count()));
    };
    for (i, f) in frames.iter().enumerate() {
        let v = gro.receive(f, i as u32, meta.clone(), 0, &mut sink);
        assert!(matches!(v, Disposition::Held(_)), "frame {i}: {v:?}");
    }
    gro.flush_all(&mut sink);
    out
}

/// `n` in-order segments of one plain flow.
fn flow(first: Spec, n: usize) -> Vec<Vec<u8>> {
    let mut s = first;
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(s.frame());
        s = s.next();
    }
    v
}

/// `n` in-order segments of one tunnelled flow.
fn tunnelled(o: Outer, n: usize) -> Vec<Vec<u8>> {
    let (mut o, mut s) = (o, Spec::default());
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(tunnel_frame(&o, &s));
        o = o.next();
        s = s.next();
    }
    v
}

/// One merged super-packet of `frames`: the seeded form is not all correct,
/// the finished form is, and it is the same packet apart from checksums.
fn check_finished(name: &str, frames: &[Vec<u8>], kinds: GroKinds) {
    let mut cfg = GroConfig::new();
    cfg.kinds = kinds;
    let mut gro = Box::new(Gro::<8>::new(cfg));
    let out = run(&mut gro, frames, CsumMeta::NONE);
    assert_eq!(out.len(), 1, "{name}: one super-packet");
    let (seeded, finished, segs) = &out[0];
    assert_eq!(*segs as usize, frames.len(), "{name}: all merged");
    assert!(
        !oracle::all_correct(seeded, Link::Ethernet),
        "{name}: write_into leaves the seed"
    );
    let sites = oracle::sites(finished, Link::Ethernet);
    assert!(!sites.is_empty(), "{name}");
    for s in &sites {
        assert!(s.correct, "{name}: site {s:?} of the finished form");
    }
    let walk = gro_support::walk(finished);
    for &(o, v6, next) in &walk.ips {
        let sum = gro_support::fold16(gro_support::ones_sum(&finished[o..next]));
        assert!(v6 || sum == 0xFFFF, "{name}: IPv4 header at {o}");
    }
    assert_eq!(seeded.len(), finished.len(), "{name}");
}

#[test]
fn finished_form_is_correct_plain_and_tunnelled() {
    let all = GroKinds::all();
    check_finished("tcp4", &flow(Spec::default(), 5), all);
    let v6 = Spec {
        v6: true,
        ..Spec::default()
    };
    check_finished("tcp6", &flow(v6, 4), all);
    let udp = Spec {
        udp: true,
        dport: 9000,
        payload: gro_support::pay(1200, 0),
        ..Spec::default()
    };
    check_finished("udp4", &flow(udp, 3), all);
    let vx = Outer {
        udp_csum: true,
        ..Outer::default()
    };
    check_finished("vxlan+csum", &tunnelled(vx, 4), all);
    check_finished("vxlan", &tunnelled(Outer::default(), 4), all);
    let gre = Outer {
        tunnel: Tunnel::Gre {
            key: None,
            csum: true,
        },
        ..Outer::default()
    };
    check_finished("gre+csum", &tunnelled(gre, 3), all);
}

#[test]
fn finished_single_partial_packet_is_filled() {
    // A local sender's packet: `Partial`, the seed in the TCP field.
    let mut f = Spec::default().frame();
    let l4 = 34;
    let ph = gro_support::pseudo_sum(&f[26..30], &f[30..34], 6, f.len() - l4);
    let seed = gro_support::fold16(ph);
    f[l4 + 16..l4 + 18].copy_from_slice(&seed.to_be_bytes());
    let meta = CsumMeta::from_state(CsumState::Partial {
        start: l4,
        offset: 16,
        kind: PartialKind::Inet,
    });
    let mut gro = Box::new(Gro::<8>::new(GroConfig::new()));
    let out = run(&mut gro, &[f], meta);
    let (seeded, finished, segs) = &out[0];
    assert_eq!(*segs, 1);
    assert!(!oracle::all_correct(seeded, Link::Ethernet));
    assert!(oracle::all_correct(finished, Link::Ethernet));
}

#[test]
fn flow_bytes_match_the_docs_and_size_of() {
    // Two table sizes: the difference is the per-flow cost, whatever the
    // fixed part and its padding.
    let per_flow = (size_of::<Gro<2048>>() - size_of::<Gro<1024>>()) / 1024;
    assert_eq!(per_flow, Gro::<1>::FLOW_BYTES);
    if size_of::<usize>() == 8 {
        let stated = format!("[`Gro::FLOW_BYTES`] = {per_flow} bytes per flow");
        assert!(
            GRO_DOCS.contains(&stated),
            "the `Gro` docs must say {stated:?}"
        );
    }
    assert!(size_of::<Gro<BIG>>() >= BIG * per_flow);
}

/// Coalesces three segments of one flow in `gro` (a smoke test that the big
/// table works, not a rule test).
fn coalesces<const N: usize>(gro: &mut Gro<N>) {
    let out = run(gro, &flow(Spec::default(), 3), CsumMeta::NONE);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].2, 3);
    assert!(oracle::all_correct(&out[0].1, Link::Ethernet));
    assert_eq!(gro.held_flows(), 0);
}

#[test]
fn big_table_in_a_static_on_a_small_stack() {
    on_small_stack(|| {
        let mut gro = TABLE.lock().unwrap();
        coalesces(&mut gro);
        gro.reset(GroConfig::new());
        coalesces(&mut gro);
    });
}

/// Runs `f` on a thread with a 2 MB stack (a 16,384-flow table is 15 MB).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("fits a 2 MB stack");
}

#[test]
fn big_table_reset_in_place_on_a_small_stack() {
    // Heap memory that holds a table (built where the stack is large), then
    // emptied and reconfigured in place on a small stack.
    let mut boxed: Box<Gro<BIG>> = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| Box::new(Gro::new(GroConfig::new())))
        .unwrap()
        .join()
        .unwrap();
    on_small_stack(move || {
        coalesces(&mut boxed);
        let mut cfg = GroConfig::new();
        cfg.max_segs = 2;
        boxed.reset(cfg);
        assert_eq!(boxed.config().max_segs, 2);
        assert_eq!(boxed.stats().packets, 0);
        let out = run(&mut boxed, &flow(Spec::default(), 2), CsumMeta::NONE);
        assert_eq!(out.len(), 1);
    });
}

#[test]
fn big_table_from_zeroed_heap_memory_on_a_small_stack() {
    use zerocopy::FromZeros;
    on_small_stack(|| {
        // Allocated zeroed (`alloc_zeroed`): no value on the stack.
        let mut gro = Gro::<BIG>::new_box_zeroed().expect("15 MB");
        gro.reset(GroConfig::new());
        coalesces(&mut gro);
    });
}

#[test]
fn big_table_in_an_uninitialised_slot_on_a_small_stack() {
    on_small_stack(|| {
        let mut slot = Box::<Gro<BIG>>::new_uninit();
        // SAFETY: `Gro: FromZeros` (checked at compile time in `src/gro/engine.rs`), so the
        // zeroed slot holds a valid `Gro`; this is the caller's step the docs
        // describe for pool memory.
        let gro = unsafe {
            slot.as_mut_ptr().write_bytes(0, 1);
            slot.assume_init_mut()
        };
        gro.reset(GroConfig::new());
        coalesces(gro);
    });
}

#[test]
fn reset_of_zeroed_memory_gives_what_new_gives() {
    use zerocopy::FromZeros;
    let mut cfg = GroConfig::new();
    cfg.kinds = GroKinds::TCP4 | GroKinds::TUNNEL;
    cfg.max_segs = 7;
    let mut zeroed = Gro::<4>::new_zeroed();
    zeroed.reset(cfg);
    assert_eq!(format!("{zeroed:?}"), format!("{:?}", Gro::<4>::new(cfg)));
}

#[test]
fn reset_gives_what_new_gives() {
    let mut used = Gro::<4>::new(GroConfig::new());
    let frames = [
        flow(Spec::default(), 2),
        flow(
            Spec {
                flow: 2,
                ..Spec::default()
            },
            1,
        ),
    ]
    .concat();
    let by_id: HashMap<u32, &[u8]> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| (i as u32, f.as_slice()))
        .collect();
    for (i, f) in frames.iter().enumerate() {
        let _ = used.receive(f, i as u32, CsumMeta::NONE, 0, &mut |_: &SuperPacket| {});
    }
    assert_eq!(used.held_flows(), 2);
    assert!(!by_id.is_empty());
    let mut cfg = GroConfig::new();
    cfg.kinds = GroKinds::TCP4;
    used.reset(cfg);
    let fresh = Gro::<4>::new(cfg);
    assert_eq!(format!("{used:?}"), format!("{fresh:?}"));
}
