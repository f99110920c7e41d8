//! DPDK 22.11's transmit contract written again from its headers, independent
//! of the crate: the `RTE_MBUF_F_TX_*` values (`rte_mbuf_core.h`),
//! `rte_validate_tx_offload` (`rte_mbuf.h`), `rte_ipv4_phdr_cksum` /
//! `rte_ipv6_phdr_cksum` (`rte_ip.h`) and `rte_net_intel_cksum_flags_prepare`
//! (`rte_net.h`). Sums come from the naive RFC 1071 loop.

use super::common::oracle::naive;
use netoffload::state::paravirt::dpdk::TxOffload;

pub const UDP_SEG: u64 = 1 << 42;
pub const TUNNEL_MASK: u64 = 0xF << 45;
pub const TCP_SEG: u64 = 1 << 50;
pub const L4_MASK: u64 = 3 << 52;
pub const TCP_CKSUM: u64 = 1 << 52;
pub const SCTP_CKSUM: u64 = 2 << 52;
pub const UDP_CKSUM: u64 = 3 << 52;
pub const IP_CKSUM: u64 = 1 << 54;
pub const IPV4: u64 = 1 << 55;
pub const IPV6: u64 = 1 << 56;
pub const VLAN: u64 = 1 << 57;
pub const OUTER_IP_CKSUM: u64 = 1 << 58;
pub const OUTER_IPV4: u64 = 1 << 59;
pub const OUTER_IPV6: u64 = 1 << 60;
pub const OUTER_UDP_CKSUM: u64 = 1 << 41;
/// `RTE_MBUF_F_TX_OFFLOAD_MASK`: the header lists OUTER_IPV6, OUTER_IPV4,
/// OUTER_IP_CKSUM, VLAN, IPV6, IPV4, IP_CKSUM, L4_MASK, IEEE1588_TMST,
/// TCP_SEG, QINQ, TUNNEL_MASK, MACSEC, SEC_OFFLOAD, UDP_SEG and
/// OUTER_UDP_CKSUM: every bit from 41 to 60.
pub const OFFLOAD_MASK: u64 = 0xF_FFFF << 41;

/// Why `rte_validate_tx_offload` returns `-EINVAL` (in its order), if it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Einval {
    IpChecksumOnIpv6,
    L4WithoutIpVersion,
    TsoWithoutSegmentSize,
    Ipv4TsoWithoutIpChecksum,
    OuterIpChecksumWithoutOuterIpv4,
}

/// `rte_validate_tx_offload`.
pub fn validate(f: u64, tso_segsz: u16) -> Option<Einval> {
    let on = |b: u64| f & b != 0;
    if !on(OFFLOAD_MASK) {
        None
    } else if on(IP_CKSUM) && on(IPV6) {
        Some(Einval::IpChecksumOnIpv6)
    } else if on(L4_MASK | TCP_SEG) && !on(IPV4 | IPV6) {
        Some(Einval::L4WithoutIpVersion)
    } else if on(TCP_SEG) && tso_segsz == 0 {
        Some(Einval::TsoWithoutSegmentSize)
    } else if on(TCP_SEG) && on(IPV4) && !on(IP_CKSUM) {
        Some(Einval::Ipv4TsoWithoutIpChecksum)
    } else if on(OUTER_IP_CKSUM) && !on(OUTER_IPV4) {
        Some(Einval::OuterIpChecksumWithoutOuterIpv4)
    } else {
        None
    }
}

/// Which flags leave the pseudo-header length out: 22.11 tests `TCP_SEG`
/// only; later releases add `UDP_SEG`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    Dpdk2211,
    Later,
}

fn length_less(f: u64, release: Release) -> bool {
    match release {
        Release::Dpdk2211 => f & TCP_SEG != 0,
        Release::Later => f & (TCP_SEG | UDP_SEG) != 0,
    }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// `rte_ipv4_phdr_cksum(hdr at ip, flags)`: addresses, protocol, and
/// `total_length - ihl` unless length-less.
pub fn ipv4_phdr(b: &[u8], ip: usize, f: u64, release: Release) -> u16 {
    let len = if length_less(f, release) {
        0
    } else {
        // `(uint16_t)(total_length - ihl)`: wraps on a garbage header.
        usize::from(be16(b, ip + 2).wrapping_sub(u16::from(b[ip] & 0xF) * 4))
    };
    naive::fold(naive::pseudo(
        &b[ip + 12..ip + 16],
        &b[ip + 16..ip + 20],
        b[ip + 9],
        len,
    ))
}

/// `rte_ipv6_phdr_cksum(hdr at ip, flags)`: addresses, the fixed header's
/// next header and payload length (so extension headers make it wrong).
pub fn ipv6_phdr(b: &[u8], ip: usize, f: u64, release: Release) -> u16 {
    let len = if length_less(f, release) {
        0
    } else {
        usize::from(be16(b, ip + 4))
    };
    naive::fold(naive::pseudo(
        &b[ip + 8..ip + 24],
        &b[ip + 24..ip + 40],
        b[ip + 6],
        len,
    ))
}

fn put(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// `rte_net_intel_cksum_flags_prepare(m, m->ol_flags)` on a one-segment mbuf:
/// `Err(())` for its `-ENOTSUP` (headers past the data).
pub fn intel_prepare(b: &mut [u8], tx: &TxOffload, release: Release) -> Result<(), ()> {
    let f = tx.ol_flags;
    let on = |x: u64| f & x != 0;
    if !on(IP_CKSUM | L4_MASK | TCP_SEG | OUTER_IP_CKSUM | OUTER_UDP_CKSUM) {
        return Ok(());
    }
    let mut inner = usize::from(tx.l2_len);
    if on(OUTER_IPV4 | OUTER_IPV6) {
        let ol2 = usize::from(tx.outer_l2_len);
        let udp = ol2 + usize::from(tx.outer_l3_len);
        inner += usize::from(tx.outer_l2_len) + usize::from(tx.outer_l3_len);
        if on(OUTER_IP_CKSUM) {
            put(b, ol2 + 10, 0);
        }
        if on(OUTER_UDP_CKSUM) {
            let seed = if on(OUTER_IPV4) {
                ipv4_phdr(b, ol2, f, release)
            } else {
                ipv6_phdr(b, ol2, f, release)
            };
            put(b, udp + 6, seed);
        }
    }
    if b.len() < inner + usize::from(tx.l3_len) + usize::from(tx.l4_len) {
        return Err(());
    }
    let l4 = inner + usize::from(tx.l3_len);
    if on(IPV4) && on(IP_CKSUM) {
        put(b, inner + 10, 0);
    }
    let phdr = |b: &[u8]| {
        if on(IPV4) {
            ipv4_phdr(b, inner, f, release)
        } else {
            ipv6_phdr(b, inner, f, release)
        }
    };
    if f & L4_MASK == UDP_CKSUM {
        let s = phdr(b);
        put(b, l4 + 6, s);
    } else if f & L4_MASK == TCP_CKSUM || on(TCP_SEG) {
        let s = phdr(b);
        put(b, l4 + 16, s);
    }
    Ok(())
}
