//! Orchestration: inputs (built-in mix or a capture), the simulated poll loop,
//! the runs, and the outputs (`--verdicts`, `--gro`, `--explain`, table, JSON).

use std::io::Write;
use std::time::{Duration, Instant};

use netoffload::wire::LinkType;

use crate::capture;
use crate::cli::{Options, Policy, Sink};
use crate::explain;
use crate::gro_run::{Config, Engine, Out};
use crate::mix;
use crate::nic::{self, Profile};
use crate::report::RunStats;
use crate::verdicts;
use crate::walk::{self, Stop};

/// One frame to replay.
#[derive(Clone, Debug)]
pub struct Input {
    /// Frame bytes (Ethernet, or IP for non-Ethernet captures).
    pub bytes: Vec<u8>,
    /// How the bytes begin.
    pub link: LinkType,
    /// Timestamp in microseconds.
    pub ts_us: u64,
    /// Captured shorter than it was on the wire.
    pub truncated: bool,
    /// Unusable link framing.
    pub bad_link: Option<String>,
    /// Traffic class for the per-class statistics (mix class, or outer encapsulation).
    pub class: String,
}

/// The built-in mix as inputs.
pub fn mix_inputs() -> Vec<Input> {
    mix::build()
        .into_iter()
        .map(|p| Input {
            bytes: p.bytes,
            link: LinkType::Ethernet,
            ts_us: p.ts_us,
            truncated: false,
            bad_link: None,
            class: {
                debug_assert!(
                    mix::CLASSES.contains(&p.class),
                    "unlisted class {}",
                    p.class
                );
                p.class.to_string()
            },
        })
        .collect()
}

/// A capture's frames as inputs, classed by their outermost encapsulation.
pub fn capture_inputs(path: &str) -> Result<Vec<Input>, capture::CaptureError> {
    let frames = capture::read(path)?;
    Ok(frames
        .into_iter()
        .map(|f| {
            let w = walk::walk(&f.bytes, f.link);
            let class = if f.bad_link.is_some() {
                "not_ip".to_string()
            } else {
                capture_class(&w)
            };
            Input {
                bytes: f.bytes,
                link: f.link,
                ts_us: f.ts_us,
                truncated: f.truncated,
                bad_link: f.bad_link,
                class,
            }
        })
        .collect())
}

fn capture_class(w: &walk::Walk) -> String {
    match (&w.stop, w.outer_tunnel()) {
        (_, Some(t)) => t.name().to_string(),
        (Some(Stop::NotIp { .. }), None) => "not_ip".into(),
        (Some(Stop::Malformed(_)), None) => "malformed".into(),
        _ => "plain".into(),
    }
}

/// The verdict rows of every frame (independent of NIC and policy).
pub fn all_verdicts(inputs: &[Input]) -> Vec<verdicts::Row> {
    let mut rows = Vec::new();
    for (i, inp) in inputs.iter().enumerate() {
        if inp.bad_link.is_some() {
            continue;
        }
        let w = walk::walk(&inp.bytes, inp.link);
        rows.extend(verdicts::frame_rows(
            i as u64 + 1,
            &inp.bytes,
            &w,
            inp.truncated,
        ));
    }
    rows
}

/// What one run produced.
pub struct RunResult {
    /// Statistics.
    pub stats: RunStats,
    /// Packets handed up, in order.
    pub outs: Vec<Out>,
    /// Explanation lines (first `explain` frames).
    pub explain: Vec<String>,
}

/// Replays `inputs` once under one NIC profile and policy.
pub fn run(
    inputs: &[Input],
    profile: Profile,
    policy: Policy,
    o: &Options,
    progress: bool,
) -> RunResult {
    // The simulated device's reports are computed first: the device's work is
    // not part of the measured time.
    let reports: Vec<nic::Report> = inputs
        .iter()
        .map(|inp| {
            let w = walk::walk(&inp.bytes, inp.link);
            nic::report(profile, &inp.bytes, &w)
        })
        .collect();
    let mut engine = Engine::new(Config::new(policy, o.udp_gro));
    let mut stats = RunStats {
        profile: profile.name(),
        policy: policy.name(),
        ..RunStats::default()
    };
    let mut outs: Vec<Out> = Vec::with_capacity(inputs.len());
    let mut explain = Vec::new();
    let mut in_poll = 0usize;
    let mut prev_ts: Option<u64> = None;
    let mut busy = Duration::ZERO;
    let started = Instant::now();
    let mut last_progress = Instant::now();
    let mut steps = Vec::new();
    for (i, inp) in inputs.iter().enumerate() {
        let frame = i as u64 + 1;
        let cls = stats.classes.entry(inp.class.clone()).or_default();
        cls.packets_in += 1;
        stats.packets_in += 1;
        let t0 = Instant::now();
        if prev_ts.is_some_and(|p| inp.ts_us.saturating_sub(p) > o.gap_us) {
            engine.flush_all("gap", &mut outs);
            in_poll = 0;
        }
        prev_ts = Some(inp.ts_us);
        let w = if inp.bad_link.is_some() {
            walk::Walk {
                levels: Vec::new(),
                stop: Some(Stop::Malformed(inp.bad_link.clone().unwrap_or_default())),
            }
        } else {
            walk::walk(&inp.bytes, inp.link)
        };
        let want = (frame as usize) <= o.explain;
        steps.clear();
        let r = engine.receive(
            frame,
            &inp.bytes,
            &w,
            reports[i],
            want.then_some(&mut steps),
            &mut outs,
        );
        in_poll += 1;
        if in_poll >= o.budget {
            engine.flush_all("poll_end", &mut outs);
            in_poll = 0;
        }
        busy += t0.elapsed();
        stats.sw_csum_bytes += r.cost.sw_bytes;
        stats.dup_csum_bytes += r.cost.dup_bytes;
        stats.sw_adjust_bytes += r.cost.adjust_bytes;
        stats.bad_csum += u64::from(r.cost.bad);
        stats.device_faults += u64::from(r.cost.fault);
        match &w.stop {
            Some(Stop::Malformed(_) | Stop::InnerMalformed { .. } | Stop::TooDeep) => {
                stats.malformed += 1
            }
            Some(Stop::NotIp { .. }) => stats.not_ip += 1,
            _ => {}
        }
        if let Some(c) = stats.classes.get_mut(&inp.class) {
            c.sw_csum_bytes += r.cost.sw_bytes;
        }
        if want {
            explain.push(explain::line(
                frame,
                &inp.class,
                inp.bytes.len(),
                &w.chain(&inp.bytes),
                reports[i],
                &steps,
                &r.verdict,
            ));
        }
        if progress
            && last_progress.elapsed() > Duration::from_secs(1)
            && started.elapsed() > Duration::from_secs(2)
        {
            eprint!(
                "\rreplay: {} {}: {}/{} frames ({:.0}%)",
                profile.name(),
                policy.name(),
                frame,
                inputs.len(),
                100.0 * frame as f64 / inputs.len() as f64
            );
            last_progress = Instant::now();
        }
    }
    let t0 = Instant::now();
    engine.flush_all("poll_end", &mut outs);
    busy += t0.elapsed();
    if progress && started.elapsed() > Duration::from_secs(2) {
        eprintln!(
            "\rreplay: {} {}: {} frames done            ",
            profile.name(),
            policy.name(),
            inputs.len()
        );
    }
    stats.packets_out = outs.len() as u64;
    for out in &outs {
        *stats.flush_reasons.entry(out.reason).or_default() += 1;
        if let Some(&f) = out.frames.first() {
            let class = &inputs[(f - 1) as usize].class;
            stats.classes.entry(class.clone()).or_default().packets_out += 1;
        }
    }
    stats.ns_per_packet = if inputs.is_empty() {
        0.0
    } else {
        busy.as_nanos() as f64 / inputs.len() as f64
    };
    RunResult {
        stats,
        outs,
        explain,
    }
}

fn open(sink: &Sink) -> std::io::Result<Box<dyn Write>> {
    Ok(match sink {
        Sink::Stdout => Box::new(std::io::stdout().lock()),
        Sink::File(p) => Box::new(std::io::BufWriter::new(std::fs::File::create(p)?)),
    })
}

/// Writes the `--gro` CSV.
pub fn write_gro(out: &mut dyn Write, outs: &[Out]) -> std::io::Result<()> {
    writeln!(out, "out,frames,segments,payload_bytes,reason")?;
    for (i, o) in outs.iter().enumerate() {
        let frames: Vec<String> = o.frames.iter().map(u64::to_string).collect();
        writeln!(
            out,
            "{},{},{},{},{}",
            i + 1,
            frames.join(";"),
            o.segments,
            o.payload_bytes,
            o.reason
        )?;
    }
    Ok(())
}

/// Runs the whole tool; returns the process exit code.
pub fn main_with(o: &Options) -> Result<(), String> {
    let (inputs, title) = match &o.file {
        Some(path) => {
            let inputs = capture_inputs(path).map_err(|e| e.to_string())?;
            (inputs, format!("replay of {path}"))
        }
        None => (
            mix_inputs(),
            "replay of the built-in traffic mix (deterministic, generated in code)".to_string(),
        ),
    };
    // A capture runs once (defaults l4 / compute); the mix runs every
    // combination unless --nic / --policy pin one.
    let profiles: Vec<Profile> = match (o.nic, &o.file) {
        (Some(p), _) => vec![p],
        (None, Some(_)) => vec![Profile::L4],
        (None, None) => Profile::ALL.to_vec(),
    };
    let policies: Vec<Policy> = match (o.policy, &o.file) {
        (Some(p), _) => vec![p],
        (None, Some(_)) => vec![Policy::Compute],
        (None, None) => Policy::ALL.to_vec(),
    };
    if o.gro.is_some() && profiles.len() * policies.len() > 1 {
        return Err("--gro writes one run: pick it with --nic and --policy".into());
    }
    if let Some(sink) = &o.verdicts {
        let rows = all_verdicts(&inputs);
        let mut w = open(sink).map_err(|e| format!("--verdicts: {e}"))?;
        verdicts::write_header(&mut *w)
            .and_then(|_| verdicts::write_rows(&mut *w, &rows))
            .map_err(|e| format!("--verdicts: {e}"))?;
        w.flush().map_err(|e| format!("--verdicts: {e}"))?;
    }
    let mut runs = Vec::new();
    for &p in &profiles {
        for &pol in &policies {
            let mut r = run(&inputs, p, pol, o, o.file.is_some());
            // The mix is small: time it three times and keep the fastest
            // (every other number is deterministic and identical).
            if o.file.is_none() {
                for _ in 0..2 {
                    let again = run(&inputs, p, pol, o, false);
                    r.stats.ns_per_packet = r.stats.ns_per_packet.min(again.stats.ns_per_packet);
                }
            }
            if o.explain > 0 {
                println!("explain: nic {} policy {}", p.name(), pol.name());
                for l in &r.explain {
                    println!("  {l}");
                }
            }
            if let Some(sink) = &o.gro {
                let mut w = open(sink).map_err(|e| format!("--gro: {e}"))?;
                write_gro(&mut *w, &r.outs)
                    .and_then(|_| w.flush())
                    .map_err(|e| format!("--gro: {e}"))?;
            }
            runs.push(r.stats);
        }
    }
    let stdout_busy = o.verdicts == Some(Sink::Stdout) || o.gro == Some(Sink::Stdout);
    if o.json {
        println!("{}", crate::report::json(&runs));
    } else if stdout_busy {
        eprint!("{}", crate::report::table(&runs, &title));
    } else {
        print!("{}", crate::report::table(&runs, &title));
        if o.file.is_none() {
            print!("{}", story(&runs));
        }
    }
    Ok(())
}

/// The 82599 story in words, read off the runs (only lines whose facts hold are printed).
pub fn story(runs: &[RunStats]) -> String {
    let get = |p: &str, pol: &str, c: &str| {
        runs.iter()
            .find(|r| r.profile == p && r.policy == pol)
            .and_then(|r| r.classes.get(c).cloned())
    };
    let mut s = String::from("\nReading the table (VXLAN rows, ixgbe/82599-like `l4` NIC):\n");
    if let (Some(st), Some(co)) = (
        get("l4", "strict", "vxlan_zero_csum"),
        get("l4", "compute", "vxlan_zero_csum"),
    ) {
        s.push_str(&format!(
            "  zero outer UDP checksum: strict merges {:.2}x (no tunnel GRO), compute merges {:.2}x \
             and sums {:.0} inner bytes per packet in software\n",
            st.merge_ratio(),
            co.merge_ratio(),
            co.sw_csum_bytes as f64 / co.packets_in.max(1) as f64
        ));
    }
    if let (Some(st), Some(co)) = (
        get("l4", "strict", "vxlan_csum"),
        get("l4", "compute", "vxlan_csum"),
    ) {
        s.push_str(&format!(
            "  non-zero outer checksum: the device's verification converts to Complete; strict {:.2}x, \
             compute {:.2}x, {:.0} software bytes per packet\n",
            st.merge_ratio(),
            co.merge_ratio(),
            co.sw_csum_bytes as f64 / co.packets_in.max(1) as f64
        ));
    }
    if let (Some(t), Some(c)) = (
        get("l4-tunnel", "strict", "vxlan_zero_csum"),
        get("complete", "strict", "vxlan_zero_csum"),
    ) {
        s.push_str(&format!(
            "  tunnel-aware / full-sum NIC: {:.2}x / {:.2}x with {} / {} software bytes\n",
            t.merge_ratio(),
            c.merge_ratio(),
            t.sw_csum_bytes,
            c.sw_csum_bytes
        ));
    }
    let twice: u64 = runs.iter().map(|r| r.dup_csum_bytes).sum();
    s.push_str(&format!("  bytes summed twice, all rows: {twice}\n"));
    s
}
