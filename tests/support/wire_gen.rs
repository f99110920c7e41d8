//! Shared packet generator for the wire tests: proptest strategies that build
//! valid packets with etherparse (Ethernet / 802.1Q / QinQ, IPv4 with options,
//! IPv6 with extension headers, TCP with options, UDP, ICMP, SCTP-ish, other)
//! and record, from what was built, where each layer must start. The expected
//! offsets come from the generator's own bookkeeping, never from netoffload.
#![allow(dead_code)]

use etherparse::{
    IpFragOffset, IpHeaders, IpNumber, Ipv4Extensions, Ipv4Header, Ipv4Options, Ipv6Extensions,
    Ipv6FragmentHeader, Ipv6Header, Ipv6RawExtHeader, Ipv6RoutingExtensions, PacketBuilder,
    PacketBuilderStep, TcpOptionElement, VlanId,
};
use proptest::collection::vec;
use proptest::prelude::*;

/// Link framing.
#[derive(Clone, Debug)]
pub enum L2 {
    /// Bare IP.
    Raw,
    /// Ethernet II.
    Eth,
    /// One 802.1Q tag.
    Vlan(u16),
    /// 802.1ad outer + 802.1Q inner.
    QinQ(u16, u16),
}

/// An IPv6 routing header to build.
#[derive(Clone, Debug)]
pub struct Routing {
    pub rtype: u8,
    pub left: u8,
    pub addrs: Vec<[u8; 16]>,
}

/// The network layer to build.
#[derive(Clone, Debug)]
pub enum L3 {
    V4 {
        /// Option bytes (a multiple of 4, valid TLVs).
        opts: Vec<u8>,
        frag_units: u16,
        more: bool,
        df: bool,
        ttl: u8,
        id: u16,
        src: [u8; 4],
        dst: [u8; 4],
    },
    V6 {
        /// Hop-by-hop payload (after next header and length; len % 8 == 6).
        hbh: Option<Vec<u8>>,
        /// Destination options payload and, when it holds a Home Address
        /// option, the offset of the address inside the payload.
        dst_opts: Option<(Vec<u8>, Option<usize>)>,
        routing: Option<Routing>,
        /// Fragment header: offset in 8-byte units, M flag.
        frag: Option<(u16, bool)>,
        hop: u8,
        src: [u8; 16],
        dst: [u8; 16],
    },
}

/// The transport to build.
#[derive(Clone, Debug)]
pub enum L4 {
    Tcp {
        opts: Vec<TcpOptionElement>,
        seq: u32,
        ack: u32,
        window: u16,
        syn: bool,
        fin: bool,
    },
    Udp {
        sport: u16,
        dport: u16,
    },
    Icmp {
        id: u16,
        seq: u16,
    },
    Sctp {
        vtag: u32,
    },
    Other(u8),
}

/// A packet description.
#[derive(Clone, Debug)]
pub struct Spec {
    pub l2: L2,
    pub l3: L3,
    pub l4: L4,
    pub payload: Vec<u8>,
    /// Bytes appended after the datagram (Ethernet minimum-frame padding).
    pub padding: Vec<u8>,
}

/// A built packet and the layer facts its builder knows.
#[derive(Clone, Debug)]
pub struct Built {
    pub spec: Spec,
    pub bytes: Vec<u8>,
    pub ethernet: bool,
    pub vlan_tci: Vec<u16>,
    pub l3: usize,
    pub v6: bool,
    pub l4: usize,
    pub ip_proto: u8,
    /// Offset of the transport payload as `Layers::payload` defines it.
    pub payload: usize,
    pub end: usize,
    pub frag_offset: usize,
    pub frag_more: bool,
    pub frag_header: bool,
    pub pseudo_src: usize,
    pub pseudo_dst: usize,
}

fn vlan_id() -> impl Strategy<Value = u16> {
    0u16..4096
}

pub fn l2() -> impl Strategy<Value = L2> {
    prop_oneof![
        Just(L2::Raw),
        Just(L2::Eth),
        vlan_id().prop_map(L2::Vlan),
        (vlan_id(), vlan_id()).prop_map(|(a, b)| L2::QinQ(a, b)),
    ]
}

/// Valid IPv4 option bytes: NOPs, router alerts and unknown TLVs, then EOL
/// padding to a multiple of 4 (at most 40).
pub fn ipv4_opts() -> impl Strategy<Value = Vec<u8>> {
    let item = prop_oneof![
        Just(vec![1u8]),
        Just(vec![0x94, 4, 0, 0]),
        (2u8..=10, any::<u8>()).prop_map(|(len, fill)| {
            let mut o = vec![0x1E, len];
            o.resize(len as usize, fill);
            o
        }),
    ];
    vec(item, 0..6).prop_map(|items| {
        let mut out = Vec::new();
        for i in items {
            if out.len() + i.len() <= 40 {
                out.extend(i);
            }
        }
        while out.len() % 4 != 0 {
            out.push(0);
        }
        out
    })
}

/// TLV options (PadN, router alert, skippable unknown) padded so that
/// `(len + 2) % 8 == 0`.
pub fn ext_opts() -> impl Strategy<Value = Vec<u8>> {
    let item = prop_oneof![
        Just(vec![0u8]),
        (0u8..6).prop_map(|n| {
            let mut o = vec![1, n];
            o.resize(2 + n as usize, 0);
            o
        }),
        Just(vec![5, 2, 0, 0]),
        (0u8..8, any::<u8>()).prop_map(|(n, fill)| {
            let mut o = vec![0x1E, n];
            o.resize(2 + n as usize, fill);
            o
        }),
    ];
    vec(item, 0..4).prop_map(|items| {
        let mut out: Vec<u8> = items.concat();
        pad_ext(&mut out);
        out
    })
}

fn pad_ext(out: &mut Vec<u8>) {
    let need = (8 - (out.len() + 2) % 8) % 8;
    match need {
        0 => {}
        1 => out.push(0),
        n => {
            out.push(1);
            out.push((n - 2) as u8);
            out.resize(out.len() + n - 2, 0);
        }
    }
}

fn addr16() -> impl Strategy<Value = [u8; 16]> {
    any::<[u8; 16]>()
}

pub fn routing() -> impl Strategy<Value = Routing> {
    prop_oneof![
        (0u8..3, vec(addr16(), 0..4)).prop_map(|(left, addrs)| Routing {
            rtype: 0,
            left,
            addrs
        }),
        (0u8..2, addr16()).prop_map(|(left, a)| Routing {
            rtype: 2,
            left,
            addrs: vec![a]
        }),
        (0u8..3, vec(addr16(), 1..4)).prop_map(|(left, addrs)| Routing {
            rtype: 4,
            left,
            addrs
        }),
        (0u8..3, vec(addr16(), 0..2)).prop_map(|(left, addrs)| Routing {
            rtype: 253,
            left,
            addrs
        }),
    ]
}

fn routing_payload(r: &Routing) -> Vec<u8> {
    let mut p = vec![r.rtype, r.left];
    match r.rtype {
        4 => {
            let last = r.addrs.len().saturating_sub(1) as u8;
            p.extend([last, 0, 0, 0]);
        }
        _ => p.extend([0, 0, 0, 0]),
    }
    for a in &r.addrs {
        p.extend(a);
    }
    p
}

/// Destination options, sometimes holding a Home Address option.
pub fn dst_opts() -> impl Strategy<Value = (Vec<u8>, Option<usize>)> {
    prop_oneof![
        ext_opts().prop_map(|o| (o, None)),
        (ext_opts(), addr16()).prop_map(|(mut o, hoa)| {
            // Drop the trailing padding, append the option, pad again.
            o.clear();
            o.extend([0x01, 0x02, 0x00, 0x00]); // PadN 2: aligns the address
            let at = o.len() + 2;
            o.push(0xC9);
            o.push(16);
            o.extend(hoa);
            pad_ext(&mut o);
            (o, Some(at))
        }),
    ]
}

pub fn l3() -> impl Strategy<Value = L3> {
    let v4 = (
        ipv4_opts(),
        prop_oneof![3 => Just(0u16), 1 => 1u16..8191],
        any::<bool>(),
        any::<bool>(),
        1u8..,
        any::<u16>(),
        any::<[u8; 4]>(),
        any::<[u8; 4]>(),
    )
        .prop_map(|(opts, frag_units, more, df, ttl, id, src, dst)| L3::V4 {
            opts,
            frag_units,
            more,
            df,
            ttl,
            id,
            src,
            dst,
        });
    let frag = prop_oneof![
        2 => Just(None),
        1 => Just(Some((0u16, false))),
        1 => Just(Some((0u16, true))),
        1 => (1u16..8191, any::<bool>()).prop_map(Some),
    ];
    let v6 = (
        proptest::option::of(ext_opts()),
        proptest::option::of(dst_opts()),
        proptest::option::of(routing()),
        frag,
        any::<u8>(),
        addr16(),
        addr16(),
    )
        .prop_map(|(hbh, dst_opts, routing, frag, hop, src, dst)| L3::V6 {
            hbh,
            dst_opts,
            routing,
            frag,
            hop,
            src,
            dst,
        });
    prop_oneof![v4, v6]
}

fn tcp_opt() -> impl Strategy<Value = TcpOptionElement> {
    use TcpOptionElement::*;
    prop_oneof![
        Just(Noop),
        any::<u16>().prop_map(MaximumSegmentSize),
        (0u8..15).prop_map(WindowScale),
        Just(SelectiveAcknowledgementPermitted),
        (
            any::<(u32, u32)>(),
            proptest::option::of(any::<(u32, u32)>())
        )
            .prop_map(|(a, b)| SelectiveAcknowledgement(a, [b, None, None])),
        any::<(u32, u32)>().prop_map(|(v, e)| Timestamp(v, e)),
    ]
}

fn tcp_opt_len(o: &TcpOptionElement) -> usize {
    use TcpOptionElement::*;
    match o {
        Noop => 1,
        MaximumSegmentSize(_) => 4,
        WindowScale(_) => 3,
        SelectiveAcknowledgementPermitted => 2,
        SelectiveAcknowledgement(_, rest) => 10 + 8 * rest.iter().flatten().count(),
        Timestamp(..) => 10,
    }
}

pub fn l4() -> impl Strategy<Value = L4> {
    prop_oneof![
        3 => (
            vec(tcp_opt(), 0..5),
            any::<u32>(),
            any::<u32>(),
            any::<u16>(),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(mut opts, seq, ack, window, syn, fin)| {
                while opts.iter().map(tcp_opt_len).sum::<usize>() > 40 {
                    opts.pop();
                }
                L4::Tcp {
                    opts,
                    seq,
                    ack,
                    window,
                    syn,
                    fin,
                }
            }),
        2 => (any::<u16>(), any::<u16>()).prop_map(|(sport, dport)| L4::Udp { sport, dport }),
        1 => (any::<u16>(), any::<u16>()).prop_map(|(id, seq)| L4::Icmp { id, seq }),
        1 => any::<u32>().prop_map(|vtag| L4::Sctp { vtag }),
        1 => prop_oneof![Just(253u8), Just(59u8), Just(50u8)].prop_map(L4::Other),
    ]
}

pub fn spec() -> impl Strategy<Value = Spec> {
    (
        l2(),
        l3(),
        l4(),
        vec(any::<u8>(), 0..48),
        vec(any::<u8>(), 0..12),
    )
        .prop_map(|(l2, l3, l4, payload, padding)| Spec {
            l2,
            l3,
            l4,
            payload,
            padding,
        })
}

/// Valid packets of every kind.
pub fn packet() -> impl Strategy<Value = Built> {
    spec().prop_map(build)
}

fn vid(v: u16) -> VlanId {
    VlanId::try_new(v).expect("generated ids are < 4096")
}

/// Builds the packet with etherparse and records the expected layer facts.
pub fn build(spec: Spec) -> Built {
    let (ip, ip_hdr_len, v6, pseudo_src_rel, pseudo_dst_rel, frag) = ip_headers(&spec.l3);
    let (l2_len, ethernet, vlan_tci) = match spec.l2 {
        L2::Raw => (0, false, vec![]),
        L2::Eth => (14, true, vec![]),
        L2::Vlan(a) => (18, true, vec![a]),
        L2::QinQ(a, b) => (22, true, vec![a, b]),
    };
    let src_mac = [2, 0, 0, 0, 0, 1];
    let dst_mac = [2, 0, 0, 0, 0, 2];
    let step: PacketBuilderStep<IpHeaders> = match spec.l2 {
        L2::Raw => PacketBuilder::ip(ip),
        L2::Eth => PacketBuilder::ethernet2(src_mac, dst_mac).ip(ip),
        L2::Vlan(a) => PacketBuilder::ethernet2(src_mac, dst_mac)
            .single_vlan(vid(a))
            .ip(ip),
        L2::QinQ(a, b) => PacketBuilder::ethernet2(src_mac, dst_mac)
            .double_vlan(vid(a), vid(b))
            .ip(ip),
    };
    let mut bytes = Vec::new();
    let (proto, l4_hdr_len) = match &spec.l4 {
        L4::Tcp {
            opts,
            seq,
            ack,
            window,
            syn,
            fin,
        } => {
            let mut b = step.tcp(1000, 2000, *seq, *window).ack(*ack);
            if *syn {
                b = b.syn();
            }
            if *fin {
                b = b.fin();
            }
            let b = b.options(opts).expect("options fit 40 bytes");
            let olen = opts.iter().map(tcp_opt_len).sum::<usize>().div_ceil(4) * 4;
            b.write(&mut bytes, &spec.payload).unwrap();
            (6u8, 20 + olen)
        }
        L4::Udp { sport, dport } => {
            step.udp(*sport, *dport)
                .write(&mut bytes, &spec.payload)
                .unwrap();
            (17, 8)
        }
        L4::Icmp { id, seq } => {
            if v6 {
                step.icmpv6_echo_request(*id, *seq)
                    .write(&mut bytes, &spec.payload)
                    .unwrap();
                (58, 4)
            } else {
                step.icmpv4_echo_request(*id, *seq)
                    .write(&mut bytes, &spec.payload)
                    .unwrap();
                (1, 4)
            }
        }
        L4::Sctp { vtag } => {
            let mut seg = vec![0x0B, 0x59, 0x0B, 0x59];
            seg.extend(vtag.to_be_bytes());
            seg.extend([0, 0, 0, 0]);
            seg.extend(&spec.payload);
            step.write(&mut bytes, IpNumber(132), &seg).unwrap();
            (132, 12)
        }
        L4::Other(p) => {
            step.write(&mut bytes, IpNumber(*p), &spec.payload).unwrap();
            (*p, 0)
        }
    };
    let end = bytes.len();
    bytes.extend(&spec.padding);
    let l3 = l2_len;
    let l4 = l3 + ip_hdr_len;
    let (frag_offset, frag_more, frag_header) = frag;
    let payload = if frag_offset != 0 {
        l4
    } else {
        l4 + l4_hdr_len
    };
    Built {
        bytes,
        ethernet,
        vlan_tci,
        l3,
        v6,
        l4,
        ip_proto: proto,
        payload,
        end,
        frag_offset,
        frag_more,
        frag_header,
        pseudo_src: l3 + pseudo_src_rel,
        pseudo_dst: l3 + pseudo_dst_rel,
        spec,
    }
}

/// The etherparse IP headers for `l3`, their length, whether IPv6, the
/// pseudo-header address offsets from the IP header, and fragment facts
/// (offset in bytes, M, IPv6 fragment header present).
fn ip_headers(l3: &L3) -> (IpHeaders, usize, bool, usize, usize, (usize, bool, bool)) {
    let dummy = IpNumber(59);
    match l3 {
        L3::V4 {
            opts,
            frag_units,
            more,
            df,
            ttl,
            id,
            src,
            dst,
        } => {
            let mut h = Ipv4Header::new(0, *ttl, dummy, *src, *dst).unwrap();
            h.options = Ipv4Options::try_from(&opts[..]).unwrap();
            h.identification = *id;
            h.dont_fragment = *df;
            h.more_fragments = *more;
            h.fragment_offset = IpFragOffset::try_new(*frag_units).unwrap();
            let len = 20 + opts.len();
            (
                IpHeaders::Ipv4(h, Ipv4Extensions::default()),
                len,
                false,
                12,
                16,
                (*frag_units as usize * 8, *more, false),
            )
        }
        L3::V6 {
            hbh,
            dst_opts,
            routing,
            frag,
            hop,
            src,
            dst,
        } => {
            let h = Ipv6Header {
                traffic_class: 0,
                flow_label: Default::default(),
                payload_length: 0,
                next_header: dummy,
                hop_limit: *hop,
                source: *src,
                destination: *dst,
            };
            let mut exts = Ipv6Extensions::default();
            // etherparse writes: hop-by-hop, destination options, routing,
            // fragment (no final destination options or AH are generated).
            let mut at = 40;
            let mut pseudo_src = 8;
            let mut pseudo_dst = 24;
            if let Some(p) = hbh {
                exts.hop_by_hop_options = Some(Ipv6RawExtHeader::new_raw(dummy, p).unwrap());
                at += 2 + p.len();
            }
            if let Some((p, hoa)) = dst_opts {
                exts.destination_options = Some(Ipv6RawExtHeader::new_raw(dummy, p).unwrap());
                if let Some(h) = hoa {
                    pseudo_src = at + 2 + h;
                }
                at += 2 + p.len();
            }
            if let Some(r) = routing {
                let p = routing_payload(r);
                exts.routing = Some(Ipv6RoutingExtensions {
                    routing: Ipv6RawExtHeader::new_raw(dummy, &p).unwrap(),
                    final_destination_options: None,
                });
                let n = r.addrs.len();
                if r.left > 0 && n > 0 {
                    match r.rtype {
                        0 | 2 => pseudo_dst = at + 8 + 16 * (n - 1),
                        4 => pseudo_dst = at + 8,
                        _ => {}
                    }
                }
                at += 2 + p.len();
            }
            let mut facts = (0, false, false);
            if let Some((units, more)) = frag {
                exts.fragment = Some(Ipv6FragmentHeader::new(
                    dummy,
                    IpFragOffset::try_new(*units).unwrap(),
                    *more,
                    0x1234_5678,
                ));
                at += 8;
                facts = (*units as usize * 8, *more, true);
            }
            (
                IpHeaders::Ipv6(h, exts),
                at,
                true,
                pseudo_src,
                pseudo_dst,
                facts,
            )
        }
    }
}

// ---- tunnel headers (etherparse has none): encoded here straight from the RFCs ----

/// GRE fields to encode (RFC 2784 / 2890 version 0, RFC 2637 version 1).
#[derive(Clone, Debug)]
pub struct GreSpec {
    pub enhanced: bool,
    pub protocol: u16,
    pub checksum: Option<u16>,
    pub key: Option<u32>,
    pub seq: Option<u32>,
    pub ack: Option<u32>,
}

impl GreSpec {
    /// The header bytes, optional words in RFC order.
    pub fn encode(&self) -> Vec<u8> {
        let mut flags: u16 = if self.enhanced { 1 } else { 0 };
        if self.checksum.is_some() {
            flags |= 0x8000;
        }
        if self.key.is_some() {
            flags |= 0x2000;
        }
        if self.seq.is_some() {
            flags |= 0x1000;
        }
        if self.ack.is_some() {
            flags |= 0x0080;
        }
        let mut b = flags.to_be_bytes().to_vec();
        b.extend(self.protocol.to_be_bytes());
        if let Some(c) = self.checksum {
            b.extend(c.to_be_bytes());
            b.extend([0, 0]);
        }
        for w in [self.key, self.seq, self.ack].into_iter().flatten() {
            b.extend(w.to_be_bytes());
        }
        b
    }
}

pub fn gre() -> impl Strategy<Value = GreSpec> {
    let v0 = (
        any::<u16>(),
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u32>()),
        proptest::option::of(any::<u32>()),
    )
        .prop_map(|(protocol, checksum, key, seq)| GreSpec {
            enhanced: false,
            protocol,
            checksum,
            key,
            seq,
            ack: None,
        });
    let v1 = (
        any::<u32>(),
        proptest::option::of(any::<u32>()),
        proptest::option::of(any::<u32>()),
    )
        .prop_map(|(key, seq, ack)| GreSpec {
            enhanced: true,
            protocol: 0x880B,
            checksum: None,
            key: Some(key),
            seq,
            ack,
        });
    prop_oneof![v0, v1]
}

/// GENEVE fields to encode (RFC 8926).
#[derive(Clone, Debug)]
pub struct GeneveSpec {
    pub oam: bool,
    pub critical: bool,
    pub protocol: u16,
    pub vni: u32,
    /// (class, type, data) with data a whole number of 4-byte words.
    pub options: Vec<(u16, u8, Vec<u8>)>,
}

impl GeneveSpec {
    pub fn encode(&self) -> Vec<u8> {
        let words: usize = self.options.iter().map(|o| 1 + o.2.len() / 4).sum();
        let mut b = vec![
            words as u8,
            (self.oam as u8) << 7 | (self.critical as u8) << 6,
        ];
        b.extend(self.protocol.to_be_bytes());
        b.extend(&self.vni.to_be_bytes()[1..]);
        b.push(0);
        for (class, ty, data) in &self.options {
            b.extend(class.to_be_bytes());
            b.push(*ty);
            b.push((data.len() / 4) as u8);
            b.extend(data);
        }
        b
    }
}

pub fn geneve() -> impl Strategy<Value = GeneveSpec> {
    let opt = (any::<u16>(), any::<u8>(), 0usize..8, any::<u8>())
        .prop_map(|(c, t, w, fill)| (c, t, vec![fill; w * 4]));
    (
        any::<bool>(),
        any::<bool>(),
        any::<u16>(),
        0u32..1 << 24,
        vec(opt, 0..7),
    )
        .prop_map(|(oam, critical, protocol, vni, options)| GeneveSpec {
            oam,
            critical,
            protocol,
            vni,
            options,
        })
}
