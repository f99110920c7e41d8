//! Receive-side checking: the device report, validating one L4 layer, the
//! convert-to-`Complete` step and local delivery.

use super::outcome::{CsumVerdict, Outcome, Reason, StateError, Transition, refuse};
use super::packet::Packet;
use super::site::{self, Kind, Site};
use super::sum::{normalised, remove, sum_at};
use super::types::{CsumFlags, CsumLevel, CsumMeta, CsumState};
use crate::csum::{self, Wsum};
use crate::wire::Net;

/// What a NIC said about a received packet (descriptor bits or a profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceReport {
    /// Nothing checked (no RX checksum offload, or a protocol it does not parse).
    None,
    /// The first `level + 1` checksums verified, outermost first (ixgbe/82599
    /// reports level 0 even for tunnels; tunnel-aware NICs report more).
    L4Ok {
        /// `csum_level`.
        level: CsumLevel,
    },
    /// The device flagged the L4 checksum bad. Never trusted either way: the
    /// stack re-checks in software (drivers count the error and report NONE).
    L4Bad,
    /// The ones-complement sum of the packet from `cur` to its end (mlx5).
    Complete {
        /// The sum.
        csum: Wsum,
    },
}

/// The state a driver hands to the stack for `report` (what `ixgbe_rx_checksum`
/// or `mlx5e_handle_csum` set in `skb->ip_summed`). Cannot fail.
///
/// ```
/// use netoffload::state::{receive, DeviceReport, CsumState, CsumLevel};
/// let out = receive(DeviceReport::L4Ok { level: CsumLevel::L0 });
/// assert_eq!(out.meta.state(), CsumState::Unnecessary { level: CsumLevel::L0 });
/// ```
pub fn receive(report: DeviceReport) -> Outcome {
    let (state, reason) = match report {
        DeviceReport::None => (CsumState::None, Reason::DeviceNone),
        DeviceReport::L4Ok { level } => (
            CsumState::Unnecessary { level },
            Reason::DeviceVerified { level },
        ),
        DeviceReport::L4Bad => (CsumState::None, Reason::DeviceReportedBad),
        DeviceReport::Complete { csum } => (CsumState::Complete { csum }, Reason::DeviceSum),
    };
    Outcome::same(CsumMeta::from_state(state), reason)
}

/// What to do with a zero UDP checksum over IPv6 (RFC 8200 8.1 forbids it;
/// RFC 6935/6936 allow it for tunnels, Linux `udp_get_no_check6_rx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ZeroUdp6 {
    /// Bad checksum (the default, as for a plain UDP socket).
    #[default]
    Reject,
    /// No checksum, like IPv4 (a tunnel socket with `no_check6_rx`).
    Accept,
}

/// Options of [`validate_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ValidateOptions {
    /// Zero UDP checksums over IPv6.
    pub zero_udp6: ZeroUdp6,
}

/// Whether a check consumes a `csum_level`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Consume {
    /// Validation on the way up the stack.
    Yes,
    /// A look that is not the layer's own validation (conntrack).
    No,
}

fn with(state: CsumState, flags: CsumFlags) -> CsumMeta {
    // Every call site keeps the CsumMeta rules (checked by `CsumMeta::new`).
    CsumMeta::new(state, flags).unwrap_or(CsumMeta::from_state(state))
}

fn out(meta: CsumMeta, verdict: CsumVerdict, reason: Reason, sw_bytes: usize) -> Transition {
    Ok(Outcome {
        meta,
        verdict,
        reason,
        sw_bytes,
    })
}

/// Validates the checksum of the L4 layer at `pkt.layers().l4` with default
/// options (Linux `__skb_checksum_validate`: `skb_checksum_init` for TCP,
/// `skb_checksum_init_zero_check` for UDP, `skb_checksum_simple_validate`
/// for ICMP and GRE, `sctp_rcv_checksum` for SCTP).
///
/// In order: a UDP checksum 0 is "no checksum" (IPv4; IPv6 see
/// [`ZeroUdp6`]) and still consumes a level; `Unnecessary` consumes one level
/// (level 0 becomes `None`; ICMP is never covered by a level); a `Partial`
/// whose start is at or after this layer trusts it; `DATA_VALID` is trusted;
/// a `Complete` sum is checked against the pseudo-header; otherwise the layer
/// is summed in software and the sum kept as `Complete`
/// (`COMPLETE_SW`) so no byte is summed twice. A `Complete` that fails while
/// software passes is a [`Reason::DeviceChecksumFault`] (good packet).
/// A good check sets `CSUM_VALID` (the layer at `l4` counts as verified in
/// this pass, like Linux `csum_valid`): also on a trusted `Partial`, whose
/// field may still be blank, because Linux sets `csum_valid` whenever
/// `skb_csum_unnecessary` holds.
///
/// `DATA_VALID` vouches for this one checksum, like the level 0 Linux reads it
/// as: whichever rule accounts for the layer (zero UDP, a level, a `Partial`,
/// the flag, a sum) consumes it, so it never vouches for an inner layer.
///
/// `pkt.cur()` may be before `l4` (header bytes and trailing padding are then
/// taken out of a `Complete` sum, counted in `sw_bytes`), never after it.
///
/// ```
/// use netoffload::state::{validate, CsumMeta, Packet, CsumVerdict, Reason};
/// use netoffload::wire::LinkType;
/// # let mut b = [0u8; 28];
/// # b[0] = 0x45; b[3] = 28; b[8] = 64; b[9] = 17; b[25] = 8;
/// let pkt = Packet::parse(&b, LinkType::RawIp)?;
/// // UDP checksum 0 over IPv4: no checksum.
/// let out = validate(CsumMeta::NONE, &pkt).expect("a UDP layer");
/// assert_eq!((out.verdict, out.reason), (CsumVerdict::NoChecksum, Reason::ZeroUdpNoChecksum));
/// # Ok::<(), netoffload::wire::ParseError>(())
/// ```
pub fn validate(meta: CsumMeta, pkt: &Packet<'_>) -> Transition {
    validate_with(meta, pkt, ValidateOptions::default())
}

/// [`validate`] with options.
pub fn validate_with(meta: CsumMeta, pkt: &Packet<'_>, opts: ValidateOptions) -> Transition {
    check(meta, pkt, opts, Consume::Yes)
}

/// Final validation of the innermost layer on local delivery (`tcp_v4_rcv`,
/// `udp_rcv`, `icmp_rcv`... each starts with the checks of [`validate`]).
pub fn deliver(meta: CsumMeta, pkt: &Packet<'_>) -> Transition {
    validate(meta, pkt)
}

/// The shared check (validate and conntrack).
pub(crate) fn check(
    meta: CsumMeta,
    pkt: &Packet<'_>,
    opts: ValidateOptions,
    consume: Consume,
) -> Transition {
    let site = match site_ahead(pkt) {
        Ok(s) => s,
        Err(e) => return refuse(meta, e),
    };
    let b = pkt.bytes();
    let state = meta.state();
    // Like `__skb_checksum_validate`, start with csum_valid = 0.
    let mut flags = meta.flags() - CsumFlags::CSUM_VALID;
    let consumed = |state: CsumState| match (consume, state) {
        (Consume::Yes, CsumState::Unnecessary { level }) => match level.decremented() {
            Some(level) => CsumState::Unnecessary { level },
            None => CsumState::None,
        },
        (_, s) => s,
    };

    let counted = match site.kind {
        Kind::None => {
            return out(
                with(state, flags),
                CsumVerdict::NoChecksum,
                Reason::NoChecksumField,
                0,
            );
        }
        Kind::Inet { counted, .. } => counted,
        Kind::Crc32c { .. } => true,
    };
    // `DATA_VALID` speaks for this layer's checksum only (Linux reads it as
    // `CHECKSUM_UNNECESSARY` level 0): every path below accounts for that
    // checksum, so validation uses the flag up whichever path it takes.
    let origin_vouches = flags.contains(CsumFlags::DATA_VALID);
    if consume == Consume::Yes {
        flags -= CsumFlags::DATA_VALID;
    }

    if site.zero_udp(b) {
        if pkt.layers().net == Net::Ipv6 && opts.zero_udp6 == ZeroUdp6::Reject {
            // Linux accepts the zero in `udp6_csum_init` (consuming a level)
            // and refuses it at the socket: the level is consumed here too.
            return out(
                with(consumed(state), flags),
                CsumVerdict::Bad,
                Reason::ZeroUdp6Rejected,
                0,
            );
        }
        return out(
            with(consumed(state), flags),
            CsumVerdict::NoChecksum,
            Reason::ZeroUdpNoChecksum,
            0,
        );
    }

    // Trusted without work (`skb_csum_unnecessary`).
    if counted && let CsumState::Unnecessary { .. } = state {
        let reason = match consume {
            Consume::Yes => Reason::LevelConsumed,
            Consume::No => Reason::LevelCovers,
        };
        flags |= CsumFlags::CSUM_VALID;
        return out(with(consumed(state), flags), CsumVerdict::Good, reason, 0);
    }
    if let CsumState::Partial { start, .. } = state
        && start >= site.l4
    {
        // `skb_csum_unnecessary` is true, so `__skb_checksum_validate_needed`
        // sets `csum_valid`: the layer counts as verified, blank field or not.
        flags |= CsumFlags::CSUM_VALID;
        return out(
            with(state, flags),
            CsumVerdict::Good,
            Reason::PartialTrusted,
            0,
        );
    }
    if origin_vouches {
        // A blank `Partial` field does not verify: trusted, but not CSUM_VALID.
        if !matches!(state, CsumState::Partial { .. }) {
            flags |= CsumFlags::CSUM_VALID;
        }
        return out(
            with(state, flags),
            CsumVerdict::Good,
            Reason::DataValidTrusted,
            0,
        );
    }

    if let Kind::Crc32c { field } = site.kind {
        let good = site::sctp_crc(b, site.l4, field, site.end) == site::sctp_stored(b, field);
        let sw = site.end - site.l4;
        if good {
            flags |= CsumFlags::CSUM_VALID;
            // Conntrack (`nf_sctp_error`) records the verified CRC as
            // UNNECESSARY so the SCTP receive path does not redo it. A
            // `Complete` sum is no use to a CRC, so it is replaced too.
            let state = match (consume, state) {
                (Consume::No, CsumState::None | CsumState::Complete { .. }) => {
                    flags -= CsumFlags::COMPLETE_SW;
                    CsumState::Unnecessary {
                        level: CsumLevel::L0,
                    }
                }
                (_, s) => s,
            };
            return out(
                with(state, flags),
                CsumVerdict::Good,
                Reason::Crc32cVerified,
                sw,
            );
        }
        return out(
            with(state, flags),
            CsumVerdict::Bad,
            Reason::BadChecksum,
            sw,
        );
    }

    let pseudo = site.pseudo(pkt);
    let mut sw = 0usize;
    if let CsumState::Complete { csum } = state {
        let (around, n) = around(pkt, &site);
        sw += n;
        // A sum that cancels out is -0 in ones-complement; over all-zero bytes
        // it must be +0, or an all-zero ICMP message (no pseudo-header to
        // tell them apart) would pass with a zero checksum field.
        let l4sum = normalised(
            remove(csum, around).shifted_by(site.l4 - pkt.cur()),
            b.get(site.l4..site.end).unwrap_or(&[]),
        );
        if csum::fold(pseudo.add(l4sum)).is_zero() {
            flags |= CsumFlags::CSUM_VALID;
            return out(
                with(state, flags),
                CsumVerdict::Good,
                Reason::CompleteChecked,
                sw,
            );
        }
        if flags.contains(CsumFlags::COMPLETE_SW) {
            // Our own sum: recomputing would give the same answer.
            return out(
                with(state, flags),
                CsumVerdict::Bad,
                Reason::BadChecksum,
                sw,
            );
        }
        let data = sum_at(b, site.l4, site.l4, site.end);
        sw += site.end - site.l4;
        let good = csum::fold(pseudo.add(data)).is_zero();
        let whole = around.add(data.shifted_by(site.l4 - pkt.cur()));
        flags |= CsumFlags::COMPLETE_SW;
        let (verdict, reason) = if good {
            flags |= CsumFlags::CSUM_VALID;
            (CsumVerdict::Good, Reason::DeviceChecksumFault)
        } else {
            (CsumVerdict::Bad, Reason::BadChecksum)
        };
        return out(
            with(CsumState::Complete { csum: whole }, flags),
            verdict,
            reason,
            sw,
        );
    }

    // Software: `__skb_checksum_complete`.
    let data = sum_at(b, site.l4, site.l4, site.end);
    sw += site.end - site.l4;
    let good = csum::fold(pseudo.add(data)).is_zero();
    let (verdict, reason) = if good {
        flags |= CsumFlags::CSUM_VALID;
        (CsumVerdict::Good, Reason::SoftwareVerified)
    } else {
        (CsumVerdict::Bad, Reason::BadChecksum)
    };
    // `None`, or `Unnecessary` that does not cover this (ICMP) layer: nothing
    // after an ICMP header is counted, so its levels are worth nothing and the
    // sum replaces them.
    let new_state = if matches!(state, CsumState::None | CsumState::Unnecessary { .. }) {
        let (around, n) = around(pkt, &site);
        sw += n;
        flags |= CsumFlags::COMPLETE_SW;
        CsumState::Complete {
            csum: around.add(data.shifted_by(site.l4 - pkt.cur())),
        }
    } else {
        state // an outer Partial: keep it.
    };
    out(with(new_state, flags), verdict, reason, sw)
}

/// The packet's L4 checksum site, refused when the current offset is already
/// past it (the layer was pulled: nothing left to check or convert).
fn site_ahead(pkt: &Packet<'_>) -> Result<Site, StateError> {
    let site = site::of(pkt)?;
    if pkt.cur() > site.l4 {
        return Err(StateError::CurPastLayer {
            cur: pkt.cur(),
            layer: site.l4,
        });
    }
    Ok(site)
}

/// The sum (from `cur`) of the bytes a `Complete` sum covers besides the
/// layer: headers `[cur, l4)` and trailing bytes `[end, len)`; and their count.
fn around(pkt: &Packet<'_>, site: &Site) -> (Wsum, usize) {
    let b = pkt.bytes();
    let cur = pkt.cur();
    let head = sum_at(b, cur, cur, site.l4);
    let tail = sum_at(b, cur, site.end, b.len());
    (head.add(tail), (site.l4 - cur) + (b.len() - site.end))
}

/// After a layer with a non-zero checksum validated while the state was (or
/// became) `None`, switches to `Complete` with `csum = ~pseudo` so inner
/// layers validate by arithmetic alone (Linux `skb_checksum_try_convert`,
/// called by UDP when `uh->check != 0` and by GRE with the C bit). A `+0`
/// there (a pseudo-header of `0xFFFF_FFFF`) becomes `-0`, the same sum
/// mod `2^32 - 1`, so removing the tunnel header later stays exact.
///
/// Needs `CSUM_VALID` (set by [`validate`] on this layer); otherwise, or for
/// a zero UDP checksum, the state is returned unchanged
/// ([`Reason::NotConverted`]). Header bytes before `l4` and trailing padding
/// are summed in software (`sw_bytes`) so the sum starts at `cur`.
pub fn try_convert(meta: CsumMeta, pkt: &Packet<'_>) -> Transition {
    let site = match site_ahead(pkt) {
        Ok(s) => s,
        Err(e) => return refuse(meta, e),
    };
    let pseudo = match site.kind {
        Kind::Inet { .. } if !site.zero_udp(pkt.bytes()) => site.pseudo(pkt),
        Kind::Inet { .. } | Kind::Crc32c { .. } | Kind::None => {
            return Ok(Outcome::same(meta, Reason::NotConverted));
        }
    };
    if meta.state() != CsumState::None || !meta.flags().contains(CsumFlags::CSUM_VALID) {
        return Ok(Outcome::same(meta, Reason::NotConverted));
    }
    let (around, n) = around(pkt, &site);
    let csum = around.add(pseudo.not().shifted_by(site.l4 - pkt.cur()));
    let csum = normalised(csum, pkt.bytes().get(pkt.cur()..).unwrap_or(&[]));
    let flags = meta.flags() | CsumFlags::COMPLETE_SW;
    Ok(Outcome {
        meta: with(CsumState::Complete { csum }, flags),
        verdict: CsumVerdict::NotChecked,
        reason: Reason::Converted,
        sw_bytes: n,
    })
}
