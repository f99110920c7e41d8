//! DPDK `rte_mbuf` `ol_flags` (`rte_mbuf_core.h`, DPDK 22.11): receive checksum
//! status and transmit offload requests, both ways.
//!
//! Each 2-bit receive status is its own variant: `UNKNOWN` is **0** and is never
//! read as good (the trap: a driver that never sets GOOD looks like "unknown",
//! not like "bad"). `NONE` (both bits) means "the field is not correct but the
//! data is verified", i.e. a `Partial`-like packet.
//!
//! Transmit follows DPDK's own contract: every request made ([`meta_to_tx`]) or
//! accepted ([`tx_to_meta`]) passes [`validate_tx_offload`]
//! (`rte_validate_tx_offload`), and the checksum fields hold what
//! `rte_net_intel_cksum_prepare` writes. A DPDK application hands over flags and
//! lengths only (the PMD's `tx_prepare` writes the seeds later), so
//! [`tx_to_meta`] either verifies the seed or writes it ([`TxSeedMode`]).

mod rx;
mod tx;
mod tx_in;
mod validate;

pub use rx::{
    DpdkRx, Encap, OuterIpStatus, OuterL4Status, OuterUdpCsum, RxCsum, RxStatus, RxVerdict,
    meta_to_rx, rx_to_meta, rx_to_meta_frame,
};
pub use tx::{SeedLength, convert_seed, meta_to_tx};
pub use tx_in::{DpdkTxIn, NicHeaderCsums, TxSeedMode, tx_to_meta};
pub use validate::validate_tx_offload;

use crate::wire::Net;

use super::error::{BoundaryError, MetaErrorKind, MetaField};

/// The `RTE_MBUF_F_*` bits used here.
pub mod ol {
    /// `RTE_MBUF_F_RX_L4_CKSUM_BAD`.
    pub const RX_L4_CKSUM_BAD: u64 = 1 << 3;
    /// `RTE_MBUF_F_RX_L4_CKSUM_GOOD`.
    pub const RX_L4_CKSUM_GOOD: u64 = 1 << 8;
    /// `RTE_MBUF_F_RX_L4_CKSUM_MASK` (also `..._NONE`).
    pub const RX_L4_CKSUM_MASK: u64 = RX_L4_CKSUM_BAD | RX_L4_CKSUM_GOOD;
    /// `RTE_MBUF_F_RX_IP_CKSUM_BAD`.
    pub const RX_IP_CKSUM_BAD: u64 = 1 << 4;
    /// `RTE_MBUF_F_RX_IP_CKSUM_GOOD`.
    pub const RX_IP_CKSUM_GOOD: u64 = 1 << 7;
    /// `RTE_MBUF_F_RX_IP_CKSUM_MASK` (also `..._NONE`).
    pub const RX_IP_CKSUM_MASK: u64 = RX_IP_CKSUM_BAD | RX_IP_CKSUM_GOOD;
    /// `RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD`.
    pub const RX_OUTER_IP_CKSUM_BAD: u64 = 1 << 5;
    /// `RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD`.
    pub const RX_OUTER_L4_CKSUM_BAD: u64 = 1 << 21;
    /// `RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD`.
    pub const RX_OUTER_L4_CKSUM_GOOD: u64 = 1 << 22;
    /// `RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK` (also `..._INVALID`).
    pub const RX_OUTER_L4_CKSUM_MASK: u64 = RX_OUTER_L4_CKSUM_BAD | RX_OUTER_L4_CKSUM_GOOD;

    /// `RTE_MBUF_F_TX_OUTER_UDP_CKSUM`.
    pub const TX_OUTER_UDP_CKSUM: u64 = 1 << 41;
    /// `RTE_MBUF_F_TX_UDP_SEG`.
    pub const TX_UDP_SEG: u64 = 1 << 42;
    /// `RTE_MBUF_F_TX_TUNNEL_VXLAN`.
    pub const TX_TUNNEL_VXLAN: u64 = 0x1 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_GRE`.
    pub const TX_TUNNEL_GRE: u64 = 0x2 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_IPIP`.
    pub const TX_TUNNEL_IPIP: u64 = 0x3 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_GENEVE`.
    pub const TX_TUNNEL_GENEVE: u64 = 0x4 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_MPLSINUDP`.
    pub const TX_TUNNEL_MPLSINUDP: u64 = 0x5 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_VXLAN_GPE`.
    pub const TX_TUNNEL_VXLAN_GPE: u64 = 0x6 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_GTP`.
    pub const TX_TUNNEL_GTP: u64 = 0x7 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_ESP`.
    pub const TX_TUNNEL_ESP: u64 = 0x8 << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_IP` (generic IP tunnel).
    pub const TX_TUNNEL_IP: u64 = 0xD << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_UDP` (generic UDP tunnel).
    pub const TX_TUNNEL_UDP: u64 = 0xE << 45;
    /// `RTE_MBUF_F_TX_TUNNEL_MASK`.
    pub const TX_TUNNEL_MASK: u64 = 0xF << 45;
    /// `RTE_MBUF_F_TX_TCP_SEG` (implies TCP checksum).
    pub const TX_TCP_SEG: u64 = 1 << 50;
    /// `RTE_MBUF_F_TX_TCP_CKSUM`.
    pub const TX_TCP_CKSUM: u64 = 1 << 52;
    /// `RTE_MBUF_F_TX_SCTP_CKSUM`.
    pub const TX_SCTP_CKSUM: u64 = 2 << 52;
    /// `RTE_MBUF_F_TX_UDP_CKSUM`.
    pub const TX_UDP_CKSUM: u64 = 3 << 52;
    /// `RTE_MBUF_F_TX_L4_MASK`.
    pub const TX_L4_MASK: u64 = 3 << 52;
    /// `RTE_MBUF_F_TX_IP_CKSUM`.
    pub const TX_IP_CKSUM: u64 = 1 << 54;
    /// `RTE_MBUF_F_TX_IPV4`.
    pub const TX_IPV4: u64 = 1 << 55;
    /// `RTE_MBUF_F_TX_IPV6`.
    pub const TX_IPV6: u64 = 1 << 56;
    /// `RTE_MBUF_F_TX_OUTER_IP_CKSUM`.
    pub const TX_OUTER_IP_CKSUM: u64 = 1 << 58;
    /// `RTE_MBUF_F_TX_OUTER_IPV4`.
    pub const TX_OUTER_IPV4: u64 = 1 << 59;
    /// `RTE_MBUF_F_TX_OUTER_IPV6`.
    pub const TX_OUTER_IPV6: u64 = 1 << 60;
    /// `RTE_MBUF_F_TX_SEC_OFFLOAD`.
    pub const TX_SEC_OFFLOAD: u64 = 1 << 43;
    /// `RTE_MBUF_F_TX_MACSEC`.
    pub const TX_MACSEC: u64 = 1 << 44;
    /// `RTE_MBUF_F_TX_QINQ`.
    pub const TX_QINQ: u64 = 1 << 49;
    /// `RTE_MBUF_F_TX_IEEE1588_TMST`.
    pub const TX_IEEE1588_TMST: u64 = 1 << 51;
    /// `RTE_MBUF_F_TX_VLAN`.
    pub const TX_VLAN: u64 = 1 << 57;
    /// `RTE_MBUF_F_TX_OFFLOAD_MASK`: every transmit offload bit; a request with
    /// none of them is not checked by `rte_validate_tx_offload`.
    pub const TX_OFFLOAD_MASK: u64 = TX_OUTER_IPV6
        | TX_OUTER_IPV4
        | TX_OUTER_IP_CKSUM
        | TX_VLAN
        | TX_IPV6
        | TX_IPV4
        | TX_IP_CKSUM
        | TX_L4_MASK
        | TX_IEEE1588_TMST
        | TX_TCP_SEG
        | TX_QINQ
        | TX_TUNNEL_MASK
        | TX_MACSEC
        | TX_SEC_OFFLOAD
        | TX_UDP_SEG
        | TX_OUTER_UDP_CKSUM;
}

/// DPDK transmit tunnel types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TunnelType {
    /// VXLAN.
    Vxlan,
    /// GRE.
    Gre,
    /// IP-in-IP.
    Ipip,
    /// GENEVE.
    Geneve,
    /// MPLS-in-UDP (RFC 7510).
    MplsInUdp,
    /// VXLAN-GPE.
    VxlanGpe,
    /// GTP.
    Gtp,
    /// ESP.
    Esp,
    /// Generic UDP tunnel.
    Udp,
    /// Generic IP tunnel.
    Ip,
}

impl TunnelType {
    const fn bits(self) -> u64 {
        match self {
            TunnelType::Vxlan => ol::TX_TUNNEL_VXLAN,
            TunnelType::Gre => ol::TX_TUNNEL_GRE,
            TunnelType::Ipip => ol::TX_TUNNEL_IPIP,
            TunnelType::Geneve => ol::TX_TUNNEL_GENEVE,
            TunnelType::MplsInUdp => ol::TX_TUNNEL_MPLSINUDP,
            TunnelType::VxlanGpe => ol::TX_TUNNEL_VXLAN_GPE,
            TunnelType::Gtp => ol::TX_TUNNEL_GTP,
            TunnelType::Esp => ol::TX_TUNNEL_ESP,
            TunnelType::Udp => ol::TX_TUNNEL_UDP,
            TunnelType::Ip => ol::TX_TUNNEL_IP,
        }
    }

    /// The type named by the 4 tunnel bits of `ol_flags` (`None`: no tunnel, or a
    /// value DPDK does not define).
    pub const fn from_bits(bits: u64) -> Option<TunnelType> {
        match bits & ol::TX_TUNNEL_MASK {
            ol::TX_TUNNEL_VXLAN => Some(TunnelType::Vxlan),
            ol::TX_TUNNEL_GRE => Some(TunnelType::Gre),
            ol::TX_TUNNEL_IPIP => Some(TunnelType::Ipip),
            ol::TX_TUNNEL_GENEVE => Some(TunnelType::Geneve),
            ol::TX_TUNNEL_MPLSINUDP => Some(TunnelType::MplsInUdp),
            ol::TX_TUNNEL_VXLAN_GPE => Some(TunnelType::VxlanGpe),
            ol::TX_TUNNEL_GTP => Some(TunnelType::Gtp),
            ol::TX_TUNNEL_ESP => Some(TunnelType::Esp),
            ol::TX_TUNNEL_UDP => Some(TunnelType::Udp),
            ol::TX_TUNNEL_IP => Some(TunnelType::Ip),
            _ => None,
        }
    }
}

/// The outer headers of a tunnelled transmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OuterTx {
    /// Tunnel type.
    pub tunnel: TunnelType,
    /// Offset of the outer IP header (`outer_l2_len`).
    pub outer_l3: usize,
    /// Offset of the outer L4 / tunnel header (`outer_l2_len + outer_l3_len`).
    pub outer_l4: usize,
    /// Outer IP version.
    pub outer_net: Net,
    /// Ask the NIC for the outer IPv4 header checksum.
    pub outer_ip_csum: bool,
    /// Ask the NIC for the outer UDP checksum.
    pub outer_udp_csum: bool,
}

/// The mbuf transmit fields a checksum / segmentation request needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TxOffload {
    /// `ol_flags` TX bits.
    pub ol_flags: u64,
    /// `l2_len` (7 bits; for tunnels: outer L4 + tunnel + inner L2).
    pub l2_len: u16,
    /// `l3_len` (9 bits).
    pub l3_len: u16,
    /// `l4_len` (8 bits).
    pub l4_len: u16,
    /// `tso_segsz`.
    pub tso_segsz: u16,
    /// `outer_l2_len` (7 bits).
    pub outer_l2_len: u16,
    /// `outer_l3_len` (9 bits).
    pub outer_l3_len: u16,
}

fn bits_len(value: usize, bits: u32) -> Result<u16, BoundaryError> {
    let max = (1usize << bits) - 1;
    if value > max {
        return Err(BoundaryError::new(
            MetaField::DpdkLengths,
            MetaErrorKind::TooLarge { value, max },
        ));
    }
    Ok(value as u16)
}
