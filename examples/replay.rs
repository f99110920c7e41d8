//! Replay tool (placeholder until the GRO issue lands): parses a built-in packet
//! and prints its layers and checksum verdict.

use netoffload::csum::{self, Wsum};
use netoffload::wire::{self, LinkType};

fn main() {
    let mut frame = [0u8; 14 + 20 + 20 + 4];
    frame[12..14].copy_from_slice(&[0x08, 0x00]);
    let ip = &mut frame[14..34];
    ip.copy_from_slice(&[
        0x45, 0, 0, 44, 0, 1, 0x40, 0, 64, 6, 0, 0, 192, 0, 2, 1, 198, 51, 100, 7,
    ]);
    frame[14 + 20 + 12] = 0x50; // TCP data offset 5 (a zero data offset is refused)
    let hc = csum::ipv4_header(&frame[14..34]);
    frame[24..26].copy_from_slice(&hc.to_bytes());
    let layers = wire::parse(&frame, LinkType::Ethernet).expect("built-in packet parses");
    println!("{layers:#?}");
    println!(
        "ipv4 header checksum verifies: {}",
        csum::fold(csum::partial(&frame[14..34], Wsum::ZERO)).is_zero()
    );
}
