//! The merge rules that compare one header field of a segment with the held
//! packet's, one row each: which bytes, which mask, which [`FlushReason`].
//!
//! Linux writes each as one `flush |= a ^ b` line (`tcp_gro_receive`'s
//! `tcp_flag_word` and ack compares, `inet_gro_flush` / `ipv6_gro_flush`'s
//! TTL, TOS and DF). Here the general path walks these tables in order and
//! names the first row that differs; the fixed-layout fast compares are
//! masks built from the same rows (`const fn`), so a row deleted or changed
//! here changes both. Rules that are arithmetic (IP ID modes, sequence,
//! segment size, size limit) or variable-length (TCP options, IPv6
//! extension headers) stay code in `flow.rs`. The predicted-header compare
//! (`expect.rs`) is stricter than these rows (every byte but the ID,
//! checksums and sequence must be equal), so it needs no row of its own.

use super::layout::IP4_TOS;
use super::reason::FlushReason;
use crate::wire::{ipv4, ipv6, tcp};

/// `len` (1..=4) bytes at `at` of a header, read big-endian, under `mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    /// Offset in its header.
    pub at: usize,
    /// Bytes (1..=4).
    pub len: usize,
    /// The bits compared.
    pub mask: u32,
}

impl Field {
    const fn new(at: usize, len: usize, mask: u32) -> Field {
        Field { at, len, mask }
    }

    /// The masked value in `h` for a header at `o` (`None` out of range).
    #[inline(always)]
    pub(crate) fn get(self, h: &[u8], o: usize) -> Option<u32> {
        let bytes = h.get(o + self.at..o + self.at + self.len)?;
        Some(bytes.iter().fold(0u32, |v, &b| (v << 8) | b as u32) & self.mask)
    }

    /// True when the field differs between the header at `ao` in `a` and the
    /// one at `bo` in `b`.
    #[inline(always)]
    pub(crate) fn differs(self, a: &[u8], ao: usize, b: &[u8], bo: usize) -> bool {
        self.get(a, ao) != self.get(b, bo)
    }

    /// The field's bits in a host-order 8-byte load from offset `word` of
    /// the same header (zero outside the load).
    const fn mask_in_word(self, word: usize) -> u64 {
        let mut out = [0u8; 8];
        let mut i = 0;
        while i < self.len {
            let at = self.at + i;
            if at >= word && at < word + 8 {
                out[at - word] = (self.mask >> (8 * (self.len - 1 - i))) as u8;
            }
            i += 1;
        }
        u64::from_ne_bytes(out)
    }
}

/// One field rule of a header that exists in one form.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rule {
    /// The field.
    pub field: Field,
    /// The reason a difference names.
    pub reason: FlushReason,
}

/// One field rule of an IP header: its IPv4 and IPv6 field (`None` when
/// the version has no such field).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IpRule {
    /// The IPv4 field.
    pub v4: Option<Field>,
    /// The IPv6 field.
    pub v6: Option<Field>,
    /// The reason a difference names.
    pub reason: FlushReason,
}

const TCP_FIN: u32 = 0x01;
const TCP_PSH: u32 = 0x08;
const TCP_CWR: u32 = 0x80;

/// The `tcp_flag_word`: data offset, reserved / AE bits, flags, window.
const fn flag_word(mask: u32) -> Field {
    Field::new(tcp::DATA_OFFSET_OFFSET, 4, mask)
}

/// The TCP rules, in the order they are checked (`tcp_gro_receive`): the
/// flag word's parts, then the ack. FIN and PSH may differ (they are ORed
/// into the super-packet).
pub(crate) const TCP_RULES: [Rule; 5] = [
    Rule {
        field: flag_word(0xF000_0000),
        reason: FlushReason::OptionsDiffer,
    },
    Rule {
        field: flag_word(TCP_CWR << 16),
        reason: FlushReason::Cwr,
    },
    Rule {
        field: flag_word(0x0FFF_0000 & !((TCP_FIN | TCP_PSH) << 16)),
        reason: FlushReason::FlagsDiffer,
    },
    Rule {
        field: flag_word(0x0000_FFFF),
        reason: FlushReason::WindowDiffer,
    },
    Rule {
        field: Field::new(tcp::ACK_OFFSET, 4, u32::MAX),
        reason: FlushReason::AckDiffer,
    },
];

/// The IP field rules, in the order they are checked per IP layer
/// (`inet_gro_flush` / `ipv6_gro_flush`); the ID and the IPv6 extension
/// headers follow them in `flow.rs`.
pub(crate) const IP_RULES: [IpRule; 3] = [
    IpRule {
        v4: Some(Field::new(ipv4::TTL_OFFSET, 1, 0xFF)),
        v6: Some(Field::new(ipv6::HOP_LIMIT_OFFSET, 1, 0xFF)),
        reason: FlushReason::TtlDiffer,
    },
    IpRule {
        v4: Some(Field::new(IP4_TOS, 1, 0xFF)),
        // The traffic class, between the version and the flow label.
        v6: Some(Field::new(0, 4, 0x0FF0_0000)),
        reason: FlushReason::TosDiffer,
    },
    IpRule {
        v4: Some(Field::new(ipv4::FRAG_OFFSET, 2, ipv4::FLAG_DF as u32)),
        v6: None,
        reason: FlushReason::DfDiffer,
    },
];

/// The bits of every TCP rule in a host-order 8-byte load from TCP offset
/// `word`: a word compare under this mask is all of [`TCP_RULES`] there.
pub(crate) const fn tcp_rules_mask(word: usize) -> u64 {
    let mut m = 0;
    let mut i = 0;
    while i < TCP_RULES.len() {
        m |= TCP_RULES[i].field.mask_in_word(word);
        i += 1;
    }
    m
}

/// The bits of every IPv4 rule of [`IP_RULES`] in a host-order 8-byte load
/// from IPv4 offset `word`.
pub(crate) const fn ip4_rules_mask(word: usize) -> u64 {
    let mut m = 0;
    let mut i = 0;
    while i < IP_RULES.len() {
        if let Some(f) = IP_RULES[i].v4 {
            m |= f.mask_in_word(word);
        }
        i += 1;
    }
    m
}

/// The bits of every IPv6 rule of [`IP_RULES`] in a host-order 8-byte load
/// from IPv6 offset `word`.
pub(crate) const fn ip6_rules_mask(word: usize) -> u64 {
    let mut m = 0;
    let mut i = 0;
    while i < IP_RULES.len() {
        if let Some(f) = IP_RULES[i].v6 {
            m |= f.mask_in_word(word);
        }
        i += 1;
    }
    m
}

/// The first rule of [`TCP_RULES`] the TCP headers at `ao` in `a` and `bo`
/// in `b` break.
#[inline(always)]
pub(crate) fn tcp_rule_broken(a: &[u8], ao: usize, b: &[u8], bo: usize) -> Option<FlushReason> {
    TCP_RULES
        .iter()
        .find(|r| r.field.differs(a, ao, b, bo))
        .map(|r| r.reason)
}

/// The first rule of [`IP_RULES`] the IP headers (IPv6 when `v6`) at `ao`
/// in `a` and `bo` in `b` break.
#[inline(always)]
pub(crate) fn ip_rule_broken(
    a: &[u8],
    ao: usize,
    b: &[u8],
    bo: usize,
    v6: bool,
) -> Option<FlushReason> {
    IP_RULES
        .iter()
        .find(|r| {
            let field = if v6 { r.v6 } else { r.v4 };
            field.is_some_and(|f| f.differs(a, ao, b, bo))
        })
        .map(|r| r.reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived masks are the ones the fast paths were written with.
    #[test]
    fn derived_masks() {
        let ack_flags_window = !u64::from_ne_bytes([0, 0, 0, 0, 0, 0x09, 0, 0]);
        assert_eq!(tcp_rules_mask(tcp::ACK_OFFSET), ack_flags_window);
        let tos_df_ttl = u64::from_ne_bytes([0xFF, 0, 0, 0, 0, 0x40, 0, 0xFF]);
        assert_eq!(ip4_rules_mask(IP4_TOS), tos_df_ttl);
    }

    /// Each row names its own field: a header differing in one field's
    /// bits breaks that row first.
    #[test]
    fn each_row_names_its_field() {
        for r in TCP_RULES {
            let a = [0u8; 20];
            let mut b = a;
            let low = r.field.mask.trailing_zeros() as usize;
            let byte = r.field.at + r.field.len - 1 - low / 8;
            b[byte] ^= 1 << (low % 8);
            assert_eq!(tcp_rule_broken(&a, 0, &b, 0), Some(r.reason), "{r:?}");
        }
        for v6 in [false, true] {
            for r in IP_RULES {
                let Some(f) = (if v6 { r.v6 } else { r.v4 }) else {
                    continue;
                };
                let a = [0u8; 40];
                let mut b = a;
                let low = f.mask.trailing_zeros() as usize;
                b[f.at + f.len - 1 - low / 8] ^= 1 << (low % 8);
                assert_eq!(ip_rule_broken(&a, 0, &b, 0, v6), Some(r.reason));
            }
        }
    }
}
