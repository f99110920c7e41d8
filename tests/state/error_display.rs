//! Every error type of the crate is a `core::error::Error` (with or without
//! the `std` feature), and every variant `Display`s a sentence: no
//! Debug-style `Name:` or `Name {` prefix, and the value it carries in the
//! text.
use core::fmt::Display;

use netoffload::csum::{Sum16, Unsupported};
use netoffload::encap::{DecapError, EncapError};
use netoffload::gro::WriteError;
use netoffload::state::paravirt::{BoundaryError, MetaErrorKind, MetaField, Rule};
use netoffload::state::{CsumMeta, MetaError, Refused, Span, StateError};
use netoffload::tx::{PlanError, TunnelField, TxError};
use netoffload::wire::{Absent, ErrorKind, Field, GsoType, Layer, Net, ParseError, Transport};

/// Compiles only if `E` is a `core::error::Error`.
fn is_error<E: core::error::Error>() {}

#[test]
fn every_error_type_is_a_core_error() {
    is_error::<WriteError>();
    is_error::<Unsupported>();
    is_error::<ParseError>();
    is_error::<Absent>();
    is_error::<MetaError>();
    is_error::<StateError>();
    is_error::<Refused<StateError>>();
    is_error::<BoundaryError>();
    is_error::<DecapError>();
    is_error::<EncapError>();
    is_error::<Refused<DecapError>>();
    is_error::<Refused<EncapError>>();
    is_error::<Refused<BoundaryError>>();
    is_error::<TxError>();
    is_error::<Refused<TxError>>();
    is_error::<PlanError>();
}

#[test]
fn a_refusal_names_its_error_as_the_source() {
    use core::error::Error;
    let r = Refused::new(CsumMeta::NONE, StateError::Fragment);
    let src = r.source().expect("the room's error is the source");
    assert_eq!(src.to_string(), StateError::Fragment.to_string());
}

/// The text of `e` is a sentence that mentions every one of `values`.
#[track_caller]
fn sentence(e: &dyn Display, values: &[&str]) {
    let s = e.to_string();
    let first = s.split_whitespace().next().unwrap_or("");
    assert!(
        !first.ends_with(':') && !s.contains(" { ") && !s.contains("(\""),
        "Debug-style text: {s}"
    );
    assert!(s.len() > 12 && s.contains(' '), "not a sentence: {s}");
    for v in values {
        assert!(s.contains(v), "{s:?} does not mention {v:?}");
    }
}

fn parse_error(kind: ErrorKind) -> ParseError {
    ParseError::new(Layer::Ipv4, Field::TotalLength, kind, 14)
}

#[test]
fn wire_errors() {
    let cases: [(ErrorKind, &[&str]); 5] = [
        (
            ErrorKind::Truncated {
                needed: 20,
                available: 7,
            },
            &["IPv4", "20", "7", "14"],
        ),
        (
            ErrorKind::LengthBeyondBuffer {
                claimed: 9000,
                available: 60,
            },
            &["total length 9000", "60"],
        ),
        (
            ErrorKind::LengthTooSmall { value: 12, min: 20 },
            &["total length 12", "20"],
        ),
        (ErrorKind::Unsupported { value: 0x6 }, &["0x6"]),
        (ErrorKind::TooDeep { limit: 8 }, &["8"]),
    ];
    for (kind, values) in cases {
        sentence(&parse_error(kind), values);
    }
    sentence(
        &Absent {
            layer: Layer::Gre,
            field: Field::Key,
        },
        &["GRE", "key"],
    );
}

#[test]
fn state_errors() {
    for e in [
        MetaError::CompleteSwWithoutComplete,
        MetaError::BlankWithComplete,
        MetaError::BlankWithoutPartial,
    ] {
        sentence(&e, &[]);
    }
    let cases: [(StateError, &[&str]); 10] = [
        (
            StateError::OutOfBounds {
                what: Span::PartialField,
                offset: 4321,
                len: 60,
            },
            &["Partial checksum field", "4321", "60"],
        ),
        (
            StateError::LayerNotHandled {
                transport: Transport::Sctp,
            },
            &["Sctp"],
        ),
        (StateError::Fragment, &[]),
        (
            StateError::CurPastLayer { cur: 54, layer: 34 },
            &["54", "34"],
        ),
        (StateError::TtlExpired { ttl: 1 }, &["TTL 1"]),
        (
            StateError::HopLimitExpired { hop_limit: 1 },
            &["hop limit 1"],
        ),
        (StateError::AddressFamily, &[]),
        (StateError::PartialElsewhere { field: 40 }, &["40"]),
        (StateError::NotIpv4, &[]),
        (
            StateError::Meta(MetaError::BlankWithoutPartial),
            &["CSUM_BLANK"],
        ),
    ];
    for (e, values) in cases {
        sentence(&e, values);
        sentence(
            &Refused {
                meta: CsumMeta::NONE,
                error: e,
            },
            values,
        );
    }
}

#[test]
fn boundary_errors() {
    let f = MetaField::VirtioCsumOffset;
    let cases: [(BoundaryError, &[&str]); 10] = [
        (
            BoundaryError::new(
                MetaField::HeaderBytes,
                MetaErrorKind::Truncated {
                    needed: 12,
                    available: 10,
                },
            ),
            &["12", "10"],
        ),
        (
            BoundaryError::unsupported(MetaField::VirtioGsoType, 0x7),
            &["virtio gso_type", "0x7"],
        ),
        (
            BoundaryError::out_of_packet(MetaField::VirtioCsumStart, 4000, 60),
            &["virtio csum_start", "4000", "60"],
        ),
        (
            BoundaryError::mismatch(f, 16, 6),
            &["virtio csum_offset 6", "16"],
        ),
        (
            BoundaryError::mismatch(MetaField::DpdkOlFlags, 0x100, 0x300),
            &["DPDK ol_flags 0x300", "0x100"],
        ),
        (
            BoundaryError::new(MetaField::VirtioGsoSize, MetaErrorKind::Zero),
            &["virtio gso_size", "0"],
        ),
        (
            BoundaryError::new(
                MetaField::DpdkTsoSegsz,
                MetaErrorKind::TooLarge {
                    value: 70000,
                    max: 65535,
                },
            ),
            &["DPDK tso_segsz 70000", "65535"],
        ),
        (
            BoundaryError::forbidden(MetaField::VirtioFlags, Rule::RscInfoOnTransmit),
            &["virtio flags", "RSC_INFO"],
        ),
        (
            BoundaryError::forbidden(MetaField::DpdkOlFlags, Rule::DpdkIpv4TsoWithoutIpChecksum),
            &["DPDK ol_flags", "TX_IP_CKSUM"],
        ),
        (
            BoundaryError::from(parse_error(ErrorKind::Unsupported { value: 0x6 })),
            &["0x6", "IPv4"],
        ),
    ];
    for (e, values) in cases {
        sentence(&e, values);
    }
}

#[test]
fn encap_errors() {
    let decap: [(DecapError, &[&str]); 10] = [
        (DecapError::NotTunnel, &[]),
        (DecapError::OuterFragment { offset: 14 }, &["14"]),
        (DecapError::BadContext { offset: 999 }, &["999"]),
        (
            DecapError::Header(parse_error(ErrorKind::TooDeep { limit: 3 })),
            &["3"],
        ),
        (
            DecapError::InnerNotIp {
                ethertype: 0x0806,
                offset: 50,
            },
            &["0x0806", "50"],
        ),
        (
            DecapError::BadOuterChecksum {
                layer: Layer::Udp,
                offset: 34,
                field: Sum16::from_raw(0x1234),
            },
            &["UDP", "34"],
        ),
        (DecapError::ZeroChecksumIpv6 { port: 4789 }, &["4789"]),
        (DecapError::CriticalOptions { offset: 42 }, &["42"]),
        (DecapError::TooDeep { limit: 4 }, &["4"]),
        (
            DecapError::Meta(MetaError::BlankWithComplete),
            &["Complete"],
        ),
    ];
    for (e, values) in decap {
        sentence(&e, values);
        sentence(
            &Refused {
                meta: CsumMeta::NONE,
                error: e,
            },
            values,
        );
    }
    let encap: [(EncapError, &[&str]); 10] = [
        (
            EncapError::Headroom {
                needed: 50,
                available: 14,
            },
            &["50", "14"],
        ),
        (EncapError::InnerRange, &[]),
        (EncapError::TooLong { len: 70000 }, &["70000"]),
        (EncapError::InnerProtocol, &[]),
        (EncapError::GeneveOptions, &[]),
        (EncapError::Vni, &[]),
        (EncapError::ZeroChecksumIpv6, &[]),
        (EncapError::InnerCrcPartial, &[]),
        (EncapError::PartialOutOfRange, &[]),
        (EncapError::Meta(MetaError::CompleteSwWithoutComplete), &[]),
    ];
    for (e, values) in encap {
        sentence(&e, values);
    }
}

#[test]
fn tx_errors() {
    let cases: [(TxError, &[&str]); 16] = [
        (
            TxError::LayersBeyondBuffer {
                end: 1514,
                available: 60,
            },
            &["1514", "60"],
        ),
        (TxError::LayersOutOfOrder, &[]),
        (
            TxError::PartialOutOfRange {
                start: 34,
                offset: 16,
                end: 40,
            },
            &["34", "16", "40"],
        ),
        (TxError::GsoSizeZero, &[]),
        (
            TxError::GsoSizeBeyondPayload {
                gso_size: 1448,
                payload: 100,
            },
            &["1448", "100"],
        ),
        (
            TxError::GsoTypeMismatch {
                gso_type: GsoType::TCPV4,
                net: Net::Ipv6,
                transport: Transport::Udp,
            },
            &["TCPV4", "Ipv6", "Udp"],
        ),
        (
            TxError::TunnelLayersMissing {
                gso_type: GsoType::UDP_TUNNEL,
            },
            &["UDP_TUNNEL"],
        ),
        (
            TxError::TunnelMismatch {
                field: TunnelField::GreChecksumBit,
            },
            &["GRE C bit"],
        ),
        (TxError::Fragment, &[]),
        (TxError::LengthFieldOverflow { length: 70000 }, &["70000"]),
        (TxError::Jumbogram, &[]),
        (
            TxError::TooFewBuffers {
                needed: 5,
                given: 3,
            },
            &["5", "3"],
        ),
        (
            TxError::BufferTooSmall {
                index: 2,
                needed: 1514,
                available: 1500,
            },
            &["2", "1514", "1500"],
        ),
        (
            TxError::SegmentIndexOutOfRange { index: 9, count: 4 },
            &["9", "4"],
        ),
        (
            TxError::Fill {
                error: StateError::PartialElsewhere { field: 40 },
            },
            &["40"],
        ),
        (TxError::NotAFill, &[]),
    ];
    for (e, values) in cases {
        sentence(&e, values);
        sentence(
            &Refused {
                meta: CsumMeta::NONE,
                error: e,
            },
            values,
        );
    }
    let plan: [(PlanError, &[&str]); 7] = [
        (PlanError::FragsOverflow { max_frags: 99 }, &["99"]),
        (
            PlanError::RingTooSmall {
                slots: 4,
                min_slots: 19,
            },
            &["4", "19"],
        ),
        (
            PlanError::PacketTooLarge {
                index: 3,
                data_descriptors: 101,
                max: 18,
            },
            &["3", "101", "18"],
        ),
        (
            PlanError::ContextOutOfRange {
                csum_start: 70000,
                csum_offset: 16,
            },
            &["70000"],
        ),
        (
            PlanError::WakeThreshold {
                threshold: 2,
                min: 19,
                max: 256,
            },
            &["2", "19", "256"],
        ),
        (
            PlanError::SlotsMismatch {
                config: 128,
                ring: 256,
            },
            &["128", "256"],
        ),
        (
            PlanError::TooManyFrags {
                nr_frags: 20,
                max_frags: 17,
            },
            &["20", "17"],
        ),
    ];
    for (e, values) in plan {
        sentence(&e, values);
    }
}

#[test]
fn gro_and_csum_errors() {
    sentence(
        &WriteError::BufferTooSmall {
            needed: 9000,
            available: 1500,
        },
        &["9000", "1500"],
    );
    sentence(&WriteError::MissingPayload { id: 77 }, &["77"]);
    sentence(
        &Unsupported {
            requested: "avx512",
            best: "avx2",
        },
        &["avx512", "avx2"],
    );
}
