//! Encapsulation for transmit: writes outer Ethernet / IP / UDP + VXLAN or
//! GENEVE, GRE, or a bare outer IP header into the caller's headroom in front
//! of an inner packet, fills the outer checksums, and moves the checksum state.
//!
//! Models Linux `iptunnel_xmit` / `udp_tunnel_xmit_skb` / `gre_build_header`
//! with `udp_set_csum` (zero, offloaded, or local checksum offload `lco_csum`)
//! and `ip_send_check` for the outer IPv4 header.

use super::config::EncapConfig;
use super::error::EncapError;
use super::header::{GENEVE_FLAG_C, GENEVE_FLAG_O, GENEVE_LEN, GENEVE_MAX_OPTIONS, UDP_LEN};
use super::header::{VXLAN_FLAG_I, VXLAN_LEN, gre_flags};
use super::lco::lco_csum;
use super::tunnel::InnerProto;
use crate::csum::{self, Sum16, Wsum};
use crate::state::{CsumFlags, CsumMeta, CsumState, PartialKind, Refused};
use crate::wire::LinkType;
use crate::wire::consts::{ethertype, ipproto};
use crate::wire::{ethernet as eth, geneve, gre, ipv4, ipv6, udp, vxlan};

/// The outer Ethernet header (one optional 802.1Q tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OuterEthernet {
    /// Destination MAC.
    pub dst: [u8; 6],
    /// Source MAC.
    pub src: [u8; 6],
    /// 802.1Q TCI, when tagged.
    pub vlan: Option<u16>,
}

/// The outer IP header's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterIp {
    /// IPv4 (no options).
    V4 {
        /// Source address.
        src: [u8; 4],
        /// Destination address.
        dst: [u8; 4],
        /// Time to live.
        ttl: u8,
        /// DSCP and ECN byte.
        tos: u8,
        /// Identification.
        id: u16,
        /// Don't-fragment flag.
        dont_fragment: bool,
    },
    /// IPv6 (no extension headers).
    V6 {
        /// Source address.
        src: [u8; 16],
        /// Destination address.
        dst: [u8; 16],
        /// Hop limit.
        hop_limit: u8,
        /// Traffic class.
        traffic_class: u8,
        /// Flow label (20 bits; higher bits are ignored).
        flow_label: u32,
    },
}

/// Which tunnel header to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TunnelSpec<'a> {
    /// VXLAN over UDP; the inner packet must be an Ethernet frame.
    Vxlan {
        /// 24-bit VNI.
        vni: u32,
        /// UDP source port (usually a flow hash, RFC 7348 5).
        src_port: u16,
        /// UDP destination port (4789).
        dst_port: u16,
    },
    /// GENEVE over UDP; protocol type from the inner packet.
    Geneve {
        /// 24-bit VNI.
        vni: u32,
        /// UDP source port.
        src_port: u16,
        /// UDP destination port (6081).
        dst_port: u16,
        /// Option TLVs, copied as they are (multiple of 4 bytes, at most 252).
        options: &'a [u8],
        /// O bit (OAM packet).
        oam: bool,
        /// C bit (critical options present).
        critical: bool,
    },
    /// GRE (version 0), protocol type from the inner packet.
    Gre {
        /// Key (K bit).
        key: Option<u32>,
        /// Sequence number (S bit).
        seq: Option<u32>,
        /// Write a GRE checksum (C bit).
        checksum: bool,
    },
    /// IPv4 / IPv6 in IP (protocol 4 / 41), no tunnel header.
    IpInIp,
}

/// How to fill the outer UDP checksum (Linux `udp_set_csum`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UdpCsumMode {
    /// Zero (RFC 7348's SHOULD for VXLAN over IPv4; IPv6 only in zero-checksum mode).
    Zero,
    /// Fill it now: by local checksum offload when the inner packet is
    /// `Partial` (no payload byte read), else by summing the whole datagram.
    Compute,
    /// Like Linux: local checksum offload when the inner packet is `Partial`,
    /// else leave it to the device (`Partial` on the outer UDP checksum).
    Offload,
}

/// Everything needed to build the outer headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EncapSpec<'a> {
    /// Outer Ethernet header, or `None` for a raw IP outer packet (L3 device).
    pub eth: Option<OuterEthernet>,
    /// Outer IP header.
    pub ip: OuterIp,
    /// Tunnel header.
    pub tunnel: TunnelSpec<'a>,
    /// Outer UDP checksum (ignored for GRE and IP-in-IP).
    pub udp_csum: UdpCsumMode,
}

/// How the outer checksum was filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OuterCsumFill {
    /// The outer layer has no checksum (IP-in-IP, GRE without C).
    Absent,
    /// Zero UDP checksum.
    Zero,
    /// Summed in software over the whole outer segment.
    Software,
    /// Derived from the inner `Partial` pseudo-header (Linux `lco_csum`).
    LocalOffload,
    /// Left to the device: the outer UDP checksum is now the `Partial` one.
    Device,
}

/// The built frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encapsulated {
    /// First byte of the frame in the buffer (the outer headers start here).
    pub start: usize,
    /// One past the last byte of the frame in the buffer.
    pub end: usize,
    /// Outer IP header offset, from `start`.
    pub l3: usize,
    /// Outer transport header offset (UDP, GRE; the inner packet for IP-in-IP), from `start`.
    pub l4: usize,
    /// Inner packet offset, from `start`.
    pub inner: usize,
    /// The frame's checksum state, offsets counted from `start`.
    pub meta: CsumMeta,
    /// How the outer checksum was filled.
    pub outer_csum: OuterCsumFill,
    /// Bytes summed in software.
    pub sw_bytes: usize,
}

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(dst) = buf.get_mut(at..at + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}

fn u16_len(len: usize) -> Result<u16, EncapError> {
    u16::try_from(len).map_err(|_| EncapError::TooLong { len })
}

/// Checks GENEVE option TLVs: whole words, at most 252 bytes, lengths that tile exactly.
fn check_geneve_options(opts: &[u8]) -> Result<(), EncapError> {
    if !opts.len().is_multiple_of(4) || opts.len() > GENEVE_MAX_OPTIONS {
        return Err(EncapError::GeneveOptions);
    }
    let mut o = 0;
    while o < opts.len() {
        let words = opts.get(o + 3).copied().unwrap_or(0) & 0x1F;
        o += 4 + words as usize * 4;
    }
    if o == opts.len() {
        Ok(())
    } else {
        Err(EncapError::GeneveOptions)
    }
}

/// Writes the outer headers in front of the inner packet `buf[head..head + inner_len]`
/// and returns the frame and its checksum state.
///
/// `inner_link` says whether the inner packet starts with Ethernet or IP (the
/// version nibble picks IPv4 / IPv6). `meta` is the inner packet's state with
/// `Partial` offsets counted from `head`; the result counts from the frame start,
/// so an inner `Partial` keeps pointing at its field with `start` shifted by the
/// outer header length.
///
/// Resulting state: inner `Partial` stays `Partial` (the outer UDP / GRE checksum,
/// if any, is derived from it by `lco_csum`, valid once the device fills the
/// inner field); `Offload` without an inner `Partial` makes the outer UDP
/// checksum the `Partial` one; `Unnecessary { n }` becomes `n + 1` (saturating)
/// when the outer layer adds a checksum that counts (any UDP checksum, zero
/// included; GRE with C), since levels count from the outermost; `Complete`
/// becomes `None` (Linux treats `CHECKSUM_COMPLETE` on transmit as none).
/// `DATA_VALID` is dropped: it spoke for the inner packet's first checksum
/// and never crosses a tunnel layer.
///
/// Receiver side: a receiver's `csum_level` must cover the outer UDP / GRE
/// checksum first; [`decap`](super::decap) consumes that level again.
pub fn encap(
    spec: &EncapSpec<'_>,
    cfg: &EncapConfig,
    buf: &mut [u8],
    head: usize,
    inner_len: usize,
    inner_link: LinkType,
    meta: CsumMeta,
) -> Result<Encapsulated, Refused<EncapError>> {
    match encap_inner(spec, cfg, buf, head, inner_len, inner_link, &meta) {
        Ok(e) => Ok(e),
        Err(error) => Err(Refused { meta, error }),
    }
}

#[allow(clippy::too_many_lines)]
fn encap_inner(
    spec: &EncapSpec<'_>,
    cfg: &EncapConfig,
    buf: &mut [u8],
    head: usize,
    inner_len: usize,
    inner_link: LinkType,
    meta: &CsumMeta,
) -> Result<Encapsulated, EncapError> {
    let end = head.checked_add(inner_len).ok_or(EncapError::InnerRange)?;
    if inner_len == 0 || end > buf.len() {
        return Err(EncapError::InnerRange);
    }
    let inner = match inner_link {
        LinkType::Ethernet => InnerProto::Ethernet,
        LinkType::RawIp => match buf.get(head).copied().unwrap_or(0) >> 4 {
            4 => InnerProto::Ipv4,
            6 => InnerProto::Ipv6,
            _ => return Err(EncapError::InnerProtocol),
        },
    };
    let inner_et = match inner {
        InnerProto::Ethernet => ethertype::TEB,
        InnerProto::Ipv4 => ethertype::IPV4,
        InnerProto::Ipv6 => ethertype::IPV6,
    };
    // Validate the inner state's offsets against the inner packet.
    if let CsumState::Partial {
        start,
        offset,
        kind,
    } = meta.state()
    {
        let width = if kind == PartialKind::Crc32c { 4 } else { 2 };
        let last = start.checked_add(offset).and_then(|x| x.checked_add(width));
        if last.is_none_or(|l| l > inner_len) {
            return Err(EncapError::PartialOutOfRange);
        }
    }
    let (tun_len, proto) = match spec.tunnel {
        TunnelSpec::Vxlan { vni, .. } => {
            if inner != InnerProto::Ethernet {
                return Err(EncapError::InnerProtocol);
            }
            if vni > 0xFF_FFFF {
                return Err(EncapError::Vni);
            }
            (UDP_LEN + VXLAN_LEN, ipproto::UDP)
        }
        TunnelSpec::Geneve { vni, options, .. } => {
            if vni > 0xFF_FFFF {
                return Err(EncapError::Vni);
            }
            check_geneve_options(options)?;
            (UDP_LEN + GENEVE_LEN + options.len(), ipproto::UDP)
        }
        TunnelSpec::Gre {
            key, seq, checksum, ..
        } => (
            4 + 4 * (checksum as usize + key.is_some() as usize + seq.is_some() as usize),
            ipproto::GRE,
        ),
        TunnelSpec::IpInIp => match inner {
            InnerProto::Ipv4 => (0, ipproto::IPIP),
            InnerProto::Ipv6 => (0, ipproto::IPV6),
            InnerProto::Ethernet => return Err(EncapError::InnerProtocol),
        },
    };
    let eth_len = match spec.eth {
        Some(e) => {
            eth::HEADER_LEN
                + if e.vlan.is_some() {
                    eth::VLAN_TAG_LEN
                } else {
                    0
                }
        }
        None => 0,
    };
    let (ip_len, outer_et) = match spec.ip {
        OuterIp::V4 { .. } => (ipv4::MIN_HEADER_LEN, ethertype::IPV4),
        OuterIp::V6 { .. } => (ipv6::HEADER_LEN, ethertype::IPV6),
    };
    let total = eth_len + ip_len + tun_len;
    if head < total {
        return Err(EncapError::Headroom {
            needed: total,
            available: head,
        });
    }
    let start = head - total;
    let l3 = start + eth_len;
    let l4 = l3 + ip_len;
    let seg_len = tun_len + inner_len;
    // Lengths first, so nothing is written when one overflows.
    let ip_field = match spec.ip {
        OuterIp::V4 { .. } => u16_len(ip_len + seg_len)?,
        OuterIp::V6 { .. } => u16_len(seg_len)?,
    };
    let udp_field = if proto == ipproto::UDP {
        u16_len(seg_len)?
    } else {
        0
    };
    let is_v6 = matches!(spec.ip, OuterIp::V6 { .. });
    let udp_dst = match spec.tunnel {
        TunnelSpec::Vxlan { dst_port, .. } | TunnelSpec::Geneve { dst_port, .. } => dst_port,
        _ => 0,
    };
    if proto == ipproto::UDP
        && spec.udp_csum == UdpCsumMode::Zero
        && is_v6
        && !cfg.ipv6_zero_tx(udp_dst)
    {
        return Err(EncapError::ZeroChecksumIpv6);
    }
    let inner_partial = match meta.state() {
        CsumState::Partial {
            start,
            offset,
            kind,
        } => Some((start, offset, kind)),
        _ => None,
    };
    let outer_has_csum = match spec.tunnel {
        TunnelSpec::Gre { checksum, .. } => checksum,
        TunnelSpec::Vxlan { .. } | TunnelSpec::Geneve { .. } => spec.udp_csum != UdpCsumMode::Zero,
        TunnelSpec::IpInIp => false,
    };
    if outer_has_csum && matches!(inner_partial, Some((_, _, PartialKind::Crc32c))) {
        return Err(EncapError::InnerCrcPartial);
    }

    // Ethernet.
    if let Some(e) = spec.eth {
        put(buf, start + eth::DST_OFFSET, &e.dst);
        put(buf, start + eth::SRC_OFFSET, &e.src);
        match e.vlan {
            Some(tci) => {
                put(
                    buf,
                    start + eth::ETHERTYPE_OFFSET,
                    &ethertype::VLAN.to_be_bytes(),
                );
                let tag = start + eth::HEADER_LEN;
                put(buf, tag + eth::VLAN_TCI_OFFSET, &tci.to_be_bytes());
                put(
                    buf,
                    tag + eth::VLAN_ETHERTYPE_OFFSET,
                    &outer_et.to_be_bytes(),
                );
            }
            None => put(buf, start + eth::ETHERTYPE_OFFSET, &outer_et.to_be_bytes()),
        }
    }
    // IP.
    match spec.ip {
        OuterIp::V4 {
            src,
            dst,
            ttl,
            tos,
            id,
            dont_fragment,
        } => {
            let flags: u16 = if dont_fragment { 0x4000 } else { 0 };
            // Version 4, IHL 5 words; then the DSCP/ECN byte.
            put(buf, l3, &[0x45, tos]);
            put(buf, l3 + ipv4::TOTAL_LEN_OFFSET, &ip_field.to_be_bytes());
            put(buf, l3 + ipv4::ID_OFFSET, &id.to_be_bytes());
            put(buf, l3 + ipv4::FRAG_OFFSET, &flags.to_be_bytes());
            put(buf, l3 + ipv4::TTL_OFFSET, &[ttl]);
            put(buf, l3 + ipv4::PROTOCOL_OFFSET, &[proto]);
            put(buf, l3 + ipv4::CHECKSUM_OFFSET, &[0, 0]);
            put(buf, l3 + ipv4::SRC_OFFSET, &src);
            put(buf, l3 + ipv4::DST_OFFSET, &dst);
        }
        OuterIp::V6 {
            src,
            dst,
            hop_limit,
            traffic_class,
            flow_label,
        } => {
            let word = (6u32 << 28) | ((traffic_class as u32) << 20) | (flow_label & 0xF_FFFF);
            put(buf, l3, &word.to_be_bytes());
            put(buf, l3 + ipv6::PAYLOAD_LEN_OFFSET, &ip_field.to_be_bytes());
            put(buf, l3 + ipv6::NEXT_HEADER_OFFSET, &[proto]);
            put(buf, l3 + ipv6::HOP_LIMIT_OFFSET, &[hop_limit]);
            put(buf, l3 + ipv6::SRC_OFFSET, &src);
            put(buf, l3 + ipv6::DST_OFFSET, &dst);
        }
    }
    // Tunnel header (checksum fields zero for now).
    let mut gre_csum_at = None;
    match spec.tunnel {
        TunnelSpec::Vxlan {
            vni,
            src_port,
            dst_port,
        } => {
            put_udp(buf, l4, src_port, dst_port, udp_field);
            put(buf, l4 + UDP_LEN, &[VXLAN_FLAG_I, 0, 0, 0]);
            put(
                buf,
                l4 + UDP_LEN + vxlan::VNI_OFFSET,
                &(vni << 8).to_be_bytes(),
            );
        }
        TunnelSpec::Geneve {
            vni,
            src_port,
            dst_port,
            options,
            oam,
            critical,
        } => {
            put_udp(buf, l4, src_port, dst_port, udp_field);
            let h = l4 + UDP_LEN;
            let b1 = if oam { GENEVE_FLAG_O } else { 0 } | if critical { GENEVE_FLAG_C } else { 0 };
            put(buf, h, &[(options.len() / 4) as u8, b1]);
            put(buf, h + geneve::PROTOCOL_OFFSET, &inner_et.to_be_bytes());
            put(buf, h + geneve::VNI_OFFSET, &(vni << 8).to_be_bytes());
            put(buf, h + GENEVE_LEN, options);
        }
        TunnelSpec::Gre { key, seq, checksum } => {
            let mut flags = 0u16;
            let mut at = l4 + gre::FIXED_LEN;
            if checksum {
                flags |= gre_flags::C;
                put(buf, at, &[0; 4]);
                gre_csum_at = Some(at);
                at += 4;
            }
            if let Some(k) = key {
                flags |= gre_flags::K;
                put(buf, at, &k.to_be_bytes());
                at += 4;
            }
            if let Some(s) = seq {
                flags |= gre_flags::S;
                put(buf, at, &s.to_be_bytes());
            }
            put(buf, l4 + gre::FLAGS_OFFSET, &flags.to_be_bytes());
            put(buf, l4 + gre::PROTOCOL_OFFSET, &inner_et.to_be_bytes());
        }
        TunnelSpec::IpInIp => {}
    }

    let mut sw_bytes = 0;
    let mut fill = OuterCsumFill::Absent;
    let mut outer_partial = None;
    let seg = l4..end;
    if proto == ipproto::UDP {
        let pseudo = udp_pseudo(buf, spec.ip, seg_len);
        let field = match (spec.udp_csum, inner_partial) {
            (UdpCsumMode::Zero, _) => {
                fill = OuterCsumFill::Zero;
                Sum16::ZERO
            }
            (_, Some((cs, co, _))) => {
                fill = OuterCsumFill::LocalOffload;
                sw_bytes += head + cs - l4;
                csum::fold(pseudo.add(lco_csum(buf, l4, head + cs, co))).udp_mangle_zero()
            }
            (UdpCsumMode::Compute, None) => {
                fill = OuterCsumFill::Software;
                sw_bytes += seg_len;
                let sum = csum::partial(buf.get(seg.clone()).unwrap_or(&[]), pseudo);
                csum::fold(sum).udp_mangle_zero()
            }
            (UdpCsumMode::Offload, None) => {
                fill = OuterCsumFill::Device;
                outer_partial = Some(l4 - start);
                // The non-inverted pseudo-header seed (`~udp_v4_check(len, s, d, 0)`).
                crate::state::site::seed(pseudo)
            }
        };
        put(buf, l4 + udp::CHECKSUM_OFFSET, &field.to_bytes());
    } else if let Some(at) = gre_csum_at {
        let field = match inner_partial {
            Some((cs, co, _)) => {
                fill = OuterCsumFill::LocalOffload;
                sw_bytes += head + cs - l4;
                csum::fold(lco_csum(buf, l4, head + cs, co))
            }
            None => {
                fill = OuterCsumFill::Software;
                sw_bytes += seg_len;
                csum::fold(csum::partial(
                    buf.get(seg.clone()).unwrap_or(&[]),
                    Wsum::ZERO,
                ))
            }
        };
        put(buf, at, &field.to_bytes());
    }
    if let OuterIp::V4 { .. } = spec.ip {
        let c = csum::ipv4_header(buf.get(l3..l3 + ipv4::MIN_HEADER_LEN).unwrap_or(&[]));
        put(buf, l3 + ipv4::CHECKSUM_OFFSET, &c.to_bytes());
    }

    let counted = outer_has_csum || proto == ipproto::UDP;
    let state = match (meta.state(), outer_partial) {
        (
            CsumState::Partial {
                start: s,
                offset,
                kind,
            },
            _,
        ) => CsumState::Partial {
            start: s + total,
            offset,
            kind,
        },
        (_, Some(s)) => CsumState::Partial {
            start: s,
            offset: udp::CHECKSUM_OFFSET,
            kind: PartialKind::Inet,
        },
        (CsumState::Unnecessary { level }, None) if counted => CsumState::Unnecessary {
            level: level.incremented(),
        },
        (CsumState::Unnecessary { level }, None) => CsumState::Unnecessary { level },
        (CsumState::None | CsumState::Complete { .. }, None) => CsumState::None,
    };
    // DATA_VALID spoke for the inner packet's first checksum; the outer
    // checksum now comes first, so the origin's word does not cross.
    let flags =
        meta.flags() - CsumFlags::CSUM_VALID - CsumFlags::COMPLETE_SW - CsumFlags::DATA_VALID;
    let meta = CsumMeta::new(state, flags).map_err(EncapError::Meta)?;
    Ok(Encapsulated {
        start,
        end,
        l3: eth_len,
        l4: eth_len + ip_len,
        inner: total,
        meta,
        outer_csum: fill,
        sw_bytes,
    })
}

fn put_udp(buf: &mut [u8], l4: usize, src: u16, dst: u16, len: u16) {
    put(buf, l4 + udp::SRC_PORT_OFFSET, &src.to_be_bytes());
    put(buf, l4 + udp::DST_PORT_OFFSET, &dst.to_be_bytes());
    put(buf, l4 + udp::LENGTH_OFFSET, &len.to_be_bytes());
    put(buf, l4 + udp::CHECKSUM_OFFSET, &[0, 0]);
}

fn udp_pseudo(_buf: &[u8], ip: OuterIp, len: usize) -> Wsum {
    match ip {
        OuterIp::V4 { src, dst, .. } => {
            csum::pseudo_v4(src, dst, ipproto::UDP, len as u32, Wsum::ZERO)
        }
        OuterIp::V6 { src, dst, .. } => {
            csum::pseudo_v6(&src, &dst, ipproto::UDP, len as u32, Wsum::ZERO)
        }
    }
}
