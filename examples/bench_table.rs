//! Prints the ratio tables of the csum and crc32c benchmarks from criterion's
//! output (`<target>/criterion/**/new/estimates.json` and `sample.json`).
//!
//! Usage: `cargo run --example bench_table [-- <criterion dir> [median|min]]`;
//! the default directory is `$CARGO_TARGET_DIR/criterion`, else
//! `target/criterion`. Speed-ups are `peer time / our time` (above 1 means ours
//! is faster). `median` (default) uses criterion's median estimate; `min` uses
//! the fastest sample (time / iterations), which on a shared, loaded machine is
//! the estimate least disturbed by other processes.
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Median time in ns of every (group, function) found.
type Times = BTreeMap<String, BTreeMap<String, f64>>;

fn median_ns(json: &str) -> Option<f64> {
    let at = json.find("\"median\"")?;
    let rest = &json[at..];
    let p = rest.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let num: String = rest[p..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        .collect();
    num.parse().ok()
}

/// The numbers of a JSON array field such as `"iters":[1.0,2.0]`.
fn array(json: &str, key: &str) -> Vec<f64> {
    let pat = format!("\"{key}\":[");
    let Some(at) = json.find(&pat) else {
        return Vec::new();
    };
    let rest = &json[at + pat.len()..];
    let end = rest.find(']').unwrap_or(rest.len());
    rest[..end]
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

/// Fastest per-iteration time over criterion's samples.
fn min_ns(sample_json: &str) -> Option<f64> {
    let iters = array(sample_json, "iters");
    let times = array(sample_json, "times");
    iters
        .iter()
        .zip(&times)
        .filter(|(i, _)| **i > 0.0)
        .map(|(i, t)| t / i)
        .min_by(|a, b| a.total_cmp(b))
}

fn walk(dir: &Path, rel: &mut Vec<String>, out: &mut Times, use_min: bool) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if !path.is_dir() || name == "report" || name == "base" || name == "change" {
            continue;
        }
        if name == "new" {
            let t = if use_min {
                fs::read_to_string(path.join("sample.json"))
                    .ok()
                    .and_then(|j| min_ns(&j))
            } else {
                fs::read_to_string(path.join("estimates.json"))
                    .ok()
                    .and_then(|j| median_ns(&j))
            };
            if let (Some(t), Some((g, f))) = (t, rel.split_first()) {
                out.entry(g.clone()).or_default().insert(f.join("/"), t);
            }
            continue;
        }
        rel.push(name);
        walk(&path, rel, out, use_min);
        rel.pop();
    }
}

/// Size in bytes from a group id such as `partial_1500_off1`.
fn size_of(group: &str) -> Option<f64> {
    group.split('_').nth(1)?.parse().ok()
}

fn gbs(bytes: f64, ns: f64) -> f64 {
    bytes / ns
}

fn fastest(fs: &BTreeMap<String, f64>, pred: impl Fn(&str) -> bool) -> Option<(&str, f64)> {
    fs.iter()
        .filter(|(k, _)| pred(k))
        .map(|(k, v)| (k.as_str(), *v))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn print_groups(times: &Times, prefix: &str) {
    let mut groups: Vec<(&String, &BTreeMap<String, f64>)> = times
        .iter()
        .filter(|(g, _)| g.starts_with(prefix))
        .collect();
    groups.sort_by(|a, b| {
        (size_of(a.0).unwrap_or(0.0), a.0)
            .partial_cmp(&(size_of(b.0).unwrap_or(0.0), b.0))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for (g, fs) in groups {
        let bytes = size_of(g).unwrap_or(0.0);
        let Some(&ours) = fs.get("ours_auto") else {
            continue;
        };
        println!(
            "\n{g}: ours_auto {:.1} ns = {:.1} GB/s",
            ours,
            gbs(bytes, ours)
        );
        println!(
            "  {:<26} {:>10} {:>9} {:>13}",
            "function", "ns", "GB/s", "speed-up"
        );
        for (f, &t) in fs {
            println!(
                "  {:<26} {:>10.1} {:>9.1} {:>12.2}x",
                f,
                t,
                gbs(bytes, t),
                t / ours
            );
        }
    }
}

fn summary(times: &Times) {
    println!("\n== summary (ours_auto against the issue's targets) ==");
    for (g, fs) in times {
        let Some(&ours) = fs.get("ours_auto") else {
            continue;
        };
        if g.starts_with("partial_") {
            let peer = fastest(fs, |k| k.starts_with("peer_") && k != "peer_linux_adc");
            let linux = fs.get("peer_linux_adc");
            let limit = fs.get("limit_wrapping_u64");
            if let Some((p, pt)) = peer {
                print!("{g:<24} vs fastest peer ({p}) {:.2}x", pt / ours);
            }
            if let Some(l) = linux {
                print!(", vs linux_adc {:.2}x", l / ours);
            }
            if let Some(l) = limit {
                print!(", of read limit {:.0}%", 100.0 * l / ours);
            }
            println!();
        } else if g.starts_with("copy_") {
            if let (Some(cp), Some(cts)) = (
                fs.get("peer_copy_from_slice"),
                fs.get("peer_copy_then_partial"),
            ) {
                println!(
                    "{g:<24} time vs copy_from_slice {:.2}x, speed-up vs copy-then-sum {:.2}x",
                    ours / cp,
                    cts / ours
                );
            }
        } else if g.starts_with("crc32c_") {
            if let Some((p, pt)) = fastest(fs, |k| k.starts_with("peer_")) {
                print!("{g:<24} vs fastest peer ({p}) {:.2}x", pt / ours);
            }
            if let Some(c) = fs.get("peer_crc32c") {
                print!(", vs crc32c crate {:.2}x", c / ours);
            }
            println!();
        }
    }
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var("CARGO_TARGET_DIR")
                .map(|t| PathBuf::from(t).join("criterion"))
                .unwrap_or_else(|_| PathBuf::from("target/criterion"))
        });
    let use_min = std::env::args().nth(2).as_deref() == Some("min");
    let mut times = Times::new();
    walk(&dir, &mut Vec::new(), &mut times, use_min);
    if times.is_empty() {
        println!(
            "no criterion results under {} (run `cargo bench --bench csum` first)",
            dir.display()
        );
        return;
    }
    println!(
        "criterion results from {} ({} times; speed-up = that time / ours_auto)",
        dir.display(),
        if use_min { "fastest-sample" } else { "median" }
    );
    for p in ["partial_", "copy_", "crc32c_"] {
        print_groups(&times, p);
    }
    summary(&times);
}
