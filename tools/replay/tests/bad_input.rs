//! Bad input to the `replay` binary, each case its own test: a clear one-line
//! error or warning, the documented exit code (0 ok or cut short, 1 unreadable
//! input, 2 usage), never a panic or a backtrace, and nothing read thrown away.

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use support::{pcap, pcapng_ifaces, samples, tmp};

fn replay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_replay"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run replay")
}

/// Runs the tool on a file with these bytes.
fn replay_bytes(name: &str, bytes: &[u8], extra: &[&str]) -> Output {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    let mut args = vec![p.to_str().unwrap()];
    args.extend_from_slice(extra);
    replay(&args)
}

/// Stderr, checked to hold no panic or backtrace.
fn stderr(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        !e.contains("panicked") && !e.contains("backtrace") && !e.contains("RUST_BACKTRACE"),
        "{e}"
    );
    e
}

/// An error: the exit code and a single line naming the problem.
fn fails(o: &Output, code: i32, words: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    assert!(e.contains(words), "{words:?} not in {e}");
    assert!(o.stdout.is_empty());
}

/// The `--json` summary's first run.
fn json_run(o: &Output) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    v["runs"][0].clone()
}

/// A pcap of the mix's sample frames, whole.
fn good_pcap() -> Vec<u8> {
    let s = samples();
    let recs: Vec<(&[u8], u32)> = s.iter().map(|f| (f.as_slice(), f.len() as u32)).collect();
    pcap(1, &recs)
}

#[test]
fn missing_file() {
    fails(&replay(&["/nonexistent/x.pcap"]), 1, "no such file");
}

#[test]
fn directory() {
    fails(
        &replay(&[std::env::temp_dir().to_str().unwrap()]),
        1,
        "is a directory",
    );
}

#[test]
fn empty_file() {
    fails(&replay_bytes("empty.pcap", b"", &[]), 1, "empty file");
}

#[test]
fn random_bytes() {
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| i.wrapping_mul(2_654_435_761) as u8 ^ 0x5a)
        .collect();
    fails(
        &replay_bytes("junk.pcap", &junk, &[]),
        1,
        "not a pcap or pcapng file",
    );
}

#[test]
fn pcap_cut_mid_header() {
    fails(
        &replay_bytes("cut-header.pcap", &good_pcap()[..10], &[]),
        1,
        "cut short inside the file header",
    );
}

#[test]
fn pcap_cut_mid_record_reports_every_frame_before_the_cut() {
    let whole = good_pcap();
    // The last record loses its last 7 bytes.
    let o = replay_bytes("cut-record.pcap", &whole[..whole.len() - 7], &["--json"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert_eq!(json_run(&o)["packets_in"], 3, "the three whole frames");
    assert!(
        e.contains("cut short in the middle of a block") && e.contains("after 3 frames"),
        "{e}"
    );
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

#[test]
fn unsupported_link_type() {
    let s = samples();
    fails(
        &replay_bytes("wifi.pcap", &pcap(105, &[(&s[0], s[0].len() as u32)]), &[]),
        1,
        "unsupported link type 105 (IEEE802_11)",
    );
}

#[test]
fn pcapng_with_interfaces_of_different_link_types() {
    let s = samples();
    let raw_ip = &s[0][14..]; // the same IPv4 frame without its Ethernet header
    let bytes = pcapng_ifaces(
        &[1, 101],
        &[(0, &s[0]), (1, raw_ip), (0, &s[1]), (1, raw_ip)],
    );
    let o = replay_bytes("mixed-links.pcapng", &bytes, &["--verdicts", "-"]);
    stderr(&o);
    assert_eq!(o.status.code(), Some(0));
    let v = String::from_utf8(o.stdout).unwrap();
    let rows = |f: &str| -> Vec<String> {
        v.lines()
            .filter(|l| l.starts_with(&format!("{f},")))
            .map(|l| l.split_once(',').unwrap().1.to_string())
            .collect()
    };
    assert!(!rows("1").is_empty());
    assert_eq!(rows("1"), rows("2"), "raw IP verdicts equal Ethernet ones");
    assert_eq!(rows("2"), rows("4"));
}

#[test]
fn frames_cut_by_snaplen_count_as_truncated() {
    let s = samples();
    let cut = &s[0][..60];
    let bytes = pcap(1, &[(cut, s[0].len() as u32), (&s[1], s[1].len() as u32)]);
    let o = replay_bytes("snaplen.pcap", &bytes, &["--json"]);
    stderr(&o);
    assert_eq!(o.status.code(), Some(0));
    let r = json_run(&o);
    assert_eq!(
        (r["truncated"].as_u64(), r["malformed"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(r["packets_in"], 2);
}

#[test]
fn huge_snaplen_in_the_file_header() {
    let mut bytes = good_pcap();
    bytes[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
    let o = replay_bytes("huge-snaplen.pcap", &bytes, &["--json"]);
    assert_eq!(stderr(&o), "");
    assert_eq!(json_run(&o)["packets_in"], 4);
}

#[test]
fn huge_record_length_stops_with_a_warning_keeping_what_was_read() {
    let mut bytes = good_pcap();
    let s = samples();
    // The third record header claims 2 GiB: a corrupt length, not a frame;
    // 17 MiB follow it, so the read buffer would have to grow past its limit.
    let third = 24 + (16 + s[0].len()) + (16 + s[1].len());
    bytes[third + 8..third + 12].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    bytes.resize(bytes.len() + (17 << 20), 0);
    let o = replay_bytes("huge-record.pcap", &bytes, &["--json"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert_eq!(json_run(&o)["packets_in"], 2);
    assert!(
        e.contains("after 2 frames") && e.contains("larger than 16 MiB"),
        "{e}"
    );
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

#[test]
fn unknown_option() {
    fails(&replay(&["--bogus"]), 2, "--bogus");
}

#[test]
fn conflicting_options() {
    fails(
        &replay(&["--json", "--verdicts", "-"]),
        2,
        "--json and --verdicts - would share standard output",
    );
    fails(
        &replay(&["--gro", "-", "--verdicts", "-"]),
        2,
        "standard output",
    );
}

#[test]
fn repeated_option() {
    fails(&replay(&["--nic", "l4", "--nic", "none"]), 2, "--nic");
}

#[test]
fn standard_input_gives_the_same_output_as_the_file() {
    let bytes = good_pcap();
    let from_file = replay_bytes("stdin.pcap", &bytes, &["--verdicts", "-"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_replay"))
        .args(["-", "--verdicts", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Written in small pieces: a pipe gives short reads.
    for piece in bytes.chunks(7) {
        stdin.write_all(piece).unwrap();
    }
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(o.stdout, from_file.stdout);
    assert!(!o.stdout.is_empty());
}

#[test]
fn json_with_explain_keeps_stdout_one_json_object() {
    let o = replay_bytes("explain.pcap", &good_pcap(), &["--json", "--explain", "2"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json_run(&o)["packets_in"], 4);
    assert!(
        e.contains("explain: nic l4 policy compute") && e.contains("#2 "),
        "{e}"
    );
}

#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    for args in [&["--json"][..], &["--verdicts", "-"][..], &[][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_replay"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader went away (`replay | head -c 0`)
        let o = child.wait_with_output().unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {e}");
        assert!(!e.contains("replay:"), "no error or warning: {args:?}: {e}");
    }
}
