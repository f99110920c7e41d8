//! Protocol numbers the parser and the tunnels match on, named once.

/// EtherType values.
pub mod ethertype {
    /// IPv4.
    pub const IPV4: u16 = 0x0800;
    /// IPv6.
    pub const IPV6: u16 = 0x86DD;
    /// 802.1Q customer VLAN tag.
    pub const VLAN: u16 = 0x8100;
    /// 802.1ad service VLAN tag (QinQ outer).
    pub const QINQ: u16 = 0x88A8;
    /// Transparent Ethernet bridging (GRE carrying Ethernet, GENEVE protocol type).
    pub const TEB: u16 = 0x6558;
}

/// IP protocol numbers (IPv4 protocol, IPv6 next header).
pub mod ipproto {
    /// IPv6 hop-by-hop options.
    pub const HOPOPTS: u8 = 0;
    /// ICMP.
    pub const ICMP: u8 = 1;
    /// IPv4 in IP.
    pub const IPIP: u8 = 4;
    /// TCP.
    pub const TCP: u8 = 6;
    /// UDP.
    pub const UDP: u8 = 17;
    /// IPv6 in IP.
    pub const IPV6: u8 = 41;
    /// IPv6 routing header.
    pub const ROUTING: u8 = 43;
    /// IPv6 fragment header.
    pub const FRAGMENT: u8 = 44;
    /// GRE.
    pub const GRE: u8 = 47;
    /// ESP (ends parsing: encrypted).
    pub const ESP: u8 = 50;
    /// Authentication header.
    pub const AH: u8 = 51;
    /// ICMPv6.
    pub const ICMPV6: u8 = 58;
    /// No next header.
    pub const NONE: u8 = 59;
    /// IPv6 destination options.
    pub const DSTOPTS: u8 = 60;
    /// SCTP.
    pub const SCTP: u8 = 132;
}

/// Well-known UDP ports of tunnels.
pub mod port {
    /// VXLAN (RFC 7348).
    pub const VXLAN: u16 = 4789;
    /// GENEVE (RFC 8926).
    pub const GENEVE: u16 = 6081;
    /// GRE-in-UDP (RFC 8086).
    pub const GRE_UDP: u16 = 4754;
}
