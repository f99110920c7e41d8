//! Shared by the paravirt tests: packet builders (etherparse) and an oracle that
//! judges a `CsumMeta` against the bytes, recomputing every checksum from
//! scratch with etherparse and a naive RFC 1071 loop (never with our `csum`).
#![allow(dead_code)]

/// The shared naive arithmetic (tests/support/naive.rs).
pub use crate::support::oracle::naive;

use etherparse::{NetHeaders, PacketBuilder, PacketHeaders, TransportHeader, VlanId};
use netoffload::state::paravirt::virtio::{VirtioFlags, VirtioNetHdr};
use netoffload::state::{CsumFlags, CsumMeta, CsumState, PartialKind};

/// What to build.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// IPv6 instead of IPv4.
    pub v6: bool,
    /// UDP instead of TCP.
    pub udp: bool,
    /// One VLAN tag (Ethernet only).
    pub vlan: bool,
    /// Raw IP (L3 TUN) instead of Ethernet.
    pub raw_ip: bool,
    /// Payload bytes.
    pub payload: usize,
    /// Varies addresses, ports and payload bytes.
    pub seed: u8,
}

impl Spec {
    pub const fn tcp4(payload: usize) -> Spec {
        Spec {
            v6: false,
            udp: false,
            vlan: false,
            raw_ip: false,
            payload,
            seed: 7,
        }
    }
    pub const fn tcp6(payload: usize) -> Spec {
        Spec {
            v6: true,
            ..Spec::tcp4(payload)
        }
    }
    pub const fn udp4(payload: usize) -> Spec {
        Spec {
            udp: true,
            ..Spec::tcp4(payload)
        }
    }
    pub const fn udp6(payload: usize) -> Spec {
        Spec {
            udp: true,
            v6: true,
            ..Spec::tcp4(payload)
        }
    }
    pub fn link(&self) -> netoffload::wire::LinkType {
        if self.raw_ip {
            netoffload::wire::LinkType::RawIp
        } else {
            netoffload::wire::LinkType::Ethernet
        }
    }
    /// Offset of the IP header.
    pub fn l3(&self) -> usize {
        if self.raw_ip {
            0
        } else if self.vlan {
            18
        } else {
            14
        }
    }
    /// Offset of the transport header.
    pub fn l4(&self) -> usize {
        self.l3() + if self.v6 { 40 } else { 20 }
    }
    /// Offset of the checksum field from the transport header.
    pub fn csum_offset(&self) -> usize {
        if self.udp { 6 } else { 16 }
    }
    /// The `Partial` state at this packet's transport checksum.
    pub fn partial(&self) -> CsumState {
        CsumState::Partial {
            start: self.l4(),
            offset: self.csum_offset(),
            kind: PartialKind::Inet,
        }
    }
    /// Offset of the payload.
    pub fn payload_at(&self) -> usize {
        self.l4() + if self.udp { 8 } else { 20 }
    }
}

/// A packet with correct checksums.
pub fn build(spec: Spec) -> Vec<u8> {
    let s = spec.seed;
    let payload: Vec<u8> = (0..spec.payload)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(s))
        .collect();
    let src4 = [10, s, 0, 1];
    let dst4 = [192, 168, s, 2];
    let mut src6 = [0u8; 16];
    src6[0] = 0x20;
    src6[1] = 0x01;
    src6[15] = s;
    let mut dst6 = src6;
    dst6[14] = 0xAB;
    let mut out = Vec::new();
    macro_rules! finish {
        ($b:expr) => {{
            let b = $b;
            if spec.udp {
                b.udp(1000 + s as u16, 4000)
                    .write(&mut out, &payload)
                    .unwrap();
            } else {
                b.tcp(1000 + s as u16, 80, 0x0102_0304 ^ s as u32, 4096)
                    .write(&mut out, &payload)
                    .unwrap();
            }
        }};
    }
    if spec.raw_ip {
        if spec.v6 {
            finish!(PacketBuilder::ipv6(src6, dst6, 64));
        } else {
            finish!(PacketBuilder::ipv4(src4, dst4, 64));
        }
    } else {
        let eth = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
        match (spec.vlan, spec.v6) {
            (true, true) => finish!(
                eth.single_vlan(VlanId::try_new(5).unwrap())
                    .ipv6(src6, dst6, 64)
            ),
            (true, false) => finish!(
                eth.single_vlan(VlanId::try_new(5).unwrap())
                    .ipv4(src4, dst4, 64)
            ),
            (false, true) => finish!(eth.ipv6(src6, dst6, 64)),
            (false, false) => finish!(eth.ipv4(src4, dst4, 64)),
        }
    }
    out
}

/// The virtio header a guest sends with a blank checksum (`NEEDS_CSUM` at
/// the transport checksum of `spec`).
pub fn needs_csum(spec: Spec) -> VirtioNetHdr {
    VirtioNetHdr {
        flags: VirtioFlags::NEEDS_CSUM,
        csum_start: spec.l4() as u16,
        csum_offset: spec.csum_offset() as u16,
        ..VirtioNetHdr::ZERO
    }
}

/// Naive RFC 1071 sum of big-endian 16-bit words (independent of the crate).
pub fn naive_sum(data: &[u8], acc: u64) -> u64 {
    naive::words(data, acc)
}

/// Folds to 16 bits (no complement).
pub fn naive_fold(acc: u64) -> u16 {
    naive::fold(acc)
}

fn l3_of(frame: &[u8], raw_ip: bool) -> Option<usize> {
    if raw_ip {
        return Some(0);
    }
    let mut at = 14;
    let mut et = u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?]);
    while et == 0x8100 || et == 0x88A8 {
        et = u16::from_be_bytes([*frame.get(at + 2)?, *frame.get(at + 3)?]);
        at += 4;
    }
    Some(at)
}

/// End of the IP datagram by its length field.
pub fn ip_end(frame: &[u8], raw_ip: bool) -> Option<usize> {
    let l3 = l3_of(frame, raw_ip)?;
    let v = frame.get(l3)? >> 4;
    let len = u16::from_be_bytes([
        *frame.get(l3 + 2 + if v == 6 { 2 } else { 0 })?,
        *frame.get(l3 + 3 + if v == 6 { 2 } else { 0 })?,
    ]) as usize;
    Some(if v == 6 { l3 + 40 + len } else { l3 + len })
}

/// The pseudo-header seed (folded, not complemented) of a plain TCP/UDP packet.
pub fn seed(frame: &[u8], raw_ip: bool) -> Option<u16> {
    let l3 = l3_of(frame, raw_ip)?;
    let end = ip_end(frame, raw_ip)?;
    let v6 = frame.get(l3)? >> 4 == 6;
    let (proto, l4, addrs) = if v6 {
        (*frame.get(l3 + 6)?, l3 + 40, frame.get(l3 + 8..l3 + 40)?)
    } else {
        let ihl = (frame.get(l3)? & 0xF) as usize * 4;
        (*frame.get(l3 + 9)?, l3 + ihl, frame.get(l3 + 12..l3 + 20)?)
    };
    let len = if proto == 17 {
        u16::from_be_bytes([*frame.get(l4 + 4)?, *frame.get(l4 + 5)?]) as u64
    } else {
        end.checked_sub(l4)? as u64
    };
    let acc = naive_sum(addrs, 0) + u64::from(proto) + (len & 0xFFFF) + (len >> 16);
    Some(naive_fold(acc))
}

/// Turns a good packet into a locally generated `Partial` one: the L4 field
/// holds the pseudo-header seed. Returns the packet.
pub fn make_partial(mut frame: Vec<u8>, spec: Spec) -> Vec<u8> {
    let s = seed(&frame, spec.raw_ip).unwrap();
    let at = spec.l4() + spec.csum_offset();
    frame[at..at + 2].copy_from_slice(&s.to_be_bytes());
    frame
}

/// Verifies the L4 checksum of a plain TCP/UDP packet from the raw bytes with
/// the naive sum (etherparse re-serialises headers and drops TCP reserved bits,
/// so it is used for building, not judging). `None`: not plain TCP/UDP.
pub fn l4_ok(frame: &[u8], raw_ip: bool) -> Option<bool> {
    let l3 = l3_of(frame, raw_ip)?;
    let end = ip_end(frame, raw_ip)?;
    if end > frame.len() {
        return None;
    }
    let v6 = frame.get(l3)? >> 4 == 6;
    let (proto, l4) = if v6 {
        (*frame.get(l3 + 6)?, l3 + 40)
    } else {
        (*frame.get(l3 + 9)?, l3 + (frame[l3] & 0xF) as usize * 4)
    };
    if proto != 6 && proto != 17 {
        return None;
    }
    let len = if proto == 17 {
        let field = u16::from_be_bytes([*frame.get(l4 + 6)?, *frame.get(l4 + 7)?]);
        if !v6 && field == 0 {
            return Some(true);
        }
        u16::from_be_bytes([*frame.get(l4 + 4)?, *frame.get(l4 + 5)?]) as usize
    } else {
        end.checked_sub(l4)?
    };
    let seg = frame.get(l4..l4 + len)?;
    let pseudo = u64::from(seed(frame, raw_ip)?);
    Some(naive_fold(naive_sum(seg, pseudo)) == 0xFFFF)
}

/// Cross-check of [`l4_ok`] with etherparse on well-formed packets.
pub fn l4_ok_etherparse(frame: &[u8], raw_ip: bool) -> Option<bool> {
    let h = if raw_ip {
        PacketHeaders::from_ip_slice(frame).ok()?
    } else {
        PacketHeaders::from_ethernet_slice(frame).ok()?
    };
    let payload = h.payload.slice();
    match (h.net?, h.transport?) {
        (NetHeaders::Ipv4(ip, _), TransportHeader::Tcp(t)) => {
            Some(t.calc_checksum_ipv4(&ip, payload).ok()? == t.checksum)
        }
        (NetHeaders::Ipv6(ip, _), TransportHeader::Tcp(t)) => {
            Some(t.calc_checksum_ipv6(&ip, payload).ok()? == t.checksum)
        }
        (NetHeaders::Ipv4(ip, _), TransportHeader::Udp(u)) => {
            Some(u.checksum == 0 || u.calc_checksum_ipv4(&ip, payload).ok()? == u.checksum)
        }
        (NetHeaders::Ipv6(ip, _), TransportHeader::Udp(u)) => {
            Some(u.calc_checksum_ipv6(&ip, payload).ok()? == u.checksum)
        }
        _ => None,
    }
}

/// Fills a Partial the way a device would: naive sum from `start` to the IP end,
/// complement, store (UDP: 0 goes out as 0xFFFF).
pub fn finish(frame: &[u8], raw_ip: bool, start: usize, offset: usize, udp: bool) -> Vec<u8> {
    let mut f = frame.to_vec();
    let end = ip_end(frame, raw_ip).unwrap_or(frame.len());
    let mut c = !naive_fold(naive_sum(&f[start..end], 0));
    if udp && c == 0 {
        c = 0xFFFF;
    }
    f[start + offset..start + offset + 2].copy_from_slice(&c.to_be_bytes());
    f
}

fn is_udp(frame: &[u8], raw_ip: bool) -> bool {
    let Some(l3) = l3_of(frame, raw_ip) else {
        return false;
    };
    match frame.get(l3).map(|b| b >> 4) {
        Some(4) => frame.get(l3 + 9) == Some(&17),
        Some(6) => frame.get(l3 + 6) == Some(&17),
        _ => false,
    }
}

/// Judges `meta` against the bytes of a plain (untunnelled) packet.
/// `Err` names the broken claim.
pub fn sound(frame: &[u8], raw_ip: bool, meta: &CsumMeta) -> Result<(), String> {
    let flags = meta.flags();
    match meta.state() {
        CsumState::None => {}
        CsumState::Unnecessary { level } => {
            if level.get() > 0 {
                return Err(format!(
                    "level {} on a packet with one checksum",
                    level.get()
                ));
            }
            if l4_ok(frame, raw_ip) != Some(true) {
                return Err("Unnecessary on a packet whose L4 checksum is wrong".into());
            }
        }
        CsumState::Complete { .. } => return Err("Complete is not judged here".into()),
        CsumState::Partial {
            start,
            offset,
            kind,
        } => {
            if kind != PartialKind::Inet {
                return Err("CRC32c Partial not judged here".into());
            }
            let end = ip_end(frame, raw_ip).unwrap_or(frame.len());
            if start + offset + 2 > end {
                return Err(format!(
                    "Partial field {}..{} beyond packet end {end}",
                    start + offset,
                    start + offset + 2
                ));
            }
            let done = finish(frame, raw_ip, start, offset, is_udp(frame, raw_ip));
            if l4_ok(&done, raw_ip) != Some(true) {
                return Err(format!(
                    "finishing Partial({start},{offset}) does not give a valid checksum"
                ));
            }
        }
    }
    if flags.contains(CsumFlags::DATA_VALID)
        && !flags.contains(CsumFlags::CSUM_BLANK)
        && !matches!(meta.state(), CsumState::Partial { .. })
        && l4_ok(frame, raw_ip) != Some(true)
    {
        return Err("DATA_VALID on a filled field that is wrong".into());
    }
    Ok(())
}
