//! Arbitrary virtio-net header bytes + arbitrary frame -> `to_meta` never panics,
//! and every accepted state is structurally sound: a `Partial` lies inside the
//! packet, and one whose seed was verified yields a correct checksum when it is
//! finished (recomputed here with a naive RFC 1071 loop, not the crate's `csum`).
//! The Xen and DPDK inbound mappings get the same bytes.
//!
//! The virtio result is also judged by the independent test oracle
//! (tests/support/oracle.rs) on the IP packet: a `Partial` whose seed was
//! verified, and any `Unnecessary` / `DATA_VALID` claim the peer made
//! truthfully, must be sound; a GSO request must come with a `Partial`.
//!
//! And by Linux's rules, never from the crate: an accepted header is one the
//! model of Linux (tests/state/virtio_linux_rules/linux.rs) accepts, and an accepted
//! `NEEDS_CSUM` meets the offset predicate written here (`csum_start` at least
//! `nh_min_len` past the network header, `csum_start + max(thlen,
//! csum_offset + 2)` inside the frame), parsed frame or not.
#![no_main]

#[allow(dead_code)]
#[path = "../src/common.rs"]
mod common;
#[path = "../../tests/state/virtio_linux_rules/linux.rs"]
mod linux;
#[allow(dead_code)]
#[path = "../../tests/support/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;
use netoffload::state::paravirt::dpdk::{self, TxOffload, TxSeedMode};
use netoffload::state::paravirt::setup::{SeedCheck, pseudo_sum};
use netoffload::state::paravirt::virtio::{
    DataValidPolicy, Direction, HdrLayout, HdrLenRule, SeedPolicy, VirtioFlags, VirtioNetHdr,
    VirtioPolicy,
};
use netoffload::state::paravirt::xen::{self, XenCsum, XenGso, XenTrust};
use netoffload::state::{CsumMeta, CsumState};
use netoffload::wire::{self, LinkType, Transport};

fn naive_fold(data: &[u8], mut acc: u64) -> u16 {
    let mut it = data.chunks_exact(2);
    for c in &mut it {
        acc += u64::from(u16::from_ne_bytes([c[0], c[1]]));
    }
    if let [b] = it.remainder() {
        acc += u64::from(u16::from_ne_bytes([*b, 0]));
    }
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    acc as u16
}

/// Finishes a verified Partial at the transport header and checks the result.
fn check_partial(frame: &[u8], link: LinkType, meta: &CsumMeta, seed: Option<SeedCheck>) {
    let CsumState::Partial { start, offset, .. } = meta.state() else {
        return;
    };
    assert!(
        start + offset + 2 <= frame.len(),
        "Partial beyond the frame"
    );
    if !matches!(
        seed,
        Some(SeedCheck::Verified) | Some(SeedCheck::Recalculated)
    ) {
        return;
    }
    let l = wire::parse(frame, link).expect("a verified seed comes from a parsed packet");
    assert!(start + offset + 2 <= l.end, "Partial beyond the IP end");
    assert_eq!(start, l.l4);
    let len = netoffload::state::paravirt::setup::pseudo_len(frame, &l);
    let mut done = frame.to_vec();
    let c = !naive_fold(&done[start..l.end], 0);
    let c = if l.transport == Transport::Udp && c == 0 {
        0xFFFF
    } else {
        c
    };
    done[start + offset..start + offset + 2].copy_from_slice(&c.to_ne_bytes());
    let pseudo = pseudo_sum(&done, &l).expect("pseudo-header").get();
    let total = naive_fold(&done[l.l4..l.l4 + len], u64::from(pseudo));
    assert_eq!(total, 0xFFFF, "finished Partial does not verify");
}

/// Linux's offset rule for an accepted `NEEDS_CSUM`, from the raw header
/// bytes: the transport at least `nh_min_len` (20, 40 for `GSO_TCPV6`) past
/// the network header (the Ethernet header and its VLAN / QinQ tags, none
/// for raw IP), and `csum_start + max(thlen, csum_offset + 2)` inside the
/// frame (`thlen` 20 for TCP GSO, 8 for UDP GSO, 0 without GSO).
fn check_linux_offsets(raw: &[u8], frame: &[u8], link: LinkType) {
    let word = |i: usize| usize::from(u16::from_le_bytes([raw[i], raw[i + 1]]));
    let (flags, gso) = (raw[0], raw[1] & 0x7F);
    if flags & 1 == 0 || flags & 4 != 0 {
        return; // no NEEDS_CSUM, or RSC_INFO counts instead of offsets
    }
    let (start, offset) = (word(6), word(8));
    let (thlen, nh_min_len) = match gso {
        1 => (20, 20),
        4 => (20, 40),
        3 | 5 => (8, 20),
        _ => (0, 20),
    };
    let mut l3 = 0;
    if link == LinkType::Ethernet {
        l3 = 14;
        while let Some(&[a, b]) = frame.get(l3 - 2..l3) {
            if !matches!([a, b], [0x81, 0x00] | [0x88, 0xA8]) {
                break;
            }
            l3 += 4;
        }
    }
    assert!(
        start >= l3 + nh_min_len,
        "accepted csum_start {start} below {l3} + nh_min_len {nh_min_len}"
    );
    assert!(
        start + thlen.max(offset + 2) <= frame.len(),
        "accepted csum_start {start} + max({thlen}, {offset} + 2) past {}",
        frame.len()
    );
}

/// The independent oracle on the IP packet (trailing bytes are the caller's to
/// trim before a `Partial` is finished), when the peer told the truth.
fn oracle_check(
    frame: &[u8],
    link: LinkType,
    hdr: &VirtioNetHdr,
    meta: &CsumMeta,
    seed: Option<SeedCheck>,
) {
    let Ok(l) = wire::parse(frame, link) else {
        return;
    };
    if !common::plain_pseudo(&l) {
        return;
    }
    let olink = common::link_of(link);
    let ip = &frame[..l.end];
    let sites = oracle::sites(ip, olink);
    let truthful = sites
        .iter()
        .filter(|s| s.counted)
        .take(1)
        .all(|s| s.correct)
        && oracle::correct_at(ip, olink, l.l4) != Some(false);
    if hdr.flags.contains(VirtioFlags::DATA_VALID) && !truthful {
        return; // a lying peer trusted by policy: nothing to vouch for
    }
    if matches!(meta.state(), CsumState::Partial { .. })
        && !matches!(seed, Some(SeedCheck::Verified))
    {
        return; // a trusted (unverified) seed
    }
    let view = oracle::View {
        bytes: ip,
        link: olink,
        cur: l.l3,
        levels_from: 0,
        l4: l.l4,
    };
    if let Err(e) = oracle::check(&view, meta) {
        panic!("to_meta gave {meta:?} (seed {seed:?}) the oracle rejects: {e:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else {
        return;
    };
    let Ok((hdr, frame)) = VirtioNetHdr::parse(rest, HdrLayout::Legacy) else {
        return;
    };
    let link = if ctl & 1 == 0 {
        LinkType::Ethernet
    } else {
        LinkType::RawIp
    };
    let policy = VirtioPolicy {
        direction: if ctl & 2 == 0 {
            Direction::FromDriver
        } else {
            Direction::FromDevice
        },
        link,
        data_valid: [
            DataValidPolicy::Ignore,
            DataValidPolicy::Refuse,
            DataValidPolicy::TrustAsFlag,
            DataValidPolicy::TrustAsUnnecessary,
        ][(ctl >> 2) as usize & 3],
        hdr_len: if ctl & 16 == 0 {
            HdrLenRule::Hint
        } else {
            HdrLenRule::Exact
        },
        seed: if ctl & 32 == 0 {
            SeedPolicy::Verify
        } else {
            SeedPolicy::Trust
        },
        rsc_ext: ctl & 64 != 0,
    };
    if let Ok(got) = hdr.to_meta(frame, &policy) {
        let raw = &rest[..10];
        let side = match policy.direction {
            Direction::FromDriver => linux::Side::Tun,
            Direction::FromDevice => linux::Side::Driver,
        };
        let mlink = match link {
            LinkType::Ethernet => linux::Link::Ethernet,
            LinkType::RawIp => linux::Link::RawIp,
        };
        let mhdr = linux::Hdr::from_bytes(raw.try_into().expect("10 header bytes"));
        if let Some(rule) = linux::linux_refuses(&mhdr, frame, mlink, side, policy.rsc_ext) {
            panic!("accepted {hdr:?} that Linux refuses: {rule}");
        }
        check_linux_offsets(raw, frame, link);
        check_partial(frame, link, &got.meta, got.seed);
        oracle_check(frame, link, &hdr, &got.meta, got.seed);
        if let netoffload::state::paravirt::virtio::GsoOutcome::Segment(p) = got.gso {
            assert!(p.gso_size > 0 && p.segs >= 2 && p.hdr_len <= frame.len());
            assert!(
                matches!(got.meta.state(), CsumState::Partial { .. }),
                "GSO without Partial"
            );
        }
    }

    // Xen: the same bytes as flags + an optional GSO slot.
    let fact = [
        XenCsum::Unknown,
        XenCsum::Validated,
        XenCsum::Blank,
        XenCsum::BlankValidated,
    ][(ctl >> 6) as usize & 3];
    let gso = XenGso::parse(&rest[..8.min(rest.len())]).ok();
    let mut copy = frame.to_vec();
    match xen::to_meta(
        fact,
        &mut copy,
        link,
        gso,
        XenTrust::Unnecessary,
        SeedPolicy::Verify,
    ) {
        Ok(got) => check_partial(&copy, link, &got.meta, got.seed),
        Err(_) => assert_eq!(copy, frame, "an error changed the frame"),
    }

    // DPDK: header bytes as a transmit request.
    let word = |i: usize| u16::from_le_bytes([rest[i], rest[i + 1]]);
    let tx = TxOffload {
        ol_flags: u64::from(word(0)) << 41 | u64::from(word(2)) << 20,
        l2_len: word(4) & 0x7F,
        l3_len: word(6) & 0x1FF,
        l4_len: 0,
        tso_segsz: word(8),
        outer_l2_len: u16::from(ctl & 0x7F),
        outer_l3_len: 0,
    };
    let mut copy = frame.to_vec();
    let mode = if ctl & 0x80 != 0 {
        TxSeedMode::Prepare
    } else {
        TxSeedMode::Verify
    };
    match dpdk::tx_to_meta(&tx, &mut copy, link, mode) {
        Ok(got) => {
            if let CsumState::Partial { start, offset, .. } = got.meta.state() {
                assert!(start + offset + 2 <= frame.len());
            }
        }
        Err(_) => assert_eq!(copy, frame, "an error changed the frame"),
    }
});
