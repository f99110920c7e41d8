//! `parse`: walks Ethernet -> VLAN* -> IP -> extension headers -> L4 over the
//! header views and returns the layer offsets. Does not descend into tunnels
//! (`encap` does).
//!
//! Acceptance models the kernel receive path: `eth_type_trans()` and VLAN
//! untagging, `ip_rcv_core()` / `ipv6_rcv()` length checks, the extension
//! header walk of `ipv6_skip_exthdr()` (with `ipv6_hop_jumbo()` for the Jumbo
//! Payload option), and each transport's header-length check.

use super::consts::{ethertype, ipproto};
use super::error::{ErrorKind, Field, Layer, ParseError};
use super::ethernet::{EthernetHeader, VlanTag};
use super::gre::GreHeader;
use super::icmp::IcmpHeader;
use super::ipv4::{self, Ipv4Header};
use super::ipv6::{self, Ipv6Header};
use super::ipv6_ext::{self, Ipv6ExtHeader};
use super::layers::{Fragment, Layers, LinkType, Net, Transport};
use super::sctp::SctpHeader;
use super::tcp::TcpHeader;
use super::udp::UdpHeader;

/// Most IPv6 extension headers walked before giving up.
pub const MAX_EXT_HEADERS: usize = 8;
/// Most VLAN tags accepted (802.1ad outer + 802.1Q inner).
pub const MAX_VLAN_TAGS: usize = 2;

/// The bytes from `at` on (empty past the end, so the view reports truncation).
fn from(b: &[u8], at: usize) -> &[u8] {
    b.get(at..).unwrap_or(&[])
}

/// Parses one packet's headers and returns where each layer starts.
///
/// Lengths come from the IP header: `end` is where the datagram ends, and any
/// bytes after it (Ethernet minimum-frame padding) are not part of the packet.
pub fn parse(bytes: &[u8], link: LinkType) -> Result<Layers, ParseError> {
    let (l3, ethertype, vlan_count, vlan_tci) = match link {
        LinkType::Ethernet => parse_l2(bytes)?,
        LinkType::RawIp => {
            let first = bytes
                .first()
                .ok_or(ParseError::truncated(Layer::Ipv4, 0, 1, 0))?;
            let et = match first >> 4 {
                4 => ethertype::IPV4,
                6 => ethertype::IPV6,
                other => {
                    return Err(ParseError::new(
                        Layer::Ipv4,
                        Field::Version,
                        ErrorKind::Unsupported {
                            value: other as u32,
                        },
                        0,
                    ));
                }
            };
            (0, et, 0, [0; 2])
        }
    };
    parse_ip_at(bytes, l3, ethertype, link, vlan_count, vlan_tci)
}

/// Parses an IP packet that starts at `l3` (used by `parse` and by tunnel decap).
pub fn parse_ip_at(
    bytes: &[u8],
    l3: usize,
    ethertype: u16,
    link: LinkType,
    vlan_count: u8,
    vlan_tci: [u16; 2],
) -> Result<Layers, ParseError> {
    let l2 = if link == LinkType::Ethernet { 0 } else { l3 };
    let mut layers = match ethertype {
        ethertype::IPV4 => parse_ipv4(bytes, l3)?,
        ethertype::IPV6 => parse_ipv6(bytes, l3)?,
        other => {
            return Err(ParseError::new(
                Layer::Ethernet,
                Field::EtherType,
                ErrorKind::Unsupported {
                    value: other as u32,
                },
                l2,
            ));
        }
    };
    layers.link = link;
    layers.l2 = l2;
    layers.vlan_count = vlan_count;
    layers.vlan_tci = vlan_tci;
    layers.payload = parse_l4(bytes, &layers)?;
    Ok(layers)
}

/// Ethernet and VLAN tags: returns (l3 offset, EtherType, tag count, TCIs).
fn parse_l2(b: &[u8]) -> Result<(usize, u16, u8, [u16; 2]), ParseError> {
    let eth = EthernetHeader::new_checked(b)?;
    let mut et = eth.ethertype();
    let mut at = eth.header_len();
    let mut count = 0usize;
    let mut tci = [0u16; MAX_VLAN_TAGS];
    while et == ethertype::VLAN || et == ethertype::QINQ {
        let Some(slot) = tci.get_mut(count) else {
            return Err(ParseError::new(
                Layer::Vlan,
                Field::Nesting,
                ErrorKind::TooDeep {
                    limit: MAX_VLAN_TAGS,
                },
                at,
            ));
        };
        let tag = VlanTag::new_checked(from(b, at)).map_err(|e| e.at(at))?;
        *slot = tag.tci();
        et = tag.ethertype();
        count += 1;
        at += tag.header_len();
    }
    Ok((at, et, count as u8, tci))
}

fn blank(l3: usize, net: Net) -> Layers {
    Layers {
        link: LinkType::RawIp,
        l2: l3,
        vlan_count: 0,
        vlan_tci: [0; 2],
        l3,
        net,
        l4: l3,
        ip_proto: 0,
        transport: Transport::Other(0),
        payload: l3,
        end: l3,
        fragment: Fragment::default(),
        pseudo_src: l3,
        pseudo_dst: l3,
    }
}

/// IPv4 with `ip_rcv_core()`'s checks; malformed options are refused as
/// `ip_options_compile()` would.
fn parse_ipv4(b: &[u8], l3: usize) -> Result<Layers, ParseError> {
    let ip = Ipv4Header::new_checked(from(b, l3)).map_err(|e| e.at(l3))?;
    ip.validate_options().map_err(|e| e.at(l3))?;
    let mut l = blank(l3, Net::Ipv4);
    l.l4 = l3 + ip.header_len();
    l.ip_proto = ip.protocol();
    l.transport = Transport::from_proto(ip.protocol());
    l.end = l3 + ip.total_len() as usize;
    l.fragment = Fragment {
        is_fragment: ip.is_fragment(),
        offset: ip.frag_offset(),
        more: ip.more_fragments(),
        has_header: false,
    };
    l.pseudo_src = l3 + ipv4::SRC_OFFSET;
    l.pseudo_dst = l3 + ipv4::DST_OFFSET;
    Ok(l)
}

/// The IPv6 datagram's end while the walk goes on: known from the payload
/// length, or waiting for a Jumbo Payload option (payload length 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum V6End {
    Known(usize),
    AwaitingJumbo,
}

fn parse_ipv6(b: &[u8], l3: usize) -> Result<Layers, ParseError> {
    let ip = Ipv6Header::new_checked(from(b, l3)).map_err(|e| e.at(l3))?;
    let payload_len = ip.payload_len() as usize;
    let first = l3 + ipv6::HEADER_LEN;
    let mut l = blank(l3, Net::Ipv6);
    l.pseudo_src = l3 + ipv6::SRC_OFFSET;
    l.pseudo_dst = l3 + ipv6::DST_OFFSET;
    let mut next = ip.next_header();
    // Payload length 0 announces a jumbogram only with a Hop-by-Hop header
    // (RFC 2675, Linux `ipv6_rcv`); otherwise the datagram is empty.
    let mut end = match payload_len {
        0 if next == ipproto::HOPOPTS => V6End::AwaitingJumbo,
        n => V6End::Known(first + n),
    };
    let mut at = first;
    let mut walked = 0;
    while ipv6_ext::is_ext_header(next) {
        if walked >= MAX_EXT_HEADERS {
            return Err(ParseError::new(
                Layer::Ipv6Ext,
                Field::Nesting,
                ErrorKind::TooDeep {
                    limit: MAX_EXT_HEADERS,
                },
                at,
            ));
        }
        if next == ipproto::HOPOPTS && at != first {
            // Hop-by-hop is only valid right after the fixed header (RFC 8200 4.3).
            return Err(ParseError::new(
                Layer::Ipv6Ext,
                Field::ExtHeader,
                ErrorKind::Unsupported { value: next as u32 },
                at,
            ));
        }
        walked += 1;
        let limit = match end {
            V6End::Known(e) => e,
            V6End::AwaitingJumbo => b.len(),
        };
        let area = b.get(at..limit).unwrap_or(&[]);
        let ext = Ipv6ExtHeader::new_checked(area, next).map_err(|e| e.at(at))?;
        match next {
            ipproto::FRAGMENT => {
                if let Some(f) = ext.fragment() {
                    l.fragment = Fragment {
                        is_fragment: !f.is_atomic(),
                        offset: f.offset(),
                        more: f.more(),
                        has_header: true,
                    };
                }
            }
            ipproto::ROUTING => {
                if let Some(off) = ext.routing().and_then(|r| r.final_destination_offset()) {
                    l.pseudo_dst = at + off;
                }
            }
            _ => {}
        }
        if let Some(options) = ext.options() {
            for opt in options {
                let opt = opt.map_err(|e| e.at(at))?;
                match (next, opt.kind) {
                    (ipproto::HOPOPTS, ipv6_ext::OPT_JUMBO) => {
                        end =
                            V6End::Known(jumbo_end(b, l3, at + opt.offset, payload_len, opt.data)?);
                    }
                    (ipproto::DSTOPTS, ipv6_ext::OPT_HOME_ADDRESS) if opt.data.len() == 16 => {
                        l.pseudo_src = at + opt.offset + 2;
                    }
                    _ => {}
                }
            }
        }
        next = ext.next_header();
        at += ext.header_len();
        if l.fragment.offset != 0 {
            // A non-first fragment holds no further headers (`ipv6_skip_exthdr()` stops).
            break;
        }
    }
    let end = match end {
        V6End::Known(e) => e,
        V6End::AwaitingJumbo => {
            return Err(ParseError::new(
                Layer::Ipv6,
                Field::PayloadLength,
                ErrorKind::LengthTooSmall {
                    value: 0,
                    min: at.max(first + 1) - first,
                },
                l3,
            ));
        }
    };
    l.l4 = at;
    l.ip_proto = next;
    l.transport = Transport::from_proto(next);
    l.end = end;
    Ok(l)
}

/// The datagram end a Jumbo Payload option gives, with `ipv6_hop_jumbo()`'s
/// checks: option length 4, IPv6 payload length 0, value > 65535, within the buffer.
fn jumbo_end(
    b: &[u8],
    l3: usize,
    opt_at: usize,
    payload_len: usize,
    data: &[u8],
) -> Result<usize, ParseError> {
    let err = |kind| ParseError::new(Layer::Ipv6Ext, Field::JumboLength, kind, opt_at);
    let &[a, bb, c, d] = data else {
        return Err(err(ErrorKind::Unsupported {
            value: data.len() as u32,
        }));
    };
    if payload_len != 0 {
        return Err(err(ErrorKind::Unsupported {
            value: payload_len as u32,
        }));
    }
    let jumbo = u32::from_be_bytes([a, bb, c, d]) as usize;
    if jumbo <= 0xFFFF {
        return Err(err(ErrorKind::LengthTooSmall {
            value: jumbo,
            min: 0x1_0000,
        }));
    }
    let available = b.len().saturating_sub(l3 + ipv6::HEADER_LEN);
    if jumbo > available {
        return Err(err(ErrorKind::LengthBeyondBuffer {
            claimed: jumbo,
            available,
        }));
    }
    Ok(l3 + ipv6::HEADER_LEN + jumbo)
}

/// Parses the transport header's length; returns the payload offset.
fn parse_l4(b: &[u8], l: &Layers) -> Result<usize, ParseError> {
    let at = l.l4;
    if l.fragment.offset != 0 {
        return Ok(at); // a non-first fragment carries no transport header
    }
    let seg = b.get(at..l.end).unwrap_or(&[]);
    let len = match l.transport {
        Transport::Tcp => TcpHeader::new_checked(seg).map(|h| h.header_len()),
        Transport::Udp => udp_header_len(seg, l),
        Transport::Sctp => SctpHeader::new_checked(seg).map(|h| h.header_len()),
        Transport::Icmp | Transport::Icmpv6 => IcmpHeader::new_checked(seg).map(|h| h.header_len()),
        Transport::Gre => GreHeader::new_checked(seg).map(|h| h.header_len()),
        Transport::Ipip | Transport::Ipv6InIp | Transport::Other(_) => Ok(0),
    };
    len.map(|n| at + n).map_err(|e| e.at(at))
}

/// UDP length rules of `__udp4_lib_rcv()` / `__udp6_lib_rcv()`: the length
/// fits the datagram; 0 means "the IP length" for IPv6 only; a first
/// fragment holds just part of what the length counts.
fn udp_header_len(seg: &[u8], l: &Layers) -> Result<usize, ParseError> {
    if l.fragment.is_fragment {
        return UdpHeader::new_checked_header(seg).map(|h| h.header_len());
    }
    let h = UdpHeader::new_checked(seg)?;
    if l.net == Net::Ipv4 && h.length() == 0 {
        return Err(ParseError::new(
            Layer::Udp,
            Field::UdpLength,
            ErrorKind::LengthTooSmall {
                value: 0,
                min: super::udp::HEADER_LEN,
            },
            0,
        ));
    }
    Ok(h.header_len())
}
