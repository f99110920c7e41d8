//! A router hop with source NAT on a packet whose NIC gave `CHECKSUM_COMPLETE`
//! (mlx5-style): the device sum, the TTL decrement and the address rewrite
//! all keep the checksum state true without re-summing the payload.
//!
//! I have: a frame and the device's ones-complement sum of it.
//! I want: to forward it with a new source address and keep the sum usable.
//! Use: `state::receive`, `state::route`, `state::nat`, `state::validate`.
//!
//! Run: `cargo run --example nat_hop` (it asserts its results).
use netoffload::csum::{self, Wsum};
use netoffload::state::{
    self, Addr, CsumState, CsumVerdict, DeviceReport, Packet, PacketMut, Rewrite,
};
use netoffload::wire::LinkType;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A TCP segment as it arrives from the wire (etherparse builds it).
    let mut frame = Vec::new();
    etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([192, 168, 1, 10], [198, 51, 100, 7], 64)
        .tcp(40000, 443, 1, 65535)
        .write(&mut frame, &[0x5a; 1200])?;

    // The NIC: the sum of everything after the Ethernet header (what mlx5
    // reports; here computed the same way the device would).
    let device_sum: Wsum = csum::partial(&frame[14..], Wsum::ZERO);
    let meta = state::receive(DeviceReport::Complete { csum: device_sum }).meta;

    // The router: decrement the TTL (IPv4 header checksum updated by RFC 1624),
    // then rewrite the source address (TCP checksum updated the same way, and
    // the `Complete` sum adjusted so it still covers the bytes).
    let mut pkt = PacketMut::parse(&mut frame, LinkType::Ethernet)?;
    let routed = state::route(meta, &mut pkt)?;
    let nat = state::nat(
        routed.meta,
        &mut pkt,
        Rewrite::Src(Addr::V4([203, 0, 113, 1])),
    )?;
    assert!(matches!(nat.meta.state(), CsumState::Complete { .. }));

    // The device sum, carried across both rewrites, still checks the TCP
    // checksum by arithmetic: only the 20-byte IPv4 header is subtracted
    // (`skb_postpull_rcsum`), no payload byte is summed again.
    let carried = state::validate(nat.meta.clone(), &pkt.as_packet())?;
    assert_eq!(carried.verdict, CsumVerdict::Good);
    assert_eq!(carried.sw_bytes, 20, "the Complete sum did the work");

    // Independent check: forget every claim and verify the bytes in software.
    let fresh = state::validate(
        state::receive(DeviceReport::None).meta,
        &Packet::parse(&frame, LinkType::Ethernet)?,
    )?;
    assert_eq!(fresh.verdict, CsumVerdict::Good);
    assert_eq!(&frame[26..30], &[203, 0, 113, 1]);
    assert_eq!(frame[22], 63, "TTL decremented");
    assert_eq!(
        csum::ipv4_header(&frame[14..34]).raw(),
        0,
        "IPv4 header checksum"
    );
    println!("nat_hop: forwarded with SNAT, checksums good, no payload byte re-summed");
    Ok(())
}
