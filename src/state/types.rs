//! The checksum state of one packet: Linux `ip_summed` with `csum_level`,
//! `csum` or `csum_start`/`csum_offset`, and the side facts that survive every hop.

use core::fmt;

use crate::csum::Wsum;

/// How many consecutive checksums, counted from the outermost, a
/// `CHECKSUM_UNNECESSARY` report covers, minus one (Linux `csum_level`, 2 bits).
///
/// A value of this type is always 0..=3: level 4 cannot be built.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default, zerocopy::FromZeros,
)]
pub struct CsumLevel(u8);

impl CsumLevel {
    /// One checksum verified (the outermost).
    pub const L0: CsumLevel = CsumLevel(0);
    /// Two consecutive checksums verified.
    pub const L1: CsumLevel = CsumLevel(1);
    /// Three.
    pub const L2: CsumLevel = CsumLevel(2);
    /// Four, the most Linux can say (`SKB_MAX_CSUM_LEVEL`).
    pub const L3: CsumLevel = CsumLevel(3);
    /// The largest level.
    pub const MAX: CsumLevel = CsumLevel::L3;

    /// A level from a number; `None` above 3.
    pub const fn new(level: u8) -> Option<CsumLevel> {
        if level <= 3 {
            Some(CsumLevel(level))
        } else {
            None
        }
    }

    /// The level as a number (0..=3).
    pub const fn get(self) -> u8 {
        self.0
    }

    /// How many checksums it covers (level + 1, 1..=4).
    pub const fn covered(self) -> u8 {
        self.0 + 1
    }

    /// One level less, or `None` when level 0 is consumed (`__skb_decr_checksum_unnecessary`).
    pub const fn decremented(self) -> Option<CsumLevel> {
        if self.0 == 0 {
            None
        } else {
            Some(CsumLevel(self.0 - 1))
        }
    }

    /// One level more, saturating at 3 (`__skb_incr_checksum_unnecessary`).
    pub const fn incremented(self) -> CsumLevel {
        if self.0 >= 3 {
            CsumLevel(3)
        } else {
            CsumLevel(self.0 + 1)
        }
    }
}

/// Which checksum a `Partial` state asks to be finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, zerocopy::FromZeros)]
#[repr(u8)]
pub enum PartialKind {
    /// A ones-complement Internet checksum (TCP, UDP, GRE, ICMPv6...).
    Inet,
    /// An SCTP CRC32c (Linux `csum_not_inet`): 4 bytes at `start + offset`.
    Crc32c,
}

/// What is known about the packet's L4 checksums (Linux `ip_summed` and its
/// companion fields). The variants are exclusive, like the kernel's union.
#[derive(Clone, Copy, PartialEq, Eq, Hash, zerocopy::FromZeros)]
#[repr(u8)]
pub enum CsumState {
    /// `CHECKSUM_NONE`: nothing is claimed.
    None,
    /// `CHECKSUM_UNNECESSARY`: the first `level + 1` checksums of the packet,
    /// outermost first, are verified.
    Unnecessary {
        /// `csum_level`.
        level: CsumLevel,
    },
    /// `CHECKSUM_COMPLETE`: `csum` is the ones-complement sum of the bytes
    /// from the current layer's start to the end of the packet.
    Complete {
        /// The sum (Linux `skb->csum`).
        csum: Wsum,
    },
    /// `CHECKSUM_PARTIAL`: the checksum from `start` to the end must be stored at
    /// `start + offset`; the field holds the pseudo-header seed. Locally
    /// generated and trusted, so every checksum before it counts as verified.
    Partial {
        /// Offset of the first byte to sum, from the start of the frame (`csum_start`).
        start: usize,
        /// Offset of the field from `start` (`csum_offset`: 16 TCP, 6 UDP, 8 SCTP).
        offset: usize,
        /// Internet checksum or CRC32c.
        kind: PartialKind,
    },
}

impl fmt::Debug for CsumState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CsumState::None => write!(f, "None"),
            CsumState::Unnecessary { level } => write!(f, "Unnecessary(level {})", level.get()),
            CsumState::Complete { csum } => write!(f, "Complete({:#010x})", csum.get()),
            CsumState::Partial {
                start,
                offset,
                kind,
            } => {
                write!(f, "Partial(start {start}, offset {offset}, {kind:?})")
            }
        }
    }
}

impl fmt::Display for CsumState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Side facts about the checksums (Linux `csum_valid`, `csum_complete_sw`,
/// and the Xen / virtio facts that must survive every hop).
///
/// Declared outside `bitflags!` so that all-zero memory is a valid value
/// (`FromZeros`, for tables built in place).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, zerocopy::FromZeros)]
#[repr(transparent)]
pub struct CsumFlags(u8);

bitflags::bitflags! {
    impl CsumFlags: u8 {
        /// The L4 checksum field is not filled yet (Xen `csum_blank`); it must be
        /// filled before a consumer that needs a real checksum.
        const CSUM_BLANK = 1 << 0;
        /// The origin vouched for the checksum of the current L4 layer (Xen
        /// `data_validated`, virtio `DATA_VALID`): one checksum, used up by its
        /// validation and never carried across a tunnel layer.
        const DATA_VALID = 1 << 1;
        /// The current layer's checksum counts as verified in this pass
        /// (`skb->csum_valid`); on a trusted `Partial` the field may be blank.
        const CSUM_VALID = 1 << 2;
        /// The `Complete` sum was computed by software, not the device (`csum_complete_sw`).
        const COMPLETE_SW = 1 << 3;
    }
}

crate::wire::flags_debug!(CsumFlags);

/// Why a combination of state and flags was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetaError {
    /// `COMPLETE_SW` without a `Complete` state.
    CompleteSwWithoutComplete,
    /// `CSUM_BLANK` on a `Complete` state: a blank field cannot be part of a
    /// device sum that claims to cover the packet as sent.
    BlankWithComplete,
    /// `CSUM_BLANK` on `None` or `Unnecessary`: a blank field can only be
    /// filled when its place is known, so it needs a `Partial` state (the
    /// paravirt boundary derives start/offset from the headers, like Linux
    /// `skb_checksum_setup` in Xen netback).
    BlankWithoutPartial,
}

impl fmt::Display for MetaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetaError::CompleteSwWithoutComplete => write!(f, "COMPLETE_SW needs a Complete state"),
            MetaError::BlankWithComplete => write!(f, "CSUM_BLANK cannot go with a Complete state"),
            MetaError::BlankWithoutPartial => write!(f, "CSUM_BLANK needs a Partial state"),
        }
    }
}

impl core::error::Error for MetaError {}

/// A packet's checksum metadata: the state and its side facts, checked together.
///
/// Not `Copy`: transitions take it by value and return the new one, so a caller
/// cannot keep using stale metadata after a transition (the wireguard-go trap).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct CsumMeta {
    state: CsumState,
    flags: CsumFlags,
}

impl CsumMeta {
    /// Nothing known (`CHECKSUM_NONE`, no flags).
    pub const NONE: CsumMeta = CsumMeta {
        state: CsumState::None,
        flags: CsumFlags::empty(),
    };

    /// State and flags, refused when they contradict each other.
    ///
    /// Rules: `COMPLETE_SW` needs `Complete`; `CSUM_BLANK` needs `Partial`.
    pub const fn new(state: CsumState, flags: CsumFlags) -> Result<CsumMeta, MetaError> {
        let complete = matches!(state, CsumState::Complete { .. });
        if flags.contains(CsumFlags::COMPLETE_SW) && !complete {
            return Err(MetaError::CompleteSwWithoutComplete);
        }
        if flags.contains(CsumFlags::CSUM_BLANK) && complete {
            return Err(MetaError::BlankWithComplete);
        }
        if flags.contains(CsumFlags::CSUM_BLANK) && !matches!(state, CsumState::Partial { .. }) {
            return Err(MetaError::BlankWithoutPartial);
        }
        Ok(CsumMeta { state, flags })
    }

    /// A state without side facts (always valid).
    pub const fn from_state(state: CsumState) -> CsumMeta {
        CsumMeta {
            state,
            flags: CsumFlags::empty(),
        }
    }

    /// The state.
    pub const fn state(&self) -> CsumState {
        self.state
    }

    /// The side facts.
    pub const fn flags(&self) -> CsumFlags {
        self.flags
    }

    /// True when the L4 field still has to be filled.
    pub const fn is_blank(&self) -> bool {
        self.flags.contains(CsumFlags::CSUM_BLANK)
    }

    /// True when the data is known good (`DATA_VALID`).
    pub const fn data_valid(&self) -> bool {
        self.flags.contains(CsumFlags::DATA_VALID)
    }
}

impl Default for CsumMeta {
    fn default() -> Self {
        CsumMeta::NONE
    }
}
