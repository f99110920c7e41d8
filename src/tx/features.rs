//! What a device can offload (Linux `NETIF_F_*`), and what a stacked device
//! (bridge, VLAN, tunnel over lower devices) may expose.

bitflags::bitflags! {
    /// Offload features of a device (Linux `netdev_features_t`, `NETIF_F_*`).
    ///
    /// Only the bits a checksum / segmentation decision reads are modelled.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct Features: u32 {
        /// Checksum of TCP and UDP over IPv4 only, at the standard fields (`NETIF_F_IP_CSUM`, deprecated).
        const IP_CSUM = 1 << 0;
        /// Checksum of TCP and UDP over IPv6 without extension headers (`NETIF_F_IPV6_CSUM`, deprecated).
        const IPV6_CSUM = 1 << 1;
        /// One Internet checksum at any `csum_start`/`csum_offset` (`NETIF_F_HW_CSUM`, preferred).
        const HW_CSUM = 1 << 2;
        /// SCTP CRC32c offload (`NETIF_F_SCTP_CRC`, the `csum_not_inet` packets).
        const SCTP_CRC = 1 << 3;
        /// Scatter-gather: frames may be built from several fragments (`NETIF_F_SG`).
        const SG = 1 << 4;
        /// TCP segmentation over IPv4 (`NETIF_F_TSO`).
        const TSO = 1 << 5;
        /// TCP segmentation over IPv6 (`NETIF_F_TSO6`).
        const TSO6 = 1 << 6;
        /// TSO of packets with CWR set: CWR only on the first segment (`NETIF_F_TSO_ECN`).
        const TSO_ECN = 1 << 7;
        /// The device may keep IPv4 IDs fixed while segmenting (`NETIF_F_TSO_MANGLEID`),
        /// needed by fixed-ID super-packets (`SKB_GSO_TCP_FIXEDID`).
        const TSO_MANGLEID = 1 << 8;
        /// UDP segmentation (`NETIF_F_GSO_UDP_L4`, `UDP_SEGMENT`).
        const GSO_UDP_L4 = 1 << 9;
        /// Segmentation inside a UDP tunnel, outer UDP checksum zero (`NETIF_F_GSO_UDP_TUNNEL`).
        const GSO_UDP_TUNNEL = 1 << 10;
        /// Segmentation inside a UDP tunnel with outer UDP checksums (`NETIF_F_GSO_UDP_TUNNEL_CSUM`).
        const GSO_UDP_TUNNEL_CSUM = 1 << 11;
        /// Segmentation inside GRE (`NETIF_F_GSO_GRE`).
        const GSO_GRE = 1 << 12;
        /// Segmentation inside GRE with the GRE checksum (`NETIF_F_GSO_GRE_CSUM`).
        const GSO_GRE_CSUM = 1 << 13;
        /// Receive checksum offload switched on (`NETIF_F_RXCSUM`).
        const RXCSUM = 1 << 14;
        /// Generic receive offload switched on (`NETIF_F_GRO`).
        const GRO = 1 << 15;
        /// TSO that keeps CWR on every segment, for Accurate ECN
        /// (`NETIF_F_GSO_ACCECN`, `SKB_GSO_TCP_ACCECN`).
        const GSO_ACCECN = 1 << 16;
        /// Segmentation inside IPv4-in-IP / IPv6-in-IPv4 (`NETIF_F_GSO_IPXIP4`).
        const GSO_IPXIP4 = 1 << 17;
        /// Segmentation inside IP-in-IPv6 (`NETIF_F_GSO_IPXIP6`).
        const GSO_IPXIP6 = 1 << 18;

        /// Every checksum feature (`NETIF_F_CSUM_MASK`).
        const CSUM_MASK = Self::IP_CSUM.bits() | Self::IPV6_CSUM.bits() | Self::HW_CSUM.bits();
        /// Every TCP segmentation feature (`NETIF_F_ALL_TSO`).
        const ALL_TSO = Self::TSO.bits() | Self::TSO6.bits() | Self::TSO_ECN.bits()
            | Self::TSO_MANGLEID.bits() | Self::GSO_ACCECN.bits();
        /// Every segmentation feature (`NETIF_F_GSO_MASK`).
        const GSO_MASK = Self::ALL_TSO.bits() | Self::GSO_UDP_L4.bits()
            | Self::GSO_UDP_TUNNEL.bits() | Self::GSO_UDP_TUNNEL_CSUM.bits()
            | Self::GSO_GRE.bits() | Self::GSO_GRE_CSUM.bits()
            | Self::GSO_IPXIP4.bits() | Self::GSO_IPXIP6.bits();
        /// Features one port is enough to give a bridge (`NETIF_F_ONE_FOR_ALL`):
        /// the bridge does them in software for the ports that cannot.
        const ONE_FOR_ALL = Self::GSO_MASK.bits() | Self::SG.bits();
    }
}

/// The result of [`Features::fix`]: what is left and what was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FixedFeatures {
    /// The consistent set.
    pub features: Features,
    /// What was asked for but cannot stand (see [`Features::fix`]).
    pub dropped: Features,
}

impl Features {
    /// Features common to two devices stacked on each other
    /// (Linux `netdev_intersect_features`).
    ///
    /// `HW_CSUM` on one side covers `IP_CSUM | IPV6_CSUM` on the other, so
    /// HW_CSUM over IP_CSUM gives IP_CSUM, not nothing.
    pub const fn intersect(self, other: Features) -> Features {
        let mut a = self.bits();
        let mut b = other.bits();
        let hw = Features::HW_CSUM.bits();
        let ip = Features::IP_CSUM.bits() | Features::IPV6_CSUM.bits();
        if (a ^ b) & hw != 0 {
            if a & hw != 0 {
                a |= ip;
            } else {
                b |= ip;
            }
        }
        Features::from_bits_truncate(a & b)
    }

    /// Adds one lower device's features to an upper device's running set
    /// (Linux `netdev_increment_features`, used by bridges and bonds).
    ///
    /// Start from `mask & !ONE_FOR_ALL` and add every port: one port with a
    /// `ONE_FOR_ALL` or checksum feature gives it to the upper device (the upper
    /// device's packets are checked again at each port's transmit); any other
    /// feature survives only if every port has it.
    pub const fn increment(self, one: Features, mask: Features) -> Features {
        let mut mask = mask.bits();
        if mask & Features::HW_CSUM.bits() != 0 {
            mask |= Features::CSUM_MASK.bits();
        }
        let gift = Features::ONE_FOR_ALL.bits() | Features::CSUM_MASK.bits();
        // Linux then clears `NETIF_F_ALL_FOR_ALL` (NOCACHE_COPY, FSO) unless every
        // port has it; none of those bits is modelled, so that step is a no-op here.
        let mut all = self.bits() | (one.bits() & gift & mask);
        if all & Features::HW_CSUM.bits() != 0 {
            all &= !(Features::CSUM_MASK.bits() & !Features::HW_CSUM.bits());
        }
        Features::from_bits_truncate(all)
    }

    /// Drops combinations that cannot stand (Linux `netdev_fix_features`).
    ///
    /// HW_CSUM with IP/IPV6_CSUM keeps HW_CSUM; TSO needs SG; TSO needs IP_CSUM
    /// or HW_CSUM, TSO6 needs IPV6_CSUM or HW_CSUM; TSO_ECN, GSO_ACCECN and
    /// TSO_MANGLEID need TSO or TSO6; UDP segmentation needs SG and a checksum feature.
    pub const fn fix(self) -> FixedFeatures {
        let asked = self.bits();
        let mut f = asked;
        if has(f, Features::HW_CSUM) && has(f, Features::IP_CSUM.union(Features::IPV6_CSUM)) {
            f &= !(Features::IP_CSUM.bits() | Features::IPV6_CSUM.bits());
        }
        if !has(f, Features::SG) {
            f &= !(Features::ALL_TSO.bits() | Features::GSO_UDP_L4.bits());
        }
        if has(f, Features::TSO) && !has(f, Features::HW_CSUM.union(Features::IP_CSUM)) {
            f &= !Features::TSO.bits();
        }
        if has(f, Features::TSO6) && !has(f, Features::HW_CSUM.union(Features::IPV6_CSUM)) {
            f &= !Features::TSO6.bits();
        }
        if !has(f, Features::TSO.union(Features::TSO6)) {
            f &= !(Features::TSO_ECN.bits()
                | Features::TSO_MANGLEID.bits()
                | Features::GSO_ACCECN.bits());
        }
        if has(f, Features::GSO_UDP_L4) && !has(f, Features::CSUM_MASK) {
            f &= !Features::GSO_UDP_L4.bits();
        }
        FixedFeatures {
            features: Features::from_bits_truncate(f),
            dropped: Features::from_bits_truncate(asked & !f),
        }
    }

    /// What a device stacked on one lower device exposes (VLAN, macvlan, a
    /// tunnel device): its own wishes intersected with the lower device's, then
    /// fixed (Linux `vlan_dev_fix_features`: intersect, then `netdev_fix_features`).
    ///
    /// An upper device that advertises nothing exposes nothing: every packet
    /// through it is checksummed in software (the 2005 Xen bridge problem).
    pub const fn stacked(upper: Features, lower: Features) -> Features {
        upper.intersect(lower).fix().features
    }

    /// What a bridge (or bond) over `ports` exposes (Linux `br_features_recompute`):
    /// `mask` is what the bridge itself allows; with no ports it keeps `mask`
    /// minus the features that need a port.
    pub fn bridge(mask: Features, ports: &[Features]) -> Features {
        let mut all = mask.difference(Features::ONE_FOR_ALL);
        if ports.is_empty() {
            return mask.fix().features;
        }
        for port in ports {
            all = all.increment(*port, mask);
        }
        all.fix().features
    }

    /// Whether one Internet checksum over `net` can be offloaded at all
    /// (Linux `can_checksum_protocol`): HW_CSUM for any, IP_CSUM for IPv4,
    /// IPV6_CSUM for IPv6.
    pub const fn can_checksum(self, net: crate::wire::Net) -> bool {
        if self.contains(Features::HW_CSUM) {
            return true;
        }
        match net {
            crate::wire::Net::Ipv4 => self.contains(Features::IP_CSUM),
            crate::wire::Net::Ipv6 => self.contains(Features::IPV6_CSUM),
        }
    }

    /// The features a packet of protocol `net` may use (Linux `harmonize_features`):
    /// without a checksum feature for its protocol, no checksum and no
    /// segmentation offload either (segmentation implies a checksum).
    pub const fn harmonize(self, net: crate::wire::Net) -> Features {
        if self.can_checksum(net) {
            self
        } else {
            self.difference(Features::CSUM_MASK.union(Features::GSO_MASK))
        }
    }
}

const fn has(f: u32, x: Features) -> bool {
    f & x.bits() != 0
}
