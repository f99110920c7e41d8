//! The built-in mix's key facts, the ones the summary table exists to show
//! (the Intel 82599 / VXLAN story of DESIGN.md), checked against numbers
//! recomputed here from the mix's bytes with etherparse.
#![allow(dead_code)]

use netoffload_replay::{app, cli, mix, nic, report, walk};

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
    assert!(
        off.stats
            .flush_reasons
            .get("disabled")
            .copied()
            .unwrap_or(0)
            >= b.packets_in
    );
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

/// Regression (found by the replay's "twice" column): a pure ACK inside VXLAN
/// with a zero outer UDP checksum, reported `Unnecessary` level 0 by an
/// 82599-like NIC, has its inner TCP checksum verified in software by GRO and
/// is passed up; like `__skb_incr_checksum_unnecessary` the metadata must then
/// say level 1, or the stack sums the segment a second time.
#[test]
fn gro_pass_up_raises_an_existing_level_for_software_verified_checksums() {
    use netoffload::gro::{Disposition, FlushReason, Gro, GroConfig};
    use netoffload::state::{CsumLevel, CsumMeta, CsumState};
    let frames = mix::build();
    let ack_in_vxlan = frames
        .iter()
        .find(|p| {
            p.class == "vxlan_zero_csum" && {
                let w = walk::walk(&p.bytes, netoffload::wire::LinkType::Ethernet);
                w.inner().is_some_and(|l| l.layers.payload_len() == 0)
            }
        })
        .map(|p| p.bytes.clone());
    // The mix's tunnel flows carry data only: build the ACK from a data frame.
    let bytes = ack_in_vxlan.unwrap_or_else(|| {
        let f = frames
            .iter()
            .find(|p| p.class == "vxlan_zero_csum")
            .unwrap();
        trim_to_pure_ack(&f.bytes)
    });
    let w = walk::walk(&bytes, netoffload::wire::LinkType::Ethernet);
    assert_eq!(w.levels.len(), 2);
    assert_eq!(
        nic::report(nic::Profile::L4, &bytes, &w),
        nic::Report::Unnecessary { level: 0 }
    );
    let mut gro: Box<Gro<8>> = Box::new(Gro::new(GroConfig::new()));
    let meta = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    let v = gro.receive(&bytes, 1, meta, 0, &mut |_| {});
    match v {
        Disposition::PassUp { reason, meta } => {
            assert_eq!(reason, FlushReason::PureAck);
            assert_eq!(
                meta.state(),
                CsumState::Unnecessary {
                    level: CsumLevel::L1
                }
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        gro.stats().sw_bytes > 0,
        "the inner checksum was summed by GRO"
    );
}

/// Cuts a VXLAN/IPv4/TCP data frame down to a pure ACK with correct lengths
/// and checksums (outer UDP checksum stays zero), recomputed here from scratch.
fn trim_to_pure_ack(frame: &[u8]) -> Vec<u8> {
    fn sum(data: &[u8]) -> u32 {
        data.chunks(2)
            .map(|c| (u32::from(c[0]) << 8) | c.get(1).map_or(0, |&b| u32::from(b)))
            .sum()
    }
    fn fold(mut s: u32) -> u16 {
        while s > 0xffff {
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }
    let (o_ip, o_udp, i_ip, i_tcp) = (14usize, 34usize, 64usize, 84usize);
    let mut f = frame[..i_tcp + 20].to_vec();
    let inner_len = 40u16;
    f[i_ip + 2..i_ip + 4].copy_from_slice(&inner_len.to_be_bytes());
    f[i_ip + 10..i_ip + 12].fill(0);
    let c = fold(sum(&f[i_ip..i_ip + 20]));
    f[i_ip + 10..i_ip + 12].copy_from_slice(&c.to_be_bytes());
    f[i_tcp + 13] = 0x10;
    f[i_tcp + 16..i_tcp + 18].fill(0);
    let mut pseudo = f[i_ip + 12..i_ip + 20].to_vec();
    pseudo.extend_from_slice(&[0, 6, 0, 20]);
    pseudo.extend_from_slice(&f[i_tcp..i_tcp + 20]);
    let c = fold(sum(&pseudo));
    f[i_tcp + 16..i_tcp + 18].copy_from_slice(&c.to_be_bytes());
    let udp_len = (f.len() - o_udp) as u16;
    f[o_udp + 4..o_udp + 6].copy_from_slice(&udp_len.to_be_bytes());
    let ip_len = (f.len() - o_ip) as u16;
    f[o_ip + 2..o_ip + 4].copy_from_slice(&ip_len.to_be_bytes());
    f[o_ip + 10..o_ip + 12].fill(0);
    let c = fold(sum(&f[o_ip..o_ip + 20]));
    f[o_ip + 10..o_ip + 12].copy_from_slice(&c.to_be_bytes());
    f
}
