//! A stream of frames (mostly TCP/UDP segments of four flows built with
//! etherparse, with fuzz-chosen sequence numbers, flags, IPv4 IDs, lengths,
//! corruption and honest checksum states; plus raw garbage), flushes and ticks
//! through a 4-flow GRO engine. Checked: no panic; every id comes out exactly
//! once (merged into one super-packet or passed up); every segment's payload
//! range is that frame's TCP/UDP payload and the written super-packet's
//! payload is their concatenation; size and segment limits hold; a corrupted
//! segment never joins a super-packet; every state leaving the engine is
//! accepted by the oracle. With the burst switch on, the built segments go to
//! the fast engine in bursts of up to eight (`receive_burst`, its trains
//! included) and to the general one frame by frame: the same verdicts and
//! super-packets.
//!
//! Input: 8 configuration bytes, then records of 8 bytes (see `record`).
#![no_main]

#[path = "../src/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/support/oracle.rs"]
mod oracle;

use common::Ctl;
use etherparse::PacketBuilder;
use libfuzzer_sys::fuzz_target;
use netoffload::gro::{
    BurstFrame, Disposition, Gro, GroConfig, GroKinds, SoftwareVerify, SuperPacket, TunnelPolicy,
};
use netoffload::state::{self, CsumLevel, CsumMeta, DeviceReport};
use netoffload::wire::{self, LinkType};
use oracle::{Link, View};

/// What we know of a frame we fed.
#[derive(Clone, Debug)]
struct Fed {
    frame: Vec<u8>,
    /// `Some((payload offset, payload len))` for a segment we built.
    payload: Option<(usize, usize)>,
    /// We corrupted a byte of its TCP/UDP segment.
    corrupt: bool,
    held: bool,
    /// Seen in a flushed super-packet.
    out: bool,
}

#[derive(Clone, Copy)]
struct Flow {
    seq: u32,
    id: u16,
}

fn build(flow: u8, st: &mut Flow, r: &[u8; 8]) -> (Vec<u8>, usize, usize) {
    let [_, _, gap, flags, len, idsel, _, pad] = *r;
    let v6 = flow & 1 != 0;
    let udp = flow & 2 != 0;
    let src = [10, 0, 0, flow];
    let dst = [10, 0, 1, 1];
    let eth = PacketBuilder::ethernet2([2, 0, 0, 0, 0, flow], [2, 0, 0, 0, 1, 1]);
    let ip = if v6 {
        let mut s = [0xfd; 16];
        s[15] = flow;
        eth.ipv6(s, [0xfe; 16], 64)
    } else {
        eth.ipv4(src, dst, 64)
    };
    let ip_id = if idsel & 0x80 != 0 {
        7
    } else {
        st.id = st.id.wrapping_add(if idsel & 0x40 != 0 { 2 } else { 1 });
        st.id
    };
    if gap > 230 {
        st.seq = st.seq.wrapping_add(u32::from(gap) * 100);
    }
    let n = usize::from(len) * 6;
    let payload: Vec<u8> = (0..n).map(|i| (st.seq as usize + i) as u8 ^ flow).collect();
    let mut out = Vec::new();
    if udp {
        ip.udp(1000 + u16::from(flow), 2000)
            .write(&mut out, &payload)
            .unwrap();
    } else {
        let mut t = ip.tcp(1000 + u16::from(flow), 80, st.seq, 4096).ack(1);
        // Mostly plain ACKs; sometimes PSH, rarely FIN / SYN / RST / URG / CWR.
        if flags & 0x07 == 0 {
            t = t.psh();
        }
        if flags & 0xF8 == 0xF8 {
            t = match flags & 0x07 {
                1 => t.fin(),
                2 => t.syn(),
                3 => t.rst(),
                4 => t.urg(1),
                5 => t.cwr(),
                _ => t.ece(),
            };
        }
        t.write(&mut out, &payload).unwrap();
    }
    st.seq = st.seq.wrapping_add(n as u32);
    if !v6 {
        out[18..20].copy_from_slice(&ip_id.to_be_bytes());
        common::fix_ipv4_header(&mut out, 14);
    }
    let plen = out.len();
    if pad & 1 != 0 && out.len() < 60 {
        out.resize(60, 0);
    }
    (out, plen - n, n)
}

fn check_super(sp: &SuperPacket, fed: &mut [Fed], cfg: &GroConfig) {
    let segs = sp.segments();
    assert_eq!(segs.len(), sp.seg_count() as usize);
    assert!(!segs.is_empty());
    let seg_limit = usize::from(cfg.max_segs.clamp(1, 64));
    assert!(
        segs.len() <= seg_limit,
        "{} segments > {seg_limit}",
        segs.len()
    );
    if segs.len() >= 2 {
        let size_limit = cfg.max_size.min(65535) as usize;
        assert!(
            sp.len() - sp.l3() <= size_limit,
            "super-packet IP length {} > {size_limit}",
            sp.len() - sp.l3()
        );
    }
    let mut want = Vec::new();
    for s in segs {
        let f = fed.get_mut(s.id as usize).expect("an id we fed");
        assert!(
            f.held,
            "id {} came out of a super-packet but was passed up",
            s.id
        );
        assert!(!f.out, "id {} came out twice", s.id);
        f.out = true;
        assert!(
            s.range().end <= f.frame.len(),
            "segment range beyond its frame"
        );
        if let Some((off, len)) = f.payload {
            assert_eq!(
                (s.start as usize, s.len as usize),
                (off, len),
                "id {}",
                s.id
            );
        }
        if segs.len() >= 2 {
            assert!(!f.corrupt, "corrupted id {} merged", s.id);
        }
        want.extend_from_slice(&f.frame[s.range()]);
    }
    let mut buf = vec![0u8; sp.len() + 16];
    let n = sp
        .write_into(&mut buf, |id| fed.get(id as usize).map(|f| &f.frame[..]))
        .expect("every frame is there");
    assert_eq!(n, sp.len());
    assert_eq!(
        &buf[sp.payload_offset()..n],
        &want[..],
        "payload not conserved"
    );
    let bytes = &buf[..n];
    if wire::parse(bytes, LinkType::Ethernet).is_ok_and(|l| common::plain_pseudo(&l)) {
        let view = View {
            bytes,
            link: Link::Ethernet,
            cur: sp.l3(),
            levels_from: 0,
            l4: sp.l4(),
        };
        if let Err(e) = oracle::check(&view, &sp.meta()) {
            panic!("super-packet state {:?} rejected: {e:?}", sp.meta());
        }
    }
}

/// What a caller sees of a super-packet (its public descriptor), not the
/// engine's private fast-path bookkeeping.
fn seen(sp: &SuperPacket) -> String {
    format!(
        "{:?} {:?} {} {} {:?} {} {:?} {} {} {} {:?}",
        sp.header(),
        sp.segments(),
        sp.seg_count(),
        sp.gso_size(),
        sp.gso_type(),
        sp.fixed_id(),
        sp.reason(),
        sp.len(),
        sp.l4(),
        sp.payload_offset(),
        sp.meta(),
    )
}

/// Gives the gathered segments to `gro` as one burst; each verdict must be
/// the general engine's.
fn deliver(
    gro: &mut Gro<4>,
    pending: &mut Vec<(u32, CsumMeta, Disposition)>,
    fed: &mut [Fed],
    now: u64,
    out: &mut Vec<SuperPacket>,
) {
    if pending.is_empty() {
        return;
    }
    let burst: Vec<BurstFrame> = pending
        .iter()
        .map(|(id, meta, _)| BurstFrame {
            frame: &fed[*id as usize].frame,
            id: *id,
            meta: meta.clone(),
        })
        .collect();
    let mut verdicts = Vec::new();
    // Bursts of even length name themselves as the next burst: a `next`
    // that is not the next burst changes nothing but the hints.
    let next: &[BurstFrame] = if burst.len() % 2 == 0 { &burst } else { &[] };
    gro.receive_burst_with_next(&burst, next, now, &mut |sp| out.push(sp.clone()), |id, v| {
        verdicts.push((id, v))
    });
    drop(burst);
    assert_eq!(verdicts.len(), pending.len());
    for ((id, meta, g), (vid, v)) in pending.drain(..).zip(verdicts) {
        assert_eq!(
            (vid, &v),
            (id, &g),
            "burst and general paths disagree on frame {id}"
        );
        settle(fed, id, &meta, v);
    }
}

/// Records a built segment's verdict `v`: held, or passed up with a state
/// the oracle accepts for its bytes (it was given `meta`).
fn settle(fed: &mut [Fed], id: u32, meta: &CsumMeta, v: Disposition) {
    let f = &fed[id as usize].frame;
    match v {
        Disposition::Held(_) => fed[id as usize].held = true,
        Disposition::PassUp { meta: up, .. } => {
            if let Ok(l) = wire::parse(f, LinkType::Ethernet)
                && common::plain_pseudo(&l)
            {
                let view = View {
                    bytes: f,
                    link: Link::Ethernet,
                    cur: 14,
                    levels_from: 0,
                    l4: l.l4,
                };
                if let Err(e) = oracle::check(&view, &up) {
                    panic!("passed-up state {up:?} (was {meta:?}) rejected: {e:?}");
                }
            }
        }
    }
}

/// The general path's super-packets equal the fast path's, descriptor for
/// descriptor.
fn same_output(fast: &[SuperPacket], general: &mut Vec<SuperPacket>) {
    let a: Vec<String> = fast.iter().map(seen).collect();
    let b: Vec<String> = general.drain(..).map(|sp| seen(&sp)).collect();
    assert_eq!(
        a, b,
        "fast and general paths emitted different super-packets"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut c = Ctl::new(data);
    let kinds = GroKinds::from_bits_truncate(c.u8());
    let cfg = GroConfig {
        max_size: 200 + u32::from(c.u16()),
        max_segs: u16::from(c.u8() % 70),
        tunnel_policy: if c.u8() & 1 == 0 {
            TunnelPolicy::Compute
        } else {
            TunnelPolicy::Strict
        },
        software_verify: if c.u8() & 1 == 0 {
            SoftwareVerify::On
        } else {
            SoftwareVerify::Off
        },
        flush_age_ticks: u64::from(c.u8() % 4),
        kinds,
        link: LinkType::Ethernet,
        ..GroConfig::new()
    };
    let bursts = c.u8() & 1 == 1;
    let mut gro = Gro::<4>::new(cfg);
    // The same stream through the general path alone: verdicts and
    // super-packets must be identical (the fast paths are derived, not rules).
    let mut general = Gro::<4>::new(GroConfig {
        fast_path: false,
        ..cfg
    });
    let mut out_general: Vec<SuperPacket> = Vec::new();
    let mut flows = [Flow { seq: 1, id: 0 }; 4];
    let mut fed: Vec<Fed> = Vec::new();
    let mut now = 0u64;
    let mut out: Vec<SuperPacket> = Vec::new();
    // Segments the general engine has taken and the fast one has not yet (a
    // burst being gathered): id, state, the general engine's verdict.
    let mut pending: Vec<(u32, CsumMeta, Disposition)> = Vec::new();

    let mut records = 0;
    while !c.is_empty() && records < 64 {
        records += 1;
        let r: [u8; 8] = c.bytes(8).try_into().unwrap_or([0; 8]);
        let [kind, flow, _, _, _, _, msel, _] = r;
        let segment = !matches!(kind % 16, 10..=12);
        if !segment || pending.len() == 8 {
            deliver(&mut gro, &mut pending, &mut fed, now, &mut out);
        }
        match kind % 16 {
            10 => {
                let n = usize::from(flow);
                let frame = c.bytes(n).to_vec();
                let id = fed.len() as u32;
                fed.push(Fed {
                    frame,
                    payload: None,
                    corrupt: false,
                    held: false,
                    out: false,
                });
                let f = fed[id as usize].frame.clone();
                let v = gro.receive(&f, id, CsumMeta::NONE, now, &mut |sp| out.push(sp.clone()));
                let g = general.receive(&f, id, CsumMeta::NONE, now, &mut |sp| {
                    out_general.push(sp.clone())
                });
                assert_eq!(v, g, "fast and general paths disagree on frame {id}");
                fed[id as usize].held = matches!(v, Disposition::Held(_));
            }
            11 => {
                gro.flush_all(&mut |sp| out.push(sp.clone()));
                general.flush_all(&mut |sp| out_general.push(sp.clone()));
            }
            12 => {
                now += u64::from(flow % 3);
                gro.tick(now, &mut |sp| out.push(sp.clone()));
                general.tick(now, &mut |sp| out_general.push(sp.clone()));
            }
            _ => {
                let fl = flow % 4;
                let (mut frame, off, len) = build(fl, &mut flows[usize::from(fl)], &r);
                let mut corrupt = false;
                let mut payload = Some((off, len));
                if kind % 16 == 13 {
                    // A header byte overwritten: unknown state, like garbage.
                    let at = usize::from(r[2]) % frame.len();
                    frame[at] = r[3];
                    payload = None;
                } else if msel & 0x80 != 0 {
                    // A corrupted TCP/UDP segment byte (never the UDP checksum
                    // field: a zero there would mean "no checksum").
                    let l4 = off - if fl & 2 != 0 { 8 } else { 20 };
                    let span = off + len - l4;
                    let mut at = l4 + usize::from(r[2]) % span;
                    if fl & 2 != 0 && (at == l4 + 6 || at == l4 + 7) {
                        at = l4;
                    }
                    common::corrupt(&mut frame, at, r[3]);
                    corrupt = true;
                }
                let l3 = 14;
                let meta = match msel % 4 {
                    1 if !corrupt && payload.is_some() => {
                        state::receive(DeviceReport::L4Ok {
                            level: CsumLevel::L0,
                        })
                        .meta
                    }
                    2 if payload.is_some() => {
                        state::receive(DeviceReport::Complete {
                            csum: oracle::honest_complete(&frame, l3),
                        })
                        .meta
                    }
                    3 => state::receive(DeviceReport::L4Bad).meta,
                    _ => CsumMeta::NONE,
                };
                let id = fed.len() as u32;
                fed.push(Fed {
                    frame,
                    payload,
                    corrupt,
                    held: false,
                    out: false,
                });
                let f = &fed[id as usize].frame;
                let g = general.receive(f, id, meta.clone(), now, &mut |sp| {
                    out_general.push(sp.clone())
                });
                if bursts {
                    pending.push((id, meta, g));
                    continue;
                }
                let v = gro.receive(f, id, meta.clone(), now, &mut |sp| out.push(sp.clone()));
                assert_eq!(v, g, "fast and general paths disagree on frame {id}");
                settle(&mut fed, id, &meta, v);
            }
        }
        same_output(&out, &mut out_general);
        for sp in out.drain(..) {
            check_super(&sp, &mut fed, &cfg);
        }
    }
    deliver(&mut gro, &mut pending, &mut fed, now, &mut out);
    gro.flush_all(&mut |sp| out.push(sp.clone()));
    general.flush_all(&mut |sp| out_general.push(sp.clone()));
    same_output(&out, &mut out_general);
    for sp in out.drain(..) {
        check_super(&sp, &mut fed, &cfg);
    }
    assert_eq!(gro.held_flows(), 0);
    for (id, f) in fed.iter().enumerate() {
        assert_eq!(f.held, f.out, "id {id}: held {} but out {}", f.held, f.out);
    }
    assert_eq!(gro.stats().packets, fed.len() as u64);
});
