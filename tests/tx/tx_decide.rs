//! Transmit decisions: every action, executed (device emulated naively,
//! software fill by the crate), leaves a packet whose checksums verify from
//! scratch; blank packets never leave blank; each refusal has its reason.
use crate::support;
use crate::support::tx as tx_support;

use netoffload::csum::Wsum;
use netoffload::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use netoffload::tx::{
    self, Device, DoneReason, Features, FillReason, GsoInfo, OffloadReason, SegmentCsum,
    SegmentReason, TxAction, TxError,
};
use netoffload::wire::{self, GsoType, LinkType};
use proptest::prelude::*;
use support::oracle::{self, Link};
use tx_support::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tcp4,
    Udp4,
    Tcp6,
    Udp6,
    Tcp6Ext,
    Icmp4,
    Icmp6,
    Sctp4,
}

const KINDS: [Kind; 8] = [
    Kind::Tcp4,
    Kind::Udp4,
    Kind::Tcp6,
    Kind::Udp6,
    Kind::Tcp6Ext,
    Kind::Icmp4,
    Kind::Icmp6,
    Kind::Sctp4,
];

/// A packet built by hand with a correct checksum: (frame, l4, field offset, is crc).
fn build(kind: Kind, payload: &[u8]) -> (Vec<u8>, usize, usize, bool) {
    let v6 = matches!(kind, Kind::Tcp6 | Kind::Udp6 | Kind::Tcp6Ext | Kind::Icmp6);
    let (proto, l4hdr, off): (u8, Vec<u8>, usize) = match kind {
        Kind::Tcp4 | Kind::Tcp6 | Kind::Tcp6Ext => {
            let mut h = vec![0u8; 20];
            h[0..2].copy_from_slice(&1234u16.to_be_bytes());
            h[2..4].copy_from_slice(&80u16.to_be_bytes());
            h[4..8].copy_from_slice(&7u32.to_be_bytes());
            h[12] = 5 << 4;
            h[13] = 0x18;
            h[14] = 0x20;
            (6, h, 16)
        }
        Kind::Udp4 | Kind::Udp6 => {
            let mut h = vec![0u8; 8];
            h[0..2].copy_from_slice(&53u16.to_be_bytes());
            h[2..4].copy_from_slice(&5353u16.to_be_bytes());
            h[4..6].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
            (17, h, 6)
        }
        Kind::Icmp4 => (1, vec![8, 0, 0, 0, 0, 1, 0, 2], 2),
        Kind::Icmp6 => (58, vec![128, 0, 0, 0, 0, 1, 0, 2], 2),
        Kind::Sctp4 => {
            let mut h = vec![0u8; 12];
            h[0..2].copy_from_slice(&36412u16.to_be_bytes());
            h[2..4].copy_from_slice(&36412u16.to_be_bytes());
            h[4..8].copy_from_slice(&0xdeadbeefu32.to_be_bytes());
            (132, h, 8)
        }
    };
    let l4_len = l4hdr.len() + payload.len();
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
    f.extend_from_slice(if v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
    if v6 {
        let ext = kind == Kind::Tcp6Ext;
        let plen = l4_len + if ext { 8 } else { 0 };
        f.extend_from_slice(&[0x60, 0, 0, 0]);
        f.extend_from_slice(&(plen as u16).to_be_bytes());
        f.push(if ext { 0 } else { proto });
        f.push(64);
        f.extend_from_slice(&SRC6);
        f.extend_from_slice(&DST6);
        if ext {
            f.extend_from_slice(&[proto, 0, 1, 4, 0, 0, 0, 0]);
        }
    } else {
        let total = (20 + l4_len) as u16;
        let mut ip = vec![0x45, 0];
        ip.extend_from_slice(&total.to_be_bytes());
        ip.extend_from_slice(&[0x12, 0x34, 0x40, 0, 64, proto, 0, 0]);
        ip.extend_from_slice(&SRC4);
        ip.extend_from_slice(&DST4);
        let c = !naive_fold(&ip, 0);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        f.extend_from_slice(&ip);
    }
    let l4 = f.len();
    f.extend_from_slice(&l4hdr);
    f.extend_from_slice(payload);
    let end = f.len();
    let crc = kind == Kind::Sctp4;
    if crc {
        device_crc(&mut f, l4, off, end);
    } else {
        let pseudo = if proto == 1 {
            0
        } else if v6 {
            naive_pseudo(&SRC6, &DST6, proto, l4_len)
        } else {
            naive_pseudo(&SRC4, &DST4, proto, l4_len)
        };
        f[l4 + off..l4 + off + 2].fill(0);
        let mut c = !naive_fold(&f[l4..end], pseudo);
        if c == 0 && proto == 17 {
            c = 0xffff;
        }
        f[l4 + off..l4 + off + 2].copy_from_slice(&c.to_be_bytes());
    }
    (f, l4, off, crc)
}

/// Puts the CHECKSUM_PARTIAL seed (or a zeroed CRC) in the field.
fn make_partial(f: &mut [u8], kind: Kind, l4: usize, off: usize, crc: bool) {
    if crc {
        f[l4 + off..l4 + off + 4].fill(0);
        return;
    }
    let v6 = f[12] == 0x86;
    let proto = match kind {
        Kind::Tcp4 | Kind::Tcp6 | Kind::Tcp6Ext => 6,
        Kind::Udp4 | Kind::Udp6 => 17,
        Kind::Icmp4 => 1,
        Kind::Icmp6 => 58,
        Kind::Sctp4 => 132,
    };
    let len = f.len() - l4;
    let seed = if kind == Kind::Icmp4 {
        0
    } else if v6 {
        naive_fold(&[], naive_pseudo(&SRC6, &DST6, proto, len))
    } else {
        naive_fold(&[], naive_pseudo(&SRC4, &DST4, proto, len))
    };
    f[l4 + off..l4 + off + 2].copy_from_slice(&seed.to_be_bytes());
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Partial,
    BlankPartial,
    Unnecessary,
    Filled,
    Complete,
}

/// Executes an action: a naive device for offloads, the crate for fills.
fn execute(f: &mut [u8], layers: &wire::Layers, meta: CsumMeta, a: &TxAction) -> CsumMeta {
    match *a {
        TxAction::Offload { start, offset, .. } => {
            device_fill(f, start, offset, layers.end);
            meta
        }
        TxAction::CrcOffload { start, offset, .. } => {
            device_crc(f, start, offset, layers.end);
            meta
        }
        TxAction::FillSoftware(_) => tx::fill_software(f, layers, meta, a).unwrap(),
        TxAction::AlreadyComplete { .. } => meta,
        TxAction::Segment { .. } => panic!("no gso here"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_action_leaves_a_verifying_packet(
        k in 0usize..KINDS.len(), payload in prop::collection::vec(any::<u8>(), 0..300),
        bits in any::<u32>(), mode in 0usize..5,
        pad in 0usize..20,
    ) {
        let kind = KINDS[k];
        let (mut f, l4, off, crc) = build(kind, &payload);
        prop_assert_eq!(verify_frame(&f), Verdict::Good, "builder");
        let kind_p = if crc { PartialKind::Crc32c } else { PartialKind::Inet };
        let mode = [Mode::Partial, Mode::BlankPartial, Mode::Unnecessary, Mode::Filled, Mode::Complete][mode];
        let meta = match mode {
            Mode::Partial => {
                make_partial(&mut f, kind, l4, off, crc);
                CsumMeta::from_state(CsumState::Partial { start: l4, offset: off, kind: kind_p })
            }
            // A guest's csum_blank packet (Xen), set up as Partial at the boundary.
            Mode::BlankPartial => {
                make_partial(&mut f, kind, l4, off, crc);
                let st = CsumState::Partial { start: l4, offset: off, kind: kind_p };
                CsumMeta::new(st, CsumFlags::CSUM_BLANK | CsumFlags::DATA_VALID).unwrap()
            }
            Mode::Unnecessary => CsumMeta::from_state(CsumState::Unnecessary { level: CsumLevel::L0 }),
            Mode::Filled => CsumMeta::from_state(CsumState::None),
            Mode::Complete => CsumMeta::from_state(CsumState::Complete { csum: Wsum::new(0x1234) }),
        };
        f.extend(std::iter::repeat_n(0x5a, pad)); // Ethernet padding, never summed
        let layers = wire::parse(&f, LinkType::Ethernet).unwrap();
        let features = Features::from_bits_truncate(bits).fix().features;
        let dev = Device::new(features);
        let blank = meta.is_blank();
        let a = tx::decide(&meta, &layers, None, &dev).unwrap();
        // The action is allowed by the features.
        match a {
            TxAction::Offload { reason: OffloadReason::HwCsum, .. } => prop_assert!(features.contains(Features::HW_CSUM)),
            TxAction::Offload { reason: OffloadReason::IpCsum, .. } => {
                prop_assert!(features.contains(Features::IP_CSUM));
                prop_assert!(matches!(kind, Kind::Tcp4 | Kind::Udp4));
            }
            TxAction::Offload { reason: OffloadReason::Ipv6Csum, .. } => {
                prop_assert!(features.contains(Features::IPV6_CSUM));
                prop_assert!(matches!(kind, Kind::Tcp6 | Kind::Udp6));
            }
            TxAction::Offload { reason: OffloadReason::HardwareSegmentation, .. } => prop_assert!(false, "no gso"),
            TxAction::CrcOffload { .. } => prop_assert!(features.contains(Features::SCTP_CRC)),
            TxAction::AlreadyComplete { .. } => prop_assert!(!blank, "blank packet left blank"),
            _ => {}
        }
        let out = execute(&mut f, &layers, meta, &a);
        prop_assert_eq!(verify_frame(&f), Verdict::Good, "{:?} {:?} {:?}", kind, mode, a);
        prop_assert!(oracle::all_correct(&f[..layers.end], Link::Ethernet), "oracle: {:?} {:?}", kind, a);
        if matches!(a, TxAction::FillSoftware(_)) {
            prop_assert!(!out.is_blank());
            prop_assert_eq!(out.state(), CsumState::None);
            prop_assert_eq!(out.data_valid(), blank, "DATA_VALID survives the fill");
        }
        // Padding untouched.
        prop_assert!(f[layers.end..].iter().all(|&b| b == 0x5a));
    }
}

fn partial_meta(l: &wire::Layers, offset: usize) -> CsumMeta {
    CsumMeta::from_state(CsumState::Partial {
        start: l.l4,
        offset,
        kind: PartialKind::Inet,
    })
}

fn fill_reason(a: TxAction) -> FillReason {
    match a {
        TxAction::FillSoftware(f) => f.reason,
        other => panic!("expected a fill, got {other:?}"),
    }
}

#[test]
fn legacy_csum_features_are_narrow() {
    let (mut f, l4, off, _) = build(Kind::Tcp6Ext, &[1, 2, 3]);
    make_partial(&mut f, Kind::Tcp6Ext, l4, off, false);
    let l = wire::parse(&f, LinkType::Ethernet).unwrap();
    let v6dev = Device::new(Features::IPV6_CSUM);
    let a = tx::decide(&partial_meta(&l, 16), &l, None, &v6dev).unwrap();
    assert_eq!(fill_reason(a), FillReason::Ipv6ExtensionHeaders);

    let (f, _, _, _) = build(Kind::Icmp4, &[1, 2, 3]);
    let l = wire::parse(&f, LinkType::Ethernet).unwrap();
    let ipdev = Device::new(Features::IP_CSUM);
    let a = tx::decide(&partial_meta(&l, 2), &l, None, &ipdev).unwrap();
    assert_eq!(fill_reason(a), FillReason::NotPlainTcpUdp);

    let (f, _, _, _) = build(Kind::Tcp6, &[1, 2, 3]);
    let l = wire::parse(&f, LinkType::Ethernet).unwrap();
    let a = tx::decide(&partial_meta(&l, 16), &l, None, &ipdev).unwrap();
    assert_eq!(fill_reason(a), FillReason::NoChecksumFeature);
    let a = tx::decide(&partial_meta(&l, 16), &l, None, &v6dev).unwrap();
    assert!(matches!(
        a,
        TxAction::Offload {
            reason: OffloadReason::Ipv6Csum,
            ..
        }
    ));
}

#[test]
fn bridge_2005_forces_software_checksums() {
    let nic = (Features::HW_CSUM | Features::SG | Features::TSO)
        .fix()
        .features;
    let through_bridge = Device::new(Features::stacked(Features::empty(), nic));
    let (mut f, l4, off, _) = build(Kind::Tcp4, &[9; 100]);
    make_partial(&mut f, Kind::Tcp4, l4, off, false);
    let l = wire::parse(&f, LinkType::Ethernet).unwrap();
    let a = tx::decide(&partial_meta(&l, 16), &l, None, &through_bridge).unwrap();
    assert_eq!(fill_reason(a), FillReason::NoChecksumFeature);
    let direct = tx::decide(&partial_meta(&l, 16), &l, None, &Device::new(nic)).unwrap();
    assert!(matches!(
        direct,
        TxAction::Offload {
            reason: OffloadReason::HwCsum,
            ..
        }
    ));
}

#[test]
fn nothing_pending_and_blank_never_left_blank() {
    let (f, _, _, _) = build(Kind::Udp4, &[1; 10]);
    let l = wire::parse(&f, LinkType::Ethernet).unwrap();
    let dev = Device::new(Features::HW_CSUM);
    let a = tx::decide(&CsumMeta::NONE, &l, None, &dev).unwrap();
    assert_eq!(
        a,
        TxAction::AlreadyComplete {
            reason: DoneReason::NothingPending
        }
    );
    let c = CsumMeta::from_state(CsumState::Complete { csum: Wsum::ZERO });
    let a = tx::decide(&c, &l, None, &dev).unwrap();
    assert_eq!(
        a,
        TxAction::AlreadyComplete {
            reason: DoneReason::CompleteIsNone
        }
    );
    // csum_blank exists only with Partial, which always leaves offloaded or filled.
    assert!(CsumMeta::new(CsumState::None, CsumFlags::CSUM_BLANK).is_err());
    let blank = CsumMeta::new(
        CsumState::Partial {
            start: l.l4,
            offset: 6,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK,
    )
    .unwrap();
    for features in [Features::empty(), Features::IP_CSUM, Features::HW_CSUM] {
        let a = tx::decide(&blank, &l, None, &Device::new(features)).unwrap();
        assert!(
            matches!(a, TxAction::Offload { .. } | TxAction::FillSoftware(_)),
            "{features:?}: {a:?}"
        );
    }
}

#[test]
fn refusals_are_typed_and_fill_writes_nothing_on_error() {
    let (mut f, _, _, _) = build(Kind::Tcp4, &[1; 10]);
    let l = wire::parse(&f, LinkType::Ethernet).unwrap();
    let dev = Device::new(Features::HW_CSUM);
    let bad = CsumMeta::from_state(CsumState::Partial {
        start: l.l4,
        offset: 40,
        kind: PartialKind::Inet,
    });
    assert_eq!(
        tx::decide(&bad, &l, None, &dev),
        Err(TxError::PartialOutOfRange {
            start: l.l4,
            offset: 40,
            end: l.end
        })
    );
    // A fill pointing outside the packet: refused, metadata handed back, bytes unchanged.
    let before = f.clone();
    let fake = TxAction::FillSoftware(tx::Fill {
        start: l.l4,
        offset: 40,
        kind: PartialKind::Inet,
        reason: FillReason::NoChecksumFeature,
    });
    let r = tx::fill_software(&mut f, &l, bad.clone(), &fake).unwrap_err();
    assert_eq!(r.meta, bad);
    assert!(matches!(r.error, TxError::PartialOutOfRange { .. }));
    assert_eq!(f, before);
    let r = tx::fill_software(
        &mut f,
        &l,
        CsumMeta::NONE,
        &TxAction::AlreadyComplete {
            reason: DoneReason::NothingPending,
        },
    );
    assert_eq!(r.unwrap_err().error, TxError::NotAFill);
}

#[test]
fn gso_decisions() {
    let seg = Seg {
        v6: false,
        id: 1,
        df: true,
        seq: 1,
        ack: 1,
        psh: false,
        fin: false,
        cwr: false,
        ts: false,
        payload: vec![7; 4000],
    };
    let mut f = tcp_segment(&seg);
    let l = wire::parse(&f, LinkType::Ethernet).unwrap();
    make_partial(&mut f, Kind::Tcp4, l.l4, 16, false);
    let m = partial_meta(&l, 16);
    let gso = Some(GsoInfo::new(1448, GsoType::TCPV4));
    let tso = Features::HW_CSUM | Features::SG | Features::TSO;

    let a = tx::decide(&m, &l, gso, &Device::new(tso)).unwrap();
    assert_eq!(
        a,
        TxAction::Offload {
            start: l.l4,
            offset: 16,
            reason: OffloadReason::HardwareSegmentation
        }
    );

    let a = tx::decide(&m, &l, gso, &Device::new(Features::HW_CSUM | Features::SG)).unwrap();
    assert!(matches!(a, TxAction::Segment {
        csum: SegmentCsum::Partial,
        reason: SegmentReason::MissingFeatures { missing }, ..
    } if missing == Features::TSO));

    let a = tx::decide(&m, &l, gso, &Device::new(Features::empty())).unwrap();
    assert!(matches!(
        a,
        TxAction::Segment {
            csum: SegmentCsum::Compute,
            reason: SegmentReason::ChecksumNotOffloadable,
            ..
        }
    ));

    let mut limited = Device::new(tso);
    limited.gso.max_segs = 2;
    let a = tx::decide(&m, &l, gso, &limited).unwrap();
    assert!(matches!(
        a,
        TxAction::Segment {
            reason: SegmentReason::TooManySegments { segs: 3, max: 2 },
            ..
        }
    ));

    let a = tx::decide(&CsumMeta::NONE, &l, gso, &Device::new(tso)).unwrap();
    assert!(matches!(
        a,
        TxAction::Segment {
            reason: SegmentReason::StateNotPartial,
            ..
        }
    ));

    let fixed = Some(GsoInfo::new(1448, GsoType::TCPV4 | GsoType::TCP_FIXEDID));
    let a = tx::decide(&m, &l, fixed, &Device::new(tso)).unwrap();
    assert!(
        matches!(a, TxAction::Segment { reason: SegmentReason::MissingFeatures { missing }, .. } if missing == Features::TSO_MANGLEID)
    );

    assert_eq!(
        tx::decide(
            &m,
            &l,
            Some(GsoInfo::new(0, GsoType::TCPV4)),
            &Device::new(tso)
        ),
        Err(TxError::GsoSizeZero)
    );
    assert!(matches!(
        tx::decide(
            &m,
            &l,
            Some(GsoInfo::new(1448, GsoType::TCPV6)),
            &Device::new(tso)
        ),
        Err(TxError::GsoTypeMismatch { .. })
    ));

    // The Segment action, carried out, gives verifying segments.
    let a = tx::decide(&m, &l, gso, &Device::new(Features::empty())).unwrap();
    let TxAction::Segment { gso, csum, .. } = a else {
        panic!()
    };
    let mut store = vec![vec![0u8; 1600]; 3];
    let mut refs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
    let p = tx::segment(&f, &l, gso, csum, &mut refs).unwrap();
    for (i, s) in store.iter().enumerate() {
        assert_eq!(verify_frame(&s[..p.len_of(i).unwrap()]), Verdict::Good);
    }
}
