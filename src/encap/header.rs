//! Tunnel header parsing over `wire::Layers`: finds the tunnel at the outer
//! transport layer, checks its header (RFC 7348, RFC 8926, RFC 2784 / 2890) and
//! parses the inner packet. Models the header checks of Linux `vxlan_rcv`,
//! `geneve_udp_encap_recv`, `gre_parse_header` and `ipip_rcv` / `ip6_tnl_rcv`.

use super::config::EncapConfig;
use super::error::DecapError;
use super::tunnel::{GeneveFacts, GreFacts, InnerProto, OuterCsum, Tunnel, TunnelKind};
use crate::csum::Sum16;
use crate::wire::consts::ethertype;
use crate::wire::{ErrorKind, Field, Layer, Layers, LinkType, ParseError, Transport};

/// VXLAN header length (RFC 7348 5).
pub const VXLAN_LEN: usize = 8;
/// VXLAN I flag: the VNI is valid (first byte).
pub const VXLAN_FLAG_I: u8 = 0x08;
/// GENEVE fixed header length (RFC 8926 3.4).
pub const GENEVE_LEN: usize = 8;
/// Most GENEVE option bytes (6-bit length in 4-byte words).
pub const GENEVE_MAX_OPTIONS: usize = 63 * 4;
/// GENEVE O bit (second byte).
pub const GENEVE_FLAG_O: u8 = 0x80;
/// GENEVE C bit (second byte).
pub const GENEVE_FLAG_C: u8 = 0x40;
/// UDP header length.
pub const UDP_LEN: usize = 8;

/// GRE flag and version bits (RFC 2784 2.1, RFC 2890 2).
pub mod gre_flags {
    /// Checksum present.
    pub const C: u16 = 0x8000;
    /// Routing present (RFC 1701, deprecated: refused).
    pub const R: u16 = 0x4000;
    /// Key present (RFC 2890).
    pub const K: u16 = 0x2000;
    /// Sequence number present (RFC 2890).
    pub const S: u16 = 0x1000;
    /// Strict source route (RFC 1701: refused).
    pub const SSR: u16 = 0x0800;
    /// Most significant recursion-control bit (RFC 2784: bits 1-5 must be zero).
    pub const RECUR_MSB: u16 = 0x0400;
    /// Version field.
    pub const VERSION: u16 = 0x0007;
}

#[inline]
fn be16(b: &[u8], at: usize) -> Option<u16> {
    match b.get(at..at.checked_add(2)?) {
        Some(&[x, y]) => Some(u16::from_be_bytes([x, y])),
        _ => None,
    }
}

#[inline]
fn be32(b: &[u8], at: usize) -> Option<u32> {
    match b.get(at..at.checked_add(4)?) {
        Some(&[w, x, y, z]) => Some(u32::from_be_bytes([w, x, y, z])),
        _ => None,
    }
}

fn need(seg: &[u8], layer: Layer, at: usize, len: usize) -> Result<(), ParseError> {
    let available = seg.len().saturating_sub(at);
    if available < len {
        Err(ParseError::truncated(layer, at, len, available))
    } else {
        Ok(())
    }
}

fn unsupported(layer: Layer, field: Field, value: u32, at: usize) -> ParseError {
    ParseError::new(layer, field, ErrorKind::Unsupported { value }, at)
}

/// Which tunnel the outer packet carries, if any (no header checks yet).
///
/// UDP by destination port (VXLAN ports, GENEVE port), GRE by IP protocol 47,
/// IP-in-IP by protocols 4 and 41.
pub fn detect(bytes: &[u8], outer: &Layers, cfg: &EncapConfig) -> Option<TunnelKind> {
    match outer.transport {
        Transport::Udp => {
            let dst = be16(bytes, outer.l4.checked_add(2)?)?;
            if cfg.is_vxlan_port(dst) {
                Some(TunnelKind::Vxlan)
            } else if cfg.is_geneve_port(dst) {
                Some(TunnelKind::Geneve)
            } else {
                None
            }
        }
        Transport::Gre => Some(TunnelKind::Gre),
        Transport::Ipip | Transport::Ipv6InIp => Some(TunnelKind::IpInIp),
        _ => None,
    }
}

fn inner_by_ethertype(layer: Layer, proto: u16, at: usize) -> Result<InnerProto, ParseError> {
    match proto {
        ethertype::TEB => Ok(InnerProto::Ethernet),
        ethertype::IPV4 => Ok(InnerProto::Ipv4),
        ethertype::IPV6 => Ok(InnerProto::Ipv6),
        other => Err(unsupported(layer, Field::EtherType, other as u32, at)),
    }
}

/// Parses the tunnel header of `outer` (which must be a detected tunnel).
///
/// Checks every field a receiver must check and returns the facts; does not
/// look at checksums beyond reading the field.
pub fn parse_tunnel(bytes: &[u8], outer: &Layers, cfg: &EncapConfig) -> Result<Tunnel, DecapError> {
    let kind = detect(bytes, outer, cfg).ok_or(DecapError::NotTunnel)?;
    if outer.fragment.is_fragment {
        return Err(DecapError::OuterFragment { offset: outer.l3 });
    }
    let seg_all = bytes
        .get(..outer.end)
        .ok_or(DecapError::BadContext { offset: outer.end })?;
    let l4 = outer.l4;
    let mut t = Tunnel {
        kind,
        outer_net: outer.net,
        outer_l3: outer.l3,
        outer_l4: l4,
        header: l4,
        inner_start: l4,
        inner_proto: InnerProto::Ipv4,
        segment_end: outer.end,
        udp_ports: None,
        vni: None,
        geneve: None,
        gre: None,
        outer_csum: OuterCsum::Absent,
    };
    match kind {
        TunnelKind::IpInIp => {
            t.inner_proto = if outer.transport == Transport::Ipip {
                InnerProto::Ipv4
            } else {
                InnerProto::Ipv6
            };
        }
        TunnelKind::Gre => parse_gre(seg_all, l4, &mut t)?,
        TunnelKind::Vxlan | TunnelKind::Geneve => {
            need(seg_all, Layer::Udp, l4, UDP_LEN)?;
            let src = be16(seg_all, l4).unwrap_or(0);
            let dst = be16(seg_all, l4 + 2).unwrap_or(0);
            let ulen = be16(seg_all, l4 + 4).unwrap_or(0) as usize;
            let field = Sum16::from_bytes([
                seg_all.get(l4 + 6).copied().unwrap_or(0),
                seg_all.get(l4 + 7).copied().unwrap_or(0),
            ]);
            // UDP length 0 is the jumbogram convention: the IP length rules.
            let seg_end = if ulen == 0 { outer.end } else { l4 + ulen };
            if ulen != 0 && (ulen < UDP_LEN || seg_end > outer.end) {
                return Err(ParseError::new(
                    Layer::Udp,
                    Field::UdpLength,
                    ErrorKind::LengthBeyondBuffer {
                        claimed: ulen,
                        available: outer.end - l4,
                    },
                    l4,
                )
                .into());
            }
            let seg = seg_all.get(..seg_end).unwrap_or(seg_all);
            t.segment_end = seg_end;
            t.udp_ports = Some((src, dst));
            t.header = l4 + UDP_LEN;
            t.outer_csum = if field.is_zero() {
                if outer.net == crate::wire::Net::Ipv6 && !cfg.ipv6_zero_rx(dst) {
                    return Err(DecapError::ZeroChecksumIpv6 { port: dst });
                }
                OuterCsum::Zero
            } else {
                OuterCsum::Udp(field)
            };
            if kind == TunnelKind::Vxlan {
                parse_vxlan(seg, &mut t)?;
            } else {
                parse_geneve(seg, cfg, &mut t)?;
            }
        }
    }
    Ok(t)
}

/// RFC 7348 5: the I flag must be set; reserved bits are ignored on receipt.
/// (Linux additionally drops unknown flags; we follow the RFC.)
fn parse_vxlan(seg: &[u8], t: &mut Tunnel) -> Result<(), ParseError> {
    let h = t.header;
    need(seg, Layer::Vxlan, h, VXLAN_LEN)?;
    let flags = seg.get(h).copied().unwrap_or(0);
    if flags & VXLAN_FLAG_I == 0 {
        return Err(unsupported(
            Layer::Vxlan,
            Field::VxlanFlags,
            flags as u32,
            h,
        ));
    }
    t.vni = Some(be32(seg, h + 4).unwrap_or(0) >> 8);
    t.inner_start = h + VXLAN_LEN;
    t.inner_proto = InnerProto::Ethernet;
    Ok(())
}

/// RFC 8926 3.4: version 0, options fit their length, each option's length fits.
fn parse_geneve(seg: &[u8], cfg: &EncapConfig, t: &mut Tunnel) -> Result<(), DecapError> {
    let h = t.header;
    need(seg, Layer::Geneve, h, GENEVE_LEN)?;
    let b0 = seg.get(h).copied().unwrap_or(0);
    let b1 = seg.get(h + 1).copied().unwrap_or(0);
    let version = b0 >> 6;
    if version != 0 {
        return Err(unsupported(Layer::Geneve, Field::GeneveVersion, version as u32, h).into());
    }
    let opt_len = (b0 & 0x3F) as usize * 4;
    let opt_start = h + GENEVE_LEN;
    let opt_end = opt_start + opt_len;
    if opt_end > seg.len() {
        return Err(ParseError::new(
            Layer::Geneve,
            Field::GeneveOptLength,
            ErrorKind::LengthBeyondBuffer {
                claimed: opt_len,
                available: seg.len() - opt_start,
            },
            h,
        )
        .into());
    }
    let mut o = opt_start;
    while o < opt_end {
        // Option header: class (2), type (1), R R R length (1), length in words.
        let len_words = seg.get(o + 3).copied().unwrap_or(0) & 0x1F;
        let next = o + 4 + len_words as usize * 4;
        if next > opt_end {
            return Err(ParseError::new(
                Layer::Geneve,
                Field::GeneveOption,
                ErrorKind::LengthBeyondBuffer {
                    claimed: next - o,
                    available: opt_end - o,
                },
                h,
            )
            .into());
        }
        o = next;
    }
    let critical = b1 & GENEVE_FLAG_C != 0;
    if critical && !cfg.geneve_accept_critical {
        return Err(DecapError::CriticalOptions { offset: h });
    }
    let protocol = be16(seg, h + 2).unwrap_or(0);
    t.inner_proto = inner_by_ethertype(Layer::Geneve, protocol, h)?;
    t.vni = Some(be32(seg, h + 4).unwrap_or(0) >> 8);
    t.geneve = Some(GeneveFacts {
        options_start: opt_start,
        options_end: opt_end,
        oam: b1 & GENEVE_FLAG_O != 0,
        critical,
        protocol,
    });
    t.inner_start = opt_end;
    Ok(())
}

/// RFC 2784 2.1 / RFC 2890: version 0; bits 1-5 zero except K and S.
fn parse_gre(seg: &[u8], h: usize, t: &mut Tunnel) -> Result<(), ParseError> {
    need(seg, Layer::Gre, h, 4)?;
    let flags = be16(seg, h).unwrap_or(0);
    let version = flags & gre_flags::VERSION;
    if version != 0 {
        return Err(unsupported(
            Layer::Gre,
            Field::GreVersion,
            version as u32,
            h,
        ));
    }
    if flags & (gre_flags::R | gre_flags::SSR | gre_flags::RECUR_MSB) != 0 {
        return Err(unsupported(Layer::Gre, Field::GreFlags, flags as u32, h));
    }
    let protocol = be16(seg, h + 2).unwrap_or(0);
    let mut at = h + 4;
    let csum = if flags & gre_flags::C != 0 {
        need(seg, Layer::Gre, h, at + 4 - h)?;
        let f = Sum16::from_bytes([
            seg.get(at).copied().unwrap_or(0),
            seg.get(at + 1).copied().unwrap_or(0),
        ]);
        at += 4;
        OuterCsum::Gre(f)
    } else {
        OuterCsum::Absent
    };
    let key = if flags & gre_flags::K != 0 {
        need(seg, Layer::Gre, h, at + 4 - h)?;
        at += 4;
        be32(seg, at - 4)
    } else {
        None
    };
    let seq = if flags & gre_flags::S != 0 {
        need(seg, Layer::Gre, h, at + 4 - h)?;
        at += 4;
        be32(seg, at - 4)
    } else {
        None
    };
    t.inner_proto = inner_by_ethertype(Layer::Gre, protocol, h)?;
    t.gre = Some(GreFacts { protocol, key, seq });
    t.outer_csum = csum;
    t.inner_start = at;
    Ok(())
}

/// Moves every offset of `l` by `base` (layers parsed on a sub-slice).
pub(crate) fn shift_layers(mut l: Layers, base: usize) -> Layers {
    l.l2 += base;
    l.l3 += base;
    l.l4 += base;
    l.payload += base;
    l.end += base;
    l.pseudo_src += base;
    l.pseudo_dst += base;
    l
}

/// Parses the inner packet of `t`, bounded by the tunnel's segment end; all
/// offsets are absolute in `bytes`.
pub fn parse_inner(bytes: &[u8], t: &Tunnel) -> Result<Layers, ParseError> {
    let seg = bytes.get(..t.segment_end).unwrap_or(bytes);
    match t.inner_proto {
        InnerProto::Ethernet => {
            let inner = seg.get(t.inner_start..).unwrap_or(&[]);
            crate::wire::parse(inner, LinkType::Ethernet)
                .map(|l| shift_layers(l, t.inner_start))
                .map_err(|e| e.at(t.inner_start))
        }
        InnerProto::Ipv4 | InnerProto::Ipv6 => {
            let et = if t.inner_proto == InnerProto::Ipv4 {
                ethertype::IPV4
            } else {
                ethertype::IPV6
            };
            crate::wire::parse_ip_at(seg, t.inner_start, et, LinkType::RawIp, 0, [0; 2])
        }
    }
}
