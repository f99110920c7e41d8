//! Local checksum offload (Linux `lco_csum`, `Documentation/networking/checksum-offloads.rst`):
//! the outer checksum of a packet whose inner checksum is still `Partial`,
//! computed without reading the inner payload.

use crate::csum::{self, Sum16, Wsum};

/// The sum of `buf[outer_l4..end)` as it will be once the device fills the
/// inner `Partial` checksum at `csum_start + csum_offset` (Linux `lco_csum`).
///
/// Once filled, the inner range `[csum_start, end)` sums to the complement of
/// the pseudo-header seed now stored in the field, so only the bytes from the
/// outer L4 header to `csum_start` are read. The outer checksum field inside
/// that range must hold 0 (or its pseudo-header contribution, as `udp_set_csum`
/// arranges). Add the outer pseudo-header for UDP; fold for GRE.
pub fn lco_csum(buf: &[u8], outer_l4: usize, csum_start: usize, csum_offset: usize) -> Wsum {
    let at = csum_start.saturating_add(csum_offset);
    let seed = match buf.get(at..at.saturating_add(2)) {
        Some(&[a, b]) => Sum16::from_bytes([a, b]),
        _ => Sum16::ZERO,
    };
    let headers = csum::partial(buf.get(outer_l4..csum_start).unwrap_or(&[]), Wsum::ZERO);
    csum::block_add(
        headers,
        seed.unfold().not(),
        csum_start.saturating_sub(outer_l4),
    )
}
