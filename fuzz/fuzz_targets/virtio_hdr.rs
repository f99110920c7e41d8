//! Arbitrary virtio-net header bytes + an arbitrary frame (mostly a valid
//! packet with a matching header) -> `VirtioNetHdr::to_meta` never panics,
//! and every accepted state is one the independent oracle accepts: a
//! `Partial` lies inside the IP packet and, once its seed was verified,
//! finishing it gives a correct checksum; a `DATA_VALID` / `Unnecessary`
//! claim is only vouched for when the peer told the truth. A GSO packet's
//! segmentation parameters are consistent with the frame.
//!
//! Input: 1 policy byte, 1 layout byte, then the header (10, 12 or 20 bytes)
//! and the frame. Policy bits: 0 raw IP; 1 from device; 2..4 DATA_VALID
//! policy; 4 exact hdr_len; 5 trust seed; 6 RSC_EXT.
#![no_main]

#[allow(dead_code)]
#[path = "../src/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/support/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;
use netoffload::state::paravirt::setup::SeedCheck;
use netoffload::state::paravirt::virtio::{
    DataValidPolicy, Direction, GsoOutcome, HdrLayout, HdrLenRule, SeedPolicy, VirtioFlags,
    VirtioNetHdr, VirtioPolicy,
};
use netoffload::state::{CsumFlags, CsumState};
use netoffload::wire::{self, LinkType};
use oracle::View;

fuzz_target!(|data: &[u8]| {
    let [ctl, lay, rest @ ..] = data else { return };
    let layout = [HdrLayout::Legacy, HdrLayout::V1, HdrLayout::HashReport][usize::from(*lay % 3)];
    let Ok((hdr, frame)) = VirtioNetHdr::parse(rest, layout) else {
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
        ][usize::from(ctl >> 2) & 3],
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
    let Ok(got) = hdr.to_meta(frame, &policy) else {
        return;
    };
    let meta = got.meta;
    let parsed = wire::parse(frame, link).ok();
    if let CsumState::Partial { start, offset, .. } = meta.state() {
        let end = parsed.map_or(frame.len(), |l| l.end);
        assert!(
            start + offset + 2 <= end,
            "Partial field beyond the IP packet"
        );
    }
    if let GsoOutcome::Segment(p) = got.gso {
        assert!(
            p.gso_size > 0 && p.segs >= 2 && p.hdr_len <= frame.len(),
            "{p:?}"
        );
        assert!(
            matches!(meta.state(), CsumState::Partial { .. }),
            "GSO without Partial"
        );
    }
    let Some(l) = parsed else { return };
    if !common::plain_pseudo(&l) {
        return;
    }
    // The peer's DATA_VALID claim is vouched for only when it is true.
    let claimed_valid = hdr.flags.contains(VirtioFlags::DATA_VALID);
    let sites = oracle::sites(frame, common::link_of(link));
    let truthful = sites
        .iter()
        .filter(|s| s.counted)
        .take(1)
        .all(|s| s.correct)
        && oracle::correct_at(frame, common::link_of(link), l.l4) != Some(false);
    if claimed_valid && !truthful {
        return;
    }
    // A trusted (unverified) seed cannot be vouched for either.
    if matches!(meta.state(), CsumState::Partial { .. })
        && !matches!(got.seed, Some(SeedCheck::Verified))
    {
        return;
    }
    // Judged on the IP packet: trailing bytes (Ethernet padding) are the
    // caller's to trim before a `Partial` is finished (see the report).
    let view = View {
        bytes: &frame[..l.end],
        link: common::link_of(link),
        cur: l.l3,
        levels_from: 0,
        l4: l.l4,
    };
    if let Err(e) = oracle::check(&view, &meta) {
        panic!(
            "to_meta gave {meta:?} (seed {:?}) the oracle rejects: {e:?}",
            got.seed
        );
    }
    if meta.flags().contains(CsumFlags::CSUM_BLANK) {
        assert!(matches!(meta.state(), CsumState::Partial { .. }));
    }
});
