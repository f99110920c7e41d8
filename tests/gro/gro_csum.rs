//! The GRO checksum gate: `Unnecessary` levels consumed per layer, `Complete`
//! checked by arithmetic, `Partial` trusted, software verification counted, and
//! the tunnel policy (Strict = the 2015 `udp_gro_receive` gate, Compute =
//! current kernels).
use crate::support::gro as support;

use netoffload::csum::Wsum;
use netoffload::gro::{Disposition, FlushReason as R, GroConfig, SoftwareVerify, TunnelPolicy};
use netoffload::state::{CsumLevel, CsumMeta, CsumState, PartialKind};
use support::*;

fn unnecessary(level: u8) -> CsumMeta {
    CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::new(level).unwrap(),
    })
}

/// A device `Complete` sum of the frame from the IP header to the end
/// (padding included), computed by the naive oracle and put in host order.
fn complete_of(frame: &[u8]) -> CsumMeta {
    let be = fold16(ones_sum(&frame[14..]));
    let host = u16::from_ne_bytes(be.to_be_bytes());
    CsumMeta::from_state(CsumState::Complete {
        csum: Wsum::new(host as u32),
    })
}

fn reasons<const N: usize>(h: &Harness<N>) -> Vec<(Vec<u32>, R)> {
    h.events.iter().map(|e| (e.ids(), e.reason())).collect()
}

fn plain_pair() -> (Vec<u8>, Vec<u8>) {
    let a = Spec::default();
    (a.frame(), a.next().frame())
}

fn vxlan_pair(udp_csum: bool) -> (Vec<u8>, Vec<u8>) {
    let o = Outer {
        udp_csum,
        ..Outer::default()
    };
    let a = Spec::default();
    (tunnel_frame(&o, &a), tunnel_frame(&o.next(), &a.next()))
}

fn feed_pair(
    cfg: GroConfig,
    pair: (Vec<u8>, Vec<u8>),
    meta: impl Fn(&[u8]) -> CsumMeta,
) -> Harness<8> {
    let mut h = Harness::<8>::new(cfg);
    let m0 = meta(&pair.0);
    let m1 = meta(&pair.1);
    h.feed_meta(pair.0, m0);
    h.feed_meta(pair.1, m1);
    h.flush();
    h
}

const TCP_BYTES: u64 = 32 + 1448;

#[test]
fn unnecessary_needs_no_software() {
    let h = feed_pair(GroConfig::new(), plain_pair(), |_| unnecessary(0));
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 0);
}

#[test]
fn none_is_verified_in_software_and_counted() {
    let h = feed_pair(GroConfig::new(), plain_pair(), |_| CsumMeta::NONE);
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 2 * TCP_BYTES);
    h.check_super(&h.events[0]);
}

#[test]
fn complete_is_checked_by_arithmetic() {
    let h = feed_pair(GroConfig::new(), plain_pair(), complete_of);
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 0);
    assert_eq!(h.gro.stats().csum_faults, 0);
}

#[test]
fn complete_with_padding_is_trimmed() {
    let a = Spec {
        payload: pay(4, 1),
        tcp_opts: vec![],
        ..Spec::default()
    };
    let pair = (a.frame(), a.next().frame());
    assert_eq!(pair.0.len(), 60);
    let h = feed_pair(GroConfig::new(), pair, |f| {
        let mut f = f.to_vec();
        // Non-zero padding, included in the device sum.
        for b in &mut f[58..] {
            *b = 0x5A;
        }
        complete_of(&f)
    });
    // The padding bytes in the frames fed were zero, so the sum above is wrong
    // for them only if trimming ignored the padding: expect a device fault count.
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().csum_faults, 2);
    let h = feed_pair(GroConfig::new(), (a.frame(), a.next().frame()), complete_of);
    assert_eq!(h.gro.stats().csum_faults, 0);
    assert_eq!(h.gro.stats().sw_bytes, 0);
}

#[test]
fn wrong_device_sum_with_good_data_is_a_fault_not_a_drop() {
    let h = feed_pair(GroConfig::new(), plain_pair(), |_| {
        CsumMeta::from_state(CsumState::Complete {
            csum: Wsum::new(0x1234),
        })
    });
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().csum_faults, 2);
    assert_eq!(h.gro.stats().sw_bytes, 2 * TCP_BYTES);
}

#[test]
fn partial_from_a_vm_is_trusted() {
    // A guest's Partial packet: the TCP field holds the pseudo seed, not a sum.
    let mk = |s: &Spec| {
        let mut f = s.frame();
        let w = walk(&f);
        let seed = fold16(pseudo_sum(&f[26..30], &f[30..34], 6, w.end - w.l4));
        f[w.l4 + 16..w.l4 + 18].copy_from_slice(&seed.to_be_bytes());
        (f, w.l4)
    };
    let a = Spec::default();
    let (fa, l4) = mk(&a);
    let (fb, _) = mk(&a.next());
    let meta = || {
        CsumMeta::from_state(CsumState::Partial {
            start: l4,
            offset: 16,
            kind: PartialKind::Inet,
        })
    };
    let mut h = Harness::<8>::new(GroConfig::new());
    h.feed_meta(fa, meta());
    h.feed_meta(fb, meta());
    h.flush();
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 0);
    let Ev::Super { bytes, .. } = &h.events[0] else {
        panic!()
    };
    let mut fin = bytes.clone();
    fill_all(&mut fin, false, true);
    verify(&fin).unwrap();
}

#[test]
fn bad_checksum_with_none() {
    let a = Spec::default();
    let b = Spec {
        bad_csum: true,
        ..a.next()
    };
    let h = feed_pair(GroConfig::new(), (a.frame(), b.frame()), |_| CsumMeta::NONE);
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::BadChecksum), (vec![2], R::BadChecksum)]
    );
    // The bad packet leaves with its metadata unchanged (nothing was verified).
    let Ev::Pass { state, .. } = &h.events[1] else {
        panic!()
    };
    assert_eq!(*state, CsumState::None);
}

#[test]
fn software_off_means_unknown() {
    let cfg = GroConfig {
        software_verify: SoftwareVerify::Off,
        ..GroConfig::new()
    };
    let h = feed_pair(cfg, plain_pair(), |_| CsumMeta::NONE);
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::ChecksumUnknown), (vec![2], R::ChecksumUnknown)]
    );
    assert_eq!(h.gro.stats().sw_bytes, 0);
    let h = feed_pair(cfg, plain_pair(), |_| unnecessary(0));
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
}

#[test]
fn passed_up_alone_after_software_check_is_upgraded() {
    let mut h = Harness::<8>::new(GroConfig::new());
    let a = Spec {
        flags: 0x18,
        ..Spec::default()
    };
    let (_, v) = h.feed_verdict(a.frame(), CsumMeta::NONE);
    let Disposition::PassUp { reason, meta } = v else {
        panic!()
    };
    assert_eq!(reason, R::Psh);
    assert_eq!(
        meta.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L0
        }
    );
    // Through VXLAN with a zero outer checksum: the (zero) UDP and the TCP.
    let (_, v) = h.feed_verdict(tunnel_frame(&Outer::default(), &a), CsumMeta::NONE);
    let Disposition::PassUp { meta, .. } = v else {
        panic!()
    };
    assert_eq!(
        meta.state(),
        CsumState::Unnecessary {
            level: CsumLevel::L1
        }
    );
}

fn policy(p: TunnelPolicy) -> GroConfig {
    GroConfig {
        tunnel_policy: p,
        ..GroConfig::new()
    }
}

#[test]
fn strict_policy_reproduces_the_2015_gate() {
    let strict = policy(TunnelPolicy::Strict);
    // Zero outer checksum, nothing known: no tunnel GRO.
    let h = feed_pair(strict, vxlan_pair(false), |_| CsumMeta::NONE);
    assert_eq!(
        reasons(&h),
        vec![
            (vec![1], R::TunnelChecksumStrict),
            (vec![2], R::TunnelChecksumStrict)
        ]
    );
    // 82599: level 0 covers only the (zero) outer UDP checksum: still no GRO.
    let h = feed_pair(strict, vxlan_pair(false), |_| unnecessary(0));
    assert_eq!(reasons(&h)[0].1, R::TunnelChecksumStrict);
    // Level 1 covers the inner TCP too: GRO, no software.
    let h = feed_pair(strict, vxlan_pair(false), |_| unnecessary(1));
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 0);
    // A non-zero outer checksum opens the gate: verified once, the inner TCP
    // is then checked by arithmetic (no byte summed twice).
    let h = feed_pair(strict, vxlan_pair(true), |_| CsumMeta::NONE);
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    let outer_udp_bytes = (8 + 8 + 14 + 20 + TCP_BYTES) * 2;
    assert_eq!(h.gro.stats().sw_bytes, outer_udp_bytes);
    // ...and with the NIC's level 0 on it, nothing is summed at all.
    let h = feed_pair(strict, vxlan_pair(true), |_| unnecessary(0));
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 0);
    // A device sum works either way.
    let h = feed_pair(strict, vxlan_pair(false), complete_of);
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 0);
}

#[test]
fn compute_policy_verifies_the_inner_checksum() {
    let compute = policy(TunnelPolicy::Compute);
    let h = feed_pair(compute, vxlan_pair(false), |_| CsumMeta::NONE);
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 2 * TCP_BYTES);
    h.check_super(&h.events[0]);
    let h = feed_pair(compute, vxlan_pair(false), |_| unnecessary(0));
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, 2 * TCP_BYTES);
}

#[test]
fn bad_outer_udp_checksum() {
    let o = Outer {
        udp_csum: true,
        ..Outer::default()
    };
    let a = Spec::default();
    let mut fb = tunnel_frame(&o.next(), &a.next());
    let w = walk(&fb);
    let u = w.outer_udp.unwrap();
    fb[u + 6] ^= 0x40;
    let h = feed_pair(GroConfig::new(), (tunnel_frame(&o, &a), fb), |_| {
        CsumMeta::NONE
    });
    assert_eq!(
        reasons(&h),
        vec![(vec![1], R::BadChecksum), (vec![2], R::BadChecksum)]
    );
}

#[test]
fn gre_checksum_verified_once() {
    let o = Outer {
        tunnel: Tunnel::Gre {
            key: None,
            csum: true,
        },
        ..Outer::default()
    };
    let a = Spec::default();
    let pair = (tunnel_frame(&o, &a), tunnel_frame(&o.next(), &a.next()));
    let h = feed_pair(GroConfig::new(), pair, |_| CsumMeta::NONE);
    assert_eq!(reasons(&h), vec![(vec![1, 2], R::PollEnd)]);
    assert_eq!(h.gro.stats().sw_bytes, (8 + 20 + TCP_BYTES) * 2);
}
