//! A frame (mostly mutated valid packets), an HONEST device report for its
//! bytes, then up to 8 state transitions chosen by the input. After every
//! step the independent oracle accepts the state, a refused step changes
//! nothing, a `Good` verdict is only given to a layer whose checksum verifies,
//! and no step turns a corrupted checksum into a correct one.
//!
//! Input: 31 control bytes, then the frame.
//! - `[0]` report: None / L4Ok / L4Bad / Complete / local-origin Partial.
//! - `[1]` requested level (capped to what is honest).
//! - `[2]` bit 0: fix every checksum first; bit 1: then corrupt one byte at
//!   `[3..5]` (xor mask `[5]`); bit 3: Partial with `DATA_VALID`.
//! - `[6]` number of steps (0..=8); `[7..31]` three bytes per step.
#![no_main]

#[path = "../src/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/support/oracle.rs"]
mod oracle;

use common::Ctl;
use libfuzzer_sys::fuzz_target;
use netoffload::encap::{EncapConfig, parse_inner, parse_tunnel};
use netoffload::state::{
    self, Addr, ConntrackConfig, CsumFlags, CsumLevel, CsumMeta, CsumState, DeviceReport, Hook,
    Packet, PacketMut, PartialKind, Reason, Rewrite, Verdict,
};
use netoffload::wire::{self, Layers, LinkType, Net, Transport};
use oracle::{Link, View};

/// Where the packet stands during the sequence.
struct Run {
    bytes: Vec<u8>,
    layers: Layers,
    cur: usize,
    meta: CsumMeta,
    levels_from: usize,
    /// The current layer passed `validate` (needed before descending).
    validated_here: bool,
    /// L4 offsets of checksums that did not verify at the start.
    bad_at_start: Vec<usize>,
    /// Index of the step running (for messages).
    step: usize,
}

impl Run {
    fn view(&self) -> View<'_> {
        View {
            bytes: &self.bytes,
            link: Link::Ethernet,
            cur: self.cur,
            levels_from: self.levels_from,
            l4: self.layers.l4,
        }
    }

    fn sound(&self, what: &str) {
        if let Err(e) = oracle::check(&self.view(), &self.meta) {
            // The all-zero-message +0/-0 limit (see `checked`).
            if let oracle::Unsound::CsumValidOnBad { site }
            | oracle::Unsound::DataValidOnBad { site } = &e
                && self.bytes[site.l4..site.end].iter().all(|&x| x == 0)
            {
                return;
            }
            panic!(
                "step {} {what}: oracle rejects {:?} (cur {}, levels_from {}, l4 {}): {e:?}",
                self.step, self.meta, self.cur, self.levels_from, self.layers.l4
            );
        }
        // Nothing heals a corrupted checksum.
        let now = oracle::sites(&self.bytes, Link::Ethernet);
        // (Only the current layer and inner ones: rewriting an inner header
        // legitimately changes what an outer checksum covers.)
        for at in self.bad_at_start.iter().filter(|&&at| at >= self.layers.l4) {
            if let Some(s) = now.iter().find(|s| s.l4 == *at) {
                assert!(
                    !s.correct,
                    "step {} {what}: corrupted site {s:?} verifies now",
                    self.step
                );
            }
        }
    }

    fn pkt(&self) -> Option<Packet<'_>> {
        Packet::new(&self.bytes, self.layers, self.cur).ok()
    }

    /// Applies a receive-side check's outcome; `false` ends the run (drop).
    fn checked(&mut self, what: &str, r: state::Transition, consume: bool) -> bool {
        let before = self.meta.clone();
        match r {
            Ok(o) => {
                if o.verdict == Verdict::Good
                    && !matches!(o.reason, Reason::PartialTrusted | Reason::DataValidTrusted)
                    && !matches!(before.state(), CsumState::Partial { .. })
                    && !before.flags().contains(CsumFlags::DATA_VALID)
                {
                    let site = oracle::sites(&self.bytes, Link::Ethernet)
                        .into_iter()
                        .find(|s| s.l4 == self.layers.l4);
                    // An all-zero message without pseudo-header (ICMPv4) and a
                    // zero field sums to +0: arithmetic on a `Complete` sum
                    // (Linux's too) sees -0 and cannot tell; the oracle
                    // documents the same limit.
                    let zero_msg = site.is_some_and(|s| {
                        s.end > s.l4 && self.bytes[s.l4..s.end].iter().all(|&x| x == 0)
                    });
                    let ok = if zero_msg {
                        None
                    } else {
                        site.map(|s| s.correct)
                    };
                    assert_ne!(
                        ok,
                        Some(false),
                        "step {} {what}: Good ({:?}) for a layer that does not verify",
                        self.step,
                        o.reason
                    );
                }
                self.meta = o.meta;
                if consume {
                    self.levels_from = self.levels_from.max(self.layers.l4 + 1);
                }
                self.sound(what);
                if o.verdict == Verdict::Bad {
                    return false;
                }
                if consume && o.verdict != Verdict::NotChecked {
                    self.validated_here = true;
                }
                true
            }
            Err(rej) => {
                assert_eq!(
                    rej.meta, before,
                    "step {} {what}: refusal changed the meta",
                    self.step
                );
                true
            }
        }
    }

    /// A transition that may write the buffer.
    fn mutating(
        &mut self,
        what: &str,
        f: impl FnOnce(CsumMeta, &mut PacketMut<'_>) -> state::Transition,
    ) {
        let copy = self.bytes.clone();
        let before = self.meta.clone();
        let Ok(mut pm) = PacketMut::new(&mut self.bytes, self.layers, self.cur) else {
            return;
        };
        match f(self.meta.clone(), &mut pm) {
            Ok(o) => {
                self.meta = o.meta;
                self.sound(what);
            }
            Err(rej) => {
                assert_eq!(
                    rej.meta, before,
                    "step {} {what}: refusal changed the meta",
                    self.step
                );
                assert!(
                    self.bytes == copy,
                    "step {} {what}: refusal changed bytes",
                    self.step
                );
            }
        }
    }
}

fn honest_level(bytes: &[u8], want: u8) -> Option<CsumLevel> {
    let sites = oracle::sites(bytes, Link::Ethernet);
    let good = sites
        .iter()
        .filter(|s| s.counted)
        .take_while(|s| s.correct)
        .count();
    if good == 0 {
        return None;
    }
    CsumLevel::new(want.min(good as u8 - 1).min(3))
}

fuzz_target!(|data: &[u8]| {
    let mut c = Ctl::new(data);
    let report = c.u8() % 5;
    let want = c.u8();
    let opts = c.u8();
    let corrupt_at = c.u16() as usize;
    let mask = c.u8();
    let nsteps = (c.u8() % 9) as usize;
    let steps: Vec<[u8; 3]> = (0..8).map(|_| [c.u8(), c.u8(), c.u8()]).collect();
    let mut bytes = c.rest().to_vec();

    let Ok(layers) = wire::parse(&bytes, LinkType::Ethernet) else {
        return;
    };
    if !common::plain_pseudo(&layers) {
        return; // outside the oracle's pseudo-header model
    }
    if opts & 1 != 0 {
        common::fix_all(&mut bytes, Link::Ethernet, Some(layers.l3));
    }
    if opts & 2 != 0 {
        common::corrupt(&mut bytes, corrupt_at, mask);
    }
    // Re-parse: the fix / corruption may have changed the headers.
    let Ok(layers) = wire::parse(&bytes, LinkType::Ethernet) else {
        return;
    };
    if !common::plain_pseudo(&layers) {
        return;
    }

    let mut partial_site = None;
    let meta = match report {
        0 => state::receive(DeviceReport::None).meta,
        1 => match honest_level(&bytes, want % 4) {
            Some(level) => state::receive(DeviceReport::L4Ok { level }).meta,
            None => state::receive(DeviceReport::None).meta,
        },
        2 => state::receive(DeviceReport::L4Bad).meta,
        3 => {
            state::receive(DeviceReport::Complete {
                csum: oracle::honest_complete(&bytes, layers.l3),
            })
            .meta
        }
        _ => {
            // Local origin: the field holds the pseudo-header seed (Inet) or
            // zero (CRC32c), to be filled on transmit.
            let (offset, kind) = match layers.transport {
                Transport::Tcp => (16, PartialKind::Inet),
                Transport::Udp => (6, PartialKind::Inet),
                Transport::Sctp => (8, PartialKind::Crc32c),
                _ => return,
            };
            // A local packet has no trailing bytes (the oracle's fill, like
            // the kernel's, sums from start to the end of the packet).
            bytes.truncate(layers.end);
            if layers.transport == Transport::Udp
                && common::be16(&bytes, layers.l4 + 4) != Some((layers.end - layers.l4) as u16)
            {
                return; // a UDP length short of the IP payload: not a local packet
            }
            let field = layers.l4 + offset;
            if field + 4 > bytes.len() {
                return;
            }
            match kind {
                PartialKind::Inet => {
                    let proto = if layers.transport == Transport::Tcp {
                        6
                    } else {
                        17
                    };
                    let Some(seed) =
                        common::pseudo(&bytes, layers.l3, proto, layers.end - layers.l4)
                    else {
                        return;
                    };
                    bytes[field..field + 2].copy_from_slice(&seed.to_be_bytes());
                }
                PartialKind::Crc32c => bytes[field..field + 4].fill(0),
            }
            partial_site = Some(layers.l4);
            let mut flags = CsumFlags::CSUM_BLANK;
            // DATA_VALID (Xen `data_validated`) vouches for the whole packet:
            // honest only when every other checksum verifies.
            let others_ok = oracle::sites(&bytes, Link::Ethernet)
                .iter()
                .all(|s| s.correct || s.l4 == layers.l4);
            if opts & 8 != 0 && others_ok {
                flags |= CsumFlags::DATA_VALID;
            }
            let Ok(m) = CsumMeta::new(
                CsumState::Partial {
                    start: layers.l4,
                    offset,
                    kind,
                },
                flags,
            ) else {
                return;
            };
            m
        }
    };

    let bad_at_start = oracle::sites(&bytes, Link::Ethernet)
        .iter()
        .filter(|s| !s.correct && Some(s.l4) != partial_site)
        .map(|s| s.l4)
        .collect();
    let mut run = Run {
        bytes,
        layers,
        cur: layers.l3,
        meta,
        levels_from: 0,
        validated_here: false,
        bad_at_start,
        step: 0,
    };
    run.sound("receive");

    for (i, &[op, a, b]) in steps.iter().take(nsteps).enumerate() {
        run.step = i;
        let len = run.bytes.len();
        match op % 13 {
            0 | 1 => {
                let Some(pkt) = run.pkt() else { return };
                let r = if op % 13 == 0 {
                    state::validate(run.meta.clone(), &pkt)
                } else {
                    state::deliver(run.meta.clone(), &pkt)
                };
                if !run.checked("validate", r, true) {
                    return;
                }
            }
            2 => {
                let Some(pkt) = run.pkt() else { return };
                let r = state::try_convert(run.meta.clone(), &pkt);
                run.checked("try_convert", r, false);
            }
            3 => {
                let n = usize::from(a) % (len - run.cur + 2);
                let Some(pkt) = run.pkt() else { return };
                match state::pull(run.meta.clone(), &pkt, n) {
                    Ok(o) => {
                        run.meta = o.meta;
                        run.cur += n;
                        run.validated_here = false;
                        run.sound("pull");
                    }
                    Err(rej) => assert_eq!(rej.meta, run.meta),
                }
            }
            4 => {
                let n = usize::from(a) % (run.cur + 2);
                let Some(pkt) = run.pkt() else { return };
                match state::push(run.meta.clone(), &pkt, n) {
                    Ok(o) => {
                        run.meta = o.meta;
                        run.cur -= n;
                        run.sound("push");
                    }
                    Err(rej) => assert_eq!(rej.meta, run.meta),
                }
            }
            5 => {
                // Mostly to the IP end, sometimes anywhere.
                let to = if a & 1 == 0 {
                    run.layers.end
                } else {
                    usize::from(b) % (len + 2)
                };
                let Some(pkt) = run.pkt() else { return };
                match state::trim(run.meta.clone(), &pkt, to) {
                    Ok(o) => {
                        run.meta = o.meta;
                        run.bytes.truncate(to);
                        run.sound("trim");
                    }
                    Err(rej) => assert_eq!(rej.meta, run.meta),
                }
            }
            6 => {
                run.meta = state::bridge(run.meta.clone()).meta;
                run.sound("bridge");
            }
            7 => run.mutating("route", state::route),
            8 => {
                let rw = match (a % 4, run.layers.net) {
                    (0, Net::Ipv4) => Rewrite::Src(Addr::V4([a, b, a ^ b, 7])),
                    (1, Net::Ipv4) => Rewrite::Dst(Addr::V4([b, a, 1, a ^ b])),
                    (0, Net::Ipv6) => Rewrite::Src(Addr::V6([a ^ b; 16])),
                    (1, Net::Ipv6) => Rewrite::Dst(Addr::V6([b; 16])),
                    (2, _) => Rewrite::SrcPort(u16::from_le_bytes([a, b])),
                    _ => Rewrite::DstPort(u16::from_le_bytes([b, a])),
                };
                run.mutating("nat", |m, p| state::nat(m, p, rw));
            }
            9 => {
                let hook = [
                    Hook::PreRouting,
                    Hook::LocalIn,
                    Hook::Forward,
                    Hook::LocalOut,
                    Hook::PostRouting,
                ][usize::from(a) % 5];
                let cfg = ConntrackConfig {
                    checksum: b & 1 == 0,
                };
                let Some(pkt) = run.pkt() else { return };
                let r = state::conntrack(run.meta.clone(), &pkt, hook, cfg);
                if !run.checked("conntrack", r, false) {
                    return;
                }
            }
            10 => {
                // Filling writes the Partial's field: that site may verify now.
                if let CsumState::Partial { start, .. } = run.meta.state() {
                    run.bad_at_start.retain(|&at| at != start);
                }
                run.mutating("fill", state::fill);
            }
            11 => {
                let Some(pkt) = run.pkt() else { return };
                match state::check_ipv4_header(run.meta.clone(), &pkt) {
                    Ok(o) => {
                        if o.verdict == Verdict::Good {
                            assert!(common::ipv4_header_ok(&run.bytes, run.layers.l3));
                        }
                        run.meta = o.meta;
                        run.sound("check_ipv4_header");
                    }
                    Err(rej) => assert_eq!(rej.meta, run.meta),
                }
            }
            _ => {
                // Descend into a tunnel, as the receive path does: only after
                // the outer layer was validated; the headers are pulled.
                if !run.validated_here {
                    continue;
                }
                let cfg = EncapConfig::DEFAULT;
                let Ok(t) = parse_tunnel(&run.bytes, &run.layers, &cfg) else {
                    continue;
                };
                let Ok(inner) = parse_inner(&run.bytes, &t) else {
                    continue;
                };
                if inner.l3 < run.cur || !common::plain_pseudo(&inner) {
                    continue;
                }
                if a & 1 != 0 {
                    let pkt = run.pkt().expect("valid before");
                    let r = state::try_convert(run.meta.clone(), &pkt);
                    run.checked("descend/try_convert", r, false);
                }
                let pkt = run.pkt().expect("valid before");
                match state::pull(run.meta.clone(), &pkt, inner.l3 - run.cur) {
                    Ok(o) => {
                        run.meta = o.meta;
                        run.cur = inner.l3;
                        run.layers = inner;
                        run.validated_here = false;
                        run.sound("descend");
                    }
                    Err(rej) => panic!("pull to the inner header refused: {rej:?}"),
                }
            }
        }
    }
});
