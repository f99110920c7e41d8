//! The summary: per-run statistics, the table and the `--json` object.

use std::collections::BTreeMap;
use std::fmt::Write;

/// Counters of one class of traffic in one run.
#[derive(Clone, Debug, Default, PartialEq)]
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

    /// The most frequent reasons, most frequent first (ties by name).
    pub fn top_reasons(&self, n: usize) -> Vec<(&'static str, u64)> {
        let mut v: Vec<_> = self.flush_reasons.iter().map(|(k, c)| (*k, *c)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v.truncate(n);
        v
    }
}

/// Tunnel classes shown in the tunnel view, in order, when present.
const TUNNEL_VIEW: [&str; 6] = [
    "vxlan_zero_csum",
    "vxlan_csum",
    "geneve",
    "geneve_csum",
    "gre",
    "gre_csum",
];

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
    let shown: Vec<&str> = TUNNEL_VIEW
        .iter()
        .copied()
        .filter(|c| runs.iter().any(|r| r.classes.contains_key(*c)))
        .collect();
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
    s
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_f64(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "null".into()
    }
}

/// The `--json` object: `{"runs": [...]}` with the schema of issue 9.
pub fn json(runs: &[RunStats]) -> String {
    let mut s = String::from("{\"runs\": [");
    for (i, r) in runs.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(
            s,
            "{{\"profile\": {}, \"policy\": {}, \"packets_in\": {}, \"packets_out\": {}, \
             \"merge_ratio\": {}, \"sw_csum_bytes\": {}, \"sw_csum_bytes_twice\": {}, \"sw_adjust_bytes\": {}, \"bad_csum\": {}, \
             \"device_faults\": {}, \"malformed\": {}, \"not_ip\": {}, \"flush_reasons\": {{",
            json_str(r.profile),
            json_str(r.policy),
            r.packets_in,
            r.packets_out,
            json_f64(r.merge_ratio()),
            r.sw_csum_bytes,
            r.dup_csum_bytes,
            r.sw_adjust_bytes,
            r.bad_csum,
            r.device_faults,
            r.malformed,
            r.not_ip
        );
        for (j, (k, c)) in r.flush_reasons.iter().enumerate() {
            if j > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "{}: {c}", json_str(k));
        }
        let _ = write!(
            s,
            "}}, \"ns_per_packet\": {}, \"classes\": {{",
            json_f64(r.ns_per_packet)
        );
        for (j, (k, c)) in r.classes.iter().enumerate() {
            if j > 0 {
                s.push_str(", ");
            }
            let _ = write!(
                s,
                "{}: {{\"packets_in\": {}, \"packets_out\": {}, \"sw_csum_bytes\": {}}}",
                json_str(k),
                c.packets_in,
                c.packets_out,
                c.sw_csum_bytes
            );
        }
        s.push_str("}}");
    }
    s.push_str("]}");
    s
}
