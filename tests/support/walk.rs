//! The soundness walk (issue 14 item 5): a frame with tunnels and corrupted
//! checksums, a start at one of the crate's boundaries (device report, virtio,
//! Xen, DPDK receive and transmit, AF_PACKET), then up to 8 public transitions
//! (validate, deliver, conntrack, try_convert, pull, push, trim, bridge, route,
//! NAT, fill, IPv4 header check, decap, decap_nested, descend, encap, a DPDK
//! transmit round trip). After the start and after every step:
//!
//! - the state is sound for the current bytes by [`oracle::check_strict`]
//!   (every checksum recomputed from scratch at every layer, levels, `Complete`
//!   sum, `Partial` seed and field, `CSUM_VALID`, `DATA_VALID`);
//! - every verdict is true of the bytes ([`oracle::check_verdict`]);
//! - a refusal changed neither the metadata nor the bytes;
//! - a boundary accepted nothing its peer refuses ([`peer_rules`]).
//!
//! Peers are honest (a device, a guest, a DPDK application or the kernel claim
//! only what holds for the bytes; an untrusted claim may be a lie), so every
//! failure is the crate's. A [`Case`] is plain data: the property test draws it
//! with proptest, the `state_ops` fuzz target decodes it from bytes
//! ([`Case::decode`]).
//!
//! Included beside `oracle.rs`, `packet_build.rs` and `peer_rules.rs`, which
//! it names as `super::`.
#![allow(dead_code)]

use super::oracle::{self, Link, Proto, Site, View};
use super::packet_build::{self as pb};
use super::peer_rules::{self, VirtioReq};

use netoffload::encap::{
    self, EncapConfig, EncapSpec, OuterEthernet, OuterIp, TunnelSpec, UdpCsumMode, ZeroCsumPolicy,
};
use netoffload::state::paravirt::afpacket::{self, Captured, TpStatus};
use netoffload::state::paravirt::dpdk::{self, Encap, OuterL4Status, OuterUdpCsum, RxCsum};
use netoffload::state::paravirt::dpdk::{OuterIpStatus, RxStatus, TxOffload, ol};
use netoffload::state::paravirt::setup::SeedCheck;
use netoffload::state::paravirt::virtio::{
    DataValidPolicy, Direction, HdrLenRule, SeedPolicy, VirtioFlags, VirtioNetHdr, VirtioPolicy,
};
use netoffload::state::paravirt::xen::{self, XenCsum, XenTrust};
use netoffload::state::{
    self, Addr, ConntrackConfig, CsumLevel, CsumMeta, CsumState, CsumVerdict, DeviceReport, Hook,
    Packet, PacketMut, Rewrite,
};
use netoffload::wire::{self, GsoKind, GsoParams, Layers, LinkType, Net};

// ---------------------------------------------------------------- the case

/// One tunnel layer around the packet inside it.
#[derive(Clone, Debug)]
pub struct TunnelLayer {
    /// Which tunnel.
    pub kind: TunnelKind,
    /// Outer IPv6 (else IPv4).
    pub v6: bool,
    /// IPv4 option words (0..=3, NOPs then EOL).
    pub v4_opt_words: u8,
    /// IPv6 destination-options blocks of 8 bytes (0..=2).
    pub v6_ext_blocks: u8,
    /// The outer UDP checksum is zero (VXLAN / GENEVE).
    pub udp_zero: bool,
    /// Corrupt this layer's checksum (UDP / GRE with C) after computing it.
    pub corrupt: bool,
    /// VLAN tags of the Ethernet header in front of this layer's IP header
    /// (outermost layer on an Ethernet link, or a tunnel carrying Ethernet).
    pub vlans: u8,
}

/// Tunnel kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TunnelKind {
    /// VXLAN on UDP 4789 (inner Ethernet).
    Vxlan,
    /// GENEVE on UDP 6081 with option words (0..=3); inner Ethernet or IP.
    Geneve { opt_words: u8, inner_eth: bool },
    /// GRE with the C, K, S bits; inner Ethernet (0x6558) or IP.
    Gre {
        c: bool,
        k: bool,
        s: bool,
        inner_eth: bool,
    },
    /// IPv4 / IPv6 in IP (protocol 4 / 41).
    IpIp,
}

impl TunnelKind {
    fn inner_eth(self) -> bool {
        match self {
            TunnelKind::Vxlan => true,
            TunnelKind::Geneve { inner_eth, .. } | TunnelKind::Gre { inner_eth, .. } => inner_eth,
            TunnelKind::IpIp => false,
        }
    }
}

/// The frame to build.
#[derive(Clone, Debug)]
pub enum Frame {
    /// An IP packet, wrapped in `tunnels` (outermost first, 0..=2).
    Ip {
        /// Ethernet link (else raw IP).
        eth: bool,
        /// Tunnel layers, outermost first.
        tunnels: Vec<TunnelLayer>,
        /// The innermost packet (its `raw_ip` and `vlans` are set by the wrapping).
        inner: pb::Spec,
        /// Corrupt the innermost checksum before wrapping.
        corrupt_inner: bool,
    },
    /// A 42-byte ARP request plus `pad` bytes (a frame nothing parses).
    Arp { pad: u8 },
    /// Random bytes behind an Ethernet header with this EtherType.
    Garbage { ethertype: u16, body: Vec<u8> },
    /// A whole Ethernet frame as given (the fuzzer's mutated frames); with
    /// `fix`, every checksum is first made correct (innermost first).
    Raw { bytes: Vec<u8>, fix: bool },
}

/// A device's receive report.
#[derive(Clone, Copy, Debug)]
pub enum DevReport {
    /// `CHECKSUM_NONE`.
    None,
    /// `CHECKSUM_UNNECESSARY` with at most this level (capped to what is true).
    Level(u8),
    /// The device flagged the L4 checksum bad.
    Bad,
    /// `CHECKSUM_COMPLETE` with the true sum from the IP header.
    Complete,
}

/// What a peer leaves in the checksum field of its `Partial` target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// As built (the full checksum, or the corrupted one).
    AsBuilt,
    /// The pseudo-header seed (honest `NEEDS_CSUM` / `csum_blank`).
    Seed,
    /// The seed without the length (DPDK TSO convention).
    SeedNoLen,
    /// Anything.
    Garbage(u16),
}

/// Where a virtio `NEEDS_CSUM` points.
#[derive(Clone, Copy, Debug)]
pub enum VirtioStart {
    /// The n-th checksum site (outermost first), its own field offset.
    Site(u8),
    /// The n-th site with another offset.
    SiteOffset(u8, u16),
    /// Anywhere.
    Raw(u16, u16),
}

/// Where the walk starts.
#[derive(Clone, Debug)]
pub enum Start {
    /// `state::receive`.
    Device(DevReport),
    /// `VirtioNetHdr::to_meta`.
    Virtio {
        needs_csum: bool,
        data_valid: bool,
        start: VirtioStart,
        field: Field,
        /// 0 none, 1 TCPV4, 3 UDP, 4 TCPV6, 5 UDP_L4, 0x81 TCPV4|ECN, other: as is.
        gso_type: u8,
        gso_size: u16,
        hdr_len: u16,
        from_device: bool,
        /// 0 TrustAsUnnecessary, 1 TrustAsFlag, 2 Ignore, 3 Refuse.
        dv_policy: u8,
        seed_verify: bool,
        hdr_len_exact: bool,
    },
    /// `xen::to_meta`.
    Xen {
        /// 0 Unknown, 1 Validated, 2 Blank, 3 BlankValidated.
        csum: u8,
        /// 0 Unnecessary, 1 Flag, 2 Ignore.
        trust: u8,
        seed_verify: bool,
        field: Field,
    },
    /// `dpdk::rx_to_meta` / `rx_to_meta_frame`.
    DpdkRx {
        /// Raw 2-bit statuses (0 unknown, 1 bad, 2 good, 3 none).
        ip: u8,
        l4: u8,
        outer_l4: u8,
        outer_ip_bad: bool,
        with_frame: bool,
        field: Field,
    },
    /// `dpdk::tx_to_meta`.
    DpdkTx {
        /// 0 none, 1 TCP, 2 SCTP, 3 UDP, 4 the packet's own.
        l4: u8,
        /// bit 0 IPV4, bit 1 IPV6, bit 2 the packet's own version.
        ip: u8,
        ip_cksum: bool,
        tcp_seg: bool,
        tso_segsz: u16,
        /// Tunnel flags and outer lengths for a tunnel packet.
        tunnel: bool,
        outer_ip_cksum: bool,
        field: Field,
    },
    /// `afpacket::status_to_meta`.
    AfPacket {
        csum_valid: bool,
        not_ready: bool,
        field: Field,
    },
}

/// One transition of the walk.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Validate,
    Deliver,
    TryConvert,
    Conntrack {
        hook: u8,
        checksum: bool,
    },
    Pull(u16),
    Push(u16),
    /// Trim to the IP end, or to `n` (mod length + 2).
    Trim {
        to_end: bool,
        n: u16,
    },
    Bridge,
    Route,
    Nat {
        which: u8,
        a: u8,
        b: u8,
    },
    Fill,
    CheckIpv4Header,
    /// `encap::decap`; `zero6`: accept zero IPv6 UDP checksums on the tunnel ports.
    Decap {
        zero6: bool,
    },
    DecapNested {
        zero6: bool,
    },
    /// Validate, then pull to the inner IP header (the state room's own path).
    Descend {
        convert: bool,
    },
    /// `encap::encap` around the current packet.
    Encap {
        /// 0 VXLAN, 1 GENEVE, 2 GRE, 3 GRE with C, 4 IP-in-IP.
        kind: u8,
        /// 0 Zero, 1 Compute, 2 Offload.
        udp: u8,
        v6: bool,
        eth: bool,
    },
    /// `dpdk::meta_to_tx` then `dpdk::tx_to_meta` (TSO when `tso`).
    DpdkTxRoundTrip {
        ip_csum: bool,
        tso: bool,
    },
}

/// A whole walk.
#[derive(Clone, Debug)]
pub struct Case {
    pub frame: Frame,
    pub start: Start,
    pub ops: Vec<Op>,
}

// ---------------------------------------------------------------- building

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

fn eth_header(vlans: u8, ethertype: u16) -> Vec<u8> {
    let mut out = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
    for i in 0..vlans.min(2) {
        let tpid: u16 = if i == 0 && vlans >= 2 { 0x88A8 } else { 0x8100 };
        out.extend(tpid.to_be_bytes());
        out.extend((100 + u16::from(i)).to_be_bytes());
    }
    out.extend(ethertype.to_be_bytes());
    out
}

fn ones(data: &[u8], init: u64) -> u16 {
    oracle::naive::sum(data, init)
}

/// The IP header for `payload_len` bytes of `proto`, checksummed.
fn ip_header(t: &TunnelLayer, proto: u8, payload_len: usize, salt: u8) -> Vec<u8> {
    if t.v6 {
        let ext = usize::from(t.v6_ext_blocks.min(2)) * 8;
        let mut h = vec![0u8; 40];
        h[0] = 0x60;
        put16(&mut h, 4, (ext + payload_len) as u16);
        h[6] = if ext > 0 { 60 } else { proto };
        h[7] = 64;
        for i in 0..16 {
            h[8 + i] = 0x20u8.wrapping_add(i as u8).wrapping_mul(salt | 1);
            h[24 + i] = 0xfdu8.wrapping_sub(i as u8 ^ salt);
        }
        if ext > 0 {
            let mut e = vec![0u8; ext];
            e[0] = proto;
            e[1] = (ext / 8 - 1) as u8;
            e[2] = 1; // PadN
            e[3] = (ext - 4) as u8;
            h.extend(e);
        }
        h
    } else {
        let opts = usize::from(t.v4_opt_words.min(3)) * 4;
        let hl = 20 + opts;
        let mut h = vec![0u8; hl];
        h[0] = 0x40 | (hl / 4) as u8;
        put16(&mut h, 2, (hl + payload_len) as u16);
        put16(&mut h, 4, 0x1000 | u16::from(salt));
        h[6] = 0x40; // DF
        h[8] = 64;
        h[9] = proto;
        h[12..16].copy_from_slice(&[192, 0, 2, salt]);
        h[16..20].copy_from_slice(&[198, 51, 100, salt ^ 0x55]);
        for b in &mut h[20..] {
            *b = 1; // NOP
        }
        if opts > 0 {
            h[hl - 1] = 0; // EOL
        }
        let c = !ones(&h, 0);
        put16(&mut h, 10, c);
        h
    }
}

/// The pseudo-header word sum of the IP header `ip` (no extension header
/// changes the addresses here).
fn pseudo_of(ip: &[u8], proto: u8, len: usize) -> u64 {
    if ip[0] >> 4 == 6 {
        oracle::naive::pseudo(&ip[8..24], &ip[24..40], proto, len)
    } else {
        oracle::naive::pseudo(&ip[12..16], &ip[16..20], proto, len)
    }
}

/// Wraps `inner` (an Ethernet frame when `t.kind` carries Ethernet, else an
/// IP packet) in the tunnel `t`; the result starts at its IP header.
fn wrap(inner: &[u8], t: &TunnelLayer, salt: u8) -> Vec<u8> {
    let inner_v6 = !t.kind.inner_eth() && inner.first().is_some_and(|b| b >> 4 == 6);
    let inner_ip_type: u16 = if inner_v6 { 0x86DD } else { 0x0800 };
    let (proto, mut l4) = match t.kind {
        TunnelKind::Vxlan => {
            let mut h = vec![0u8; 8];
            put16(&mut h, 0, 49152 + u16::from(salt));
            put16(&mut h, 2, 4789);
            h.extend([0x08, 0, 0, 0, 0, 0x12, salt, 0]);
            (17, h)
        }
        TunnelKind::Geneve {
            opt_words,
            inner_eth,
        } => {
            let words = opt_words.min(3);
            let mut h = vec![0u8; 8];
            put16(&mut h, 0, 49152 + u16::from(salt));
            put16(&mut h, 2, 6081);
            h.push(words);
            h.push(0);
            h.extend(if inner_eth { 0x6558u16 } else { inner_ip_type }.to_be_bytes());
            h.extend([0, 0x34, salt, 0]);
            if words > 0 {
                h.extend([0x01, 0x02, 0x03, words - 1]);
                h.extend(vec![0xAB; usize::from(words - 1) * 4]);
            }
            (17, h)
        }
        TunnelKind::Gre { c, k, s, inner_eth } => {
            let mut flags = 0u16;
            if c {
                flags |= 0x8000;
            }
            if k {
                flags |= 0x2000;
            }
            if s {
                flags |= 0x1000;
            }
            let mut h = flags.to_be_bytes().to_vec();
            h.extend(if inner_eth { 0x6558u16 } else { inner_ip_type }.to_be_bytes());
            if c {
                h.extend([0, 0, 0, 0]);
            }
            if k {
                h.extend([0, 0, 0x10, salt]);
            }
            if s {
                h.extend([0, 0, 0, 7]);
            }
            (47, h)
        }
        TunnelKind::IpIp => (if inner_v6 { 41 } else { 4 }, Vec::new()),
    };
    l4.extend_from_slice(inner);
    let ip = ip_header(t, proto, l4.len(), salt);
    match (proto, t.kind) {
        (17, _) => {
            let len = l4.len();
            put16(&mut l4, 4, len as u16);
            if !t.udp_zero {
                let mut c = !ones(&l4, pseudo_of(&ip, 17, len));
                if c == 0 {
                    c = 0xFFFF;
                }
                put16(&mut l4, 6, c);
            }
            if t.corrupt {
                l4[6] ^= 0x5A;
                l4[7] ^= 0xA5;
            }
        }
        (47, TunnelKind::Gre { c: true, .. }) => {
            let c = !ones(&l4, 0);
            put16(&mut l4, 4, c);
            if t.corrupt {
                l4[5] ^= 0x3C;
            }
        }
        _ => {}
    }
    let mut out = ip;
    out.extend(l4);
    out
}

/// Flips the checksum of the innermost site of `bytes` (a packet starting
/// with Ethernet or IP as `link` says).
fn corrupt_innermost(bytes: &mut [u8], link: Link) {
    if let Some(s) = oracle::sites(bytes, link).last() {
        bytes[s.field] ^= 0x21;
    }
}

/// The frame's bytes and how it begins.
pub fn build(frame: &Frame) -> (Vec<u8>, Link) {
    match frame {
        Frame::Arp { pad } => {
            let mut b = eth_header(0, 0x0806);
            b.extend([0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 0, 0, 1]);
            b.extend([0, 0, 0, 0, 0, 0, 10, 0, 0, 2]);
            b.extend(vec![0u8; usize::from(*pad % 19)]);
            (b, Link::Ethernet)
        }
        Frame::Garbage { ethertype, body } => {
            let mut b = eth_header(0, *ethertype);
            b.extend(body);
            (b, Link::Ethernet)
        }
        Frame::Raw { bytes, fix } => {
            let mut b = bytes.clone();
            if *fix {
                let sites = oracle::sites(&b, Link::Ethernet);
                for s in sites.iter().rev() {
                    oracle::fix_site(&mut b, s);
                }
            }
            (b, Link::Ethernet)
        }
        Frame::Ip {
            eth,
            tunnels,
            inner,
            corrupt_inner,
        } => {
            // The innermost packet carries Ethernet when its tunnel does.
            let inner_eth = tunnels.last().map_or(*eth, |t| t.kind.inner_eth());
            let mut spec = inner.clone();
            spec.raw_ip = !inner_eth;
            if !tunnels.is_empty() {
                spec.pad.clear(); // no padding inside a tunnel payload
            }
            let (mut bytes, _) = pb::build(&spec);
            let ilink = if inner_eth {
                Link::Ethernet
            } else {
                Link::RawIp
            };
            if *corrupt_inner {
                corrupt_innermost(&mut bytes, ilink);
            }
            for (i, t) in tunnels.iter().enumerate().rev() {
                let mut ip = wrap(&bytes, t, i as u8 * 17 + 3);
                let carried_eth = if i == 0 {
                    *eth
                } else {
                    tunnels[i - 1].kind.inner_eth()
                };
                if carried_eth {
                    let et = if t.v6 { 0x86DD } else { 0x0800 };
                    let mut e = eth_header(t.vlans, et);
                    e.append(&mut ip);
                    ip = e;
                }
                bytes = ip;
            }
            (bytes, if *eth { Link::Ethernet } else { Link::RawIp })
        }
    }
}

fn wire_link(l: Link) -> LinkType {
    match l {
        Link::Ethernet => LinkType::Ethernet,
        Link::RawIp => LinkType::RawIp,
    }
}

/// Makes the packet what a local stack hands over with a `Partial` at
/// `target` (Linux: the checksum there and every one before it count as
/// verified): the target field holds `what` (the seed when honest), and every
/// checksum before the target verifies once the target is filled (the outer
/// ones computed over the filled packet, as `lco_csum` does). Checksums after
/// the target stay as they are (corrupted ones included).
fn make_local(bytes: &mut [u8], link: Link, target: &Site, what: Field) {
    let width = if target.proto == Proto::Sctp { 4 } else { 2 };
    if target.field + width > bytes.len() {
        return;
    }
    // The packet as the device sends it: the target filled.
    let mut seeded = bytes.to_vec();
    set_field(&mut seeded, target, Field::Seed);
    let mut full = oracle::filled(&seeded, target.l4, target.field - target.l4, {
        if target.proto == Proto::Sctp {
            netoffload::state::PartialKind::Crc32c
        } else {
            netoffload::state::PartialKind::Inet
        }
    });
    let before: Vec<Site> = oracle::sites(&full, link)
        .into_iter()
        .filter(|s| s.l4 < target.l4)
        .collect();
    for s in before.iter().rev() {
        oracle::fix_site(&mut full, s);
    }
    for s in &before {
        let w = if s.proto == Proto::Sctp { 4 } else { 2 };
        bytes[s.field..s.field + w].copy_from_slice(&full[s.field..s.field + w]);
    }
    set_field(bytes, target, what);
}

/// Writes `what` into the field of `site` (the peer's `Partial` target).
fn set_field(bytes: &mut [u8], site: &Site, what: Field) {
    let width = if site.proto == Proto::Sctp { 4 } else { 2 };
    if site.field + width > bytes.len() {
        return;
    }
    match what {
        Field::AsBuilt => {}
        Field::Seed => {
            if let Some(seed) = oracle::pseudo_seed(bytes, site) {
                bytes[site.field..site.field + width].copy_from_slice(&seed);
            }
        }
        Field::SeedNoLen => {
            // The seed with the length word taken out again.
            if let Some(seed) = oracle::pseudo_seed(bytes, site) {
                let s = u16::from_be_bytes([seed[0], seed[1]]);
                let len = (site.end - site.l4) as u64;
                let neg = oracle::naive::fold((len & 0xFFFF) + (len >> 16));
                let v = oracle::add16(s, !neg);
                bytes[site.field..site.field + 2].copy_from_slice(&v.to_be_bytes());
            }
        }
        Field::Garbage(v) => {
            bytes[site.field..site.field + 2].copy_from_slice(&v.to_be_bytes());
        }
    }
}

// ---------------------------------------------------------------- the run

/// `dpdk::tx_to_meta` with the `TxSeedMode` the field calls for: `Verify`
/// when `field` is a seed (`Seed`, `SeedNoLen`: prepare ran), `Prepare`
/// otherwise (an mbuf straight from the application: the field holds anything).
fn tx_to_meta(
    tx: &TxOffload,
    frame: &mut [u8],
    link: LinkType,
    field: Field,
) -> Result<dpdk::DpdkTxIn, netoffload::state::paravirt::BoundaryError> {
    let mode = match field {
        Field::Seed | Field::SeedNoLen => dpdk::TxSeedMode::Verify,
        _ => dpdk::TxSeedMode::Prepare,
    };
    dpdk::tx_to_meta(tx, frame, link, mode)
}

/// Where the packet stands.
struct Run {
    bytes: Vec<u8>,
    link: Link,
    root: usize,
    layers: Layers,
    cur: usize,
    meta: CsumMeta,
    levels_from: usize,
    validated_here: bool,
    step: usize,
    trace: Vec<String>,
}

/// Why a walk failed: the step, what ran, and the broken rule.
#[derive(Clone, Debug)]
pub struct Failure {
    pub step: usize,
    pub what: String,
    pub detail: String,
    pub trace: Vec<String>,
}

impl core::fmt::Display for Failure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "step {} {}: {}\n  trace:",
            self.step, self.what, self.detail
        )?;
        for t in &self.trace {
            write!(f, "\n    {t}")?;
        }
        Ok(())
    }
}

/// What a walk did (for coverage counts).
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// The start gave a state (not refused, not discarded).
    pub started: bool,
    /// Steps that ran (an `Ok` transition).
    pub steps: usize,
    /// Steps refused.
    pub refused: usize,
    /// Decapsulations that produced an inner packet.
    pub decaps: usize,
}

type R<T> = Result<T, Failure>;

impl Run {
    fn view(&self) -> View<'_> {
        View {
            bytes: &self.bytes,
            link: self.link,
            cur: self.cur,
            levels_from: self.levels_from,
            l4: self.layers.l4,
        }
    }

    fn fail(&self, what: &str, detail: String) -> Failure {
        Failure {
            step: self.step,
            what: what.to_string(),
            detail,
            trace: self.trace.clone(),
        }
    }

    fn sound(&self, what: &str) -> R<()> {
        oracle::check_strict(&self.view(), self.root, &self.meta).map_err(|e| {
            self.fail(
                what,
                format!(
                    "unsound {:?} (cur {}, root {}, levels_from {}, l4 {}, len {}): {e:?}",
                    self.meta,
                    self.cur,
                    self.root,
                    self.levels_from,
                    self.layers.l4,
                    self.bytes.len()
                ),
            )
        })
    }

    fn note(&mut self, s: String) {
        self.trace.push(s);
    }

    fn pkt(&self) -> Option<Packet<'_>> {
        Packet::new(&self.bytes, self.layers, self.cur).ok()
    }

    /// A checking transition's outcome: verdict true of the bytes, state sound.
    /// Returns `false` when the packet is dropped (`Bad`).
    fn checked(
        &mut self,
        what: &str,
        r: state::Transition,
        consume: bool,
        st: &mut Stats,
    ) -> R<bool> {
        let before = self.meta.clone();
        match r {
            Ok(o) => {
                st.steps += 1;
                self.note(format!(
                    "{what}: {:?}/{:?} -> {:?}",
                    o.verdict, o.reason, o.meta
                ));
                oracle::check_verdict(&self.view(), self.root, &before, o.verdict, o.reason)
                    .map_err(|e| {
                        self.fail(
                            what,
                            format!(
                                "verdict {:?}/{:?} on {before:?}: {e:?}",
                                o.verdict, o.reason
                            ),
                        )
                    })?;
                self.meta = o.meta;
                if consume {
                    self.levels_from = self.levels_from.max(self.layers.l4 + 1);
                }
                self.sound(what)?;
                if o.verdict == CsumVerdict::Bad {
                    return Ok(false);
                }
                if consume && o.verdict != CsumVerdict::NotChecked {
                    self.validated_here = true;
                }
                Ok(true)
            }
            Err(rej) => {
                st.refused += 1;
                self.note(format!("{what}: refused {:?}", rej.error));
                if rej.meta != before {
                    return Err(self.fail(
                        what,
                        format!("refusal changed the meta: {before:?} -> {:?}", rej.meta),
                    ));
                }
                Ok(true)
            }
        }
    }

    /// A transition that may write the buffer.
    fn mutating(
        &mut self,
        what: &str,
        st: &mut Stats,
        f: impl FnOnce(CsumMeta, &mut PacketMut<'_>) -> state::Transition,
    ) -> R<()> {
        let copy = self.bytes.clone();
        let before = self.meta.clone();
        let Ok(mut pm) = PacketMut::new(&mut self.bytes, self.layers, self.cur) else {
            return Ok(());
        };
        match f(self.meta.clone(), &mut pm) {
            Ok(o) => {
                st.steps += 1;
                self.note(format!("{what}: {:?} -> {:?}", o.reason, o.meta));
                self.meta = o.meta;
                self.sound(what)
            }
            Err(rej) => {
                st.refused += 1;
                self.note(format!("{what}: refused {:?}", rej.error));
                if rej.meta != before {
                    return Err(self.fail(what, "refusal changed the meta".into()));
                }
                if self.bytes != copy {
                    return Err(self.fail(what, "refusal changed the bytes".into()));
                }
                Ok(())
            }
        }
    }

    /// Moves to an inner packet: `bytes[..end]`, current layer `inner.l3`.
    fn enter(&mut self, inner: Layers, meta: CsumMeta, truncate: bool) {
        if truncate {
            self.bytes.truncate(inner.end);
        }
        self.layers = inner;
        self.cur = inner.l3;
        self.meta = meta;
        let (root, link) = if inner.l2 < inner.l3 {
            (inner.l2, Link::Ethernet)
        } else {
            (inner.l3, Link::RawIp)
        };
        self.root = root;
        self.link = link;
        self.levels_from = root;
        self.validated_here = false;
    }
}

fn cfg(zero6: bool) -> EncapConfig {
    let mut c = EncapConfig::DEFAULT;
    if zero6 {
        c.ipv6_zero_csum_ports = [4789, 6081, 0, 0];
        c.ipv6_zero_csum_policy = ZeroCsumPolicy::Both;
    }
    c
}

/// True when the first checksum site and the first counted one verify: what a
/// peer's "data validated" (Linux `CHECKSUM_UNNECESSARY` level 0) vouches for.
fn first_ok(sites: &[Site]) -> bool {
    sites.first().is_none_or(|s| s.correct)
        && sites.iter().find(|s| s.counted).is_none_or(|s| s.correct)
}

/// The highest honest `Unnecessary` level, at most `want`.
fn honest_level(sites: &[Site], want: u8) -> Option<CsumLevel> {
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

/// The outcome of the start: the state, or `None` when the boundary refused
/// (checked) or the case is outside the honest-peer model (discarded).
fn start(
    case: &Case,
    bytes: &mut Vec<u8>,
    link: Link,
    trace: &mut Vec<String>,
) -> R<Option<CsumMeta>> {
    let fail = |what: &str, detail: String, trace: &Vec<String>| Failure {
        step: 0,
        what: what.to_string(),
        detail,
        trace: trace.clone(),
    };
    let sites = oracle::sites(bytes, link);
    let wl = wire_link(link);
    let parsed = wire::parse(bytes, wl).ok();
    match &case.start {
        Start::Device(rep) => {
            let report = match *rep {
                DevReport::None => DeviceReport::None,
                DevReport::Bad => DeviceReport::L4Bad,
                DevReport::Level(want) => match honest_level(&sites, want) {
                    Some(level) => DeviceReport::L4Ok { level },
                    None => DeviceReport::None,
                },
                DevReport::Complete => match parsed {
                    Some(l) => DeviceReport::Complete {
                        csum: oracle::honest_complete(bytes, l.l3),
                    },
                    None => DeviceReport::None,
                },
            };
            trace.push(format!("receive {report:?}"));
            Ok(Some(state::receive(report).meta))
        }
        Start::Virtio {
            needs_csum,
            data_valid,
            start,
            field,
            gso_type,
            gso_size,
            hdr_len,
            from_device,
            dv_policy,
            seed_verify,
            hdr_len_exact,
        } => {
            let dv = match dv_policy % 4 {
                0 => DataValidPolicy::TrustAsUnnecessary,
                1 => DataValidPolicy::TrustAsFlag,
                2 => DataValidPolicy::Ignore,
                _ => DataValidPolicy::Refuse,
            };
            let policy = VirtioPolicy {
                direction: if *from_device {
                    Direction::FromDevice
                } else {
                    Direction::FromDriver
                },
                link: wl,
                data_valid: dv,
                hdr_len: if *hdr_len_exact {
                    HdrLenRule::Exact
                } else {
                    HdrLenRule::Hint
                },
                seed: if *seed_verify {
                    SeedPolicy::Verify
                } else {
                    SeedPolicy::Trust
                },
                rsc_ext: false,
            };
            // A trusted DATA_VALID is honest.
            let trusted = matches!(
                dv,
                DataValidPolicy::TrustAsUnnecessary | DataValidPolicy::TrustAsFlag
            );
            let dv_bit = *data_valid && (!trusted || first_ok(&sites));
            let (cs, co, target) = match *start {
                VirtioStart::Site(i) | VirtioStart::SiteOffset(i, _) if !sites.is_empty() => {
                    let s = sites[usize::from(i) % sites.len()];
                    let off = match *start {
                        VirtioStart::SiteOffset(_, o) => o,
                        _ => (s.field - s.l4) as u16,
                    };
                    (s.l4 as u16, off, Some(s))
                }
                VirtioStart::Raw(a, b) => (a % 128, b % 64, None),
                _ => (0, 0, None),
            };
            // An honest guest points at a checksum field and seeds it.
            // (virtio carries Internet checksums only: never an SCTP CRC).
            // It sends nothing non-zero after the datagram either: a fill runs
            // to the end of the frame (`skb->len`), and only a parsed frame lets
            // `to_meta` see where the datagram ends.
            let honest_field = matches!(field, Field::Seed)
                && matches!(start, VirtioStart::Site(_))
                && target.is_some_and(|s| {
                    s.proto != Proto::Sctp
                        && bytes
                            .get(s.end..)
                            .is_some_and(|t| t.iter().all(|&b| b == 0))
                });
            if *needs_csum && let Some(s) = target {
                make_local(bytes, link, &s, *field);
            }
            let mut flags = VirtioFlags::empty();
            if *needs_csum {
                flags |= VirtioFlags::NEEDS_CSUM;
            }
            if dv_bit {
                flags |= VirtioFlags::DATA_VALID;
            }
            let hdr = VirtioNetHdr {
                flags,
                gso_type: *gso_type,
                hdr_len: *hdr_len,
                gso_size: *gso_size,
                csum_start: cs,
                csum_offset: co,
                ..VirtioNetHdr::ZERO
            };
            trace.push(format!("virtio {hdr:?} {policy:?} field {field:?}"));
            match hdr.to_meta(bytes, &policy) {
                Ok(inb) => {
                    trace.push(format!("  -> {:?} seed {:?}", inb.meta, inb.seed));
                    let req = VirtioReq {
                        needs_csum: *needs_csum,
                        gso_type: *gso_type,
                        gso_size: *gso_size,
                        csum_start: cs,
                        csum_offset: co,
                    };
                    if let Some(rule) = peer_rules::virtio_refusal(&req, bytes.len()) {
                        return Err(fail(
                            "virtio to_meta",
                            format!(
                                "accepted a header Linux refuses ({rule}): {hdr:?} on {} bytes",
                                bytes.len()
                            ),
                            trace,
                        ));
                    }
                    // A seed (and a place) nobody checked is the guest's
                    // word, as in Linux: only an honest guest is in the
                    // model then. The Linux rules above hold for every guest.
                    if matches!(inb.seed, Some(SeedCheck::Skipped(_))) && !honest_field {
                        return Ok(None);
                    }
                    Ok(Some(inb.meta))
                }
                Err(e) => {
                    trace.push(format!("  -> refused {e:?}"));
                    Ok(None)
                }
            }
        }
        Start::Xen {
            csum,
            trust,
            seed_verify,
            field,
        } => {
            let c = match csum % 4 {
                0 => XenCsum::Unknown,
                1 => XenCsum::Validated,
                2 => XenCsum::Blank,
                _ => XenCsum::BlankValidated,
            };
            let t = match trust % 3 {
                0 => XenTrust::Unnecessary,
                1 => XenTrust::Flag,
                _ => XenTrust::Ignore,
            };
            // A trusted data_validated is honest.
            let c = if c == XenCsum::Validated && t != XenTrust::Ignore && !first_ok(&sites) {
                XenCsum::Unknown
            } else {
                c
            };
            if c.is_blank()
                && let Some(l) = parsed
                && let Some(s) = sites.iter().find(|s| s.l4 == l.l4)
            {
                make_local(bytes, link, s, *field);
            }
            let seed = if *seed_verify {
                SeedPolicy::Verify
            } else {
                SeedPolicy::Trust
            };
            trace.push(format!("xen {c:?} {t:?} {seed:?} field {field:?}"));
            let copy = bytes.clone();
            match xen::to_meta(c, bytes, wl, None, t, seed) {
                Ok(inb) => {
                    trace.push(format!("  -> {:?} seed {:?}", inb.meta, inb.seed));
                    if matches!(inb.seed, Some(SeedCheck::Skipped(_))) && *field != Field::Seed {
                        return Ok(None);
                    }
                    Ok(Some(inb.meta))
                }
                Err(e) => {
                    trace.push(format!("  -> refused {e:?}"));
                    if *bytes != copy {
                        return Err(fail(
                            "xen to_meta",
                            "refusal changed the bytes".into(),
                            trace,
                        ));
                    }
                    Ok(None)
                }
            }
        }
        Start::DpdkRx {
            ip,
            l4,
            outer_l4,
            outer_ip_bad,
            with_frame,
            field,
        } => {
            let Some(l) = parsed else { return Ok(None) };
            let cfgd = EncapConfig::DEFAULT;
            // The caller's honest description of the encapsulation.
            let enc = match encap::parse_tunnel(bytes, &l, &cfgd) {
                Err(_) => Encap::None,
                Ok(t) => match t.outer_csum {
                    encap::OuterCsum::Udp(f) if f.is_zero() => Encap::UdpTunnel(OuterUdpCsum::Zero),
                    encap::OuterCsum::Udp(_) => Encap::UdpTunnel(OuterUdpCsum::NonZero),
                    encap::OuterCsum::Gre(_) => Encap::GreWithChecksum,
                    _ => Encap::NoOuterChecksum,
                },
            };
            // The inner (or only) L4 the NIC reports on.
            let inner_site = match enc {
                Encap::None | Encap::NoOuterChecksum => sites.first(),
                _ => sites.get(1),
            };
            let status = |v: u8| match v % 4 {
                0 => RxStatus::Unknown,
                1 => RxStatus::Bad,
                2 => RxStatus::Good,
                _ => RxStatus::NoneDataValid,
            };
            let mut rx = RxCsum {
                ip: status(*ip),
                l4: status(*l4),
                outer_l4: match outer_l4 % 4 {
                    0 => OuterL4Status::Unknown,
                    1 => OuterL4Status::Bad,
                    2 => OuterL4Status::Good,
                    _ => OuterL4Status::Invalid,
                },
                outer_ip: if *outer_ip_bad {
                    OuterIpStatus::Bad
                } else {
                    OuterIpStatus::NotReported
                },
            };
            if rx.l4 == RxStatus::Good && !inner_site.is_some_and(|s| s.correct) {
                rx.l4 = RxStatus::Unknown;
            }
            if rx.outer_l4 == OuterL4Status::Good
                && !(matches!(enc, Encap::UdpTunnel(_)) && sites.first().is_some_and(|s| s.correct))
            {
                rx.outer_l4 = OuterL4Status::Unknown;
            }
            if rx.l4 == RxStatus::NoneDataValid {
                // Data good, field not filled (the virtio PMD's NEEDS_CSUM).
                match (inner_site, enc) {
                    (Some(s), Encap::None) if sites.iter().all(|x| x.correct) => {
                        let s = *s;
                        set_field(bytes, &s, *field);
                    }
                    _ => rx.l4 = RxStatus::Unknown,
                }
            }
            trace.push(format!("dpdk rx {rx:?} {enc:?} frame {with_frame}"));
            let out = if *with_frame {
                dpdk::rx_to_meta_frame(rx, enc, bytes, wl)
            } else {
                dpdk::rx_to_meta(rx, enc)
            };
            trace.push(format!("  -> {:?} {:?}", out.meta, out.verdict));
            Ok(Some(out.meta))
        }
        Start::DpdkTx {
            l4,
            ip,
            ip_cksum,
            tcp_seg,
            tso_segsz,
            tunnel,
            outer_ip_cksum,
            field,
        } => {
            let Some(outer) = parsed else { return Ok(None) };
            let cfgd = EncapConfig::DEFAULT;
            let tun = if *tunnel {
                encap::parse_tunnel(bytes, &outer, &cfgd)
                    .ok()
                    .and_then(|t| Some((t, encap::parse_inner(bytes, &t).ok()?)))
            } else {
                None
            };
            let l = tun.map_or(outer, |(_, i)| i);
            let own = match l.transport {
                wire::Transport::Tcp => ol::TX_TCP_CKSUM,
                wire::Transport::Sctp => ol::TX_SCTP_CKSUM,
                wire::Transport::Udp => ol::TX_UDP_CKSUM,
                _ => 0,
            };
            let mut f = match l4 % 5 {
                0 => 0,
                1 => ol::TX_TCP_CKSUM,
                2 => ol::TX_SCTP_CKSUM,
                3 => ol::TX_UDP_CKSUM,
                _ => own,
            };
            let own_ip = if l.net == Net::Ipv4 {
                ol::TX_IPV4
            } else {
                ol::TX_IPV6
            };
            if ip & 1 != 0 {
                f |= ol::TX_IPV4;
            }
            if ip & 2 != 0 {
                f |= ol::TX_IPV6;
            }
            if ip & 4 != 0 {
                f |= own_ip;
            }
            if *ip_cksum {
                f |= ol::TX_IP_CKSUM;
            }
            if *tcp_seg {
                f |= ol::TX_TCP_SEG;
            }
            let mut tx = TxOffload {
                ol_flags: f,
                l2_len: (l.l3 - l.l2) as u16,
                l3_len: (l.l4 - l.l3) as u16,
                l4_len: (l.payload - l.l4) as u16,
                tso_segsz: *tso_segsz,
                ..TxOffload::default()
            };
            if let Some((t, i)) = tun {
                tx.ol_flags |= match t.kind {
                    encap::TunnelKind::Vxlan => ol::TX_TUNNEL_VXLAN,
                    encap::TunnelKind::Geneve => ol::TX_TUNNEL_GENEVE,
                    encap::TunnelKind::Gre => ol::TX_TUNNEL_GRE,
                    _ => ol::TX_TUNNEL_IPIP,
                };
                tx.ol_flags |= if outer.net == Net::Ipv4 {
                    ol::TX_OUTER_IPV4
                } else {
                    ol::TX_OUTER_IPV6
                };
                if *outer_ip_cksum {
                    tx.ol_flags |= ol::TX_OUTER_IP_CKSUM;
                }
                tx.outer_l2_len = (outer.l3 - outer.l2) as u16;
                tx.outer_l3_len = (outer.l4 - outer.l3) as u16;
                tx.l2_len = (i.l3 - outer.l4) as u16;
            }
            if let Some(s) = sites.iter().find(|s| s.l4 == l.l4) {
                make_local(bytes, link, s, *field);
            }
            trace.push(format!("dpdk tx {tx:?} field {field:?}"));
            let copy = bytes.clone();
            match tx_to_meta(&tx, bytes, wl, *field) {
                Ok(inb) => {
                    trace.push(format!("  -> {:?} seg {:?}", inb.meta, inb.seg));
                    if let Some(rule) = peer_rules::dpdk_tx_refusal(tx.ol_flags, tx.tso_segsz) {
                        return Err(fail(
                            "dpdk tx_to_meta",
                            format!(
                                "accepted a request rte_validate_tx_offload refuses ({rule}): {tx:?}"
                            ),
                            trace,
                        ));
                    }
                    Ok(Some(inb.meta))
                }
                Err(e) => {
                    trace.push(format!("  -> refused {e:?}"));
                    if *bytes != copy {
                        return Err(fail(
                            "dpdk tx_to_meta",
                            "refusal changed the bytes".into(),
                            trace,
                        ));
                    }
                    Ok(None)
                }
            }
        }
        Start::AfPacket {
            csum_valid,
            not_ready,
            field,
        } => {
            let mut status = TpStatus::empty();
            // The kernel says CSUM_VALID only for a verified first checksum.
            if *csum_valid && first_ok(&sites) {
                status |= TpStatus::CSUM_VALID;
            }
            if *not_ready {
                // A locally generated Partial, captured before the fill.
                status |= TpStatus::CSUMNOTREADY;
                if let Some(l) = parsed
                    && let Some(s) = sites.iter().find(|s| s.l4 == l.l4)
                {
                    make_local(bytes, link, s, *field);
                }
            }
            trace.push(format!("afpacket {status:?} field {field:?}"));
            let out = afpacket::status_to_meta(status, bytes, wl);
            trace.push(format!("  -> {out:?}"));
            Ok(match out {
                Captured::NotReady(m) | Captured::Valid(m) => Some(m),
                Captured::NotReadyUnlocated | Captured::Unknown => Some(CsumMeta::NONE),
            })
        }
    }
}

/// Runs one walk; `Err` names the first broken rule.
pub fn run(case: &Case) -> R<Stats> {
    let mut st = Stats::default();
    let (mut bytes, link) = build(&case.frame);
    let mut trace = vec![format!("frame {} bytes {link:?}", bytes.len())];
    let Some(meta) = start(case, &mut bytes, link, &mut trace)? else {
        return Ok(st);
    };
    let wl = wire_link(link);
    let layers = match wire::parse(&bytes, wl) {
        Ok(l) => l,
        Err(_) => {
            // Nothing parses: only the start's claim can be judged.
            let empty = View {
                bytes: &bytes,
                link,
                cur: 0,
                levels_from: 0,
                l4: usize::MAX,
            };
            return match oracle::check_strict(&empty, 0, &meta) {
                Ok(()) => Ok(st),
                Err(e) => Err(Failure {
                    step: 0,
                    what: "start".into(),
                    detail: format!("unsound {meta:?} on an unparsed frame: {e:?}"),
                    trace,
                }),
            };
        }
    };
    st.started = true;
    let mut run = Run {
        bytes,
        link,
        root: 0,
        layers,
        cur: layers.l3,
        meta,
        levels_from: 0,
        validated_here: false,
        step: 0,
        trace,
    };
    run.sound("start")?;
    for (i, op) in case.ops.iter().enumerate() {
        run.step = i + 1;
        if !step(&mut run, *op, &mut st)? {
            break;
        }
    }
    Ok(st)
}

/// One transition; `Ok(false)` ends the walk (dropped or nothing left).
fn step(run: &mut Run, op: Op, st: &mut Stats) -> R<bool> {
    let len = run.bytes.len();
    match op {
        Op::Validate | Op::Deliver => {
            let Some(pkt) = run.pkt() else {
                return Ok(false);
            };
            let r = if matches!(op, Op::Validate) {
                state::validate(run.meta.clone(), &pkt)
            } else {
                state::deliver(run.meta.clone(), &pkt)
            };
            run.checked("validate", r, true, st)
        }
        Op::TryConvert => {
            let Some(pkt) = run.pkt() else {
                return Ok(false);
            };
            let r = state::try_convert(run.meta.clone(), &pkt);
            run.checked("try_convert", r, false, st)
        }
        Op::Conntrack { hook, checksum } => {
            let hook = [
                Hook::PreRouting,
                Hook::LocalIn,
                Hook::Forward,
                Hook::LocalOut,
                Hook::PostRouting,
            ][usize::from(hook) % 5];
            let Some(pkt) = run.pkt() else {
                return Ok(false);
            };
            let r = state::conntrack(run.meta.clone(), &pkt, hook, ConntrackConfig { checksum });
            run.checked("conntrack", r, false, st)
        }
        Op::Pull(a) => {
            let n = usize::from(a) % (len.saturating_sub(run.cur) + 2);
            let Some(pkt) = run.pkt() else {
                return Ok(false);
            };
            match state::pull(run.meta.clone(), &pkt, n) {
                Ok(o) => {
                    st.steps += 1;
                    run.note(format!("pull {n}: {:?}", o.meta));
                    run.meta = o.meta;
                    run.cur += n;
                    run.validated_here = false;
                    run.sound("pull")?;
                }
                Err(rej) => {
                    st.refused += 1;
                    if rej.meta != run.meta {
                        return Err(run.fail("pull", "refusal changed the meta".into()));
                    }
                }
            }
            Ok(true)
        }
        Op::Push(a) => {
            let n = usize::from(a) % (run.cur + 2);
            let Some(pkt) = run.pkt() else {
                return Ok(false);
            };
            match state::push(run.meta.clone(), &pkt, n) {
                Ok(o) => {
                    st.steps += 1;
                    run.note(format!("push {n}: {:?}", o.meta));
                    run.meta = o.meta;
                    run.cur -= n;
                    run.sound("push")?;
                }
                Err(rej) => {
                    st.refused += 1;
                    if rej.meta != run.meta {
                        return Err(run.fail("push", "refusal changed the meta".into()));
                    }
                }
            }
            Ok(true)
        }
        Op::Trim { to_end, n } => {
            let to = if to_end {
                run.layers.end
            } else {
                usize::from(n) % (len + 2)
            };
            let Some(pkt) = run.pkt() else {
                return Ok(false);
            };
            match state::trim(run.meta.clone(), &pkt, to) {
                Ok(o) => {
                    st.steps += 1;
                    run.note(format!("trim {to}: {:?}", o.meta));
                    run.meta = o.meta;
                    run.bytes.truncate(to);
                    run.sound("trim")?;
                }
                Err(rej) => {
                    st.refused += 1;
                    if rej.meta != run.meta {
                        return Err(run.fail("trim", "refusal changed the meta".into()));
                    }
                }
            }
            Ok(true)
        }
        Op::Bridge => {
            run.meta = state::bridge(run.meta.clone()).meta;
            st.steps += 1;
            run.note("bridge".into());
            run.sound("bridge")?;
            Ok(true)
        }
        Op::Route => {
            run.mutating("route", st, state::route)?;
            Ok(true)
        }
        Op::Nat { which, a, b } => {
            let rw = match (which % 4, run.layers.net) {
                (0, Net::Ipv4) => Rewrite::Src(Addr::V4([a, b, a ^ b, 7])),
                (1, Net::Ipv4) => Rewrite::Dst(Addr::V4([b, a, 1, a ^ b])),
                (0, Net::Ipv6) => Rewrite::Src(Addr::V6([a ^ b; 16])),
                (1, Net::Ipv6) => Rewrite::Dst(Addr::V6([b; 16])),
                (2, _) => Rewrite::SrcPort(u16::from_le_bytes([a, b])),
                _ => Rewrite::DstPort(u16::from_le_bytes([b, a])),
            };
            run.mutating("nat", st, |m, p| state::nat(m, p, rw))?;
            Ok(true)
        }
        Op::Fill => {
            run.mutating("fill", st, state::fill_partial)?;
            Ok(true)
        }
        Op::CheckIpv4Header => {
            let Some(pkt) = run.pkt() else {
                return Ok(false);
            };
            match state::check_ipv4_header(run.meta.clone(), &pkt) {
                Ok(o) => {
                    st.steps += 1;
                    run.note(format!("check_ipv4_header: {:?}", o.verdict));
                    let ok = oracle::ipv4_header_ok(&run.bytes, run.layers.l3);
                    let wrong = match o.verdict {
                        CsumVerdict::Good => ok == Some(false),
                        CsumVerdict::Bad => ok == Some(true),
                        _ => false,
                    };
                    if wrong {
                        return Err(run.fail(
                            "check_ipv4_header",
                            format!(
                                "{:?} for a header whose checksum verifies: {ok:?}",
                                o.verdict
                            ),
                        ));
                    }
                    run.meta = o.meta;
                    run.sound("check_ipv4_header")?;
                    Ok(o.verdict != CsumVerdict::Bad)
                }
                Err(rej) => {
                    st.refused += 1;
                    if rej.meta != run.meta {
                        return Err(
                            run.fail("check_ipv4_header", "refusal changed the meta".into())
                        );
                    }
                    Ok(true)
                }
            }
        }
        Op::Decap { zero6 } => {
            let before = run.meta.clone();
            match encap::decap(
                &run.bytes,
                &run.layers,
                run.cur,
                run.meta.clone(),
                &cfg(zero6),
            ) {
                Ok(d) => {
                    st.steps += 1;
                    st.decaps += 1;
                    run.note(format!(
                        "decap {:?}: {:?} -> {:?}",
                        d.tunnel.kind, d.reason, d.meta
                    ));
                    run.enter(d.inner, d.meta, true);
                    run.sound("decap")?;
                }
                Err(r) => {
                    st.refused += 1;
                    run.note(format!("decap refused {:?}", r.error));
                    if r.meta != before {
                        return Err(run.fail("decap", "refusal changed the meta".into()));
                    }
                    if let encap::DecapError::BadOuterChecksum { .. } = r.error {
                        oracle::check_verdict(
                            &run.view(),
                            run.root,
                            &before,
                            CsumVerdict::Bad,
                            state::Reason::BadChecksum,
                        )
                        .map_err(|e| run.fail("decap", format!("BadOuterChecksum: {e:?}")))?;
                        return Ok(false);
                    }
                }
            }
            Ok(true)
        }
        Op::DecapNested { zero6 } => {
            let before = run.meta.clone();
            match encap::decap_nested(
                &run.bytes,
                &run.layers,
                run.cur,
                run.meta.clone(),
                &cfg(zero6),
            ) {
                Ok(n) => {
                    st.steps += 1;
                    run.note(format!(
                        "decap_nested {} steps {:?} -> {:?}",
                        n.steps.len(),
                        n.steps.iter().map(|s| s.reason).collect::<Vec<_>>(),
                        n.meta
                    ));
                    if n.steps.is_empty() {
                        if n.meta != before {
                            return Err(
                                run.fail("decap_nested", "no tunnel, yet the meta changed".into())
                            );
                        }
                    } else {
                        st.decaps += 1;
                        run.enter(n.inner, n.meta, true);
                        run.sound("decap_nested")?;
                    }
                }
                Err(r) => {
                    st.refused += 1;
                    run.note(format!("decap_nested refused {:?}", r.error));
                    if r.meta != before {
                        return Err(run.fail("decap_nested", "refusal changed the meta".into()));
                    }
                }
            }
            Ok(true)
        }
        Op::Descend { convert } => {
            // Linux's receive path: validate the tunnel's UDP / GRE layer,
            // (convert,) then pull to the inner IP header.
            let c = cfg(false);
            let Ok(t) = encap::parse_tunnel(&run.bytes, &run.layers, &c) else {
                return Ok(true);
            };
            let Ok(inner) = encap::parse_inner(&run.bytes, &t) else {
                return Ok(true);
            };
            if inner.l3 < run.cur {
                return Ok(true);
            }
            if !run.validated_here {
                let Some(pkt) = run.pkt() else {
                    return Ok(false);
                };
                let r = state::validate(run.meta.clone(), &pkt);
                if !run.checked("descend/validate", r, true, st)? {
                    return Ok(false);
                }
                if !run.validated_here {
                    return Ok(true); // refused: the receive path stops here
                }
            }
            if convert {
                let Some(pkt) = run.pkt() else {
                    return Ok(false);
                };
                let r = state::try_convert(run.meta.clone(), &pkt);
                run.checked("descend/try_convert", r, false, st)?;
            }
            let Some(pkt) = run.pkt() else {
                return Ok(false);
            };
            match state::pull(run.meta.clone(), &pkt, inner.l3 - run.cur) {
                Ok(o) => {
                    st.steps += 1;
                    st.decaps += 1;
                    run.note(format!("descend: {:?}", o.meta));
                    let lf = run.levels_from;
                    run.enter(inner, o.meta, false);
                    // Levels consumed by the outer validation stay consumed.
                    run.levels_from = run.levels_from.max(lf);
                    run.sound("descend")?;
                }
                Err(rej) => {
                    return Err(run.fail(
                        "descend",
                        format!("pull to the inner header refused: {rej:?}"),
                    ));
                }
            }
            Ok(true)
        }
        Op::Encap { kind, udp, v6, eth } => encap_op(run, kind, udp, v6, eth, st),
        Op::DpdkTxRoundTrip { ip_csum, tso } => {
            let mut copy = run.bytes.clone();
            let gso = if tso {
                let kind = match (run.layers.net, run.layers.transport) {
                    (Net::Ipv4, wire::Transport::Tcp) => GsoKind::TcpV4,
                    (Net::Ipv6, wire::Transport::Tcp) => GsoKind::TcpV6,
                    _ => GsoKind::UdpL4,
                };
                Some(GsoParams {
                    kind,
                    ecn: false,
                    gso_size: 100,
                    hdr_len: run.layers.payload - run.root,
                    segs: 2,
                })
            } else {
                None
            };
            if run.root != 0 {
                return Ok(true); // mbuf lengths count from the frame start
            }
            match dpdk::meta_to_tx(run.meta.clone(), &mut copy, &run.layers, None, gso, ip_csum) {
                Ok(tx) => {
                    run.note(format!("meta_to_tx: {tx:?}"));
                    if let Some(rule) = peer_rules::dpdk_tx_refusal(tx.ol_flags, tx.tso_segsz) {
                        return Err(run.fail(
                            "dpdk meta_to_tx",
                            format!("asked for what rte_validate_tx_offload refuses ({rule}): {tx:?} from {:?}", run.meta),
                        ));
                    }
                    match tx_to_meta(&tx, &mut copy, wire_link(run.link), Field::Seed) {
                        Ok(inb) => {
                            st.steps += 1;
                            run.note(format!("tx_to_meta: {:?}", inb.meta));
                            run.bytes = copy;
                            run.meta = inb.meta;
                            run.sound("dpdk tx round trip")?;
                        }
                        Err(e) => run.note(format!("tx_to_meta refused {e:?}")),
                    }
                }
                Err(e) => run.note(format!("meta_to_tx refused {e:?}")),
            }
            Ok(true)
        }
    }
}

fn encap_op(run: &mut Run, kind: u8, udp: u8, v6: bool, eth: bool, st: &mut Stats) -> R<bool> {
    let inner_link = if run.cur == run.layers.l2 && run.layers.l2 < run.layers.l3 {
        LinkType::Ethernet
    } else if run.cur == run.layers.l3 {
        LinkType::RawIp
    } else {
        return Ok(true);
    };
    // Offsets of the inner state count from the inner packet's start.
    let meta = match run.meta.state() {
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            if start < run.cur {
                return Ok(true);
            }
            match CsumMeta::new(
                CsumState::Partial {
                    start: start - run.cur,
                    offset,
                    kind,
                },
                run.meta.flags(),
            ) {
                Ok(m) => m,
                Err(_) => return Ok(true),
            }
        }
        _ => run.meta.clone(),
    };
    let tunnel = match kind % 5 {
        0 if inner_link == LinkType::Ethernet => TunnelSpec::Vxlan {
            vni: 7,
            src_port: 50000,
            dst_port: 4789,
        },
        1 => TunnelSpec::Geneve {
            vni: 9,
            src_port: 50001,
            dst_port: 6081,
            options: &[],
            oam: false,
            critical: false,
        },
        2 => TunnelSpec::Gre {
            key: Some(5),
            seq: None,
            checksum: false,
        },
        3 => TunnelSpec::Gre {
            key: None,
            seq: Some(1),
            checksum: true,
        },
        4 if inner_link == LinkType::RawIp => TunnelSpec::IpInIp,
        _ => return Ok(true),
    };
    let ip = if v6 {
        OuterIp::V6 {
            src: [0x20; 16],
            dst: [0xfd; 16],
            hop_limit: 64,
            traffic_class: 0,
            flow_label: 1,
        }
    } else {
        OuterIp::V4 {
            src: [192, 0, 2, 1],
            dst: [192, 0, 2, 2],
            ttl: 64,
            tos: 0,
            id: 1,
            dont_fragment: true,
        }
    };
    let spec = EncapSpec {
        eth: eth.then_some(OuterEthernet {
            dst: [2; 6],
            src: [4; 6],
            vlan: None,
        }),
        ip,
        tunnel,
        udp_csum: match udp % 3 {
            0 => UdpCsumMode::Zero,
            1 => UdpCsumMode::Compute,
            _ => UdpCsumMode::Offload,
        },
    };
    const HEAD: usize = 128;
    let inner = &run.bytes[run.cur..];
    let mut buf = vec![0u8; HEAD + inner.len()];
    buf[HEAD..].copy_from_slice(inner);
    let before = meta.clone();
    match encap::encap(
        &spec,
        &cfg(false),
        &mut buf,
        HEAD,
        inner.len(),
        inner_link,
        meta,
    ) {
        Ok(e) => {
            let frame = buf[e.start..e.end].to_vec();
            let link = if eth { Link::Ethernet } else { Link::RawIp };
            let Ok(layers) = wire::parse(&frame, wire_link(link)) else {
                return Ok(false);
            };
            st.steps += 1;
            run.note(format!(
                "encap {tunnel:?} {:?}: {:?} -> {:?}",
                spec.udp_csum, e.outer_csum, e.meta
            ));
            run.bytes = frame;
            run.link = link;
            run.root = 0;
            run.layers = layers;
            run.cur = 0;
            run.meta = e.meta;
            run.levels_from = 0;
            run.validated_here = false;
            run.sound("encap")?;
            Ok(true)
        }
        Err(r) => {
            st.refused += 1;
            run.note(format!("encap refused {:?}", r.error));
            if r.meta != before {
                return Err(run.fail("encap", "refusal changed the meta".into()));
            }
            Ok(true)
        }
    }
}

/// Which known bug of issue 14 a failure is (by the rule it breaks), for
/// `WALK_TOLERATE_KNOWN=all` (or `1,7`...): a diagnostic run that looks past
/// those items for anything else while their fixes are not merged, and
/// measures how fast each one alone is found. Never set in CI.
pub fn known_bug(f: &Failure) -> Option<&'static str> {
    let d = &f.detail;
    let start = f.trace.get(1).map_or("", String::as_str);
    if d.contains("Linux refuses") {
        Some("item 2: virtio accepts what Linux refuses")
    } else if d.contains("rte_validate_tx_offload") {
        Some("item 7/rules: DPDK tx request DPDK refuses")
    } else if start.starts_with("dpdk tx") && d.contains("Partial") {
        Some("item 7/seed: DPDK tx Partial with an unchecked seed")
    } else if d.contains("DataValidOnBad") || d.contains("Good/DataValidTrusted") {
        Some("item 1: DATA_VALID beyond its layer")
    } else {
        None
    }
}

/// Whether `WALK_TOLERATE_KNOWN` (`all`, or item numbers such as `2,7` or
/// `7/rules`) names the known bug `k`.
pub fn tolerated(k: &str) -> bool {
    let Ok(v) = std::env::var("WALK_TOLERATE_KNOWN") else {
        return false;
    };
    v == "all"
        || v.split(',')
            .map(str::trim)
            .any(|n| !n.is_empty() && k.starts_with(&format!("item {n}")))
}

// ---------------------------------------------------------------- decoding

/// A byte reader for [`Case::decode`] (reads past the end give 0).
pub struct Src<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Src<'a> {
    pub fn new(data: &'a [u8]) -> Src<'a> {
        Src { data, at: 0 }
    }
    pub fn u8(&mut self) -> u8 {
        let v = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    pub fn bit(&mut self) -> bool {
        self.u8() & 1 != 0
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }
}

fn decode_field(s: &mut Src<'_>) -> Field {
    match s.u8() % 4 {
        0 => Field::AsBuilt,
        1 => Field::Seed,
        2 => Field::SeedNoLen,
        _ => Field::Garbage(s.u16()),
    }
}

fn decode_tunnel(s: &mut Src<'_>) -> TunnelLayer {
    let k = s.u8();
    let kind = match k % 4 {
        0 => TunnelKind::Vxlan,
        1 => TunnelKind::Geneve {
            opt_words: (k >> 2) % 4,
            inner_eth: k & 0x10 != 0,
        },
        2 => TunnelKind::Gre {
            c: k & 0x04 != 0,
            k: k & 0x08 != 0,
            s: k & 0x10 != 0,
            inner_eth: k & 0x20 != 0,
        },
        _ => TunnelKind::IpIp,
    };
    let f = s.u8();
    TunnelLayer {
        kind,
        v6: f & 1 != 0,
        v4_opt_words: (f >> 1) % 4,
        v6_ext_blocks: (f >> 3) % 3,
        udp_zero: f & 0x20 != 0,
        corrupt: f & 0x40 != 0,
        vlans: (f >> 7) + (s.u8() % 2),
    }
}

fn decode_inner(s: &mut Src<'_>) -> pb::Spec {
    let k = s.u8();
    let l4 = match k % 5 {
        0 => pb::L4::Tcp {
            opt_words: (k >> 3) % 11,
        },
        1 => pb::L4::Udp,
        2 => pb::L4::UdpZero,
        3 => pb::L4::Sctp,
        _ => pb::L4::Icmp,
    };
    let f = s.u8();
    let plen = usize::from(s.u8()) + usize::from(s.u8() % 4) * 256;
    pb::Spec {
        v6: f & 1 != 0,
        raw_ip: false,
        vlans: (f >> 1) % 3,
        l4,
        payload: s.bytes(plen),
        v4_opt_words: (f >> 3) % 11,
        v6_ext_blocks: (f >> 5) % 4,
        pad: if f & 0x80 != 0 {
            vec![0; 6]
        } else {
            Vec::new()
        },
        addr_seed: s.u8(),
        ttl: s.u8(),
    }
}

fn decode_op(s: &mut Src<'_>) -> Op {
    let k = s.u8();
    let (a, b) = (s.u8(), s.u8());
    match k % 19 {
        0 => Op::Validate,
        1 => Op::Deliver,
        2 => Op::TryConvert,
        3 => Op::Conntrack {
            hook: a,
            checksum: b & 1 == 0,
        },
        4 => Op::Pull(u16::from(a)),
        5 => Op::Push(u16::from(a)),
        6 => Op::Trim {
            to_end: a & 1 == 0,
            n: u16::from_le_bytes([a, b]),
        },
        7 => Op::Bridge,
        8 => Op::Route,
        9 => Op::Nat { which: a, a, b },
        10 => Op::Fill,
        11 => Op::CheckIpv4Header,
        12 | 13 => Op::Decap { zero6: a & 1 != 0 },
        14 => Op::DecapNested { zero6: a & 1 != 0 },
        15 => Op::Descend {
            convert: a & 1 != 0,
        },
        16 => Op::Encap {
            kind: a,
            udp: b,
            v6: a & 0x80 != 0,
            eth: b & 0x80 == 0,
        },
        17 => Op::DpdkTxRoundTrip {
            ip_csum: a & 1 != 0,
            tso: a & 2 != 0,
        },
        _ => Op::Validate,
    }
}

impl Case {
    /// A case from fuzzer bytes: frame, start, then up to 8 operations.
    pub fn decode(data: &[u8]) -> Case {
        let mut s = Src::new(data);
        let fk = s.u8();
        let frame = match fk % 16 {
            0 => Frame::Arp { pad: s.u8() },
            2 | 3 => {
                let n = usize::from(s.u16() % 1600);
                Frame::Raw {
                    fix: fk & 0x10 != 0,
                    bytes: s.bytes(n),
                }
            }
            1 => {
                let n = usize::from(s.u8() % 80);
                Frame::Garbage {
                    ethertype: s.u16(),
                    body: s.bytes(n),
                }
            }
            _ => {
                let depth = match (fk >> 4) % 4 {
                    0 => 0,
                    3 => 2,
                    _ => 1,
                };
                let tunnels = (0..depth).map(|_| decode_tunnel(&mut s)).collect();
                Frame::Ip {
                    eth: fk & 0x40 == 0 || fk & 0x80 == 0,
                    tunnels,
                    inner: decode_inner(&mut s),
                    corrupt_inner: s.bit(),
                }
            }
        };
        let sk = s.u8();
        let start = match sk % 6 {
            0 => Start::Device(match s.u8() % 4 {
                0 => DevReport::None,
                1 => DevReport::Level(s.u8() % 4),
                2 => DevReport::Bad,
                _ => DevReport::Complete,
            }),
            1 => {
                let f = s.u8();
                let st = match s.u8() % 4 {
                    0 | 1 => VirtioStart::Site(s.u8()),
                    2 => VirtioStart::SiteOffset(s.u8(), u16::from(s.u8())),
                    _ => VirtioStart::Raw(s.u16(), s.u16()),
                };
                let gso_type = match s.u8() % 8 {
                    0..=3 => 0,
                    4 => 1,
                    5 => 4,
                    6 => 5,
                    _ => s.u8(),
                };
                Start::Virtio {
                    needs_csum: f & 1 != 0,
                    data_valid: f & 2 != 0,
                    start: st,
                    field: decode_field(&mut s),
                    gso_type,
                    gso_size: s.u16() % 2000,
                    hdr_len: u16::from(s.u8()),
                    from_device: f & 4 != 0,
                    dv_policy: f >> 3,
                    seed_verify: f & 0x40 == 0,
                    hdr_len_exact: f & 0x80 != 0,
                }
            }
            2 => {
                let f = s.u8();
                Start::Xen {
                    csum: f,
                    trust: f >> 2,
                    seed_verify: f & 0x10 == 0,
                    field: decode_field(&mut s),
                }
            }
            3 => {
                let f = s.u8();
                let g = s.u8();
                Start::DpdkRx {
                    ip: f,
                    l4: f >> 2,
                    outer_l4: f >> 4,
                    outer_ip_bad: f & 0x40 != 0,
                    with_frame: f & 0x80 != 0,
                    field: if g & 1 == 0 {
                        Field::Seed
                    } else {
                        decode_field(&mut s)
                    },
                }
            }
            4 => {
                let f = s.u8();
                let g = s.u8();
                Start::DpdkTx {
                    l4: f,
                    ip: g,
                    ip_cksum: g & 8 != 0,
                    tcp_seg: g & 0x10 != 0,
                    tso_segsz: if g & 0x20 != 0 { 0 } else { 512 },
                    tunnel: g & 0x40 != 0,
                    outer_ip_cksum: g & 0x80 != 0,
                    field: decode_field(&mut s),
                }
            }
            _ => {
                let f = s.u8();
                Start::AfPacket {
                    csum_valid: f & 1 != 0,
                    not_ready: f & 2 != 0,
                    field: decode_field(&mut s),
                }
            }
        };
        let n = usize::from(s.u8() % 9);
        let ops = (0..n).map(|_| decode_op(&mut s)).collect();
        Case { frame, start, ops }
    }
}
