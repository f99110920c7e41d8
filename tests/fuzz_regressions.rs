//! Regression tests for bugs the fuzz targets (fuzz/) found: each feeds the
//! minimized input's situation through the library API and checks it with the
//! independent oracle (tests/support/oracle.rs).

mod support;

use netoffload::state::{self, CsumFlags, CsumMeta, CsumState, Packet, PartialKind, Reason};
use netoffload::wire::LinkType;
use support::oracle::{self, Link, View};
use support::packets::{self, L4};

/// Writes the pseudo-header seed of a TCP/IPv4 packet into its checksum field
/// (a locally generated packet whose checksum is still blank).
fn blank_tcp4(payload: &[u8]) -> (Vec<u8>, packets::Built) {
    let (mut b, at) = packets::build(&packets::simple(false, L4::Tcp { opt_words: 0 }, payload));
    let mut ph = Vec::new();
    ph.extend_from_slice(&b[at.l3 + 12..at.l3 + 20]);
    ph.extend_from_slice(&[0, 6]);
    ph.extend_from_slice(&((at.end - at.l4) as u16).to_be_bytes());
    let seed = oracle::naive_sum(&ph);
    b[at.l4 + 16..at.l4 + 18].copy_from_slice(&seed.to_be_bytes());
    (b, at)
}

/// state_ops: a Xen-style `Partial` + `CSUM_BLANK` + `DATA_VALID` packet
/// validated on receive got `CSUM_VALID` ("this layer's checksum verifies")
/// although its checksum field is still the blank seed.
#[test]
fn data_valid_partial_is_not_csum_valid() {
    let (b, at) = blank_tcp4(b"guest data");
    let m = CsumMeta::new(
        CsumState::Partial {
            start: at.l4,
            offset: 16,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID,
    )
    .unwrap();
    let pkt = Packet::parse(&b, LinkType::Ethernet).unwrap();
    let out = state::validate(m, &pkt).unwrap();
    assert_eq!(out.reason, Reason::DataValidTrusted);
    let view = View {
        bytes: &b,
        link: Link::Ethernet,
        cur: at.l3,
        levels_from: at.l4 + 1,
        l4: at.l4,
    };
    assert_eq!(oracle::check(&view, &out.meta), Ok(()), "{:?}", out.meta);
}
