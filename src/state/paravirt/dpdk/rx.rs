//! Receive side: the 2-bit checksum statuses of `ol_flags` and what they may claim.

use crate::state::paravirt::peer::{Claim, check_padding, claim};
use crate::state::paravirt::setup;
use crate::state::{CsumFlags, CsumLevel, CsumMeta, CsumState, PartialKind};
use crate::wire::LinkType;

use super::ol;

/// A 2-bit receive status (IP or L4 checksum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RxStatus {
    /// `UNKNOWN` (0): no information. Never good.
    Unknown,
    /// `BAD`: the checksum in the packet is wrong.
    Bad,
    /// `GOOD`: the checksum in the packet is valid.
    Good,
    /// `NONE` (both bits): the field is not correct but the data is verified.
    NoneDataValid,
}

impl RxStatus {
    const fn decode(flags: u64, bad: u64, good: u64) -> RxStatus {
        match (flags & bad != 0, flags & good != 0) {
            (false, false) => RxStatus::Unknown,
            (true, false) => RxStatus::Bad,
            (false, true) => RxStatus::Good,
            (true, true) => RxStatus::NoneDataValid,
        }
    }

    const fn encode(self, bad: u64, good: u64) -> u64 {
        match self {
            RxStatus::Unknown => 0,
            RxStatus::Bad => bad,
            RxStatus::Good => good,
            RxStatus::NoneDataValid => bad | good,
        }
    }
}

/// The outer L4 (UDP of a tunnel) receive status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterL4Status {
    /// `UNKNOWN` (0).
    Unknown,
    /// `BAD`.
    Bad,
    /// `GOOD`.
    Good,
    /// `INVALID` (both bits).
    Invalid,
}

/// The outer IP header status (only a BAD bit exists).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterIpStatus {
    /// No report.
    NotReported,
    /// `RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD`.
    Bad,
}

/// Every receive checksum report of one mbuf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RxCsum {
    /// Inner (or only) IP header.
    pub ip: RxStatus,
    /// Inner (or only) L4.
    pub l4: RxStatus,
    /// Outer L4 of a tunnel.
    pub outer_l4: OuterL4Status,
    /// Outer IP header.
    pub outer_ip: OuterIpStatus,
}

impl RxCsum {
    /// Nothing reported (all bits 0).
    pub const UNKNOWN: RxCsum = RxCsum {
        ip: RxStatus::Unknown,
        l4: RxStatus::Unknown,
        outer_l4: OuterL4Status::Unknown,
        outer_ip: OuterIpStatus::NotReported,
    };

    /// Decodes `ol_flags` (other bits ignored).
    pub const fn from_ol_flags(flags: u64) -> RxCsum {
        RxCsum {
            ip: RxStatus::decode(flags, ol::RX_IP_CKSUM_BAD, ol::RX_IP_CKSUM_GOOD),
            l4: RxStatus::decode(flags, ol::RX_L4_CKSUM_BAD, ol::RX_L4_CKSUM_GOOD),
            outer_l4: match (
                flags & ol::RX_OUTER_L4_CKSUM_BAD != 0,
                flags & ol::RX_OUTER_L4_CKSUM_GOOD != 0,
            ) {
                (false, false) => OuterL4Status::Unknown,
                (true, false) => OuterL4Status::Bad,
                (false, true) => OuterL4Status::Good,
                (true, true) => OuterL4Status::Invalid,
            },
            outer_ip: if flags & ol::RX_OUTER_IP_CKSUM_BAD != 0 {
                OuterIpStatus::Bad
            } else {
                OuterIpStatus::NotReported
            },
        }
    }

    /// Encodes into `ol_flags` bits.
    pub const fn to_ol_flags(self) -> u64 {
        self.ip.encode(ol::RX_IP_CKSUM_BAD, ol::RX_IP_CKSUM_GOOD)
            | self.l4.encode(ol::RX_L4_CKSUM_BAD, ol::RX_L4_CKSUM_GOOD)
            | match self.outer_l4 {
                OuterL4Status::Unknown => 0,
                OuterL4Status::Bad => ol::RX_OUTER_L4_CKSUM_BAD,
                OuterL4Status::Good => ol::RX_OUTER_L4_CKSUM_GOOD,
                OuterL4Status::Invalid => ol::RX_OUTER_L4_CKSUM_MASK,
            }
            | match self.outer_ip {
                OuterIpStatus::NotReported => 0,
                OuterIpStatus::Bad => ol::RX_OUTER_IP_CKSUM_BAD,
            }
    }
}

/// The outer UDP checksum of a tunnel packet, as read from its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterUdpCsum {
    /// Zero: no checksum, trivially fine (it still counts as a level, as in Linux).
    Zero,
    /// Non-zero: only the device's report can vouch for it.
    NonZero,
}

/// What encloses the L4 the `l4` status is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encap {
    /// Not tunnelled.
    None,
    /// A UDP tunnel (VXLAN, GENEVE): the outer UDP checksum comes first.
    UdpTunnel(OuterUdpCsum),
    /// A tunnel without an outer checksum (IP-in-IP, GRE without the C bit).
    NoOuterChecksum,
    /// GRE with the C bit: DPDK reports nothing about it, so it is never verified.
    GreWithChecksum,
}

/// Why a receive report should stop the packet (the state is still sound).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RxVerdict {
    /// No bad report.
    Clean,
    /// `OUTER_IP_CKSUM_BAD`.
    BadOuterIpHeader,
    /// `OUTER_L4_CKSUM_BAD`.
    BadOuterL4,
    /// `OUTER_L4_CKSUM_INVALID`: a driver reported an impossible state.
    InvalidOuterL4Status,
    /// `IP_CKSUM_BAD`.
    BadIpHeader,
    /// `L4_CKSUM_BAD`.
    BadL4,
}

/// A decoded receive report.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub struct DpdkRx {
    /// What may be claimed.
    pub meta: CsumMeta,
    /// Whether a device reported a bad checksum.
    pub verdict: RxVerdict,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Verified,
    NotVerified,
}

/// Receive `ol_flags` to checksum metadata (what a PMD's report may claim).
///
/// Consecutive verified checksums from the outermost become `Unnecessary` with
/// `level = count - 1` (a zero outer UDP checksum counts, as in Linux: the 82599
/// VXLAN case). `UNKNOWN`, `BAD` and `INVALID` never verify. An inner `NONE`
/// (data good, field not filled) claims nothing here: a blank field needs its
/// place (`Partial`), which only [`rx_to_meta_frame`] can find.
pub fn rx_to_meta(rx: RxCsum, encap: Encap) -> DpdkRx {
    let inner = if rx.l4 == RxStatus::Good {
        Level::Verified
    } else {
        Level::NotVerified
    };
    let outer = match encap {
        Encap::None | Encap::NoOuterChecksum => None,
        Encap::GreWithChecksum => Some(Level::NotVerified),
        Encap::UdpTunnel(zero) => Some(match (rx.outer_l4, zero) {
            (OuterL4Status::Good, _) | (OuterL4Status::Unknown, OuterUdpCsum::Zero) => {
                Level::Verified
            }
            (OuterL4Status::Unknown, OuterUdpCsum::NonZero)
            | (OuterL4Status::Bad | OuterL4Status::Invalid, _) => Level::NotVerified,
        }),
    };
    let count = match (outer, inner) {
        (None, Level::Verified) => 1,
        (None, Level::NotVerified) => 0,
        (Some(Level::Verified), Level::Verified) => 2,
        (Some(Level::Verified), Level::NotVerified) => 1,
        (Some(Level::NotVerified), _) => 0,
    };
    let state = match CsumLevel::new(count.max(1) - 1) {
        Some(level) if count > 0 => CsumState::Unnecessary { level },
        _ => CsumState::None,
    };
    let flags = CsumFlags::empty();
    let verdict = if rx.outer_ip == OuterIpStatus::Bad {
        RxVerdict::BadOuterIpHeader
    } else if rx.outer_l4 == OuterL4Status::Bad {
        RxVerdict::BadOuterL4
    } else if rx.outer_l4 == OuterL4Status::Invalid {
        RxVerdict::InvalidOuterL4Status
    } else if rx.ip == RxStatus::Bad {
        RxVerdict::BadIpHeader
    } else if rx.l4 == RxStatus::Bad {
        RxVerdict::BadL4
    } else {
        RxVerdict::Clean
    };
    DpdkRx {
        meta: CsumMeta::new(state, flags).unwrap_or(CsumMeta::NONE),
        verdict,
    }
}

/// [`rx_to_meta`] with the frame at hand: an untunnelled `NONE` whose field
/// holds the pseudo-header seed of a plain TCP/UDP packet becomes `Partial`
/// with `CSUM_BLANK | DATA_VALID` (the virtio PMD's `NEEDS_CSUM` case), so it
/// can be forwarded without a software sum and filled where needed (not over
/// non-zero padding, which a fill would sum in). Otherwise the same as
/// [`rx_to_meta`].
pub fn rx_to_meta_frame(rx: RxCsum, encap: Encap, frame: &[u8], link: LinkType) -> DpdkRx {
    let plain = rx_to_meta(rx, encap);
    if rx.l4 != RxStatus::NoneDataValid || encap != Encap::None {
        return plain;
    }
    let Ok(setup) = setup::checksum_setup(frame, link) else {
        return plain;
    };
    if setup::check_seed(frame, &setup.layers, setup.start, setup.offset).is_err()
        || check_padding(frame, &setup.layers, PartialKind::Inet).is_err()
    {
        return plain;
    }
    let meta = CsumMeta::new(
        CsumState::Partial {
            start: setup.start,
            offset: setup.offset,
            kind: PartialKind::Inet,
        },
        CsumFlags::CSUM_BLANK.union(CsumFlags::DATA_VALID),
    )
    .unwrap_or(CsumMeta::NONE);
    DpdkRx {
        meta,
        verdict: plain.verdict,
    }
}

/// Checksum metadata to receive `ol_flags` (for handing packets to a DPDK
/// consumer), consuming the metadata. Claims no more than the metadata: IP
/// statuses are `UNKNOWN` (not tracked here).
pub fn meta_to_rx(meta: CsumMeta, encap: Encap) -> RxCsum {
    let mut rx = RxCsum::UNKNOWN;
    match claim(&meta) {
        Claim::Partial { .. } => rx.l4 = RxStatus::NoneDataValid,
        Claim::Level(level) => match encap {
            Encap::None | Encap::NoOuterChecksum => rx.l4 = RxStatus::Good,
            Encap::UdpTunnel(_) => {
                rx.outer_l4 = OuterL4Status::Good;
                if level.get() >= 1 {
                    rx.l4 = RxStatus::Good;
                }
            }
            Encap::GreWithChecksum => {
                if level.get() >= 1 {
                    rx.l4 = RxStatus::Good;
                }
            }
        },
        Claim::Verified => match encap {
            Encap::None | Encap::NoOuterChecksum => rx.l4 = RxStatus::Good,
            Encap::UdpTunnel(_) => rx.outer_l4 = OuterL4Status::Good,
            Encap::GreWithChecksum => {}
        },
        _ => {}
    }
    rx
}
