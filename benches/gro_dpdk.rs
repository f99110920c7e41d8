//! GRO against DPDK 22.11's `rte_gro_reassemble_burst` on the peer's own
//! streams (`../shared/bench-peers/dpdk-gro`, issue 17): ns per packet for
//! TCP/IPv4 and VXLAN, 1 / 8 / 64 / 1024 flows, checksums vouched for by the
//! device (`unnecessary`) or verified in software (`verify`).
//!
//! Replayed as the peer's README asks: its dumped frames in the same order,
//! bursts of 32 with everything flushed after each, one frame per 4 KiB page
//! at the peer's data offset, the checksum state read per packet from an
//! array as a driver reads descriptors (`Unnecessary` level 0 / level 1 for
//! VXLAN's inner checksum; `None` for `verify`, so the engine sums), every
//! output consumed. Where DPDK is installed (`dev/build.rs`), the peer runs
//! in this process, compiled from its own source, and its passes alternate
//! with ours pair by pair ([`alternate`]: each timed pass after an untimed
//! one of its own engine); the ratio is the median of the per-pair ratios,
//! which the machine's drift moves far less than times taken apart.
//! `INPROC=0`, or a build without DPDK, runs the peer binary per round and
//! cell instead (a fresh process, its median over un-preempted passes), then
//! ours; five rounds or more: A B A B. Outputs per pass and the grouping
//! hash must equal the peer's, or the bench panics.
//!
//! The same TCP streams rewritten as Ethernet / IPv6 / TCP and as raw IPv4
//! (TUN) run through ours, alternated with ours on IPv4 but apart from the
//! peer, as a ratio to the Ethernet TCP/IPv4 time (DPDK 22.11 has no IPv6
//! GRO).
//!
//! `floor`: the least any engine does per frame in this layout, timed in the
//! same rounds ([`floor_pass`]: the header lines read, and in `verify` every
//! frame summed, one by one or in groups, the faster); `dpdk/floor` is the
//! most any engine could reach against the peer on this machine. `read`
//! (`verify` only): every byte read and nothing summed, one frame after
//! another, the fastest of three hint patterns ([`read_pass`]); `dpdk/read`
//! is the most an engine that reads frames one by one could reach. Frames
//! summed side by side (the grouped `floor`) come faster than that
//! (`docs/perf/gro-hot-path.md`, session 22).
//!
//! Ours takes each burst whole with [`Gro::receive_burst_with_next`], as the
//! peer's `rte_gro_reassemble_burst` does, from an array of descriptors built
//! before the pass is timed (the peer's `stream_reset` rebuilds its mbuf
//! array outside its timing): the same information, and ours hints the
//! frames of the burst ahead to the cache ([`Gro::prefetch`]), and the start
//! of the next burst, as a poll loop that has polled it can (`NEXT=0`: plain
//! [`Gro::receive_burst`], no next burst); `BURST=0` calls `receive` per
//! frame instead (no hint: in `verify` mode ours is then slower, see
//! `docs/perf/gro-hot-path.md`).
//!
//! Run: `benches/support/gro_dpdk.sh` (builds the peer, dumps, runs this).
//! Env: `GRO_DPDK_DIR` (peer binary `gro_dpdk` and `streams/`, relative to
//! the repository root; default `target/dpdk-gro`), `ROUNDS` (5), `MS` (150 per cell and engine), `CPU`
//! (0, the peer's lcore), `NOPEER=1` (ours alone, for quick experiments),
//! `INPROC=0` (the peer's binary), `COLD=1` (no untimed pass before a timed one).
//! A free argument filters cells by name (a trailing `$` anchors its end). Without
//! the peer or its dumps (CI, a fresh checkout) it prints a skip note and
//! succeeds; in test mode (`cargo test --benches`) one short round checks
//! the outputs only. `COUNT=N` runs N untimed passes of ours per cell (for
//! callgrind instruction counts; `COUNT_STREAM=tcp6|raw`: the rewrites).
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use netoffload::csum::{self, Wsum};
use netoffload::gro::{BurstFrame, Disposition, Gro, GroConfig, SuperPacket};
use netoffload::state::{CsumLevel, CsumMeta, CsumState};
use netoffload::wire::LinkType;

#[path = "support/dpdk_streams.rs"]
mod dpdk_streams;
#[path = "../tests/support/naive.rs"]
mod naive;
use dpdk_streams::{DPDK_PAGE_OFFSET, Stream, group_term, read_dump, to_raw_ip, to_tcp6};
#[cfg(dpdk_peer)]
#[path = "support/dpdk_peer.rs"]
mod dpdk_peer;

const BURST: usize = 32;
const FLOWS: [u32; 4] = [1, 8, 64, 1024];

/// True under `cargo bench`; false in test mode.
fn benching() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Times this thread has been put on a CPU (`/proc/thread-self/schedstat`,
/// third field): a change over a pass means it was switched out.
fn switches() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().nth(2)?.parse().ok())
        .unwrap_or(0)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// One stream as ours replays it: frames in place, per-packet metadata, the
/// engine's link type.
struct Replay {
    stream: Stream,
    metas: Vec<CsumMeta>,
    link: LinkType,
}

impl Replay {
    fn new(
        frames: &[Vec<u8>],
        stride: usize,
        page_off: usize,
        meta: CsumMeta,
        link: LinkType,
    ) -> Replay {
        // Header bytes: everything before the payload (1448 bytes here).
        let hdr_len = frames[0].len() - 1448;
        Replay {
            stream: Stream::lay_out(frames, stride, page_off, hdr_len),
            metas: vec![meta; frames.len()],
            link,
        }
    }

    fn engine(&self) -> Box<Gro<64>> {
        Box::new(Gro::new(GroConfig {
            link: self.link,
            ..GroConfig::new()
        }))
    }
}

/// The receive descriptors of a pass, one per frame (its bytes, its id: the
/// index in the stream, its metadata), built before the pass is timed as the
/// peer's mbuf array is: each burst is a slice of them.
fn descriptors<'f>(frames: &[&'f [u8]], metas: &[CsumMeta]) -> Vec<BurstFrame<'f>> {
    (frames.iter().zip(metas).enumerate())
        .map(|(k, (f, m))| BurstFrame {
            frame: f,
            id: k as u32,
            meta: m.clone(),
        })
        .collect()
}

/// One pass over the descriptors `descs`: bursts of 32, every frame received
/// with its own metadata, a flush after each burst, every output consumed.
/// With `BURST_API` each burst goes in whole with the next one to hint
/// ([`Gro::receive_burst_with_next`], which hints frames ahead to the
/// cache; [`NEXT_BURST`]), else frame by frame. Returns the outputs
/// (super-packets and packets passed up) and, with `GROUPS`, the peer's
/// grouping signature.
#[inline(never)]
fn pass<const GROUPS: bool, const BURST_API: bool>(
    gro: &mut Gro<64>,
    descs: &[BurstFrame<'_>],
) -> (u32, u64) {
    let (mut out, mut sig, mut segs) = (0u32, 0u64, 0u64);
    let (mut up, mut up_sig) = (0u32, 0u64);
    let mut sink = |sp: &SuperPacket| {
        out += 1;
        segs += sp.seg_count() as u64;
        black_box(sp.header());
        if GROUPS {
            sig = sig.wrapping_add(group_term(sp.segments().iter().map(|s| s.id)));
        }
    };
    let mut bursts = descs.chunks(BURST).peekable();
    while let Some(burst) = bursts.next() {
        let next = match *NEXT_BURST {
            true => bursts.peek().copied().unwrap_or_default(),
            false => &[],
        };
        let mut passed = |id: u32, d: Disposition| {
            if let Disposition::PassUp { meta, .. } = d {
                let _ = black_box(meta);
                up += 1;
                if GROUPS {
                    up_sig = up_sig.wrapping_add(group_term([id]));
                }
            }
        };
        if BURST_API {
            gro.receive_burst_with_next(burst, next, 0, &mut sink, &mut passed);
        } else {
            for d in burst {
                passed(
                    d.id,
                    gro.receive(d.frame, d.id, d.meta.clone(), 0, &mut sink),
                );
            }
        }
        gro.flush_all(&mut sink);
    }
    black_box(segs);
    (out + up, sig.wrapping_add(up_sig))
}

/// Whether ours is given the next burst with each (`NEXT=0`: not).
static NEXT_BURST: std::sync::LazyLock<bool> =
    std::sync::LazyLock::new(|| std::env::var("NEXT").map_or(true, |v| v != "0"));

/// Whether ours takes whole bursts (`BURST=0`: frame by frame).
fn burst_api() -> bool {
    std::env::var("BURST").map_or(true, |v| v != "0")
}

/// What one engine reported for one cell.
#[derive(Clone, Debug)]
struct CellResult {
    ns: f64,
    out: u32,
    groups: u64,
    hash: u64,
}

/// Ours on `r`, ready to time: the engine after a checked first pass, with
/// its outputs per pass, grouping and the stream's hash (`ns` not yet known).
fn ours_first(r: &mut Replay) -> (Box<Gro<64>>, CellResult) {
    let mut gro = r.engine();
    let hash = r.stream.hash();
    let (out, groups) = {
        let frames = r.stream.frames();
        let descs = descriptors(&frames, &r.metas);
        if burst_api() {
            pass::<true, true>(&mut gro, &descs)
        } else {
            pass::<true, false>(&mut gro, &descs)
        }
    };
    r.stream.reset();
    let first = CellResult {
        ns: f64::NAN,
        out,
        groups,
        hash,
    };
    (gro, first)
}

/// One timed pass of ours over `r` (headers restored after it, untimed): ns,
/// or `None` when this thread was switched out. Panics when the outputs are
/// not `out`.
fn ours_pass(r: &mut Replay, gro: &mut Gro<64>, out: u32) -> Option<f64> {
    let frames = r.stream.frames();
    let descs = descriptors(&frames, &r.metas);
    let ((o, _), dt) = un_preempted(|| {
        if burst_api() {
            pass::<false, true>(gro, &descs)
        } else {
            pass::<false, false>(gro, &descs)
        }
    });
    drop((descs, frames));
    r.stream.reset();
    assert_eq!(o, out, "our output count changed between passes");
    dt
}

/// Hints the two header lines of the frame six places after `i`, as
/// [`Gro::receive_burst`] does (both floor passes).
#[inline(always)]
fn hint_header_ahead(frames: &[&[u8]], i: usize) {
    if let Some(later) = frames.get(i + 6) {
        csum::prefetch(later.get(..128).unwrap_or(later));
    }
}

/// `pass` over `r`'s frames, timed as ours is: ns per frame.
fn time_pass(r: &Replay, ms: f64, pass: impl Fn(&[&[u8]]) -> u64) -> f64 {
    let frames = r.stream.frames();
    median_per_frame(ms, frames.len() as f64, || un_preempted(|| pass(&frames)).1)
}

/// The least any engine does per frame in this layout, timed as ours is:
/// the two header lines of every frame read (hinted six frames ahead, as
/// `receive_burst` does), and with `sum` every frame summed whole, as
/// `verify` needs: one by one (the next one hinted, `csum::partial_cold`)
/// or, with `grouped`, eight side by side (`csum::partial_group`, each
/// frame's lead a group ahead hinted, `csum::prefetch_lead`), as
/// `receive_burst` sums. No GRO: a lower bound for both engines, which
/// bounds the ratio any engine can reach against the peer.
#[inline(never)]
fn floor_pass(frames: &[&[u8]], sum: bool, grouped: bool) -> u64 {
    let mut acc = 0u64;
    for (i, f) in frames.iter().enumerate() {
        hint_header_ahead(frames, i);
        if sum && grouped {
            let group = frames
                .get(i..)
                .and_then(|r| r.first_chunk::<{ csum::GROUP }>());
            if let (0, Some(group)) = (i % csum::GROUP, group) {
                let sums = csum::partial_group(group);
                acc += sums.iter().map(|s| u64::from(s.get())).sum::<u64>();
            } else if i >= frames.len() / csum::GROUP * csum::GROUP {
                acc += u64::from(csum::partial_cold(f, Wsum::ZERO).get());
            }
            if let Some(next) = frames.get(i + csum::GROUP) {
                csum::prefetch_lead(next);
            }
            acc += u64::from(f[0]);
        } else if sum {
            if let Some(next) = frames.get(i + 1) {
                csum::prefetch(next);
            }
            acc += u64::from(csum::partial_cold(f, Wsum::ZERO).get());
        } else {
            acc += u64::from(f[0]) + u64::from(f.get(64).copied().unwrap_or(0));
        }
    }
    black_box(acc)
}

/// [`floor_pass`] over `r`'s frames, timed as ours is; with `sum`, the
/// faster of one by one and grouped.
fn run_floor(r: &Replay, sum: bool, ms: f64) -> f64 {
    let one_by_one = time_pass(r, ms, |frames| floor_pass(frames, sum, false));
    match sum {
        true => one_by_one.min(time_pass(r, ms, |frames| floor_pass(frames, sum, true))),
        false => one_by_one,
    }
}

/// How [`read_pass`] hints whole frames to the cache before it reads them.
#[derive(Clone, Copy)]
enum ReadHint {
    /// None: the hardware prefetchers alone (headers still six ahead).
    None,
    /// The next frame whole, as [`floor_pass`] does (ours hints two ahead).
    Next,
    /// The frame two ahead, one line beside each line read.
    Spread,
}

/// Every byte of every frame read and nothing computed but an OR of the
/// words (the header lines hinted six frames ahead, frames as `hint` says).
/// Why: any engine that verifies a checksum reads every byte; this is a
/// bound for `verify` that assumes no particular sum kernel.
#[inline(never)]
fn read_pass(frames: &[&[u8]], hint: ReadHint) -> u64 {
    let mut acc = 0u64;
    for (i, f) in frames.iter().enumerate() {
        hint_header_ahead(frames, i);
        let spread = match (hint, frames.get(i + 1), frames.get(i + 2)) {
            (ReadHint::Next, Some(next), _) => {
                csum::prefetch(next);
                None
            }
            (ReadHint::Spread, _, Some(after)) => Some(*after),
            _ => None,
        };
        let mut lines = f.chunks_exact(64);
        for (at, line) in (&mut lines).enumerate() {
            if let Some(after) = spread {
                csum::prefetch(after.get(at * 64..at * 64 + 1).unwrap_or(&[]));
            }
            for w in line.chunks_exact(8) {
                acc |= u64::from_ne_bytes(w.try_into().unwrap_or_default());
            }
        }
        if let Some(after) = spread {
            csum::prefetch(after.get(f.len() / 64 * 64..).unwrap_or(&[]));
        }
        acc |= lines.remainder().iter().fold(0, |a, &b| a | u64::from(b));
    }
    black_box(acc)
}

/// The least of [`read_pass`]'s per-frame times over its hint patterns,
/// each timed as ours is: the read bound of a `verify` cell.
fn run_read(r: &Replay, ms: f64) -> f64 {
    [ReadHint::None, ReadHint::Next, ReadHint::Spread]
        .map(|hint| time_pass(r, ms, |frames| read_pass(frames, hint)))
        .into_iter()
        .fold(f64::INFINITY, f64::min)
}

/// `f`'s result and its wall-clock ns, `None` for the time when this thread
/// was switched out meanwhile (the pass is dropped, as the peer does). In
/// test mode every time is kept: it checks outputs, and on a loaded machine
/// every slow debug pass may be switched out.
fn un_preempted<T>(f: impl FnOnce() -> T) -> (T, Option<f64>) {
    let c0 = switches();
    let t0 = Instant::now();
    let r = f();
    let dt = t0.elapsed().as_nanos() as f64;
    (r, (switches() == c0 || !benching()).then_some(dt))
}

/// The median ns per frame of passes of `n` frames (`pass` gives a pass's
/// ns, `None` to drop it): until `ms` of kept passes and at least 5, or 3 x
/// `ms` + 0.5 s of wall time.
fn median_per_frame(ms: f64, n: f64, mut pass: impl FnMut() -> Option<f64>) -> f64 {
    let (mut samples, mut kept_ns) = (Vec::new(), 0.0);
    let start = Instant::now();
    while (kept_ns < ms * 1e6 || samples.len() < 5)
        && start.elapsed().as_secs_f64() * 1e9 < 3.0 * ms * 1e6 + 5e8
    {
        if let Some(dt) = pass() {
            kept_ns += dt;
            samples.push(dt / n);
        }
    }
    median(&mut samples)
}

/// The CPU the peer's lcore and this thread run on (`CPU`, default 0).
fn cpu() -> String {
    std::env::var("CPU").unwrap_or_else(|_| "0".into())
}

/// DPDK EAL's arguments as the peer's `run.sh` gives them: no huge pages,
/// no devices, one lcore ([`cpu`]).
fn eal_args() -> Vec<String> {
    let cpu = cpu();
    [
        "--no-huge",
        "--no-pci",
        "-m",
        "512",
        "--no-shconf",
        "--no-telemetry",
        "-l",
        &cpu,
        "--log-level=lib.eal:warning",
    ]
    .map(String::from)
    .to_vec()
}

/// The peer for one cell: a fresh process, its `CELL` line parsed.
fn run_peer(bin: &Path, kind: &str, flows: u32, mode: &str, ms: f64) -> CellResult {
    let o = Command::new(bin)
        .args(eal_args())
        .arg("--")
        .arg(format!("ms={ms}"))
        .arg(format!("kinds={kind}"))
        .arg(format!("flows={flows}"))
        .arg(format!("modes={mode}"))
        .output()
        .unwrap_or_else(|e| panic!("gro_dpdk: cannot run the peer {}: {e}", bin.display()));
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("CELL "))
        .filter(|l| !l.contains("FAILED") && o.status.success())
        .unwrap_or_else(|| {
            panic!(
                "gro_dpdk: the peer failed on {kind} {flows} {mode}: {text}{}",
                String::from_utf8_lossy(&o.stderr)
            )
        });
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|t| t.strip_prefix(k)?.strip_prefix('='))
            .unwrap_or_else(|| panic!("gro_dpdk: no {k}= in {line}"))
    };
    let hex = |k: &str| u64::from_str_radix(field(k), 16).expect("hex field");
    CellResult {
        ns: field("ns").parse().expect("ns"),
        out: field("out").parse().expect("out"),
        groups: hex("groups"),
        hash: hex("hash"),
    }
}

/// The least and the most of `v`, as "a-b" (the spread of per-round ratios).
fn spread(v: &[f64]) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{lo:.2}-{hi:.2}")
}

/// One engine's pass for [`alternate`]: its ns, `None` when preempted.
type TimedPass<'a> = Box<dyn FnMut() -> Option<f64> + 'a>;

/// Ours on `r` for [`alternate`]: its checked first pass, and a timed pass
/// per call.
fn ours_engine(r: &mut Replay) -> (CellResult, TimedPass<'_>) {
    let (mut gro, first) = ours_first(r);
    let out = first.out;
    (first, Box::new(move || ours_pass(r, &mut gro, out)))
}

/// The passes of `engines` alternated, one call of each in turn per sample:
/// per engine the ns of every kept sample (index `k` is sample `k` of all).
///
/// Why: the machine's speed drifts over milliseconds, so engines timed one
/// after the other differ by the drift; ratios taken sample by sample see
/// the same machine. Each engine runs an untimed pass before its timed one
/// (`COLD=1`: not), so a timed pass starts from its own engine's state, as
/// in a run of that engine alone (the peer's README). A sample with a
/// preempted pass is dropped; until about `ms` of kept passes per engine
/// and at least 5 samples, or 3 x that + 0.5 s of wall time.
fn alternate(ms: f64, engines: &mut [TimedPass<'_>]) -> Vec<Vec<f64>> {
    let mut kept: Vec<Vec<f64>> = vec![Vec::new(); engines.len()];
    let budget = ms * 1e6 * engines.len() as f64;
    let warm = std::env::var_os("COLD").is_none();
    let (mut kept_ns, start) = (0.0, Instant::now());
    while (kept_ns < budget || kept[0].len() < 5)
        && start.elapsed().as_secs_f64() * 1e9 < 3.0 * budget + 5e8
    {
        let mut timed = |e: &mut TimedPass<'_>| {
            if warm {
                e();
            }
            e()
        };
        let sample: Vec<Option<f64>> = engines.iter_mut().map(&mut timed).collect();
        if let Some(sample) = sample.into_iter().collect::<Option<Vec<f64>>>() {
            kept_ns += sample.iter().sum::<f64>();
            for (k, dt) in kept.iter_mut().zip(sample) {
                k.push(dt);
            }
        }
    }
    kept
}

/// The median of `passes` (ns each) divided by `n` frames per pass.
fn frame_median(passes: &[f64], n: f64) -> f64 {
    median(&mut passes.iter().map(|t| t / n).collect::<Vec<_>>())
}

/// The median over samples of `a[k] / b[k]`.
fn median_ratio(a: &[f64], b: &[f64]) -> f64 {
    median(&mut a.iter().zip(b).map(|(x, y)| x / y).collect::<Vec<_>>())
}

/// One round of one cell: ours, the peer's, their ratio (peer / ours) and
/// the IPv6 and raw-IP rewrites' ratios to ours (TCP cells).
struct Round {
    ours: CellResult,
    peer: CellResult,
    ratio: f64,
    ratio6: Option<f64>,
    ratio_raw: Option<f64>,
}

/// How the peer runs against ours.
enum Peer {
    /// In this process, pass for pass with ours ([`alternate`]).
    #[cfg(dpdk_peer)]
    InProcess,
    /// Its own binary, a fresh process per cell and round, then ours.
    Binary(PathBuf),
    /// Not at all (`NOPEER=1`, quick experiments): ours stands in for it.
    Absent,
}

/// The peer this run uses: `NOPEER=1` none; in this process when built in
/// (`cfg(dpdk_peer)`) unless `INPROC=0`; else the binary `bin`.
fn which_peer(bin: &Path) -> Peer {
    if std::env::var_os("NOPEER").is_some() {
        return Peer::Absent;
    }
    #[cfg(dpdk_peer)]
    if std::env::var("INPROC").map_or(true, |v| v != "0") {
        match dpdk_peer::init(&eal_args()) {
            Ok(()) => return Peer::InProcess,
            Err(e) => eprintln!("gro_dpdk: no in-process peer ({e}); running its binary"),
        }
    }
    Peer::Binary(bin.to_path_buf())
}

impl Peer {
    fn describe(&self) -> &'static str {
        match self {
            #[cfg(dpdk_peer)]
            Peer::InProcess => "the peer in this process, passes alternated",
            Peer::Binary(_) => "the peer's binary, then ours",
            Peer::Absent => "ours alone (NOPEER)",
        }
    }

    /// One round of `c`: ours and the peer, passes alternated
    /// ([`alternate`]) when the peer runs in this process, else the peer
    /// first as its own process; then ours and the rewrites, alternated on
    /// their own. Ours' frames move to fresh pages first ([`Stream::relaid`]).
    ///
    /// Why apart: every ratio comes from an alternation of exactly the
    /// engines it compares. A third engine's passes slow both of the others
    /// even after their untimed passes (`docs/perf/gro-hot-path.md`,
    /// session 25), so the TCP cells ran slower than the VXLAN cells, which
    /// have no rewrites.
    fn run(&self, c: &mut Cell, ms: f64) -> Round {
        for r in [Some(&mut c.ours), c.tcp6.as_mut(), c.raw.as_mut()]
            .into_iter()
            .flatten()
        {
            r.stream = r.stream.relaid();
        }
        let n = c.ours.stream.len() as f64;
        let peer_binary = match self {
            Peer::Binary(bin) => Some(run_peer(bin, c.kind, c.flows, c.mode, ms)),
            _ => None,
        };
        #[cfg(dpdk_peer)]
        let mut in_process = matches!(self, Peer::InProcess).then(|| {
            dpdk_peer::PeerCell::new(c.kind, c.flows, c.mode)
                .unwrap_or_else(|| panic!("gro_dpdk: the peer failed on {}", c.name()))
        });
        let (first, timed_ours) = ours_engine(&mut c.ours);
        let mut engines = vec![timed_ours];
        #[cfg(dpdk_peer)]
        if let Some(p) = in_process.as_mut() {
            engines.push(Box::new(move || {
                let (o, dt) = un_preempted(|| p.pass());
                p.reset();
                assert_eq!(o, Some(p.out), "the peer's outputs changed between passes");
                dt
            }));
        }
        let kept = alternate(ms, &mut engines);
        drop(engines);
        let ours = CellResult {
            ns: frame_median(&kept[0], n),
            ..first
        };
        // The peer's column of the samples, when it ran in this process.
        #[cfg(dpdk_peer)]
        let alternated = in_process.as_ref().zip(kept.get(1)).map(|(p, t)| {
            let result = CellResult {
                ns: frame_median(t, n),
                out: p.out,
                groups: p.groups,
                hash: p.hash,
            };
            (result, median_ratio(t, &kept[0]))
        });
        #[cfg(not(dpdk_peer))]
        let alternated: Option<(CellResult, f64)> = None;
        let (peer, ratio) = match (peer_binary, alternated) {
            (Some(p), _) => {
                let ratio = p.ns / ours.ns;
                (p, ratio)
            }
            (None, Some(alternated)) => alternated,
            (None, None) => (ours.clone(), 1.0),
        };
        let (ratio6, ratio_raw) = rewrite_ratios(c, &ours, ms);
        Round {
            ours,
            peer,
            ratio,
            ratio6,
            ratio_raw,
        }
    }
}

/// The IPv6 and raw-IP rewrites of `c` against ours on IPv4, passes
/// alternated: their ratios to ours (`None` for a rewrite the cell lacks;
/// VXLAN has none). `first`: ours' outputs, which theirs must equal.
fn rewrite_ratios(c: &mut Cell, first: &CellResult, ms: f64) -> (Option<f64>, Option<f64>) {
    if c.tcp6.is_none() && c.raw.is_none() {
        return (None, None);
    }
    let name = c.name();
    let (_, e) = ours_engine(&mut c.ours);
    let mut engines = vec![e];
    for r in [c.tcp6.as_mut(), c.raw.as_mut()].into_iter().flatten() {
        let (x, e) = ours_engine(r);
        assert_eq!(
            x.out, first.out,
            "{name}: IPv6/raw outputs differ from IPv4's"
        );
        assert_eq!(x.groups, first.groups, "{name}: IPv6/raw grouping differs");
        engines.push(e);
    }
    let kept = alternate(ms, &mut engines);
    let ratio_to_ours = |k: usize| kept.get(k).map(|t| median_ratio(t, &kept[0]));
    (ratio_to_ours(1), ratio_to_ours(2))
}

/// A (stream, mode, flows) cell: the peer's stream replayed by ours, and for
/// TCP the IPv6 and raw-IP rewrites.
struct Cell {
    kind: &'static str,
    flows: u32,
    mode: &'static str,
    ours: Replay,
    tcp6: Option<Replay>,
    raw: Option<Replay>,
    peer: Vec<f64>,
    mine: Vec<f64>,
    ratio: Vec<f64>,
    ratio6: Vec<f64>,
    ratio_raw: Vec<f64>,
    /// [`run_floor`]'s ns per frame.
    floor: Vec<f64>,
    /// [`run_read`]'s ns per frame (`verify` cells only).
    read: Vec<f64>,
}

impl Cell {
    fn name(&self) -> String {
        format!("{}/{}/{}", self.kind, self.mode, self.flows)
    }
}

/// The cells whose name contains `filter`, streams read from `streams`.
fn cells(streams: &Path, filter: Option<&str>) -> Option<Vec<Cell>> {
    let mut v = Vec::new();
    let wanted = |kind: &str, mode: &str, flows: u32| {
        let name = format!("{kind}/{mode}/{flows}");
        // A trailing `$` anchors the end (`tcp4/verify/1$` is not `.../1024`).
        filter.is_none_or(|f| match f.strip_suffix('$') {
            Some(f) => name.ends_with(f),
            None => name.contains(f),
        })
    };
    for kind in ["tcp4", "vxlan"] {
        for flows in FLOWS {
            if !["unnecessary", "verify"]
                .iter()
                .any(|m| wanted(kind, m, flows))
            {
                continue;
            }
            let d = read_dump(&streams.join(format!("{kind}-{flows}.bin")))?;
            // The peer's page offset, with the dump's alignment mod 64.
            let off = (DPDK_PAGE_OFFSET & !63) | (d.align64 & 63);
            for mode in ["unnecessary", "verify"] {
                if !wanted(kind, mode, flows) {
                    continue;
                }
                let meta = match (mode, kind) {
                    ("verify", _) => CsumMeta::NONE,
                    (_, "vxlan") => CsumMeta::from_state(CsumState::Unnecessary {
                        level: CsumLevel::L1,
                    }),
                    _ => CsumMeta::from_state(CsumState::Unnecessary {
                        level: CsumLevel::L0,
                    }),
                };
                let eth = LinkType::Ethernet;
                let (tcp6, raw) = if kind == "tcp4" {
                    let f6: Vec<Vec<u8>> = d.frames.iter().map(|f| to_tcp6(f)).collect();
                    let fr: Vec<Vec<u8>> = d.frames.iter().map(|f| to_raw_ip(f)).collect();
                    (
                        Some(Replay::new(&f6, d.stride, off, meta.clone(), eth)),
                        Some(Replay::new(
                            &fr,
                            d.stride,
                            off,
                            meta.clone(),
                            LinkType::RawIp,
                        )),
                    )
                } else {
                    (None, None)
                };
                v.push(Cell {
                    kind,
                    flows,
                    mode,
                    ours: Replay::new(&d.frames, d.stride, off, meta, eth),
                    tcp6,
                    raw,
                    peer: vec![],
                    mine: vec![],
                    ratio: vec![],
                    ratio6: vec![],
                    ratio_raw: vec![],
                    floor: vec![],
                    read: vec![],
                });
            }
        }
    }
    Some(v)
}

fn main() {
    // Relative to the repository root (cargo runs benches in `dev/`).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = root.join(
        std::env::var_os("GRO_DPDK_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/dpdk-gro")),
    );
    let bin = dir.join("gro_dpdk");
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let cells = if bin.is_file() || cfg!(dpdk_peer) {
        cells(&dir.join("streams"), filter.as_deref())
    } else {
        None
    };
    let Some(mut cells) = cells else {
        println!(
            "gro_dpdk: SKIPPED (no DPDK peer binary or dumped streams under {}; \
             run benches/support/gro_dpdk.sh to build and dump them)",
            dir.display()
        );
        return;
    };
    // COUNT=N: ours alone, N untimed passes per selected cell (for
    // callgrind: the difference of two counts is N passes of 128 bursts).
    if let Some(n) = std::env::var("COUNT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let which = std::env::var("COUNT_STREAM").unwrap_or_default();
        for c in cells.iter() {
            let r = match which.as_str() {
                "tcp6" => c.tcp6.as_ref(),
                "raw" => c.raw.as_ref(),
                _ => Some(&c.ours),
            };
            let Some(r) = r else { continue };
            let mut gro = r.engine();
            let frames = r.stream.frames();
            let descs = descriptors(&frames, &r.metas);
            let out: u32 = (0..n)
                .map(|_| pass::<false, true>(&mut gro, &descs).0)
                .sum();
            println!("{}: {n} passes, {out} outputs", c.name());
        }
        return;
    }
    let (rounds, ms) = if benching() {
        (env_or("ROUNDS", 5usize).max(1), env_or("MS", 150.0))
    } else {
        (1, 1.0)
    };
    let peer = which_peer(&bin);
    let load0 = loadavg();
    println!(
        "gro_dpdk: {rounds} rounds, {ms} ms per cell and engine, {}; load {load0}",
        peer.describe()
    );
    for round in 0..rounds {
        for c in cells.iter_mut() {
            let name = c.name();
            let Round {
                ours: o,
                peer: p,
                ratio,
                ratio6,
                ratio_raw,
            } = peer.run(c, ms);
            assert_eq!(o.hash, p.hash, "{name}: not the peer's stream");
            assert_eq!(o.out, p.out, "{name}: outputs per pass differ from DPDK's");
            assert_eq!(o.groups, p.groups, "{name}: grouping differs from DPDK's");
            c.peer.push(p.ns);
            c.mine.push(o.ns);
            c.ratio.push(ratio);
            c.ratio6.extend(ratio6);
            c.ratio_raw.extend(ratio_raw);
            c.floor.push(run_floor(&c.ours, c.mode == "verify", ms));
            if c.mode == "verify" {
                c.read.push(run_read(&c.ours, ms));
            }
            eprintln!(
                "round {round} {name}: dpdk {:.2} ours {:.2} ns/pkt ({:.2}x), out {} groups {:016x}",
                p.ns, o.ns, ratio, o.out, o.groups
            );
        }
    }
    println!(
        "\nGRO vs DPDK 22.11, ns per packet (medians over {rounds} rounds; ratio = median of per-round DPDK/ours, rounds = their least and most)"
    );
    println!(
        "  {:<24} {:>9} {:>9} {:>7} {:>11}   {:>10} {:>10} {:>9} {:>12} {:>9} {:>10}",
        "stream/mode/flows",
        "dpdk",
        "ours",
        "ratio",
        "rounds",
        "ipv6/ipv4",
        "raw/ipv4",
        "floor",
        "dpdk/floor",
        "read",
        "dpdk/read"
    );
    for c in cells.iter_mut() {
        let opt = |v: &mut Vec<f64>| {
            if v.is_empty() {
                "-".to_string()
            } else {
                format!("{:.3}", median(v))
            }
        };
        let (r6, rr) = (opt(&mut c.ratio6), opt(&mut c.ratio_raw));
        let (peer, floor) = (median(&mut c.peer), median(&mut c.floor));
        let (read, by_read) = if c.read.is_empty() {
            ("-".to_string(), "-".to_string())
        } else {
            let read = median(&mut c.read);
            (format!("{read:.2}"), format!("{:.2}x", peer / read))
        };
        println!(
            "  {:<24} {:>9.2} {:>9.2} {:>6.2}x {:>11}   {:>10} {:>10} {:>9.2} {:>11.2}x {:>9} {:>10}",
            c.name(),
            peer,
            median(&mut c.mine),
            median(&mut c.ratio),
            spread(&c.ratio),
            r6,
            rr,
            floor,
            peer / floor,
            read,
            by_read
        );
    }
    println!("load before {load0}, after {}", loadavg());
}
