//! Arbitrary bytes -> `wire::parse`: any Ok result's offsets lie inside the input,
//! in order, and agree with etherparse wherever etherparse finds a TCP/UDP header.
#![no_main]

use etherparse::{SlicedPacket, TransportSlice};
use libfuzzer_sys::fuzz_target;
use netoffload::wire::{self, LinkType, Net, Transport};

fn offset_of(base: &[u8], part: &[u8]) -> usize {
    part.as_ptr() as usize - base.as_ptr() as usize
}

fuzz_target!(|data: &[u8]| {
    for link in [LinkType::Ethernet, LinkType::RawIp] {
        let Ok(l) = wire::parse(data, link) else {
            continue;
        };
        assert!(l.l2 <= l.l3 && l.l3 < l.l4 && l.l4 <= l.payload && l.payload <= l.end);
        assert!(l.end <= data.len());
        assert!(l.pseudo_src + if l.net == Net::Ipv4 { 4 } else { 16 } <= l.end);
        assert!(l.pseudo_dst + if l.net == Net::Ipv4 { 4 } else { 16 } <= l.end);
        let theirs = match link {
            LinkType::Ethernet => SlicedPacket::from_ethernet(data),
            LinkType::RawIp => SlicedPacket::from_ip(data),
        };
        let Ok(theirs) = theirs else { continue };
        if l.fragment.is_fragment {
            continue;
        }
        match (theirs.transport, l.transport) {
            (Some(TransportSlice::Tcp(tcp)), Transport::Tcp) => {
                assert_eq!(offset_of(data, tcp.slice()), l.l4, "tcp header offset");
                assert_eq!(l.payload - l.l4, tcp.header_len(), "tcp header length");
            }
            (Some(TransportSlice::Udp(udp)), Transport::Udp) => {
                assert_eq!(offset_of(data, udp.slice()), l.l4, "udp header offset");
            }
            _ => {}
        }
    }
});
