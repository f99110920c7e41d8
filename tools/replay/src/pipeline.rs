//! The streaming replay: frames flow from the source through one or more
//! queues (each with its own GRO engine, like a NIC receive queue) and their
//! results are merged back in frame order into the statistics and the outputs.
//! Nothing is kept per frame once it is reported, so memory stays bounded
//! whatever the capture's size (the engines hold only flows).

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::app::class_for;
use crate::capture::FrameRef;
use crate::cli::{Options, Policy};
use crate::explain;
use crate::gro_run::{Config, Cost, Engine, Out};
use crate::nic::{self, Profile};
use crate::report::{ClassStats, RunStats};
use crate::rss::RssMode;
use crate::verdicts::{self, Row};
use crate::walk::{Stop, Walk};

/// What one run needs to know.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Simulated NIC.
    pub profile: Profile,
    /// Tunnel GRO checksum policy.
    pub policy: Policy,
    /// Frames per simulated poll (per queue).
    pub budget: usize,
    /// Time gap that flushes every flow of a queue.
    pub gap_us: u64,
    /// UDP GRO for plain UDP flows.
    pub udp_gro: bool,
    /// Explain the first N frames.
    pub explain: u64,
    /// Produce verdict rows.
    pub verdicts: bool,
    /// Workers (receive queues).
    pub threads: usize,
    /// Which headers RSS hashes.
    pub rss: RssMode,
}

impl RunSpec {
    /// The progress line's name of the run.
    pub fn label(&self) -> String {
        format!("{} {}", self.profile.name(), self.policy.name())
    }

    /// The run of `profile` / `policy` with the options' settings; `verdicts`
    /// when this run writes the verdict rows (the first one).
    pub fn new(profile: Profile, policy: Policy, o: &Options, verdicts: bool) -> RunSpec {
        RunSpec {
            profile,
            policy,
            budget: o.budget,
            gap_us: o.gap_us,
            udp_gro: o.udp_gro,
            explain: o.explain as u64,
            verdicts: verdicts && o.verdicts.is_some(),
            threads: o.threads.max(1),
            rss: o.rss,
        }
    }
}

/// How a frame counts in the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Parsed (or at least its outer headers).
    Ok,
    /// Headers that could not be parsed.
    Malformed,
    /// Cut by the snapshot length where its headers stop parsing.
    Truncated,
    /// Not IP.
    NotIp,
}

/// One frame's results, from its queue to the merge.
pub struct Done {
    /// Frame number, from 1.
    pub frame: u64,
    /// Traffic class.
    pub class: &'static str,
    /// Checksum cost and findings.
    pub cost: Cost,
    /// How it counts.
    pub kind: Kind,
    /// Packets handed up while receiving it, with the class of their first frame.
    pub outs: Vec<(Out, &'static str)>,
    /// `--explain` line.
    pub explain: Option<String>,
    /// `--verdicts` rows.
    pub verdicts: Vec<Row>,
}

/// Frames per timed frame of a queue: two clock reads per frame cost about 5%
/// of a run (the vDSO clock of a VM); one frame in 32 gives the same mean.
const TIME_EVERY: u64 = 32;

/// One receive queue: a GRO engine with its own poll loop.
pub struct Queue {
    spec: RunSpec,
    engine: Engine,
    in_poll: usize,
    prev_ts: Option<u64>,
    /// Frames received (every [`TIME_EVERY`]th timed, from the first).
    received: u64,
    /// Wall-clock time of the timed frames in the GRO engine and the stack's
    /// validation, and of the final flush.
    timed_busy: Duration,
    flush_busy: Duration,
    /// Classes of frames the engine still holds (bounded by the engine's flows).
    held: HashMap<u64, &'static str>,
    steps: Vec<String>,
    scratch: Vec<Out>,
}

impl Queue {
    /// A fresh queue.
    pub fn new(spec: &RunSpec) -> Queue {
        Queue {
            spec: spec.clone(),
            engine: Engine::new(Config::new(spec.policy, spec.udp_gro)),
            in_poll: 0,
            prev_ts: None,
            received: 0,
            timed_busy: Duration::ZERO,
            flush_busy: Duration::ZERO,
            held: HashMap::new(),
            steps: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn classed(&mut self, current: (u64, &'static str)) -> Vec<(Out, &'static str)> {
        let mut outs = Vec::with_capacity(self.scratch.len());
        for o in self.scratch.drain(..) {
            let first = o.frames.first().copied().unwrap_or(0);
            let class = if first == current.0 {
                current.1
            } else {
                self.held.get(&first).copied().unwrap_or("")
            };
            for f in &o.frames {
                self.held.remove(f);
            }
            outs.push((o, class));
        }
        outs
    }

    /// Receives frame number `frame` (already walked); `class` is the mix's
    /// class of the frame (empty for a capture's).
    pub fn frame(&mut self, frame: u64, inp: &FrameRef<'_>, class: &'static str, w: Walk) -> Done {
        let class = class_for(class, inp.bad_link.is_some(), &w);
        // The device's work is not part of the measured time.
        let report = nic::report(self.spec.profile, inp.bytes, &w);
        let verdict_rows = if self.spec.verdicts && inp.bad_link.is_none() {
            verdicts::frame_rows(frame, inp.bytes, &w, inp.truncated)
        } else {
            Vec::new()
        };
        let w = match &inp.bad_link {
            Some(why) => Walk {
                levels: Vec::new(),
                stop: Some(Stop::Malformed(why.clone())),
            },
            None => w,
        };
        let t0 = self.received.is_multiple_of(TIME_EVERY).then(Instant::now);
        self.received += 1;
        if self
            .prev_ts
            .is_some_and(|p| inp.ts_us.saturating_sub(p) > self.spec.gap_us)
        {
            self.engine.flush_all("gap", &mut self.scratch);
            self.in_poll = 0;
        }
        self.prev_ts = Some(inp.ts_us);
        let want = frame <= self.spec.explain;
        self.steps.clear();
        self.held.insert(frame, class);
        let r = self.engine.receive(
            frame,
            inp.bytes,
            &w,
            report,
            want.then_some(&mut self.steps),
            &mut self.scratch,
        );
        self.in_poll += 1;
        if self.in_poll >= self.spec.budget {
            self.engine.flush_all("poll_end", &mut self.scratch);
            self.in_poll = 0;
        }
        if let Some(t0) = t0 {
            self.timed_busy += t0.elapsed();
        }
        let outs = self.classed((frame, class));
        let kind = match &w.stop {
            Some(Stop::Malformed(_) | Stop::InnerMalformed { .. } | Stop::TooDeep) => {
                if inp.truncated {
                    Kind::Truncated
                } else {
                    Kind::Malformed
                }
            }
            Some(Stop::NotIp { .. }) => Kind::NotIp,
            _ => Kind::Ok,
        };
        let explain = want.then(|| {
            explain::line(
                frame,
                class,
                inp.bytes.len(),
                &w.chain(inp.bytes),
                report,
                &self.steps,
                &r.verdict,
            )
        });
        Done {
            frame,
            class,
            cost: r.cost,
            kind,
            outs,
            explain,
            verdicts: verdict_rows,
        }
    }

    /// Hands up every flow still held (the end of the capture).
    pub fn finish(&mut self) -> Vec<(Out, &'static str)> {
        let t0 = Instant::now();
        self.engine.flush_all("poll_end", &mut self.scratch);
        self.flush_busy += t0.elapsed();
        self.classed((0, ""))
    }

    /// Wall-clock time in the GRO engine and the stack's validation: the timed
    /// frames' mean for every frame, plus the final flush.
    pub fn busy(&self) -> Duration {
        let timed = self.received.div_ceil(TIME_EVERY);
        let frames = match timed {
            0 => 0,
            n => self.timed_busy.as_nanos() * u128::from(self.received) / u128::from(n),
        };
        Duration::from_nanos(u64::try_from(frames).unwrap_or(u64::MAX)) + self.flush_busy
    }
}

/// Where a run's per-frame outputs go.
pub trait Outputs {
    /// Verdict rows of one frame, in frame order.
    fn verdicts(&mut self, rows: &[Row]);
    /// One packet handed up (`n` from 1).
    fn out(&mut self, n: u64, out: &Out);
    /// One `--explain` line.
    fn explain(&mut self, line: &str);
    /// True when it wants the per-frame outputs above (else only the
    /// statistics count, and `--threads` workers need not merge frame by frame).
    fn per_frame(&self) -> bool {
        true
    }
}

/// Keeps everything in memory (tests).
#[derive(Default)]
pub struct Collect {
    /// Packets handed up, in order.
    pub outs: Vec<Out>,
    /// Explain lines.
    pub explain: Vec<String>,
    /// Verdict rows.
    pub verdicts: Vec<Row>,
}

impl Outputs for Collect {
    fn verdicts(&mut self, rows: &[Row]) {
        self.verdicts.extend_from_slice(rows);
    }
    fn out(&mut self, _n: u64, out: &Out) {
        self.outs.push(out.clone());
    }
    fn explain(&mut self, line: &str) {
        self.explain.push(line.to_string());
    }
}

/// Drops everything (timing reruns).
pub struct Discard;

impl Outputs for Discard {
    fn verdicts(&mut self, _: &[Row]) {}
    fn out(&mut self, _: u64, _: &Out) {}
    fn explain(&mut self, _: &str) {}
    fn per_frame(&self) -> bool {
        false
    }
}

/// The `--gro` CSV writer with its header written.
pub fn gro_writer(w: Box<dyn Write>) -> std::io::Result<csv::Writer<Box<dyn Write>>> {
    let mut c = csv::Writer::from_writer(w);
    c.write_record(["out", "frames", "segments", "payload_bytes", "reason"])?;
    Ok(c)
}

/// A write error in words, and whether it is a closed pipe.
pub struct WriteError {
    text: String,
    broken_pipe: bool,
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> WriteError {
        WriteError {
            broken_pipe: e.kind() == std::io::ErrorKind::BrokenPipe,
            text: e.to_string(),
        }
    }
}

impl From<csv::Error> for WriteError {
    fn from(e: csv::Error) -> WriteError {
        WriteError {
            broken_pipe: matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe),
            text: e.to_string(),
        }
    }
}

/// Writes `text` to stdout (or stderr); a closed pipe is not an error.
pub fn emit(to_stderr: bool, text: &str) -> Result<(), String> {
    let r = if to_stderr {
        std::io::stderr().write_all(text.as_bytes())
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|_| out.flush())
    };
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
        _ => Ok(()),
    }
}

/// The tool's writers; the first write error is kept and reported at the end.
#[derive(Default)]
pub struct Writers {
    /// `--verdicts`.
    pub verdicts: Option<csv::Writer<Box<dyn Write>>>,
    /// `--gro`.
    pub gro: Option<csv::Writer<Box<dyn Write>>>,
    /// `--explain` (stdout, or stderr when stdout carries a machine-readable stream).
    pub explain: Option<Box<dyn Write>>,
    error: Option<String>,
}

impl Writers {
    /// Keeps the first write error; a closed pipe (`replay ... | head`) is
    /// not one: the reader has what it wanted.
    fn keep(&mut self, what: &str, r: Result<(), impl Into<WriteError>>) {
        if let Err(e) = r {
            let e: WriteError = e.into();
            if !e.broken_pipe && self.error.is_none() {
                self.error = Some(format!("{what}: {}", e.text));
            }
        }
    }

    /// The `--explain` heading of a run.
    pub fn begin_run(&mut self, spec: &RunSpec) -> std::io::Result<()> {
        if let Some(w) = &mut self.explain {
            writeln!(
                w,
                "explain: nic {} policy {}",
                spec.profile.name(),
                spec.policy.name()
            )?;
        }
        Ok(())
    }

    /// Flushes everything; the first error met, if any.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some(w) = &mut self.verdicts {
            let r = w.flush();
            self.keep("--verdicts", r);
        }
        if let Some(w) = &mut self.gro {
            let r = w.flush();
            self.keep("--gro", r);
        }
        if let Some(w) = &mut self.explain {
            let r = w.flush();
            self.keep("--explain", r);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Outputs for Writers {
    fn verdicts(&mut self, rows: &[Row]) {
        if let Some(w) = &mut self.verdicts {
            let r = verdicts::write_rows(w, rows);
            self.keep("--verdicts", r);
        }
    }
    fn out(&mut self, n: u64, o: &Out) {
        if let Some(w) = &mut self.gro {
            let frames: Vec<String> = o.frames.iter().map(u64::to_string).collect();
            let r = w.write_record([
                n.to_string(),
                frames.join(";"),
                o.segments.to_string(),
                o.payload_bytes.to_string(),
                o.reason.to_string(),
            ]);
            self.keep("--gro", r);
        }
    }
    fn explain(&mut self, line: &str) {
        if let Some(w) = &mut self.explain {
            let r = writeln!(w, "  {line}");
            self.keep("--explain", r);
        }
    }
    fn per_frame(&self) -> bool {
        self.verdicts.is_some() || self.gro.is_some() || self.explain.is_some()
    }
}

/// The progress line on stderr: frames, bytes read and, for a file, an ETA.
pub struct Progress {
    show: bool,
    bytes: Arc<AtomicU64>,
    size: Option<u64>,
    label: String,
    started: Instant,
    last: Instant,
    shown: bool,
}

impl Progress {
    /// No progress line.
    pub fn off() -> Progress {
        Progress::new(false, Arc::new(AtomicU64::new(0)), None, String::new())
    }

    /// A progress line if `show`, reading the byte counter of the source.
    pub fn new(show: bool, bytes: Arc<AtomicU64>, size: Option<u64>, label: String) -> Progress {
        Progress {
            show,
            bytes,
            size,
            label,
            started: Instant::now(),
            last: Instant::now(),
            shown: false,
        }
    }

    /// Called per frame; prints at most once a second, after two seconds.
    pub(crate) fn tick(&mut self, frames: u64) {
        if !self.show || !frames.is_multiple_of(1024) {
            return;
        }
        if self.last.elapsed() < Duration::from_secs(1)
            || self.started.elapsed() < Duration::from_secs(2)
        {
            return;
        }
        self.last = Instant::now();
        self.shown = true;
        let read = self.bytes.load(Ordering::Relaxed);
        let mb = |b: u64| b as f64 / 1e6;
        let line = match self.size {
            Some(size) if size > 0 && read > 0 => {
                let secs = self.started.elapsed().as_secs_f64();
                let eta = secs * (size.saturating_sub(read)) as f64 / read as f64;
                format!(
                    "{frames} frames, {:.1}/{:.1} MB ({:.0}%), ETA {:.0} s",
                    mb(read),
                    mb(size),
                    100.0 * read as f64 / size as f64,
                    eta
                )
            }
            _ => format!("{frames} frames, {:.1} MB read", mb(read)),
        };
        eprint!("\rreplay: {}: {line}    ", self.label);
    }

    /// Ends the line if one was shown.
    pub fn done(&mut self) {
        if self.shown {
            eprintln!();
            self.shown = false;
        }
    }
}

/// The merge: statistics in frame order, outputs forwarded.
pub(crate) struct Totals<'a> {
    pub(crate) stats: RunStats,
    out_n: u64,
    pub(crate) sink: &'a mut dyn Outputs,
    /// Per-class counters while the run lasts, found by the class's address
    /// first (a handful of classes; the map of `stats` is filled at the end).
    classes: Vec<(&'static str, ClassStats)>,
}

impl<'a> Totals<'a> {
    /// Totals starting from `stats`, outputs to `sink`.
    pub(crate) fn new(stats: RunStats, sink: &'a mut dyn Outputs) -> Totals<'a> {
        Totals {
            stats,
            out_n: 0,
            sink,
            classes: Vec::new(),
        }
    }

    /// The statistics, per-class counters included.
    pub(crate) fn finish(&mut self) -> RunStats {
        for (class, c) in self.classes.drain(..) {
            let mine = self.stats.classes.entry(class.to_string()).or_default();
            mine.packets_in += c.packets_in;
            mine.packets_out += c.packets_out;
            mine.sw_csum_bytes += c.sw_csum_bytes;
        }
        std::mem::take(&mut self.stats)
    }

    pub(crate) fn outs(&mut self, outs: &[(Out, &'static str)]) {
        for (o, class) in outs {
            self.out_n += 1;
            self.stats.packets_out += 1;
            *self.stats.flush_reasons.entry(o.reason).or_default() += 1;
            self.class(class).packets_out += 1;
            self.sink.out(self.out_n, o);
        }
    }

    fn class(&mut self, class: &'static str) -> &mut ClassStats {
        let found = self
            .classes
            .iter()
            .position(|(c, _)| std::ptr::eq(*c, class))
            .or_else(|| self.classes.iter().position(|(c, _)| *c == class));
        let i = found.unwrap_or_else(|| {
            self.classes.push((class, ClassStats::default()));
            self.classes.len() - 1
        });
        &mut self.classes[i].1
    }

    pub(crate) fn frame(&mut self, d: &Done) {
        self.sink.verdicts(&d.verdicts);
        let c = self.class(d.class);
        c.packets_in += 1;
        c.sw_csum_bytes += d.cost.sw_bytes;
        let s = &mut self.stats;
        s.packets_in += 1;
        s.sw_csum_bytes += d.cost.sw_bytes;
        s.dup_csum_bytes += d.cost.dup_bytes;
        s.sw_adjust_bytes += d.cost.adjust_bytes;
        s.bad_csum += u64::from(d.cost.bad);
        s.device_faults += u64::from(d.cost.fault);
        match d.kind {
            Kind::Malformed => s.malformed += 1,
            Kind::Truncated => s.truncated += 1,
            Kind::NotIp => s.not_ip += 1,
            Kind::Ok => {}
        }
        self.outs(&d.outs);
        if let Some(l) = &d.explain {
            self.sink.explain(l);
        }
    }
}

pub use crate::workers::{Frames, run};
