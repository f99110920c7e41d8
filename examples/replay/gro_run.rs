//! The GRO stage of the replay, in one module so the real engine (`netoffload::gro`,
//! with `state` and `encap` transitions) replaces it here and nowhere else.
//!
//! Until that engine lands this is a STAND-IN: a compact model of the Linux
//! receive path (`NAPI_GRO_CB` `csum_cnt` / `csum_valid`, `skb_gro_checksum_validate`,
//! `skb_gro_checksum_try_convert`, the 2015 `udp_gro_receive` gate, `tcp_gro_receive`'s
//! main flush rules). It does not model IP ID modes, `gro_max_size` other than
//! 65535, or fraglist GRO. Every frame's checksums are validated exactly once,
//! either by GRO or by the stack after GRO passed the frame up, so the software
//! byte counts of different rows compare like for like.

use std::collections::HashMap;

use netoffload::encap::{self, DecapError, DecapReason, EncapConfig};
use netoffload::state::{
    self, CsumFlags, CsumState, Packet, Reason, ValidateOptions, Verdict as StVerdict, ZeroUdp6,
};
use netoffload::wire::{Layers, Net, Transport};

use crate::cli::Policy;
use crate::csumcheck;
use crate::nic::Report;
use crate::walk::{Stop, TunnelKind, Walk};

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
    /// Flows held at once.
    pub table: usize,
}

impl Config {
    /// Defaults as in Linux: 65535 bytes, 64 segments, and a 64-flow table.
    pub fn new(policy: Policy, udp_gro: bool) -> Config {
        Config {
            policy,
            udp_gro,
            max_bytes: 65535,
            max_segs: 64,
            table: 64,
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

struct Flow {
    frames: Vec<u64>,
    segs: u32,
    payload: u64,
    bytes: usize,
    next_seq: u32,
    mss: usize,
    /// Header bytes that must match (innermost TCP ack/window/options, TTL/TOS of each level).
    fixed: Fixed,
    flags: u8,
    order: u64,
}

/// The engine (stand-in).
pub struct Engine {
    cfg: Config,
    flows: HashMap<Vec<u8>, Flow>,
    order: u64,
}

const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const PSH: u8 = 0x08;
const URG: u8 = 0x20;

impl Engine {
    /// A new engine.
    pub fn new(cfg: Config) -> Engine {
        Engine {
            cfg,
            flows: HashMap::new(),
            order: 0,
        }
    }

    /// Hands up every held flow, oldest first, with `reason`.
    pub fn flush_all(&mut self, reason: &'static str, out: &mut Vec<Out>) {
        let mut held: Vec<(Vec<u8>, u64)> = self
            .flows
            .iter()
            .map(|(k, f)| (k.clone(), f.order))
            .collect();
        held.sort_by_key(|h| h.1);
        for (k, _) in held {
            self.flush(&k, reason, out);
        }
    }

    fn flush(&mut self, key: &[u8], reason: &'static str, out: &mut Vec<Out>) {
        if let Some(f) = self.flows.remove(key) {
            out.push(Out {
                frames: f.frames,
                segments: f.segs,
                payload_bytes: f.payload,
                reason,
            });
        }
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
        let pass = |reason: &'static str, payload: u64, out: &mut Vec<Out>| {
            out.push(Out {
                frames: vec![frame],
                segments: 1,
                payload_bytes: payload,
                reason,
            });
            Verdict::PassUp(reason)
        };
        let Some(inner) = walk.inner() else {
            let reason = match walk.stop {
                Some(Stop::NotIp { .. }) => "not_candidate",
                _ => "malformed",
            };
            return Receive {
                cost,
                verdict: pass(reason, 0, out),
            };
        };
        let il = inner.layers;
        let payload = if il.fragment.offset != 0 {
            0
        } else {
            il.payload_len() as u64
        };
        let (check, gate_open) = validate(bytes, walk, report, &mut cost, trace);
        let key = flow_key(bytes, walk);
        let stopped = matches!(
            walk.stop,
            Some(Stop::InnerMalformed { .. } | Stop::InnerNotIp { .. } | Stop::TooDeep)
        );
        let reason = match check {
            Check::Fragment => Some("fragment"),
            Check::Bad => Some("bad_checksum"),
            Check::BadIp => Some("bad_ip_checksum"),
            Check::Refused => Some("not_candidate"),
            Check::Good if stopped => Some("not_candidate"),
            Check::Good if walk.levels.iter().any(|l| has_ip_options(&l.layers)) => {
                Some("ip_options")
            }
            Check::Good if !gate_open && self.cfg.policy == Policy::Strict => {
                Some("tunnel_checksum_strict")
            }
            Check::Good => None,
        };
        if let Some(reason) = reason {
            // Order: a held super-packet of this flow goes up before this packet.
            self.flush(&key, reason, out);
            return Receive {
                cost,
                verdict: pass(reason, payload, out),
            };
        }
        let verdict = match il.transport {
            Transport::Tcp => self.tcp(frame, bytes, walk, &il, key, out),
            Transport::Udp if walk.levels.len() == 1 => {
                if !self.cfg.udp_gro {
                    pass("disabled", payload, out)
                } else if csumcheck::udp_zero(bytes, &il) {
                    pass("udp_no_checksum", payload, out)
                } else {
                    self.udp(frame, bytes, walk, &il, key, out)
                }
            }
            _ => pass("not_candidate", payload, out),
        };
        Receive { cost, verdict }
    }

    fn tcp(
        &mut self,
        frame: u64,
        bytes: &[u8],
        walk: &Walk,
        l: &Layers,
        key: Vec<u8>,
        out: &mut Vec<Out>,
    ) -> Verdict {
        let th = l.l4;
        let flags = bytes[th + 13];
        let seq = u32::from_be_bytes([bytes[th + 4], bytes[th + 5], bytes[th + 6], bytes[th + 7]]);
        let len = l.payload_len();
        let pass_one = |reason: &'static str, out: &mut Vec<Out>| {
            out.push(Out {
                frames: vec![frame],
                segments: 1,
                payload_bytes: len as u64,
                reason,
            });
            Verdict::PassUp(reason)
        };
        let immediate = if len == 0 {
            Some("pure_ack")
        } else if flags & SYN != 0 {
            Some("syn")
        } else if flags & RST != 0 {
            Some("rst")
        } else if flags & URG != 0 {
            Some("urg")
        } else {
            None
        };
        if let Some(r) = immediate {
            self.flush(&key, r, out);
            return pass_one(r, out);
        }
        let fixed = fixed_bytes(bytes, walk, l);
        let total = walk.levels[0].layers.end - walk.levels[0].layers.l3;
        let mut merged = None;
        if let Some(f) = self.flows.get_mut(&key) {
            let refuse = if f.fixed != fixed {
                Some(diff_reason(&f.fixed, &fixed))
            } else if (f.flags & !(PSH | FIN)) != (flags & !(PSH | FIN)) {
                Some("flags_differ")
            } else if seq != f.next_seq {
                Some("seq_gap")
            } else if len > f.mss {
                Some("mss_exceeded")
            } else if f.bytes + len > self.cfg.max_bytes {
                Some("oversize")
            } else {
                None
            };
            match refuse {
                Some(r) => {
                    self.flush(&key, r, out);
                }
                None => {
                    f.frames.push(frame);
                    f.segs += 1;
                    f.payload += len as u64;
                    f.bytes += len;
                    f.next_seq = seq.wrapping_add(len as u32);
                    f.flags |= flags & (PSH | FIN);
                    merged = Some((f.segs, len < f.mss, f.segs >= self.cfg.max_segs));
                }
            }
        }
        match merged {
            Some((segs, short, full)) => {
                let end = end_reason(flags, short, full);
                if let Some(r) = end {
                    self.flush(&key, r, out);
                }
                Verdict::Merged(segs)
            }
            None => {
                let end = end_reason(flags, false, false);
                if let Some(r) = end {
                    return pass_one(r, out);
                }
                self.hold(
                    key,
                    frame,
                    len,
                    total,
                    seq.wrapping_add(len as u32),
                    fixed,
                    flags,
                    out,
                );
                Verdict::NewFlow
            }
        }
    }

    fn udp(
        &mut self,
        frame: u64,
        bytes: &[u8],
        walk: &Walk,
        l: &Layers,
        key: Vec<u8>,
        out: &mut Vec<Out>,
    ) -> Verdict {
        let len = l.payload_len();
        let fixed = fixed_bytes(bytes, walk, l);
        let total = l.end - l.l3;
        let mut merged = None;
        if let Some(f) = self.flows.get_mut(&key) {
            let refuse = if f.fixed != fixed {
                Some(diff_reason(&f.fixed, &fixed))
            } else if len > f.mss {
                Some("mss_exceeded")
            } else if f.bytes + len > self.cfg.max_bytes {
                Some("oversize")
            } else {
                None
            };
            match refuse {
                Some(r) => self.flush(&key, r, out),
                None => {
                    f.frames.push(frame);
                    f.segs += 1;
                    f.payload += len as u64;
                    f.bytes += len;
                    merged = Some((f.segs, len < f.mss, f.segs >= self.cfg.max_segs));
                }
            }
        }
        match merged {
            Some((segs, short, full)) => {
                if let Some(r) = end_reason(0, short, full) {
                    self.flush(&key, r, out);
                }
                Verdict::Merged(segs)
            }
            None => {
                self.hold(key, frame, len, total, 0, fixed, 0, out);
                Verdict::NewFlow
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn hold(
        &mut self,
        key: Vec<u8>,
        frame: u64,
        len: usize,
        total: usize,
        next_seq: u32,
        fixed: Fixed,
        flags: u8,
        out: &mut Vec<Out>,
    ) {
        if self.flows.len() >= self.cfg.table
            && let Some(oldest) = self
                .flows
                .iter()
                .min_by_key(|(_, f)| f.order)
                .map(|(k, _)| k.clone())
        {
            self.flush(&oldest, "table_full", out);
        }
        self.order += 1;
        self.flows.insert(
            key,
            Flow {
                frames: vec![frame],
                segs: 1,
                payload: len as u64,
                bytes: total,
                next_seq,
                mss: len,
                fixed,
                flags,
                order: self.order,
            },
        );
    }
}

/// Why a super-packet is complete after this segment.
fn end_reason(flags: u8, short: bool, full: bool) -> Option<&'static str> {
    if flags & FIN != 0 {
        Some("fin")
    } else if flags & PSH != 0 {
        Some("psh")
    } else if short {
        Some("short_segment")
    } else if full {
        Some("too_many_segs")
    } else {
        None
    }
}

fn has_ip_options(l: &Layers) -> bool {
    l.net == Net::Ipv4 && l.l4 - l.l3 != 20
}

/// The bytes that identify a flow: per level the addresses, protocol, ports,
/// VLAN tags, IPv6 flow label and the tunnel header's identifying bytes.
fn flow_key(bytes: &[u8], walk: &Walk) -> Vec<u8> {
    let mut k = Vec::with_capacity(96);
    for lv in &walk.levels {
        let l = &lv.layers;
        k.push(l.vlan_count);
        for t in l.vlan_tci.iter().take(l.vlan_count as usize) {
            k.extend_from_slice(&(t & 0x0FFF).to_be_bytes());
        }
        match l.net {
            Net::Ipv4 => {
                k.push(4);
                k.extend_from_slice(&bytes[l.l3 + 12..l.l3 + 20]);
            }
            Net::Ipv6 => {
                k.push(6);
                k.extend_from_slice(&bytes[l.l3 + 1..l.l3 + 4]);
                k.extend_from_slice(&bytes[l.l3 + 8..l.l3 + 40]);
            }
        }
        k.push(l.ip_proto);
        if matches!(l.transport, Transport::Tcp | Transport::Udp) && l.fragment.offset == 0 {
            k.extend_from_slice(bytes.get(l.l4..l.l4 + 4).unwrap_or_default());
        }
        if let Some(t) = lv.tunnel {
            let hdr = bytes.get(t.start..t.inner).unwrap_or_default();
            match t.kind {
                crate::walk::TunnelKind::Gre | crate::walk::TunnelKind::GreUdp => {
                    // Flags and protocol, and the key when present (not checksum or sequence).
                    k.extend_from_slice(hdr.get(..4).unwrap_or_default());
                    let f = hdr.first().copied().unwrap_or(0);
                    if f & 0x20 != 0 {
                        let at = if f & 0x80 != 0 { 8 } else { 4 };
                        k.extend_from_slice(hdr.get(at..at + 4).unwrap_or_default());
                    }
                }
                _ => k.extend_from_slice(hdr),
            }
        }
    }
    k
}

/// Header fields that must be equal between merged segments: TTL/hop limit,
/// TOS/traffic class and DF of every level; for TCP the ACK number, window
/// and options. Each field carries the reason named when it differs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fixed {
    fields: Vec<(&'static str, u32)>,
    options: Vec<u8>,
}

fn fixed_bytes(bytes: &[u8], walk: &Walk, inner: &Layers) -> Fixed {
    let mut fields = Vec::with_capacity(12);
    for lv in &walk.levels {
        let l = &lv.layers;
        match l.net {
            Net::Ipv4 => {
                fields.push(("ttl_differ", u32::from(bytes[l.l3 + 8])));
                fields.push(("tos_differ", u32::from(bytes[l.l3 + 1])));
                fields.push(("df_differ", u32::from(bytes[l.l3 + 6] & 0x40)));
            }
            Net::Ipv6 => {
                let tc = (bytes[l.l3] << 4) | (bytes[l.l3 + 1] >> 4);
                fields.push(("ttl_differ", u32::from(bytes[l.l3 + 7])));
                fields.push(("tos_differ", u32::from(tc)));
            }
        }
    }
    let mut options = Vec::new();
    if inner.transport == Transport::Tcp {
        let t = inner.l4;
        let be32 =
            |a: usize| u32::from_be_bytes([bytes[a], bytes[a + 1], bytes[a + 2], bytes[a + 3]]);
        fields.push(("ack_differ", be32(t + 8)));
        fields.push((
            "window_differ",
            u32::from(u16::from_be_bytes([bytes[t + 14], bytes[t + 15]])),
        ));
        options.extend_from_slice(&bytes[t + 20..inner.payload]);
    }
    Fixed { fields, options }
}

/// Names the first field of two `Fixed` values that differs.
fn diff_reason(a: &Fixed, b: &Fixed) -> &'static str {
    a.fields
        .iter()
        .zip(&b.fields)
        .find(|(x, y)| x != y)
        .map_or("options_differ", |(x, _)| x.0)
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
    report: Report,
    cost: &mut Cost,
    mut trace: Option<&mut Vec<String>>,
) -> (Check, bool) {
    let mut note = |s: String| {
        if let Some(t) = trace.as_deref_mut() {
            t.push(s);
        }
    };
    let Some(outer) = walk.levels.first() else {
        return (Check::Good, true);
    };
    // The packet as the stack sees it: trimmed to the outer IP length (Linux
    // `pskb_trim_rcsum` of Ethernet padding), current layer the outer IP header.
    let b = &bytes[..outer.layers.end];
    let mut meta = state::receive(report.device()).meta;
    let mut cur = outer.layers.l3;
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut gate_open = true;
    for (depth, lv) in walk.levels.iter().enumerate() {
        let l = &lv.layers;
        let pkt = match Packet::new(b, *l, cur) {
            Ok(p) => p,
            Err(e) => {
                note(format!("d{depth} refused: {e}"));
                return (Check::Refused, gate_open);
            }
        };
        if l.net == Net::Ipv4 {
            match state::check_ipv4_header(meta.clone(), &pkt) {
                Ok(o) if o.verdict == StVerdict::Bad => {
                    note(format!("d{depth} ipv4 header: {}", o.reason));
                    cost.bad = true;
                    return (Check::BadIp, gate_open);
                }
                Ok(o) => meta = o.meta,
                Err(r) => meta = r.meta,
            }
        }
        if l.fragment.is_fragment {
            note(format!(
                "d{depth} fragment: passed up before any checksum work"
            ));
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
                    note(format!(
                        "d{depth} {} decap: {:?} -> {} ({} sw bytes)",
                        t.kind.name(),
                        d.reason,
                        d.meta.state(),
                        d.sw_bytes
                    ));
                    meta = d.meta;
                    cur = next.layers.l3;
                    if t.kind.over_udp() {
                        gate_open = !matches!(meta.state(), CsumState::None);
                        if !gate_open {
                            note(format!(
                                "d{depth} {} gate: no device level left and no sum: the inner checksum needs software",
                                t.kind.name()
                            ));
                        }
                    }
                    continue;
                }
                Ok(d) => note(format!(
                    "d{depth} decap found the inner packet at {}, the walk at {}: stepping by hand",
                    d.inner.l3, next.layers.l3
                )),
                Err(r) => {
                    if let DecapError::BadOuterChecksum { .. } = r.error {
                        if matches!(r.meta.state(), CsumState::None) {
                            let end = l.end;
                            record(cost, &mut ranges, l.l4, end);
                        }
                        note(format!("d{depth} decap: {}", r.error));
                        cost.bad = true;
                        return (Check::Bad, gate_open);
                    }
                    note(format!(
                        "d{depth} decap refused ({}): stepping by hand",
                        r.error
                    ));
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
                    note(format!("d{depth} validate refused: {}", r.error));
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
            note(format!(
                "d{depth} {}: {:?} {} -> {} ({} sw bytes)",
                crate::walk::transport_name(l.transport),
                o.verdict,
                o.reason,
                o.meta.state(),
                o.sw_bytes
            ));
            meta = o.meta;
            if o.reason == Reason::DeviceChecksumFault {
                cost.fault = true;
            }
            if o.verdict == StVerdict::Bad {
                cost.bad = true;
                return (Check::Bad, gate_open);
            }
            if matches!(l.transport, Transport::Udp | Transport::Gre)
                && o.verdict == StVerdict::Good
            {
                match state::try_convert(meta.clone(), &pkt) {
                    Ok(c) => {
                        if c.reason == Reason::Converted {
                            note(format!(
                                "d{depth} try_convert: {} -> {}",
                                c.reason,
                                c.meta.state()
                            ));
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
                note(format!(
                    "d{depth} {} gate: no device level left and no sum: the inner checksum needs software",
                    lv.tunnel.map_or("tunnel", |t| t.kind.name())
                ));
            }
        }
        if let Some(next) = walk.levels.get(depth + 1) {
            let len = next.layers.l3 - cur;
            match state::pull(meta.clone(), &pkt, len) {
                Ok(o) => {
                    note(format!(
                        "pull {len} B to d{}: {} -> {}",
                        depth + 1,
                        o.reason,
                        o.meta.state()
                    ));
                    cost.adjust_bytes += o.sw_bytes as u64;
                    meta = o.meta;
                }
                Err(r) => {
                    note(format!("d{depth} pull refused: {}", r.error));
                    return (Check::Refused, gate_open);
                }
            }
            cur = next.layers.l3;
        }
    }
    (Check::Good, gate_open)
}
