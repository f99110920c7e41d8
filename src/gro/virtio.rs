//! A GRO super-packet handed to a virtio-net peer: the header that goes in
//! front of [`SuperPacket::write_into`]'s bytes (Linux `virtio_net_hdr_from_skb`
//! on a GRO skb, as `tun_put_user` or vhost would write it).
//!
//! The segmentation types map one way only where the receiver re-segments to
//! the same bytes (see [`virtio_gso`]); everything else is refused with a
//! [`VirtioGsoError`], and the caller writes the run's frames one by one
//! ([`SuperPacket::segments`] names them), which is always correct.

use core::fmt;

use super::output::{SuperPacket, WriteError};
use crate::state::paravirt::BoundaryError;
use crate::state::paravirt::virtio::{GuestFrame, HdrLayout, PeerFeatures, VirtioNetHdr};
use crate::wire::{GsoKind, GsoParams, GsoType};

/// Why a segmentation type cannot be said in a virtio-net header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VirtioGsoError {
    /// CWR on every segment (`TCP_ACCECN`): virtio's ECN bit means RFC 3168
    /// (CWR on the first segment only), so a re-segmenting receiver would
    /// clear CWR from all but the first segment and corrupt the AccECN counter.
    AccEcnCwr,
    /// A fixed IPv4 ID run (`TCP_FIXEDID`): virtio has no bit for it and the
    /// receiver would re-segment with incrementing IDs, not the bytes sent.
    FixedId,
    /// A tunnel type (UDP tunnel, GRE, IP in IP): not in the legacy header.
    Tunnel(GsoType),
    /// No TCPv4, TCPv6 or UDP_L4 bit, or more than one.
    NoKind(GsoType),
    /// The header could not be built from the metadata (offsets above 65535, ...).
    Boundary(BoundaryError),
}

impl fmt::Display for VirtioGsoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VirtioGsoError::AccEcnCwr => {
                f.write_str("CWR on every segment (AccECN) cannot be said with virtio's ECN bit")
            }
            VirtioGsoError::FixedId => f.write_str("a fixed IPv4 ID run cannot be said in virtio"),
            VirtioGsoError::Tunnel(t) => write!(f, "tunnel GSO type {t:?} is not in virtio"),
            VirtioGsoError::NoKind(t) => write!(f, "GSO type {t:?} has no single virtio kind"),
            VirtioGsoError::Boundary(e) => write!(f, "virtio header: {e}"),
        }
    }
}

impl core::error::Error for VirtioGsoError {}

/// Why [`SuperPacket::write_virtio_into`] could not write (a header refusal
/// writes nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VirtioWriteError {
    /// The run cannot be said in a virtio header: write its frames one by one.
    Header(VirtioGsoError),
    /// The buffer is short or a frame is missing ([`SuperPacket::write_into`]).
    Write(WriteError),
}

impl fmt::Display for VirtioWriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VirtioWriteError::Header(e) => e.fmt(f),
            VirtioWriteError::Write(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for VirtioWriteError {}

const TUNNEL: GsoType = GsoType::UDP_TUNNEL
    .union(GsoType::UDP_TUNNEL_CSUM)
    .union(GsoType::GRE)
    .union(GsoType::GRE_CSUM)
    .union(GsoType::IPXIP4)
    .union(GsoType::IPXIP6)
    .union(GsoType::TCP_FIXEDID_INNER);

/// The virtio kind and ECN bit of a segmentation type (`None` for an empty
/// type: a single packet). The one mapping both rooms use (the transmit
/// side's `GsoInfo` conversions call it).
///
/// - `TCPV4`, `TCPV6`, `UDP_L4` -> their kind; `TCP_ECN` -> the ECN bit
///   (RFC 3168 CWR, first segment only: what the bit means).
/// - `TCP_ACCECN` -> refused. Linux's `virtio_net_hdr_from_skb` drops the bit
///   and the receiver's `tcp_gso_segment` then clears CWR after the first
///   segment; the AccECN counter would change.
/// - `TCP_FIXEDID` -> refused. Linux drops the bit (the receiver increments
///   the IDs from the first); we keep the resplit byte-exact instead: the
///   caller writes the frames as they came. Linux TCP senders increment, so
///   this costs only traffic from fixed-ID senders.
/// - tunnel bits -> refused (the legacy header has no tunnel types).
pub const fn virtio_gso(t: GsoType) -> Result<Option<(GsoKind, bool)>, VirtioGsoError> {
    if t.is_empty() {
        return Ok(None);
    }
    if t.intersects(TUNNEL) {
        return Err(VirtioGsoError::Tunnel(t));
    }
    if t.contains(GsoType::TCP_ACCECN) {
        return Err(VirtioGsoError::AccEcnCwr);
    }
    if t.contains(GsoType::TCP_FIXEDID) {
        return Err(VirtioGsoError::FixedId);
    }
    let ecn = t.contains(GsoType::TCP_ECN);
    let base = t.difference(GsoType::TCP_ECN);
    let kind = if base.bits() == GsoType::TCPV4.bits() {
        GsoKind::TcpV4
    } else if base.bits() == GsoType::TCPV6.bits() {
        GsoKind::TcpV6
    } else if base.bits() == GsoType::UDP_L4.bits() && !ecn {
        GsoKind::UdpL4
    } else {
        return Err(VirtioGsoError::NoKind(t));
    };
    Ok(Some((kind, ecn)))
}

impl SuperPacket {
    /// The virtio-net header for this super-packet as [`Self::write_into`]
    /// writes it (pseudo-header seed in the field): `NEEDS_CSUM` at the
    /// TCP/UDP header, `gso_type`/`gso_size`/`hdr_len` for two or more
    /// segments; a single packet gets its own metadata's header (nothing, or
    /// `DATA_VALID` if `peer` takes it). `frame.base` is where the peer's
    /// frame starts in the written bytes (0 for an L3 TUN fed raw IP).
    ///
    /// Refused (see [`virtio_gso`]): AccECN CWR runs, fixed-ID runs, tunnel
    /// types. Then write each of [`Self::segments`]' frames alone: GRO
    /// verified them and they are unchanged.
    pub fn virtio_hdr(
        &self,
        frame: GuestFrame,
        peer: PeerFeatures,
    ) -> Result<VirtioNetHdr, VirtioGsoError> {
        let gso = if self.seg_count() > 1 {
            match virtio_gso(self.gso_type())? {
                Some((kind, ecn)) => Some(GsoParams {
                    kind,
                    ecn,
                    gso_size: self.gso_size(),
                    // Saturated at 65535 as before: the header's field is 16 bits.
                    hdr_len: self
                        .payload_offset()
                        .saturating_sub(frame.base)
                        .min(u16::MAX as usize),
                    segs: self.seg_count() as usize,
                }),
                None => return Err(VirtioGsoError::NoKind(self.gso_type())),
            }
        } else {
            None
        };
        // The metadata is derived from the descriptor, so the refusal's copy is
        // dropped: `self.meta()` gives it again.
        VirtioNetHdr::from_meta(self.meta(), frame, gso, peer)
            .map_err(|refused| VirtioGsoError::Boundary(refused.error))
    }

    /// One TUN (or vhost) write's bytes: the `layout`-sized header from
    /// [`Self::virtio_hdr`], then the packet from [`Self::write_into`].
    /// Returns the bytes written. What a TUN writer would otherwise compose
    /// by hand (split the buffer, write the header, write the packet).
    pub fn write_virtio_into<'b, F>(
        &self,
        layout: HdrLayout,
        peer: PeerFeatures,
        buf: &mut [u8],
        payload_of: F,
    ) -> Result<usize, VirtioWriteError>
    where
        F: FnMut(u32) -> Option<&'b [u8]>,
    {
        let hdr = self
            .virtio_hdr(GuestFrame::default(), peer)
            .map_err(VirtioWriteError::Header)?;
        let need = layout.len() + self.len();
        let available = buf.len();
        let Some(out) = buf.get_mut(..need) else {
            return Err(VirtioWriteError::Write(WriteError::BufferTooSmall {
                needed: need,
                available,
            }));
        };
        let (h, body) = out.split_at_mut(layout.len());
        let n = self
            .write_into(body, payload_of)
            .map_err(VirtioWriteError::Write)?;
        hdr.write(layout, h)
            .map_err(|e| VirtioWriteError::Header(VirtioGsoError::Boundary(e)))?;
        Ok(layout.len() + n)
    }
}
