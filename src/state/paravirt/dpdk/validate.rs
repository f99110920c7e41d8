//! `rte_validate_tx_offload` (DPDK 22.11 `rte_mbuf.h`): the flag combinations
//! DPDK itself refuses with `-EINVAL`, one named rule each.

use crate::state::paravirt::error::{BoundaryError, MetaField, Rule};

use super::{TxOffload, ol};

/// Refuses what `rte_validate_tx_offload` refuses, naming the broken rule.
///
/// Both directions call it: a request [`meta_to_tx`](super::meta_to_tx) makes
/// or [`tx_to_meta`](super::tx_to_meta) accepts is one DPDK accepts. The rules
/// are checked in DPDK's order, so the first broken one is the one named.
pub fn validate_tx_offload(tx: &TxOffload) -> Result<(), BoundaryError> {
    let has = |bits: u64| tx.ol_flags & bits != 0;
    // No offload bit at all: DPDK checks nothing.
    if !has(ol::TX_OFFLOAD_MASK) {
        return Ok(());
    }
    let flags = |rule| Err(BoundaryError::forbidden(MetaField::DpdkOlFlags, rule));
    if has(ol::TX_IP_CKSUM) && has(ol::TX_IPV6) {
        return flags(Rule::DpdkIpChecksumOnIpv6);
    }
    if has(ol::TX_L4_MASK | ol::TX_TCP_SEG) && !has(ol::TX_IPV4 | ol::TX_IPV6) {
        return flags(Rule::DpdkL4WithoutIpVersion);
    }
    if has(ol::TX_TCP_SEG) && tx.tso_segsz == 0 {
        return Err(BoundaryError::forbidden(
            MetaField::DpdkTsoSegsz,
            Rule::DpdkTsoWithoutSegmentSize,
        ));
    }
    if has(ol::TX_TCP_SEG) && has(ol::TX_IPV4) && !has(ol::TX_IP_CKSUM) {
        return flags(Rule::DpdkIpv4TsoWithoutIpChecksum);
    }
    if has(ol::TX_OUTER_IP_CKSUM) && !has(ol::TX_OUTER_IPV4) {
        return flags(Rule::DpdkOuterIpChecksumWithoutOuterIpv4);
    }
    Ok(())
}
