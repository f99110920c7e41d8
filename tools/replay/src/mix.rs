//! The built-in traffic mix: a deterministic list of Ethernet frames generated
//! in code, each tagged with its traffic class (`tcp4`, `vxlan_zero_csum`, ...).
//!
//! Self-contained (only `netoffload::csum`), so integration tests can include it.

use netoffload::csum::{self, Wsum};

/// One generated frame.
#[derive(Clone, Debug)]
pub struct Packet {
    /// The Ethernet frame.
    pub bytes: Vec<u8>,
    /// Its traffic class.
    pub class: &'static str,
    /// Capture timestamp in microseconds.
    pub ts_us: u64,
}

/// Every class the mix generates, in table order.
pub const CLASSES: [&str; 14] = [
    "tcp4",
    "tcp6",
    "rr",
    "ack",
    "udp4",
    "vxlan_zero_csum",
    "vxlan_csum",
    "geneve",
    "geneve_csum",
    "gre",
    "gre_csum",
    "corrupt",
    "ipv4_opts",
    "frag",
];

/// TCP payload bytes of a bulk IPv4 segment.
pub const MSS4: usize = 1448;
/// TCP payload bytes of a bulk IPv6 segment.
pub const MSS6: usize = 1428;
/// TCP payload bytes of a tunnelled segment (leaves room for the outer headers).
pub const MSS_TUNNEL: usize = 1398;
/// Segments per tunnelled flow.
pub const TUNNEL_SEGS: usize = 16;

const TCP_ACK: u8 = 0x10;
const TCP_PSH: u8 = 0x08;
const TCP_SYN: u8 = 0x02;

const MAC_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const MAC_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];

/// Ethernet header.
fn eth(ethertype: u16) -> Vec<u8> {
    let mut v = Vec::with_capacity(14);
    v.extend_from_slice(&MAC_B);
    v.extend_from_slice(&MAC_A);
    v.extend_from_slice(&ethertype.to_be_bytes());
    v
}

/// A flow's addresses.
#[derive(Clone, Copy)]
enum Addrs {
    V4([u8; 4], [u8; 4]),
    V6([u8; 16], [u8; 16]),
}

impl Addrs {
    fn v4(a: u8, b: u8) -> Addrs {
        Addrs::V4([10, 0, 0, a], [10, 0, 1, b])
    }
    fn v6(a: u8, b: u8) -> Addrs {
        let mut s = [0u8; 16];
        let mut d = [0u8; 16];
        s[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        d[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
        s[15] = a;
        d[14] = 1;
        d[15] = b;
        Addrs::V6(s, d)
    }
    fn reversed(self) -> Addrs {
        match self {
            Addrs::V4(s, d) => Addrs::V4(d, s),
            Addrs::V6(s, d) => Addrs::V6(d, s),
        }
    }
    fn pseudo(self, proto: u8, len: usize) -> Wsum {
        match self {
            Addrs::V4(s, d) => csum::pseudo_v4(s, d, proto, len as u32, Wsum::ZERO),
            Addrs::V6(s, d) => csum::pseudo_v6(&s, &d, proto, len as u32, Wsum::ZERO),
        }
    }
}

/// IPv4 fields beyond the addresses.
#[derive(Clone, Copy, Default)]
struct V4Opts<'a> {
    id: u16,
    options: &'a [u8],
    /// Flags + fragment offset word (DF by default when zero).
    frag_word: Option<u16>,
    /// Payload length to write in the header when it differs from the bytes
    /// (fragments carry part of the datagram).
    bad_header_csum: bool,
}

/// IP header + payload. The L4 checksum must already be in `l4`.
fn ip(addrs: Addrs, proto: u8, l4: &[u8], o: V4Opts<'_>) -> Vec<u8> {
    match addrs {
        Addrs::V4(s, d) => {
            let ihl = 20 + o.options.len();
            let total = ihl + l4.len();
            let mut h = vec![0u8; ihl];
            h[0] = 0x40 | (ihl / 4) as u8;
            h[2..4].copy_from_slice(&(total as u16).to_be_bytes());
            h[4..6].copy_from_slice(&o.id.to_be_bytes());
            h[6..8].copy_from_slice(&o.frag_word.unwrap_or(0x4000).to_be_bytes());
            h[8] = 64;
            h[9] = proto;
            h[12..16].copy_from_slice(&s);
            h[16..20].copy_from_slice(&d);
            h[20..].copy_from_slice(o.options);
            let c = csum::ipv4_header(&h).to_bytes();
            h[10..12].copy_from_slice(&c);
            if o.bad_header_csum {
                h[11] ^= 0x5a;
            }
            h.extend_from_slice(l4);
            h
        }
        Addrs::V6(s, d) => {
            let mut h = vec![0u8; 40];
            h[0] = 0x60;
            h[4..6].copy_from_slice(&(l4.len() as u16).to_be_bytes());
            h[6] = proto;
            h[7] = 64;
            h[8..24].copy_from_slice(&s);
            h[24..40].copy_from_slice(&d);
            h.extend_from_slice(l4);
            h
        }
    }
}

/// A TCP segment with its checksum.
#[allow(clippy::too_many_arguments)]
fn tcp(
    addrs: Addrs,
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    payload: &[u8],
) -> Vec<u8> {
    let mut t = vec![0u8; 20];
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&ack.to_be_bytes());
    t[12] = 5 << 4;
    t[13] = flags;
    t[14..16].copy_from_slice(&502u16.to_be_bytes());
    t.extend_from_slice(payload);
    let c = csum::fold(csum::partial(&t, addrs.pseudo(6, t.len()))).to_bytes();
    t[16..18].copy_from_slice(&c);
    t
}

/// A UDP datagram; `with_csum` false leaves the checksum zero (absent).
fn udp(addrs: Addrs, sport: u16, dport: u16, payload: &[u8], with_csum: bool) -> Vec<u8> {
    let mut u = vec![0u8; 8];
    u[0..2].copy_from_slice(&sport.to_be_bytes());
    u[2..4].copy_from_slice(&dport.to_be_bytes());
    u[4..6].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    u.extend_from_slice(payload);
    if with_csum {
        let mut c = csum::fold(csum::partial(&u, addrs.pseudo(17, u.len()))).to_bytes();
        if c == [0, 0] {
            c = [0xff, 0xff]; // RFC 768: a computed zero is sent as all ones
        }
        u[6..8].copy_from_slice(&c);
    }
    u
}

/// Deterministic payload bytes for flow `flow`, starting at stream offset `at`.
fn payload(flow: u32, at: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| {
            let x = (at + i) as u32 ^ flow.wrapping_mul(0x9E37_79B9);
            (x.wrapping_mul(2_654_435_761) >> 13) as u8
        })
        .collect()
}

/// A bulk TCP flow as IP packets: `segs` full segments, PSH on the last, and a
/// pure ACK from the receiver after every fourth when `acks`.
fn bulk(addrs: Addrs, flow: u32, segs: usize, mss: usize, acks: bool) -> Vec<(Vec<u8>, bool)> {
    let sport = 40000 + flow as u16;
    let isn = 1000 + flow * 7919;
    let mut out = Vec::new();
    let v4 = V4Opts::default();
    for i in 0..segs {
        let flags = if i + 1 == segs {
            TCP_ACK | TCP_PSH
        } else {
            TCP_ACK
        };
        let p = payload(flow, i * mss, mss);
        let seq = isn.wrapping_add((i * mss) as u32);
        let id = V4Opts {
            id: (flow * 100 + i as u32) as u16,
            ..v4
        };
        out.push((
            ip(addrs, 6, &tcp(addrs, sport, 80, seq, 5000, flags, &p), id),
            false,
        ));
        if acks && i % 4 == 3 {
            let back = addrs.reversed();
            let a = tcp(
                back,
                80,
                sport,
                5000,
                seq.wrapping_add(mss as u32),
                TCP_ACK,
                &[],
            );
            out.push((ip(back, 6, &a, v4), true));
        }
    }
    out
}

/// Which tunnel wraps a flow.
#[derive(Clone, Copy)]
enum Wrap {
    Vxlan { csum: bool },
    Geneve { csum: bool },
    Gre { csum: bool },
}

/// Wraps an inner IP packet: outer Ethernet + IPv4 + tunnel.
fn wrap(inner_ip: &[u8], inner_is_v6: bool, w: Wrap, flow: u32) -> Vec<u8> {
    let outer = Addrs::V4([192, 168, 0, 1], [192, 168, 0, 2 + (flow % 8) as u8]);
    let sport = 49152 + (flow as u16 * 37) % 16000;
    let inner_et: u16 = if inner_is_v6 { 0x86DD } else { 0x0800 };
    let v4 = V4Opts {
        id: 0,
        ..V4Opts::default()
    };
    let l3 = match w {
        Wrap::Vxlan { csum } => {
            let mut p = vec![0x08, 0, 0, 0, 0, 0x01, (flow % 250) as u8, 0];
            p.extend_from_slice(&eth(inner_et));
            p.extend_from_slice(inner_ip);
            ip(outer, 17, &udp(outer, sport, 4789, &p, csum), v4)
        }
        Wrap::Geneve { csum } => {
            let mut p = vec![0, 0, 0x65, 0x58, 0, 0x02, (flow % 250) as u8, 0];
            p.extend_from_slice(&eth(inner_et));
            p.extend_from_slice(inner_ip);
            ip(outer, 17, &udp(outer, sport, 6081, &p, csum), v4)
        }
        Wrap::Gre { csum } => {
            let mut g = if csum {
                vec![0x80, 0, 0, 0, 0, 0, 0, 0]
            } else {
                vec![0, 0, 0, 0]
            };
            g[2..4].copy_from_slice(&inner_et.to_be_bytes());
            g.extend_from_slice(inner_ip);
            if csum {
                let c = csum::fold(csum::partial(&g, Wsum::ZERO)).to_bytes();
                g[4..6].copy_from_slice(&c);
            }
            ip(outer, 47, &g, v4)
        }
    };
    let mut f = eth(0x0800);
    f.extend_from_slice(&l3);
    f
}

fn framed(l3: Vec<u8>, v6: bool) -> Vec<u8> {
    let mut f = eth(if v6 { 0x86DD } else { 0x0800 });
    f.extend_from_slice(&l3);
    f
}

/// One flow's frames in order, with their classes.
type Queue = Vec<(Vec<u8>, &'static str)>;

fn queues() -> Vec<Queue> {
    let mut qs: Vec<Queue> = Vec::new();
    // Bulk TCP over IPv4 and IPv6, with pure ACKs going the other way.
    for f in 0..4u32 {
        let a = Addrs::v4(1 + f as u8, 1);
        qs.push(
            bulk(a, f, 24, MSS4, true)
                .into_iter()
                .map(|(p, ack)| (framed(p, false), if ack { "ack" } else { "tcp4" }))
                .collect(),
        );
    }
    for f in 4..6u32 {
        let a = Addrs::v6(f as u8, 1);
        qs.push(
            bulk(a, f, 24, MSS6, true)
                .into_iter()
                .map(|(p, ack)| (framed(p, true), if ack { "ack" } else { "tcp6" }))
                .collect(),
        );
    }
    // Request/response: a SYN, then three exchanges of a small request and a reply.
    for f in 6..12u32 {
        let c = Addrs::v4(20 + f as u8, 2);
        let s = c.reversed();
        let sport = 41000 + f as u16;
        let mut q: Queue = Vec::new();
        let syn = tcp(c, sport, 443, 1, 0, TCP_SYN, &[]);
        q.push((framed(ip(c, 6, &syn, V4Opts::default()), false), "rr"));
        let (mut cseq, mut sseq) = (2u32, 9000u32);
        for i in 0..3 {
            let req = payload(f, i * 120, 120);
            let t = tcp(c, sport, 443, cseq, sseq, TCP_ACK | TCP_PSH, &req);
            q.push((framed(ip(c, 6, &t, V4Opts::default()), false), "rr"));
            cseq += 120;
            let resp = payload(f + 100, i * 600, 600);
            let t = tcp(s, 443, sport, sseq, cseq, TCP_ACK | TCP_PSH, &resp);
            q.push((framed(ip(s, 6, &t, V4Opts::default()), false), "rr"));
            sseq += 600;
        }
        qs.push(q);
    }
    // Plain UDP with checksums: same-size datagrams, a shorter last one (UDP GRO).
    {
        let a = Addrs::v4(40, 3);
        let mut q: Queue = Vec::new();
        for i in 0..12 {
            let len = if i == 11 { 400 } else { 1200 };
            let u = udp(a, 5000, 5001, &payload(12, i * 1200, len), true);
            q.push((framed(ip(a, 17, &u, V4Opts::default()), false), "udp4"));
        }
        qs.push(q);
    }
    // Tunnels: inner bulk TCP/IPv4 (one GENEVE flow carries IPv6).
    let tunnels: [(Wrap, &'static str, u32, bool); 8] = [
        (Wrap::Vxlan { csum: false }, "vxlan_zero_csum", 20, false),
        (Wrap::Vxlan { csum: false }, "vxlan_zero_csum", 21, false),
        (Wrap::Vxlan { csum: true }, "vxlan_csum", 22, false),
        (Wrap::Vxlan { csum: true }, "vxlan_csum", 23, false),
        (Wrap::Geneve { csum: false }, "geneve", 24, true),
        (Wrap::Geneve { csum: true }, "geneve_csum", 25, false),
        (Wrap::Gre { csum: false }, "gre", 26, false),
        (Wrap::Gre { csum: true }, "gre_csum", 27, false),
    ];
    for (w, class, f, v6) in tunnels {
        let a = if v6 {
            Addrs::v6(f as u8, 9)
        } else {
            Addrs::v4(f as u8, 9)
        };
        let mss = if v6 { MSS_TUNNEL - 20 } else { MSS_TUNNEL };
        qs.push(
            bulk(a, f, TUNNEL_SEGS, mss, false)
                .into_iter()
                .map(|(p, _)| (wrap(&p, v6, w, f), class))
                .collect(),
        );
    }
    qs.push(corrupt());
    // IPv4 with options (Router Alert): never merged.
    {
        let a = Addrs::v4(50, 4);
        let opts = [0x94, 0x04, 0x00, 0x00];
        let mut q: Queue = Vec::new();
        for i in 0..6u32 {
            let t = tcp(
                a,
                42000,
                80,
                1 + i * 1000,
                7,
                TCP_ACK,
                &payload(50, i as usize * 1000, 1000),
            );
            let o = V4Opts {
                id: i as u16,
                options: &opts,
                ..V4Opts::default()
            };
            q.push((framed(ip(a, 6, &t, o), false), "ipv4_opts"));
        }
        qs.push(q);
    }
    qs.push(fragments());
    qs
}

/// A TCP/IPv4 flow with two corrupted segments, a VXLAN frame whose inner TCP
/// checksum is wrong, a bad IPv4 header checksum and a bad UDP checksum.
fn corrupt() -> Queue {
    let a = Addrs::v4(60, 5);
    let mut q: Queue = bulk(a, 60, 8, MSS4, false)
        .into_iter()
        .enumerate()
        .map(|(i, (mut p, _))| {
            if i == 2 || i == 5 {
                let last = p.len() - 1;
                p[last] ^= 0x01; // payload bit flip after the checksum was computed
            }
            (
                framed(p, false),
                if i == 2 || i == 5 { "corrupt" } else { "tcp4" },
            )
        })
        .collect();
    let inner = Addrs::v4(61, 5);
    let mut t = tcp(inner, 43000, 80, 1, 1, TCP_ACK, &payload(61, 0, 500));
    t[30] ^= 0x10;
    q.push((
        wrap(
            &ip(inner, 6, &t, V4Opts::default()),
            false,
            Wrap::Vxlan { csum: false },
            61,
        ),
        "corrupt",
    ));
    let t = tcp(a, 43001, 80, 1, 1, TCP_ACK, &payload(62, 0, 300));
    let o = V4Opts {
        bad_header_csum: true,
        ..V4Opts::default()
    };
    q.push((framed(ip(a, 6, &t, o), false), "corrupt"));
    let mut u = udp(a, 6000, 6001, &payload(63, 0, 200), true);
    u[20] ^= 0xff;
    q.push((framed(ip(a, 17, &u, V4Opts::default()), false), "corrupt"));
    q
}

/// A 3000-byte UDP datagram in three IPv4 fragments, and one in two IPv6 fragments.
fn fragments() -> Queue {
    let a = Addrs::v4(70, 6);
    let dgram = udp(a, 7000, 7001, &payload(70, 0, 3000 - 8), true);
    let mut q: Queue = Vec::new();
    for (i, chunk) in dgram.chunks(1480).enumerate() {
        let more = (i + 1) * 1480 < dgram.len();
        let word = ((i * 1480 / 8) as u16) | if more { 0x2000 } else { 0 };
        let o = V4Opts {
            id: 0x7777,
            frag_word: Some(word),
            ..V4Opts::default()
        };
        q.push((framed(ip(a, 17, chunk, o), false), "frag"));
    }
    let b = Addrs::v6(71, 6);
    let dgram = udp(b, 7002, 7003, &payload(71, 0, 2000 - 8), true);
    for (i, chunk) in dgram.chunks(1448).enumerate() {
        let more = (i + 1) * 1448 < dgram.len();
        let mut fh = vec![17, 0, 0, 0, 0, 0, 0x12, 0x34];
        let word = ((i * 1448) as u16) | u16::from(more);
        fh[2..4].copy_from_slice(&word.to_be_bytes());
        fh.extend_from_slice(chunk);
        q.push((framed(ip(b, 44, &fh, V4Opts::default()), true), "frag"));
    }
    q
}

/// Frames a flow sends back to back before the next flow's turn.
pub const BURST: usize = 8;

/// The whole mix: flows interleaved in bursts of up to `BURST` frames per flow
/// (round robin), 2 microseconds apart.
pub fn build() -> Vec<Packet> {
    let mut qs: Vec<std::collections::VecDeque<(Vec<u8>, &'static str)>> =
        queues().into_iter().map(Into::into).collect();
    let mut out = Vec::new();
    let mut ts = 1_000_000u64;
    while qs.iter().any(|q| !q.is_empty()) {
        for q in qs.iter_mut() {
            for _ in 0..BURST {
                if let Some((bytes, class)) = q.pop_front() {
                    out.push(Packet {
                        bytes,
                        class,
                        ts_us: ts,
                    });
                    ts += 2;
                }
            }
        }
    }
    out
}
