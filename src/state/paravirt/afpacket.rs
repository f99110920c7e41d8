//! AF_PACKET / TPACKET status bits (`linux/if_packet.h`) as set by
//! `tpacket_rcv` / `packet_recvmsg`, both ways.
//!
//! `TP_STATUS_CSUMNOTREADY`: a locally generated `Partial` packet was captured
//! before its checksum was filled; a capture tool must finish it (or skip the
//! check), never call it bad. `TP_STATUS_CSUM_VALID`: the kernel knows the
//! transport checksum is good (`skb_csum_unnecessary`). Older kernels also set
//! it for any `CHECKSUM_COMPLETE`, which verifies nothing; current ones do not,
//! and neither does this module unless the sum was verified (`CSUM_VALID`).

use crate::state::{CsumFlags, CsumLevel, CsumMeta, CsumState};
use crate::wire::LinkType;

use super::peer::{Claim, claim};
use super::setup::checksum_setup;

bitflags::bitflags! {
    /// `tp_status` of an RX ring frame or `tpacket_auxdata`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct TpStatus: u32 {
        /// `TP_STATUS_USER`.
        const USER = 1 << 0;
        /// `TP_STATUS_COPY`.
        const COPY = 1 << 1;
        /// `TP_STATUS_LOSING`.
        const LOSING = 1 << 2;
        /// `TP_STATUS_CSUMNOTREADY`.
        const CSUMNOTREADY = 1 << 3;
        /// `TP_STATUS_VLAN_VALID`.
        const VLAN_VALID = 1 << 4;
        /// `TP_STATUS_BLK_TMO`.
        const BLK_TMO = 1 << 5;
        /// `TP_STATUS_VLAN_TPID_VALID`.
        const VLAN_TPID_VALID = 1 << 6;
        /// `TP_STATUS_CSUM_VALID`.
        const CSUM_VALID = 1 << 7;
        /// `TP_STATUS_GSO_TCP`.
        const GSO_TCP = 1 << 8;
    }
}

/// Which way the captured packet was going (`skb->pkt_type == PACKET_OUTGOING`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureDirection {
    /// Received by this host.
    Incoming,
    /// Sent by this host (never `CSUM_VALID`: nothing was verified).
    Outgoing,
}

/// Whether the captured packet is a TCP GSO super-packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureGso {
    /// Not GSO, or not TCP.
    No,
    /// TCP GSO (`TP_STATUS_GSO_TCP`).
    Tcp,
}

/// The checksum bits `tpacket_rcv` sets for a packet with this metadata.
pub fn meta_to_status(meta: &CsumMeta, dir: CaptureDirection, gso: CaptureGso) -> TpStatus {
    let mut s = TpStatus::empty();
    match claim(meta) {
        Claim::Partial { .. } | Claim::BlankWithoutOffsets => s |= TpStatus::CSUMNOTREADY,
        Claim::Level(_) | Claim::Verified if dir == CaptureDirection::Incoming => {
            s |= TpStatus::CSUM_VALID
        }
        _ => {}
    }
    if gso == CaptureGso::Tcp {
        s |= TpStatus::GSO_TCP;
    }
    s
}

/// What a capture consumer may conclude from the status bits of one frame.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub enum Captured {
    /// `CSUMNOTREADY`: unfinished; here is the `Partial` found by parsing (plain
    /// TCP/UDP, field holding the pseudo-header seed), so the tool can finish
    /// it instead of reporting a bad checksum.
    NotReady(CsumMeta),
    /// `CSUMNOTREADY` on a packet whose checksum cannot be located, or whose
    /// field is not the seed (a snapped or altered capture): do not check it.
    NotReadyUnlocated,
    /// `CSUM_VALID`: `Unnecessary` level 0.
    Valid(CsumMeta),
    /// Nothing known: verify in software.
    Unknown,
}

/// Status bits of a captured frame to what may be claimed about it.
pub fn status_to_meta(status: TpStatus, frame: &[u8], link: LinkType) -> Captured {
    if status.contains(TpStatus::CSUMNOTREADY) {
        let located = checksum_setup(frame, link)
            .ok()
            .filter(|s| super::setup::check_seed(frame, &s.layers, s.start, s.offset).is_ok())
            .filter(|s| {
                super::peer::check_padding(frame, &s.layers, crate::state::PartialKind::Inet)
                    .is_ok()
            });
        return match located {
            Some(s) => Captured::NotReady(
                CsumMeta::new(
                    CsumState::Partial {
                        start: s.start,
                        offset: s.offset,
                        kind: crate::state::PartialKind::Inet,
                    },
                    CsumFlags::CSUM_BLANK.union(CsumFlags::DATA_VALID),
                )
                .unwrap_or(CsumMeta::NONE),
            ),
            None => Captured::NotReadyUnlocated,
        };
    }
    if status.contains(TpStatus::CSUM_VALID) {
        return Captured::Valid(CsumMeta::from_state(CsumState::Unnecessary {
            level: CsumLevel::L0,
        }));
    }
    Captured::Unknown
}
