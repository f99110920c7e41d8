//! Arbitrary virtio-net header bytes + arbitrary frame -> `to_meta` never panics,
//! and every accepted state is structurally sound: a `Partial` lies inside the
//! packet, and one whose seed was verified yields a correct checksum when it is
//! finished (recomputed here with a naive RFC 1071 loop, not the crate's `csum`).
//! The Xen and DPDK inbound mappings get the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netoffload::state::paravirt::dpdk::{self, TxOffload};
use netoffload::state::paravirt::setup::{SeedCheck, pseudo_sum};
use netoffload::state::paravirt::virtio::{
    DataValidPolicy, Direction, HdrLayout, HdrLenRule, SeedPolicy, VirtioNetHdr, VirtioPolicy,
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
        check_partial(frame, link, &got.meta, got.seed);
        if let netoffload::state::paravirt::virtio::GsoOutcome::Segment(p) = got.gso {
            assert!(p.gso_size > 0 && p.segs >= 2 && p.hdr_len <= frame.len());
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
    match dpdk::tx_to_meta(&tx, &mut copy, link) {
        Ok(got) => {
            if let CsumState::Partial { start, offset, .. } = got.meta.state() {
                assert!(start + offset + 2 <= frame.len());
            }
        }
        Err(_) => assert_eq!(copy, frame, "an error changed the frame"),
    }
});
