//! `VirtioPolicy::TUN_READ` / `TAP_READ`: what a TUN user reads (the kernel
//! wrote the header as a device: `tun_put_user`, `has_data_valid`).
use netoffload::state::paravirt::setup;
use netoffload::state::paravirt::virtio::{
    Direction, GsoOutcome, VirtioFlags, VirtioNetHdr, VirtioPolicy, gso_type,
};
use netoffload::state::{CsumLevel, CsumState, PartialKind};
use netoffload::wire::LinkType;

/// A 3-segment TCP/IPv4 super-packet as the kernel hands it over: seed in the field.
fn kernel_gso_read() -> (VirtioNetHdr, Vec<u8>) {
    let mut ip = Vec::new();
    etherparse::PacketBuilder::ipv4([10, 9, 0, 1], [10, 9, 0, 2], 64)
        .tcp(443, 50000, 1, 1024)
        .write(&mut ip, &[0xab; 3 * 1400])
        .unwrap();
    let found = setup::checksum_setup(&ip, LinkType::RawIp).unwrap();
    setup::write_seed(&mut ip, &found).unwrap();
    let hdr = VirtioNetHdr {
        flags: VirtioFlags::NEEDS_CSUM,
        gso_type: gso_type::TCPV4,
        // tun_put_user writes skb_headlen, which may exceed the headers.
        hdr_len: 1000,
        gso_size: 1400,
        csum_start: 20,
        csum_offset: 16,
        ..VirtioNetHdr::ZERO
    };
    (hdr, ip)
}

#[test]
fn tun_read_takes_a_kernel_super_packet_on_raw_ip() {
    assert_eq!(VirtioPolicy::TUN_READ.link, LinkType::RawIp);
    assert_eq!(VirtioPolicy::TAP_READ.link, LinkType::Ethernet);
    assert_eq!(VirtioPolicy::TUN_READ.direction, Direction::FromDevice);
    let (hdr, ip) = kernel_gso_read();
    let inbound = hdr.to_meta(&ip, &VirtioPolicy::TUN_READ).unwrap();
    assert_eq!(
        inbound.meta.state(),
        CsumState::Partial {
            start: 20,
            offset: 16,
            kind: PartialKind::Inet
        }
    );
    let GsoOutcome::Segment(p) = inbound.gso else {
        panic!("{:?}", inbound.gso)
    };
    assert_eq!((p.segs, p.hdr_len, p.gso_size), (3, 40, 1400));
}

#[test]
fn tun_read_trusts_the_kernels_data_valid() {
    let mut ip = Vec::new();
    etherparse::PacketBuilder::ipv4([10, 9, 0, 1], [10, 9, 0, 2], 64)
        .tcp(443, 50000, 1, 1024)
        .write(&mut ip, &[1; 100])
        .unwrap();
    let hdr = VirtioNetHdr {
        flags: VirtioFlags::DATA_VALID,
        ..VirtioNetHdr::ZERO
    };
    let inbound = hdr.to_meta(&ip, &VirtioPolicy::TUN_READ).unwrap();
    assert_eq!(
        inbound.meta.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L0
        }
    );
}

#[test]
fn tun_read_refuses_a_seed_that_does_not_match() {
    let (hdr, mut ip) = kernel_gso_read();
    ip[20 + 16] ^= 0x01;
    assert!(hdr.to_meta(&ip, &VirtioPolicy::TUN_READ).is_err());
}

/// Issue 16 seam 1: `to_meta` hands back the layers it parsed (the same as
/// `wire::parse`), and `None` for a frame that does not parse; Xen's blank
/// slot hands back `checksum_setup`'s layers.
#[test]
fn to_meta_hands_back_the_parsed_layers() {
    use netoffload::state::paravirt::virtio::SeedPolicy;
    use netoffload::state::paravirt::xen::{self, XenCsum, XenTrust, XenTxFlags};
    let (hdr, ip) = kernel_gso_read();
    let inbound = hdr.to_meta(&ip, &VirtioPolicy::TUN_READ).unwrap();
    assert_eq!(
        inbound.layers,
        Some(netoffload::wire::parse(&ip, LinkType::RawIp).unwrap())
    );
    // Not IP at all (ARP-like bytes on a tap): accepted without a checksum
    // request, and no layers.
    let junk = [
        0x08u8, 0x06, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x06, 0, 0, 0, 0,
    ];
    let plain = VirtioNetHdr::ZERO
        .to_meta(&junk, &VirtioPolicy::TAP_READ)
        .unwrap();
    assert_eq!(plain.layers, None);
    let mut frame = ip.clone();
    let x = xen::to_meta(
        XenCsum::from_tx(XenTxFlags::CSUM_BLANK),
        &mut frame,
        LinkType::RawIp,
        None,
        XenTrust::Ignore,
        SeedPolicy::Verify,
    )
    .unwrap();
    assert_eq!(
        x.layers,
        Some(netoffload::wire::parse(&ip, LinkType::RawIp).unwrap())
    );
}
