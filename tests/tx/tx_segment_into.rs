//! `tx::segment_into`: segments back to back at a fixed stride in one buffer
//! (UDP GSO / sendmmsg), the same bytes as `tx::segment`, batches cut at the
//! 64 KiB datagram limit, nothing written on refusal.
use crate::support::encap::ip_tcp;

use netoffload::tx::{self, GsoInfo, Packed, SegmentCsum, StrideLimits, TxError, segment_into};
use netoffload::wire::{self, GsoType, LinkType};

fn payload(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
}

/// The reference: `tx::segment` into one buffer per segment.
fn reference(frame: &[u8], gso: GsoInfo) -> Vec<Vec<u8>> {
    let l = wire::parse(frame, LinkType::RawIp).unwrap();
    let n = gso.segments(l.payload_len());
    let mut bufs = vec![vec![0u8; 1600]; n];
    let mut refs: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.as_mut_slice()).collect();
    let p = tx::segment(frame, &l, gso, SegmentCsum::Compute, &mut refs).unwrap();
    bufs.iter()
        .enumerate()
        .map(|(i, b)| b[..p.len_of(i).unwrap()].to_vec())
        .collect()
}

/// Runs `segment_into` batch after batch; returns the batches and the segments.
fn batches(frame: &[u8], gso: GsoInfo, limits: StrideLimits) -> (Vec<Packed>, Vec<Vec<u8>>) {
    let l = wire::parse(frame, LinkType::RawIp).unwrap();
    let plan = tx::plan(frame, &l, gso, SegmentCsum::Compute).unwrap();
    let mut buf = vec![0u8; 128 * 1024];
    let (mut out, mut segs, mut next) = (Vec::new(), Vec::new(), 0);
    while next < plan.count() {
        let p = segment_into(frame, &plan, next, &mut buf, limits).unwrap();
        assert_eq!(p.stride, plan.max_len());
        for i in 0..p.count {
            segs.push(buf[p.range_of(i).unwrap()].to_vec());
        }
        next = p.next();
        out.push(p);
    }
    (out, segs)
}

#[test]
fn stride_layout_equals_segment_byte_for_byte() {
    for v6 in [false, true] {
        let gso_type = if v6 { GsoType::TCPV6 } else { GsoType::TCPV4 };
        let frame = ip_tcp(v6, &payload(10 * 1000 + 300));
        let gso = GsoInfo::new(1000, gso_type);
        let (packs, segs) = batches(&frame, gso, StrideLimits::NONE);
        assert_eq!(packs.len(), 1);
        assert_eq!(packs[0].count, 11);
        assert_eq!(segs, reference(&frame, gso), "v6={v6}");
    }
}

#[test]
fn a_64k_super_packet_is_cut_at_the_udp_gso_limit() {
    for (v6, limits) in [
        (false, StrideLimits::UDP_GSO_V4),
        (true, StrideLimits::UDP_GSO_V6),
    ] {
        let gso_type = if v6 { GsoType::TCPV6 } else { GsoType::TCPV4 };
        let frame = ip_tcp(v6, &payload(65000));
        let gso = GsoInfo::new(1448, gso_type);
        let (packs, segs) = batches(&frame, gso, limits);
        assert!(packs.len() >= 2, "v6={v6}: {packs:?}");
        for p in &packs {
            assert!(p.len <= limits.max_bytes, "{p:?}");
        }
        // Full batches: as many strides as the limit allows.
        assert_eq!(packs[0].count, limits.max_bytes / packs[0].stride);
        assert_eq!(segs, reference(&frame, gso), "v6={v6}");
    }
}

#[test]
fn max_segs_is_respected() {
    let frame = ip_tcp(false, &payload(10 * 100));
    let gso = GsoInfo::new(100, GsoType::TCPV4);
    let limits = StrideLimits {
        max_bytes: usize::MAX,
        max_segs: 3,
    };
    let (packs, segs) = batches(&frame, gso, limits);
    assert_eq!(
        packs.iter().map(|p| p.count).collect::<Vec<_>>(),
        vec![3, 3, 3, 1]
    );
    assert_eq!(segs, reference(&frame, gso));
}

#[test]
fn the_short_last_segment_fits_after_the_full_strides() {
    // 4 full segments of 1040 bytes and a last of 140: 4 * 1040 + 140 bytes.
    let frame = ip_tcp(false, &payload(4 * 1000 + 100));
    let gso = GsoInfo::new(1000, GsoType::TCPV4);
    let l = wire::parse(&frame, LinkType::RawIp).unwrap();
    let plan = tx::plan(&frame, &l, gso, SegmentCsum::Compute).unwrap();
    let need = 4 * plan.max_len() + plan.len_of(4).unwrap();
    let mut buf = vec![0u8; need];
    let p = segment_into(&frame, &plan, 0, &mut buf, StrideLimits::NONE).unwrap();
    assert_eq!((p.count, p.len), (5, need));
}

#[test]
fn refusals_write_nothing() {
    let frame = ip_tcp(false, &payload(3 * 1000));
    let gso = GsoInfo::new(1000, GsoType::TCPV4);
    let l = wire::parse(&frame, LinkType::RawIp).unwrap();
    let plan = tx::plan(&frame, &l, gso, SegmentCsum::Compute).unwrap();
    let mut buf = vec![0xEEu8; 500];
    assert!(matches!(
        segment_into(&frame, &plan, 0, &mut buf, StrideLimits::NONE),
        Err(TxError::BufferTooSmall { index: 0, .. })
    ));
    let mut big = vec![0xEEu8; 8000];
    assert!(matches!(
        segment_into(&frame, &plan, 3, &mut big, StrideLimits::NONE),
        Err(TxError::SegmentIndexOutOfRange { index: 3, count: 3 })
    ));
    // A frame that is not the planned one (cut short): refused before any write.
    assert!(segment_into(&frame[..2000], &plan, 0, &mut big, StrideLimits::NONE).is_err());
    assert!(buf.iter().chain(&big).all(|&b| b == 0xEE));
}
