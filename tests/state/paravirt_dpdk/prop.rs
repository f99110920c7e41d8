//! Random transmit requests on random packets: `tx_to_meta` accepts exactly
//! what an independent predicate, written here from DPDK's rules and the
//! packet's known layout, accepts; every accepted `Partial` is sound by the
//! from-scratch oracle; a refusal changes nothing. And every request
//! `meta_to_tx` makes passes DPDK's rules and comes back to the same state.

use super::common::oracle::{self, Link, View, naive};
use super::common::packets::{self, L4};
use super::contract::{vxlan, zero_ip_header_csums};
use super::dpdk_model::{self as model, Release};
use netoffload::state::paravirt::dpdk::{self, TxOffload, TxSeedMode};
use netoffload::state::paravirt::setup::SeedCheck;
use netoffload::state::paravirt::{MetaErrorKind, Rule};
use netoffload::state::{CsumFlags, CsumMeta, CsumState, PartialKind};
use netoffload::wire::{self, GsoKind, GsoParams, LinkType};
use proptest::prelude::*;

/// One IP header of the packet, as the builder laid it out.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hdr {
    pub(super) l3: usize,
    pub(super) l4: usize,
    pub(super) end: usize,
    pub(super) v6: bool,
    pub(super) proto: u8,
    /// Transport header length (TCP with options, UDP 8, SCTP 12, ICMP 8).
    pub(super) hdr_len: usize,
}

/// The packet: bytes, link, its IP headers outermost first.
pub(super) struct Pkt {
    pub(super) bytes: Vec<u8>,
    pub(super) link: LinkType,
    pub(super) hdrs: Vec<Hdr>,
}

fn l4_facts(l4: L4, v6: bool) -> (u8, usize) {
    match l4 {
        L4::Tcp { opt_words } => (6, 20 + usize::from(opt_words) * 4),
        L4::Udp | L4::UdpZero => (17, 8),
        L4::Sctp => (132, 12),
        L4::Icmp => (if v6 { 58 } else { 1 }, 8),
    }
}

pub(super) fn make_pkt(mut spec: packets::Spec, tunnel: Option<bool>) -> Pkt {
    if tunnel.is_some() {
        spec.raw_ip = false;
    }
    let (bytes, built) = packets::build(&spec);
    let (proto, hdr_len) = l4_facts(spec.l4, spec.v6);
    let inner = Hdr {
        l3: built.l3,
        l4: built.l4,
        end: built.end,
        v6: spec.v6,
        proto,
        hdr_len,
    };
    match tunnel {
        None => Pkt {
            bytes,
            link: if spec.raw_ip {
                LinkType::RawIp
            } else {
                LinkType::Ethernet
            },
            hdrs: vec![inner],
        },
        Some(outer_v6) => {
            let v = vxlan(&bytes, outer_v6, true);
            let base = v.outer.outer_l4 + 16;
            let outer = Hdr {
                l3: 14,
                l4: v.outer.outer_l4,
                end: v.frame.len(),
                v6: outer_v6,
                proto: 17,
                hdr_len: 8,
            };
            let shifted = Hdr {
                l3: inner.l3 + base,
                l4: inner.l4 + base,
                end: inner.end + base,
                ..inner
            };
            Pkt {
                bytes: v.frame,
                link: LinkType::Ethernet,
                hdrs: vec![outer, shifted],
            }
        }
    }
}

/// The pseudo-header seed of `h` (folded, not complemented), with or
/// without the length; addresses from the fixed IP header.
fn seed(b: &[u8], h: &Hdr, with_len: bool) -> u16 {
    let (s, d) = if h.v6 {
        (&b[h.l3 + 8..h.l3 + 24], &b[h.l3 + 24..h.l3 + 40])
    } else {
        (&b[h.l3 + 12..h.l3 + 16], &b[h.l3 + 16..h.l3 + 20])
    };
    let len = if with_len { h.end - h.l4 } else { 0 };
    naive::fold(naive::pseudo(s, d, h.proto, len))
}

fn csum_offset(proto: u8) -> Option<usize> {
    match proto {
        6 => Some(16),
        17 => Some(6),
        132 => Some(8),
        _ => None,
    }
}

/// What the request must give.
#[derive(Debug, PartialEq, Eq)]
enum Expect {
    /// Refused by DPDK's own rules: the error names the rule.
    Einval(model::Einval),
    Refused,
    NoState,
    Partial {
        start: usize,
        offset: usize,
        seg: Option<GsoKind>,
    },
}

/// DPDK's rules (the model) and this crate's documented checks, on the
/// packet's known layout.
fn predicate(p: &Pkt, tx: &TxOffload, mode: TxSeedMode) -> Expect {
    use model::*;
    let f = tx.ol_flags;
    let on = |b: u64| f & b != 0;
    if let Some(e) = validate(f, tx.tso_segsz) {
        return Expect::Einval(e);
    }
    let (tcp_seg, udp_seg) = (on(TCP_SEG), on(UDP_SEG));
    let l4 = f & L4_MASK;
    if (tcp_seg && udp_seg)
        || (tcp_seg && l4 != 0 && l4 != TCP_CKSUM)
        || (udp_seg && l4 != UDP_CKSUM)
        || ((tcp_seg || udp_seg) && tx.tso_segsz == 0)
    {
        return Expect::Refused;
    }
    let tunnel = (f & TUNNEL_MASK) >> 45;
    if !matches!(tunnel, 0..=8 | 0xD | 0xE) {
        return Expect::Refused;
    }
    let outer_flags = on(OUTER_IPV4 | OUTER_IPV6);
    let outer = if outer_flags {
        usize::from(tx.outer_l2_len) + usize::from(tx.outer_l3_len)
    } else {
        0
    };
    let l3 = outer + usize::from(tx.l2_len);
    let start = l3 + usize::from(tx.l3_len);
    let prepared = IP_CKSUM | L4_MASK | TCP_SEG | OUTER_IP_CKSUM | OUTER_UDP_CKSUM;
    if on(prepared) && start + usize::from(tx.l4_len) > p.bytes.len() {
        return Expect::Refused;
    }
    let eff = if tcp_seg { TCP_CKSUM } else { l4 };
    if eff == 0 {
        return Expect::NoState;
    }
    if on(IPV4) && on(IPV6) {
        return Expect::Refused;
    }
    // Without outer flags the frame's own (outermost) IP header; with them
    // any IP header of the packet at that offset.
    let candidates = if outer_flags {
        &p.hdrs[..]
    } else {
        &p.hdrs[..1]
    };
    let Some(h) = candidates.iter().find(|h| h.l3 == l3) else {
        return Expect::Refused;
    };
    let want_proto = match eff {
        TCP_CKSUM => 6,
        UDP_CKSUM => 17,
        _ => 132,
    };
    if h.v6 != on(IPV6) || start != h.l4 || h.proto != want_proto {
        return Expect::Refused;
    }
    let seg = match (tcp_seg, udp_seg) {
        (true, _) if on(IPV4) => Some(GsoKind::TcpV4),
        (true, _) => Some(GsoKind::TcpV6),
        (_, true) => Some(GsoKind::UdpL4),
        _ => None,
    };
    // The NIC sums to the end of the data: zeros add nothing to an Internet
    // checksum but change a CRC32c.
    let pad = &p.bytes[h.end..];
    if pad.iter().any(|&b| b != 0) || (h.proto == 132 && !pad.is_empty()) {
        return Expect::Refused;
    }
    if seg.is_some() && usize::from(tx.l4_len) != h.hdr_len {
        return Expect::Refused;
    }
    let offset = csum_offset(h.proto).unwrap();
    if mode == TxSeedMode::Verify && h.proto != 132 {
        let at = h.l4 + offset;
        let field = u16::from_be_bytes([p.bytes[at], p.bytes[at + 1]]);
        let full = seed(&p.bytes, h, true);
        let less = seed(&p.bytes, h, false);
        let ok = if seg.is_some() {
            field == less || (udp_seg && field == full)
        } else {
            field == full
        };
        if !ok {
            return Expect::Refused;
        }
    }
    Expect::Partial { start, offset, seg }
}

/// The crate's name for each `-EINVAL` rule.
fn rule_of(e: model::Einval) -> Rule {
    match e {
        model::Einval::IpChecksumOnIpv6 => Rule::DpdkIpChecksumOnIpv6,
        model::Einval::L4WithoutIpVersion => Rule::DpdkL4WithoutIpVersion,
        model::Einval::TsoWithoutSegmentSize => Rule::DpdkTsoWithoutSegmentSize,
        model::Einval::Ipv4TsoWithoutIpChecksum => Rule::DpdkIpv4TsoWithoutIpChecksum,
        model::Einval::OuterIpChecksumWithoutOuterIpv4 => Rule::DpdkOuterIpChecksumWithoutOuterIpv4,
    }
}

/// Bits a flip may toggle (every transmit flag this mapping reads, plus one
/// it ignores and the top tunnel bit, which makes undefined tunnel types).
pub(super) const FLIP_BITS: [u64; 17] = [
    model::UDP_SEG,
    model::TCP_SEG,
    1 << 52,
    1 << 53,
    model::IP_CKSUM,
    model::IPV4,
    model::IPV6,
    model::VLAN,
    model::OUTER_IP_CKSUM,
    model::OUTER_IPV4,
    model::OUTER_IPV6,
    model::OUTER_UDP_CKSUM,
    1 << 45,
    1 << 48,
    model::TCP_SEG | model::IP_CKSUM,
    model::UDP_SEG | model::UDP_CKSUM,
    model::IPV4 | model::IPV6,
];

/// A request that fits the packet (the innermost header), before flips.
pub(super) fn fitting(p: &Pkt, tso: bool, ip_csum: bool, outer_udp: bool) -> TxOffload {
    let h = *p.hdrs.last().unwrap();
    let mut f = if h.v6 { model::IPV6 } else { model::IPV4 };
    if ip_csum && !h.v6 {
        f |= model::IP_CKSUM;
    }
    f |= match (h.proto, tso) {
        (6, true) => model::TCP_SEG | model::TCP_CKSUM | if h.v6 { 0 } else { model::IP_CKSUM },
        (6, false) => model::TCP_CKSUM,
        (17, true) => model::UDP_SEG | model::UDP_CKSUM,
        (17, false) => model::UDP_CKSUM,
        (132, _) => model::SCTP_CKSUM,
        _ => model::TCP_CKSUM,
    };
    let mut tx = TxOffload {
        l3_len: (h.l4 - h.l3) as u16,
        l4_len: h.hdr_len as u16,
        tso_segsz: 1000,
        ..TxOffload::default()
    };
    if p.hdrs.len() > 1 {
        let o = p.hdrs[0];
        f |= 1 << 45; // VXLAN
        f |= if o.v6 {
            model::OUTER_IPV6
        } else {
            model::OUTER_IPV4 | model::OUTER_IP_CKSUM
        };
        if outer_udp {
            f |= model::OUTER_UDP_CKSUM;
        }
        tx.outer_l2_len = o.l3 as u16;
        tx.outer_l3_len = (o.l4 - o.l3) as u16;
        tx.l2_len = (h.l3 - o.l4) as u16;
    } else {
        tx.l2_len = h.l3 as u16;
    }
    tx.ol_flags = f;
    tx
}

/// Packets from the shared builder; shorter payloads, and Ethernet padding
/// zeroed three times in four (non-zero padding is refused).
pub(super) fn spec_strategy() -> impl Strategy<Value = packets::Spec> {
    (
        packets::arb_spec(),
        0usize..200,
        proptest::bool::weighted(0.75),
    )
        .prop_map(|(mut s, n, zero_pad)| {
            s.payload.truncate(n.max(s.payload.len() / 8));
            if zero_pad {
                s.pad.iter_mut().for_each(|b| *b = 0);
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn tx_to_meta_accepts_exactly_dpdk_and_the_packet_and_is_sound(
        spec in spec_strategy(),
        tunnel in prop_oneof![Just(None), any::<bool>().prop_map(Some)],
        fill in 0u8..4,
        junk in any::<u16>(),
        tso in any::<bool>(),
        ip_csum in any::<bool>(),
        outer_udp in any::<bool>(),
        flips in proptest::collection::vec(0usize..FLIP_BITS.len(), 0..3)
            .prop_map(|v| if v.len() == 1 { Vec::new() } else { v }),
        random_flags in proptest::option::weighted(0.15, any::<u64>()),
        nudge in proptest::option::weighted(0.3, (0usize..6, -4i32..=4)),
        segsz_zero in proptest::bool::weighted(0.1),
        prepare in any::<bool>(),
    ) {
        let mut p = make_pkt(spec, tunnel);
        let h = *p.hdrs.last().unwrap();
        // The field as an application may leave it.
        if let Some(off) = csum_offset(h.proto).filter(|_| h.proto != 132) {
            let v = match fill {
                0 => None,
                1 => Some(seed(&p.bytes, &h, true)),
                2 => Some(seed(&p.bytes, &h, false)),
                _ => Some(junk),
            };
            if let Some(v) = v {
                p.bytes[h.l4 + off..h.l4 + off + 2].copy_from_slice(&v.to_be_bytes());
            }
        }
        let mut tx = fitting(&p, tso, ip_csum, outer_udp);
        for i in flips {
            tx.ol_flags ^= FLIP_BITS[i];
        }
        if let Some(r) = random_flags {
            tx.ol_flags = r & (model::OFFLOAD_MASK | 1 << 40);
        }
        if segsz_zero {
            tx.tso_segsz = 0;
        }
        if let Some((which, delta)) = nudge {
            let slot = match which {
                0 => &mut tx.l2_len,
                1 => &mut tx.l3_len,
                2 => &mut tx.l4_len,
                3 => &mut tx.outer_l2_len,
                4 => &mut tx.outer_l3_len,
                _ => &mut tx.tso_segsz,
            };
            *slot = (i32::from(*slot) + delta).clamp(0, 511) as u16;
        }
        let mode = if prepare { TxSeedMode::Prepare } else { TxSeedMode::Verify };
        let want = predicate(&p, &tx, mode);
        let mut f = p.bytes.clone();
        let got = dpdk::tx_to_meta(&tx, &mut f, p.link, mode);
        let link = if p.link == LinkType::RawIp { Link::RawIp } else { Link::Ethernet };
        match (&want, &got) {
            (Expect::Refused, Err(_)) => prop_assert_eq!(&f, &p.bytes, "a refusal changed the frame"),
            (Expect::Einval(e), Err(got)) => {
                prop_assert_eq!(got.kind, MetaErrorKind::Forbidden(rule_of(*e)));
                prop_assert_eq!(&f, &p.bytes, "a refusal changed the frame");
            }
            (Expect::NoState, Ok(g)) => {
                prop_assert_eq!(&g.meta, &CsumMeta::NONE);
                prop_assert_eq!(&f, &p.bytes);
            }
            (Expect::Partial { start, offset, seg }, Ok(g)) => {
                let kind = if *offset == 8 { PartialKind::Crc32c } else { PartialKind::Inet };
                prop_assert_eq!(
                    g.meta.state(),
                    CsumState::Partial { start: *start, offset: *offset, kind }
                );
                prop_assert_eq!(g.meta.flags(), CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID);
                prop_assert_eq!(g.seg, seg.map(|k| (k, tx.tso_segsz)));
                let want_seed = match (kind, mode) {
                    (PartialKind::Crc32c, _) => g.seed,
                    (_, TxSeedMode::Verify) => SeedCheck::Verified,
                    (_, TxSeedMode::Prepare) => SeedCheck::Recalculated,
                };
                prop_assert_eq!(g.seed, want_seed);
                // Sound: filling it with the oracle's from-scratch sum gives a
                // correct checksum, at a checksum the oracle knows.
                let sites = oracle::sites(&f, link);
                prop_assert!(sites.iter().any(|s| s.l4 == *start && s.field == start + offset));
                let checked = oracle::check(&View::new(&f, link, 0, *start), &g.meta);
                prop_assert!(checked.is_ok(), "{:?}", checked);
                // Only the field changed.
                let mut rest = f.clone();
                rest[start + offset..start + offset + 2]
                    .copy_from_slice(&p.bytes[start + offset..start + offset + 2]);
                prop_assert_eq!(&rest, &p.bytes);
                prop_assert_eq!(g.nic.ip, tx.ol_flags & model::IP_CKSUM != 0);
                prop_assert_eq!(g.nic.outer_udp, tx.ol_flags & model::OUTER_UDP_CKSUM != 0);
            }
            _ => prop_assert!(false, "predicate {:?}, got {:?} for {:?}", want, got, tx),
        }
    }

    #[test]
    fn meta_to_tx_requests_pass_dpdk_and_come_back(
        spec in spec_strategy(),
        tunnel in prop_oneof![Just(None), any::<bool>().prop_map(Some)],
        tso in any::<bool>(),
        ip_csum in any::<bool>(),
        outer_udp in any::<bool>(),
        gso_size in 1u16..2000,
        pad_junk in any::<bool>(),
    ) {
        let mut spec = spec;
        if !pad_junk {
            spec.pad.iter_mut().for_each(|b| *b = 0);
        }
        let p = make_pkt(spec, tunnel);
        let h = *p.hdrs.last().unwrap();
        prop_assume!(matches!(h.proto, 6 | 17 | 132));
        let offset = csum_offset(h.proto).unwrap();
        let kind = if h.proto == 132 { PartialKind::Crc32c } else { PartialKind::Inet };
        let mut linux = p.bytes.clone();
        if kind == PartialKind::Inet {
            let s = seed(&linux, &h, true);
            linux[h.l4 + offset..h.l4 + offset + 2].copy_from_slice(&s.to_be_bytes());
        }
        let state = CsumState::Partial { start: h.l4, offset, kind };
        let layers = wire::parse_ip_at(
            &linux, h.l3, if h.v6 { 0x86DD } else { 0x0800 }, p.link, 0, [0; 2],
        ).unwrap();
        let outer = (p.hdrs.len() > 1).then(|| {
            let v = vxlan(&[], p.hdrs[0].v6, true).outer;
            dpdk::OuterTx { outer_udp_csum: outer_udp, ..v }
        });
        let gso = (tso && h.proto != 132).then_some(GsoParams {
            kind: match (h.proto, h.v6) {
                (17, _) => GsoKind::UdpL4,
                (_, false) => GsoKind::TcpV4,
                (_, true) => GsoKind::TcpV6,
            },
            ecn: false,
            gso_size,
            hdr_len: h.l4 + h.hdr_len,
            segs: 2,
        });
        let mut ours = linux.clone();
        let got = dpdk::meta_to_tx(CsumMeta::from_state(state), &mut ours, &layers, outer, gso, ip_csum);
        let pad = &p.bytes[h.end..];
        if pad.iter().any(|&b| b != 0) || (h.proto == 132 && !pad.is_empty()) {
            // The NIC would sum the padding in: refused, nothing written.
            prop_assert!(got.is_err());
            prop_assert_eq!(&ours, &linux);
            return Ok(());
        }
        let tx = got.unwrap();
        prop_assert_eq!(model::validate(tx.ol_flags, tx.tso_segsz), None, "{:?}", tx);
        // What Intel's prepare writes (later release: USO length-less), IPv4
        // header checksums aside; not with IPv6 extension headers, where
        // DPDK takes the protocol and length from the fixed header.
        let ext = p.hdrs.iter().any(|x| x.v6 && x.l4 != x.l3 + 40);
        if !ext {
            let mut prepared = linux.clone();
            model::intel_prepare(&mut prepared, &tx, Release::Later).unwrap();
            let mut expect = ours.clone();
            zero_ip_header_csums(&mut expect, &tx);
            prop_assert_eq!(&prepared, &expect);
        }
        let back = dpdk::tx_to_meta(&tx, &mut ours, p.link, TxSeedMode::Verify).unwrap();
        prop_assert_eq!(back.meta.state(), state);
        prop_assert_eq!(back.seg, gso.map(|g| (g.kind, gso_size)));
        if let Some(o) = outer.filter(|o| o.outer_udp_csum) {
            let at = o.outer_l4 + 6;
            linux[at..at + 2].copy_from_slice(&ours[at..at + 2]);
        }
        prop_assert_eq!(ours, linux);
    }
}
