//! Why a segment was not merged, or why a super-packet left the engine.
//!
//! One value per rule, each with a stable printable name (used as a CSV column
//! value by the replay tool): Linux folds all of these into one `flush` bit of
//! `NAPI_GRO_CB(skb)`; here every refusal names its rule.

use core::fmt;

/// The rule that stopped a merge, completed a super-packet or passed a packet up.
///
/// Models the many causes Linux ORs into `NAPI_GRO_CB(skb)->flush` and
/// `same_flow` in `inet_gro_receive`, `ipv6_gro_receive`, `tcp_gro_receive`,
/// `udp_gro_receive_segment` and `skb_gro_receive`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[derive(zerocopy::FromZeros)]
#[repr(u8)]
pub enum FlushReason {
    /// A TCP flag other than FIN and PSH differs from the held packet's
    /// (`tcp_flag_word` compare in `tcp_gro_receive`).
    FlagsDiffer,
    /// CWR differs from the held packet's (mainline after the AccECN change:
    /// CWR must be equal; a run of CWR segments merges, `SKB_GSO_TCP_ACCECN`).
    Cwr,
    /// The ACK number differs.
    AckDiffer,
    /// The advertised window differs (part of `tcp_flag_word`).
    WindowDiffer,
    /// The TCP header length or the option bytes differ.
    OptionsDiffer,
    /// The sequence number does not continue the held payload.
    SeqGap,
    /// The IP ID does not increase by one per merged segment (incrementing mode).
    IpIdNotIncrementing,
    /// The IP ID changed in a flow whose second segment set the fixed-ID mode.
    IpIdNotFixed,
    /// TTL / hop limit differs.
    TtlDiffer,
    /// TOS / traffic class (ECN bits included) differs.
    TosDiffer,
    /// The IPv4 DF bit differs.
    DfDiffer,
    /// IPv6 extension headers are not byte-identical to the held packet's.
    ExtHeadersDiffer,
    /// The segment is longer than the held packet's segment size (`gso_size`).
    MssExceeded,
    /// The merged IP datagram would exceed the configured maximum (`gro_max_size`).
    Oversize,
    /// The super-packet reached the segment limit.
    TooManySegs,
    /// The segment's L4 (or outer UDP / GRE) checksum is bad.
    BadChecksum,
    /// The IPv4 header checksum is bad (`ip_fast_csum` in `inet_gro_receive`).
    BadIpChecksum,
    /// Nothing vouches for the checksum and software verification is off.
    ChecksumUnknown,
    /// The flow table was full: the oldest flow was flushed to make room.
    TableFull,
    /// The flow was held longer than the configured age.
    Aged,
    /// The caller flushed everything at the end of its poll (`napi_gro_flush`).
    PollEnd,
    /// The last merged segment carried PSH.
    Psh,
    /// The last merged segment carried FIN.
    Fin,
    /// The segment carries URG.
    Urg,
    /// The segment carries RST.
    Rst,
    /// The segment carries SYN.
    Syn,
    /// The last merged segment was shorter than the segment size.
    ShortSegment,
    /// No payload (a pure ACK, or an empty UDP datagram).
    PureAck,
    /// The IPv4 header has options (IHL > 5): never merged.
    IpOptions,
    /// An IP fragment (MF, an offset, or an IPv6 fragment header).
    Fragment,
    /// The frame and the IP / UDP length fields disagree (beyond Ethernet padding).
    LengthMismatch,
    /// Not a GRO candidate (not IP, not TCP/UDP, an unsupported layer).
    NotCandidate,
    /// Headers are truncated or malformed.
    Malformed,
    /// The headers are longer than the engine keeps per flow.
    HeaderTooLong,
    /// This kind of GRO is switched off in the configuration.
    Disabled,
    /// Plain UDP with a zero checksum: UDP GRO needs one (`udp_gro_receive_segment`).
    UdpNoChecksum,
    /// Strict tunnel policy (2015 gate): the inner checksum would need computing.
    TunnelChecksumStrict,
    /// The caller changed the enabled GRO kinds: held flows were flushed.
    ConfigChange,
}

impl FlushReason {
    /// Every value, in declaration order (for tables and tests).
    pub const ALL: [FlushReason; 38] = [
        FlushReason::FlagsDiffer,
        FlushReason::Cwr,
        FlushReason::AckDiffer,
        FlushReason::WindowDiffer,
        FlushReason::OptionsDiffer,
        FlushReason::SeqGap,
        FlushReason::IpIdNotIncrementing,
        FlushReason::IpIdNotFixed,
        FlushReason::TtlDiffer,
        FlushReason::TosDiffer,
        FlushReason::DfDiffer,
        FlushReason::ExtHeadersDiffer,
        FlushReason::MssExceeded,
        FlushReason::Oversize,
        FlushReason::TooManySegs,
        FlushReason::BadChecksum,
        FlushReason::BadIpChecksum,
        FlushReason::ChecksumUnknown,
        FlushReason::TableFull,
        FlushReason::Aged,
        FlushReason::PollEnd,
        FlushReason::Psh,
        FlushReason::Fin,
        FlushReason::Urg,
        FlushReason::Rst,
        FlushReason::Syn,
        FlushReason::ShortSegment,
        FlushReason::PureAck,
        FlushReason::IpOptions,
        FlushReason::Fragment,
        FlushReason::LengthMismatch,
        FlushReason::NotCandidate,
        FlushReason::Malformed,
        FlushReason::HeaderTooLong,
        FlushReason::Disabled,
        FlushReason::UdpNoChecksum,
        FlushReason::TunnelChecksumStrict,
        FlushReason::ConfigChange,
    ];

    /// The stable snake_case name printed by `Display` (CSV-safe).
    pub const fn name(self) -> &'static str {
        match self {
            FlushReason::FlagsDiffer => "flags_differ",
            FlushReason::Cwr => "cwr",
            FlushReason::AckDiffer => "ack_differ",
            FlushReason::WindowDiffer => "window_differ",
            FlushReason::OptionsDiffer => "options_differ",
            FlushReason::SeqGap => "seq_gap",
            FlushReason::IpIdNotIncrementing => "ip_id_not_incrementing",
            FlushReason::IpIdNotFixed => "ip_id_not_fixed",
            FlushReason::TtlDiffer => "ttl_differ",
            FlushReason::TosDiffer => "tos_differ",
            FlushReason::DfDiffer => "df_differ",
            FlushReason::ExtHeadersDiffer => "ext_headers_differ",
            FlushReason::MssExceeded => "mss_exceeded",
            FlushReason::Oversize => "oversize",
            FlushReason::TooManySegs => "too_many_segs",
            FlushReason::BadChecksum => "bad_checksum",
            FlushReason::BadIpChecksum => "bad_ip_checksum",
            FlushReason::ChecksumUnknown => "checksum_unknown",
            FlushReason::TableFull => "table_full",
            FlushReason::Aged => "aged",
            FlushReason::PollEnd => "poll_end",
            FlushReason::Psh => "psh",
            FlushReason::Fin => "fin",
            FlushReason::Urg => "urg",
            FlushReason::Rst => "rst",
            FlushReason::Syn => "syn",
            FlushReason::ShortSegment => "short_segment",
            FlushReason::PureAck => "pure_ack",
            FlushReason::IpOptions => "ip_options",
            FlushReason::Fragment => "fragment",
            FlushReason::LengthMismatch => "length_mismatch",
            FlushReason::NotCandidate => "not_candidate",
            FlushReason::Malformed => "malformed",
            FlushReason::HeaderTooLong => "header_too_long",
            FlushReason::Disabled => "disabled",
            FlushReason::UdpNoChecksum => "udp_no_checksum",
            FlushReason::TunnelChecksumStrict => "tunnel_checksum_strict",
            FlushReason::ConfigChange => "config_change",
        }
    }
}

impl fmt::Display for FlushReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
