//! The pseudo-header sum of a packet's transport, read from its headers.

use crate::csum::{self, Sum16, Wsum};
use crate::wire::{Layers, Net};

/// The unfolded pseudo-header sum for an L4 length of `l4_len` bytes, with the
/// addresses the pseudo-header uses (`pseudo_src`/`pseudo_dst`) read from `frame`.
/// `None` when the addresses are not inside `frame`.
pub(crate) fn pseudo_sum(frame: &[u8], layers: &Layers, proto: u8, l4_len: usize) -> Option<Wsum> {
    let len = u32::try_from(l4_len).ok()?;
    match layers.net {
        Net::Ipv4 => {
            let src: [u8; 4] = frame
                .get(layers.pseudo_src..layers.pseudo_src.checked_add(4)?)?
                .try_into()
                .ok()?;
            let dst: [u8; 4] = frame
                .get(layers.pseudo_dst..layers.pseudo_dst.checked_add(4)?)?
                .try_into()
                .ok()?;
            Some(csum::pseudo_v4(src, dst, proto, len, Wsum::ZERO))
        }
        Net::Ipv6 => {
            let src: &[u8; 16] = frame
                .get(layers.pseudo_src..layers.pseudo_src.checked_add(16)?)?
                .try_into()
                .ok()?;
            let dst: &[u8; 16] = frame
                .get(layers.pseudo_dst..layers.pseudo_dst.checked_add(16)?)?
                .try_into()
                .ok()?;
            Some(csum::pseudo_v6(src, dst, proto, len, Wsum::ZERO))
        }
    }
}

/// The value a `CHECKSUM_PARTIAL` field holds: the folded pseudo-header sum,
/// not complemented (`~csum_tcpudp_magic(..)`, as `tcp_v4_send_check` and
/// `tcp_gro_complete` leave it).
pub(crate) fn seed(pseudo: Wsum) -> Sum16 {
    Sum16::from_raw(!csum::fold(pseudo).raw())
}
