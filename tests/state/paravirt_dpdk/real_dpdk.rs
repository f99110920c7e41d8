//! The model and the crate against DPDK's own code: `dpdk_harness.c` runs the
//! 22.11 header functions (`rte_validate_tx_offload`,
//! `rte_net_intel_cksum_prepare`) on the same mbufs. Runs when
//! `DPDK_TX_HARNESS` names the built harness (needs `libdpdk-dev`; `ci/dpdk`
//! installs it, builds the harness and runs this); otherwise it says it was
//! skipped.

use super::dpdk_model::{self as model, Release};
use super::prop::{FLIP_BITS, Pkt, fitting, make_pkt, spec_strategy};
use netoffload::state::CsumState;
use netoffload::state::paravirt::dpdk::{self, TxOffload, TxSeedMode};
use proptest::prelude::any;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::io::Write;
use std::process::{Command, Stdio};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// A random request on a random packet (the property test's generator).
fn case(runner: &mut TestRunner) -> (Pkt, TxOffload) {
    let spec = spec_strategy().new_tree(runner).unwrap().current();
    let mut next = || any::<u64>().new_tree(runner).unwrap().current();
    let tunnel = match next() % 3 {
        0 => None,
        n => Some(n == 2),
    };
    let r = next();
    let p = make_pkt(spec, tunnel);
    let mut tx = fitting(&p, r & 1 != 0, r & 2 != 0, r & 4 != 0);
    for i in 0..(r >> 3) % 3 {
        tx.ol_flags ^= FLIP_BITS[((r >> (8 + 5 * i)) % FLIP_BITS.len() as u64) as usize];
    }
    if (r >> 30) % 7 == 0 {
        tx.ol_flags = next() & model::OFFLOAD_MASK;
    }
    if (r >> 33) % 9 == 0 {
        tx.tso_segsz = 0;
    }
    (p, tx)
}

/// Whether the model can run without reading past the frame (DPDK's prepare
/// writes the outer headers before its bound check; the model indexes).
fn in_bounds(p: &Pkt, tx: &TxOffload) -> bool {
    let outer = usize::from(tx.outer_l2_len) + usize::from(tx.outer_l3_len);
    let inner = outer + usize::from(tx.l2_len);
    let len = p.bytes.len();
    outer + 48 <= len && inner + 40 <= len && inner + usize::from(tx.l3_len) + 18 <= len
}

#[test]
fn model_and_crate_agree_with_dpdk_headers() {
    let Ok(bin) = std::env::var("DPDK_TX_HARNESS") else {
        eprintln!("skipped: set DPDK_TX_HARNESS to the built dpdk_harness.c");
        return;
    };
    let mut runner = TestRunner::deterministic();
    let cases: Vec<(Pkt, TxOffload)> = (0..3000)
        .map(|_| case(&mut runner))
        .filter(|(p, tx)| in_bounds(p, tx))
        .collect();
    let mut input = String::new();
    for (p, tx) in &cases {
        input += &format!(
            "{:x} {} {} {} {} {} {} {}\n",
            tx.ol_flags,
            tx.tso_segsz,
            tx.l2_len,
            tx.l3_len,
            tx.l4_len,
            tx.outer_l2_len,
            tx.outer_l3_len,
            hex(&p.bytes)
        );
    }
    let mut child = Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Write from another thread: the harness answers while it reads.
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    writer.join().unwrap();
    let mut compared = [0usize; 3];
    for ((p, tx), line) in cases.iter().zip(out.lines()) {
        let mut it = line.split(' ');
        let valid: i32 = it.next().unwrap().parse().unwrap();
        let prepared: i32 = it.next().unwrap().parse().unwrap();
        let bytes = unhex(it.next().unwrap());
        assert_eq!(
            valid == 0,
            model::validate(tx.ol_flags, tx.tso_segsz).is_none(),
            "{tx:?}"
        );
        let mut m = p.bytes.clone();
        let ok = model::intel_prepare(&mut m, tx, Release::Dpdk2211).is_ok();
        assert_eq!(prepared == 0, ok, "{tx:?}");
        if ok {
            assert_eq!(m, bytes, "prepare bytes {tx:?}");
        }
        compared[0] += 1;
        // The crate accepts only what DPDK accepts, and its prepared seed is
        // DPDK's (outside segmentation, where the conventions differ, and
        // IPv6 extension headers, where DPDK's is wrong).
        let mut ours = p.bytes.clone();
        let got = dpdk::tx_to_meta(tx, &mut ours, p.link, TxSeedMode::Prepare);
        if let Ok(g) = got {
            assert!(
                valid == 0 && prepared == 0,
                "accepted what DPDK refuses: {tx:?}"
            );
            compared[1] += 1;
            let ext = p.hdrs.iter().any(|h| h.v6 && h.l4 != h.l3 + 40);
            if let (CsumState::Partial { start, offset, .. }, None, false) =
                (g.meta.state(), g.seg, ext)
                && offset != 8
            {
                let field = start + offset..start + offset + 2;
                assert_eq!(ours[field.clone()], bytes[field], "{tx:?}");
                compared[2] += 1;
            }
        }
    }
    eprintln!(
        "compared with DPDK: {} requests, {} accepted, {} seeds",
        compared[0], compared[1], compared[2]
    );
    assert!(compared[2] > 50);
}
