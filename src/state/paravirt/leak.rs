//! Diagnosis of a received L4 checksum that does not verify: a *leaked Partial*
//! (the field holds exactly the pseudo-header seed: a peer forgot to finish a
//! `NEEDS_CSUM` / `csum_blank` packet, as in virtio-win #1630) is told apart
//! from a random bad checksum, so the fault is pinned on the offload path and
//! not on the wire.

use crate::csum::{self, Sum16};
use crate::wire::{Layers, Net, Transport};

use super::setup::{field_at, layers_fit, pseudo_len, pseudo_seed, pseudo_sum};

/// What the bytes of a packet's L4 checksum say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L4Diagnosis {
    /// The checksum verifies.
    Valid,
    /// IPv4 UDP with a zero field: no checksum was sent.
    NoChecksum,
    /// The field equals the pseudo-header seed: an unfinished `Partial` leaked
    /// through a boundary. Finish it (sum from `start`, store at `start + offset`).
    LeakedPartial {
        /// The transport header (`csum_start`).
        start: usize,
        /// The field offset (`csum_offset`).
        offset: usize,
        /// The seed found in the field.
        seed: Sum16,
    },
    /// A wrong checksum.
    Bad {
        /// The field as found.
        found: Sum16,
        /// The value that would verify.
        expected: Sum16,
    },
    /// Not a checksum this diagnosis knows (fragment, SCTP, GRE, other).
    NotApplicable,
}

/// Recomputes the L4 checksum of a parsed packet in software and says what the
/// field holds. Costs one pass over the segment; meant for the error path.
pub fn diagnose(frame: &[u8], layers: &Layers) -> L4Diagnosis {
    if layers.fragment.is_fragment || !layers_fit(frame.len(), layers) {
        return L4Diagnosis::NotApplicable;
    }
    let offset = match layers.transport {
        Transport::Tcp => 16,
        Transport::Udp => 6,
        Transport::Icmp | Transport::Icmpv6 => 2,
        _ => return L4Diagnosis::NotApplicable,
    };
    let start = layers.l4;
    let len = pseudo_len(frame, layers);
    let (Some(seg), Some(found), Some(pseudo)) = (
        frame.get(start..start + len),
        field_at(frame, start + offset),
        pseudo_sum(frame, layers),
    ) else {
        return L4Diagnosis::NotApplicable;
    };
    if layers.transport == Transport::Udp && layers.net == Net::Ipv4 && found.is_zero() {
        return L4Diagnosis::NoChecksum;
    }
    let total = csum::partial(seg, pseudo);
    if csum::fold(total).is_zero() {
        return L4Diagnosis::Valid;
    }
    if pseudo_seed(frame, layers) == Some(found) {
        return L4Diagnosis::LeakedPartial {
            start,
            offset,
            seed: found,
        };
    }
    let without = total.sub(found.unfold());
    let mut expected = csum::fold(without);
    if layers.transport == Transport::Udp {
        expected = expected.udp_mangle_zero();
    }
    L4Diagnosis::Bad { found, expected }
}
