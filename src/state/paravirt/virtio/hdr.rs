//! `struct virtio_net_hdr` and its variants: bytes in, bytes out, nothing else.
//!
//! All multi-byte fields are little-endian (VIRTIO 1.x, and the legacy header on
//! every little-endian guest; big-endian legacy guests are not supported).

use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::state::paravirt::error::{BoundaryError, MetaErrorKind, MetaField};

bitflags::bitflags! {
    /// virtio-net header `flags`. Unknown bits are kept as read (the device must
    /// ignore them, so they are never an error; `UDP_TUNNEL_CSUM` from a device
    /// is, see [`linux_rules::check_tunnel_csum`](super::linux_rules::check_tunnel_csum)).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct VirtioFlags: u8 {
        /// `VIRTIO_NET_HDR_F_NEEDS_CSUM`: checksum from `csum_start` to the end,
        /// stored at `csum_start + csum_offset` (the field holds the pseudo-header sum).
        const NEEDS_CSUM = 1;
        /// `VIRTIO_NET_HDR_F_DATA_VALID`: the device validated the packet (one level).
        const DATA_VALID = 2;
        /// `VIRTIO_NET_HDR_F_RSC_INFO`: coalesced TCP; `csum_start` and
        /// `csum_offset` hold segment and duplicate-ACK counts.
        const RSC_INFO = 4;
        /// `VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM`: with `DATA_VALID`, the outer UDP
        /// checksum was validated too (`VIRTIO_NET_F_GUEST_UDP_TUNNEL_GSO_CSUM`,
        /// never negotiated here).
        const UDP_TUNNEL_CSUM = 8;
    }
}

/// Raw `gso_type` values (`VIRTIO_NET_HDR_GSO_*`).
pub mod gso_type {
    /// Not a GSO frame.
    pub const NONE: u8 = 0;
    /// TCP over IPv4 (TSO).
    pub const TCPV4: u8 = 1;
    /// UDP fragmentation offload (UFO, deprecated).
    pub const UDP: u8 = 3;
    /// TCP over IPv6.
    pub const TCPV6: u8 = 4;
    /// UDP segmentation (USO).
    pub const UDP_L4: u8 = 5;
    /// ECN bit: the TCP flow has CWR to replicate.
    pub const ECN: u8 = 0x80;
}

/// The header's size on the ring, fixed by the negotiated features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HdrLayout {
    /// 10 bytes: legacy without `MRG_RXBUF` (Linux TUN `vnet_hdr`, wireguard-go).
    Legacy,
    /// 12 bytes: VIRTIO 1.x or `MRG_RXBUF` (`num_buffers` appended).
    V1,
    /// 20 bytes: `VIRTIO_NET_F_HASH_REPORT` (hash value, report type, padding).
    HashReport,
}

impl HdrLayout {
    /// Size in bytes.
    pub const fn len(self) -> usize {
        match self {
            HdrLayout::Legacy => 10,
            HdrLayout::V1 => 12,
            HdrLayout::HashReport => 20,
        }
    }

    /// Never empty; present for the `len` convention.
    pub const fn is_empty(self) -> bool {
        false
    }
}

/// Wire image of the 10-byte base header.
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
struct RawBase {
    flags: u8,
    gso_type: u8,
    hdr_len: U16,
    gso_size: U16,
    csum_start: U16,
    csum_offset: U16,
}

/// Wire image of the hash-report tail (after `num_buffers`).
#[derive(FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
struct RawHash {
    hash_value: U32,
    hash_report: U16,
    padding: U16,
}

/// A virtio-net header as values (layout-independent). Fields a layout lacks read as 0.
///
/// Parsing accepts any values: checking them against the packet is the job of
/// [`VirtioNetHdr::to_meta`], which models `virtio_net_hdr_to_skb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct VirtioNetHdr {
    /// `flags`.
    pub flags: VirtioFlags,
    /// `gso_type` as read (see [`gso_type`]).
    pub gso_type: u8,
    /// `hdr_len`: header bytes to replicate per segment (a hint unless `GUEST_HDRLEN`).
    pub hdr_len: u16,
    /// `gso_size`: payload bytes per segment (the MSS).
    pub gso_size: u16,
    /// `csum_start`: offset of the first summed byte from the start of the frame.
    pub csum_start: u16,
    /// `csum_offset`: offset of the checksum field from `csum_start`.
    pub csum_offset: u16,
    /// `num_buffers` (`V1` and `HashReport` layouts only).
    pub num_buffers: u16,
    /// `hash_value` (`HashReport` only).
    pub hash_value: u32,
    /// `hash_report` (`HashReport` only).
    pub hash_report: u16,
}

impl VirtioNetHdr {
    /// The all-zero header: fully checksummed, not GSO, nothing claimed.
    pub const ZERO: VirtioNetHdr = VirtioNetHdr {
        flags: VirtioFlags::empty(),
        gso_type: gso_type::NONE,
        hdr_len: 0,
        gso_size: 0,
        csum_start: 0,
        csum_offset: 0,
        num_buffers: 0,
        hash_value: 0,
        hash_report: 0,
    };

    /// Reads a header from the front of `bytes`; returns it and the frame after it.
    ///
    /// Only the length is checked here (a typed error names `HeaderBytes`).
    pub fn parse(bytes: &[u8], layout: HdrLayout) -> Result<(VirtioNetHdr, &[u8]), BoundaryError> {
        let need = layout.len();
        let truncated = BoundaryError::new(
            MetaField::HeaderBytes,
            MetaErrorKind::Truncated {
                needed: need,
                available: bytes.len(),
            },
        );
        let (head, rest) = bytes.split_at_checked(need).ok_or(truncated)?;
        let (base, tail) = RawBase::read_from_prefix(head).map_err(|_| truncated)?;
        let mut hdr = VirtioNetHdr {
            flags: VirtioFlags::from_bits_retain(base.flags),
            gso_type: base.gso_type,
            hdr_len: base.hdr_len.get(),
            gso_size: base.gso_size.get(),
            csum_start: base.csum_start.get(),
            csum_offset: base.csum_offset.get(),
            ..VirtioNetHdr::ZERO
        };
        if let Ok((nb, tail)) = U16::read_from_prefix(tail) {
            hdr.num_buffers = nb.get();
            if let Ok((hash, _)) = RawHash::read_from_prefix(tail) {
                hdr.hash_value = hash.hash_value.get();
                hdr.hash_report = hash.hash_report.get();
            }
        }
        Ok((hdr, rest))
    }

    /// Writes every byte of the layout into the front of `out` (padding and the
    /// fields the header does not use are zeroed: no stale bytes survive, unlike
    /// the wireguard-go buffer that kept a previous header). Returns the length.
    pub fn write(&self, layout: HdrLayout, out: &mut [u8]) -> Result<usize, BoundaryError> {
        let need = layout.len();
        let available = out.len();
        let dst = out.get_mut(..need).ok_or(BoundaryError::new(
            MetaField::HeaderBytes,
            MetaErrorKind::Truncated {
                needed: need,
                available,
            },
        ))?;
        let base = RawBase {
            flags: self.flags.bits(),
            gso_type: self.gso_type,
            hdr_len: U16::new(self.hdr_len),
            gso_size: U16::new(self.gso_size),
            csum_start: U16::new(self.csum_start),
            csum_offset: U16::new(self.csum_offset),
        };
        let (b, rest) = dst.split_at_mut(10);
        b.copy_from_slice(base.as_bytes());
        if let Some((nb, rest)) = rest.split_at_mut_checked(2) {
            nb.copy_from_slice(U16::new(self.num_buffers).as_bytes());
            if let Some(h) = rest.get_mut(..8) {
                let hash = RawHash {
                    hash_value: U32::new(self.hash_value),
                    hash_report: U16::new(self.hash_report),
                    padding: U16::new(0),
                };
                h.copy_from_slice(hash.as_bytes());
            }
        }
        Ok(need)
    }
}
