//! Netfilter conntrack's checksum decision (`nf_ip_checksum`, `nf_ip6_checksum`
//! and the `nf_conntrack_proto_*` error handlers).

use super::outcome::{Outcome, Reason, StateError, Transition};
use super::packet::Packet;
use super::types::CsumMeta;
use super::validate::{Consume, ValidateOptions, ZeroUdp6, check};

/// The netfilter hook a packet is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hook {
    /// `NF_INET_PRE_ROUTING`: the only hook where conntrack checks checksums.
    PreRouting,
    /// `NF_INET_LOCAL_IN`.
    LocalIn,
    /// `NF_INET_FORWARD`.
    Forward,
    /// `NF_INET_LOCAL_OUT` ("assumed correct": locally generated).
    LocalOut,
    /// `NF_INET_POST_ROUTING`.
    PostRouting,
}

/// Conntrack settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConntrackConfig {
    /// `net.netfilter.nf_conntrack_checksum` (on by default).
    pub checksum: bool,
}

impl Default for ConntrackConfig {
    fn default() -> Self {
        ConntrackConfig { checksum: true }
    }
}

/// Conntrack's checksum decision for the L4 layer (`nf_ip_checksum` /
/// `nf_ip6_checksum` behind the L4 error handlers): checks only at
/// [`Hook::PreRouting`] with the sysctl on. Never rejects a `Partial` or
/// `CSUM_BLANK` packet for its blank field (the Xen 2005 bug): it is locally
/// generated and trusted. The rules and reasons are [`validate`](super::validate)'s
/// (one check, shared): a layer without a checksum (UDP checksum 0, v4 and v6
/// as `udp_error`, or GRE without C) is `NoChecksum` whatever vouches for it;
/// `Unnecessary` and `DATA_VALID` are trusted without consuming either;
/// `Complete` is checked by arithmetic, `None` in software (the sum is kept as
/// `Complete`, `COMPLETE_SW`, so later validation costs nothing).
///
/// `CsumVerdict::Bad` means conntrack marks the packet INVALID. Deviation from
/// Linux: a checked `Complete` stays `Complete` with `CSUM_VALID` (Linux turns
/// it into `Unnecessary` level 0 and loses the sum inner layers could use),
/// and `Unnecessary` does not vouch for ICMP (never covered by a level).
/// Layers without a checksum model (IP-in-IP, unknown protocols) are not
/// checked, as conntrack's generic protocol does not.
pub fn conntrack(meta: CsumMeta, pkt: &Packet<'_>, hook: Hook, cfg: ConntrackConfig) -> Transition {
    if !cfg.checksum {
        return Ok(Outcome::same(meta, Reason::ConntrackChecksumOff));
    }
    if hook != Hook::PreRouting {
        return Ok(Outcome::same(meta, Reason::ConntrackHookSkipped));
    }
    if pkt.layers().fragment.is_fragment {
        return Ok(Outcome::same(meta, Reason::ConntrackFragment));
    }
    // The same rules as `validate`, in the same order (a layer without a
    // checksum says so before a Partial vouches for it), without consuming.
    let opts = ValidateOptions {
        zero_udp6: ZeroUdp6::Accept,
    };
    match check(meta, pkt, opts, Consume::No) {
        Err(r) if matches!(r.error, StateError::LayerNotHandled { .. }) => {
            Ok(Outcome::same(r.meta, Reason::ConntrackGeneric))
        }
        other => other,
    }
}
