//! The virtio-net GSO description (kind, ECN bit, size) and the transmit
//! side's [`GsoInfo`], both ways: what a TUN reader needs between
//! `VirtioNetHdr::to_meta` and [`decide`](super::decide), and back.

use super::gso::GsoInfo;
use crate::gro::{VirtioGsoError, virtio_gso};
use crate::wire::{GsoKind, GsoParams, GsoType};

impl GsoInfo {
    /// The request a checked virtio GSO header makes (Linux
    /// `virtio_net_hdr_to_skb`: `TCPV4`/`TCPV6`/`UDP_L4`, the ECN bit as
    /// `SKB_GSO_TCP_ECN`). `None` for UFO: the transmit side does not
    /// fragment (Linux dropped UFO from its own GSO in 2017).
    pub const fn from_virtio(params: &GsoParams) -> Option<GsoInfo> {
        let base = match params.kind {
            GsoKind::TcpV4 => GsoType::TCPV4,
            GsoKind::TcpV6 => GsoType::TCPV6,
            GsoKind::UdpL4 => GsoType::UDP_L4,
            GsoKind::Ufo => return None,
        };
        let gso_type = if params.ecn {
            base.union(GsoType::TCP_ECN)
        } else {
            base
        };
        Some(GsoInfo::new(params.gso_size, gso_type))
    }

    /// The virtio description of this request for a packet whose headers are
    /// `hdr_len` bytes and which makes `segs` segments (Linux
    /// `virtio_net_hdr_from_skb`). Refusals as [`virtio_gso`]: AccECN CWR,
    /// fixed IDs, tunnel types; an empty type is [`VirtioGsoError::NoKind`].
    pub const fn to_virtio(&self, hdr_len: u16, segs: u16) -> Result<GsoParams, VirtioGsoError> {
        match virtio_gso(self.gso_type) {
            Ok(Some((kind, ecn))) => Ok(GsoParams {
                kind,
                ecn,
                gso_size: self.gso_size,
                hdr_len: hdr_len as usize,
                segs: segs as usize,
            }),
            Ok(None) => Err(VirtioGsoError::NoKind(self.gso_type)),
            Err(e) => Err(e),
        }
    }
}
