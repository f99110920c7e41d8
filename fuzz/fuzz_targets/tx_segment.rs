//! A super-packet (mostly mutated valid TCP/UDP packets, plain or in a VXLAN /
//! GENEVE / GRE tunnel) + gso_size + gso_type + device features -> `tx::decide`
//! and `tx::segment` / `segment_tunnel`. Checked: no panic; an error writes
//! nothing; the segments' payloads concatenate to the input payload; each
//! segment parses, its sequence number advances by gso_size, its IPv4 header
//! checksums verify, and its L4 (and outer UDP / GRE) checksum verifies: as
//! computed, or once the `Partial` seed is finished (the oracle's fill).
//!
//! Input: 10 control bytes, then an Ethernet frame.
//! - `[0..2]` gso_size; with opts bit 2 taken modulo the payload length + 1.
//! - `[2..4]` gso_type: bit 15 set -> these raw bits, else derived from the
//!   packet (+ FIXEDID bit 0, ECN bit 1).
//! - `[4]` bit 0: `Partial` segments (else computed); bits 1-2: the sum
//!   kernel level (scalar, SSE2, AVX2, AVX-512; capped by the CPU).
//! - `[5..9]` device features; `[9]` opts: bit 0 fix checksums first, bit 1
//!   tunnel, bit 2 gso_size in range, bit 3 use `decide`'s choice of checksum,
//!   bit 4 one buffer too few.
#![no_main]

#[path = "../src/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/support/oracle.rs"]
mod oracle;

use common::Ctl;
use libfuzzer_sys::fuzz_target;
use netoffload::csum::{self, Level};
use netoffload::encap::{EncapConfig, OuterCsum, parse_inner, parse_tunnel};
use netoffload::state::{CsumMeta, CsumState};
use netoffload::tx::{self, Device, Features, GsoInfo, SegmentCsum, TxAction};
use netoffload::wire::{self, GsoType, Layers, LinkType, Net, Transport};
use oracle::{Link, View};

const FILL: u8 = 0xA5;

fn auto_type(inner: &Layers, tunnel: Option<OuterCsum>, sel: u16) -> GsoType {
    let mut t = match (inner.transport, inner.net) {
        (Transport::Tcp, Net::Ipv4) => GsoType::TCPV4,
        (Transport::Tcp, Net::Ipv6) => GsoType::TCPV6,
        _ => GsoType::UDP_L4,
    };
    if sel & 1 != 0 {
        t |= GsoType::TCP_FIXEDID;
    }
    if sel & 2 != 0 {
        t |= GsoType::TCP_ECN;
    }
    t | match tunnel {
        None => GsoType::empty(),
        Some(OuterCsum::Udp(_)) => GsoType::UDP_TUNNEL_CSUM,
        Some(OuterCsum::Zero) => GsoType::UDP_TUNNEL,
        Some(OuterCsum::Gre(_)) => GsoType::GRE_CSUM,
        Some(OuterCsum::Absent) => GsoType::GRE,
    }
}

fn seq(b: &[u8], l4: usize) -> u32 {
    u32::from_be_bytes([b[l4 + 4], b[l4 + 5], b[l4 + 6], b[l4 + 7]])
}

fuzz_target!(|data: &[u8]| {
    let mut c = Ctl::new(data);
    let size_raw = c.u16();
    let type_sel = c.u16();
    let csum_sel = c.u8();
    let feat = Features::from_bits_truncate(c.u32());
    let opts = c.u8();
    csum::force_level(Level::ALL[usize::from(csum_sel >> 1) & 3]);
    let mut frame = c.rest().to_vec();

    let Ok(outer) = wire::parse(&frame, LinkType::Ethernet) else {
        return;
    };
    if opts & 1 != 0 {
        common::fix_all(&mut frame, Link::Ethernet, Some(outer.l3));
    }
    let Ok(outer) = wire::parse(&frame, LinkType::Ethernet) else {
        return;
    };
    let cfg = EncapConfig::DEFAULT;
    let tunnel = if opts & 2 != 0 {
        let Ok(t) = parse_tunnel(&frame, &outer, &cfg) else {
            return;
        };
        let Ok(inner) = parse_inner(&frame, &t) else {
            return;
        };
        Some((t.outer_csum, inner))
    } else {
        None
    };
    let l = tunnel.map_or(outer, |(_, i)| i);
    let payload_len = l.end.saturating_sub(l.payload);
    let gso_size = if opts & 4 != 0 {
        (usize::from(size_raw) % (payload_len + 1)) as u16
    } else {
        size_raw
    };
    let gso_type = if type_sel & 0x8000 != 0 {
        GsoType::from_bits_truncate(u32::from(type_sel))
    } else {
        auto_type(&l, tunnel.map(|(c, _)| c), type_sel)
    };
    let gso = GsoInfo::new(gso_size, gso_type);
    let mut csum = if csum_sel & 1 != 0 {
        SegmentCsum::Partial
    } else {
        SegmentCsum::Compute
    };
    let dev = Device::new(feat);
    let action = tx::decide(&CsumMeta::NONE, &outer, Some(gso), &dev);
    if opts & 8 != 0
        && let Ok(TxAction::Segment { csum: c, .. }) = action
    {
        csum = c;
    }

    let plan = match tunnel {
        Some((_, inner)) => tx::plan_tunnel(&frame, &outer, &inner, gso, csum),
        None => tx::plan(&frame, &outer, gso, csum),
    };
    let Ok(plan) = plan else { return };
    let count = plan.count();
    assert!(count >= 1 && count == payload_len.div_ceil(usize::from(gso_size)));
    if count > 256 {
        return; // fine but slow
    }
    let given = if opts & 16 != 0 { count - 1 } else { count };
    let mut store = vec![vec![FILL; plan.max_len()]; given];
    let mut bufs: Vec<&mut [u8]> = store.iter_mut().map(|v| v.as_mut_slice()).collect();
    let r = match tunnel {
        Some((_, inner)) => tx::segment_tunnel(&frame, &outer, &inner, gso, csum, &mut bufs),
        None => tx::segment(&frame, &outer, gso, csum, &mut bufs),
    };
    let p = match r {
        Ok(p) => p,
        Err(e) => {
            assert!(given < count, "planned but refused: {e:?}");
            assert!(
                store.iter().flatten().all(|&b| b == FILL),
                "error wrote bytes"
            );
            return;
        }
    };
    assert_eq!(given, count, "one buffer too few accepted");
    assert_eq!(p, plan);

    let plain = common::plain_pseudo(&outer) && common::plain_pseudo(&l);
    let mut joined = Vec::new();
    for (i, buf) in store.iter().enumerate() {
        let len = p.len_of(i).expect("in range");
        let seg = &buf[..len];
        joined.extend_from_slice(&seg[p.header_len()..]);
        let sl = wire::parse(seg, LinkType::Ethernet).expect("a segment parses");
        assert_eq!(sl.end, len, "segment {i}: IP length");
        if outer.net == Net::Ipv4 {
            assert!(
                common::ipv4_header_ok(seg, outer.l3),
                "segment {i}: outer IPv4 header"
            );
        }
        if l.net == Net::Ipv4 {
            assert!(
                common::ipv4_header_ok(seg, l.l3),
                "segment {i}: IPv4 header"
            );
        }
        if l.transport == Transport::Tcp {
            let want = seq(&frame, l.l4).wrapping_add((i * usize::from(gso_size)) as u32);
            assert_eq!(seq(seg, l.l4), want, "segment {i}: sequence");
        }
        if !plain {
            continue;
        }
        let meta = p.meta_for_segment(&CsumMeta::NONE);
        let mut done = seg.to_vec();
        if let CsumState::Partial { start, offset, .. } = meta.state() {
            let view = View {
                bytes: seg,
                link: Link::Ethernet,
                cur: outer.l3,
                levels_from: 0,
                l4: l.l4,
            };
            if let Err(e) = oracle::check(&view, &meta) {
                panic!("segment {i}: state {meta:?} rejected: {e:?}");
            }
            let mut x = !oracle::naive_sum(&done[start..]);
            if x == 0 {
                x = 0xFFFF;
            }
            done[start + offset..start + offset + 2].copy_from_slice(&x.to_be_bytes());
        }
        assert_eq!(
            oracle::correct_at(&done, Link::Ethernet, l.l4),
            Some(true),
            "segment {i}: L4 checksum ({csum:?}, {gso:?}, level {:?}, inner {l:?}, outer {outer:?}, segment {seg:02x?})",
            csum::level()
        );
        if tunnel.is_some() {
            assert_ne!(
                oracle::correct_at(&done, Link::Ethernet, outer.l4),
                Some(false),
                "segment {i}: outer checksum ({csum:?})"
            );
        }
    }
    assert!(
        joined == frame[l.payload..l.end],
        "segments' payloads are not the input payload"
    );
});
