//! The flow table: fixed capacity, oldest flushed first when full, flush on
//! age and on demand; interleaved flows beyond the capacity lose nothing.
use crate::support::gro as support;

use std::collections::HashMap;

use netoffload::gro::{FlushReason as R, GroConfig};
use support::*;

fn payload_of(h: &Harness<4>, ev: &Ev) -> Vec<u8> {
    match ev {
        Ev::Super { bytes, .. } => {
            let w = walk(bytes);
            bytes[w.payload..w.end].to_vec()
        }
        Ev::Pass { id, .. } => {
            let f = &h.frames[id];
            let w = walk(f);
            f[w.payload..w.end].to_vec()
        }
    }
}

#[test]
fn interleaved_flows_beyond_capacity() {
    let mut h = Harness::<4>::new(GroConfig::new());
    let mut specs: Vec<Spec> = (0..10)
        .map(|i| Spec {
            flow: i + 1,
            ..Spec::default()
        })
        .collect();
    let mut sent: HashMap<u8, Vec<u8>> = HashMap::new();
    let mut flow_of: HashMap<u32, u8> = HashMap::new();
    for _round in 0..5 {
        for s in specs.iter_mut() {
            let id = h.feed(s.frame());
            flow_of.insert(id, s.flow);
            sent.entry(s.flow)
                .or_default()
                .extend_from_slice(&s.payload);
            *s = s.next();
        }
    }
    h.flush();
    assert!(h.events.iter().any(|e| e.reason() == R::TableFull));
    assert!(h.gro.held_flows() == 0);
    let mut got: HashMap<u8, Vec<u8>> = HashMap::new();
    let mut seen = 0;
    for e in &h.events {
        let ids = e.ids();
        seen += ids.len();
        let f = flow_of[&ids[0]];
        assert!(ids.iter().all(|i| flow_of[i] == f));
        got.entry(f)
            .or_default()
            .extend_from_slice(&payload_of(&h, e));
        if matches!(e, Ev::Super { .. }) {
            h.check_super(e);
        }
    }
    assert_eq!(seen, 50);
    assert_eq!(got, sent);
}

#[test]
fn oldest_flow_is_evicted_when_full() {
    let mut h = Harness::<4>::new(GroConfig::new());
    for f in 1..=5 {
        h.feed(
            Spec {
                flow: f,
                ..Spec::default()
            }
            .frame(),
        );
    }
    assert_eq!(h.events.len(), 1);
    assert_eq!(
        (h.events[0].ids(), h.events[0].reason()),
        (vec![1], R::TableFull)
    );
    assert_eq!(h.gro.held_flows(), 4);
    h.flush();
    let order: Vec<Vec<u32>> = h.events[1..].iter().map(|e| e.ids()).collect();
    assert_eq!(
        order,
        vec![vec![2], vec![3], vec![4], vec![5]],
        "flush_all goes oldest first"
    );
}

#[test]
fn flows_age_out_on_tick() {
    let cfg = GroConfig {
        flush_age_ticks: 2,
        ..GroConfig::new()
    };
    let mut h = Harness::<4>::new(cfg);
    h.feed(Spec::default().frame());
    h.tick(1);
    h.feed(
        Spec {
            flow: 2,
            ..Spec::default()
        }
        .frame(),
    );
    h.tick(1);
    assert!(h.events.is_empty());
    h.tick(2);
    assert_eq!(h.events.len(), 1);
    assert_eq!(
        (h.events[0].ids(), h.events[0].reason()),
        (vec![1], R::Aged)
    );
    h.tick(3);
    assert_eq!(
        (h.events[1].ids(), h.events[1].reason()),
        (vec![2], R::Aged)
    );
    // Age 0: never by age.
    let cfg = GroConfig {
        flush_age_ticks: 0,
        ..GroConfig::new()
    };
    let mut h = Harness::<4>::new(cfg);
    h.feed(Spec::default().frame());
    h.tick(1000);
    assert!(h.events.is_empty());
    assert_eq!(h.gro.held_flows(), 1);
}

#[test]
fn stats_add_up() {
    let mut h = Harness::<4>::new(GroConfig::new());
    let a = Spec::default();
    let b = a.next();
    let c = Spec {
        flags: 0x18,
        ..b.next()
    };
    let d = Spec {
        flow: 3,
        payload: vec![],
        ..Spec::default()
    };
    h.feed(a.frame());
    h.feed(b.frame());
    h.feed(c.frame());
    h.feed(d.frame());
    let s = h.gro.stats();
    assert_eq!(s.packets, 4);
    assert_eq!(s.merged, 2);
    assert_eq!(s.new_flows, 1);
    assert_eq!(s.passed_up, 1);
    assert_eq!(s.flushed, 1);
}

#[test]
fn reason_names_are_unique_and_csv_safe() {
    let mut seen = std::collections::HashSet::new();
    for r in R::ALL {
        let name = r.to_string();
        assert_eq!(name, r.name());
        assert!(
            name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
            "{name}"
        );
        assert!(seen.insert(name.clone()), "duplicate {name}");
    }
    assert_eq!(seen.len(), R::ALL.len());
}

#[test]
fn write_into_reports_short_buffers_and_missing_payloads() {
    use netoffload::gro::WriteError;
    let mut gro = Box::new(netoffload::gro::Gro::<4>::new(GroConfig::new()));
    let a = Spec::default();
    let b = a.next();
    let (fa, fb) = (a.frame(), b.frame());
    let mut checked = 0;
    let meta = netoffload::state::CsumMeta::NONE;
    let _ = gro.receive(&fa, 1, meta.clone(), 0, &mut |_| {});
    let _ = gro.receive(&fb, 2, meta, 0, &mut |_| {});
    gro.flush_all(&mut |sp| {
        let mut small = vec![0u8; sp.len() - 1];
        assert_eq!(
            sp.write_into(&mut small, |_| Some(&fa[..])),
            Err(WriteError::BufferTooSmall {
                needed: sp.len(),
                available: sp.len() - 1
            })
        );
        let mut buf = vec![0u8; sp.len()];
        assert_eq!(
            sp.write_into(&mut buf, |id| if id == 1 { Some(&fa[..]) } else { None }),
            Err(WriteError::MissingPayload { id: 2 })
        );
        assert_eq!(
            sp.write_into(&mut buf, |id| if id == 1 {
                Some(&fa[..])
            } else {
                Some(&fb[..40])
            }),
            Err(WriteError::MissingPayload { id: 2 })
        );
        checked += 1;
    });
    assert_eq!(checked, 1);
}
