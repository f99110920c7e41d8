//! `parse`: walks Ethernet -> VLAN* -> IP -> extension headers -> L4 and
//! returns the layer offsets. Does not descend into tunnels (`encap` does).

use super::consts::{ethertype, ipproto};
use super::error::{ErrorKind, Field, Layer, ParseError};
use super::layers::{Fragment, Layers, LinkType, Net, Transport};

/// Most IPv6 extension headers walked before giving up.
pub const MAX_EXT_HEADERS: usize = 8;
/// Most VLAN tags accepted (802.1ad outer + 802.1Q inner).
pub const MAX_VLAN_TAGS: usize = 2;

#[inline]
fn be16(b: &[u8], at: usize) -> Option<u16> {
    match b.get(at..at + 2) {
        Some(&[x, y]) => Some(u16::from_be_bytes([x, y])),
        _ => None,
    }
}

#[inline]
fn byte(b: &[u8], at: usize) -> Option<u8> {
    b.get(at).copied()
}

fn need(b: &[u8], layer: Layer, at: usize, len: usize) -> Result<(), ParseError> {
    let available = b.len().saturating_sub(at);
    if available < len {
        Err(ParseError::truncated(layer, at, len, available))
    } else {
        Ok(())
    }
}

/// Parses one packet's headers and returns where each layer starts.
///
/// Lengths come from the IP header: `end` is where the datagram ends, and any
/// bytes after it (Ethernet minimum-frame padding) are not part of the packet.
pub fn parse(bytes: &[u8], link: LinkType) -> Result<Layers, ParseError> {
    let (l3, ethertype, vlan_count, vlan_tci) = match link {
        LinkType::Ethernet => parse_l2(bytes)?,
        LinkType::RawIp => {
            let v = byte(bytes, 0).ok_or(ParseError::truncated(Layer::Ipv4, 0, 1, 0))? >> 4;
            let et = match v {
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
    need(b, Layer::Ethernet, 0, 14)?;
    let mut et = be16(b, 12).unwrap_or(0);
    let mut at = 14;
    let mut count = 0u8;
    let mut tci = [0u16; 2];
    while et == ethertype::VLAN || et == ethertype::QINQ {
        if count as usize >= MAX_VLAN_TAGS {
            return Err(ParseError::new(
                Layer::Vlan,
                Field::Nesting,
                ErrorKind::TooDeep {
                    limit: MAX_VLAN_TAGS,
                },
                at,
            ));
        }
        need(b, Layer::Vlan, at, 4)?;
        if let Some(slot) = tci.get_mut(count as usize) {
            *slot = be16(b, at).unwrap_or(0);
        }
        et = be16(b, at + 2).unwrap_or(0);
        count += 1;
        at += 4;
    }
    Ok((at, et, count, tci))
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

fn parse_ipv4(b: &[u8], l3: usize) -> Result<Layers, ParseError> {
    need(b, Layer::Ipv4, l3, 20)?;
    let vihl = byte(b, l3).unwrap_or(0);
    if vihl >> 4 != 4 {
        return Err(ParseError::new(
            Layer::Ipv4,
            Field::Version,
            ErrorKind::Unsupported {
                value: (vihl >> 4) as u32,
            },
            l3,
        ));
    }
    let ihl = (vihl & 0x0F) as usize * 4;
    if ihl < 20 {
        return Err(ParseError::new(
            Layer::Ipv4,
            Field::Ihl,
            ErrorKind::LengthTooSmall {
                value: ihl,
                min: 20,
            },
            l3,
        ));
    }
    need(b, Layer::Ipv4, l3, ihl)?;
    let total = be16(b, l3 + 2).unwrap_or(0) as usize;
    if total < ihl {
        return Err(ParseError::new(
            Layer::Ipv4,
            Field::TotalLength,
            ErrorKind::LengthTooSmall {
                value: total,
                min: ihl,
            },
            l3,
        ));
    }
    let available = b.len() - l3;
    if total > available {
        return Err(ParseError::new(
            Layer::Ipv4,
            Field::TotalLength,
            ErrorKind::LengthBeyondBuffer {
                claimed: total,
                available,
            },
            l3,
        ));
    }
    let frag_word = be16(b, l3 + 6).unwrap_or(0);
    let offset = (frag_word & 0x1FFF) as usize * 8;
    let more = frag_word & 0x2000 != 0;
    let proto = byte(b, l3 + 9).unwrap_or(0);
    let mut l = blank(l3, Net::Ipv4);
    l.l4 = l3 + ihl;
    l.ip_proto = proto;
    l.transport = Transport::from_proto(proto);
    l.end = l3 + total;
    l.fragment = Fragment {
        is_fragment: more || offset != 0,
        offset,
        more,
        has_header: false,
    };
    l.pseudo_src = l3 + 12;
    l.pseudo_dst = l3 + 16;
    Ok(l)
}

fn parse_ipv6(b: &[u8], l3: usize) -> Result<Layers, ParseError> {
    need(b, Layer::Ipv6, l3, 40)?;
    let v = byte(b, l3).unwrap_or(0) >> 4;
    if v != 6 {
        return Err(ParseError::new(
            Layer::Ipv6,
            Field::Version,
            ErrorKind::Unsupported { value: v as u32 },
            l3,
        ));
    }
    let payload_len = be16(b, l3 + 4).unwrap_or(0) as usize;
    let available = b.len() - l3 - 40;
    let mut l = blank(l3, Net::Ipv6);
    l.pseudo_src = l3 + 8;
    l.pseudo_dst = l3 + 24;
    let mut next = byte(b, l3 + 6).unwrap_or(0);
    let mut at = l3 + 40;
    // A zero payload length is valid only with a Jumbo Payload option (RFC 2675);
    // resolved below once the hop-by-hop header is read.
    let mut end = if payload_len == 0 {
        None
    } else {
        Some(l3 + 40 + payload_len)
    };
    if let Some(e) = end
        && e > b.len()
    {
        return Err(ParseError::new(
            Layer::Ipv6,
            Field::PayloadLength,
            ErrorKind::LengthBeyondBuffer {
                claimed: payload_len,
                available,
            },
            l3,
        ));
    }
    let mut walked = 0;
    while matches!(
        next,
        ipproto::HOPOPTS | ipproto::ROUTING | ipproto::DSTOPTS | ipproto::FRAGMENT | ipproto::AH
    ) {
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
        walked += 1;
        need(b, Layer::Ipv6Ext, at, 8)?;
        let hdr_next = byte(b, at).unwrap_or(0);
        let len = match next {
            ipproto::FRAGMENT => 8,
            ipproto::AH => (byte(b, at + 1).unwrap_or(0) as usize + 2) * 4,
            _ => (byte(b, at + 1).unwrap_or(0) as usize + 1) * 8,
        };
        let limit = end.unwrap_or(b.len());
        if at + len > limit {
            return Err(ParseError::new(
                Layer::Ipv6Ext,
                Field::ExtLength,
                ErrorKind::LengthBeyondBuffer {
                    claimed: len,
                    available: limit.saturating_sub(at),
                },
                at,
            ));
        }
        match next {
            ipproto::FRAGMENT => {
                let w = be16(b, at + 2).unwrap_or(0);
                let offset = (w & 0xFFF8) as usize;
                let more = w & 1 != 0;
                l.fragment = Fragment {
                    is_fragment: more || offset != 0,
                    offset,
                    more,
                    has_header: true,
                };
            }
            ipproto::ROUTING => {
                // Types 0 and 4 (SRH) list addresses; with segments left the
                // final destination is the first entry of the list (RFC 8200 8.1, RFC 8754).
                let rtype = byte(b, at + 2).unwrap_or(0);
                let left = byte(b, at + 3).unwrap_or(0) as usize;
                let addrs = (len - 8) / 16;
                if left > 0 && addrs > 0 {
                    match rtype {
                        0 => l.pseudo_dst = at + 8 + (addrs - 1) * 16,
                        4 => l.pseudo_dst = at + 8,
                        _ => {}
                    }
                }
            }
            ipproto::HOPOPTS | ipproto::DSTOPTS => {
                walk_options(b, at, len, next, &mut l, &mut end, payload_len)?;
            }
            _ => {}
        }
        next = hdr_next;
        at += len;
    }
    let end = match end {
        Some(e) => e,
        None if at == l3 + 40 && next == ipproto::NONE => l3 + 40,
        None => {
            return Err(ParseError::new(
                Layer::Ipv6,
                Field::PayloadLength,
                ErrorKind::LengthTooSmall {
                    value: 0,
                    min: at - l3 - 40,
                },
                l3,
            ));
        }
    };
    if at > end {
        return Err(ParseError::new(
            Layer::Ipv6Ext,
            Field::ExtLength,
            ErrorKind::LengthBeyondBuffer {
                claimed: at - l3 - 40,
                available: end - l3 - 40,
            },
            l3 + 40,
        ));
    }
    l.l4 = at;
    l.ip_proto = next;
    l.transport = Transport::from_proto(next);
    l.end = end;
    Ok(l)
}

/// Walks the TLV options of a hop-by-hop or destination options header:
/// Jumbo Payload (type 0xC2) sets the length, Home Address (0xC9) the pseudo source.
fn walk_options(
    b: &[u8],
    at: usize,
    len: usize,
    kind: u8,
    l: &mut Layers,
    end: &mut Option<usize>,
    payload_len: usize,
) -> Result<(), ParseError> {
    let mut o = at + 2;
    let stop = at + len;
    while o < stop {
        let t = byte(b, o).unwrap_or(0);
        if t == 0 {
            o += 1;
            continue;
        }
        let olen = byte(b, o + 1).unwrap_or(0) as usize;
        if o + 2 + olen > stop {
            return Err(ParseError::new(
                Layer::Ipv6Ext,
                Field::OptionLength,
                ErrorKind::LengthBeyondBuffer {
                    claimed: olen,
                    available: stop.saturating_sub(o + 2),
                },
                at,
            ));
        }
        match (kind, t) {
            (ipproto::HOPOPTS, 0xC2) if olen == 4 && payload_len == 0 => {
                let jumbo = b
                    .get(o + 2..o + 6)
                    .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as usize)
                    .unwrap_or(0);
                let e = l.l3 + 40 + jumbo;
                if jumbo <= 65535 || e > b.len() {
                    return Err(ParseError::new(
                        Layer::Ipv6Ext,
                        Field::JumboLength,
                        ErrorKind::LengthBeyondBuffer {
                            claimed: jumbo,
                            available: b.len() - l.l3 - 40,
                        },
                        at,
                    ));
                }
                *end = Some(e);
            }
            (ipproto::DSTOPTS, 0xC9) if olen == 16 => l.pseudo_src = o + 2,
            _ => {}
        }
        o += 2 + olen;
    }
    Ok(())
}

/// Parses the transport header's length; returns the payload offset.
fn parse_l4(b: &[u8], l: &Layers) -> Result<usize, ParseError> {
    let at = l.l4;
    if l.fragment.offset != 0 {
        return Ok(at); // a non-first fragment carries no transport header
    }
    let seg = &b[..l.end];
    match l.transport {
        Transport::Tcp => {
            need(seg, Layer::Tcp, at, 20)?;
            let doff = (byte(seg, at + 12).unwrap_or(0) >> 4) as usize * 4;
            if doff < 20 {
                return Err(ParseError::new(
                    Layer::Tcp,
                    Field::DataOffset,
                    ErrorKind::LengthTooSmall {
                        value: doff,
                        min: 20,
                    },
                    at,
                ));
            }
            if at + doff > seg.len() {
                return Err(ParseError::new(
                    Layer::Tcp,
                    Field::DataOffset,
                    ErrorKind::LengthBeyondBuffer {
                        claimed: doff,
                        available: seg.len() - at,
                    },
                    at,
                ));
            }
            Ok(at + doff)
        }
        Transport::Udp => {
            need(seg, Layer::Udp, at, 8)?;
            let ulen = be16(seg, at + 4).unwrap_or(0) as usize;
            // UDP length 0 is the jumbogram convention (RFC 2675); otherwise it must fit.
            if ulen != 0 && ulen < 8 {
                return Err(ParseError::new(
                    Layer::Udp,
                    Field::UdpLength,
                    ErrorKind::LengthTooSmall {
                        value: ulen,
                        min: 8,
                    },
                    at,
                ));
            }
            if ulen > seg.len() - at {
                return Err(ParseError::new(
                    Layer::Udp,
                    Field::UdpLength,
                    ErrorKind::LengthBeyondBuffer {
                        claimed: ulen,
                        available: seg.len() - at,
                    },
                    at,
                ));
            }
            Ok(at + 8)
        }
        Transport::Sctp => {
            need(seg, Layer::Sctp, at, 12)?;
            Ok(at + 12)
        }
        Transport::Icmp | Transport::Icmpv6 => {
            need(seg, Layer::Icmp, at, 4)?;
            Ok(at + 4)
        }
        Transport::Gre => {
            need(seg, Layer::Gre, at, 4)?;
            let flags = be16(seg, at).unwrap_or(0);
            let version = flags & 0x7;
            let mut len = 4;
            if flags & 0x8000 != 0 {
                len += 4;
            }
            if flags & 0x2000 != 0 {
                len += 4;
            }
            if flags & 0x1000 != 0 {
                len += 4;
            }
            if version == 1 && flags & 0x0080 != 0 {
                len += 4; // enhanced GRE (PPTP) acknowledgment number
            }
            if version > 1 {
                return Err(ParseError::new(
                    Layer::Gre,
                    Field::GreVersion,
                    ErrorKind::Unsupported {
                        value: version as u32,
                    },
                    at,
                ));
            }
            need(seg, Layer::Gre, at, len)?;
            Ok(at + len)
        }
        _ => Ok(at),
    }
}
