//! Engine configuration: limits, enabled GRO kinds, tunnel checksum policy.

use crate::wire::LinkType;

/// Largest IP datagram a super-packet may become by default (Linux
/// `GRO_LEGACY_MAX_SIZE` 65536 is exclusive: `p->len + len >= gro_max_size` refuses).
pub const DEFAULT_MAX_SIZE: u32 = 65535;

/// Most segments per super-packet (Linux `UDP_GRO_CNT_MAX`; TCP is bounded by size).
pub const MAX_SEGS: usize = 64;

/// Most header bytes (frame start to the first payload byte) a flow keeps.
pub const MAX_HEADER: usize = 256;

/// Which kinds of GRO run; each can be switched off at run time
/// (Linux: `NETIF_F_GRO`, `NETIF_F_GRO_UDP_FWD`, tunnel sockets' `gro_receive`).
///
/// Declared outside `bitflags!` so that all-zero memory is a valid value
/// (`FromZeros`, for tables built in place).
#[derive(Clone, Copy, PartialEq, Eq, Hash, zerocopy::FromZeros)]
#[repr(transparent)]
pub struct GroKinds(u8);

bitflags::bitflags! {
    impl GroKinds: u8 {
        /// TCP over IPv4.
        const TCP4 = 1 << 0;
        /// TCP over IPv6.
        const TCP6 = 1 << 1;
        /// Plain UDP (`udp_gro_receive_segment`, UDP L4 GRO). Off by default, as in Linux.
        const UDP = 1 << 2;
        /// Tunnelled TCP: VXLAN (4789), GENEVE (6081), GRE, IP-in-IP.
        const TUNNEL = 1 << 3;
    }
}

crate::wire::flags_debug!(GroKinds);

/// What to do when a UDP tunnel's outer checksum is zero and nothing else vouches
/// for the inner checksum (the brief's VXLAN-on-82599 story).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, zerocopy::FromZeros)]
#[repr(u8)]
pub enum TunnelPolicy {
    /// The 2015 gate of `udp_gro_receive`: no tunnel GRO unless the packet is
    /// `Partial`, a `csum_level` remains or a running sum is valid.
    Strict,
    /// Current kernels: a zero outer UDP checksum does not block; the inner
    /// checksum is verified in software when nothing else vouches for it.
    Compute,
}

/// Whether the engine may sum bytes in software to verify a checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, zerocopy::FromZeros)]
#[repr(u8)]
pub enum SoftwareVerify {
    /// Verify in software when the state does not vouch (Linux always does).
    On,
    /// Never sum payload bytes: such segments pass up with `ChecksumUnknown`.
    Off,
}

/// Engine configuration (Linux: `gro_max_size`, device GRO features, tunnel sockets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, zerocopy::FromZeros)]
pub struct GroConfig {
    /// Largest IP datagram (outermost IP header to the end) of a super-packet,
    /// inclusive. Default 65535; values above 65535 are clamped (no BIG TCP).
    pub max_size: u32,
    /// Most segments per super-packet, 1..=64 (clamped). Default 64.
    pub max_segs: u16,
    /// The tunnel checksum gate.
    pub tunnel_policy: TunnelPolicy,
    /// Software checksum verification.
    pub software_verify: SoftwareVerify,
    /// A held flow older than this many caller ticks is flushed by `tick`;
    /// 0 means "never by age".
    pub flush_age_ticks: u64,
    /// Enabled GRO kinds.
    pub kinds: GroKinds,
    /// How frames begin (Ethernet, or bare IP from an L3 TUN).
    pub link: LinkType,
    /// The fixed-layout fast paths run (default). Off, every frame takes
    /// the general walk and rules: the verdicts, descriptors and counters are
    /// the same by construction, which tests and fuzzing check by running
    /// both. Not part of the supported API.
    #[doc(hidden)]
    pub fast_path: bool,
}

impl GroConfig {
    /// Linux defaults: 65535 bytes, 64 segments, current-kernel tunnel policy,
    /// TCP and tunnel GRO on, UDP GRO off, Ethernet frames, age 1 tick.
    pub const fn new() -> GroConfig {
        GroConfig {
            max_size: DEFAULT_MAX_SIZE,
            max_segs: MAX_SEGS as u16,
            tunnel_policy: TunnelPolicy::Compute,
            software_verify: SoftwareVerify::On,
            flush_age_ticks: 1,
            kinds: GroKinds::TCP4.union(GroKinds::TCP6).union(GroKinds::TUNNEL),
            link: LinkType::Ethernet,
            fast_path: true,
        }
    }

    /// The effective size limit (clamped to 65535).
    pub(crate) const fn size_limit(&self) -> u32 {
        if self.max_size > DEFAULT_MAX_SIZE {
            DEFAULT_MAX_SIZE
        } else {
            self.max_size
        }
    }

    /// The effective segment limit (clamped to 1..=64).
    pub(crate) const fn seg_limit(&self) -> u16 {
        if self.max_segs == 0 {
            1
        } else if self.max_segs as usize > MAX_SEGS {
            MAX_SEGS as u16
        } else {
            self.max_segs
        }
    }
}

impl Default for GroConfig {
    fn default() -> Self {
        GroConfig::new()
    }
}
