//! A GRO super-packet to a virtio-net header (`SuperPacket::virtio_hdr`,
//! `gro::virtio_gso`): the header the kernel reads back on a TUN write must
//! make it re-segment to the very frames GRO merged; the runs virtio cannot
//! say (AccECN CWR, fixed IPv4 ID, tunnels) are refused.
use crate::support::gro::{Spec, pay};

use netoffload::gro::{
    Gro, GroConfig, SuperPacket, VirtioGsoError, VirtioWriteError, WriteError, virtio_gso,
};
use netoffload::state::CsumMeta;
use netoffload::state::paravirt::virtio::{
    GsoOutcome, GuestFrame, HdrLayout, PeerFeatures, VirtioFlags, VirtioNetHdr, VirtioPolicy,
    gso_type,
};
use netoffload::tx::{self, GsoInfo, SegmentCsum};
use netoffload::wire::{self, GsoKind, GsoType, LinkType};

/// What the sink saw per super-packet: the header (or refusal) and the bytes.
type Out = (Result<VirtioNetHdr, VirtioGsoError>, Vec<u8>, u16);

/// Feeds raw-IP frames through GRO and flushes, calling `f` per super-packet.
fn run_with(frames: &[Vec<u8>], mut f: impl FnMut(&SuperPacket)) {
    let cfg = GroConfig {
        link: LinkType::RawIp,
        ..GroConfig::new()
    };
    let mut gro = Box::new(Gro::<8>::new(cfg));
    let mut sink = |sp: &SuperPacket| f(sp);
    for (i, fr) in frames.iter().enumerate() {
        let _ = gro.receive(fr, i as u32, CsumMeta::NONE, 0, &mut sink);
    }
    gro.flush_all(&mut sink);
}

/// Each super-packet's `virtio_hdr` result, its written bytes and segment count.
fn run(frames: &[Vec<u8>]) -> Vec<Out> {
    let mut outs = Vec::new();
    run_with(frames, |sp| {
        let mut buf = vec![0u8; sp.len()];
        sp.write_into(&mut buf, |id| frames.get(id as usize).map(|f| f.as_slice()))
            .unwrap();
        let hdr = sp.virtio_hdr(GuestFrame::default(), PeerFeatures::default());
        outs.push((hdr, buf, sp.seg_count()));
    });
    outs
}

fn train(first: Spec, n: usize) -> Vec<Spec> {
    let mut v = vec![first];
    while v.len() < n {
        let next = v.last().unwrap().next();
        v.push(next);
    }
    v
}

#[test]
fn tcp_run_header_makes_the_kernel_resegment_to_the_merged_frames() {
    for v6 in [false, true] {
        let specs = train(
            Spec {
                v6,
                ..Spec::default()
            },
            4,
        );
        let frames: Vec<Vec<u8>> = specs.iter().map(|s| s.ip()).collect();
        let outs = run(&frames);
        assert_eq!(outs.len(), 1, "v6={v6}");
        let (hdr, bytes, segs) = &outs[0];
        let hdr = hdr.as_ref().unwrap();
        assert_eq!(*segs, 4);
        let want_type = if v6 { gso_type::TCPV6 } else { gso_type::TCPV4 };
        assert_eq!(hdr.gso_type, want_type);
        assert_eq!(hdr.gso_size, 1448);
        assert!(hdr.flags.contains(VirtioFlags::NEEDS_CSUM));
        let l = wire::parse(bytes, LinkType::RawIp).unwrap();
        assert_eq!(hdr.csum_start as usize, l.l4);
        assert_eq!(hdr.csum_offset, 16);
        assert_eq!(hdr.hdr_len as usize, l.payload);

        // What the kernel does with a TUN write (`virtio_net_hdr_to_skb`,
        // the driver's side), then `tcp_gso_segment`.
        let mut wire_bytes = vec![0u8; HdrLayout::Legacy.len()];
        hdr.write(HdrLayout::Legacy, &mut wire_bytes).unwrap();
        wire_bytes.extend_from_slice(bytes);
        let (back, pkt) = VirtioNetHdr::parse(&wire_bytes, HdrLayout::Legacy).unwrap();
        let policy = VirtioPolicy {
            link: LinkType::RawIp,
            ..VirtioPolicy::GUEST_TX
        };
        let inbound = back.to_meta(pkt, &policy).unwrap();
        let GsoOutcome::Segment(p) = inbound.gso else {
            panic!("not GSO: {:?}", inbound.gso)
        };
        assert_eq!(p.segs, 4);
        let info = GsoInfo::from_virtio(&p).unwrap();
        let mut bufs = vec![vec![0u8; 2000]; 4];
        let mut refs: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.as_mut_slice()).collect();
        let plan = tx::segment(pkt, &l, info, SegmentCsum::Compute, &mut refs).unwrap();
        for (i, f) in frames.iter().enumerate() {
            assert_eq!(
                &bufs[i][..plan.len_of(i).unwrap()],
                f.as_slice(),
                "v6={v6} seg {i}"
            );
        }
    }
}

#[test]
fn cwr_on_every_segment_is_accecn_and_refused() {
    let specs = train(
        Spec {
            flags: 0x10 | 0x80,
            ..Spec::default()
        },
        3,
    );
    let frames: Vec<Vec<u8>> = specs.iter().map(|s| s.ip()).collect();
    let outs = run(&frames);
    assert_eq!(outs.len(), 1);
    assert_eq!(outs[0].2, 3, "the CWR run merged");
    assert_eq!(outs[0].0, Err(VirtioGsoError::AccEcnCwr));
}

#[test]
fn fixed_ip_id_run_is_refused() {
    let mut specs = train(Spec::default(), 3);
    for s in &mut specs {
        s.id = 7;
    }
    let frames: Vec<Vec<u8>> = specs.iter().map(|s| s.ip()).collect();
    let outs = run(&frames);
    assert_eq!(outs.len(), 1);
    assert_eq!(outs[0].2, 3, "the fixed-ID run merged");
    assert_eq!(outs[0].0, Err(VirtioGsoError::FixedId));
}

#[test]
fn single_packet_gets_no_gso_and_no_checksum_request() {
    let frames = vec![
        Spec {
            payload: pay(100, 3),
            ..Spec::default()
        }
        .ip(),
    ];
    let outs = run(&frames);
    assert_eq!(outs.len(), 1);
    let hdr = outs[0].0.unwrap();
    assert_eq!(hdr.gso_type, gso_type::NONE);
    assert!(!hdr.flags.contains(VirtioFlags::NEEDS_CSUM));
    assert_eq!(outs[0].1, frames[0]);
}

#[test]
fn gso_type_mapping_rules() {
    let ok = |t, k, e| assert_eq!(virtio_gso(t), Ok(Some((k, e))), "{t:?}");
    ok(GsoType::TCPV4, GsoKind::TcpV4, false);
    ok(GsoType::TCPV6, GsoKind::TcpV6, false);
    ok(GsoType::TCPV4 | GsoType::TCP_ECN, GsoKind::TcpV4, true);
    ok(GsoType::UDP_L4, GsoKind::UdpL4, false);
    assert_eq!(virtio_gso(GsoType::empty()), Ok(None));
    assert_eq!(
        virtio_gso(GsoType::TCPV6 | GsoType::TCP_ACCECN),
        Err(VirtioGsoError::AccEcnCwr)
    );
    assert_eq!(
        virtio_gso(GsoType::TCPV4 | GsoType::TCP_FIXEDID),
        Err(VirtioGsoError::FixedId)
    );
    let t = GsoType::TCPV4 | GsoType::UDP_TUNNEL;
    assert_eq!(virtio_gso(t), Err(VirtioGsoError::Tunnel(t)));
    let t = GsoType::UDP_L4 | GsoType::TCP_ECN;
    assert_eq!(virtio_gso(t), Err(VirtioGsoError::NoKind(t)));
    let t = GsoType::TCPV4 | GsoType::TCPV6;
    assert_eq!(virtio_gso(t), Err(VirtioGsoError::NoKind(t)));
}

#[test]
fn write_virtio_into_is_the_header_then_the_packet() {
    // A mergeable run: header + write_into's bytes, in one buffer.
    let frames: Vec<Vec<u8>> = train(Spec::default(), 3).iter().map(|s| s.ip()).collect();
    let mut seen = 0;
    run_with(&frames, |sp| {
        let mut buf = vec![0xEEu8; 70000];
        let n = sp
            .write_virtio_into(HdrLayout::Legacy, PeerFeatures::default(), &mut buf, |id| {
                frames.get(id as usize).map(|f| f.as_slice())
            })
            .unwrap();
        let mut want = vec![0u8; 10];
        let hdr = sp
            .virtio_hdr(GuestFrame::default(), PeerFeatures::default())
            .unwrap();
        hdr.write(HdrLayout::Legacy, &mut want).unwrap();
        let mut body = vec![0u8; sp.len()];
        sp.write_into(&mut body, |id| {
            frames.get(id as usize).map(|f| f.as_slice())
        })
        .unwrap();
        want.extend_from_slice(&body);
        assert_eq!(&buf[..n], want.as_slice());
        // One byte short: refused.
        let mut short = vec![0xEEu8; n - 1];
        let r = sp.write_virtio_into(
            HdrLayout::Legacy,
            PeerFeatures::default(),
            &mut short,
            |id| frames.get(id as usize).map(|f| f.as_slice()),
        );
        assert!(matches!(
            r,
            Err(VirtioWriteError::Write(WriteError::BufferTooSmall { .. }))
        ));
        assert!(short.iter().all(|&b| b == 0xEE));
        seen += 1;
    });
    assert_eq!(seen, 1);
    // A run virtio cannot say: refused, nothing written.
    let mut fixed = train(Spec::default(), 3);
    for s in &mut fixed {
        s.id = 9;
    }
    let frames: Vec<Vec<u8>> = fixed.iter().map(|s| s.ip()).collect();
    run_with(&frames, |sp| {
        let mut buf = vec![0xEEu8; 70000];
        let r = sp.write_virtio_into(HdrLayout::Legacy, PeerFeatures::default(), &mut buf, |id| {
            frames.get(id as usize).map(|f| f.as_slice())
        });
        assert_eq!(r, Err(VirtioWriteError::Header(VirtioGsoError::FixedId)));
        assert!(buf.iter().all(|&b| b == 0xEE));
    });
}
