//! The VXLAN story of 2015 through the state transitions: an outer UDP
//! checksum that a device verified (csum_level), converted to `Complete` so
//! the inner TCP checksum costs no software sum; a zero outer checksum that
//! leaves the inner one to software; a tunnel-aware device covering both.

use crate::support;

use etherparse::PacketBuilder;
use netoffload::state::{
    self, CsumLevel, CsumMeta, CsumState, CsumVerdict, DeviceReport, Packet, Reason,
};
use netoffload::wire::{self, LinkType, consts::ethertype};
use support::oracle::{self, Link, View};
use support::packets::{self, L4};

struct Tunnel {
    bytes: Vec<u8>,
    outer_l3: usize,
    outer_l4: usize,
    inner_l3: usize,
    inner_l4: usize,
}

/// Ethernet/IPv4/UDP:4789/VXLAN/Ethernet/IPv4/TCP. `outer_zero` sends the
/// outer UDP checksum as 0; `corrupt_inner` breaks the inner TCP checksum
/// before encapsulation (so the outer checksum is still correct).
fn vxlan(outer_zero: bool, corrupt_inner: bool) -> Tunnel {
    let (mut inner, at) = packets::build(&packets::simple(
        false,
        L4::Tcp { opt_words: 3 },
        &[0x5Au8; 301],
    ));
    if corrupt_inner {
        inner[at.end - 1] ^= 0x10;
    }
    let mut payload = vec![0x08, 0, 0, 0, 0, 0x12, 0x34, 0];
    payload.extend_from_slice(&inner);
    let builder = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 9], [2, 0, 0, 0, 0, 8])
        .ipv4([172, 16, 0, 1], [172, 16, 0, 2], 64)
        .udp(49152, 4789);
    let mut bytes = Vec::new();
    builder.write(&mut bytes, &payload).unwrap();
    let outer_l3 = 14;
    let outer_l4 = 34;
    if outer_zero {
        bytes[outer_l4 + 6..outer_l4 + 8].fill(0);
    }
    let inner_start = outer_l4 + 16;
    Tunnel {
        bytes,
        outer_l3,
        outer_l4,
        inner_l3: inner_start + at.l3,
        inner_l4: inner_start + at.l4,
    }
}

#[track_caller]
fn sound(t: &Tunnel, cur: usize, levels_from: usize, l4: usize, meta: &CsumMeta) {
    let v = View {
        bytes: &t.bytes,
        link: Link::Ethernet,
        cur,
        levels_from,
        l4,
    };
    oracle::assert_sound(&v, meta);
}

/// Receive path: device report -> pull to outer UDP -> validate -> convert
/// -> pull to the inner TCP -> validate. Returns the inner outcome and the
/// software bytes of the whole pass.
fn receive_path(t: &Tunnel, report: DeviceReport) -> (state::Outcome, usize) {
    let outer = Packet::parse(&t.bytes, LinkType::Ethernet).unwrap();
    assert_eq!(oracle::sites(&t.bytes, Link::Ethernet).len(), 2);
    let mut sw = 0;
    let m = state::receive(report).meta;
    sound(t, t.outer_l3, t.outer_l4, t.outer_l4, &m);
    let p = state::pull(m, &outer, t.outer_l4 - t.outer_l3).unwrap();
    sw += p.sw_bytes;
    let outer = outer.with_cur(t.outer_l4).unwrap();
    let v = state::validate(p.meta, &outer).unwrap();
    assert_ne!(v.verdict, CsumVerdict::Bad);
    sw += v.sw_bytes;
    sound(t, t.outer_l4, t.outer_l4 + 1, t.outer_l4, &v.meta);
    let c = state::try_convert(v.meta, &outer).unwrap();
    sw += c.sw_bytes;
    sound(t, t.outer_l4, t.outer_l4 + 1, t.outer_l4, &c.meta);
    let p = state::pull(c.meta, &outer, t.inner_l4 - t.outer_l4).unwrap();
    sw += p.sw_bytes;
    let layers = wire::parse_ip_at(
        &t.bytes,
        t.inner_l3,
        ethertype::IPV4,
        LinkType::Ethernet,
        0,
        [0; 2],
    )
    .unwrap();
    let inner = Packet::new(&t.bytes, layers, t.inner_l4).unwrap();
    sound(t, t.inner_l4, t.inner_l4, t.inner_l4, &p.meta);
    let i = state::validate(p.meta, &inner).unwrap();
    sw += i.sw_bytes;
    sound(t, t.inner_l4, t.inner_l4 + 1, t.inner_l4, &i.meta);
    (i, sw)
}

#[test]
fn verified_outer_checksum_converts_and_inner_costs_no_payload_sum() {
    let t = vxlan(false, false);
    let (i, sw) = receive_path(
        &t,
        DeviceReport::L4Ok {
            level: CsumLevel::L0,
        },
    );
    assert_eq!(
        (i.verdict, i.reason),
        (CsumVerdict::Good, Reason::CompleteChecked)
    );
    // Only the headers between the outer UDP and the inner TCP were summed.
    assert_eq!(sw, t.inner_l4 - t.outer_l4);
}

#[test]
fn zero_outer_checksum_leaves_the_inner_checksum_to_software() {
    let t = vxlan(true, false);
    let (i, sw) = receive_path(
        &t,
        DeviceReport::L4Ok {
            level: CsumLevel::L0,
        },
    );
    assert_eq!(
        (i.verdict, i.reason),
        (CsumVerdict::Good, Reason::SoftwareVerified)
    );
    assert_eq!(sw, t.bytes.len() - t.inner_l4);
}

#[test]
fn tunnel_aware_device_covers_both_levels() {
    let t = vxlan(true, false);
    let (i, sw) = receive_path(
        &t,
        DeviceReport::L4Ok {
            level: CsumLevel::L1,
        },
    );
    assert_eq!(
        (i.verdict, i.reason),
        (CsumVerdict::Good, Reason::LevelConsumed)
    );
    assert_eq!(i.meta.state(), CsumState::None);
    assert_eq!(sw, 0);
}

#[test]
fn corrupted_inner_under_a_good_outer_checksum_is_caught_by_arithmetic() {
    let t = vxlan(false, true);
    let (i, sw) = receive_path(
        &t,
        DeviceReport::L4Ok {
            level: CsumLevel::L0,
        },
    );
    assert_eq!(
        (i.verdict, i.reason),
        (CsumVerdict::Bad, Reason::BadChecksum)
    );
    assert_eq!(
        sw,
        t.inner_l4 - t.outer_l4,
        "the converted sum is not recomputed"
    );
}

#[test]
fn corrupted_inner_with_full_packet_sum_is_bad() {
    let t = vxlan(true, true);
    let honest = oracle::honest_complete(&t.bytes, t.outer_l3);
    let (i, _) = receive_path(&t, DeviceReport::Complete { csum: honest });
    assert_eq!(i.verdict, CsumVerdict::Bad);
}

#[test]
fn full_packet_sum_validates_both_layers_by_arithmetic() {
    let t = vxlan(false, false);
    let honest = oracle::honest_complete(&t.bytes, t.outer_l3);
    let (i, sw) = receive_path(&t, DeviceReport::Complete { csum: honest });
    assert_eq!(
        (i.verdict, i.reason),
        (CsumVerdict::Good, Reason::CompleteChecked)
    );
    assert!(sw <= t.inner_l4 - t.outer_l3, "headers only: {sw}");
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// VXLAN over IPv4 or IPv6 around any etherparse-built inner frame.
    fn encap(inner: &[u8], outer_v6: bool, outer_zero: bool) -> (Vec<u8>, usize, usize) {
        let mut payload = vec![0x08, 0, 0, 0, 0, 0x12, 0x34, 0];
        payload.extend_from_slice(inner);
        let eth = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 9], [2, 0, 0, 0, 0, 8]);
        let mut bytes = Vec::new();
        if outer_v6 {
            eth.ipv6([0x20; 16], [0xfd; 16], 64)
                .udp(49152, 4789)
                .write(&mut bytes, &payload)
                .unwrap();
        } else {
            eth.ipv4([172, 16, 0, 1], [172, 16, 0, 2], 64)
                .udp(49152, 4789)
                .write(&mut bytes, &payload)
                .unwrap();
        }
        let outer_l4 = if outer_v6 { 54 } else { 34 };
        if outer_zero {
            bytes[outer_l4 + 6..outer_l4 + 8].fill(0);
        }
        (bytes, 14, outer_l4)
    }

    proptest! {
        /// Honest device reports for a tunnelled packet (corrupted before or
        /// after encapsulation, or not at all), then the decap receive path:
        /// every state sound, no layer called good unless it is.
        #[test]
        fn tunnel_receive_path_is_sound(
            mut spec in packets::arb_spec(),
            outer_v6 in any::<bool>(),
            outer_zero in any::<bool>(),
            corrupt in 0u8..3,
            at_byte in any::<usize>(),
            report in 0u8..4,
        ) {
            spec.raw_ip = false;
            let (mut inner, iat) = packets::build(&spec);
            if corrupt == 1 {
                inner[iat.l4 + at_byte % (iat.end - iat.l4)] ^= 0x20; // before encap
            }
            let (mut b, outer_l3, outer_l4) = encap(&inner, outer_v6, outer_zero);
            let base = outer_l4 + 16;
            if corrupt == 2 {
                b[base + iat.l4 + at_byte % (iat.end - iat.l4)] ^= 0x20; // on the wire
            }
            let sites = oracle::sites(&b, Link::Ethernet);
            prop_assert_eq!(sites.len(), 2);
            let good_run = sites.iter().take_while(|s| s.correct).count();
            let inner_counted = sites[1].counted;
            let dev = match report {
                1 if good_run >= 1 => DeviceReport::L4Ok { level: CsumLevel::L0 },
                2 if good_run == 2 || (good_run == 1 && !inner_counted) => {
                    DeviceReport::L4Ok { level: CsumLevel::L1 }
                }
                3 => DeviceReport::Complete { csum: oracle::honest_complete(&b, outer_l3) },
                _ => DeviceReport::None,
            };
            let t = Tunnel {
                bytes: b.clone(),
                outer_l3,
                outer_l4,
                inner_l3: base + iat.l3,
                inner_l4: base + iat.l4,
            };
            let outer = Packet::parse(&t.bytes, LinkType::Ethernet).unwrap();
            let m = state::receive(dev).meta;
            sound(&t, outer_l3, outer_l4, outer_l4, &m);
            let p = state::pull(m, &outer, outer_l4 - outer_l3).unwrap();
            let outer = outer.with_cur(outer_l4).unwrap();
            sound(&t, outer_l4, outer_l4, outer_l4, &p.meta);
            let v = state::validate(p.meta, &outer).unwrap();
            if v.verdict == CsumVerdict::Good {
                prop_assert!(sites[0].correct);
            }
            sound(&t, outer_l4, outer_l4 + 1, outer_l4, &v.meta);
            if v.verdict == CsumVerdict::Bad {
                return Ok(());
            }
            let c = state::try_convert(v.meta, &outer).unwrap();
            sound(&t, outer_l4, outer_l4 + 1, outer_l4, &c.meta);
            let p = state::pull(c.meta, &outer, t.inner_l4 - outer_l4).unwrap();
            sound(&t, t.inner_l4, t.inner_l4, t.inner_l4, &p.meta);
            let et = if spec.v6 { ethertype::IPV6 } else { ethertype::IPV4 };
            let layers = match wire::parse_ip_at(&t.bytes, t.inner_l3, et, LinkType::Ethernet, 0, [0; 2]) {
                Ok(l) => l,
                // A flipped length field: the inner frame no longer parses
                // (a wire error, not a state one).
                Err(_) if corrupt != 0 => return Ok(()),
                Err(e) => panic!("clean inner frame refused: {e:?}"),
            };
            let inner_pkt = Packet::new(&t.bytes, layers, t.inner_l4).unwrap();
            let opts = state::ValidateOptions { zero_udp6: state::ZeroUdp6::Reject };
            let i = state::validate_with(p.meta, &inner_pkt, opts).unwrap();
            if i.verdict == CsumVerdict::Good {
                prop_assert!(sites[1].correct, "inner called good: {:?}", i);
            }
            sound(&t, t.inner_l4, t.inner_l4 + 1, t.inner_l4, &i.meta);
        }
    }
}
