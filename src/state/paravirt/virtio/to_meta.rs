//! From a received virtio-net header to a checksum state (Linux
//! `virtio_net_hdr_to_skb`, plus the `DATA_VALID` handling of the virtio_net
//! driver's receive path). Every field is checked against the packet.

use crate::state::{CsumFlags, CsumMeta, CsumState, PartialKind};
use crate::wire::{self, GsoKind, GsoParams, Layers, LinkType};

use super::hdr::{VirtioFlags, VirtioNetHdr, gso_type};
use super::linux_rules;
use crate::state::paravirt::error::{BoundaryError, MetaErrorKind, MetaField, Rule};
use crate::state::paravirt::peer::{
    DataValidAs, check_padding, data_valid_meta as data_valid_meta_as,
};
use crate::state::paravirt::setup::{
    SeedCheck, SeedSkip, check_seed, check_udp_length, checksum_setup, transport_csum_field,
};

/// Linux `UDP_MAX_SEGMENTS` (`1 << 7` since 2024; it was 64 before).
pub const UDP_MAX_SEGMENTS: usize = 128;
/// Linux `GSO_BY_FRAGS`: a `gso_size` reserved for SCTP inside the kernel.
pub const GSO_BY_FRAGS: u16 = 0xFFFF;

/// Which side wrote the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The driver (a guest transmitting, or a TUN user writing): the spec forbids
    /// `DATA_VALID` and `RSC_INFO` here.
    FromDriver,
    /// The device (a host delivering to the guest driver).
    FromDevice,
}

/// What a `DATA_VALID` bit is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataValidPolicy {
    /// Read it as `CHECKSUM_UNNECESSARY` level 0 plus the `DATA_VALID` side fact
    /// (the virtio_net driver's receive path).
    TrustAsUnnecessary,
    /// Keep only the `DATA_VALID` side fact; the state stays `None`.
    TrustAsFlag,
    /// Drop the claim (Linux tun/tap: `virtio_net_hdr_to_skb` never reads it).
    Ignore,
    /// Refuse the packet (a driver must not set it).
    Refuse,
}

/// How `hdr_len` is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HdrLenRule {
    /// A hint: it only has to lie inside the frame (the spec: "must not rely on it").
    Hint,
    /// `VIRTIO_NET_F_GUEST_HDRLEN`: it must equal the parsed header length.
    Exact,
}

/// What is done with the pseudo-header seed a `NEEDS_CSUM` packet carries.
///
/// The policy covers the seed only: Linux's offset rules (`csum_start` at
/// least `nh_min_len` past the network header, `csum_start + max(thlen,
/// csum_offset + 2)` inside the frame, see `linux_rules`) and the parsed
/// packet's rules hold under both policies, parsed frame or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeedPolicy {
    /// Compare the field with the parsed pseudo-header seed; refuse a mismatch.
    /// Where there is no seed to compare with (`csum_start` deeper than the
    /// parsed transport, as for a tunnel's inner header; a frame that passed
    /// Linux's offset rules but does not parse; a transport without a
    /// pseudo-header rule) the outcome says
    /// [`SeedCheck::Skipped`](crate::state::paravirt::setup::SeedCheck) and why:
    /// Linux never reads the seed.
    Verify,
    /// Believe it (Linux does; the oracle then cannot vouch for the state).
    Trust,
}

/// Everything `to_meta` needs to know about the peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VirtioPolicy {
    /// Who wrote the header.
    pub direction: Direction,
    /// How the frame begins (Ethernet for a NIC / tap, raw IP for an L3 TUN).
    pub link: LinkType,
    /// Trust in `DATA_VALID`.
    pub data_valid: DataValidPolicy,
    /// `hdr_len` rule.
    pub hdr_len: HdrLenRule,
    /// Seed rule.
    pub seed: SeedPolicy,
    /// `VIRTIO_NET_F_RSC_EXT` was negotiated.
    pub rsc_ext: bool,
}

impl VirtioPolicy {
    /// A guest's transmit queue seen by the host (vhost / tap backend): strict.
    pub const GUEST_TX: VirtioPolicy = VirtioPolicy {
        direction: Direction::FromDriver,
        link: LinkType::Ethernet,
        data_valid: DataValidPolicy::Ignore,
        hdr_len: HdrLenRule::Hint,
        seed: SeedPolicy::Verify,
        rsc_ext: false,
    };
    /// A device's receive queue seen by the guest driver (`virtio_net` RX path).
    pub const DRIVER_RX: VirtioPolicy = VirtioPolicy {
        direction: Direction::FromDevice,
        link: LinkType::Ethernet,
        data_valid: DataValidPolicy::TrustAsUnnecessary,
        hdr_len: HdrLenRule::Hint,
        seed: SeedPolicy::Verify,
        rsc_ext: false,
    };
}

impl GsoKind {
    /// The `gso_type` value without the ECN bit.
    pub const fn virtio_type(self) -> u8 {
        match self {
            GsoKind::TcpV4 => gso_type::TCPV4,
            GsoKind::TcpV6 => gso_type::TCPV6,
            GsoKind::Ufo => gso_type::UDP,
            GsoKind::UdpL4 => gso_type::UDP_L4,
        }
    }

    /// Decodes a `gso_type` without the ECN bit.
    pub const fn from_virtio(raw: u8) -> Option<GsoKind> {
        match raw {
            gso_type::TCPV4 => Some(GsoKind::TcpV4),
            gso_type::TCPV6 => Some(GsoKind::TcpV6),
            gso_type::UDP => Some(GsoKind::Ufo),
            gso_type::UDP_L4 => Some(GsoKind::UdpL4),
            _ => None,
        }
    }
}

/// The GSO outcome of a received header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GsoOutcome {
    /// No GSO type.
    NotGso,
    /// A GSO type on a packet whose payload fits one segment: Linux drops the
    /// GSO request ("too small packets are not really GSO ones").
    FitsOneSegment,
    /// Segment it.
    Segment(GsoParams),
}

/// `RSC_INFO` counts (device to driver, with `VIRTIO_NET_F_RSC_EXT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RscInfo {
    /// Number of coalesced segments (`csum_start`).
    pub segments: u16,
    /// Number of duplicate ACKs (`csum_offset`).
    pub dup_acks: u16,
}

/// What a checked header says about its packet.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub struct Inbound {
    /// The checksum metadata (consume it by move into the next transition).
    pub meta: CsumMeta,
    /// Segmentation.
    pub gso: GsoOutcome,
    /// What was done about the seed of a `Partial`.
    pub seed: Option<SeedCheck>,
    /// `RSC_INFO` counts.
    pub rsc: Option<RscInfo>,
    /// The frame's layers as `to_meta` parsed them (`None` when the frame
    /// does not parse): hand them on instead of parsing again.
    pub layers: Option<Layers>,
}

fn data_valid_meta(policy: DataValidPolicy) -> Result<CsumMeta, BoundaryError> {
    let how = match policy {
        DataValidPolicy::TrustAsUnnecessary => DataValidAs::Level,
        DataValidPolicy::TrustAsFlag => DataValidAs::Flag,
        DataValidPolicy::Ignore => DataValidAs::Ignored,
        DataValidPolicy::Refuse => {
            return Err(BoundaryError::forbidden(
                MetaField::VirtioFlags,
                Rule::DataValidOnTransmit,
            ));
        }
    };
    Ok(data_valid_meta_as(how))
}

/// A `NEEDS_CSUM` packet's state: `Partial` with its field blank, nothing more.
///
/// Linux `virtio_net_hdr_to_skb` sets `CHECKSUM_PARTIAL` and nothing else
/// (`skb_partial_csum_set`); the validity Linux reads from it
/// (`skb_csum_unnecessary`: the offloaded checksum and every one before it) is
/// the `Partial` state's own claim here. No `DATA_VALID` is added: a virtio
/// driver cannot send one (the spec forbids it on transmit), and it would
/// outlive the fill, where Linux's `skb_checksum_help` leaves `CHECKSUM_NONE`.
/// A device's `NEEDS_CSUM | DATA_VALID` gives the same: virtio_net's receive
/// path sets `CHECKSUM_UNNECESSARY` first, then `skb_partial_csum_set` makes
/// it `CHECKSUM_PARTIAL`.
fn needs_csum_partial(start: usize, offset: usize) -> CsumMeta {
    let state = CsumState::Partial {
        start,
        offset,
        kind: PartialKind::Inet,
    };
    CsumMeta::new(state, CsumFlags::CSUM_BLANK).unwrap_or(CsumMeta::NONE)
}

/// Checks `NEEDS_CSUM` offsets against the parsed packet (Linux's own rules,
/// [`linux_rules::check_csum_offsets`], already held); returns the seed outcome.
fn check_partial(
    frame: &[u8],
    parsed: &Result<Layers, wire::ParseError>,
    start: usize,
    offset: usize,
    seed: SeedPolicy,
) -> Result<SeedCheck, BoundaryError> {
    let Ok(l) = parsed else {
        return Ok(SeedCheck::Skipped(SeedSkip::Unparsed));
    };
    if start >= l.end {
        return Err(BoundaryError::out_of_packet(
            MetaField::VirtioCsumStart,
            start,
            l.end,
        ));
    }
    if start + offset + 2 > l.end {
        return Err(BoundaryError::out_of_packet(
            MetaField::VirtioCsumOffset,
            start + offset + 2,
            l.end,
        ));
    }
    if start < l.l4 {
        return Err(BoundaryError::forbidden(
            MetaField::VirtioCsumStart,
            Rule::StartBeforeTransport,
        ));
    }
    // Stricter than Linux: a fill would sum the padding in.
    check_padding(frame, l, PartialKind::Inet)?;
    if start > l.l4 {
        return Ok(SeedCheck::Skipped(SeedSkip::StartNotAtTransport));
    }
    if l.fragment.is_fragment {
        return Err(BoundaryError::forbidden(
            MetaField::VirtioCsumStart,
            Rule::GsoOnFragment,
        ));
    }
    let expected = match transport_csum_field(l.transport) {
        Some((off, PartialKind::Inet)) => off,
        Some((_, PartialKind::Crc32c)) => {
            return Err(BoundaryError::forbidden(
                MetaField::VirtioCsumOffset,
                Rule::SctpNeedsCrc32c,
            ));
        }
        None => return Ok(SeedCheck::Skipped(SeedSkip::UnknownTransport)),
    };
    if offset != expected {
        return Err(BoundaryError::mismatch(
            MetaField::VirtioCsumOffset,
            expected as u64,
            offset as u64,
        ));
    }
    check_udp_length(frame, l)?;
    match seed {
        SeedPolicy::Verify => check_seed(frame, l, start, offset),
        SeedPolicy::Trust => Ok(SeedCheck::Skipped(SeedSkip::PolicyTrust)),
    }
}

fn check_gso(
    hdr: &VirtioNetHdr,
    kind: GsoKind,
    ecn: bool,
    parsed: &Result<Layers, wire::ParseError>,
    policy: &VirtioPolicy,
    rsc: bool,
) -> Result<GsoOutcome, BoundaryError> {
    let l = match parsed {
        Ok(l) => l,
        Err(e) => return Err(BoundaryError::from(*e)),
    };
    if l.fragment.is_fragment {
        return Err(BoundaryError::forbidden(
            MetaField::VirtioGsoType,
            Rule::GsoOnFragment,
        ));
    }
    if !kind.matches(l) {
        let expected = GsoKind::for_layers(l).map_or(0, GsoKind::virtio_type);
        return Err(BoundaryError::mismatch(
            MetaField::VirtioGsoType,
            expected as u64,
            hdr.gso_type as u64,
        ));
    }
    if !rsc && hdr.csum_start as usize != l.l4 {
        return Err(BoundaryError::forbidden(
            MetaField::VirtioCsumStart,
            Rule::GsoStartNotTransport,
        ));
    }
    if policy.hdr_len == HdrLenRule::Exact && hdr.hdr_len as usize != l.payload {
        return Err(BoundaryError::mismatch(
            MetaField::VirtioHdrLen,
            l.payload as u64,
            hdr.hdr_len as u64,
        ));
    }
    let gso_size = hdr.gso_size as usize;
    let payload = match kind {
        GsoKind::Ufo => l.end - l.l4,
        _ => l.payload_len(),
    };
    if rsc && kind == GsoKind::UdpL4 {
        // The offsets hold counts: Linux's count starts at the parsed transport.
        linux_rules::check_udp_segments(l.l4, hdr.gso_size, l.end)?;
    }
    if payload <= gso_size {
        return Ok(GsoOutcome::FitsOneSegment);
    }
    Ok(GsoOutcome::Segment(GsoParams {
        kind,
        ecn,
        gso_size: hdr.gso_size,
        hdr_len: l.payload,
        segs: payload.div_ceil(gso_size),
    }))
}

impl VirtioNetHdr {
    /// Checks this header against its frame and returns the packet's checksum
    /// metadata and segmentation (Linux `virtio_net_hdr_to_skb`).
    ///
    /// Refused with a typed error naming the field, nothing changed. Linux's
    /// rules, under every policy, parsed frame or not (`linux_rules`): an
    /// Ethernet frame under 14 bytes or a raw IP frame that is not IPv4/IPv6
    /// (tun); `DATA_VALID | UDP_TUNNEL_CSUM` from a device; an unknown GSO
    /// type (tunnel bits included), `gso_size` 0 or `GSO_BY_FRAGS`; `csum_start + max(thlen, csum_offset + 2)` beyond the
    /// frame; `csum_start` past 65470 (`skb_partial_csum_set` with tun's
    /// headroom); `csum_start` less than `nh_min_len` (20, 40 for `TCPV6`) past
    /// the network header; `csum_offset` other than 16 for TCP GSO or 6 for
    /// `UDP_L4`; `UDP_L4` with ECN or more than 128 segments of the frame;
    /// `hdr_len` (raised to `csum_start + csum_offset + 2`) beyond the frame,
    /// or non-zero below 14 from a driver on Ethernet (tap).
    ///
    /// Stricter than Linux, on purpose (each one a named rule): `nh_min_len`
    /// counted from the network header, not the frame start; `RSC_INFO` from a
    /// driver or not negotiated; ECN on UFO; GSO without `NEEDS_CSUM` (the spec's
    /// MUST; Linux probes with the flow dissector); and, on a parsed packet,
    /// `csum_start` or `csum_start + csum_offset + 2` beyond the IP length (so
    /// Ethernet padding is never summed); `csum_start` before the transport
    /// header; `csum_offset` other than the parsed protocol's (16 TCP, 6 UDP);
    /// a UDP length other than the IP payload length (the filled sum would
    /// cover the wrong bytes: found by the `virtio_hdr` fuzz target); a field
    /// that is not the pseudo-header seed (policy `Verify`); a GSO type that
    /// does not match the parsed L3/L4 (the protocol-mismatch checks syzbot
    /// drove into Linux); GSO on a fragment; GSO with `csum_start` not at the
    /// transport header; GSO on a frame that does not parse.
    pub fn to_meta(&self, frame: &[u8], policy: &VirtioPolicy) -> Result<Inbound, BoundaryError> {
        let flags = self.flags;
        let needs_csum = flags.contains(VirtioFlags::NEEDS_CSUM);
        let rsc = flags.contains(VirtioFlags::RSC_INFO);
        linux_rules::check_frame(frame, policy.link)?;
        linux_rules::check_tunnel_csum(flags, policy.direction)?;
        if rsc {
            if policy.direction == Direction::FromDriver {
                return Err(BoundaryError::forbidden(
                    MetaField::VirtioFlags,
                    Rule::RscInfoOnTransmit,
                ));
            }
            if !policy.rsc_ext {
                return Err(BoundaryError::forbidden(
                    MetaField::VirtioFlags,
                    Rule::RscInfoNotNegotiated,
                ));
            }
        }
        if flags.contains(VirtioFlags::DATA_VALID)
            && policy.direction == Direction::FromDriver
            && policy.data_valid == DataValidPolicy::Refuse
        {
            return Err(BoundaryError::forbidden(
                MetaField::VirtioFlags,
                Rule::DataValidOnTransmit,
            ));
        }
        // GSO header fields first, as Linux does, before any packet work.
        let gso = if self.gso_type == gso_type::NONE {
            None
        } else {
            let kind = GsoKind::from_virtio(self.gso_type & !gso_type::ECN).ok_or(
                BoundaryError::unsupported(MetaField::VirtioGsoType, self.gso_type as u64),
            )?;
            let ecn = self.gso_type & gso_type::ECN != 0;
            if ecn && matches!(kind, GsoKind::Ufo | GsoKind::UdpL4) {
                return Err(BoundaryError::forbidden(
                    MetaField::VirtioGsoType,
                    Rule::EcnWithUdp,
                ));
            }
            if self.gso_size == 0 {
                return Err(BoundaryError::new(
                    MetaField::VirtioGsoSize,
                    MetaErrorKind::Zero,
                ));
            }
            if self.gso_size == GSO_BY_FRAGS {
                return Err(BoundaryError::new(
                    MetaField::VirtioGsoSize,
                    MetaErrorKind::TooLarge {
                        value: GSO_BY_FRAGS as usize,
                        max: GSO_BY_FRAGS as usize - 1,
                    },
                ));
            }
            if !needs_csum {
                return Err(BoundaryError::forbidden(
                    MetaField::VirtioFlags,
                    Rule::GsoWithoutNeedsCsum,
                ));
            }
            Some((kind, ecn))
        };
        if needs_csum && !rsc {
            let kind = gso.map(|(kind, _)| kind);
            linux_rules::check_csum_offsets(self, frame, policy.link, kind)?;
            if kind == Some(GsoKind::UdpL4) {
                linux_rules::check_udp_segments(
                    self.csum_start as usize,
                    self.gso_size,
                    frame.len(),
                )?;
            }
        }
        linux_rules::check_hdr_len(self, frame.len(), policy)?;
        let parsed = wire::parse(frame, policy.link);

        let mut seed = None;
        let mut rsc_info = None;
        let meta = if rsc {
            rsc_info = Some(RscInfo {
                segments: self.csum_start,
                dup_acks: self.csum_offset,
            });
            if needs_csum {
                // The offsets hold counts: find the checksum by parsing.
                let setup = checksum_setup(frame, policy.link)?;
                seed = Some(match policy.seed {
                    SeedPolicy::Verify => {
                        check_seed(frame, &setup.layers, setup.start, setup.offset)?
                    }
                    SeedPolicy::Trust => SeedCheck::Skipped(SeedSkip::PolicyTrust),
                });
                needs_csum_partial(setup.start, setup.offset)
            } else if flags.contains(VirtioFlags::DATA_VALID) {
                data_valid_meta(policy.data_valid)?
            } else {
                CsumMeta::NONE
            }
        } else if needs_csum {
            let start = self.csum_start as usize;
            let offset = self.csum_offset as usize;
            seed = Some(check_partial(frame, &parsed, start, offset, policy.seed)?);
            needs_csum_partial(start, offset)
        } else if flags.contains(VirtioFlags::DATA_VALID) {
            data_valid_meta(policy.data_valid)?
        } else {
            CsumMeta::NONE
        };

        let gso = match gso {
            None => GsoOutcome::NotGso,
            Some((kind, ecn)) => check_gso(self, kind, ecn, &parsed, policy, rsc)?,
        };
        Ok(Inbound {
            meta,
            gso,
            seed,
            rsc: rsc_info,
            layers: parsed.ok(),
        })
    }
}
