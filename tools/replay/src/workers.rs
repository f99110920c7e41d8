//! `--threads N` (and 1): the workers, each reading every frame and keeping
//! those of its RSS queue, and how their results come together (added up at
//! the end, or merged in frame order when per-frame outputs are wanted).

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use crate::app::Input;
use netoffload::wire::LinkType;

use crate::capture::{FrameRef, Next, Reader, Skip};
use crate::gro_run::Out;
use crate::pipeline::{Discard, Done, Outputs, Progress, Queue, RunSpec, Totals};
use crate::report::RunStats;
use crate::rss::{self, RssMode};
use crate::walk;

/// Where a run's frames come from.
pub enum Frames<'a> {
    /// In memory (the built-in mix, tests): every worker reads the same slice.
    Inputs(&'a [Input]),
    /// A capture: the first reader, and one copy per other worker
    /// ([`crate::capture::open_shared`], as many as `--threads` minus one).
    Capture(&'a mut Reader, Vec<Reader>),
}

/// One worker's view of the frames: every frame of the run, in order.
enum Feed<'a> {
    Inputs(&'a [Input]),
    Borrowed(&'a mut Reader),
    Owned(Box<Reader>),
}

/// A frame as a worker sees it: its bytes, its mix class, and whether the
/// reader already found it is this worker's; `None` for a frame the reader
/// passed over (another queue's).
type Seen<'f> = Option<(FrameRef<'f>, &'static str, bool)>;

impl Feed<'_> {
    /// Calls `each` for every frame until the end; `skip` (bytes and how they
    /// begin) may let a reader pass over a frame before framing it.
    fn for_each(self, skip: Option<&Skip>, mut each: impl FnMut(Seen<'_>)) {
        match self {
            Feed::Inputs(inputs) => {
                for inp in inputs {
                    let f = FrameRef {
                        bytes: &inp.bytes,
                        link: inp.link,
                        ts_us: inp.ts_us,
                        truncated: inp.truncated,
                        bad_link: inp.bad_link.clone(),
                    };
                    each(Some((f, inp.class, false)));
                }
            }
            Feed::Borrowed(r) => read_all(r, skip, &mut each),
            Feed::Owned(mut r) => read_all(&mut r, skip, &mut each),
        }
    }
}

/// Every frame of a reader; an unsupported legacy link type ends the stream
/// as the reader's iterator does (recorded in its end).
fn read_all(r: &mut Reader, skip: Option<&Skip>, each: &mut impl FnMut(Seen<'_>)) {
    loop {
        match r.next_unless(skip, |f, tested| each(Some((f, "", tested)))) {
            Ok(Some(Next::Frame(()))) => {}
            Ok(Some(Next::Skipped)) => each(None),
            Ok(None) => return,
            Err(e) => {
                r.record_error(e);
                return;
            }
        }
    }
}

/// Replays the frames once; outputs go to `sink` as they are merged.
///
/// `--threads N`: N workers, each reading every frame (from memory, or from its
/// own copy of the capture's reads), keeping those whose RSS queue is its own
/// and running them through its own queue. Frames of other queues cost a
/// header parse and a hash. With no per-frame output wanted, the calling
/// thread is worker 0 and the statistics are added up at the end (no frame
/// crosses a thread); with per-frame outputs, the workers hand over their
/// results in batches of [`BATCH`] frame numbers and this thread merges them in
/// frame order.
pub fn run(
    frames: Frames<'_>,
    spec: &RunSpec,
    sink: &mut dyn Outputs,
    progress: &mut Progress,
) -> RunStats {
    let mut t = Totals::new(
        RunStats {
            profile: spec.profile.name(),
            policy: spec.policy.name(),
            ..RunStats::default()
        },
        sink,
    );
    let n = spec.threads.max(1);
    let mut feeds: Vec<Feed<'_>> = match frames {
        Frames::Inputs(i) => (0..n).map(|_| Feed::Inputs(i)).collect(),
        Frames::Capture(first, copies) => std::iter::once(Feed::Borrowed(first))
            .chain(copies.into_iter().map(|r| Feed::Owned(Box::new(r))))
            .collect(),
    };
    let started = Instant::now();
    let busy = if n == 1 {
        let feed = feeds.pop().expect("one feed");
        let mut to = Straight {
            totals: &mut t,
            progress: Some(progress),
        };
        work(spec, 0, 1, feed, &mut to)
    } else if t.sink.per_frame() {
        merged(spec, feeds, &mut t, progress)
    } else {
        summed(spec, feeds, &mut t, progress)
    };
    let n = t.stats.packets_in;
    t.stats.ns_per_packet = if n == 0 {
        0.0
    } else {
        busy.as_nanos() as f64 / n as f64
    };
    if worker_times() {
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "replay: run: {n} frames in {secs:.4} s wall ({:.0} frames/s), {} threads",
            n as f64 / secs.max(1e-9),
            spec.threads.max(1)
        );
    }
    t.finish()
}

/// `REPLAY_WORKER_TIMES` is set: each worker's frames and CPU time, and the
/// run's wall-clock time, go to stderr (the `--threads` benchmark reads them).
fn worker_times() -> bool {
    std::env::var_os("REPLAY_WORKER_TIMES").is_some()
}

/// Where a worker's results go.
trait Results {
    /// One of its frames, in frame order.
    fn frame(&mut self, d: Done);
    /// Frame `n` of the run was read (its own or another queue's).
    fn read(&mut self, n: u64);
    /// What the queue held at the end, and its busy time.
    fn end(&mut self, outs: Vec<(Out, &'static str)>, busy: Duration);
}

/// Straight into the statistics and outputs (one queue, or a worker's own totals).
struct Straight<'t, 'a> {
    totals: &'t mut Totals<'a>,
    progress: Option<&'t mut Progress>,
}

impl Results for Straight<'_, '_> {
    fn frame(&mut self, d: Done) {
        self.totals.frame(&d);
    }
    fn read(&mut self, n: u64) {
        if let Some(p) = &mut self.progress {
            p.tick(n);
        }
    }
    fn end(&mut self, outs: Vec<(Out, &'static str)>, _: Duration) {
        self.totals.outs(&outs);
    }
}

/// Frame numbers per batch a worker hands to the merge.
pub const BATCH: u64 = 4096;
/// Batches queued per worker.
const DEPTH: usize = 4;

enum Msg {
    /// The worker's frames among the next [`BATCH`] frame numbers.
    Part(Vec<Done>),
    /// The end: what its queue still held, and its busy time.
    End(Vec<(Out, &'static str)>, Duration),
}

/// To the merging thread, a batch at a time.
struct Batches {
    part: Vec<Done>,
    to: SyncSender<Msg>,
}

impl Results for Batches {
    fn frame(&mut self, d: Done) {
        self.part.push(d);
    }
    fn read(&mut self, n: u64) {
        if n.is_multiple_of(BATCH) {
            let _ = self.to.send(Msg::Part(std::mem::take(&mut self.part)));
        }
    }
    fn end(&mut self, outs: Vec<(Out, &'static str)>, busy: Duration) {
        let _ = self.to.send(Msg::Part(std::mem::take(&mut self.part)));
        let _ = self.to.send(Msg::End(outs, busy));
    }
}

/// Worker `me` of `n`: reads every frame of `feed`, runs its own through a
/// queue, hands results to `to`; its queue's busy time.
fn work(spec: &RunSpec, me: usize, n: usize, feed: Feed<'_>, to: &mut dyn Results) -> Duration {
    let mut q = Queue::new(spec);
    let mut frame = 0u64;
    let mut own = 0u64;
    // Outer hashing can be done by the reader, before a frame is framed.
    let others = move |bytes: &[u8], link: LinkType| rss::outer_queue(bytes, link, n) != me;
    let skip: Option<&Skip> = (n > 1 && spec.rss == RssMode::Outer).then_some(&others);
    feed.for_each(skip, |seen| {
        frame += 1;
        let Some((f, class, tested)) = seen else {
            to.read(frame);
            return;
        };
        let (mine, walked) = match spec.rss {
            _ if n == 1 || tested => (true, None),
            // Outer hashing reads the headers directly, as a NIC's parser does.
            RssMode::Outer => (rss::outer_queue(f.bytes, f.link, n) == me, None),
            // Inner hashing needs the walk, kept for the frame if it is ours.
            RssMode::Inner => {
                let w = walk::walk(f.bytes, f.link);
                (rss::queue(f.bytes, &w, RssMode::Inner, n) == me, Some(w))
            }
        };
        if mine {
            own += 1;
            let w = walked.unwrap_or_else(|| walk::walk(f.bytes, f.link));
            to.frame(q.frame(frame, &f, class, w));
        }
        to.read(frame);
    });
    let outs = q.finish();
    to.end(outs, q.busy());
    if worker_times() {
        eprintln!(
            "replay: worker {me} of {n}: {own} of {frame} frames, {}",
            thread_cpu()
        );
    }
    q.busy()
}

/// This thread's user and system CPU time, from `/proc/thread-self/stat`
/// (`REPLAY_WORKER_TIMES`, for the `--threads` benchmark: each role's CPU time).
fn thread_cpu() -> String {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // Fields after the command name in parentheses; utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|t| t.parse().ok())
        .collect();
    match ticks[..] {
        [user, sys] => format!("{:.2} s user, {:.2} s sys", user / 100.0, sys / 100.0),
        _ => "CPU time unknown".to_string(),
    }
}

/// No per-frame output: this thread is worker 0 (with the progress line), the
/// others run beside it, each with its own statistics, added up at the end.
fn summed(
    spec: &RunSpec,
    feeds: Vec<Feed<'_>>,
    t: &mut Totals<'_>,
    progress: &mut Progress,
) -> Duration {
    let n = feeds.len();
    let mut feeds = feeds.into_iter();
    let first = feeds.next().expect("one feed per worker");
    std::thread::scope(|s| {
        let others: Vec<_> = feeds
            .enumerate()
            .map(|(i, feed)| {
                s.spawn(move || {
                    let mut sink = Discard;
                    let mut own = Totals::new(RunStats::default(), &mut sink);
                    let mut to = Straight {
                        totals: &mut own,
                        progress: None,
                    };
                    let busy = work(spec, i + 1, n, feed, &mut to);
                    (own.finish(), busy)
                })
            })
            .collect();
        let mut to = Straight {
            totals: t,
            progress: Some(progress),
        };
        let mut busy = work(spec, 0, n, first, &mut to);
        for h in others {
            // A worker that panicked has no statistics to add: a bug, made loud.
            let (stats, b) = h.join().expect("replay worker");
            t.stats.absorb(&stats);
            busy += b;
        }
        busy
    })
}

/// Per-frame outputs: every worker on its own thread, this one merging their
/// batches in frame order (the same batch boundaries for all: each worker reads every frame).
fn merged(
    spec: &RunSpec,
    feeds: Vec<Feed<'_>>,
    t: &mut Totals<'_>,
    progress: &mut Progress,
) -> Duration {
    let n = feeds.len();
    std::thread::scope(|s| {
        let mut from: Vec<Option<Receiver<Msg>>> = Vec::new();
        for (me, feed) in feeds.into_iter().enumerate() {
            let (tx, rx) = sync_channel::<Msg>(DEPTH);
            from.push(Some(rx));
            s.spawn(move || {
                let mut to = Batches {
                    part: Vec::new(),
                    to: tx,
                };
                work(spec, me, n, feed, &mut to);
            });
        }
        let mut busy = Duration::ZERO;
        let mut ends = Vec::new();
        let mut frames = 0u64;
        while from.iter().any(Option::is_some) {
            let mut parts = Vec::with_capacity(n);
            for slot in &mut from {
                let Some(rx) = slot else { continue };
                match rx.recv() {
                    Ok(Msg::Part(p)) => parts.push(p.into_iter().peekable()),
                    Ok(Msg::End(outs, b)) => {
                        ends.push(outs);
                        busy += b;
                        *slot = None;
                    }
                    Err(_) => *slot = None,
                }
            }
            // k-way merge by frame number.
            loop {
                let next = parts
                    .iter_mut()
                    .enumerate()
                    .filter_map(|(i, p)| p.peek().map(|d| (d.frame, i)))
                    .min();
                let Some((_, i)) = next else { break };
                if let Some(d) = parts[i].next() {
                    t.frame(&d);
                    frames += 1;
                    progress.tick(frames);
                }
            }
        }
        for outs in ends {
            t.outs(&outs);
        }
        busy
    })
}
