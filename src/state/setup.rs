//! Setting up a `Partial` state from the headers (for packets whose origin
//! said "checksum blank" without saying where the field is).

use super::outcome::{Outcome, Reason, Span, StateError, Transition, Verdict, refuse};
use super::packet::PacketMut;
use super::rewrite::{Write, apply};
use super::site::{self, Kind};
use super::types::{CsumFlags, CsumMeta, CsumState, PartialKind};
use crate::csum::{self, Sum16};
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
    let transport = p.layers().transport;
    if !matches!(transport, Transport::Tcp | Transport::Udp) {
        return refuse(meta, StateError::LayerNotHandled { transport });
    }
    let site = match site::of(&p) {
        Ok(s) => s,
        Err(e) => return refuse(meta, e),
    };
    let Kind::Inet { field, .. } = site.kind else {
        return refuse(meta, StateError::LayerNotHandled { transport });
    };
    let seed = site.pseudo(&p);
    let state = CsumState::Partial {
        start: site.l4,
        offset: field - site.l4,
        kind: PartialKind::Inet,
    };
    let flags = meta.flags() - CsumFlags::CSUM_VALID - CsumFlags::COMPLETE_SW;
    let new = match CsumMeta::new(state, flags) {
        Ok(m) => m,
        Err(e) => return refuse(meta, StateError::Meta(e)),
    };
    if recalculate {
        // The field holds the folded pseudo-header sum, not complemented.
        let value = Sum16::from_raw(!csum::fold(seed).raw());
        let w = Write::new(field, &value.to_bytes(), Span::ChecksumField);
        if let Err(e) = apply(pkt, &[w], None) {
            return refuse(meta, e);
        }
    }
    Ok(Outcome {
        meta: new,
        verdict: Verdict::NotChecked,
        reason: Reason::PartialSetUp,
        sw_bytes: 0,
    })
}
