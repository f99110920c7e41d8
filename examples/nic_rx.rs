//! A NIC receive path: the driver turns each descriptor's checksum report
//! into metadata, a NAPI-style poll loop feeds the GRO engine, and the stack
//! gets super-packets (and the packets GRO passed up) with metadata it can
//! trust, checked here by the stack's own validation.
//!
//! I have: frames and per-frame device checksum reports from an RX ring.
//! I want: fewer, bigger packets for the stack, with sound checksum state.
//! Use: `state::receive`, `gro::Gro` (`receive`, `flush_all`),
//! `SuperPacket::write_into` + `meta`, `state::deliver`.
//!
//! Run: `cargo run --example nic_rx` (it asserts its results).
use netoffload::gro::{self, Gro, GroConfig, SuperPacket};
use netoffload::state::{self, CsumLevel, CsumMeta, CsumVerdict, DeviceReport, Packet};
use netoffload::wire::LinkType;

/// One TCP segment of flow `port`, built with etherparse.
fn segment(port: u16, n: u32, payload: usize) -> Vec<u8> {
    let mut f = Vec::new();
    etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 9], [2, 0, 0, 0, 0, 1])
        .ipv4([10, 0, 0, 9], [10, 0, 0, 1], 64)
        .tcp(port, 80, 1 + n * 1000, 8192)
        .ack(1)
        .write(&mut f, &vec![n as u8; payload])
        .unwrap();
    f
}

/// A flushed super-packet as the stack gets it: bytes (TCP field = seed) and
/// `Partial` metadata. Reads each held frame's payload from `ring` by id.
fn written(sp: &SuperPacket, ring: &[Vec<u8>]) -> (Vec<u8>, CsumMeta) {
    let mut buf = vec![0u8; sp.len()];
    sp.write_into(&mut buf, |id| ring.get(id as usize).map(|f| f.as_slice()))
        .unwrap();
    (buf, sp.meta())
}

fn main() {
    // The RX ring: 2 interleaved flows of 4 full segments, then a pure ACK.
    let mut ring: Vec<Vec<u8>> = (0..4)
        .flat_map(|n| [segment(1000, n, 1000), segment(2000, n, 1000)])
        .collect();
    ring.push(segment(3000, 0, 0));
    let level = CsumLevel::L0; // ixgbe: "L4 good", outermost checksum only
    let report = DeviceReport::L4Ok { level };

    // One poll: every frame of the budget, then flush (napi_complete_done).
    // Held frames stay in `ring` until the flush below has written them; what
    // goes up is queued in order (Linux `napi->rx_list`).
    let mut gro: Box<Gro<64>> = Box::new(Gro::new(GroConfig::new()));
    let mut rx_list = Vec::new();
    for (id, frame) in ring.iter().enumerate() {
        let meta = state::receive(report).meta;
        let v = gro.receive(frame, id as u32, meta, 0, &mut |sp: &SuperPacket| {
            rx_list.push(written(sp, &ring))
        });
        if let gro::Disposition::PassUp { meta, .. } = v {
            rx_list.push((frame.clone(), meta));
        }
    }
    gro.flush_all(&mut |sp: &SuperPacket| rx_list.push(written(sp, &ring)));

    // The stack validates what it is handed, as `tcp_v4_rcv` would.
    for (bytes, meta) in &rx_list {
        let pkt = Packet::parse(bytes, LinkType::Ethernet).expect("headers");
        assert_eq!(
            state::deliver(meta.clone(), &pkt).expect("TCP").verdict,
            CsumVerdict::Good
        );
    }
    assert_eq!(rx_list.len(), 3, "2 super-packets + the pure ACK");
    assert!(rx_list.iter().any(|(b, _)| b.len() == 14 + 40 + 4000));
    assert_eq!(gro.stats().packets, 9);
    println!(
        "nic_rx: 9 frames -> {} packets for the stack, checksums good",
        rx_list.len()
    );
}
