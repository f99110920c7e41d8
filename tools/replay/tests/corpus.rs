//! The replay tool on the real captures of ../shared/corpus/pcap (those tests
//! are ignored unless asked for with `-- --ignored`) and on the built-in mix:
//! - `--verdicts` against an independent check: every frame is re-sliced with
//!   etherparse (and a hand-written tunnel walk), every checksum recomputed with
//!   a naive ones-complement sum (CRC32c with the `crc32c` crate), and each
//!   verdict the oracle can form must equal the tool's;
//! - every capture replays under every NIC profile and policy, every frame
//!   goes up exactly once, and payload bytes in equal payload bytes out per flow
//!   (flows and payload lengths found by etherparse, not by the tool).
#![allow(dead_code)]

use netoffload_replay::{app, cli, csumcheck, nic, walk};

use std::collections::HashMap;
use std::path::PathBuf;

use etherparse::{NetSlice, SlicedPacket};
use netoffload::wire::LinkType;

/// The corpus: `$NETOFFLOAD_CORPUS/pcap`, else `shared/corpus/pcap` beside the
/// checkout or a parent folder. The tests that need it are
/// `#[ignore = "needs ../shared/corpus"]` (run with `-- --ignored`); once asked
/// to run, a missing corpus fails them.
fn corpus_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("NETOFFLOAD_CORPUS") {
        return Some(PathBuf::from(dir).join("pcap"));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    ["../shared/corpus/pcap", "../../shared/corpus/pcap"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.is_dir())
}

/// Naive RFC 1071 sum: big-endian 16-bit words, end-around carry, no complement.
fn naive_sum(data: &[u8]) -> u16 {
    let mut s: u64 = 0;
    for c in data.chunks(2) {
        let w = (u64::from(c[0]) << 8) | c.get(1).map_or(0, |&b| u64::from(b));
        s += w;
    }
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

fn verifies(data: &[u8]) -> bool {
    naive_sum(data) == 0xffff
}

fn status(ok: bool) -> &'static str {
    if ok { "good" } else { "bad" }
}

type Rows = Vec<(usize, &'static str, &'static str)>;

/// Oracle rows of one L4 payload, and the descent into a tunnel.
#[allow(clippy::too_many_arguments)]
fn l4(payload: &[u8], proto: u8, pseudo: &dyn Fn(u8) -> Vec<u8>, depth: usize, rows: &mut Rows) {
    let with_pseudo = |p: u8| {
        let mut v = pseudo(p);
        v.extend_from_slice(payload);
        v
    };
    match proto {
        6 => rows.push((depth, "tcp", status(verifies(&with_pseudo(6))))),
        17 if payload.len() >= 8 => {
            if payload[6..8] == [0, 0] {
                rows.push((depth, "udp", "zero"));
            } else {
                rows.push((depth, "udp", status(verifies(&with_pseudo(17)))));
            }
            let dport = u16::from_be_bytes([payload[2], payload[3]]);
            let body = &payload[8..];
            match dport {
                4789 if body.len() >= 8 => ethernet(&body[8..], depth + 1, rows),
                6081 if body.len() >= 8 => {
                    let len = 8 + (body[0] & 0x3f) as usize * 4;
                    let pt = u16::from_be_bytes([body[2], body[3]]);
                    if let Some(inner) = body.get(len..) {
                        by_type(pt, inner, depth + 1, rows);
                    }
                }
                _ => {}
            }
        }
        1 => rows.push((depth, "icmp", status(verifies(payload)))),
        58 => rows.push((depth, "icmpv6", status(verifies(&with_pseudo(58))))),
        132 if payload.len() >= 12 => {
            let stored = u32::from_le_bytes([payload[8], payload[9], payload[10], payload[11]]);
            let mut c = payload.to_vec();
            c[8..12].fill(0);
            rows.push((depth, "sctp", status(crc32c::crc32c(&c) == stored)));
        }
        47 if payload.len() >= 4 => {
            let f = payload[0];
            if f & 0x80 != 0 {
                rows.push((depth, "gre", status(verifies(payload))));
            }
            let version = payload[1] & 7;
            let mut len = 4;
            for bit in [0x80, 0x20, 0x10] {
                if f & bit != 0 {
                    len += 4;
                }
            }
            if version == 0 {
                let pt = u16::from_be_bytes([payload[2], payload[3]]);
                if let Some(inner) = payload.get(len..) {
                    by_type(pt, inner, depth + 1, rows);
                }
            }
        }
        4 | 41 => ip(payload, depth + 1, rows),
        _ => {}
    }
}

fn by_type(pt: u16, inner: &[u8], depth: usize, rows: &mut Rows) {
    match pt {
        0x6558 => ethernet(inner, depth, rows),
        0x0800 | 0x86dd => ip(inner, depth, rows),
        _ => {}
    }
}

fn ethernet(frame: &[u8], depth: usize, rows: &mut Rows) {
    if let Ok(p) = SlicedPacket::from_ethernet(frame) {
        packet(&p, depth, rows);
    }
}

fn ip(bytes: &[u8], depth: usize, rows: &mut Rows) {
    if let Ok(p) = SlicedPacket::from_ip(bytes) {
        packet(&p, depth, rows);
    }
}

/// True when an IPv6 extension chain holds a routing or destination-options
/// header (they can move the pseudo-header's addresses; the oracle skips those).
fn moves_pseudo(first: Option<u8>, exts: &[u8]) -> bool {
    let mut next = first;
    let mut at = 0;
    while let Some(n) = next {
        if at >= exts.len() {
            break;
        }
        if n == 43 || n == 60 {
            return true;
        }
        let len = match n {
            44 => 8,
            51 => (usize::from(exts[at + 1]) + 2) * 4,
            _ => (usize::from(exts[at + 1]) + 1) * 8,
        };
        next = Some(exts[at]);
        at += len;
    }
    false
}

fn packet(p: &SlicedPacket<'_>, depth: usize, rows: &mut Rows) {
    match &p.net {
        Some(NetSlice::Ipv4(v4)) => {
            let h = v4.header();
            rows.push((depth, "ipv4", status(verifies(h.slice()))));
            let pl = v4.payload();
            let (s, d) = (h.source(), h.destination());
            let len = pl.payload.len();
            let pseudo = move |proto: u8| {
                let mut v = Vec::with_capacity(12);
                v.extend_from_slice(&s);
                v.extend_from_slice(&d);
                v.extend_from_slice(&[0, proto]);
                v.extend_from_slice(&(len as u16).to_be_bytes());
                v
            };
            if pl.fragmented {
                let offset = u16::from_be_bytes([h.slice()[6], h.slice()[7]]) & 0x1fff;
                if offset == 0 && matches!(pl.ip_number.0, 6 | 17 | 1 | 58 | 132) {
                    let name = match pl.ip_number.0 {
                        6 => "tcp",
                        17 => "udp",
                        1 => "icmp",
                        58 => "icmpv6",
                        _ => "sctp",
                    };
                    rows.push((depth, name, "unverified"));
                }
                return;
            }
            l4(pl.payload, pl.ip_number.0, &pseudo, depth, rows);
        }
        Some(NetSlice::Ipv6(v6)) => {
            let h = v6.header();
            let pl = v6.payload();
            if pl.fragmented {
                return;
            }
            let exts = v6.extensions();
            if moves_pseudo(exts.first_header().map(|n| n.0), exts.slice()) {
                return;
            }
            let (s, d) = (h.source(), h.destination());
            let len = pl.payload.len();
            let pseudo = move |proto: u8| {
                let mut v = Vec::with_capacity(40);
                v.extend_from_slice(&s);
                v.extend_from_slice(&d);
                v.extend_from_slice(&(len as u32).to_be_bytes());
                v.extend_from_slice(&[0, 0, 0, proto]);
                v
            };
            l4(pl.payload, pl.ip_number.0, &pseudo, depth, rows);
        }
        _ => {}
    }
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn verdicts_agree_with_etherparse_and_a_naive_sum() {
    let Some(dir) = corpus_dir() else {
        panic!("../shared/corpus/pcap not found (set NETOFFLOAD_CORPUS)");
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no captures in {}", dir.display());
    let (mut compared, mut by_status) = (0usize, HashMap::<&str, usize>::new());
    let mut mismatches = Vec::new();
    for path in &files {
        let inputs = app::capture_inputs(path.to_str().unwrap()).expect("capture reads");
        let ours = app::all_verdicts(&inputs);
        let mut table: HashMap<(u64, usize, &str), &str> = HashMap::new();
        for r in &ours {
            let dup = table.insert((r.frame, r.depth, r.layer.name()), r.status.name());
            assert!(
                dup.is_none(),
                "{}: frame {} has two {} rows at depth {}",
                path.display(),
                r.frame,
                r.layer.name(),
                r.depth
            );
        }
        for (i, inp) in inputs.iter().enumerate() {
            let frame = i as u64 + 1;
            let mut rows = Rows::new();
            match inp.link {
                LinkType::Ethernet => ethernet(&inp.bytes, 0, &mut rows),
                LinkType::RawIp => ip(&inp.bytes, 0, &mut rows),
            }
            for (depth, layer, want) in rows {
                compared += 1;
                *by_status.entry(want).or_default() += 1;
                let got = table.get(&(frame, depth, layer)).copied();
                if got != Some(want) {
                    mismatches.push(format!(
                        "{} frame {frame} depth {depth} {layer}: oracle {want}, tool {got:?}",
                        path.file_name().unwrap().to_string_lossy()
                    ));
                }
            }
        }
    }
    for m in mismatches.iter().take(30) {
        eprintln!("{m}");
    }
    eprintln!("compared {compared} verdicts: {by_status:?}");
    assert!(
        mismatches.is_empty(),
        "{} verdicts disagree",
        mismatches.len()
    );
    // The corpus has thousands of checksums of every status; a vacuous run fails here.
    assert!(compared > 5000, "only {compared} verdicts compared");
    for s in ["good", "bad", "zero", "unverified"] {
        assert!(
            by_status.get(s).copied().unwrap_or(0) > 0,
            "no {s} verdict compared"
        );
    }
}

#[test]
fn mix_verdicts_agree_with_etherparse_and_a_naive_sum() {
    let inputs = app::mix_inputs();
    let ours = app::all_verdicts(&inputs);
    let table: HashMap<(u64, usize, &str), &str> = ours
        .iter()
        .map(|r| ((r.frame, r.depth, r.layer.name()), r.status.name()))
        .collect();
    let mut compared = 0;
    let mut bad = 0;
    for (i, inp) in inputs.iter().enumerate() {
        let mut rows = Rows::new();
        ethernet(&inp.bytes, 0, &mut rows);
        for (depth, layer, want) in rows {
            compared += 1;
            bad += usize::from(want == "bad");
            assert_eq!(
                table.get(&(i as u64 + 1, depth, layer)).copied(),
                Some(want),
                "frame {} ({}) depth {depth} {layer}",
                i + 1,
                inp.class
            );
        }
    }
    assert!(
        compared > inputs.len(),
        "{compared} rows for {} frames",
        inputs.len()
    );
    // The corrupt class: two TCP payload flips, an inner TCP in VXLAN, an IPv4 header, a UDP.
    assert_eq!(bad, 5);
}

/// The innermost TCP/UDP flow of a packet (addresses, protocol, ports of the
/// innermost level) and its payload length, found by etherparse; `None` for
/// fragments, non-IP and anything etherparse cannot slice.
fn innermost(p: &SlicedPacket<'_>) -> Option<(Vec<u8>, usize)> {
    let mut key = Vec::new();
    let pl = match &p.net {
        Some(NetSlice::Ipv4(v4)) => {
            key.extend_from_slice(&v4.header().source());
            key.extend_from_slice(&v4.header().destination());
            v4.payload()
        }
        Some(NetSlice::Ipv6(v6)) => {
            key.extend_from_slice(&v6.header().source());
            key.extend_from_slice(&v6.header().destination());
            v6.payload()
        }
        _ => return None,
    };
    if pl.fragmented {
        return None;
    }
    let b = pl.payload;
    key.push(pl.ip_number.0);
    match pl.ip_number.0 {
        6 | 17 if b.len() >= 8 => {
            key.extend_from_slice(&b[..4]);
            let dport = u16::from_be_bytes([b[2], b[3]]);
            if pl.ip_number.0 == 17 {
                let body = &b[8..];
                match dport {
                    4789 => {
                        return SlicedPacket::from_ethernet(body.get(8..)?)
                            .ok()
                            .as_ref()
                            .and_then(innermost);
                    }
                    6081 if !body.is_empty() => {
                        let len = 8 + (body[0] & 0x3f) as usize * 4;
                        let pt = u16::from_be_bytes([*body.get(2)?, *body.get(3)?]);
                        let inner = body.get(len..)?;
                        return match pt {
                            0x6558 => SlicedPacket::from_ethernet(inner)
                                .ok()
                                .as_ref()
                                .and_then(innermost),
                            _ => SlicedPacket::from_ip(inner)
                                .ok()
                                .as_ref()
                                .and_then(innermost),
                        };
                    }
                    // Tunnels the oracle does not decode (MPLS-in-UDP, GRE-in-UDP).
                    6635 | 4754 => return None,
                    _ => return Some((key, body.len())),
                }
            }
            match &p.transport {
                Some(etherparse::TransportSlice::Tcp(t)) => Some((key, t.payload().len())),
                _ => None,
            }
        }
        47 if b.len() >= 4 && b[1] & 7 == 0 => {
            let mut len = 4;
            for bit in [0x80, 0x20, 0x10] {
                if b[0] & bit != 0 {
                    len += 4;
                }
            }
            let pt = u16::from_be_bytes([b[2], b[3]]);
            let inner = b.get(len..)?;
            match pt {
                0x6558 => SlicedPacket::from_ethernet(inner)
                    .ok()
                    .as_ref()
                    .and_then(innermost),
                0x0800 | 0x86dd => SlicedPacket::from_ip(inner)
                    .ok()
                    .as_ref()
                    .and_then(innermost),
                _ => None,
            }
        }
        4 | 41 => SlicedPacket::from_ip(b).ok().as_ref().and_then(innermost),
        _ => None,
    }
}

fn oracle_flow(inp: &app::Input) -> Option<(Vec<u8>, usize)> {
    let p = match inp.link {
        LinkType::Ethernet => SlicedPacket::from_ethernet(&inp.bytes),
        LinkType::RawIp => SlicedPacket::from_ip(&inp.bytes),
    };
    p.ok().as_ref().and_then(innermost)
}

/// Replays `inputs` under every profile and policy and checks conservation:
/// each frame out exactly once, a merged packet's frames in order and of one
/// flow, payload bytes per flow in == out. Returns the number of merged frames.
fn check_conservation(name: &str, inputs: &[app::Input], budget: usize) -> usize {
    let oracle: Vec<Option<(Vec<u8>, usize)>> = inputs.iter().map(oracle_flow).collect();
    let mut merged_frames = 0;
    for profile in nic::Profile::ALL {
        for policy in cli::Policy::ALL {
            let opts = cli::Options {
                budget,
                ..cli::Options::default()
            };
            let r = app::run(inputs, profile, policy, &opts, false);
            let tag = format!("{name} nic {} policy {}", profile.name(), policy.name());
            assert_eq!(r.stats.packets_in as usize, inputs.len(), "{tag}");
            assert_eq!(r.stats.dup_csum_bytes, 0, "{tag}: bytes summed twice");
            let mut seen = vec![0u8; inputs.len()];
            let mut flow_in: HashMap<Vec<u8>, u64> = HashMap::new();
            let mut flow_out: HashMap<Vec<u8>, u64> = HashMap::new();
            for (f, o) in oracle.iter().enumerate() {
                if let Some((k, len)) = o {
                    *flow_in.entry(k.clone()).or_default() += *len as u64;
                    let _ = f;
                }
            }
            for out in &r.outs {
                assert_eq!(out.segments as usize, out.frames.len(), "{tag}: {out:?}");
                assert!(
                    out.frames.windows(2).all(|w| w[0] < w[1]),
                    "{tag}: out of order {out:?}"
                );
                let mut sum = 0u64;
                let mut flow: Option<&Vec<u8>> = None;
                let mut known = true;
                for &f in &out.frames {
                    let i = (f - 1) as usize;
                    seen[i] += 1;
                    match &oracle[i] {
                        Some((k, len)) => {
                            sum += *len as u64;
                            if let Some(prev) = flow {
                                assert_eq!(prev, k, "{tag}: frames of two flows merged: {out:?}");
                            }
                            flow = Some(k);
                        }
                        None => known = false,
                    }
                }
                if out.frames.len() > 1 {
                    merged_frames += out.frames.len();
                    assert!(
                        known,
                        "{tag}: merged a frame the oracle cannot slice: {out:?}"
                    );
                }
                if known && let Some(k) = flow {
                    assert_eq!(out.payload_bytes, sum, "{tag}: payload of {out:?}");
                    *flow_out.entry(k.clone()).or_default() += out.payload_bytes;
                }
            }
            assert!(
                seen.iter().all(|&n| n == 1),
                "{tag}: a frame went up {:?} times",
                seen.iter().find(|&&n| n != 1)
            );
            assert_eq!(flow_in, flow_out, "{tag}: payload bytes per flow");
        }
    }
    merged_frames
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn every_capture_replays_under_every_profile_and_conserves_payload() {
    let Some(dir) = corpus_dir() else {
        panic!("../shared/corpus/pcap not found (set NETOFFLOAD_CORPUS)");
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .collect();
    files.sort();
    let mut merged = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let inputs = app::capture_inputs(path.to_str().unwrap()).expect("capture reads");
        assert!(!inputs.is_empty(), "{name}: no frames");
        merged += check_conservation(&name, &inputs, 64);
    }
    // iso-download alone holds a bulk flow of about 250 segments: GRO must merge.
    assert!(merged > 200, "only {merged} frames merged over the corpus");
}

#[test]
fn the_mix_conserves_payload_per_flow() {
    let inputs = app::mix_inputs();
    let merged = check_conservation("mix", &inputs, 64);
    assert!(
        merged > inputs.len() / 2,
        "{merged} of {} frames merged",
        inputs.len()
    );
    // A budget of one frame per poll flushes after every frame: nothing merges.
    assert_eq!(check_conservation("mix budget 1", &inputs, 1), 0);
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn state_validate_agrees_with_the_verdicts_on_every_level() {
    use netoffload::state::{CsumMeta, CsumVerdict, Packet, ValidateOptions, ZeroUdp6};
    let Some(dir) = corpus_dir() else {
        panic!("../shared/corpus/pcap not found (set NETOFFLOAD_CORPUS)");
    };
    let mut compared = 0;
    let mut mismatches = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "pcap"))
    {
        let inputs = app::capture_inputs(path.to_str().unwrap()).unwrap();
        let rows = app::all_verdicts(&inputs);
        let table: HashMap<(u64, usize, &str), &str> = rows
            .iter()
            .map(|r| ((r.frame, r.depth, r.layer.name()), r.status.name()))
            .collect();
        for (i, inp) in inputs.iter().enumerate() {
            let w = walk::walk(&inp.bytes, inp.link);
            for (depth, lv) in w.levels.iter().enumerate() {
                let l = &lv.layers;
                let Some(layer) = csumcheck::l4_layer(&inp.bytes, l) else {
                    continue;
                };
                if l.fragment.is_fragment {
                    continue;
                }
                let b = &inp.bytes[..l.end];
                let pkt = Packet::new(b, *l, l.l3).unwrap();
                let opts = ValidateOptions {
                    zero_udp6: ZeroUdp6::Accept,
                };
                let Ok(o) = netoffload::state::validate_with(CsumMeta::NONE, &pkt, opts) else {
                    continue;
                };
                let got = match o.verdict {
                    CsumVerdict::Good => "good",
                    CsumVerdict::Bad => "bad",
                    CsumVerdict::NoChecksum => "zero",
                    CsumVerdict::NotChecked => "not checked",
                };
                let want = table.get(&(i as u64 + 1, depth, layer.name())).copied();
                compared += 1;
                if want != Some(got) {
                    mismatches.push(format!(
                        "{} frame {} depth {depth} {}: verdicts {want:?}, state::validate {got} ({})",
                        path.file_name().unwrap().to_string_lossy(),
                        i + 1,
                        layer.name(),
                        o.reason
                    ));
                }
            }
        }
    }
    for m in mismatches.iter().take(20) {
        eprintln!("{m}");
    }
    assert!(mismatches.is_empty(), "{} disagreements", mismatches.len());
    assert!(compared > 4000, "{compared}");
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn the_walk_and_encap_decap_find_the_same_inner_packets() {
    use netoffload::encap::{EncapConfig, decap_nested};
    use netoffload::state::{CsumLevel, CsumMeta, CsumState};
    let Some(dir) = corpus_dir() else {
        panic!("../shared/corpus/pcap not found (set NETOFFLOAD_CORPUS)");
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // GENEVE critical options are refused by default (Linux drops them outside
    // collect_md mode); accepted here, where only offsets are compared.
    let cfg = EncapConfig {
        geneve_accept_critical: true,
        ..EncapConfig::default()
    };
    let (mut compared, mut mismatches) = (0, Vec::new());
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "pcap"))
    {
        let inputs = app::capture_inputs(path.to_str().unwrap()).unwrap();
        for (i, inp) in inputs.iter().enumerate() {
            let w = walk::walk(&inp.bytes, inp.link);
            // The tunnels both sides decode, outermost first.
            let mut n = 0;
            while let Some(t) = w.levels.get(n).and_then(|lv| lv.tunnel) {
                if matches!(t.kind, walk::TunnelKind::GreUdp | walk::TunnelKind::MplsUdp)
                    || w.levels.get(n + 1).is_none()
                {
                    break;
                }
                n += 1;
            }
            // A last tunnel whose inside is not IP (PPTP's GRE version 1 with PPP,
            // VXLAN carrying ARP): encap refuses it, the walk stops before it.
            let undecodable_tail = w.levels.get(n).is_some_and(|lv| lv.tunnel.is_some());
            if n == 0 || undecodable_tail {
                continue;
            }
            let too_deep = n > cfg.max_depth as usize;
            let want = w.levels[n].layers.l3;
            let outer = w.levels[0].layers;
            let b = &inp.bytes[..outer.end];
            // A device level covering every checksum: only offsets are compared.
            let meta = CsumMeta::from_state(CsumState::Unnecessary {
                level: CsumLevel::L3,
            });
            let got = decap_nested(b, &outer, outer.l3, meta, &cfg);
            compared += 1;
            match got {
                Ok(n) if !too_deep && n.inner.l3 == want => {}
                Err(r)
                    if too_deep
                        && matches!(r.error, netoffload::encap::DecapError::TooDeep { .. }) => {}
                other => mismatches.push(format!(
                    "{} frame {}: walk inner l3 {want}, decap_nested {:?}",
                    path.file_name().unwrap().to_string_lossy(),
                    i + 1,
                    other.map(|n| n.inner.l3).map_err(|r| r.error)
                )),
            }
        }
    }
    for m in mismatches.iter().take(20) {
        eprintln!("{m}");
    }
    eprintln!("compared {compared} tunnelled frames");
    assert!(mismatches.is_empty(), "{} disagreements", mismatches.len());
    assert!(compared > 500, "{compared}");
}
