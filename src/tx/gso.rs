//! What a super-packet asks of segmentation (Linux `skb_shinfo(skb)->gso_*`).

use super::features::Features;

use crate::wire::GsoType;

/// The device features a type needs for hardware segmentation (Linux
/// `net_gso_ok`: each `SKB_GSO_*` bit maps to one `NETIF_F_*` bit; both fixed-ID
/// bits map to `TSO_MANGLEID`).
pub const fn required_features(t: GsoType) -> Features {
    let map: [(GsoType, Features); 13] = [
        (GsoType::TCPV4, Features::TSO),
        (GsoType::TCPV6, Features::TSO6),
        (GsoType::TCP_ECN, Features::TSO_ECN),
        (GsoType::TCP_ACCECN, Features::GSO_ACCECN),
        (GsoType::TCP_FIXEDID, Features::TSO_MANGLEID),
        (GsoType::TCP_FIXEDID_INNER, Features::TSO_MANGLEID),
        (GsoType::UDP_L4, Features::GSO_UDP_L4),
        (GsoType::UDP_TUNNEL, Features::GSO_UDP_TUNNEL),
        (GsoType::UDP_TUNNEL_CSUM, Features::GSO_UDP_TUNNEL_CSUM),
        (GsoType::GRE, Features::GSO_GRE),
        (GsoType::GRE_CSUM, Features::GSO_GRE_CSUM),
        (GsoType::IPXIP4, Features::GSO_IPXIP4),
        (GsoType::IPXIP6, Features::GSO_IPXIP6),
    ];
    let mut f = Features::empty();
    let mut i = 0;
    while i < map.len() {
        if t.intersects(map[i].0) {
            f = f.union(map[i].1);
        }
        i += 1;
    }
    f
}

/// The tunnel bits of a type.
pub(crate) const TUNNEL: GsoType = GsoType::UDP_TUNNEL
    .union(GsoType::UDP_TUNNEL_CSUM)
    .union(GsoType::GRE)
    .union(GsoType::GRE_CSUM)
    .union(GsoType::IPXIP4)
    .union(GsoType::IPXIP6);

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
