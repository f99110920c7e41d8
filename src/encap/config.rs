//! `EncapConfig`: which UDP ports carry which tunnel, how deep tunnels may nest,
//! and where IPv6 zero-checksum mode (RFC 6935 / 6936) is allowed.

use crate::wire::consts::port;

/// Most UDP ports a configuration lists for one purpose (no allocation).
pub const MAX_PORTS: usize = 4;

/// The deepest nesting a configuration can ask for ([`EncapConfig::max_depth`]).
pub const MAX_DEPTH: usize = 8;

/// Where IPv6 UDP zero-checksum mode applies to the ports in
/// [`EncapConfig::ipv6_zero_csum_ports`] (RFC 6935 section 5, RFC 6936 section 5).
///
/// RFC 6936 forbids it as a default, so the default is [`ZeroCsumPolicy::Reject`]
/// (RFC 8200 8.1: a zero IPv6 UDP checksum is discarded), like Linux's
/// `udp6zerocsumrx` / `udp6zerocsumtx` tunnel options, off by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ZeroCsumPolicy {
    /// Never: receive drops a zero IPv6 UDP checksum, transmit refuses to send one.
    #[default]
    Reject,
    /// Accept a zero checksum on receive only (Linux `udp6zerocsumrx`).
    Receive,
    /// Send a zero checksum only (Linux `udp6zerocsumtx`).
    Transmit,
    /// Both directions.
    Both,
}

impl ZeroCsumPolicy {
    /// True when a zero checksum may be received.
    pub const fn receive(self) -> bool {
        matches!(self, ZeroCsumPolicy::Receive | ZeroCsumPolicy::Both)
    }

    /// True when a zero checksum may be sent.
    pub const fn transmit(self) -> bool {
        matches!(self, ZeroCsumPolicy::Transmit | ZeroCsumPolicy::Both)
    }
}

/// Tunnel configuration shared by decapsulation and encapsulation.
///
/// Port lists are fixed arrays where 0 marks an unused slot (port 0 is never a
/// valid destination), so the value is `Copy` and needs no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EncapConfig {
    /// UDP destination ports that carry VXLAN (RFC 7348; IANA 4789, Linux also 8472).
    pub vxlan_ports: [u16; MAX_PORTS],
    /// UDP destination port that carries GENEVE (RFC 8926; IANA 6081); 0 disables it.
    pub geneve_port: u16,
    /// Most tunnel layers [`decap_nested`](super::decap_nested) removes (default 2);
    /// a packet with more is refused. Capped at [`MAX_DEPTH`].
    pub max_depth: u8,
    /// UDP ports on which IPv6 zero-checksum mode may be used (0 = unused slot).
    pub ipv6_zero_csum_ports: [u16; MAX_PORTS],
    /// In which direction zero-checksum mode applies on those ports.
    pub ipv6_zero_csum_policy: ZeroCsumPolicy,
    /// Accept GENEVE packets with the C bit (critical options present). The
    /// caller then owns the duty to understand the options (RFC 8926 3.4 says
    /// an endpoint that does not MUST drop them); off by default.
    pub geneve_accept_critical: bool,
}

impl EncapConfig {
    /// IANA ports (VXLAN 4789, GENEVE 6081), depth 2, no IPv6 zero-checksum mode.
    pub const DEFAULT: EncapConfig = EncapConfig {
        vxlan_ports: [port::VXLAN, 0, 0, 0],
        geneve_port: port::GENEVE,
        max_depth: 2,
        ipv6_zero_csum_ports: [0; MAX_PORTS],
        ipv6_zero_csum_policy: ZeroCsumPolicy::Reject,
        geneve_accept_critical: false,
    };

    /// True when `dst_port` is one of the VXLAN ports.
    pub fn is_vxlan_port(&self, dst_port: u16) -> bool {
        dst_port != 0 && self.vxlan_ports.contains(&dst_port)
    }

    /// True when `dst_port` is the GENEVE port.
    pub const fn is_geneve_port(&self, dst_port: u16) -> bool {
        dst_port != 0 && self.geneve_port == dst_port
    }

    /// True when a zero IPv6 UDP checksum may be received on `dst_port`.
    pub fn ipv6_zero_rx(&self, dst_port: u16) -> bool {
        self.ipv6_zero_csum_policy.receive()
            && dst_port != 0
            && self.ipv6_zero_csum_ports.contains(&dst_port)
    }

    /// True when a zero IPv6 UDP checksum may be sent to `dst_port`.
    pub fn ipv6_zero_tx(&self, dst_port: u16) -> bool {
        self.ipv6_zero_csum_policy.transmit()
            && dst_port != 0
            && self.ipv6_zero_csum_ports.contains(&dst_port)
    }

    /// The nesting limit actually applied (`max_depth` capped at [`MAX_DEPTH`]).
    pub const fn depth_limit(&self) -> usize {
        let d = self.max_depth as usize;
        if d > MAX_DEPTH { MAX_DEPTH } else { d }
    }
}

impl Default for EncapConfig {
    fn default() -> Self {
        EncapConfig::DEFAULT
    }
}
