//! Setting up a `Partial` state from the headers (for packets whose origin
//! said "checksum blank" without saying where the field is).

use super::outcome::{CsumVerdict, Outcome, Reason, Span, StateError, Transition, refuse};
use super::packet::{Packet, PacketMut};
use super::rewrite::{Write, apply};
use super::site::{self, Kind};
use super::types::{CsumFlags, CsumMeta, CsumState, PartialKind};
use crate::csum::Sum16;
use crate::wire::Transport;

/// Points a `Partial` state at the TCP or UDP checksum of the packet (start =
/// L4 header, offset 16 or 6) and, with `recalculate`, writes the
/// pseudo-header seed into the field (Linux `skb_checksum_setup` with
/// `skb_partial_csum_set`, as Xen netback/netfront use it for `csum_blank`
/// packets; `recalculate` is their fix-up for peers that sent a GSO frame
/// without the flag).
///
/// Without `recalculate` the origin is trusted to have left the seed in the
/// field, as `Partial` always trusts its origin. The flags are kept (add
/// `CSUM_BLANK` with [`CsumMeta::new`] when the origin said so); `CSUM_VALID`
/// and `COMPLETE_SW` are dropped. Refused for fragments and for layers other
/// than TCP and UDP (what `skb_checksum_setup` handles).
pub fn checksum_setup(meta: CsumMeta, pkt: &mut PacketMut<'_>, recalculate: bool) -> Transition {
    let p = pkt.as_packet();
    let at = match locate(&p) {
        Ok(at) => at,
        Err(e) => return refuse(meta, e),
    };
    let state = CsumState::Partial {
        start: at.start,
        offset: at.offset,
        kind: PartialKind::Inet,
    };
    let flags = meta.flags() - CsumFlags::CSUM_VALID - CsumFlags::COMPLETE_SW;
    let new = match CsumMeta::new(state, flags) {
        Ok(m) => m,
        Err(e) => return refuse(meta, StateError::Meta(e)),
    };
    if recalculate {
        let field = at.start + at.offset;
        let w = Write::new(field, &at.seed.to_bytes(), Span::ChecksumField);
        if let Err(e) = apply(pkt, &[w], None) {
            return refuse(meta, e);
        }
    }
    Ok(Outcome {
        meta: new,
        verdict: CsumVerdict::NotChecked,
        reason: Reason::PartialSetUp,
        sw_bytes: 0,
    })
}

/// Where `skb_checksum_setup` puts a plain packet's `Partial`, and the seed
/// its field must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Located {
    /// `csum_start`: the TCP or UDP header.
    pub start: usize,
    /// `csum_offset`: the checksum field inside it.
    pub offset: usize,
    /// The folded, not complemented pseudo-header sum.
    pub seed: Sum16,
}

/// The protocol switch of `skb_checksum_setup` (TCP and UDP only; fragments
/// refused), shared by [`checksum_setup`] and the paravirt boundaries.
pub(crate) fn locate(p: &Packet<'_>) -> Result<Located, StateError> {
    let transport = p.layers().transport;
    if !matches!(transport, Transport::Tcp | Transport::Udp) {
        return Err(StateError::LayerNotHandled { transport });
    }
    let site = site::of(p)?;
    let Kind::Inet { field, .. } = site.kind else {
        return Err(StateError::LayerNotHandled { transport });
    };
    Ok(Located {
        start: site.l4,
        offset: field - site.l4,
        seed: site::seed(site.pseudo(p)),
    })
}
