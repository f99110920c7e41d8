//! Orchestration: inputs (built-in mix or a capture, streamed), the runs, and
//! where their outputs go (`--verdicts`, `--gro`, `--explain`, table, JSON).

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use netoffload::wire::LinkType;

use crate::capture;
use crate::cli::{Options, Policy, Sink};
use crate::gro_run::Out;
use crate::mix;
use crate::nic::Profile;
use crate::pipeline::{self, Collect, Frames, Progress, RunSpec, Writers};
use crate::report::RunStats;
use crate::rss::{self, RssMode};
use crate::shared_source::Steer;
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
    /// Captured shorter than it was on the wire (cut by the snapshot length).
    pub truncated: bool,
    /// Unusable link framing.
    pub bad_link: Option<String>,
    /// Traffic class for the per-class statistics (mix class, or outer
    /// encapsulation; empty until the frame is walked).
    pub class: &'static str,
}

impl From<capture::Frame> for Input {
    fn from(f: capture::Frame) -> Input {
        Input {
            bytes: f.bytes,
            link: f.link,
            ts_us: f.ts_us,
            truncated: f.truncated,
            bad_link: f.bad_link,
            class: "",
        }
    }
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
                p.class
            },
        })
        .collect()
}

/// A capture's frames as inputs, classed by their outermost encapsulation
/// (in memory: for tests; the tool streams).
pub fn capture_inputs(path: &str) -> Result<Vec<Input>, capture::CaptureError> {
    Ok(capture::read(path)?
        .into_iter()
        .map(|f| {
            let mut inp = Input::from(f);
            let w = walk::walk(&inp.bytes, inp.link);
            inp.class = class_of(&inp, &w);
            inp
        })
        .collect())
}

/// The class of a frame: the mix's, or for a capture its outermost encapsulation.
pub fn class_of(inp: &Input, w: &walk::Walk) -> &'static str {
    class_for(inp.class, inp.bad_link.is_some(), w)
}

/// [`class_of`] from its parts: the mix's class (empty for a capture), whether
/// the link framing was unusable, and the walk.
pub fn class_for(mix_class: &'static str, bad_link: bool, w: &walk::Walk) -> &'static str {
    if !mix_class.is_empty() {
        return mix_class;
    }
    if bad_link {
        return "not_ip";
    }
    match (&w.stop, w.outer_tunnel()) {
        (_, Some(t)) => t.name(),
        (Some(Stop::NotIp { .. }), None) => "not_ip",
        (Some(Stop::Malformed(_)), None) => "malformed",
        _ => "plain",
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

/// What one run produced (in memory, for tests).
pub struct RunResult {
    /// Statistics.
    pub stats: RunStats,
    /// Packets handed up, in order.
    pub outs: Vec<Out>,
    /// Explanation lines (first `explain` frames).
    pub explain: Vec<String>,
}

/// Replays `inputs` once under one NIC profile and policy, keeping what goes up.
pub fn run(
    inputs: &[Input],
    profile: Profile,
    policy: Policy,
    o: &Options,
    _progress: bool,
) -> RunResult {
    let spec = RunSpec::new(profile, policy, o, false);
    let mut sink = Collect::default();
    let stats = pipeline::run(
        Frames::Inputs(inputs),
        &spec,
        &mut sink,
        &mut Progress::off(),
    );
    RunResult {
        stats,
        outs: sink.outs,
        explain: sink.explain,
    }
}

fn open(sink: &Sink) -> std::io::Result<Box<dyn Write>> {
    Ok(match sink {
        Sink::Stdout => Box::new(std::io::BufWriter::new(std::io::stdout())),
        Sink::File(p) => Box::new(std::io::BufWriter::new(std::fs::File::create(p)?)),
    })
}

/// Runs the whole tool. `Err` is a one-line message (exit 1); a capture cut
/// short is a warning on stderr, not an error: everything read is reported.
pub fn main_with(o: &Options) -> Result<(), String> {
    o.check().map_err(|e| e.to_string())?;
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
    // Human-readable text goes to stdout unless a machine-readable stream has it.
    let human_to_stderr = o.stdout_streams() > 0;
    let mut writers = Writers::default();
    if let Some(sink) = &o.verdicts {
        let w = open(sink).map_err(|e| format!("--verdicts: {e}"))?;
        writers.verdicts = Some(verdicts::writer(w).map_err(|e| format!("--verdicts: {e}"))?);
    }
    if let Some(sink) = &o.gro {
        let w = open(sink).map_err(|e| format!("--gro: {e}"))?;
        writers.gro = Some(pipeline::gro_writer(w).map_err(|e| format!("--gro: {e}"))?);
    }
    writers.explain = if o.explain == 0 {
        None
    } else if human_to_stderr {
        Some(Box::new(std::io::stderr()))
    } else {
        Some(Box::new(std::io::BufWriter::new(std::io::stdout())))
    };
    let mut runs = Vec::new();
    let title = match &o.file {
        Some(path) => {
            // One reader per worker; the source is read once (see `capture::open_shared`).
            let queues = o.threads.max(1);
            let steer = (queues > 1 && o.rss == RssMode::Outer)
                .then(|| Arc::new(move |b: &[u8], l| rss::outer_queue(b, l, queues)) as Arc<Steer>);
            let (mut reader, copies) =
                capture::open_shared(path, queues - 1, steer).map_err(|e| e.to_string())?;
            let (p, pol) = (profiles[0], policies[0]);
            let spec = RunSpec::new(p, pol, o, true);
            let show = o.progress || std::io::stderr().is_terminal();
            let mut progress = Progress::new(show, reader.bytes_read(), reader.size, spec.label());
            writers.begin_run(&spec).map_err(|e| e.to_string())?;
            for w in reader.take_warnings() {
                eprintln!("replay: warning: {w}");
            }
            let stats = pipeline::run(
                Frames::Capture(&mut reader, copies),
                &spec,
                &mut writers,
                &mut progress,
            );
            progress.done();
            for w in reader.take_warnings() {
                eprintln!("replay: warning: {w}");
            }
            if let Some(msg) = reader.end().and_then(|e| capture::end_warning(path, e)) {
                eprintln!("replay: warning: {msg}");
            }
            runs.push(stats);
            format!("replay of {path}")
        }
        None => {
            let inputs = mix_inputs();
            let mut first = true;
            for &p in &profiles {
                for &pol in &policies {
                    let spec = RunSpec::new(p, pol, o, first);
                    first = false;
                    writers.begin_run(&spec).map_err(|e| e.to_string())?;
                    let mut stats = pipeline::run(
                        Frames::Inputs(&inputs),
                        &spec,
                        &mut writers,
                        &mut Progress::off(),
                    );
                    // The mix is small: time it three times and keep the fastest
                    // (every other number is deterministic and identical).
                    let quiet = RunSpec {
                        verdicts: false,
                        explain: 0,
                        ..spec.clone()
                    };
                    for _ in 0..2 {
                        let again = pipeline::run(
                            Frames::Inputs(&inputs),
                            &quiet,
                            &mut pipeline::Discard,
                            &mut Progress::off(),
                        );
                        stats.ns_per_packet = stats.ns_per_packet.min(again.ns_per_packet);
                    }
                    runs.push(stats);
                }
            }
            "replay of the built-in traffic mix (deterministic, generated in code)".to_string()
        }
    };
    writers.finish().map_err(|e| e.to_string())?;
    if o.json {
        pipeline::emit(false, &format!("{}\n", crate::report::json(&runs)))
    } else if human_to_stderr {
        pipeline::emit(true, &crate::report::table(&runs, &title))
    } else {
        let mut text = crate::report::table(&runs, &title);
        if o.file.is_none() {
            text.push_str(&story(&runs));
        }
        pipeline::emit(false, &text)
    }
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
