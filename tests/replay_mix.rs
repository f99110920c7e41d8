//! The built-in mix's key facts, the ones the summary table exists to show
//! (the Intel 82599 / VXLAN story of DESIGN.md), checked against numbers
//! recomputed here from the mix's bytes with etherparse.
#![allow(dead_code)]

#[path = "../examples/replay/app.rs"]
mod app;
#[path = "../examples/replay/capture.rs"]
mod capture;
#[path = "../examples/replay/cli.rs"]
mod cli;
#[path = "../examples/replay/csumcheck.rs"]
mod csumcheck;
#[path = "../examples/replay/explain.rs"]
mod explain;
#[path = "../examples/replay/gro_run.rs"]
mod gro_run;
#[path = "../examples/replay/mix.rs"]
mod mix;
#[path = "../examples/replay/nic.rs"]
mod nic;
#[path = "../examples/replay/report.rs"]
mod report;
#[path = "../examples/replay/verdicts.rs"]
mod verdicts;
#[path = "../examples/replay/walk.rs"]
mod walk;

use std::collections::HashMap;

use etherparse::{NetSlice, SlicedPacket};

fn runs() -> HashMap<(&'static str, &'static str), report::RunStats> {
    let inputs = app::mix_inputs();
    let opts = cli::Options::default();
    let mut m = HashMap::new();
    for p in nic::Profile::ALL {
        for pol in cli::Policy::ALL {
            let r = app::run(&inputs, p, pol, &opts, false);
            m.insert((p.name(), pol.name()), r.stats);
        }
    }
    m
}

/// (outer UDP length, inner TCP segment length) of a VXLAN frame, by etherparse.
fn vxlan_lengths(frame: &[u8]) -> (usize, usize) {
    let outer = SlicedPacket::from_ethernet(frame).expect("outer slices");
    let udp = outer.ip_payload().expect("outer ip").payload;
    let inner = SlicedPacket::from_ethernet(&udp[16..]).expect("inner slices");
    let Some(NetSlice::Ipv4(v4)) = &inner.net else {
        panic!("inner ipv4")
    };
    (udp.len(), v4.payload().payload.len())
}

fn class_frames(class: &str) -> Vec<Vec<u8>> {
    mix::build()
        .into_iter()
        .filter(|p| p.class == class)
        .map(|p| p.bytes)
        .collect()
}

fn merged(c: &report::ClassStats) -> bool {
    c.packets_in > 0 && c.packets_out * 2 <= c.packets_in
}

#[test]
fn l4_nic_zero_outer_csum_strict_no_gro_compute_gro_with_inner_sum_in_software() {
    let runs = runs();
    let frames = class_frames("vxlan_zero_csum");
    let inner: u64 = frames.iter().map(|f| vxlan_lengths(f).1 as u64).sum();
    let strict = &runs[&("l4", "strict")];
    let c = &strict.classes["vxlan_zero_csum"];
    assert_eq!(c.packets_in as usize, frames.len());
    assert_eq!(c.packets_out, c.packets_in, "strict: no tunnel GRO");
    assert!(
        strict
            .flush_reasons
            .get("tunnel_checksum_strict")
            .copied()
            .unwrap_or(0)
            >= c.packets_in
    );
    let compute = &runs[&("l4", "compute")];
    let c = &compute.classes["vxlan_zero_csum"];
    assert!(merged(c), "compute: tunnel GRO {c:?}");
    assert_eq!(
        c.sw_csum_bytes, inner,
        "compute: each inner TCP segment summed once in software"
    );
}

#[test]
fn l4_nic_nonzero_outer_csum_gro_under_both_policies_without_software_bytes() {
    let runs = runs();
    for pol in ["strict", "compute"] {
        for class in ["vxlan_csum", "geneve_csum"] {
            let c = &runs[&("l4", pol)].classes[class];
            assert!(merged(c), "{pol} {class}: {c:?}");
            assert_eq!(
                c.sw_csum_bytes, 0,
                "{pol} {class}: the device's outer verification converts to Complete"
            );
        }
    }
}

#[test]
fn no_offload_nonzero_outer_csum_is_summed_once_and_converted() {
    let runs = runs();
    let outer: u64 = class_frames("vxlan_csum")
        .iter()
        .map(|f| vxlan_lengths(f).0 as u64)
        .sum();
    for pol in ["strict", "compute"] {
        let c = &runs[&("none", pol)].classes["vxlan_csum"];
        assert!(merged(c), "{pol}: {c:?}");
        assert_eq!(
            c.sw_csum_bytes, outer,
            "{pol}: only the outer UDP datagram is summed"
        );
    }
    let strict = &runs[&("none", "strict")].classes["vxlan_zero_csum"];
    assert_eq!(strict.packets_out, strict.packets_in);
}

#[test]
fn tunnel_aware_and_full_sum_nics_gro_every_tunnel_with_no_software_bytes() {
    let runs = runs();
    for p in ["l4-tunnel", "complete"] {
        for pol in ["strict", "compute"] {
            for class in [
                "vxlan_zero_csum",
                "vxlan_csum",
                "geneve",
                "geneve_csum",
                "gre",
                "gre_csum",
            ] {
                let c = &runs[&(p, pol)].classes[class];
                assert!(merged(c), "{p} {pol} {class}: {c:?}");
                assert_eq!(c.sw_csum_bytes, 0, "{p} {pol} {class}");
            }
        }
    }
}

#[test]
fn every_row_no_byte_twice_corrupt_caught_options_and_fragments_never_merge() {
    let runs = runs();
    let corrupt = class_frames("corrupt").len() as u64;
    assert_eq!(corrupt, 5);
    assert_eq!(runs.len(), 8);
    for ((p, pol), r) in &runs {
        assert_eq!(r.dup_csum_bytes, 0, "{p} {pol}");
        assert_eq!(r.bad_csum, corrupt, "{p} {pol}");
        assert_eq!(r.device_faults, 0, "{p} {pol}");
        assert_eq!(r.malformed, 0, "{p} {pol}");
        for class in ["ipv4_opts", "frag", "corrupt", "ack"] {
            let c = &r.classes[class];
            assert_eq!(c.packets_out, c.packets_in, "{p} {pol} {class}");
        }
        assert!(
            merged(&r.classes["tcp4"]) && merged(&r.classes["tcp6"]),
            "{p} {pol}"
        );
        assert_eq!(r.flush_reasons.values().sum::<u64>(), r.packets_out);
    }
}

#[test]
fn json_has_every_run_and_class() {
    let inputs = app::mix_inputs();
    let opts = cli::Options::default();
    let stats: Vec<_> = [nic::Profile::L4, nic::Profile::Complete]
        .into_iter()
        .map(|p| app::run(&inputs, p, cli::Policy::Strict, &opts, false).stats)
        .collect();
    let j = report::json(&stats);
    assert!(j.starts_with("{\"runs\": [{"));
    assert_eq!(j.matches("\"profile\"").count(), 2);
    for key in [
        "packets_in",
        "packets_out",
        "merge_ratio",
        "sw_csum_bytes",
        "bad_csum",
        "device_faults",
        "malformed",
        "flush_reasons",
        "ns_per_packet",
        "classes",
    ] {
        assert!(j.matches(&format!("\"{key}\":")).count() >= 2, "{key}");
    }
    for class in mix::CLASSES {
        assert_eq!(
            j.matches(&format!("\"{class}\": {{\"packets_in\"")).count(),
            2,
            "{class}"
        );
    }
    let depth = j.chars().try_fold(0i32, |d, c| {
        let d = d + i32::from(c == '{' || c == '[') - i32::from(c == '}' || c == ']');
        (d >= 0).then_some(d)
    });
    assert_eq!(depth, Some(0), "balanced");
}

#[test]
fn explain_gives_one_line_per_frame_with_layers_and_verdict() {
    let inputs = app::mix_inputs();
    let opts = cli::Options {
        explain: 7,
        ..cli::Options::default()
    };
    let r = app::run(&inputs, nic::Profile::L4, cli::Policy::Strict, &opts, false);
    assert_eq!(r.explain.len(), 7);
    for (i, l) in r.explain.iter().enumerate() {
        assert!(l.starts_with(&format!("#{} [", i + 1)), "{l}");
        assert!(
            l.contains("eth/ipv") && l.contains("| nic: ") && l.contains("| gro: "),
            "{l}"
        );
    }
}

#[test]
fn udp_gro_merges_plain_udp_unless_switched_off() {
    let inputs = app::mix_inputs();
    let on = app::run(
        &inputs,
        nic::Profile::L4,
        cli::Policy::Compute,
        &cli::Options::default(),
        false,
    );
    let off_opts = cli::Options {
        udp_gro: false,
        ..cli::Options::default()
    };
    let off = app::run(
        &inputs,
        nic::Profile::L4,
        cli::Policy::Compute,
        &off_opts,
        false,
    );
    let (a, b) = (&on.stats.classes["udp4"], &off.stats.classes["udp4"]);
    assert!(merged(a), "{a:?}");
    assert_eq!(b.packets_out, b.packets_in);
    assert!(off.stats.flush_reasons.get("disabled").copied().unwrap_or(0) >= b.packets_in);
    // TCP is untouched by the switch.
    assert_eq!(on.stats.classes["tcp4"], off.stats.classes["tcp4"]);
}

#[test]
fn a_time_gap_flushes_every_flow() {
    let mut inputs = app::mix_inputs();
    // Space the frames 2 ms apart: with the default 1 ms gap nothing merges.
    for (i, inp) in inputs.iter_mut().enumerate() {
        inp.ts_us = 2000 * i as u64;
    }
    let opts = cli::Options::default();
    let r = app::run(
        &inputs,
        nic::Profile::Complete,
        cli::Policy::Compute,
        &opts,
        false,
    );
    assert_eq!(r.stats.packets_out, r.stats.packets_in);
    let wide = cli::Options {
        gap_us: 5000,
        ..cli::Options::default()
    };
    let r = app::run(
        &inputs,
        nic::Profile::Complete,
        cli::Policy::Compute,
        &wide,
        false,
    );
    assert!(r.stats.packets_out < r.stats.packets_in / 2);
}
