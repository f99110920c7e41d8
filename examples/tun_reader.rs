//! An L3 TUN reader with `IFF_VNET_HDR`: each read is a virtio-net header
//! and an IP packet, maybe a TCP super-packet. The header is checked against
//! the packet and becomes metadata; the super-packet is cut into segments,
//! checksums computed during the copy.
//!
//! I have: the bytes of one `read()` from a TUN fd (header + packet).
//! I want: MTU-size packets with correct checksums (or the metadata for one).
//! Use: `VirtioNetHdr::parse`, `VirtioNetHdr::to_meta` (`VirtioPolicy::TUN_READ`),
//! `GsoInfo::from_virtio`, `tx::segment`.
//!
//! Run: `cargo run --example tun_reader` (it asserts its results).
use netoffload::state::paravirt::setup;
use netoffload::state::paravirt::virtio::{
    GsoOutcome, HdrLayout, VirtioFlags, VirtioNetHdr, VirtioPolicy, gso_type,
};
use netoffload::state::{self, CsumMeta, CsumVerdict, Packet};
use netoffload::tx::{self, GsoInfo, SegmentCsum};
use netoffload::wire::LinkType;

/// What the kernel would hand us: a 3-segment TCP super-packet, seed in the field.
fn kernel_read() -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let mut ip = Vec::new();
    etherparse::PacketBuilder::ipv4([10, 9, 0, 1], [10, 9, 0, 2], 64)
        .tcp(443, 50000, 1, 1024)
        .write(&mut ip, &[0xab; 3 * 1400])?;
    let found = setup::checksum_setup(&ip, LinkType::RawIp)?;
    setup::write_seed(&mut ip, &found)?;
    let hdr = VirtioNetHdr {
        flags: VirtioFlags::NEEDS_CSUM,
        gso_type: gso_type::TCPV4,
        hdr_len: 40,
        gso_size: 1400,
        csum_start: 20,
        csum_offset: 16,
        ..VirtioNetHdr::ZERO
    };
    let mut buf = vec![0u8; HdrLayout::Legacy.len()];
    hdr.write(HdrLayout::Legacy, &mut buf)?;
    buf.extend_from_slice(&ip);
    Ok(buf)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let read = kernel_read()?;
    // Header -> metadata: every field checked against the packet.
    let (hdr, packet) = VirtioNetHdr::parse(&read, HdrLayout::Legacy)?;
    // A TUN read: the kernel wrote the header as a device (raw IP frames).
    let inbound = hdr.to_meta(packet, &VirtioPolicy::TUN_READ)?;
    let GsoOutcome::Segment(gso) = inbound.gso else {
        panic!("expected a super-packet, got {:?}", inbound.gso)
    };
    let info = GsoInfo::from_virtio(&gso).expect("TCP, not UFO");

    // Metadata -> segments on the layers to_meta parsed, checksums computed
    // fused with the copy.
    let layers = inbound.layers.expect("a checked super-packet parses");
    let mut bufs = vec![vec![0u8; 1500]; gso.segs];
    let mut outs: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.as_mut_slice()).collect();
    let plan = tx::segment(packet, &layers, info, SegmentCsum::Compute, &mut outs)?;
    assert_eq!(plan.count(), 3);
    for (i, seg) in bufs.iter().enumerate() {
        let seg = &seg[..plan.len_of(i).unwrap()];
        let check = state::validate(CsumMeta::NONE, &Packet::parse(seg, LinkType::RawIp)?)?;
        assert_eq!(check.verdict, CsumVerdict::Good, "segment {i}");
    }
    println!(
        "tun_reader: 1 read -> {} segments, every checksum good",
        plan.count()
    );
    Ok(())
}
