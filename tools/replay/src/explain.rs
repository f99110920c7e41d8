//! `--explain N`: one readable line per frame: the layers, the device report,
//! every checksum-state step with its reason, and the GRO verdict.

use crate::gro_run::Verdict;
use crate::nic::Report;

/// Formats one frame's explanation.
pub fn line(
    frame: u64,
    class: &str,
    len: usize,
    chain: &str,
    report: Report,
    steps: &[String],
    verdict: &Verdict,
) -> String {
    let nic = match report {
        Report::Bad { depth } => format!("device says d{depth} checksum bad -> {}", report.state()),
        _ => report.state().to_string(),
    };
    let gro = match verdict {
        Verdict::NewFlow => "held: new flow".to_string(),
        Verdict::Merged(n) => format!("merged ({n} segments held)"),
        Verdict::PassUp(r) => format!("passed up: {r}"),
    };
    let steps = if steps.is_empty() {
        "no checksum work".to_string()
    } else {
        steps.join("; ")
    };
    format!("#{frame} [{class}] {len}B {chain} | nic: {nic} | {steps} | gro: {gro}")
}
