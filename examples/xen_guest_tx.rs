//! A Xen guest transmits with a blank checksum (`NETTXF_csum_blank`): the
//! backend turns the flags into metadata, the packet crosses a bridge and
//! conntrack, and leaves through a device without checksum offload, which
//! means filling the field in software just before the wire (the 2005 bug:
//! a blank field must never reach the wire, nor be judged "bad" on the way).
//!
//! I have: a guest frame and its netif TX flags.
//! I want: to forward it through the host and send it on a plain NIC.
//! Use: `paravirt::xen::to_meta` (its layers), `state::bridge`, `state::conntrack`,
//! `tx::decide`, `tx::fill_software`.
//!
//! Run: `cargo run --example xen_guest_tx` (it asserts its results).
use netoffload::state::paravirt::virtio::SeedPolicy;
use netoffload::state::paravirt::{setup, xen};
use netoffload::state::{self, ConntrackConfig, CsumMeta, CsumVerdict, Hook, Packet};
use netoffload::tx::{self, Device, Features, TxAction};
use netoffload::wire::LinkType;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The guest builds a TCP packet and, offloading, leaves only the
    // pseudo-header seed in the checksum field (netfront's job).
    let mut frame = Vec::new();
    etherparse::PacketBuilder::ethernet2([0, 0x16, 0x3e, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([10, 1, 0, 5], [10, 1, 0, 1], 64)
        .tcp(5555, 22, 7, 4096)
        .write(&mut frame, b"guest data, checksum still blank")?;
    let found = setup::checksum_setup(&frame, LinkType::Ethernet)?;
    setup::write_seed(&mut frame, &found)?;
    let flags = xen::XenTxFlags::CSUM_BLANK | xen::XenTxFlags::DATA_VALIDATED;

    // netback: flags -> metadata (checks the seed is really there).
    let inbound = xen::to_meta(
        xen::XenCsum::from_tx(flags),
        &mut frame,
        LinkType::Ethernet,
        None,
        xen::XenTrust::Unnecessary,
        SeedPolicy::Verify,
    )?;
    assert!(inbound.meta.is_blank());

    // The bridge keeps both Xen facts; conntrack trusts the local Partial
    // instead of calling the blank field bad.
    let meta = state::bridge(inbound.meta).meta;
    let pkt = Packet::parse(&frame, LinkType::Ethernet)?;
    let ct = state::conntrack(meta, &pkt, Hook::PreRouting, ConntrackConfig::default())?;
    assert_eq!(ct.verdict, CsumVerdict::Good);

    // The outgoing NIC offloads nothing: the decision is a software fill
    // (on the layers netback's checksum_setup parsed).
    let layers = inbound.layers.expect("a blank slot is parsed");
    let nic = Device::new(Features::empty());
    let action = tx::decide(&ct.meta, &layers, None, &nic)?;
    assert!(matches!(action, TxAction::FillSoftware(_)), "{action:?}");
    let sent = tx::fill_software(&mut frame, &layers, ct.meta, &action)?;
    assert!(!sent.is_blank());

    // What reaches the wire verifies from scratch.
    let check = state::validate(CsumMeta::NONE, &Packet::parse(&frame, LinkType::Ethernet)?)?;
    assert_eq!(check.verdict, CsumVerdict::Good);
    println!(
        "xen_guest_tx: blank checksum bridged, tracked, filled in software; wire bytes verify"
    );
    Ok(())
}
