//! Property tests for `wire`: etherparse-built packets parse to the offsets the
//! builder knows and to what etherparse reports; truncation at every byte is a
//! typed error; arbitrary and mutated bytes never panic any constructor or
//! `parse`, and every Ok parse keeps `l2 <= l3 < l4 <= payload <= end <= len`.

use crate::support::wire_gen;

use etherparse::{NetSlice, SlicedPacket, TcpOptionElement, TransportSlice};
use netoffload::wire::{
    self, EthernetHeader, EthernetHeaderMut, GeneveHeader, GeneveHeaderMut, GreHeader,
    GreHeaderMut, IcmpHeader, IcmpHeaderMut, Ipv4Header, Ipv4HeaderMut, Ipv6ExtHeader,
    Ipv6ExtHeaderMut, Ipv6Header, Ipv6HeaderMut, Layers, LinkType, Net, SctpHeader, SctpHeaderMut,
    TcpFlags, TcpHeader, TcpHeaderMut, TcpOption, Transport, UdpHeader, UdpHeaderMut, VlanTag,
    VlanTagMut, VxlanHeader, VxlanHeaderMut, consts::ipproto, ipv6_ext::FragmentHeader,
};
use proptest::collection::vec;
use proptest::prelude::*;
use wire_gen::{Built, GreSpec};

fn link_of(b: &Built) -> LinkType {
    if b.ethernet {
        LinkType::Ethernet
    } else {
        LinkType::RawIp
    }
}

/// The structural invariants every Ok parse must keep.
fn check_invariants(l: &Layers, len: usize) -> Result<(), TestCaseError> {
    prop_assert!(l.l2 <= l.l3, "{l:?}");
    prop_assert!(l.l3 < l.l4, "{l:?}");
    prop_assert!(l.l4 <= l.payload, "{l:?}");
    prop_assert!(l.payload <= l.end, "{l:?}");
    prop_assert!(l.end <= len, "{l:?} len {len}");
    let alen = match l.net {
        Net::Ipv4 => 4,
        Net::Ipv6 => 16,
    };
    prop_assert!(l.pseudo_src + alen <= l.l4, "{l:?}");
    prop_assert!(l.pseudo_dst + alen <= l.l4, "{l:?}");
    prop_assert!(l.vlan_count as usize <= wire::MAX_VLAN_TAGS);
    prop_assert_eq!(l.transport, Transport::from_proto(l.ip_proto));
    if l.fragment.offset != 0 {
        prop_assert_eq!(l.payload, l.l4, "non-first fragment parsed a transport");
    }
    Ok(())
}

fn offset_in(outer: &[u8], inner: &[u8]) -> usize {
    inner.as_ptr() as usize - outer.as_ptr() as usize
}

/// Every constructor and accessor of every view over `b`; must never panic.
fn exercise_views(b: &[u8]) {
    let mut m = b.to_vec();
    if let Ok(v) = EthernetHeader::new_checked(b) {
        let _ = (v.dst(), v.src(), v.ethertype(), v.header_len());
    }
    if let Ok(v) = VlanTag::new_checked(b) {
        let _ = (v.tci(), v.pcp(), v.dei(), v.vid(), v.ethertype());
    }
    if let Ok(v) = Ipv4Header::new_checked(b) {
        let _ = (
            v.ihl(),
            v.total_len(),
            v.id(),
            v.frag_offset(),
            v.is_fragment(),
        );
        let _ = (
            v.ttl(),
            v.protocol(),
            v.checksum(),
            v.src(),
            v.dst(),
            v.ecn(),
        );
        assert!(v.header_len() <= v.total_len() as usize && v.header_len() <= b.len());
        for o in v.options().flatten() {
            let _ = (o.len(), o.copied());
        }
        let _ = v.validate_options();
    }
    if let Ok(v) = Ipv4Header::new_checked_header(b) {
        assert!(v.header_len() <= b.len());
        let n = v.options().count();
        assert!(n <= 40);
    }
    if let Ok(v) = Ipv6Header::new_checked(b) {
        let _ = (
            v.traffic_class(),
            v.flow_label(),
            v.payload_len(),
            v.next_header(),
        );
        assert!(40 + v.payload_len() as usize <= b.len());
    }
    for proto in [
        ipproto::HOPOPTS,
        ipproto::ROUTING,
        ipproto::DSTOPTS,
        ipproto::FRAGMENT,
        ipproto::AH,
        ipproto::TCP,
    ] {
        if let Ok(v) = Ipv6ExtHeader::new_checked(b, proto) {
            assert!(v.header_len() <= b.len());
            if let Some(opts) = v.options() {
                for o in opts.flatten() {
                    assert!(o.offset + o.data.len() <= v.header_len());
                }
            }
            if let Some(r) = v.routing() {
                let _ = (r.srh_last_entry(), r.srh_flags(), r.srh_tag());
                for i in 0..=r.address_count() {
                    let _ = r.address(i);
                }
                if let Some(off) = r.final_destination_offset() {
                    assert!(off + 16 <= v.header_len());
                }
            }
            if let Some(f) = v.fragment() {
                let _ = (
                    f.offset(),
                    f.more(),
                    f.ident(),
                    f.is_atomic(),
                    f.reserved_bits(),
                );
            }
        }
        let _ = Ipv6ExtHeaderMut::new_checked(&mut m, proto).map(|mut x| x.set_next_header(6));
    }
    let _ = FragmentHeader::new_checked(b).map(|f| f.offset());
    if let Ok(v) = TcpHeader::new_checked(b) {
        let _ = (
            v.seq(),
            v.ack(),
            v.flags(),
            v.window(),
            v.checksum(),
            v.urgent(),
        );
        assert!(v.header_len() <= b.len());
        for (at, o) in v.options().flatten() {
            assert!(at < v.header_len());
            if let TcpOption::Sack(s) = o {
                assert_eq!(s.iter().count(), s.len());
            }
        }
    }
    if let Ok(v) = UdpHeader::new_checked(b) {
        assert!(v.length() as usize <= b.len());
    }
    let _ = UdpHeader::new_checked_header(b).map(|v| v.length());
    let _ = SctpHeader::new_checked(b).map(|v| (v.vtag(), v.crc32c()));
    let _ = IcmpHeader::new_checked(b).map(|v| (v.icmp_type(), v.code(), v.checksum()));
    if let Ok(v) = GreHeader::new_checked(b) {
        assert!(v.header_len() <= b.len());
        let _ = (v.checksum(), v.reserved1(), v.key(), v.sequence(), v.ack());
        let _ = (v.payload_length(), v.call_id(), v.reserved0(), v.protocol());
    }
    if let Ok(v) = VxlanHeader::new_checked(b) {
        let _ = (v.vni(), v.reserved1(), v.reserved2(), v.check_reserved());
    }
    if let Ok(v) = GeneveHeader::new_checked(b) {
        assert!(v.header_len() <= b.len());
        let total: usize = v.options().map(|o| o.total_len()).sum();
        assert_eq!(total + 8, v.header_len(), "options tile the option area");
        let _ = v.any_critical_option();
    }
    // Mutable views: construct and write one field each.
    let _ = EthernetHeaderMut::new_checked(&mut m).map(|mut x| x.set_ethertype(1));
    let _ = VlanTagMut::new_checked(&mut m).map(|mut x| x.set_tci(1));
    let _ = Ipv4HeaderMut::new_checked(&mut m).map(|mut x| x.set_ttl(1));
    let _ = Ipv6HeaderMut::new_checked(&mut m).map(|mut x| x.set_hop_limit(1));
    let _ = TcpHeaderMut::new_checked(&mut m).map(|mut x| x.set_flags(TcpFlags::ACK));
    let _ = UdpHeaderMut::new_checked(&mut m).map(|mut x| x.set_checksum([0, 0]));
    let _ = SctpHeaderMut::new_checked(&mut m).map(|mut x| x.set_crc32c(1));
    let _ = IcmpHeaderMut::new_checked(&mut m).map(|mut x| x.set_checksum([0, 0]));
    let _ = GreHeaderMut::new_checked(&mut m).map(|mut x| x.set_key(1));
    let _ = VxlanHeaderMut::new_checked(&mut m).map(|mut x| x.set_vni(1));
    let _ = GeneveHeaderMut::new_checked(&mut m).map(|mut x| x.set_vni(1));
}

fn ours_from_etherparse(o: &TcpOptionElement) -> Vec<(u8, Vec<u8>)> {
    // Normalise both sides to (kind, data bytes).
    use TcpOptionElement::*;
    match o {
        Noop => vec![(1, vec![])],
        MaximumSegmentSize(m) => vec![(2, m.to_be_bytes().to_vec())],
        WindowScale(s) => vec![(3, vec![*s])],
        SelectiveAcknowledgementPermitted => vec![(4, vec![])],
        SelectiveAcknowledgement(a, rest) => {
            let mut d = Vec::new();
            for (l, r) in core::iter::once(a).chain(rest.iter().flatten()) {
                d.extend(l.to_be_bytes());
                d.extend(r.to_be_bytes());
            }
            vec![(5, d)]
        }
        Timestamp(v, e) => {
            let mut d = v.to_be_bytes().to_vec();
            d.extend(e.to_be_bytes());
            vec![(8, d)]
        }
    }
}

fn normalise(o: &TcpOption) -> Option<(u8, Vec<u8>)> {
    Some(match o {
        TcpOption::EndOfList => return None,
        TcpOption::Nop => (1, vec![]),
        TcpOption::Mss(m) => (2, m.to_be_bytes().to_vec()),
        TcpOption::WindowScale(s) => (3, vec![*s]),
        TcpOption::SackPermitted => (4, vec![]),
        TcpOption::Sack(s) => (
            5,
            s.iter()
                .flat_map(|(l, r)| l.to_be_bytes().into_iter().chain(r.to_be_bytes()))
                .collect(),
        ),
        TcpOption::Timestamp { value, echo } => (
            8,
            value
                .to_be_bytes()
                .into_iter()
                .chain(echo.to_be_bytes())
                .collect(),
        ),
        TcpOption::Unknown { kind, data } => (*kind, data.to_vec()),
    })
}

/// Compares our parse and views with etherparse's reading of the same bytes.
fn compare_with_etherparse(b: &Built, l: &Layers) -> Result<(), TestCaseError> {
    let bytes = &b.bytes[..];
    let sliced = if b.ethernet {
        SlicedPacket::from_ethernet(bytes)
    } else {
        SlicedPacket::from_ip(bytes)
    }
    .map_err(|e| TestCaseError::fail(format!("etherparse refused: {e:?}")))?;
    let vids: Vec<u16> = sliced.vlan_ids().iter().map(|v| v.value()).collect();
    prop_assert_eq!(&vids[..], &l.vlan_tci[..l.vlan_count as usize]);
    match sliced.net.as_ref() {
        Some(NetSlice::Ipv4(ip)) => {
            let h = ip.header();
            prop_assert_eq!(offset_in(bytes, h.slice()), l.l3);
            prop_assert_eq!(l.l3 + h.slice().len(), l.l4);
            let p = ip.payload();
            prop_assert_eq!(p.ip_number.0, l.ip_proto);
            prop_assert_eq!(offset_in(bytes, p.payload), l.l4);
            prop_assert_eq!(l.l4 + p.payload.len(), l.end);
            prop_assert_eq!(p.fragmented, l.fragment.is_fragment);
            let v = Ipv4Header::new_checked(&bytes[l.l3..]).unwrap();
            prop_assert_eq!(v.src(), h.source());
            prop_assert_eq!(v.dst(), h.destination());
            prop_assert_eq!(v.ttl(), h.ttl());
            prop_assert_eq!(v.id(), h.identification());
            prop_assert_eq!(v.total_len(), h.total_len());
            prop_assert_eq!(v.more_fragments(), h.more_fragments());
            prop_assert_eq!(v.dont_fragment(), h.dont_fragment());
            prop_assert_eq!(v.frag_offset(), h.fragments_offset().value() as usize * 8);
            prop_assert_eq!(u16::from_be_bytes(v.checksum()), h.header_checksum());
            prop_assert_eq!(v.options_bytes(), h.options());
            prop_assert!(v.validate_options().is_ok());
        }
        Some(NetSlice::Ipv6(ip)) => {
            let h = ip.header();
            prop_assert_eq!(offset_in(bytes, h.slice()), l.l3);
            let p = ip.payload();
            prop_assert_eq!(p.ip_number.0, l.ip_proto);
            prop_assert_eq!(offset_in(bytes, p.payload), l.l4);
            let v6_len = u16::from_be_bytes([bytes[l.l3 + 4], bytes[l.l3 + 5]]);
            if v6_len == 0 {
                // An empty datagram (payload length 0, no Jumbo option: RFC
                // 2675, Linux `ipv6_rcv`); etherparse reads a 0 as "to the
                // end of the slice", padding included.
                prop_assert_eq!(l.end, l.l4);
            } else {
                prop_assert_eq!(l.l4 + p.payload.len(), l.end);
            }
            prop_assert_eq!(p.fragmented, l.fragment.is_fragment);
            let v = Ipv6Header::new_checked(&bytes[l.l3..]).unwrap();
            prop_assert_eq!(v.src(), h.source());
            prop_assert_eq!(v.dst(), h.destination());
            prop_assert_eq!(v.hop_limit(), h.hop_limit());
            prop_assert_eq!(v.payload_len(), h.payload_length());
        }
        other => prop_assert!(false, "etherparse saw no IP: {other:?}"),
    }
    match sliced.transport.as_ref() {
        Some(TransportSlice::Tcp(t)) => {
            prop_assert_eq!(offset_in(bytes, t.slice()), l.l4);
            prop_assert_eq!(offset_in(bytes, t.payload()), l.payload);
            let v = TcpHeader::new_checked(&bytes[l.l4..l.end]).unwrap();
            prop_assert_eq!(v.src_port(), t.source_port());
            prop_assert_eq!(v.dst_port(), t.destination_port());
            prop_assert_eq!(v.seq(), t.sequence_number());
            prop_assert_eq!(v.ack(), t.acknowledgment_number());
            prop_assert_eq!(v.data_offset(), t.data_offset());
            prop_assert_eq!(v.window(), t.window_size());
            prop_assert_eq!(u16::from_be_bytes(v.checksum()), t.checksum());
            prop_assert_eq!(v.urgent(), t.urgent_pointer());
            let f = v.flags();
            prop_assert_eq!(f.contains(TcpFlags::SYN), t.syn());
            prop_assert_eq!(f.contains(TcpFlags::FIN), t.fin());
            prop_assert_eq!(f.contains(TcpFlags::ACK), t.ack());
            prop_assert_eq!(f.contains(TcpFlags::RST), t.rst());
            prop_assert_eq!(f.contains(TcpFlags::PSH), t.psh());
            prop_assert_eq!(f.contains(TcpFlags::URG), t.urg());
            prop_assert_eq!(f.contains(TcpFlags::ECE), t.ece());
            prop_assert_eq!(f.contains(TcpFlags::CWR), t.cwr());
            let theirs: Vec<_> = t
                .options_iterator()
                .map(|o| o.expect("etherparse reads the options it wrote"))
                .flat_map(|o| ours_from_etherparse(&o))
                .collect();
            let ours: Vec<_> = v
                .options()
                .map(|o| o.expect("valid options"))
                .filter_map(|(_, o)| normalise(&o))
                .collect();
            prop_assert_eq!(ours, theirs);
        }
        Some(TransportSlice::Udp(u)) => {
            prop_assert_eq!(offset_in(bytes, u.slice()), l.l4);
            prop_assert_eq!(offset_in(bytes, u.payload()), l.payload);
            let v = UdpHeader::new_checked(&bytes[l.l4..l.end]).unwrap();
            prop_assert_eq!(v.src_port(), u.source_port());
            prop_assert_eq!(v.dst_port(), u.destination_port());
            prop_assert_eq!(v.length(), u.length());
            prop_assert_eq!(u16::from_be_bytes(v.checksum()), u.checksum());
        }
        Some(TransportSlice::Icmpv4(i)) => {
            prop_assert_eq!(offset_in(bytes, i.slice()), l.l4);
            let v = IcmpHeader::new_checked(&bytes[l.l4..l.end]).unwrap();
            prop_assert_eq!(u16::from_be_bytes(v.checksum()), i.checksum());
        }
        Some(TransportSlice::Icmpv6(i)) => {
            prop_assert_eq!(offset_in(bytes, i.slice()), l.l4);
            let v = IcmpHeader::new_checked(&bytes[l.l4..l.end]).unwrap();
            prop_assert_eq!(u16::from_be_bytes(v.checksum()), i.checksum());
        }
        Some(other) => prop_assert!(false, "unexpected transport {other:?}"),
        None => {}
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Valid packets of every kind parse to the builder's offsets and to
    /// etherparse's reading, field by field.
    #[test]
    fn built_packets_parse_like_the_builder_and_etherparse(b in wire_gen::packet()) {
        let l = wire::parse(&b.bytes, link_of(&b))
            .map_err(|e| TestCaseError::fail(format!("{e} for {:?}", b.spec)))?;
        check_invariants(&l, b.bytes.len())?;
        prop_assert_eq!(l.l2, if b.ethernet { 0 } else { b.l3 });
        prop_assert_eq!(l.vlan_count as usize, b.vlan_tci.len());
        prop_assert_eq!(&l.vlan_tci[..b.vlan_tci.len()], &b.vlan_tci[..]);
        prop_assert_eq!(l.l3, b.l3);
        prop_assert_eq!(l.net == Net::Ipv6, b.v6);
        prop_assert_eq!(l.l4, b.l4);
        prop_assert_eq!(l.ip_proto, b.ip_proto);
        prop_assert_eq!(l.payload, b.payload);
        prop_assert_eq!(l.end, b.end, "padding is not part of the datagram");
        prop_assert_eq!(l.fragment.offset, b.frag_offset);
        prop_assert_eq!(l.fragment.more, b.frag_more);
        prop_assert_eq!(l.fragment.has_header, b.frag_header);
        prop_assert_eq!(l.fragment.is_fragment, b.frag_offset != 0 || b.frag_more);
        prop_assert_eq!(l.pseudo_src, b.pseudo_src);
        prop_assert_eq!(l.pseudo_dst, b.pseudo_dst);
        compare_with_etherparse(&b, &l)?;
    }

    /// Cutting a valid packet anywhere inside its datagram is a typed error at
    /// or before the cut; cutting only padding changes nothing.
    #[test]
    fn truncation_at_every_offset(b in wire_gen::packet()) {
        let link = link_of(&b);
        let full = wire::parse(&b.bytes, link).unwrap();
        for cut in 0..=b.bytes.len() {
            match wire::parse(&b.bytes[..cut], link) {
                Ok(l) => {
                    prop_assert!(cut >= b.end, "Ok at cut {cut} < end {}", b.end);
                    prop_assert_eq!(l, full);
                }
                Err(e) => {
                    prop_assert!(cut < b.end, "error {e} at cut {cut} >= end {}", b.end);
                    prop_assert!(e.offset <= cut, "error offset {} beyond cut {cut}: {e}", e.offset);
                }
            }
        }
    }

    /// Arbitrary bytes into every constructor and `parse` never panic; an Ok
    /// parse keeps its invariants.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..160)) {
        exercise_views(&bytes);
        for link in [LinkType::Ethernet, LinkType::RawIp] {
            if let Ok(l) = wire::parse(&bytes, link) {
                check_invariants(&l, bytes.len())?;
            }
        }
    }

    /// Valid packets with a few bytes flipped: deeper paths than random bytes
    /// reach. No panic; invariants hold; every view at every layer offset is safe.
    #[test]
    fn mutated_packets_never_panic(
        b in wire_gen::packet(),
        flips in vec((any::<prop::sample::Index>(), 1u8..), 1..4),
    ) {
        let mut bytes = b.bytes.clone();
        for (i, x) in flips {
            let at = i.index(bytes.len());
            bytes[at] ^= x;
        }
        let link = link_of(&b);
        if let Ok(l) = wire::parse(&bytes, link) {
            check_invariants(&l, bytes.len())?;
            for at in [l.l3, l.l4, l.payload] {
                exercise_views(&bytes[at..]);
            }
        }
        for at in [b.l3, b.l4] {
            exercise_views(&bytes[at.min(bytes.len())..]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// GRE headers encoded from the RFCs read back field by field; every
    /// shorter prefix is an error.
    #[test]
    fn gre_fields_and_truncation(g in wire_gen::gre(), tail in vec(any::<u8>(), 0..8)) {
        let mut b = g.encode();
        let len = b.len();
        b.extend(tail);
        let v = GreHeader::new_checked(&b).unwrap();
        prop_assert_eq!(v.header_len(), len);
        prop_assert_eq!(v.version() == wire::GreVersion::Enhanced, g.enhanced);
        prop_assert_eq!(v.protocol(), g.protocol);
        prop_assert_eq!(v.checksum(), g.checksum.map(u16::to_be_bytes));
        prop_assert_eq!(v.key(), g.key);
        prop_assert_eq!(v.sequence(), g.seq);
        prop_assert_eq!(v.ack(), g.ack);
        if g.enhanced {
            prop_assert_eq!(v.payload_length(), g.key.map(|k| (k >> 16) as u16));
            prop_assert_eq!(v.call_id(), g.key.map(|k| k as u16));
        }
        if let Some(at) = v.checksum_offset() {
            prop_assert_eq!(&b[at..at + 2], &g.checksum.unwrap().to_be_bytes());
        }
        for cut in 0..len {
            prop_assert!(GreHeader::new_checked(&b[..cut]).is_err());
        }
        // Rewriting the optional words lands on the same bytes the encoder wrote.
        let mut m = b.clone();
        let mut w = GreHeaderMut::new_checked(&mut m).unwrap();
        let _ = w.set_key(0xA5A5_A5A5);
        let _ = w.set_sequence(0x5A5A_5A5A);
        let _ = w.set_ack(0x0F0F_0F0F);
        let _ = w.set_checksum([0xC3, 0x3C]);
        let back = GreSpec {
            checksum: g.checksum.map(|_| 0xC33C),
            key: g.key.map(|_| 0xA5A5_A5A5),
            seq: g.seq.map(|_| 0x5A5A_5A5A),
            ack: g.ack.map(|_| 0x0F0F_0F0F),
            ..g.clone()
        };
        prop_assert_eq!(&m[..len], &back.encode()[..]);
        prop_assert_eq!(&m[len..], &b[len..]);
    }

    /// GENEVE headers encoded from RFC 8926 read back, options in order;
    /// every shorter prefix is an error.
    #[test]
    fn geneve_fields_options_and_truncation(g in wire_gen::geneve(), tail in vec(any::<u8>(), 0..8)) {
        let mut b = g.encode();
        let len = b.len();
        b.extend(tail);
        let v = GeneveHeader::new_checked(&b).unwrap();
        prop_assert_eq!(v.header_len(), len);
        prop_assert_eq!((v.is_oam(), v.has_critical_flag()), (g.oam, g.critical));
        prop_assert_eq!((v.protocol(), v.vni()), (g.protocol, g.vni));
        let got: Vec<(u16, u8, Vec<u8>)> =
            v.options().map(|o| (o.class(), o.option_type(), o.data().to_vec())).collect();
        prop_assert_eq!(&got, &g.options);
        prop_assert_eq!(
            v.any_critical_option(),
            g.options.iter().any(|o| o.1 & 0x80 != 0)
        );
        for cut in 0..len {
            prop_assert!(GeneveHeader::new_checked(&b[..cut]).is_err());
        }
        let mut m = b.clone();
        let mut w = GeneveHeaderMut::new_checked(&mut m).unwrap();
        w.set_vni(g.vni ^ 0xFF_FFFF);
        w.set_protocol(!g.protocol);
        prop_assert_eq!(w.view().vni(), g.vni ^ 0xFF_FFFF);
        prop_assert_eq!(&m[8..], &b[8..]);
    }

    /// VXLAN: VNI and reserved bits read back; the I flag is required.
    #[test]
    fn vxlan_fields(vni in 0u32..1 << 24, flags in any::<u8>(), r1 in any::<[u8; 3]>(), r2 in any::<u8>()) {
        let mut b = vec![flags];
        b.extend(r1);
        b.extend(&vni.to_be_bytes()[1..]);
        b.push(r2);
        match VxlanHeader::new_checked(&b) {
            Ok(v) => {
                prop_assert!(flags & 0x08 != 0);
                prop_assert_eq!(v.vni(), vni);
                prop_assert_eq!(v.reserved_flags(), flags & !0x08);
                prop_assert_eq!(v.reserved2(), r2);
                prop_assert_eq!(v.check_reserved().is_ok(), flags == 0x08 && r2 == 0);
            }
            Err(e) => {
                prop_assert!(flags & 0x08 == 0);
                prop_assert_eq!(e.field, wire::Field::VxlanFlags);
            }
        }
    }
}
