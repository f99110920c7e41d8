//! The tunnel walk: parses a frame's outer headers with `netoffload::wire`, then
//! descends through VXLAN, GENEVE, GRE, GRE-in-UDP, MPLS-in-UDP and IP-in-IP,
//! one `Level` per IP header, outermost first.
//!
//! A local stand-in for `netoffload::encap`'s decap (written while that room is
//! being built); it only finds offsets, it never decides checksum states.

use netoffload::wire::{self, Layers, LinkType, ParseError, Transport};

/// Deepest nesting followed (outer headers count as level 0).
pub const MAX_LEVELS: usize = 8;

const ET_IPV4: u16 = 0x0800;
const ET_IPV6: u16 = 0x86DD;
const ET_VLAN: u16 = 0x8100;
const ET_QINQ: u16 = 0x88A8;
const ET_TEB: u16 = 0x6558;
const ET_MPLS: u16 = 0x8847;
const PORT_VXLAN: u16 = 4789;
const PORT_GENEVE: u16 = 6081;
const PORT_GRE_UDP: u16 = 4754;
const PORT_MPLS_UDP: u16 = 6635;

/// The encapsulation that leads from one level to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TunnelKind {
    /// VXLAN (UDP 4789), inner Ethernet.
    Vxlan,
    /// GENEVE (UDP 6081), inner Ethernet or IP.
    Geneve,
    /// GRE (IP protocol 47).
    Gre,
    /// GRE in UDP (UDP 4754, RFC 8086).
    GreUdp,
    /// MPLS in UDP (UDP 6635, RFC 7510).
    MplsUdp,
    /// IPv4 or IPv6 directly in IP (protocols 4 and 41).
    IpInIp,
}

impl TunnelKind {
    /// Short name for tables and explanations.
    pub fn name(self) -> &'static str {
        match self {
            TunnelKind::Vxlan => "vxlan",
            TunnelKind::Geneve => "geneve",
            TunnelKind::Gre => "gre",
            TunnelKind::GreUdp => "gre_udp",
            TunnelKind::MplsUdp => "mpls_udp",
            TunnelKind::IpInIp => "ipip",
        }
    }

    /// True for tunnels carried in UDP (the ones the Linux UDP GRO gate applies to).
    pub fn over_udp(self) -> bool {
        matches!(
            self,
            TunnelKind::Vxlan | TunnelKind::Geneve | TunnelKind::GreUdp | TunnelKind::MplsUdp
        )
    }
}

/// One IP level of a frame.
#[derive(Clone, Debug)]
pub struct Level {
    /// Offsets of this level's headers (absolute in the frame).
    pub layers: Layers,
    /// The tunnel leading to the next level, if the walk descended.
    pub tunnel: Option<Tunnel>,
}

/// A tunnel header between two levels.
#[derive(Clone, Copy, Debug)]
pub struct Tunnel {
    /// Which encapsulation.
    pub kind: TunnelKind,
    /// Offset of the inner frame (inner Ethernet or inner IP).
    pub inner: usize,
}

/// Why the walk stopped before the innermost IP level was found.
#[derive(Clone, Debug)]
pub enum Stop {
    /// The outer frame is not IP (ARP, STP, LLC...): nothing to check.
    NotIp {
        /// The EtherType (or length field) found.
        ethertype: u16,
    },
    /// The outer headers are malformed or truncated.
    Malformed(String),
    /// A tunnel's inner frame is malformed; the outer levels are fine.
    InnerMalformed {
        /// The depth that failed.
        depth: usize,
        /// What failed.
        why: String,
    },
    /// The inner frame carries something other than IP (e.g. ARP in VXLAN).
    InnerNotIp {
        /// The depth of the tunnel's inner frame.
        depth: usize,
    },
    /// More than `MAX_LEVELS` levels.
    TooDeep,
}

/// The result of walking one frame.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// IP levels, outermost first (empty when the frame is not IP or malformed).
    pub levels: Vec<Level>,
    /// Why the walk stopped early, if it did.
    pub stop: Option<Stop>,
}

impl Walk {
    /// The innermost level.
    pub fn inner(&self) -> Option<&Level> {
        self.levels.last()
    }

    /// The outermost tunnel, if any.
    pub fn outer_tunnel(&self) -> Option<TunnelKind> {
        self.levels.first().and_then(|l| l.tunnel.map(|t| t.kind))
    }

    /// A compact chain such as `eth/ipv4/udp/vxlan/eth/ipv4/tcp`.
    pub fn chain(&self, bytes: &[u8]) -> String {
        let mut s = String::new();
        for (i, lv) in self.levels.iter().enumerate() {
            let l = &lv.layers;
            if i > 0 {
                s.push('/');
            }
            if l.link == LinkType::Ethernet && l.l3 > l.l2 {
                s.push_str("eth/");
                for _ in 0..l.vlan_count {
                    s.push_str("vlan/");
                }
                if has_mpls(bytes, l) {
                    s.push_str("mpls/");
                }
            }
            s.push_str(match l.net {
                wire::Net::Ipv4 => "ipv4",
                wire::Net::Ipv6 => "ipv6",
            });
            if l.fragment.is_fragment {
                s.push_str("(frag)");
            }
            s.push('/');
            s.push_str(&transport_name(l.transport));
            if let Some(t) = lv.tunnel
                && t.kind != TunnelKind::IpInIp
                && t.kind != TunnelKind::Gre
            {
                s.push('/');
                s.push_str(t.kind.name());
            }
        }
        match &self.stop {
            Some(Stop::NotIp { ethertype }) => s.push_str(&format!("eth/type {ethertype:#06x}")),
            Some(Stop::Malformed(why)) => s.push_str(&format!("malformed: {why}")),
            Some(Stop::InnerMalformed { why, .. }) => {
                s.push_str(&format!("/inner malformed: {why}"))
            }
            Some(Stop::InnerNotIp { depth }) => s.push_str(&format!("/d{depth} not ip")),
            Some(Stop::TooDeep) => s.push_str("/too deep"),
            None => {}
        }
        s
    }
}

fn has_mpls(bytes: &[u8], l: &Layers) -> bool {
    // An MPLS stack sits between the last EtherType and l3 when the EtherType says so.
    let et_at = l.l2 + 12 + 4 * l.vlan_count as usize;
    be16(bytes, et_at) == Some(ET_MPLS)
}

/// Name of a transport for chains and CSV rows.
pub fn transport_name(t: Transport) -> String {
    match t {
        Transport::Tcp => "tcp".into(),
        Transport::Udp => "udp".into(),
        Transport::Sctp => "sctp".into(),
        Transport::Icmp => "icmp".into(),
        Transport::Icmpv6 => "icmpv6".into(),
        Transport::Gre => "gre".into(),
        Transport::Ipip => "ipip".into(),
        Transport::Ipv6InIp => "ipv6".into(),
        Transport::Other(p) => format!("proto{p}"),
    }
}

/// Reads a big-endian u16.
pub fn be16(b: &[u8], at: usize) -> Option<u16> {
    match b.get(at..at.checked_add(2)?) {
        Some(&[x, y]) => Some(u16::from_be_bytes([x, y])),
        _ => None,
    }
}

/// Walks an Ethernet header (VLAN tags, an MPLS label stack) starting at `at`:
/// returns (l3 offset, EtherType of the IP header, VLAN count, TCIs).
fn walk_l2(b: &[u8], at: usize) -> Result<(usize, u16, u8, [u16; 2]), String> {
    let mut et = be16(b, at + 12).ok_or("Ethernet header truncated")?;
    let mut o = at + 14;
    let mut count = 0u8;
    let mut tci = [0u16; 2];
    while et == ET_VLAN || et == ET_QINQ {
        if count as usize >= tci.len() {
            return Err("more than two VLAN tags".into());
        }
        tci[count as usize] = be16(b, o).ok_or("VLAN tag truncated")?;
        et = be16(b, o + 2).ok_or("VLAN tag truncated")?;
        count += 1;
        o += 4;
    }
    if et == ET_MPLS {
        let (l3, ip_et) = skip_mpls(b, o)?;
        return Ok((l3, ip_et, count, tci));
    }
    Ok((o, et, count, tci))
}

/// Skips an MPLS label stack; the payload's IP version comes from its first nibble.
fn skip_mpls(b: &[u8], mut o: usize) -> Result<(usize, u16), String> {
    for _ in 0..16 {
        let bos = *b.get(o + 2).ok_or("MPLS label truncated")? & 1;
        o += 4;
        if bos == 1 {
            return match b.get(o).map(|v| v >> 4) {
                Some(4) => Ok((o, ET_IPV4)),
                Some(6) => Ok((o, ET_IPV6)),
                _ => Err("MPLS payload is not IP".into()),
            };
        }
    }
    Err("MPLS label stack deeper than 16".into())
}

/// `wire::parse_ip_at`, tolerant of tiny first fragments: the parser wants a
/// whole transport header in a first fragment (e.g. a first IPv4 fragment
/// shorter than a TCP header, as in zeek's `fragmented-4.pcap`). Such a
/// fragment is re-parsed from a copy with the UDP length cleared (or, for IPv4,
/// the protocol hidden), and the offsets found are used on the real bytes with
/// the transport restored and no transport header (`payload == l4`).
fn parse_ip(
    bytes: &[u8],
    l3: usize,
    et: u16,
    link: LinkType,
    vc: u8,
    tci: [u16; 2],
) -> Result<Layers, ParseError> {
    let err = match wire::parse_ip_at(bytes, l3, et, link, vc, tci) {
        Ok(l) => return Ok(l),
        Err(e) => e,
    };
    use wire::Layer as L;
    let mut copy = bytes.to_vec();
    match err.layer {
        L::Udp if err.field == wire::Field::UdpLength => {
            if let Some(f) = copy.get_mut(err.offset + 4..err.offset + 6) {
                f.copy_from_slice(&[0, 0]);
            }
        }
        L::Tcp | L::Sctp | L::Icmp | L::Gre | L::Udp if et == ET_IPV4 => {
            if let Some(p) = copy.get_mut(l3 + 9) {
                *p = 253; // RFC 3692 experimental: not parsed further
            }
        }
        _ => return Err(err),
    }
    match wire::parse_ip_at(&copy, l3, et, link, vc, tci) {
        Ok(mut l) if l.fragment.is_fragment => {
            if l.ip_proto == 253 {
                let proto = bytes[l3 + 9];
                l.ip_proto = proto;
                l.transport = Transport::from_proto(proto);
                l.payload = l.l4;
            }
            Ok(l)
        }
        _ => Err(err),
    }
}

fn describe(e: &ParseError) -> String {
    format!("{e}")
}

/// Walks a frame whose first byte is an Ethernet header (`Ethernet`) or an IP header (`RawIp`).
pub fn walk(bytes: &[u8], link: LinkType) -> Walk {
    let mut w = Walk::default();
    let first = match link {
        LinkType::Ethernet => match walk_l2(bytes, 0) {
            Ok((l3, et, vc, tci)) if et == ET_IPV4 || et == ET_IPV6 => {
                parse_ip(bytes, l3, et, LinkType::Ethernet, vc, tci)
            }
            Ok((_, et, _, _)) => {
                w.stop = Some(Stop::NotIp { ethertype: et });
                return w;
            }
            Err(why) => {
                w.stop = Some(Stop::Malformed(why));
                return w;
            }
        },
        LinkType::RawIp => match bytes.first().map(|v| v >> 4) {
            Some(4) => parse_ip(bytes, 0, ET_IPV4, LinkType::RawIp, 0, [0; 2]),
            Some(6) => parse_ip(bytes, 0, ET_IPV6, LinkType::RawIp, 0, [0; 2]),
            _ => wire::parse(bytes, LinkType::RawIp),
        },
    };
    let mut layers = match first {
        Ok(l) => l,
        Err(e) => {
            w.stop = Some(Stop::Malformed(describe(&e)));
            return w;
        }
    };
    loop {
        if w.levels.len() >= MAX_LEVELS {
            w.stop = Some(Stop::TooDeep);
            return w;
        }
        let depth = w.levels.len() + 1;
        let step = next_level(bytes, &layers);
        match step {
            Next::None => {
                w.levels.push(Level {
                    layers,
                    tunnel: None,
                });
                return w;
            }
            Next::Inner(tunnel, inner) => {
                w.levels.push(Level {
                    layers,
                    tunnel: Some(tunnel),
                });
                layers = inner;
            }
            Next::NotIp(tunnel) => {
                w.levels.push(Level {
                    layers,
                    tunnel: Some(tunnel),
                });
                w.stop = Some(Stop::InnerNotIp { depth });
                return w;
            }
            Next::Bad(tunnel, why) => {
                w.levels.push(Level { layers, tunnel });
                w.stop = Some(Stop::InnerMalformed { depth, why });
                return w;
            }
        }
    }
}

enum Next {
    None,
    Inner(Tunnel, Layers),
    NotIp(Tunnel),
    Bad(Option<Tunnel>, String),
}

/// Finds the tunnel (if any) after one level and parses the level inside it.
fn next_level(bytes: &[u8], l: &Layers) -> Next {
    if l.fragment.is_fragment {
        return Next::None;
    }
    // Only the bytes of this datagram (padding after `end` is not part of it).
    let b = &bytes[..l.end];
    match l.transport {
        Transport::Udp => {
            let dport = be16(b, l.l4 + 2).unwrap_or(0);
            let p = l.payload;
            match dport {
                PORT_VXLAN => {
                    let t = Tunnel {
                        kind: TunnelKind::Vxlan,
                        inner: p + 8,
                    };
                    if b.len() < p + 8 {
                        return Next::Bad(Some(t), "VXLAN header truncated".into());
                    }
                    inner_ethernet(b, t)
                }
                PORT_GENEVE => {
                    let Some(&vo) = b.get(p) else {
                        return Next::Bad(None, "GENEVE header truncated".into());
                    };
                    let len = 8 + (vo & 0x3F) as usize * 4;
                    let t = Tunnel {
                        kind: TunnelKind::Geneve,
                        inner: p + len,
                    };
                    if vo >> 6 != 0 {
                        return Next::Bad(Some(t), format!("GENEVE version {}", vo >> 6));
                    }
                    if b.len() < p + len {
                        return Next::Bad(Some(t), "GENEVE header truncated".into());
                    }
                    match be16(b, p + 2).unwrap_or(0) {
                        ET_TEB => inner_ethernet(b, t),
                        et @ (ET_IPV4 | ET_IPV6) => inner_ip(b, t, et),
                        _ => Next::NotIp(t),
                    }
                }
                PORT_GRE_UDP => gre_at(b, p, TunnelKind::GreUdp),
                PORT_MPLS_UDP => {
                    let t0 = Tunnel {
                        kind: TunnelKind::MplsUdp,
                        inner: p,
                    };
                    match skip_mpls(b, p) {
                        Ok((inner, et)) => inner_ip(b, Tunnel { inner, ..t0 }, et),
                        Err(why) => Next::Bad(Some(t0), why),
                    }
                }
                _ => Next::None,
            }
        }
        Transport::Gre => gre_at(b, l.l4, TunnelKind::Gre),
        Transport::Ipip | Transport::Ipv6InIp => {
            let t = Tunnel {
                kind: TunnelKind::IpInIp,
                inner: l.l4,
            };
            let et = if l.transport == Transport::Ipip {
                ET_IPV4
            } else {
                ET_IPV6
            };
            inner_ip(b, t, et)
        }
        _ => Next::None,
    }
}

/// GRE header at `at`: flags/version, protocol type, optional checksum/key/sequence.
fn gre_at(b: &[u8], at: usize, kind: TunnelKind) -> Next {
    let Some(flags) = be16(b, at) else {
        return Next::Bad(None, "GRE header truncated".into());
    };
    let version = flags & 7;
    let mut len = 4;
    for bit in [0x8000u16, 0x2000, 0x1000] {
        if flags & bit != 0 {
            len += 4;
        }
    }
    if version == 1 && flags & 0x0080 != 0 {
        len += 4;
    }
    let t = Tunnel {
        kind,
        inner: at + len,
    };
    if version > 1 {
        return Next::Bad(Some(t), format!("GRE version {version}"));
    }
    if b.len() < at + len {
        return Next::Bad(Some(t), "GRE header truncated".into());
    }
    match be16(b, at + 2).unwrap_or(0) {
        ET_TEB => inner_ethernet(b, t),
        et @ (ET_IPV4 | ET_IPV6) => inner_ip(b, t, et),
        _ => Next::NotIp(t),
    }
}

fn inner_ethernet(b: &[u8], t: Tunnel) -> Next {
    match walk_l2(b, t.inner) {
        Ok((l3, et, vc, tci)) if et == ET_IPV4 || et == ET_IPV6 => {
            match parse_ip(b, l3, et, LinkType::Ethernet, vc, tci) {
                Ok(mut l) => {
                    l.l2 = t.inner;
                    Next::Inner(t, l)
                }
                Err(e) => Next::Bad(Some(t), describe(&e)),
            }
        }
        Ok(_) => Next::NotIp(t),
        Err(why) => Next::Bad(Some(t), why),
    }
}

fn inner_ip(b: &[u8], t: Tunnel, et: u16) -> Next {
    match parse_ip(b, t.inner, et, LinkType::RawIp, 0, [0; 2]) {
        Ok(l) => Next::Inner(t, l),
        Err(e) => Next::Bad(Some(t), describe(&e)),
    }
}
