//! `--threads N` against `--threads 1`, through the binary: the verdicts, the
//! explanations and every per-frame number are identical; only the GRO columns
//! the README names (packets out, merge ratio, flush reasons, per-class packets
//! out, the `--gro` rows, the `gro:` verdict of an `--explain` line,
//! `ns_per_packet`) may differ, and every frame still goes up exactly once. Both ways of running workers are covered: statistics only
//! (summed at the end) and per-frame outputs (merged in frame order), from a
//! file and from standard input.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use netoffload_replay::mix;
use support::{pcap, pcapng, tmp};

/// The built-in mix written as a pcapng (one interface), twelve times over:
/// read by pcap-parser's streaming reader from the shared pieces.
fn mix_pcapng() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let frames: Vec<Vec<u8>> = mix::build().into_iter().map(|p| p.bytes).collect();
        let refs: Vec<&[u8]> = (0..12)
            .flat_map(|_| frames.iter().map(Vec::as_slice))
            .collect();
        let p = tmp("threads-mix.pcapng");
        std::fs::write(&p, pcapng(1, &refs)).unwrap();
        assert!(std::fs::metadata(&p).unwrap().len() > 2 << 20);
        p
    })
    .clone()
}

/// The built-in mix written as a pcap, twelve times over (more frames than a
/// merge batch of 4096, so batch boundaries are crossed); written once.
fn mix_pcap() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let frames: Vec<Vec<u8>> = mix::build().into_iter().map(|p| p.bytes).collect();
        let recs: Vec<(&[u8], u32)> = (0..12)
            .flat_map(|_| frames.iter().map(|f| (f.as_slice(), f.len() as u32)))
            .collect();
        assert!(recs.len() > 4096, "{} frames", recs.len());
        let p = tmp("threads-mix.pcap");
        std::fs::write(&p, pcap(1, &recs)).unwrap();
        p
    })
    .clone()
}

fn replay(args: &[&str], stdin: Option<&Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_replay"));
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let Some(input) = stdin else {
        return c.output().expect("run replay");
    };
    c.stdin(Stdio::piped());
    let mut child = c.spawn().expect("run replay");
    let bytes = std::fs::read(input).unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("replay ends");
    writer.join().unwrap();
    out
}

/// What one run produced: the JSON summary, the verdict CSV, the explain
/// lines (stderr, as stdout has the JSON) and the `--gro` CSV.
struct Run {
    json: serde_json::Value,
    verdicts: Vec<u8>,
    explain: String,
    gro: String,
}

fn run(capture: &Path, threads: usize, outputs: bool, stdin: bool) -> Run {
    run_with(capture, threads, outputs, stdin, &[])
}

fn run_with(capture: &Path, threads: usize, outputs: bool, stdin: bool, extra: &[&str]) -> Run {
    // One name per run: the tests run in parallel in one process, and two of
    // them making the same run wrote the same files at once (a rare failure).
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let tag = format!(
        "{}-{threads}-{outputs}-{stdin}-{}-{}",
        capture.file_name().unwrap().to_string_lossy(),
        extra.join(""),
        RUNS.fetch_add(1, Ordering::Relaxed)
    );
    let verdicts = tmp(&format!("{tag}.verdicts.csv"));
    let gro = tmp(&format!("{tag}.gro.csv"));
    let threads = threads.to_string();
    let input = if stdin {
        "-"
    } else {
        capture.to_str().unwrap()
    };
    let mut args = vec![input, "--json", "--threads", &threads];
    args.extend_from_slice(extra);
    if outputs {
        args.extend_from_slice(&[
            "--verdicts",
            verdicts.to_str().unwrap(),
            "--gro",
            gro.to_str().unwrap(),
            "--explain",
            "200",
        ]);
    }
    let o = replay(&args, stdin.then_some(capture));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{tag}: {err}");
    assert!(!err.contains("panicked"), "{tag}: {err}");
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    Run {
        json: json["runs"][0].clone(),
        verdicts: std::fs::read(&verdicts).unwrap_or_default(),
        explain: err,
        gro: std::fs::read_to_string(&gro).unwrap_or_default(),
    }
}

/// The summary without the columns the queue split may change.
fn per_frame_numbers(run: &serde_json::Value) -> serde_json::Value {
    let mut v = run.clone();
    let o = v.as_object_mut().unwrap();
    for key in [
        "packets_out",
        "merge_ratio",
        "flush_reasons",
        "ns_per_packet",
    ] {
        assert!(o.remove(key).is_some(), "{key} is in the JSON");
    }
    for class in o["classes"].as_object_mut().unwrap().values_mut() {
        class.as_object_mut().unwrap().remove("packets_out");
    }
    v
}

/// The `--explain` lines without their GRO verdict (`| gro: held`, `merged`,
/// `passed up: poll_end` depend on what else the queue holds).
fn without_gro_verdict(explain: &str) -> Vec<&str> {
    explain
        .lines()
        .map(|l| l.split(" | gro: ").next().unwrap_or(l))
        .collect()
}

/// The frame numbers of the `--gro` rows, sorted: each frame once.
fn frames_up(gro: &str) -> Vec<u64> {
    let mut frames: Vec<u64> = gro
        .lines()
        .skip(1)
        .flat_map(|row| {
            let frames = row.split(',').nth(1).unwrap().to_string();
            frames
                .split(';')
                .map(|f| f.parse::<u64>().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    frames.sort_unstable();
    frames
}

/// N queues against one on `capture`: identical per-frame outputs, the GRO
/// columns excepted; with and without per-frame outputs the statistics agree.
fn same_as_one_thread(capture: &Path, threads: usize) {
    same_as_one_thread_with(capture, threads, &[]);
}

fn same_as_one_thread_with(capture: &Path, threads: usize, extra: &[&str]) {
    let one = run_with(capture, 1, true, false, extra);
    let many = run_with(capture, threads, true, false, extra);
    let name = capture.display();
    assert_eq!(one.verdicts, many.verdicts, "{name}: --verdicts");
    let (a, b) = (
        without_gro_verdict(&one.explain),
        without_gro_verdict(&many.explain),
    );
    assert_eq!(a.len(), b.len(), "{name}: --explain lines");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "{name}: --explain");
    }
    assert_eq!(
        per_frame_numbers(&one.json),
        per_frame_numbers(&many.json),
        "{name}: per-frame numbers"
    );
    let n = one.json["packets_in"].as_u64().unwrap();
    assert_eq!(frames_up(&one.gro), (1..=n).collect::<Vec<_>>(), "{name}");
    assert_eq!(frames_up(&many.gro), (1..=n).collect::<Vec<_>>(), "{name}");
    // Statistics only (the workers add up their totals at the end) equal the
    // merged run's, GRO columns included: the same queues saw the same frames.
    let summed = run_with(capture, threads, false, false, extra);
    let mut a = many.json.clone();
    let mut b = summed.json.clone();
    a.as_object_mut().unwrap().remove("ns_per_packet");
    b.as_object_mut().unwrap().remove("ns_per_packet");
    assert_eq!(a, b, "{name}: summed and merged statistics");
}

#[test]
fn two_threads_give_the_outputs_of_one_except_the_gro_columns() {
    same_as_one_thread(&mix_pcap(), 2);
}

#[test]
fn three_threads_give_the_outputs_of_one_except_the_gro_columns() {
    same_as_one_thread(&mix_pcap(), 3);
}

#[test]
fn two_threads_on_a_pcapng_give_the_outputs_of_one_except_the_gro_columns() {
    same_as_one_thread(&mix_pcapng(), 2);
}

/// `--rss inner` (the walk picks the queue): the same guarantees.
#[test]
fn two_threads_hashing_inner_headers_give_the_outputs_of_one() {
    same_as_one_thread_with(&mix_pcap(), 2, &["--rss", "inner"]);
}

/// Standard input is read once and handed to every worker's reader: the same
/// run as from the file.
#[test]
fn two_threads_from_standard_input_equal_two_threads_from_the_file() {
    let p = mix_pcap();
    for outputs in [false, true] {
        let file = run(&p, 2, outputs, false);
        let stdin = run(&p, 2, outputs, true);
        let mut a = file.json.clone();
        let mut b = stdin.json.clone();
        a.as_object_mut().unwrap().remove("ns_per_packet");
        b.as_object_mut().unwrap().remove("ns_per_packet");
        assert_eq!(a, b, "outputs {outputs}");
        assert_eq!(file.verdicts, stdin.verdicts);
        assert_eq!(file.gro, stdin.gro);
    }
}

/// A capture cut mid-record: every worker stops at the same frame and the
/// warning is printed once.
#[test]
fn two_threads_on_a_cut_capture_report_what_it_holds() {
    let p = mix_pcap();
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.truncate(bytes.len() - 7);
    let cut = tmp("threads-cut.pcap");
    std::fs::write(&cut, bytes).unwrap();
    let one = run(&cut, 1, false, false);
    let two = run(&cut, 2, false, false);
    assert_eq!(one.json["packets_in"], two.json["packets_in"]);
    assert_eq!(
        two.explain.matches("cut short").count(),
        1,
        "{}",
        two.explain
    );
    // The same warning, naming the same byte and frame count.
    assert_eq!(one.explain, two.explain);
}

/// The corpus, every capture: `--threads 2` against `--threads 1`.
#[test]
#[ignore = "needs ../shared/corpus"]
fn two_threads_give_the_outputs_of_one_on_every_corpus_capture() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = match std::env::var_os("NETOFFLOAD_CORPUS") {
        Some(d) => PathBuf::from(d).join("pcap"),
        None => ["../shared/corpus/pcap", "../../shared/corpus/pcap"]
            .iter()
            .map(|p| root.join(p))
            .find(|p| p.is_dir())
            .expect("the corpus"),
    };
    let mut captures: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    captures.sort();
    assert!(captures.len() >= 50);
    for c in &captures {
        same_as_one_thread(c, 2);
    }
}
