//! Tunnel header parsing over `wire::Layers`: finds the tunnel at the outer
//! transport layer, checks its header (RFC 7348, RFC 8926, RFC 2784 / 2890) and
//! parses the inner packet. Models the header checks of Linux `vxlan_rcv`,
//! `geneve_udp_encap_recv`, `gre_parse_header` and `ipip_rcv` / `ip6_tnl_rcv`.

use super::config::EncapConfig;
use super::error::DecapError;
use super::tunnel::{GeneveFacts, GreFacts, InnerProto, OuterCsum, Tunnel, TunnelKind};
use crate::csum::Sum16;
use crate::wire::consts::ethertype;
use crate::wire::{
    ErrorKind, Field, GeneveHeader, GreHeader, GreVersion, Layer, Layers, LinkType, ParseError,
    Transport, UdpHeader, VxlanHeader,
};

pub(crate) use crate::wire::geneve::{
    FIXED_LEN as GENEVE_LEN, FLAG_CRITICAL as GENEVE_FLAG_C, FLAG_OAM as GENEVE_FLAG_O,
};
pub(crate) use crate::wire::vxlan::{FLAG_VNI as VXLAN_FLAG_I, HEADER_LEN as VXLAN_LEN};
/// Most GENEVE option bytes (6-bit length in 4-byte words).
pub(crate) const GENEVE_MAX_OPTIONS: usize = crate::wire::geneve::MAX_LEN - GENEVE_LEN;
/// UDP header length.
pub(crate) const UDP_LEN: usize = 8;

/// GRE flag bits (RFC 2784 2.1, RFC 2890 2), as the wire room names them.
pub(crate) mod gre_flags {
    pub(crate) use crate::wire::gre::{FLAG_CHECKSUM as C, FLAG_KEY as K, FLAG_SEQ as S};
}

#[inline]
fn be16(b: &[u8], at: usize) -> Option<u16> {
    match b.get(at..at.checked_add(2)?) {
        Some(&[x, y]) => Some(u16::from_be_bytes([x, y])),
        _ => None,
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
            let dst = be16(
                bytes,
                outer.l4.checked_add(crate::wire::udp::DST_PORT_OFFSET)?,
            )?;
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
            let u =
                UdpHeader::new_checked(seg_all.get(l4..).unwrap_or(&[])).map_err(|e| e.at(l4))?;
            let (src, dst) = (u.src_port(), u.dst_port());
            let ulen = u.length() as usize;
            let field = Sum16::from_bytes(u.checksum());
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

/// RFC 7348 5 via [`VxlanHeader`]: the I flag must be set; reserved bits are
/// ignored on receipt as the RFC says (Linux `vxlan_rcv` drops them:
/// [`VxlanHeader::check_reserved`] is that stricter rule).
fn parse_vxlan(seg: &[u8], t: &mut Tunnel) -> Result<(), ParseError> {
    let h = t.header;
    let v = VxlanHeader::new_checked(seg.get(h..).unwrap_or(&[])).map_err(|e| e.at(h))?;
    t.vni = Some(v.vni());
    t.inner_start = h + v.header_len();
    t.inner_proto = InnerProto::Ethernet;
    Ok(())
}

/// RFC 8926 3.4 via [`GeneveHeader`]: version 0, options fit their length,
/// each option's length fits; the C bit needs the configuration's consent.
fn parse_geneve(seg: &[u8], cfg: &EncapConfig, t: &mut Tunnel) -> Result<(), DecapError> {
    let h = t.header;
    let g = GeneveHeader::new_checked(seg.get(h..).unwrap_or(&[])).map_err(|e| e.at(h))?;
    let critical = g.has_critical_flag();
    if critical && !cfg.geneve_accept_critical {
        return Err(DecapError::CriticalOptions { offset: h });
    }
    let protocol = g.protocol();
    t.inner_proto = inner_by_ethertype(Layer::Geneve, protocol, h)?;
    t.vni = Some(g.vni());
    let end = h + g.header_len();
    t.geneve = Some(GeneveFacts {
        options_start: h + GENEVE_LEN,
        options_end: end,
        oam: g.is_oam(),
        critical,
        protocol,
    });
    t.inner_start = end;
    Ok(())
}

/// RFC 2784 / 2890 via [`GreHeader`]: version 0 only (enhanced GRE carries
/// PPP), no routing (Linux `gre_parse_header`).
fn parse_gre(seg: &[u8], h: usize, t: &mut Tunnel) -> Result<(), ParseError> {
    let g = GreHeader::new_checked(seg.get(h..).unwrap_or(&[])).map_err(|e| e.at(h))?;
    if g.version() != GreVersion::Gre {
        return Err(unsupported(Layer::Gre, Field::GreVersion, 1, h));
    }
    let protocol = g.protocol();
    t.inner_proto = inner_by_ethertype(Layer::Gre, protocol, h)?;
    t.gre = Some(GreFacts {
        protocol,
        key: g.key(),
        seq: g.sequence(),
    });
    t.outer_csum = match g.checksum() {
        Some(c) => OuterCsum::Gre(Sum16::from_bytes(c)),
        None => OuterCsum::Absent,
    };
    t.inner_start = h + g.header_len();
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
