//! The GRO stage of the replay: `netoffload::gro::Gro` driven by the simulated
//! poll loop, followed by the stack's validation of every packet GRO passes up,
//! so every frame's checksums are validated exactly once (by GRO or by the
//! stack after it) and the software byte counts of different rows compare.
//! `validate` models that receive path with the `state` and `encap`
//! transitions; it also narrates `--explain`.

use netoffload::encap::{self, DecapError, DecapReason, EncapConfig};
use netoffload::gro::{
    Disposition, FlushReason, Gro, GroConfig, GroKinds, Held, SuperPacket, TunnelPolicy,
};
use netoffload::state::{
    self, CsumFlags, CsumMeta, CsumState, CsumVerdict, Packet, Reason, ValidateOptions, ZeroUdp6,
};
use netoffload::wire::{LinkType, Net, Transport};

use crate::cli::Policy;
use crate::csumcheck;
use crate::nic::Report;
use crate::walk::{TunnelKind, Walk};

/// Engine settings.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Tunnel checksum policy.
    pub policy: Policy,
    /// UDP GRO for plain UDP flows.
    pub udp_gro: bool,
    /// Largest super-packet, IP header to end of the outermost datagram (Linux `gro_max_size`).
    pub max_bytes: usize,
    /// Most segments per super-packet.
    pub max_segs: u32,
}

impl Config {
    /// Defaults as in Linux: 65535 bytes, 64 segments.
    pub fn new(policy: Policy, udp_gro: bool) -> Config {
        Config {
            policy,
            udp_gro,
            max_bytes: 65535,
            max_segs: 64,
        }
    }
}

/// One packet handed up after GRO.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    /// Input frame numbers, in order.
    pub frames: Vec<u64>,
    /// Segments (1 for a packet passed up unmerged).
    pub segments: u32,
    /// Innermost transport payload bytes.
    pub payload_bytes: u64,
    /// Why it was flushed or passed up.
    pub reason: &'static str,
}

/// What the checksum validation of one frame cost and found.
#[derive(Clone, Debug, Default)]
pub struct Cost {
    /// Bytes summed in software to verify a checksum.
    pub sw_bytes: u64,
    /// Bytes summed in software more than once (must stay 0).
    pub dup_bytes: u64,
    /// Header bytes summed to adjust a `Complete` sum (pull, trim, convert).
    pub adjust_bytes: u64,
    /// A checksum was found bad.
    pub bad: bool,
    /// A device sum did not check but the software recomputation did.
    pub fault: bool,
}

/// The GRO verdict for one frame, for `--explain`.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Held as a new flow.
    NewFlow,
    /// Merged into a held flow (segments now).
    Merged(u32),
    /// Passed up alone.
    PassUp(&'static str),
}

/// Per-frame result.
#[derive(Clone, Debug)]
pub struct Receive {
    /// Checksum cost.
    pub cost: Cost,
    /// GRO verdict.
    pub verdict: Verdict,
}

/// Validation outcome of one frame.
enum Check {
    Good,
    Fragment,
    Bad,
    /// The IPv4 header checksum is wrong.
    BadIp,
    /// A transition refused the packet (inconsistent lengths): not a candidate.
    Refused,
}

/// Flows the engine holds at once.
const FLOWS: usize = 64;

/// The GRO stage: `netoffload::gro::Gro` fed by the simulated poll loop, and
/// the stack's checksum validation of every packet GRO passes up (what
/// `udp_rcv` / `tcp_v4_rcv` do after `napi_gro_receive` returns `GRO_NORMAL`),
/// so every frame's checksums are validated exactly once and the rows compare.
pub struct Engine {
    cfg: Config,
    gro: Box<Gro<FLOWS>>,
    link: LinkType,
}

impl Engine {
    /// A new engine.
    pub fn new(cfg: Config) -> Engine {
        Engine {
            cfg,
            gro: Box::new(Gro::new(gro_config(cfg, LinkType::Ethernet))),
            link: LinkType::Ethernet,
        }
    }

    /// Hands up every held flow, oldest first (`poll_end`, or `label` when the
    /// poll loop flushes for another cause, e.g. a time gap).
    pub fn flush_all(&mut self, label: &'static str, out: &mut Vec<Out>) {
        self.gro.flush_all(&mut |sp: &SuperPacket| {
            let mut o = to_out(sp);
            if sp.reason() == FlushReason::PollEnd {
                o.reason = label;
            }
            out.push(o);
        });
    }

    /// Receives one frame with the device's report; appends what goes up to `out`.
    pub fn receive(
        &mut self,
        frame: u64,
        bytes: &[u8],
        walk: &Walk,
        report: Report,
        trace: Option<&mut Vec<String>>,
        out: &mut Vec<Out>,
    ) -> Receive {
        let mut cost = Cost::default();
        let link = walk.levels.first().map_or(self.link, |l| l.layers.link);
        if link != self.link {
            // pcapng interfaces of different link types: a new engine per link.
            self.flush_all("poll_end", out);
            self.link = link;
            *self.gro = Gro::new(gro_config(self.cfg, link));
        }
        let meta = state::receive(report.device()).meta;
        let before = self.gro.stats();
        let id = u32::try_from(frame).unwrap_or(u32::MAX);
        let v = self
            .gro
            .receive(bytes, id, meta, frame, &mut |sp: &SuperPacket| {
                out.push(to_out(sp));
            });
        let after = self.gro.stats();
        let gro_sw = after.sw_bytes - before.sw_bytes;
        cost.sw_bytes += gro_sw;
        cost.fault |= after.csum_faults > before.csum_faults;
        let verdict = match v {
            Disposition::Held(Held::Merged) => Verdict::Merged(0),
            Disposition::Held(_) => Verdict::NewFlow,
            Disposition::PassUp { reason, meta } => {
                let payload = walk.inner().map_or(0, |l| {
                    if l.layers.fragment.offset != 0 {
                        0
                    } else {
                        l.layers.payload_len() as u64
                    }
                });
                out.push(Out {
                    frames: vec![frame],
                    segments: 1,
                    payload_bytes: payload,
                    reason: reason.name(),
                });
                if matches!(
                    reason,
                    FlushReason::BadChecksum | FlushReason::BadIpChecksum
                ) {
                    cost.bad = true;
                } else if !walk.levels.is_empty() {
                    // The stack validates what GRO did not, from the metadata GRO
                    // handed back (upgraded where GRO verified in software).
                    let mut stack = Cost::default();
                    let _ = validate(bytes, walk, meta, &mut stack, None);
                    if gro_sw > 0 && stack.sw_bytes > 0 {
                        stack.dup_bytes += gro_sw.min(stack.sw_bytes);
                    }
                    cost.sw_bytes += stack.sw_bytes;
                    cost.dup_bytes += stack.dup_bytes;
                    cost.adjust_bytes += stack.adjust_bytes;
                    cost.bad |= stack.bad;
                    cost.fault |= stack.fault;
                }
                Verdict::PassUp(reason.name())
            }
        };
        if let Some(t) = trace {
            // The narrative of the receive path for --explain (not counted).
            let mut c = Cost::default();
            let _ = validate(
                bytes,
                walk,
                state::receive(report.device()).meta,
                &mut c,
                Some(t),
            );
        }
        Receive { cost, verdict }
    }
}

/// The engine configuration for a run.
fn gro_config(cfg: Config, link: LinkType) -> GroConfig {
    let mut g = GroConfig::new();
    g.max_size = cfg.max_bytes as u32;
    g.max_segs = cfg.max_segs as u16;
    g.tunnel_policy = match cfg.policy {
        Policy::Strict => TunnelPolicy::Strict,
        Policy::Compute => TunnelPolicy::Compute,
    };
    g.flush_age_ticks = 0; // the poll loop flushes (budget, time gap)
    if cfg.udp_gro {
        g.kinds |= GroKinds::UDP;
    }
    g.link = link;
    g
}

/// A flushed super-packet as a `--gro` row.
fn to_out(sp: &SuperPacket) -> Out {
    Out {
        frames: sp.segments().iter().map(|s| u64::from(s.id)).collect(),
        segments: u32::from(sp.seg_count()),
        payload_bytes: sp.segments().iter().map(|s| u64::from(s.len)).sum(),
        reason: sp.reason().name(),
    }
}

/// Counts a software read of `[from, to)`: its bytes, and any overlap with
/// earlier reads of the same frame as bytes summed twice.
fn record(cost: &mut Cost, ranges: &mut Vec<(usize, usize)>, from: usize, to: usize) {
    for &(a, e) in ranges.iter() {
        let (lo, hi) = (a.max(from), e.min(to));
        if lo < hi {
            cost.dup_bytes += (hi - lo) as u64;
        }
    }
    ranges.push((from, to));
    cost.sw_bytes += (to - from) as u64;
}

/// Validates every checksum of the frame with the `state` room's transitions,
/// in the order of the Linux receive path: the device report (`receive`), per
/// level the IPv4 header (`check_ipv4_header`), the L4 or GRE checksum
/// (`validate`, which consumes `csum_level`s, checks `Complete` sums and keeps a
/// software sum as `Complete`), `try_convert` after a non-zero UDP or GRE
/// checksum, and `pull` of the headers down to the next level.
///
/// Software bytes counted are the checksummed regions read by software
/// (`SoftwareVerified`, `Crc32cVerified`, a fault recheck); the header bytes a
/// `Complete` sum is adjusted by are counted apart (`adjust_bytes`). Returns the
/// outcome and whether the 2015 UDP tunnel GRO gate was open (a device level
/// left, or a sum to check inner layers against).
fn validate(
    bytes: &[u8],
    walk: &Walk,
    meta: CsumMeta,
    cost: &mut Cost,
    mut trace: Option<&mut Vec<String>>,
) -> (Check, bool) {
    // An explanation's notes, formatted only when one is wanted (most frames
    // have none: formatting them anyway was about 6% of a run).
    macro_rules! note {
        ($($arg:tt)*) => {
            if let Some(t) = trace.as_deref_mut() {
                t.push(format!($($arg)*));
            }
        };
    }
    let Some(outer) = walk.levels.first() else {
        return (Check::Good, true);
    };
    // The packet as the stack sees it: trimmed to the outer IP length (Linux
    // `pskb_trim_rcsum` of Ethernet padding), current layer the outer IP header.
    let b = &bytes[..outer.layers.end];
    let mut meta = meta;
    let mut cur = outer.layers.l3;
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut gate_open = true;
    for (depth, lv) in walk.levels.iter().enumerate() {
        let l = &lv.layers;
        let pkt = match Packet::new(b, *l, cur) {
            Ok(p) => p,
            Err(e) => {
                note!("d{depth} refused: {e}");
                return (Check::Refused, gate_open);
            }
        };
        if l.net == Net::Ipv4 {
            match state::check_ipv4_header(meta.clone(), &pkt) {
                Ok(o) if o.verdict == CsumVerdict::Bad => {
                    note!("d{depth} ipv4 header: {}", o.reason);
                    cost.bad = true;
                    return (Check::BadIp, gate_open);
                }
                Ok(o) => meta = o.meta,
                Err(r) => meta = r.meta,
            }
        }
        if l.fragment.is_fragment {
            note!("d{depth} fragment: passed up before any checksum work");
            return (Check::Fragment, gate_open);
        }
        // Tunnels the `encap` room knows go through `encap::decap` (outer
        // checksum, csum_level, convert, pull in one transition); the others
        // (GRE-in-UDP, MPLS-in-UDP) and refusals fall back to the steps below.
        if let (Some(t), Some(next)) = (lv.tunnel, walk.levels.get(depth + 1))
            && !matches!(t.kind, TunnelKind::GreUdp | TunnelKind::MplsUdp)
        {
            match encap::decap(b, l, cur, meta.clone(), &EncapConfig::default()) {
                Ok(d) if d.inner.l3 == next.layers.l3 => {
                    let seg = d.tunnel.segment_end - d.tunnel.outer_l4;
                    let read = matches!(
                        d.reason,
                        DecapReason::SoftwareVerifiedConverted | DecapReason::DeviceChecksumFault
                    );
                    if read {
                        record(cost, &mut ranges, d.tunnel.outer_l4, d.tunnel.segment_end);
                    }
                    if d.reason == DecapReason::DeviceChecksumFault {
                        cost.fault = true;
                    }
                    let payload = if read { seg } else { 0 };
                    cost.adjust_bytes += d.sw_bytes.saturating_sub(payload) as u64;
                    note!(
                        "d{depth} {} decap: {:?} -> {} ({} sw bytes)",
                        t.kind.name(),
                        d.reason,
                        d.meta.state(),
                        d.sw_bytes
                    );
                    meta = d.meta;
                    cur = next.layers.l3;
                    if t.kind.over_udp() {
                        gate_open = !matches!(meta.state(), CsumState::None);
                        if !gate_open {
                            note!(
                                "d{depth} {} gate: no device level left and no sum: the inner checksum needs software",
                                t.kind.name()
                            );
                        }
                    }
                    continue;
                }
                Ok(d) => note!(
                    "d{depth} decap found the inner packet at {}, the walk at {}: stepping by hand",
                    d.inner.l3,
                    next.layers.l3
                ),
                Err(r) => {
                    if let DecapError::BadOuterChecksum { .. } = r.error {
                        if matches!(r.meta.state(), CsumState::None) {
                            let end = l.end;
                            record(cost, &mut ranges, l.l4, end);
                        }
                        note!("d{depth} decap: {}", r.error);
                        cost.bad = true;
                        return (Check::Bad, gate_open);
                    }
                    note!("d{depth} decap refused ({}): stepping by hand", r.error);
                    meta = r.meta;
                }
            }
        }
        let has_field = csumcheck::l4_layer(bytes, l).is_some() || l.transport == Transport::Gre;
        let tunnel_udp = lv.tunnel.is_some_and(|t| t.kind.over_udp());
        if has_field {
            let opts = ValidateOptions {
                zero_udp6: if tunnel_udp {
                    ZeroUdp6::Accept
                } else {
                    ZeroUdp6::Reject
                },
            };
            // A software `Complete` sum that fails is final: nothing is re-read.
            let own_sum = matches!(meta.state(), CsumState::Complete { .. })
                && meta.flags().contains(CsumFlags::COMPLETE_SW);
            let o = match state::validate_with(meta, &pkt, opts) {
                Ok(o) => o,
                Err(r) => {
                    note!("d{depth} validate refused: {}", r.error);
                    return (Check::Refused, gate_open);
                }
            };
            let l4len = l.end - l.l4;
            let read_layer = match o.reason {
                Reason::SoftwareVerified | Reason::Crc32cVerified | Reason::DeviceChecksumFault => {
                    true
                }
                Reason::BadChecksum => !own_sum,
                _ => false,
            };
            let payload_sw = if read_layer { l4len } else { 0 };
            if read_layer {
                record(cost, &mut ranges, l.l4, l.end);
            }
            cost.adjust_bytes += (o.sw_bytes - payload_sw) as u64;
            note!(
                "d{depth} {}: {:?} {} -> {} ({} sw bytes)",
                crate::walk::transport_name(l.transport),
                o.verdict,
                o.reason,
                o.meta.state(),
                o.sw_bytes
            );
            meta = o.meta;
            if o.reason == Reason::DeviceChecksumFault {
                cost.fault = true;
            }
            if o.verdict == CsumVerdict::Bad {
                cost.bad = true;
                return (Check::Bad, gate_open);
            }
            if matches!(l.transport, Transport::Udp | Transport::Gre)
                && o.verdict == CsumVerdict::Good
            {
                match state::try_convert(meta.clone(), &pkt) {
                    Ok(c) => {
                        if c.reason == Reason::Converted {
                            note!("d{depth} try_convert: {} -> {}", c.reason, c.meta.state());
                        }
                        cost.adjust_bytes += c.sw_bytes as u64;
                        meta = c.meta;
                    }
                    Err(r) => meta = r.meta,
                }
            }
        }
        if tunnel_udp {
            gate_open = !matches!(meta.state(), CsumState::None);
            if !gate_open {
                note!(
                    "d{depth} {} gate: no device level left and no sum: the inner checksum needs software",
                    lv.tunnel.map_or("tunnel", |t| t.kind.name())
                );
            }
        }
        if let Some(next) = walk.levels.get(depth + 1) {
            let len = next.layers.l3 - cur;
            match state::pull(meta.clone(), &pkt, len) {
                Ok(o) => {
                    note!(
                        "pull {len} B to d{}: {} -> {}",
                        depth + 1,
                        o.reason,
                        o.meta.state()
                    );
                    cost.adjust_bytes += o.sw_bytes as u64;
                    meta = o.meta;
                }
                Err(r) => {
                    note!("d{depth} pull refused: {}", r.error);
                    return (Check::Refused, gate_open);
                }
            }
            cur = next.layers.l3;
        }
    }
    (Check::Good, gate_open)
}
