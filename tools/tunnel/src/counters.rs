//! Counters printed on stderr once a second (and at exit).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Default)]
pub struct Counters {
    /// TUN reads and the wire segments they made.
    pub tun_reads: AtomicU64,
    pub tun_read_segs: AtomicU64,
    /// UDP send syscalls and datagrams sent.
    pub udp_sends: AtomicU64,
    pub udp_dgrams: AtomicU64,
    /// Datagrams received, TUN writes and the segments they carried.
    pub udp_recv: AtomicU64,
    pub tun_writes: AtomicU64,
    pub tun_write_segs: AtomicU64,
    /// Segments corrupted on purpose (`--corrupt-every`).
    pub corrupted: AtomicU64,
    /// GRO: segments verified bad (software), bytes summed.
    pub gro_csum_bad: AtomicU64,
    pub gro_sw_bytes: AtomicU64,
    /// Drops and pass-ups, by reason.
    pub reasons: Mutex<BTreeMap<String, u64>>,
}

impl Counters {
    pub fn add(c: &AtomicU64, n: u64) {
        c.fetch_add(n, Relaxed);
    }

    pub fn reason(&self, why: impl Into<String>) {
        if let Ok(mut m) = self.reasons.lock() {
            *m.entry(why.into()).or_default() += 1;
        }
    }

    pub fn line(&self) -> String {
        let g = |c: &AtomicU64| c.load(Relaxed);
        let per = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let mut s = format!(
            "tun_reads={} segs_per_read={:.2} udp_sends={} udp_dgrams={} udp_recv={} tun_writes={} segs_per_write={:.2} corrupted={} gro_csum_bad={} gro_sw_bytes={}",
            g(&self.tun_reads),
            per(g(&self.tun_read_segs), g(&self.tun_reads)),
            g(&self.udp_sends),
            g(&self.udp_dgrams),
            g(&self.udp_recv),
            g(&self.tun_writes),
            per(g(&self.tun_write_segs), g(&self.tun_writes)),
            g(&self.corrupted),
            g(&self.gro_csum_bad),
            g(&self.gro_sw_bytes),
        );
        if let Ok(m) = self.reasons.lock() {
            for (k, v) in m.iter() {
                s.push_str(&format!(" {k}={v}"));
            }
        }
        s
    }
}
