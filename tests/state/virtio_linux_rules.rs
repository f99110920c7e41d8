//! Linux's acceptance rules for a virtio-net header, field by field: every rule
//! of `__virtio_net_hdr_to_skb`, `skb_partial_csum_set`, tun's
//! `tun_vnet_hdr_get` / `tun_get_user` and the virtio_net driver's receive
//! checks is a named case that Linux refuses and `to_meta` must refuse (under
//! every seed policy, parsed frame or not), next to the boundary Linux accepts,
//! which `to_meta` accepts. Where the crate is deliberately stricter, the case
//! says so. The independent model of Linux (tests/state/virtio_linux_rules/linux.rs)
//! is checked against each case, then against `to_meta` on random headers.

mod linux;
use crate::support::paravirt as support;

use netoffload::state::paravirt::setup::{SeedCheck, SeedSkip};
use netoffload::state::paravirt::virtio::{
    DataValidPolicy, Direction, GsoOutcome, GuestFrame, HdrLayout, Inbound, PeerFeatures,
    SeedPolicy, VirtioFlags, VirtioNetHdr, VirtioPolicy, gso_type,
};
use netoffload::state::paravirt::{BoundaryError, MetaErrorKind, MetaField, Rule};
use netoffload::state::{CsumFlags, CsumMeta, CsumState, PartialKind};
use netoffload::wire::{GsoKind, GsoParams, LinkType};
use proptest::prelude::*;
use support::{Spec, build, make_partial, needs_csum};

/// Every policy a rule must hold under: both directions, both seed policies.
fn policies(link: LinkType) -> Vec<VirtioPolicy> {
    let mut v = Vec::new();
    for base in [VirtioPolicy::GUEST_TX, VirtioPolicy::DRIVER_RX] {
        for seed in [SeedPolicy::Verify, SeedPolicy::Trust] {
            v.push(VirtioPolicy { link, seed, ..base });
        }
    }
    v
}

fn tap_policies(link: LinkType) -> Vec<VirtioPolicy> {
    policies(link)
        .into_iter()
        .filter(|p| p.direction == Direction::FromDriver)
        .collect()
}

fn model_hdr(h: &VirtioNetHdr) -> linux::Hdr {
    linux::Hdr {
        flags: h.flags.bits(),
        gso_type: h.gso_type,
        hdr_len: h.hdr_len,
        gso_size: h.gso_size,
        csum_start: h.csum_start,
        csum_offset: h.csum_offset,
    }
}

fn model_link(link: LinkType) -> linux::Link {
    match link {
        LinkType::Ethernet => linux::Link::Ethernet,
        LinkType::RawIp => linux::Link::RawIp,
    }
}

fn model_side(p: &VirtioPolicy) -> linux::Side {
    match p.direction {
        Direction::FromDriver => linux::Side::Tun,
        Direction::FromDevice => linux::Side::Driver,
    }
}

/// What the model says Linux does with `h` on `frame` under `p`.
fn linux_says(h: &VirtioNetHdr, frame: &[u8], p: &VirtioPolicy) -> Option<&'static str> {
    linux::linux_refuses(
        &model_hdr(h),
        frame,
        model_link(p.link),
        model_side(p),
        p.rsc_ext,
    )
}

/// Every Linux rule `h` breaks on `frame` under `p`, in the kernel's order.
fn linux_breaks(h: &VirtioNetHdr, frame: &[u8], p: &VirtioPolicy) -> Vec<&'static str> {
    let mut v = Vec::new();
    linux::linux_rules(
        &model_hdr(h),
        frame,
        model_link(p.link),
        model_side(p),
        p.rsc_ext,
        &mut |rule| v.push(rule),
    );
    v
}

/// Linux refuses `h` (the rule named `linux_rule` is broken, perhaps after
/// another that Linux checks first) and so does `to_meta`, with `want`, under
/// every policy in `ps`.
fn refused(
    h: VirtioNetHdr,
    frame: &[u8],
    ps: &[VirtioPolicy],
    linux_rule: &str,
    want: BoundaryError,
) {
    assert!(!ps.is_empty());
    for p in ps {
        let broken = linux_breaks(&h, frame, p);
        assert!(broken.contains(&linux_rule), "model: {broken:?}, {p:?}");
        assert_eq!(h.to_meta(frame, p), Err(want), "{h:?} {p:?}");
    }
}

/// Linux accepts `h` and so does `to_meta`, under every policy in `ps`.
fn accepted(h: VirtioNetHdr, frame: &[u8], ps: &[VirtioPolicy]) -> Vec<Inbound> {
    ps.iter()
        .map(|p| {
            assert_eq!(linux_says(&h, frame, p), None, "model, {p:?}");
            match h.to_meta(frame, p) {
                Ok(got) => got,
                Err(e) => panic!("{h:?} refused under {p:?}: {e:?}"),
            }
        })
        .collect()
}

/// A 42-byte ARP request: Ethernet, not IP, so it does not parse.
fn arp() -> Vec<u8> {
    let mut f = vec![0xFF; 6];
    f.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
    f.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    f.extend_from_slice(&[2, 0, 0, 0, 0, 1, 10, 0, 0, 1]);
    f.extend_from_slice(&[0, 0, 0, 0, 0, 0, 10, 0, 0, 2]);
    assert_eq!(f.len(), 42);
    f
}

/// An Ethernet frame that does not parse (EtherType 0x88B5, local
/// experimental), `len` bytes long.
fn opaque(len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len).map(|i| i as u8).collect();
    f[12..14].copy_from_slice(&[0x88, 0xB5]);
    f
}

fn csum(start: u16, offset: u16) -> VirtioNetHdr {
    VirtioNetHdr {
        flags: VirtioFlags::NEEDS_CSUM,
        csum_start: start,
        csum_offset: offset,
        ..VirtioNetHdr::ZERO
    }
}

fn gso(spec: Spec, gso_type: u8, gso_size: u16) -> VirtioNetHdr {
    VirtioNetHdr {
        gso_type,
        gso_size,
        ..needs_csum(spec)
    }
}

fn tcp4_partial(payload: usize) -> (Spec, Vec<u8>) {
    let spec = Spec::tcp4(payload);
    (spec, make_partial(build(spec), spec))
}

// ---- __virtio_net_hdr_to_skb: the GSO type and size ----

#[test]
fn gso_type_unknown_is_refused() {
    let (spec, frame) = tcp4_partial(3000);
    // 2 and 6 are unassigned, 0x80 is ECN alone, 0x21 / 0x41 carry the UDP
    // tunnel bits (virtio_net_hdr_tnl_to_skb: not negotiated).
    for t in [2u8, 6, 0x80, 0x21, 0x41, 0x7F] {
        refused(
            gso(spec, t, 1000),
            &frame,
            &policies(spec.link()),
            "__virtio_net_hdr_to_skb: unknown gso_type",
            BoundaryError::unsupported(MetaField::VirtioGsoType, t as u64),
        );
    }
}

#[test]
fn gso_size_zero_is_refused() {
    let (spec, frame) = tcp4_partial(3000);
    refused(
        gso(spec, gso_type::TCPV4, 0),
        &frame,
        &policies(spec.link()),
        "__virtio_net_hdr_to_skb: gso_size == 0",
        BoundaryError::new(MetaField::VirtioGsoSize, MetaErrorKind::Zero),
    );
    accepted(
        gso(spec, gso_type::TCPV4, 1),
        &frame,
        &policies(spec.link()),
    );
}

#[test]
fn gso_size_gso_by_frags_is_refused() {
    let (spec, frame) = tcp4_partial(3000);
    refused(
        gso(spec, gso_type::TCPV4, 0xFFFF),
        &frame,
        &policies(spec.link()),
        "gso_size == GSO_BY_FRAGS",
        BoundaryError::too_large(MetaField::VirtioGsoSize, 0xFFFF, 0xFFFE),
    );
    accepted(
        gso(spec, gso_type::TCPV4, 0xFFFE),
        &frame,
        &policies(spec.link()),
    );
}

// ---- NEEDS_CSUM: pskb_may_pull, skb_partial_csum_set, nh_min_len ----

/// The reproduction: an ARP frame with `csum_start` 14 / offset 16 or
/// 0 / 12 (a fill would overwrite the EtherType), refused by a tap with EINVAL.
#[test]
fn csum_start_below_nh_min_len_is_refused_on_a_frame_that_does_not_parse() {
    let frame = arp();
    for (start, offset) in [(14u16, 16u16), (0, 12), (0, 0), (19, 2)] {
        refused(
            csum(start, offset),
            &frame,
            &policies(LinkType::Ethernet),
            "skb_transport_offset < nh_min_len",
            BoundaryError::too_small(MetaField::VirtioCsumStart, start as usize, 34),
        );
    }
}

/// The boundary: `nh_min_len` past the network header is accepted on a frame
/// that does not parse, the seed unchecked (Linux never reads it).
#[test]
fn csum_start_at_nh_min_len_past_the_network_header_is_accepted() {
    let frame = arp();
    for got in accepted(csum(34, 0), &frame, &policies(LinkType::Ethernet)) {
        assert_eq!(got.seed, Some(SeedCheck::Skipped(SeedSkip::Unparsed)));
        assert!(matches!(
            got.meta.state(),
            CsumState::Partial {
                start: 34,
                offset: 0,
                ..
            }
        ));
        assert!(got.meta.is_blank() && !got.meta.data_valid());
    }
    // Raw IP (an L3 TUN): the network header is the frame start.
    let mut raw = vec![0x45u8; 40];
    raw[2..4].copy_from_slice(&60u16.to_be_bytes()); // longer than the frame: no parse
    let ps = policies(LinkType::RawIp);
    accepted(csum(20, 0), &raw, &ps);
    for p in &ps {
        assert_eq!(
            csum(19, 0).to_meta(&raw, p),
            Err(BoundaryError::too_small(MetaField::VirtioCsumStart, 19, 20))
        );
    }
}

/// `GSO_TCPV6` raises `nh_min_len` to 40 (`sizeof(struct ipv6hdr)`); on an
/// L3 TUN the frame starts with the IPv6 header, so Linux's count and ours agree.
#[test]
fn csum_start_below_nh_min_len_of_tcpv6_is_refused() {
    let spec = Spec {
        raw_ip: true,
        ..Spec::tcp6(3000)
    };
    let frame = make_partial(build(spec), spec);
    let mut h = gso(spec, gso_type::TCPV6, 1000);
    h.csum_start = 39;
    refused(
        h,
        &frame,
        &policies(spec.link()),
        "skb_transport_offset < nh_min_len",
        BoundaryError::too_small(MetaField::VirtioCsumStart, 39, 40),
    );
    accepted(
        gso(spec, gso_type::TCPV6, 1000),
        &frame,
        &policies(spec.link()),
    );
}

/// `pskb_may_pull(csum_start + max(thlen, csum_offset + 2))`: the checksum
/// field must lie inside the frame.
#[test]
fn csum_field_beyond_the_frame_is_refused() {
    let frame = opaque(60);
    refused(
        csum(40, 19),
        &frame,
        &policies(LinkType::Ethernet),
        "pskb_may_pull(csum_start + max(thlen, csum_offset + 2))",
        BoundaryError::out_of_packet(MetaField::VirtioCsumOffset, 61, 60),
    );
    refused(
        csum(60, 0),
        &frame,
        &policies(LinkType::Ethernet),
        "pskb_may_pull(csum_start + max(thlen, csum_offset + 2))",
        BoundaryError::out_of_packet(MetaField::VirtioCsumStart, 60, 60),
    );
    // Ending exactly at the frame end is fine.
    accepted(csum(40, 18), &frame, &policies(LinkType::Ethernet));
}

/// `thlen` dominates `csum_offset + 2` for TCP (20 > 18): the whole TCP
/// header must be in the frame. A TCP header cut after its checksum field.
#[test]
fn gso_transport_header_beyond_the_frame_is_refused() {
    let (spec, full) = tcp4_partial(0);
    let frame = &full[..spec.l4() + 19];
    refused(
        gso(spec, gso_type::TCPV4, 1000),
        frame,
        &policies(spec.link()),
        "pskb_may_pull(csum_start + max(thlen, csum_offset + 2))",
        BoundaryError::out_of_packet(MetaField::VirtioCsumStart, spec.l4() + 20, spec.l4() + 19),
    );
    // The full header and no payload: accepted, and not really GSO.
    for got in accepted(
        gso(spec, gso_type::TCPV4, 1000),
        &full,
        &policies(spec.link()),
    ) {
        assert_eq!(got.gso, GsoOutcome::FitsOneSegment);
    }
}

/// `skb_partial_csum_set`: `headroom + csum_start >= U16_MAX` is refused; tun's
/// headroom is `NET_SKB_PAD` (64), so 65471 is the first start refused.
#[test]
fn csum_start_past_u16_max_with_the_headroom_is_refused() {
    let frame = opaque(65_600);
    refused(
        csum(65_471, 0),
        &frame,
        &policies(LinkType::Ethernet),
        "skb_partial_csum_set: headroom + csum_start >= U16_MAX",
        BoundaryError::too_large(MetaField::VirtioCsumStart, 65_471, 65_470),
    );
    accepted(csum(65_470, 0), &frame, &policies(LinkType::Ethernet));
}

// ---- __virtio_net_hdr_to_skb: per GSO type ----

#[test]
fn tcp_gso_csum_offset_other_than_16_is_refused() {
    let (spec, frame) = tcp4_partial(3000);
    let mut h = gso(spec, gso_type::TCPV4, 1000);
    h.csum_offset = 6;
    refused(
        h,
        &frame,
        &policies(spec.link()),
        "TCP GSO csum_offset != offsetof(struct tcphdr, check)",
        BoundaryError::mismatch(MetaField::VirtioCsumOffset, 16, 6),
    );
    // Also where the parsed packet's rules do not reach: a start past the
    // transport header (where a tunnel's inner header would be).
    h.csum_start += 4;
    refused(
        h,
        &frame,
        &policies(spec.link()),
        "TCP GSO csum_offset != offsetof(struct tcphdr, check)",
        BoundaryError::mismatch(MetaField::VirtioCsumOffset, 16, 6),
    );
}

#[test]
fn udp_l4_csum_offset_other_than_6_is_refused() {
    let spec = Spec::udp4(3000);
    let frame = make_partial(build(spec), spec);
    let mut h = gso(spec, gso_type::UDP_L4, 1000);
    h.csum_offset = 16;
    refused(
        h,
        &frame,
        &policies(spec.link()),
        "UDP_L4 csum_offset != offsetof(struct udphdr, check)",
        BoundaryError::mismatch(MetaField::VirtioCsumOffset, 6, 16),
    );
    accepted(
        gso(spec, gso_type::UDP_L4, 1000),
        &frame,
        &policies(spec.link()),
    );
}

#[test]
fn udp_l4_without_needs_csum_is_refused() {
    let spec = Spec::udp4(3000);
    let frame = make_partial(build(spec), spec);
    let h = VirtioNetHdr {
        flags: VirtioFlags::empty(),
        ..gso(spec, gso_type::UDP_L4, 1000)
    };
    refused(
        h,
        &frame,
        &policies(spec.link()),
        "UDP_L4 without NEEDS_CSUM",
        BoundaryError::forbidden(MetaField::VirtioFlags, Rule::GsoWithoutNeedsCsum),
    );
}

#[test]
fn udp_l4_with_ecn_is_refused() {
    let spec = Spec::udp4(3000);
    let frame = make_partial(build(spec), spec);
    refused(
        gso(spec, gso_type::UDP_L4 | gso_type::ECN, 1000),
        &frame,
        &policies(spec.link()),
        "UDP_L4 with ECN",
        BoundaryError::forbidden(MetaField::VirtioGsoType, Rule::EcnWithUdp),
    );
}

/// `skb->len - p_off > gso_size * UDP_MAX_SEGMENTS`, over the whole frame:
/// trailing bytes after the IP datagram count, as in Linux.
#[test]
fn udp_l4_more_than_128_segments_of_the_frame_is_refused() {
    let spec = Spec::udp4(128);
    let mut frame = make_partial(build(spec), spec);
    let ps = policies(spec.link());
    // Exactly 128 one-byte segments: accepted.
    for got in accepted(gso(spec, gso_type::UDP_L4, 1), &frame, &ps) {
        assert!(matches!(got.gso, GsoOutcome::Segment(g) if g.segs == 128));
    }
    // One trailing byte after the IP datagram makes 129 by Linux's count.
    frame.push(0);
    refused(
        gso(spec, gso_type::UDP_L4, 1),
        &frame,
        &ps,
        "UDP_L4 len - p_off > gso_size * UDP_MAX_SEGMENTS",
        BoundaryError::forbidden(MetaField::VirtioGsoSize, Rule::TooManySegments),
    );
}

// ---- tun: tun_vnet_hdr_get, tun_get_user ----

/// `hdr_len` (raised to `csum_start + csum_offset + 2` with `NEEDS_CSUM`)
/// beyond the frame.
#[test]
fn hdr_len_beyond_the_frame_is_refused() {
    let (spec, frame) = tcp4_partial(30);
    let len = frame.len();
    let h = VirtioNetHdr {
        hdr_len: len as u16 + 1,
        ..needs_csum(spec)
    };
    refused(
        h,
        &frame,
        &tap_policies(spec.link()),
        "tun_vnet_hdr_get: hdr_len > len",
        BoundaryError::out_of_packet(MetaField::VirtioHdrLen, len + 1, len),
    );
    let h = VirtioNetHdr {
        hdr_len: len as u16,
        ..needs_csum(spec)
    };
    accepted(h, &frame, &policies(spec.link()));
}

/// A tap refuses a non-zero `hdr_len` below `ETH_HLEN`; 0 and 14 are fine.
#[test]
fn tap_hdr_len_below_eth_hlen_is_refused() {
    let frame = arp();
    for hdr_len in [1u16, 13] {
        let h = VirtioNetHdr {
            hdr_len,
            ..VirtioNetHdr::ZERO
        };
        refused(
            h,
            &frame,
            &tap_policies(LinkType::Ethernet),
            "tun_get_user: len or hdr_len < ETH_HLEN",
            BoundaryError::too_small(MetaField::VirtioHdrLen, hdr_len as usize, 14),
        );
    }
    for hdr_len in [0u16, 14] {
        let h = VirtioNetHdr {
            hdr_len,
            ..VirtioNetHdr::ZERO
        };
        accepted(h, &frame, &policies(LinkType::Ethernet));
    }
}

/// A tap refuses a frame shorter than `ETH_HLEN`; the virtio_net driver
/// drops it (`receive_buf`).
#[test]
fn ethernet_frame_shorter_than_eth_hlen_is_refused() {
    let frame = [0u8; 13];
    let ps = policies(LinkType::Ethernet);
    for p in &ps {
        let rule = match p.direction {
            Direction::FromDriver => "tun_get_user: len or hdr_len < ETH_HLEN",
            Direction::FromDevice => "receive_buf: len < hdr_len + ETH_HLEN",
        };
        refused(
            VirtioNetHdr::ZERO,
            &frame,
            core::slice::from_ref(p),
            rule,
            BoundaryError::new(
                MetaField::Packet,
                MetaErrorKind::Truncated {
                    needed: 14,
                    available: 13,
                },
            ),
        );
    }
    accepted(VirtioNetHdr::ZERO, &[0u8; 14], &ps);
}

/// A TUN without packet information takes the protocol from the version
/// nibble and refuses anything but 4 and 6.
#[test]
fn tun_frame_that_is_not_ipv4_or_ipv6_is_refused() {
    let ps = tap_policies(LinkType::RawIp);
    refused(
        VirtioNetHdr::ZERO,
        &[0x55; 40],
        &ps,
        "tun_get_user: IP version not 4 or 6",
        BoundaryError::unsupported(MetaField::Packet, 5),
    );
    refused(
        VirtioNetHdr::ZERO,
        &[],
        &ps,
        "tun_get_user: IP version not 4 or 6",
        BoundaryError::new(
            MetaField::Packet,
            MetaErrorKind::Truncated {
                needed: 1,
                available: 0,
            },
        ),
    );
    accepted(VirtioNetHdr::ZERO, &[0x60; 40], &ps);
}

// ---- virtio_net driver: virtio_net_handle_csum_offload ----

#[test]
fn device_data_valid_with_udp_tunnel_csum_is_refused() {
    let (spec, frame) = tcp4_partial(30);
    let h = VirtioNetHdr {
        flags: VirtioFlags::DATA_VALID | VirtioFlags::UDP_TUNNEL_CSUM,
        ..VirtioNetHdr::ZERO
    };
    let device: Vec<_> = policies(spec.link())
        .into_iter()
        .filter(|p| p.direction == Direction::FromDevice)
        .collect();
    refused(
        h,
        &frame,
        &device,
        "virtio_net_handle_csum_offload: UDP_TUNNEL_CSUM not negotiated",
        BoundaryError::forbidden(MetaField::VirtioFlags, Rule::TunnelCsumNotNegotiated),
    );
    // Either bit alone is fine; a driver's bit is ignored, as tun does.
    for flags in [VirtioFlags::DATA_VALID, VirtioFlags::UDP_TUNNEL_CSUM] {
        let h = VirtioNetHdr {
            flags,
            ..VirtioNetHdr::ZERO
        };
        accepted(h, &frame, &device);
    }
    accepted(h, &frame, &tap_policies(spec.link()));
}

// ---- what NEEDS_CSUM becomes ----

/// `virtio_net_hdr_to_skb` makes a `NEEDS_CSUM` packet `CHECKSUM_PARTIAL` and
/// nothing else: `Partial` with `CSUM_BLANK`, no `DATA_VALID`, whatever the
/// `DATA_VALID` policy. With both bits from a device, virtio_net's receive
/// path sets `CHECKSUM_UNNECESSARY` first and `skb_partial_csum_set` then
/// makes it `CHECKSUM_PARTIAL`: the same state.
#[test]
fn needs_csum_is_partial_with_a_blank_field_and_no_data_valid() {
    let (spec, frame) = tcp4_partial(100);
    for base in policies(spec.link()) {
        for data_valid in [
            DataValidPolicy::TrustAsUnnecessary,
            DataValidPolicy::TrustAsFlag,
            DataValidPolicy::Ignore,
        ] {
            let p = VirtioPolicy { data_valid, ..base };
            let mut hs = vec![needs_csum(spec)];
            if p.direction == Direction::FromDevice {
                hs.push(VirtioNetHdr {
                    flags: VirtioFlags::NEEDS_CSUM | VirtioFlags::DATA_VALID,
                    ..needs_csum(spec)
                });
            }
            for h in hs {
                let got = h.to_meta(&frame, &p).unwrap();
                assert_eq!(got.meta.state(), spec.partial(), "{h:?} {p:?}");
                assert_eq!(got.meta.flags(), CsumFlags::CSUM_BLANK, "{h:?} {p:?}");
            }
        }
    }
}

// ---- deliberately stricter than Linux (each rule named in to_meta's docs) ----

/// Linux counts `nh_min_len` from the frame start, so a tap accepts 20 / 2 on
/// an ARP frame (seen on a 6.18 tap); the crate counts from the end of the
/// link header, so no fill can write into it (with QinQ, byte 20 is the
/// EtherType).
#[test]
fn stricter_nh_min_len_counts_from_the_network_header() {
    let frame = arp();
    for p in policies(LinkType::Ethernet) {
        assert_eq!(linux_says(&csum(20, 2), &frame, &p), None);
        assert_eq!(
            csum(20, 2).to_meta(&frame, &p),
            Err(BoundaryError::too_small(MetaField::VirtioCsumStart, 20, 34))
        );
    }
    let mut qinq = opaque(80);
    qinq[12..14].copy_from_slice(&[0x88, 0xA8]);
    qinq[16..18].copy_from_slice(&[0x81, 0x00]);
    for p in policies(LinkType::Ethernet) {
        assert_eq!(linux_says(&csum(20, 0), &qinq, &p), None);
        assert_eq!(
            csum(20, 0).to_meta(&qinq, &p),
            Err(BoundaryError::too_small(MetaField::VirtioCsumStart, 20, 42))
        );
        assert!(csum(42, 0).to_meta(&qinq, &p).is_ok());
    }
}

/// Linux takes a TCP GSO frame without `NEEDS_CSUM` (it probes with the flow
/// dissector); the spec says the driver MUST set it, and the crate refuses.
#[test]
fn stricter_gso_without_needs_csum() {
    let (spec, frame) = tcp4_partial(3000);
    let h = VirtioNetHdr {
        flags: VirtioFlags::empty(),
        ..gso(spec, gso_type::TCPV4, 1000)
    };
    for p in policies(spec.link()) {
        assert_eq!(linux_says(&h, &frame, &p), None);
        assert_eq!(
            h.to_meta(&frame, &p),
            Err(BoundaryError::forbidden(
                MetaField::VirtioFlags,
                Rule::GsoWithoutNeedsCsum
            ))
        );
    }
}

/// Linux takes ECN on UFO (only `UDP_L4 | ECN` is checked); ECN means nothing
/// for UDP, and the crate refuses it.
#[test]
fn stricter_ecn_on_ufo() {
    let spec = Spec::udp4(3000);
    let frame = make_partial(build(spec), spec);
    let h = gso(spec, gso_type::UDP | gso_type::ECN, 1000);
    for p in policies(spec.link()) {
        assert_eq!(linux_says(&h, &frame, &p), None);
        assert_eq!(
            h.to_meta(&frame, &p),
            Err(BoundaryError::forbidden(
                MetaField::VirtioGsoType,
                Rule::EcnWithUdp
            ))
        );
    }
}

// ---- from_meta: never hand a peer what its virtio_net_hdr_to_skb refuses ----

fn partial(start: usize, offset: usize) -> CsumMeta {
    CsumMeta::from_state(CsumState::Partial {
        start,
        offset,
        kind: PartialKind::Inet,
    })
}

fn super_packet(kind: GsoKind) -> GsoParams {
    GsoParams {
        kind,
        ecn: false,
        gso_size: 1000,
        hdr_len: 54,
        segs: 3,
    }
}

#[test]
fn from_meta_refuses_offsets_the_peer_would_refuse() {
    let out = |meta, gso| {
        VirtioNetHdr::from_meta(meta, GuestFrame::default(), gso, PeerFeatures::default())
            .map_err(|refused| refused.error)
    };
    assert_eq!(
        out(partial(14, 16), None),
        Err(BoundaryError::too_small(MetaField::VirtioCsumStart, 14, 20))
    );
    assert_eq!(
        out(partial(34, 16), Some(super_packet(GsoKind::TcpV6))),
        Err(BoundaryError::too_small(MetaField::VirtioCsumStart, 34, 40))
    );
    assert_eq!(
        out(partial(34, 6), Some(super_packet(GsoKind::TcpV4))),
        Err(BoundaryError::mismatch(MetaField::VirtioCsumOffset, 16, 6))
    );
    assert_eq!(
        out(partial(34, 16), Some(super_packet(GsoKind::UdpL4))),
        Err(BoundaryError::mismatch(MetaField::VirtioCsumOffset, 6, 16))
    );
    assert_eq!(
        out(partial(65_471, 0), None),
        Err(BoundaryError::too_large(
            MetaField::VirtioCsumStart,
            65_471,
            65_470
        ))
    );
    // What a real packet hands out is accepted by the peer (the model) and
    // by to_meta, in both directions.
    for (spec, kind) in [
        (Spec::tcp4(3000), GsoKind::TcpV4),
        (Spec::tcp6(3000), GsoKind::TcpV6),
        (Spec::udp4(3000), GsoKind::UdpL4),
    ] {
        let frame = make_partial(build(spec), spec);
        let h = out(
            partial(spec.l4(), spec.csum_offset()),
            Some(super_packet(kind)),
        )
        .unwrap();
        accepted(h, &frame, &policies(spec.link()));
    }
}

// ---- the model against to_meta on arbitrary headers ----

fn frames() -> Vec<(Vec<u8>, LinkType)> {
    let mut v = vec![
        (arp(), LinkType::Ethernet),
        (opaque(200), LinkType::Ethernet),
    ];
    for spec in [
        Spec::tcp4(300),
        Spec::tcp6(300),
        Spec::udp4(300),
        Spec::udp6(300),
    ] {
        v.push((make_partial(build(spec), spec), spec.link()));
        let raw = Spec {
            raw_ip: true,
            ..spec
        };
        v.push((make_partial(build(raw), raw), raw.link()));
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]
    /// Nothing Linux refuses is accepted, and every accepted `NEEDS_CSUM`
    /// keeps the crate's stricter offset rule (`nh_min_len` past the network
    /// header, the transport header and field inside the frame).
    #[test]
    fn nothing_linux_refuses_is_accepted(
        raw in proptest::array::uniform10(any::<u8>()),
        pick in 0usize..10, cut in 0usize..400, steer in 0u8..4,
        dir in any::<bool>(), trust in any::<bool>(), rsc_ext in any::<bool>(),
    ) {
        let (mut frame, link) = frames().swap_remove(pick);
        frame.truncate(frame.len().max(1) - cut % frame.len().max(1) / 4);
        let (mut h, _) = VirtioNetHdr::parse(&raw, HdrLayout::Legacy).unwrap();
        // Steer the offsets near the boundaries half of the time.
        if steer & 1 == 1 {
            h.csum_start %= 80;
            h.csum_offset %= 24;
        }
        if steer & 2 == 2 {
            h.gso_type = [0, 1, 3, 4, 5, 0x81][h.gso_type as usize % 6];
            h.hdr_len %= 64;
        }
        let base = if dir { VirtioPolicy::DRIVER_RX } else { VirtioPolicy::GUEST_TX };
        let p = VirtioPolicy {
            link,
            seed: if trust { SeedPolicy::Trust } else { SeedPolicy::Verify },
            data_valid: if dir { DataValidPolicy::TrustAsUnnecessary } else { DataValidPolicy::Ignore },
            rsc_ext,
            ..base
        };
        if h.to_meta(&frame, &p).is_ok() {
            prop_assert_eq!(linux_says(&h, &frame, &p), None, "{:?}", h);
            let counts = h.flags.contains(VirtioFlags::RSC_INFO);
            if h.flags.contains(VirtioFlags::NEEDS_CSUM) && !counts {
                prop_assert!(linux::offsets_hold(&model_hdr(&h), &frame, model_link(link)), "{:?}", h);
            }
        }
    }
}

/// Stricter than Linux: a `NEEDS_CSUM` frame with non-zero bytes after its IP
/// datagram is refused, since the fill runs to the frame's end and would sum
/// them in (found by the `state_ops` fuzz target: an ICMP frame with 217
/// bytes of trailing junk, seed verified, was called a sound `Partial`).
/// Zero padding (Ethernet's minimum frame) adds nothing and is accepted.
#[test]
fn stricter_non_zero_bytes_after_the_datagram_are_refused() {
    let (spec, frame) = tcp4_partial(100);
    let h = needs_csum(spec);
    for p in policies(spec.link()) {
        let mut zeros = frame.clone();
        zeros.extend_from_slice(&[0; 20]);
        assert_eq!(linux_says(&h, &zeros, &p), None);
        assert!(h.to_meta(&zeros, &p).is_ok(), "zero padding under {p:?}");
        let mut junk = frame.clone();
        junk.extend_from_slice(&[0x5a; 20]);
        assert_eq!(linux_says(&h, &junk, &p), None);
        assert_eq!(
            h.to_meta(&junk, &p).err(),
            Some(BoundaryError::forbidden(
                MetaField::Packet,
                Rule::BytesAfterDatagram
            )),
            "junk after the datagram under {p:?}"
        );
    }
}
