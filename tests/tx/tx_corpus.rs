//! Real GSO/TSO super-frames captured on sending hosts (tcpdump's test
//! captures in ../shared/corpus): the decision offloads or segments them,
//! and software segmentation gives segments whose checksums verify from
//! scratch, plain and inside VXLAN/GENEVE. Ignored unless asked for
//! (`cargo test --test tx tx_corpus -- --ignored`): they need the corpus.
use crate::support::corpus;
use crate::support::tx as tx_support;

use netoffload::state::{CsumMeta, CsumState, PartialKind};
use netoffload::tx::{self, Device, Features, GsoInfo, SegmentCsum, SegmentReason, TxAction};
use netoffload::wire::{self, GsoType, LinkType, Net, consts::ethertype};
use tx_support::*;

/// The packets of a little-endian classic pcap file (Ethernet).
fn packets(name: &str) -> Vec<Vec<u8>> {
    let path = corpus::pcap_dir().join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..4],
        &[0xd4, 0xc3, 0xb2, 0xa1],
        "{name}: not a LE pcap"
    );
    let mut at = 24;
    let mut out = Vec::new();
    while at + 16 <= bytes.len() {
        let incl = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        out.push(bytes[at + 16..at + 16 + incl].to_vec());
        at += 16 + incl;
    }
    out
}

const MSS: u16 = 1448;

/// Verifies the outer IPv4 header and outer UDP checksum (when non-zero) of a
/// tunnelled frame from scratch, then the inner frame at `inner_eth`.
fn verify_tunnelled(seg: &[u8], outer: &wire::Layers, inner_eth: usize) -> Verdict {
    if outer.net == Net::Ipv4 && naive_fold(&seg[outer.l3..outer.l4], 0) != 0xffff {
        return Verdict::Bad;
    }
    let udp = &seg[outer.l4..];
    if udp[6] != 0 || udp[7] != 0 {
        let (src, dst) = match outer.net {
            Net::Ipv4 => (
                &seg[outer.l3 + 12..outer.l3 + 16],
                &seg[outer.l3 + 16..outer.l3 + 20],
            ),
            Net::Ipv6 => (
                &seg[outer.l3 + 8..outer.l3 + 24],
                &seg[outer.l3 + 24..outer.l3 + 40],
            ),
        };
        if naive_fold(udp, naive_pseudo(src, dst, 17, udp.len())) != 0xffff {
            return Verdict::Bad;
        }
    }
    verify_frame(&seg[inner_eth..])
}

fn split(
    frame: &[u8],
    plan: Result<tx::Segments, tx::TxError>,
    tunnel: Option<(&wire::Layers, &wire::Layers)>,
    gso: GsoInfo,
    csum: SegmentCsum,
) -> Vec<Vec<u8>> {
    let p = plan.unwrap();
    let mut store = vec![vec![0u8; p.max_len()]; p.count()];
    let mut refs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
    let l = wire::parse(frame, LinkType::Ethernet).unwrap();
    let p = match tunnel {
        None => tx::segment(frame, &l, gso, csum, &mut refs).unwrap(),
        Some((o, i)) => tx::segment_tunnel(frame, o, i, gso, csum, &mut refs).unwrap(),
    };
    (0..p.count())
        .map(|i| store[i][..p.len_of(i).unwrap()].to_vec())
        .collect()
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn plain_gso_captures_segment_into_verifying_segments() {
    for (name, t) in [
        ("tcpdump__gso-ipv4.pcap", GsoType::TCPV4),
        ("tcpdump__gso-ipv6.pcap", GsoType::TCPV6),
    ] {
        let pkts = packets(name);
        let f = &pkts[0];
        let l = wire::parse(f, LinkType::Ethernet).unwrap();
        let payload = l.payload_len();
        assert!(payload > 2 * MSS as usize, "{name}: a super-frame");
        let gso = GsoInfo::new(MSS, t);
        let meta = CsumMeta::from_state(CsumState::Partial {
            start: l.l4,
            offset: 16,
            kind: PartialKind::Inet,
        });
        // A TSO device takes it as is; a device without TSO gets it segmented.
        let tso = Features::HW_CSUM | Features::SG | Features::TSO | Features::TSO6;
        assert!(matches!(
            tx::decide(&meta, &l, Some(gso), &Device::new(tso)).unwrap(),
            TxAction::Offload { start, offset: 16, .. } if start == l.l4
        ));
        let a = tx::decide(&meta, &l, Some(gso), &Device::new(Features::empty())).unwrap();
        assert!(matches!(
            a,
            TxAction::Segment {
                csum: SegmentCsum::Compute,
                reason: SegmentReason::ChecksumNotOffloadable,
                ..
            }
        ));
        for csum in [SegmentCsum::Compute, SegmentCsum::Partial] {
            let segs = split(f, tx::plan(f, &l, gso, csum), None, gso, csum);
            assert_eq!(segs.len(), payload.div_ceil(MSS as usize));
            let mut total = 0;
            for (i, mut s) in segs.into_iter().enumerate() {
                let o = offsets(&s);
                total += o.end - o.payload;
                if csum == SegmentCsum::Partial {
                    let end = s.len();
                    device_fill(&mut s, o.l4, 16, end);
                }
                assert_eq!(
                    verify_frame(&s),
                    Verdict::Good,
                    "{name} {csum:?} segment {i}"
                );
            }
            assert_eq!(total, payload, "{name}: every payload byte once");
        }
    }
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn tunnelled_gso_captures_segment_into_verifying_segments() {
    for name in [
        "tcpdump__gso-ipv4-vxlan-ipv4.pcap",
        "tcpdump__gso-ipv6-vxlan-ipv6.pcap",
        "tcpdump__gso-ipv4-geneve-ipv6.pcap",
    ] {
        let pkts = packets(name);
        let f = &pkts[0];
        let outer = wire::parse(f, LinkType::Ethernet).unwrap();
        let udp_csum = f[outer.l4 + 6] != 0 || f[outer.l4 + 7] != 0;
        let geneve = name.contains("geneve");
        let tun_len = if geneve {
            8 + usize::from(f[outer.payload] & 0x3f) * 4
        } else {
            8
        };
        let inner_eth = outer.payload + tun_len;
        let inner_l3 = inner_eth + ETH_LEN;
        let et = if f[inner_l3] >> 4 == 6 {
            ethertype::IPV6
        } else {
            ethertype::IPV4
        };
        let inner = wire::parse_ip_at(f, inner_l3, et, LinkType::Ethernet, 0, [0; 2]).unwrap();
        let t = match inner.net {
            Net::Ipv4 => GsoType::TCPV4,
            Net::Ipv6 => GsoType::TCPV6,
        } | if udp_csum {
            GsoType::UDP_TUNNEL_CSUM
        } else {
            GsoType::UDP_TUNNEL
        };
        let gso = GsoInfo::new(MSS, t);
        for csum in [SegmentCsum::Compute, SegmentCsum::Partial] {
            let plan = tx::plan_tunnel(f, &outer, &inner, gso, csum);
            let segs = split(f, plan, Some((&outer, &inner)), gso, csum);
            assert_eq!(
                segs.len(),
                inner.payload_len().div_ceil(MSS as usize),
                "{name}"
            );
            for (i, mut s) in segs.into_iter().enumerate() {
                if csum == SegmentCsum::Partial {
                    let end = s.len();
                    device_fill(&mut s, inner.l4, 16, end);
                }
                let so = wire::parse(&s, LinkType::Ethernet).unwrap();
                assert_eq!(so.end, s.len(), "{name}: outer length of segment {i}");
                assert_eq!(
                    verify_tunnelled(&s, &so, inner_eth),
                    Verdict::Good,
                    "{name} {csum:?} segment {i}"
                );
            }
        }
    }
}

/// BIG TCP over IPv6: an 80000-byte payload with a Hop-by-Hop Jumbo Payload
/// option. Segments leave the Jumbo header out (`ipv6_hopopt_jumbo_remove`)
/// and verify; the capture's checksum field is the Partial seed over the
/// full 32-bit length.
#[test]
#[ignore = "needs ../shared/corpus"]
fn bigtcp_ipv6_jumbogram_segments_without_the_jumbo_header() {
    let name = "tcpdump__bigtcp-ipv6-hbh.pcap";
    let pkts = packets(name);
    let f = &pkts[0];
    let l = wire::parse(f, LinkType::Ethernet).unwrap();
    assert_eq!(l.l4 - l.l3, 48, "{name}: IPv6 + 8-byte Hop-by-Hop");
    let gso = GsoInfo::new(MSS, GsoType::TCPV6);
    let segs = split(
        f,
        tx::plan(f, &l, gso, SegmentCsum::Compute),
        None,
        gso,
        SegmentCsum::Compute,
    );
    assert_eq!(segs.len(), l.payload_len().div_ceil(MSS as usize));
    let mut total = 0;
    for (i, s) in segs.iter().enumerate() {
        assert_eq!(s[14 + 6], 6, "segment {i}: next header TCP, no Hop-by-Hop");
        let o = offsets(s);
        assert_eq!(o.end, s.len(), "segment {i}: payload length");
        total += o.end - o.payload;
        assert_eq!(verify_frame(s), Verdict::Good, "segment {i}");
    }
    assert_eq!(total, l.payload_len());
}

/// The TCP checksum fields of the captured super-frames hold exactly the
/// seed our `Partial` state means (`~csum_tcpudp_magic(len, ..)` over the full
/// L4 length), computed here naively.
#[test]
#[ignore = "needs ../shared/corpus"]
fn captured_offload_fields_are_partial_seeds() {
    for name in [
        "tcpdump__gso-ipv4.pcap",
        "tcpdump__gso-ipv6.pcap",
        "tcpdump__bigtcp-ipv6-hbh.pcap",
    ] {
        let pkts = packets(name);
        let f = &pkts[0];
        let l = wire::parse(f, LinkType::Ethernet).unwrap();
        let alen = if l.net == Net::Ipv4 { 4 } else { 16 };
        let src = &f[l.pseudo_src..l.pseudo_src + alen];
        let dst = &f[l.pseudo_dst..l.pseudo_dst + alen];
        let seed = naive_fold(&[], naive_pseudo(src, dst, 6, l.end - l.l4));
        assert_eq!(
            u16::from_be_bytes([f[l.l4 + 16], f[l.l4 + 17]]),
            seed,
            "{name}"
        );
        // So a device finishing it at (l4, 16) makes the super-frame verify.
        let mut g = f.clone();
        let end = g.len();
        device_fill(&mut g, l.l4, 16, end);
        // (The naive verifier reads the 16-bit IP length, which a jumbogram lacks.)
        if l.net == Net::Ipv4 || f[l.l3 + 4..l.l3 + 6] != [0, 0] {
            assert_eq!(verify_frame(&g), Verdict::Good, "{name}");
        }
    }
}
