//! Arbitrary outer + inner bytes (mostly mutated tunnel packets) and an HONEST
//! device report -> `encap::decap` / `decap_nested` give an inner state the
//! independent oracle accepts, or a typed error that hands the metadata back;
//! a bad outer checksum is never decapsulated, a good one never refused as bad.
//!
//! Input: 6 control bytes, then an Ethernet frame.
//! - `[0]` report: None / L4Ok / L4Bad / Complete; `[1]` requested level.
//! - `[2]` bit 0: fix every checksum first; bit 1: then corrupt the byte at
//!   `[3..5]` with mask `[5]`; bit 2: `at` = outer L4 (else outer L3);
//!   bit 3: `decap_nested`; bit 4: IPv6 zero-checksum ports configured;
//!   bit 5: VXLAN also on port 8472.
#![no_main]

#[path = "../src/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/support/oracle.rs"]
mod oracle;

use common::Ctl;
use libfuzzer_sys::fuzz_target;
use netoffload::encap::{DecapError, EncapConfig, ZeroCsumPolicy, decap, decap_nested};
use netoffload::state::{self, CsumLevel, CsumMeta, CsumState, DeviceReport};
use netoffload::wire::{self, Layers, LinkType};
use oracle::{Link, View};

/// Checks the inner packet's state with the oracle, on the inner IP packet
/// alone (a decapsulated `Complete` covers `inner.l3..inner.end`).
fn inner_sound(bytes: &[u8], inner: &Layers, meta: &CsumMeta, what: &str) {
    assert!(inner.l3 <= inner.l4 && inner.l4 <= inner.end && inner.end <= bytes.len());
    if !common::plain_pseudo(inner) {
        return;
    }
    let sub = &bytes[inner.l3..inner.end];
    let shifted = match meta.state() {
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            assert!(
                start >= inner.l3,
                "{what}: Partial left behind the inner packet"
            );
            CsumMeta::new(
                CsumState::Partial {
                    start: start - inner.l3,
                    offset,
                    kind,
                },
                meta.flags(),
            )
            .expect("same flags")
        }
        _ => meta.clone(),
    };
    let view = View {
        bytes: sub,
        link: Link::RawIp,
        cur: 0,
        levels_from: 0,
        l4: inner.l4 - inner.l3,
    };
    if let Err(e) = oracle::check(&view, &shifted) {
        panic!("{what}: oracle rejects inner state {meta:?}: {e:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Ctl::new(data);
    let report = c.u8() % 4;
    let want = c.u8() % 4;
    let opts = c.u8();
    let corrupt_at = c.u16() as usize;
    let mask = c.u8();
    let mut bytes = c.rest().to_vec();

    let Ok(outer) = wire::parse(&bytes, LinkType::Ethernet) else {
        return;
    };
    if opts & 1 != 0 {
        common::fix_all(&mut bytes, Link::Ethernet, Some(outer.l3));
    }
    if opts & 2 != 0 {
        common::corrupt(&mut bytes, corrupt_at, mask);
    }
    let Ok(outer) = wire::parse(&bytes, LinkType::Ethernet) else {
        return;
    };
    if !common::plain_pseudo(&outer) {
        return;
    }
    let at = if opts & 4 != 0 { outer.l4 } else { outer.l3 };
    let mut cfg = EncapConfig::DEFAULT;
    if opts & 16 != 0 {
        cfg.ipv6_zero_csum_ports = [4789, 6081, 0, 0];
        cfg.ipv6_zero_csum_policy = ZeroCsumPolicy::Both;
    }
    if opts & 32 != 0 {
        cfg.vxlan_ports[1] = 8472;
    }

    let sites = oracle::sites(&bytes, Link::Ethernet);
    let meta = match report {
        1 => {
            let good = sites
                .iter()
                .filter(|s| s.counted)
                .take_while(|s| s.correct)
                .count();
            match (good as u8).checked_sub(1) {
                Some(max) => {
                    let level = CsumLevel::new(want.min(max).min(3)).expect("0..=3");
                    state::receive(DeviceReport::L4Ok { level }).meta
                }
                None => state::receive(DeviceReport::None).meta,
            }
        }
        2 => state::receive(DeviceReport::L4Bad).meta,
        3 => {
            state::receive(DeviceReport::Complete {
                // The `Packet` convention: a Complete sum covers `bytes[at..]`.
                csum: oracle::wsum_of(&bytes[at..]),
            })
            .meta
        }
        _ => state::receive(DeviceReport::None).meta,
    };
    let outer_ok = sites.iter().find(|s| s.l4 == outer.l4).map(|s| s.correct);

    if opts & 8 == 0 {
        match decap(&bytes, &outer, at, meta.clone(), &cfg) {
            Ok(d) => {
                assert_ne!(
                    outer_ok,
                    Some(false),
                    "bad outer checksum decapsulated: {d:?}"
                );
                assert!(d.inner.l3 >= outer.l4 && d.inner.end <= outer.end, "{d:?}");
                inner_sound(&bytes, &d.inner, &d.meta, "decap");
            }
            Err(rej) => {
                assert_eq!(rej.meta, meta, "refusal changed the meta");
                if let DecapError::BadOuterChecksum { .. } = rej.error {
                    assert_ne!(outer_ok, Some(true), "good outer checksum refused");
                }
            }
        }
    } else {
        match decap_nested(&bytes, &outer, at, meta.clone(), &cfg) {
            Ok(n) => {
                if !n.steps.is_empty() {
                    assert_ne!(outer_ok, Some(false), "bad outer checksum decapsulated");
                    inner_sound(&bytes, &n.inner, &n.meta, "decap_nested");
                }
            }
            Err(rej) => assert_eq!(rej.meta, meta, "refusal changed the meta"),
        }
    }
});
