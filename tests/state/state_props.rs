//! Property tests of the soundness contract: real packets (etherparse), honest
//! device states (corrupted packets included), every transition and random
//! sequences of up to 8, all judged by the independent oracle.

use crate::support;

use netoffload::state::{
    self, Addr, ConntrackConfig, CsumFlags, CsumLevel, CsumMeta, CsumState, CsumVerdict,
    DeviceReport, Hook, Packet, PacketMut, PartialKind, Rewrite,
};
use netoffload::wire::{Layers, LinkType};
use proptest::prelude::*;
use support::oracle::{self, Link, View};
use support::packets::{self, L4, Spec};

/// How the packet and its first state are made.
#[derive(Clone, Debug)]
struct Case {
    spec: Spec,
    /// Flip a bit of the L4 payload or checksum field (index, mask).
    corrupt: Option<(usize, u8)>,
    /// Which honest state to start from.
    start: u8,
    level: u8,
    flags: u8,
}

fn arb_case() -> impl Strategy<Value = Case> {
    (
        packets::arb_spec(),
        prop::option::of((any::<usize>(), 1u8..=255)),
        0u8..6,
        0u8..4,
        0u8..4,
    )
        .prop_map(|(spec, corrupt, start, level, flags)| Case {
            spec,
            corrupt,
            start,
            level,
            flags,
        })
}

/// A packet with its honest starting state.
struct World {
    bytes: Vec<u8>,
    link: Link,
    layers: Layers,
    cur: usize,
    levels_from: usize,
    meta: CsumMeta,
    /// The packet's L4 checksum is bad.
    corrupted: bool,
}

impl World {
    fn view(&self) -> View<'_> {
        View {
            bytes: &self.bytes,
            link: self.link,
            cur: self.cur,
            levels_from: self.levels_from,
            l4: self.layers.l4,
        }
    }

    fn pkt(&self) -> Packet<'_> {
        Packet::new(&self.bytes, self.layers, self.cur).expect("context stays in bounds")
    }

    fn assert_sound(&self, what: &str) {
        if let Err(e) = oracle::check(&self.view(), &self.meta) {
            panic!("{what}: unsound {:?}: {e:?}", self.meta);
        }
    }
}

/// The pseudo-header seed (folded, not complemented) a local stack leaves in
/// the field of a Partial packet.
fn seed(b: &[u8], l: &Layers, proto: u8) -> u16 {
    let len = l.end - l.l4;
    let mut p = Vec::new();
    match l.net {
        netoffload::wire::Net::Ipv4 => {
            p.extend_from_slice(&b[l.l3 + 12..l.l3 + 20]);
            p.extend_from_slice(&[0, proto]);
            p.extend_from_slice(&(len as u16).to_be_bytes());
        }
        netoffload::wire::Net::Ipv6 => {
            p.extend_from_slice(&b[l.l3 + 8..l.l3 + 40]);
            p.extend_from_slice(&(len as u32).to_be_bytes());
            p.extend_from_slice(&[0, 0, 0, proto]);
        }
    }
    oracle::naive_sum(&p)
}

fn make(case: &Case) -> World {
    let (mut bytes, at) = packets::build(&case.spec);
    let link = if case.spec.raw_ip {
        Link::RawIp
    } else {
        Link::Ethernet
    };
    let lt = if case.spec.raw_ip {
        LinkType::RawIp
    } else {
        LinkType::Ethernet
    };
    let layers = netoffload::wire::parse(&bytes, lt).expect("etherparse packets parse");
    assert_eq!((layers.l3, layers.l4, layers.end), (at.l3, at.l4, at.end));
    let field = match case.spec.l4 {
        L4::Tcp { .. } => at.l4 + 16,
        L4::Udp | L4::UdpZero => at.l4 + 6,
        L4::Sctp => at.l4 + 8,
        L4::Icmp => at.l4 + 2,
    };
    // Corrupt the payload or the checksum field (lengths stay parseable).
    if let Some((i, mask)) = case.corrupt {
        let payload = layers.payload..at.end;
        let pos = if payload.is_empty() || i % 3 == 0 {
            field + (i % 2)
        } else {
            payload.start + i % payload.len()
        };
        bytes[pos] ^= mask;
    }
    let good = oracle::correct_at(&bytes, link, at.l4).expect("a site at l4");
    let counted = case.spec.l4 != L4::Icmp;
    let level = CsumLevel::new(case.level).unwrap();
    let mut flags = CsumFlags::empty();
    let state = match case.start {
        1 => CsumState::Complete {
            csum: oracle::honest_complete(&bytes, at.l3),
        },
        2 if good || !counted => CsumState::Unnecessary { level },
        3 if good && case.spec.l4 != L4::UdpZero && case.corrupt.is_none() => {
            // A locally generated packet: seed (or zero CRC) in the field,
            // and no link padding (a NIC adds that on the wire).
            bytes.truncate(at.end);
            let (offset, kind) = match case.spec.l4 {
                L4::Sctp => {
                    bytes[field..field + 4].fill(0);
                    (8, PartialKind::Crc32c)
                }
                l4 => {
                    let proto = layers.ip_proto;
                    let s = match l4 {
                        L4::Icmp if layers.net == netoffload::wire::Net::Ipv4 => 0,
                        _ => seed(&bytes, &layers, proto),
                    };
                    bytes[field..field + 2].copy_from_slice(&s.to_be_bytes());
                    (field - at.l4, PartialKind::Inet)
                }
            };
            if case.flags & 1 != 0 {
                flags |= CsumFlags::CSUM_BLANK;
            }
            if case.flags & 2 != 0 {
                flags |= CsumFlags::DATA_VALID;
            }
            CsumState::Partial {
                start: at.l4,
                offset,
                kind,
            }
        }
        4 if good => {
            flags |= CsumFlags::DATA_VALID;
            CsumState::None
        }
        _ => CsumState::None,
    };
    let meta = CsumMeta::new(state, flags).unwrap();
    let corrupted = !oracle::correct_at(&bytes, link, at.l4).unwrap();
    World {
        bytes,
        link,
        layers,
        cur: at.l3,
        levels_from: at.l4,
        meta,
        corrupted,
    }
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Validate,
    TryConvert,
    Pull(u8),
    PullToL4,
    PushBack,
    Trim,
    Bridge,
    Route,
    Nat(u8, u8),
    Conntrack(u8),
    Fill,
    Ipv4Header,
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Validate),
        1 => Just(Op::TryConvert),
        1 => any::<u8>().prop_map(Op::Pull),
        1 => Just(Op::PullToL4),
        1 => Just(Op::PushBack),
        1 => Just(Op::Trim),
        1 => Just(Op::Bridge),
        1 => Just(Op::Route),
        2 => (0u8..4, any::<u8>()).prop_map(|(k, v)| Op::Nat(k, v)),
        2 => (0u8..5).prop_map(Op::Conntrack),
        1 => Just(Op::Fill),
        1 => Just(Op::Ipv4Header),
    ]
}

/// Runs one op; checks the refusal contract; returns the outcome if it ran.
fn step(w: &mut World, op: Op) -> Option<state::Outcome> {
    let before_meta = w.meta.clone();
    let before_bytes = w.bytes.clone();
    let input_trusts = matches!(w.meta.state(), CsumState::Partial { .. })
        || w.meta.flags().contains(CsumFlags::DATA_VALID);
    let l4 = w.layers.l4;
    let res = match op {
        Op::Validate => state::validate(w.meta.clone(), &w.pkt()),
        Op::TryConvert => state::try_convert(w.meta.clone(), &w.pkt()),
        Op::Pull(k) => {
            // Anywhere up to the end of the packet (past the L4 header too).
            let room = w.bytes.len().saturating_sub(w.cur);
            let n = if room == 0 {
                0
            } else {
                k as usize % (room + 1)
            };
            state::pull(w.meta.clone(), &w.pkt(), n).inspect(|_| w.cur += n)
        }
        Op::PullToL4 => {
            let n = l4.saturating_sub(w.cur);
            state::pull(w.meta.clone(), &w.pkt(), n).inspect(|_| w.cur += n)
        }
        Op::PushBack => {
            let n = w.cur - w.layers.l3;
            state::push(w.meta.clone(), &w.pkt(), n).inspect(|_| w.cur -= n)
        }
        Op::Trim => {
            let end = w.layers.end;
            let r = state::trim(w.meta.clone(), &w.pkt(), end);
            if r.is_ok() {
                w.bytes.truncate(end);
            }
            r
        }
        Op::Bridge => Ok(state::bridge(w.meta.clone())),
        Op::Route => {
            let mut pm = PacketMut::new(&mut w.bytes, w.layers, w.cur).unwrap();
            state::route(w.meta.clone(), &mut pm)
        }
        Op::Nat(k, v) => {
            let v6 = w.layers.net == netoffload::wire::Net::Ipv6;
            let addr = if v6 {
                Addr::V6([v; 16])
            } else {
                Addr::V4([v, 1, v, 2])
            };
            let rw = match k {
                0 => Rewrite::Src(addr),
                1 => Rewrite::Dst(addr),
                2 => Rewrite::SrcPort(u16::from(v) * 257),
                _ => Rewrite::DstPort(u16::from(v) + 1),
            };
            let mut pm = PacketMut::new(&mut w.bytes, w.layers, w.cur).unwrap();
            state::nat(w.meta.clone(), &mut pm, rw)
        }
        Op::Conntrack(h) => {
            let hook = [
                Hook::PreRouting,
                Hook::LocalIn,
                Hook::Forward,
                Hook::LocalOut,
                Hook::PostRouting,
            ][h as usize];
            state::conntrack(w.meta.clone(), &w.pkt(), hook, ConntrackConfig::default())
        }
        Op::Fill => {
            let mut pm = PacketMut::new(&mut w.bytes, w.layers, w.cur).unwrap();
            state::fill_partial(w.meta.clone(), &mut pm)
        }
        Op::Ipv4Header => state::check_ipv4_header(w.meta.clone(), &w.pkt()),
    };
    match res {
        Ok(out) => {
            if matches!(op, Op::Validate) {
                // A level may have been consumed: later levels count from
                // the next layer.
                w.levels_from = l4 + 1;
            }
            // The unforgivable bug: calling a corrupted packet good.
            let bad_now = oracle::correct_at(&w.bytes, w.link, l4) == Some(false);
            if out.verdict == CsumVerdict::Good && bad_now && !matches!(op, Op::Ipv4Header) {
                assert!(
                    input_trusts,
                    "{op:?} called a corrupted packet good: {out:?}"
                );
            }
            w.meta = out.meta.clone();
            w.assert_sound(&format!("after {op:?} ({:?})", out.reason));
            Some(out)
        }
        Err(r) => {
            assert_eq!(r.meta, before_meta, "{op:?} refused but changed the meta");
            assert_eq!(
                w.bytes, before_bytes,
                "{op:?} refused but changed the bytes"
            );
            None
        }
    }
}

proptest! {
    // 256 cases unless PROPTEST_CASES says otherwise (CI keeps the default).
    #![proptest_config(ProptestConfig::default())]

    /// Honest starting states are sound, and every sequence of up to 8
    /// transitions keeps them sound without calling a corrupted packet good.
    #[test]
    fn sequences_stay_sound(case in arb_case(), ops in prop::collection::vec(arb_op(), 1..=8)) {
        let mut w = make(&case);
        w.assert_sound("honest start");
        for op in ops {
            step(&mut w, op);
        }
    }

    /// Validation from nothing agrees with the oracle in both directions.
    #[test]
    fn validate_verdict_matches_oracle(case in arb_case()) {
        let mut c = case;
        c.start = 0;
        let w = make(&c);
        let out = state::validate(w.meta.clone(), &w.pkt()).unwrap();
        let zero = c.spec.l4 == L4::UdpZero && !w.corrupted && oracle::sites(&w.bytes, w.link)[0].zero;
        match out.verdict {
            CsumVerdict::Good => prop_assert!(!w.corrupted),
            CsumVerdict::Bad => prop_assert!(w.corrupted || (zero && c.spec.v6)),
            CsumVerdict::NoChecksum => prop_assert!(zero),
            CsumVerdict::NotChecked => prop_assert!(false, "validate always decides"),
        }
    }

    /// One full Linux-shaped receive pass (device report, trim, pull to L4,
    /// conntrack at PREROUTING, validate, convert) sums each byte at most once.
    /// The pass ends at the first `Bad` verdict (the packet is dropped; an
    /// SCTP CRC cannot be kept in the state, so re-checking it would redo it).
    #[test]
    fn one_pass_sums_no_byte_twice(case in arb_case()) {
        let mut w = make(&case);
        let len = w.bytes.len();
        let mut total = 0usize;
        for op in [Op::Trim, Op::PullToL4, Op::Conntrack(0), Op::Validate, Op::TryConvert] {
            if let Some(out) = step(&mut w, op) {
                total += out.sw_bytes;
                if out.verdict == CsumVerdict::Bad {
                    break;
                }
            }
        }
        prop_assert!(total <= len, "summed {total} bytes of a {len}-byte packet");
    }

    /// NAT keeps correct packets correct and corrupted packets corrupted.
    #[test]
    fn nat_preserves_correctness(case in arb_case(), k in 0u8..4, v in any::<u8>()) {
        let mut w = make(&case);
        let before = oracle::all_correct(&w.bytes, w.link);
        if step(&mut w, Op::Nat(k, v)).is_some()
            && !matches!(w.meta.state(), CsumState::Partial { .. })
        {
            prop_assert_eq!(oracle::all_correct(&w.bytes, w.link), before);
        }
    }

    /// Filling a Partial packet makes its wire bytes verify.
    #[test]
    fn fill_makes_wire_bytes_correct(case in arb_case()) {
        let mut c = case;
        c.start = 3;
        c.corrupt = None;
        let mut w = make(&c);
        if matches!(w.meta.state(), CsumState::Partial { .. }) {
            step(&mut w, Op::Trim);
            let out = step(&mut w, Op::Fill).expect("fill runs");
            prop_assert_eq!(out.meta.state(), CsumState::None);
            prop_assert!(oracle::all_correct(&w.bytes, w.link));
        }
    }
}

#[test]
fn device_reports_map_to_states() {
    let level = CsumLevel::L2;
    assert_eq!(
        state::receive(DeviceReport::L4Ok { level }).meta.state(),
        CsumState::Unnecessary { level }
    );
    assert_eq!(
        state::receive(DeviceReport::L4Bad).meta.state(),
        CsumState::None
    );
    assert_eq!(
        state::receive(DeviceReport::None).meta.state(),
        CsumState::None
    );
}

/// Any state (even one no device would report), any offsets: every
/// transition either runs or refuses with the metadata handed back and the
/// bytes untouched; nothing panics (overflow checks are on in test builds).
fn arb_meta(len: usize) -> impl Strategy<Value = CsumMeta> {
    let state = prop_oneof![
        Just(CsumState::None),
        (0u8..4).prop_map(|l| CsumState::Unnecessary {
            level: CsumLevel::new(l).unwrap()
        }),
        any::<u32>().prop_map(|c| CsumState::Complete {
            csum: netoffload::csum::Wsum::new(c)
        }),
        (
            prop_oneof![0..len + 8, Just(usize::MAX), any::<usize>()],
            prop_oneof![0usize..64, Just(usize::MAX)],
            any::<bool>()
        )
            .prop_map(|(start, offset, crc)| CsumState::Partial {
                start,
                offset,
                kind: if crc {
                    PartialKind::Crc32c
                } else {
                    PartialKind::Inet
                },
            }),
    ];
    (state, 0u8..16).prop_map(|(s, f)| {
        CsumMeta::new(s, CsumFlags::from_bits_truncate(f)).unwrap_or(CsumMeta::from_state(s))
    })
}

proptest! {
    #[test]
    fn wild_inputs_never_panic(
        case in arb_case(),
        meta in arb_meta(1600),
        ops in prop::collection::vec((arb_op(), any::<usize>()), 1..=8),
    ) {
        let mut w = make(&case);
        w.meta = meta;
        for (op, n) in ops {
            let before_meta = w.meta.clone();
            let before_bytes = w.bytes.clone();
            let res = match op {
                Op::Pull(_) => state::pull(w.meta.clone(), &w.pkt(), n),
                Op::PushBack => state::push(w.meta.clone(), &w.pkt(), n),
                Op::Trim => state::trim(w.meta.clone(), &w.pkt(), n),
                Op::Validate => state::validate(w.meta.clone(), &w.pkt()),
                Op::TryConvert => state::try_convert(w.meta.clone(), &w.pkt()),
                Op::Conntrack(_) => state::conntrack(w.meta.clone(), &w.pkt(), Hook::PreRouting, ConntrackConfig::default()),
                Op::Fill => {
                    let mut pm = PacketMut::new(&mut w.bytes, w.layers, w.cur).unwrap();
                    state::fill_partial(w.meta.clone(), &mut pm)
                }
                Op::Route => {
                    let mut pm = PacketMut::new(&mut w.bytes, w.layers, w.cur).unwrap();
                    state::route(w.meta.clone(), &mut pm)
                }
                Op::Nat(k, v) => {
                    let rw = match k {
                        0 => Rewrite::Src(Addr::V4([v; 4])),
                        1 => Rewrite::Dst(Addr::V6([v; 16])),
                        2 => Rewrite::SrcPort(u16::from(v)),
                        _ => Rewrite::DstPort(u16::from(v)),
                    };
                    let mut pm = PacketMut::new(&mut w.bytes, w.layers, w.cur).unwrap();
                    state::nat(w.meta.clone(), &mut pm, rw)
                }
                _ => {
                    let mut pm = PacketMut::new(&mut w.bytes, w.layers, w.cur).unwrap();
                    state::checksum_setup(w.meta.clone(), &mut pm, n % 2 == 0)
                }
            };
            match res {
                Ok(out) => w.meta = out.meta,
                Err(r) => {
                    prop_assert_eq!(r.meta, before_meta);
                    prop_assert_eq!(&w.bytes, &before_bytes);
                }
            }
        }
    }
}
