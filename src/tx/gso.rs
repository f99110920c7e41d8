//! What a super-packet asks of segmentation (Linux `skb_shinfo(skb)->gso_*`).

use super::features::Features;

bitflags::bitflags! {
    /// The kind of super-packet (Linux `SKB_GSO_*` in `gso_type`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct GsoType: u16 {
        /// TCP over IPv4 (`SKB_GSO_TCPV4`).
        const TCPV4 = 1 << 0;
        /// TCP over IPv6 (`SKB_GSO_TCPV6`).
        const TCPV6 = 1 << 1;
        /// CWR set: only the first segment keeps it (`SKB_GSO_TCP_ECN`).
        const TCP_ECN = 1 << 2;
        /// Every segment keeps the super-packet's IPv4 ID (`SKB_GSO_TCP_FIXEDID`),
        /// as GRO leaves flows whose IDs did not increment.
        const TCP_FIXEDID = 1 << 3;
        /// UDP segmentation (`SKB_GSO_UDP_L4`).
        const UDP_L4 = 1 << 4;
        /// Inside a UDP tunnel, outer checksum zero (`SKB_GSO_UDP_TUNNEL`).
        const UDP_TUNNEL = 1 << 5;
        /// Inside a UDP tunnel with an outer checksum (`SKB_GSO_UDP_TUNNEL_CSUM`).
        const UDP_TUNNEL_CSUM = 1 << 6;
        /// Inside GRE (`SKB_GSO_GRE`).
        const GRE = 1 << 7;
        /// Inside GRE with its checksum (`SKB_GSO_GRE_CSUM`).
        const GRE_CSUM = 1 << 8;
    }
}

impl GsoType {
    /// The device features the type needs for hardware segmentation
    /// (Linux `net_gso_ok`: each `SKB_GSO_*` bit maps to one `NETIF_F_*` bit).
    pub const fn required_features(self) -> Features {
        let mut f = Features::empty();
        let map: [(GsoType, Features); 9] = [
            (GsoType::TCPV4, Features::TSO),
            (GsoType::TCPV6, Features::TSO6),
            (GsoType::TCP_ECN, Features::TSO_ECN),
            (GsoType::TCP_FIXEDID, Features::TSO_MANGLEID),
            (GsoType::UDP_L4, Features::GSO_UDP_L4),
            (GsoType::UDP_TUNNEL, Features::GSO_UDP_TUNNEL),
            (GsoType::UDP_TUNNEL_CSUM, Features::GSO_UDP_TUNNEL_CSUM),
            (GsoType::GRE, Features::GSO_GRE),
            (GsoType::GRE_CSUM, Features::GSO_GRE_CSUM),
        ];
        let mut i = 0;
        while i < map.len() {
            if self.intersects(map[i].0) {
                f = f.union(map[i].1);
            }
            i += 1;
        }
        f
    }
}

/// A super-packet's segmentation request (`gso_size`, `gso_type`, `gso_segs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GsoInfo {
    /// Payload bytes per segment (the MSS for TCP); the last one may be shorter.
    pub gso_size: u16,
    /// What kind of super-packet.
    pub gso_type: GsoType,
}

impl GsoInfo {
    /// A request; validated when it is used, against the packet.
    pub const fn new(gso_size: u16, gso_type: GsoType) -> GsoInfo {
        GsoInfo { gso_size, gso_type }
    }

    /// Segments `payload_len` bytes make (Linux `gso_segs`); 0 when `gso_size` is 0.
    pub const fn segments(&self, payload_len: usize) -> usize {
        if self.gso_size == 0 {
            0
        } else {
            payload_len.div_ceil(self.gso_size as usize)
        }
    }
}

/// Device limits on hardware segmentation (`gso_max_segs`, `gso_max_size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GsoLimits {
    /// Most segments one super-packet may make in hardware (`dev->gso_max_segs`).
    pub max_segs: u16,
    /// Largest super-packet in bytes (`dev->gso_max_size`).
    pub max_size: u32,
}

impl GsoLimits {
    /// Linux defaults: 65535 segments (`GSO_MAX_SEGS`), 65536 bytes (`GSO_LEGACY_MAX_SIZE`).
    pub const DEFAULT: GsoLimits = GsoLimits {
        max_segs: 65535,
        max_size: 65536,
    };
}

impl Default for GsoLimits {
    fn default() -> Self {
        GsoLimits::DEFAULT
    }
}
