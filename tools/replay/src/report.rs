//! The summary: per-run statistics, the table and the `--json` object.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;
use serde_json::value::RawValue;

/// Counters of one class of traffic in one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassStats {
    /// Frames in.
    pub packets_in: u64,
    /// Packets and super-packets out (counted in the class of their first frame).
    pub packets_out: u64,
    /// Bytes summed in software to verify checksums.
    pub sw_csum_bytes: u64,
}

impl ClassStats {
    /// Frames in per packet out.
    pub fn merge_ratio(&self) -> f64 {
        ratio(self.packets_in, self.packets_out)
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// Everything one run (one NIC profile, one policy) measured.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// `--nic` name.
    pub profile: &'static str,
    /// `--policy` name.
    pub policy: &'static str,
    /// Frames in.
    pub packets_in: u64,
    /// Packets and super-packets handed up.
    pub packets_out: u64,
    /// Bytes summed in software to verify checksums.
    pub sw_csum_bytes: u64,
    /// Bytes summed in software more than once (the invariant says 0).
    pub dup_csum_bytes: u64,
    /// Header bytes summed to adjust a `Complete` sum (not in `sw_csum_bytes`).
    pub sw_adjust_bytes: u64,
    /// Frames with a checksum found bad.
    pub bad_csum: u64,
    /// Device sums that did not check while the software sum did.
    pub device_faults: u64,
    /// Frames whose headers could not be parsed (outer or inner).
    pub malformed: u64,
    /// Frames that are not IP (ARP, STP...).
    pub not_ip: u64,
    /// Frames cut by the capture's snapshot length whose headers stop parsing
    /// (counted here, not in `malformed`; their checksums are `unverified`).
    pub truncated: u64,
    /// Why packets went up, with counts.
    pub flush_reasons: BTreeMap<&'static str, u64>,
    /// Wall-clock nanoseconds per frame of the GRO stage (parse, validate, merge).
    pub ns_per_packet: f64,
    /// Per traffic class.
    pub classes: BTreeMap<String, ClassStats>,
}

impl RunStats {
    /// Frames in per packet out.
    pub fn merge_ratio(&self) -> f64 {
        ratio(self.packets_in, self.packets_out)
    }

    /// Software checksum bytes per frame in.
    pub fn sw_per_packet(&self) -> f64 {
        if self.packets_in == 0 {
            0.0
        } else {
            self.sw_csum_bytes as f64 / self.packets_in as f64
        }
    }

    /// Adds the counters of `other` (another `--threads` queue of the same run);
    /// `ns_per_packet` is left to the caller.
    pub fn absorb(&mut self, other: &RunStats) {
        self.packets_in += other.packets_in;
        self.packets_out += other.packets_out;
        self.sw_csum_bytes += other.sw_csum_bytes;
        self.dup_csum_bytes += other.dup_csum_bytes;
        self.sw_adjust_bytes += other.sw_adjust_bytes;
        self.bad_csum += other.bad_csum;
        self.device_faults += other.device_faults;
        self.malformed += other.malformed;
        self.not_ip += other.not_ip;
        self.truncated += other.truncated;
        for (reason, count) in &other.flush_reasons {
            *self.flush_reasons.entry(reason).or_default() += count;
        }
        for (class, c) in &other.classes {
            let mine = self.classes.entry(class.clone()).or_default();
            mine.packets_in += c.packets_in;
            mine.packets_out += c.packets_out;
            mine.sw_csum_bytes += c.sw_csum_bytes;
        }
    }

    /// The most frequent reasons, most frequent first (ties by name).
    pub fn top_reasons(&self, n: usize) -> Vec<(&'static str, u64)> {
        let mut v: Vec<_> = self.flush_reasons.iter().map(|(k, c)| (*k, *c)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v.truncate(n);
        v
    }
}

/// The built-in mix's tunnel classes, in the tunnel view's order.
const MIX_TUNNELS: [&str; 6] = [
    "vxlan_zero_csum",
    "vxlan_csum",
    "geneve",
    "geneve_csum",
    "gre",
    "gre_csum",
];

/// A capture's tunnel classes (the walk's encapsulation names), in the view's order.
const CAPTURE_TUNNELS: [&str; 6] = ["vxlan", "geneve", "gre", "gre_udp", "mpls_udp", "ipip"];

/// Every tunnel class present in the runs: the mix's first, then a capture's.
fn tunnel_classes(runs: &[RunStats]) -> Vec<&'static str> {
    let mut shown: Vec<&'static str> = Vec::new();
    for c in MIX_TUNNELS.iter().chain(CAPTURE_TUNNELS.iter()) {
        if !shown.contains(c) && runs.iter().any(|r| r.classes.contains_key(*c)) {
            shown.push(c);
        }
    }
    shown
}

/// The human table.
pub fn table(runs: &[RunStats], title: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{title}\n");
    let _ = writeln!(
        s,
        "{:<10} {:<8} {:>7} {:>8} {:>6} {:>10} {:>8} {:>5} {:>4} {:>6} {:>9} {:>7}  top flush reasons",
        "nic",
        "policy",
        "pkts in",
        "pkts out",
        "merge",
        "sw bytes",
        "sw B/pkt",
        "twice",
        "bad",
        "faults",
        "malformed",
        "ns/pkt"
    );
    for r in runs {
        let top: Vec<String> = r
            .top_reasons(3)
            .iter()
            .map(|(k, c)| format!("{k} {c}"))
            .collect();
        let _ = writeln!(
            s,
            "{:<10} {:<8} {:>7} {:>8} {:>6.2} {:>10} {:>8.1} {:>5} {:>4} {:>6} {:>9} {:>7.0}  {}",
            r.profile,
            r.policy,
            r.packets_in,
            r.packets_out,
            r.merge_ratio(),
            r.sw_csum_bytes,
            r.sw_per_packet(),
            r.dup_csum_bytes,
            r.bad_csum,
            r.device_faults,
            r.malformed,
            r.ns_per_packet,
            top.join(", ")
        );
    }
    let shown = tunnel_classes(runs);
    if !shown.is_empty() {
        let _ = writeln!(
            s,
            "\nTunnel traffic per class: merge ratio / software checksum bytes per packet"
        );
        let mut head = format!("{:<10} {:<8}", "nic", "policy");
        for c in &shown {
            let _ = write!(head, " {c:>16}");
        }
        let _ = writeln!(s, "{head}");
        for r in runs {
            let mut line = format!("{:<10} {:<8}", r.profile, r.policy);
            for c in &shown {
                let cell = match r.classes.get(*c) {
                    Some(cs) => format!(
                        "{:.2} / {:.0}",
                        cs.merge_ratio(),
                        if cs.packets_in == 0 {
                            0.0
                        } else {
                            cs.sw_csum_bytes as f64 / cs.packets_in as f64
                        }
                    ),
                    None => "-".into(),
                };
                let _ = write!(line, " {cell:>16}");
            }
            let _ = writeln!(s, "{line}");
        }
    }
    if let Some(r) = runs.iter().find(|r| r.truncated > 0) {
        let _ = writeln!(
            s,
            "\n{} frames cut by the capture's snapshot length stop parsing: counted as truncated, \
             not malformed (their checksums are unverified)",
            r.truncated
        );
    }
    s
}

/// A number written with three decimals, as the JSON has always had it.
fn fixed3(x: f64) -> Box<RawValue> {
    let text = if x.is_finite() {
        format!("{x:.3}")
    } else {
        "null".into()
    };
    RawValue::from_string(text).unwrap_or_else(|_| RawValue::from_string("null".into()).unwrap())
}

/// One run in the `--json` object (the schema of issue 9; `truncated` added by issue 18).
#[derive(Serialize)]
struct JsonRun<'a> {
    profile: &'a str,
    policy: &'a str,
    packets_in: u64,
    packets_out: u64,
    merge_ratio: Box<RawValue>,
    sw_csum_bytes: u64,
    sw_csum_bytes_twice: u64,
    sw_adjust_bytes: u64,
    bad_csum: u64,
    device_faults: u64,
    malformed: u64,
    not_ip: u64,
    flush_reasons: &'a BTreeMap<&'static str, u64>,
    ns_per_packet: Box<RawValue>,
    classes: &'a BTreeMap<String, ClassStats>,
    truncated: u64,
}

/// The `--json` object: `{"runs": [...]}`, spaced as it always was (`", "`, `": "`).
pub fn json(runs: &[RunStats]) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        runs: Vec<JsonRun<'a>>,
    }
    let doc = Doc {
        runs: runs
            .iter()
            .map(|r| JsonRun {
                profile: r.profile,
                policy: r.policy,
                packets_in: r.packets_in,
                packets_out: r.packets_out,
                merge_ratio: fixed3(r.merge_ratio()),
                sw_csum_bytes: r.sw_csum_bytes,
                sw_csum_bytes_twice: r.dup_csum_bytes,
                sw_adjust_bytes: r.sw_adjust_bytes,
                bad_csum: r.bad_csum,
                device_faults: r.device_faults,
                malformed: r.malformed,
                not_ip: r.not_ip,
                flush_reasons: &r.flush_reasons,
                ns_per_packet: fixed3(r.ns_per_packet),
                classes: &r.classes,
                truncated: r.truncated,
            })
            .collect(),
    };
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    match doc.serialize(&mut ser) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(e) => format!("{{\"error\": \"{e}\"}}"),
    }
}

/// serde_json's compact output with a space after `,` and `:` (the format
/// other tools have read since issue 9).
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}
