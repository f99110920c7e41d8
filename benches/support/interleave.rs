//! Interleaved rounds: every case of a table runs once per round, in a
//! rotated order, so slow phases of a shared machine hit all cases alike.
//!
//! Criterion measures one function after the other; the ratios between ours
//! and a peer then mix two machine states. Here each round times `iters`
//! calls of every case back to back; the table shows the median and the best
//! round in ns per call and the median ratio to the first case (ours).
//! Each case's calls run in a loop compiled with the call in line, as
//! criterion's `Bencher::iter` runs its routine: one dynamic call per round,
//! none per call (see [`Case::new`]).
//! `cargo bench --bench csum -- <filter>` runs the tables whose title contains
//! the filter; test mode (`cargo test --benches`) runs one round of each.
#![allow(dead_code)]

use std::time::Instant;

/// One row of a table: a name and its timed loop (`run(n)` makes `n` calls).
pub struct Case<'a> {
    pub name: String,
    pub run: Box<dyn FnMut(u64) + 'a>,
}

impl<'a> Case<'a> {
    /// The case `name`, timing calls of `call` in a loop of its own.
    /// Why: a `dyn` call per call cost every case something, not the same
    /// for each, and made a 20-byte sum's table take 8 or 10 cycles a call
    /// from one table to the next (`docs/perf/csum.md`, session 26);
    /// `partial` is always inlined into its real callers.
    pub fn new(name: impl Into<String>, mut call: impl FnMut() + 'a) -> Case<'a> {
        Case {
            name: name.into(),
            run: Box::new(move |n| {
                for _ in 0..n {
                    call();
                }
            }),
        }
    }
}

/// True under `cargo bench` (criterion gets `--bench`); false in test mode.
pub fn benching() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// The first free argument (criterion's filter), if any.
pub fn filter() -> Option<String> {
    std::env::args().skip(1).find(|a| !a.starts_with('-'))
}

/// True when the table `title` should run under the given filter.
pub fn selected(title: &str) -> bool {
    filter().is_none_or(|f| title.contains(&f))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times every case in `rounds` interleaved rounds of about `budget_ns` each
/// and prints the table (skipped unless `selected(title)`).
pub fn table(title: &str, cases: &mut [Case<'_>], budget_ns: f64, rounds: usize) {
    if !selected(title) {
        return;
    }
    let (rounds, budget_ns) = if benching() {
        (rounds, budget_ns)
    } else {
        (1, 1.0)
    };
    // Calibrate: iterations so one case takes about `budget_ns` per round.
    let iters: Vec<u64> = cases
        .iter_mut()
        .map(|c| {
            let t = Instant::now();
            (c.run)(100);
            let per = t.elapsed().as_nanos() as f64 / 100.0;
            ((budget_ns / per.max(0.1)) as u64).clamp(1, 1 << 24)
        })
        .collect();
    let n = cases.len();
    let mut samples = vec![Vec::with_capacity(rounds); n];
    for r in 0..rounds {
        for k in 0..n {
            let i = (k + r) % n;
            let c = &mut cases[i];
            let t = Instant::now();
            (c.run)(iters[i]);
            samples[i].push(t.elapsed().as_nanos() as f64 / iters[i] as f64);
        }
    }
    // Ratio to case 0 per round, then the median of those ratios.
    let ratios: Vec<f64> = (0..n)
        .map(|i| {
            let mut q: Vec<f64> = (0..rounds).map(|r| samples[i][r] / samples[0][r]).collect();
            median(&mut q)
        })
        .collect();
    println!("\n{title}  ({rounds} interleaved rounds; ns per call)");
    println!(
        "  {:<28} {:>9} {:>9} {:>11}",
        "case", "median", "best", "x first"
    );
    for (i, c) in cases.iter().enumerate() {
        let best = samples[i].iter().copied().fold(f64::INFINITY, f64::min);
        let med = median(&mut samples[i].clone());
        println!(
            "  {:<28} {:>9.2} {:>9.2} {:>11.3}",
            c.name, med, best, ratios[i]
        );
    }
}

/// A buffer with a window of `len` bytes starting `off` bytes past a 4 KiB
/// page boundary (so page-offset effects are reproducible).
pub struct PageBuf {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl PageBuf {
    /// `seed` varies the contents; `off` may exceed 4096 (several pages in).
    pub fn new(len: usize, off: usize, seed: u32) -> PageBuf {
        let buf: Vec<u8> = (0..len + off + 8192)
            .map(|i| (i as u32 ^ seed).wrapping_mul(2_654_435_761).rotate_left(7) as u8)
            .collect();
        let base = buf.as_ptr() as usize;
        let start = (4096 - base % 4096) % 4096 + off;
        PageBuf { buf, start, len }
    }
    pub fn get(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
    pub fn get_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + self.len]
    }
}
