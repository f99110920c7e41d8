//! The oracle judged by others: its sums against the `internet-checksum`
//! crate, its checksum sites against etherparse-built packets, and its
//! verdicts on corrupted bytes. If the oracle were wrong, every state test
//! would be too.

use crate::support;

use netoffload::csum::Wsum;
use netoffload::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use proptest::prelude::*;
use support::oracle::{self, Link, View};
use support::packets;

proptest! {
    #[test]
    fn naive_sum_matches_internet_checksum(data in prop::collection::vec(any::<u8>(), 0..600)) {
        let mut c = internet_checksum::Checksum::new();
        c.add_bytes(&data);
        // internet-checksum gives the complemented checksum in wire order.
        prop_assert_eq!((!oracle::naive_sum(&data)).to_be_bytes(), c.checksum());
    }

    #[test]
    fn built_packets_verify_and_corruption_is_seen(
        spec in packets::arb_spec(),
        flip in any::<usize>(),
        mask in 1u8..=255,
    ) {
        let (mut b, at) = packets::build(&spec);
        let link = if spec.raw_ip { Link::RawIp } else { Link::Ethernet };
        let sites = oracle::sites(&b, link);
        prop_assert_eq!(sites.len(), 1);
        prop_assert_eq!(sites[0].l4, at.l4);
        prop_assert!(oracle::all_correct(&b, link));
        // Flip a payload byte (never the length fields): the site goes bad,
        // unless UDP says "no checksum".
        let payload_start = at.end - spec.payload.len();
        if !spec.payload.is_empty() {
            b[payload_start + flip % spec.payload.len()] ^= mask;
            let s = oracle::sites(&b, link)[0];
            prop_assert_eq!(s.correct, s.zero);
        }
    }

    #[test]
    fn complete_is_judged_exactly(spec in packets::arb_spec(), delta in 1u32..0xFFFF) {
        let (b, at) = packets::build(&spec);
        let link = if spec.raw_ip { Link::RawIp } else { Link::Ethernet };
        let view = View { bytes: &b, link, cur: at.l3, levels_from: at.l4, l4: at.l4 };
        let honest = oracle::honest_complete(&b, at.l3);
        let good = CsumMeta::from_state(CsumState::Complete { csum: honest });
        prop_assert!(oracle::check(&view, &good).is_ok());
        let off = Wsum::new(honest.get().wrapping_add(delta) % 0xFFFF);
        let bad = CsumMeta::from_state(CsumState::Complete { csum: off });
        prop_assert!(oracle::check(&view, &bad).is_err());
    }
}

#[test]
fn a_level_over_a_bad_checksum_is_unsound() {
    let (mut b, at) = packets::build(&packets::simple(
        true,
        packets::L4::Tcp { opt_words: 0 },
        b"abc",
    ));
    b[at.end - 1] ^= 1;
    let view = View {
        bytes: &b,
        link: Link::Ethernet,
        cur: at.l3,
        levels_from: at.l4,
        l4: at.l4,
    };
    let m = CsumMeta::from_state(CsumState::Unnecessary {
        level: CsumLevel::L0,
    });
    assert!(matches!(
        oracle::check(&view, &m),
        Err(oracle::Unsound::LevelCoversBad { .. })
    ));
    // Once the layer is behind `levels_from`, the claim is about later layers.
    let later = View {
        levels_from: at.l4 + 1,
        ..view
    };
    assert!(oracle::check(&later, &m).is_ok());
}

#[test]
fn csum_valid_is_honest_on_a_blank_field_only_under_a_trusted_partial() {
    let (mut b, at) = packets::build(&packets::simple(
        false,
        packets::L4::Tcp { opt_words: 0 },
        b"blank",
    ));
    // Make the TCP field a Partial seed: filling it must give back the
    // checksum etherparse wrote (seed = ~check - sum of the rest).
    let field = at.l4 + 16;
    let check = u16::from_be_bytes([b[field], b[field + 1]]);
    b[field..field + 2].fill(0);
    let rest = oracle::naive_sum(&b[at.l4..]);
    let seed = oracle::add16(!check, !rest);
    b[field..field + 2].copy_from_slice(&seed.to_be_bytes());
    assert_eq!(oracle::correct_at(&b, Link::Ethernet, at.l4), Some(false));
    let view = View::new(&b, Link::Ethernet, at.l3, at.l4);
    let partial = CsumState::Partial {
        start: at.l4,
        offset: 16,
        kind: PartialKind::Inet,
    };
    let trusted = CsumMeta::new(partial, CsumFlags::CSUM_VALID).unwrap();
    assert_eq!(oracle::check(&view, &trusted), Ok(()));
    let bare = CsumMeta::new(CsumState::None, CsumFlags::CSUM_VALID).unwrap();
    assert!(matches!(
        oracle::check(&view, &bare),
        Err(oracle::Unsound::CsumValidOnBad { .. })
    ));
}
