//! A transmit path: locally built packets (`CHECKSUM_PARTIAL`, one a TCP
//! super-packet) are decided per device feature set, then put on a
//! descriptor ring in one batch with one doorbell; a device without TSO or
//! checksum offload gets the super-packet segmented in software instead.
//!
//! I have: outgoing packets with their metadata, a device's features.
//! I want: what the device does per packet, and a batch on its ring.
//! Use: `tx::decide`, `TxContext::from_action`, `TxRing`, `tx::segment`.
//!
//! Run: `cargo run --example tx_batch` (it asserts its results).
use netoffload::state::{self, CsumMeta, CsumVerdict, Packet, PacketMut};
use netoffload::tx::{self, BatchEnd, Device, Features, GsoInfo, TxAction, TxContext, TxRing};
use netoffload::wire::{self, GsoType, LinkType};

/// A TCP/IPv4 frame of `len` payload bytes as the stack leaves it: seed in
/// the checksum field, `Partial` at the TCP header.
fn local_tcp(len: usize) -> Result<(Vec<u8>, CsumMeta), Box<dyn std::error::Error>> {
    let mut f = Vec::new();
    etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .tcp(8080, 40000, 1, 4096)
        .write(&mut f, &vec![0x33; len])?;
    // `skb_checksum_setup` with recalculation: the seed, and `Partial` there.
    let mut pkt = PacketMut::parse(&mut f, LinkType::Ethernet)?;
    let meta = state::checksum_setup(CsumMeta::NONE, &mut pkt, true)?.meta;
    Ok((f, meta))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tso = GsoInfo::new(1448, GsoType::TCPV4);
    let mut packets = vec![(local_tcp(100)?, None), (local_tcp(200)?, None)];
    packets.push((local_tcp(4 * 1448)?, Some(tso)));

    // A tg3/ixgbe-like NIC: IPv4 checksum offload, scatter-gather, TSO.
    let nic = Device::new(Features::IP_CSUM | Features::SG | Features::TSO);
    let mut ring = TxRing::<64>::new(17)?;
    let mut batch = Vec::new();
    for (id, ((frame, meta), gso)) in packets.iter().enumerate() {
        let layers = wire::parse(frame, LinkType::Ethernet)?;
        let action = tx::decide(meta, &layers, *gso, &nic)?;
        assert!(matches!(action, TxAction::Offload { .. }), "{action:?}");
        let ctx = TxContext::from_action(&action, *gso)?;
        batch.push(ring.config().prep(id as u64, 0, ctx)?);
    }
    let report = ring.xmit(&batch)?;
    assert_eq!(
        (report.packets, report.doorbells, report.end),
        (3, 1, BatchEnd::Drained)
    );
    assert_eq!(report.context_descriptors, 2, "checksum-only, then TSO");
    let done = ring.complete(usize::MAX, |id| assert!(id < 3));
    assert_eq!(done.packets, 3);

    // A device with no offload at all: the super-packet is segmented in
    // software and every segment's checksum computed during the copy.
    let plain = Device::new(Features::SG);
    let ((frame, meta), gso) = &packets[2];
    let layers = wire::parse(frame, LinkType::Ethernet)?;
    let TxAction::Segment { gso, csum, .. } = tx::decide(meta, &layers, *gso, &plain)? else {
        panic!("a device without TSO segments in software");
    };
    let mut bufs = vec![vec![0u8; 1514]; gso.segments(layers.payload_len())];
    let mut outs: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.as_mut_slice()).collect();
    let plan = tx::segment(frame, &layers, gso, csum, &mut outs)?;
    for (i, seg) in bufs.iter().enumerate() {
        let pkt = Packet::parse(&seg[..plan.len_of(i).unwrap()], LinkType::Ethernet)?;
        assert_eq!(
            state::validate(CsumMeta::NONE, &pkt)?.verdict,
            CsumVerdict::Good
        );
    }
    println!(
        "tx_batch: 3 packets, 1 doorbell, 2 contexts; {} software segments verify",
        plan.count()
    );
    Ok(())
}
