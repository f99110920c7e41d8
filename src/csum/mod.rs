//! Checksum arithmetic: ones-complement sums (RFC 1071), incremental updates
//! (RFC 1624), pseudo-headers and CRC32c.
//!
//! Knows nothing of what packets mean. Every function here is total (no panic)
//! except [`partial_copy`] with slices of different lengths, like `copy_from_slice`.
//!
//! Byte order follows the kernel: 16-bit words are summed in host order, so a
//! [`Wsum`] is the kernel's `__wsum` and [`Sum16::to_bytes`] gives the header bytes.
#![forbid(unsafe_code)]

mod crc;
mod scalar;
mod types;

pub use crc::{crc32c, crc32c_append};
pub use types::{Sum16, Wsum};

/// Sums `data` onto `init` (Linux `csum_partial`).
///
/// Any length and alignment; `fold(partial(x, init))` equals Linux's
/// `csum_fold(csum_partial(x, len, init))` for every input.
#[inline]
pub fn partial(data: &[u8], init: Wsum) -> Wsum {
    scalar::partial(data, init)
}

/// Copies `src` into `dst` and returns the sum of the bytes (Linux
/// `csum_partial_copy_nocheck`): one pass over the data instead of two.
///
/// # Panics
///
/// If `src.len() != dst.len()`, exactly like `copy_from_slice`.
#[inline]
pub fn partial_copy(src: &[u8], dst: &mut [u8], init: Wsum) -> Wsum {
    dst.copy_from_slice(src);
    scalar::partial(src, init)
}

/// Folds a sum to 16 bits and complements it (Linux `csum_fold`).
#[inline]
pub const fn fold(sum: Wsum) -> Sum16 {
    let s = sum.get();
    let (t, carry) = s.overflowing_add(s.rotate_right(16));
    let t = t.wrapping_add(carry as u32);
    Sum16::from_raw(!((t >> 16) as u16))
}

/// Adds two sums (Linux `csum_add`).
#[inline]
pub const fn add(a: Wsum, b: Wsum) -> Wsum {
    a.add(b)
}

/// Subtracts `b` from `a` (Linux `csum_sub`).
#[inline]
pub const fn sub(a: Wsum, b: Wsum) -> Wsum {
    a.sub(b)
}

/// Adds the sum of a block that starts at byte `offset` of the range `a` covers
/// (Linux `csum_block_add`): an odd offset byte-swaps the block's sum.
#[inline]
pub const fn block_add(a: Wsum, block: Wsum, offset: usize) -> Wsum {
    a.add(block.shifted_by(offset))
}

/// Removes the sum of a block at byte `offset` (Linux `csum_block_sub`).
#[inline]
pub const fn block_sub(a: Wsum, block: Wsum, offset: usize) -> Wsum {
    a.sub(block.shifted_by(offset))
}

/// The IPv4 header checksum over the whole slice (Linux `ip_fast_csum`): 0 when valid.
#[inline]
pub fn ipv4_header(header: &[u8]) -> Sum16 {
    fold(partial(header, Wsum::ZERO))
}

/// Ones-complement sum of the IPv4 pseudo-header plus `init` (Linux `csum_tcpudp_nofold`).
///
/// `len` is the L4 length (header + payload); `fold(pseudo_v4(..))` equals
/// `csum_tcpudp_magic(..)`.
#[inline]
pub const fn pseudo_v4(src: [u8; 4], dst: [u8; 4], proto: u8, len: u32, init: Wsum) -> Wsum {
    init.add(Wsum::new(u32::from_ne_bytes(src)))
        .add(Wsum::new(u32::from_ne_bytes(dst)))
        .add(Wsum::new(u32::from_ne_bytes(
            len.wrapping_add(proto as u32).to_be_bytes(),
        )))
}

/// Ones-complement sum of the IPv6 pseudo-header plus `init` (the unfolded part
/// of Linux `csum_ipv6_magic`, RFC 8200 8.1).
#[inline]
pub fn pseudo_v6(src: &[u8; 16], dst: &[u8; 16], proto: u8, len: u32, init: Wsum) -> Wsum {
    let mut sum = init
        .add(Wsum::new(u32::from_ne_bytes(len.to_be_bytes())))
        .add(Wsum::new(u32::from_ne_bytes((proto as u32).to_be_bytes())));
    for addr in [src, dst] {
        for word in addr.chunks_exact(4) {
            let mut w = [0u8; 4];
            w.copy_from_slice(word);
            sum = sum.add(Wsum::new(u32::from_ne_bytes(w)));
        }
    }
    sum
}

/// Sum of a short field's bytes as they sit in the header (even offset assumed).
#[inline]
fn field_sum(bytes: &[u8]) -> Wsum {
    partial(bytes, Wsum::ZERO)
}

/// Replaces `from` by `to` under a finished checksum field (RFC 1624 eq. 3,
/// Linux `csum_replace4` / `inet_proto_csum_replace4` for non-Partial packets).
///
/// `from` and `to` are the field's bytes in wire order and must lie at an even
/// offset of the covered range, as every IP, TCP and UDP field does.
#[inline]
pub fn replace(field: Sum16, from: &[u8], to: &[u8]) -> Sum16 {
    fold(field.unfold().not().sub(field_sum(from)).add(field_sum(to)))
}

/// [`replace`] for a 16-bit field (Linux `csum_replace2`).
#[inline]
pub fn replace2(field: Sum16, from: [u8; 2], to: [u8; 2]) -> Sum16 {
    replace(field, &from, &to)
}

/// [`replace`] for a 32-bit field such as an IPv4 address (Linux `csum_replace4`).
#[inline]
pub fn replace4(field: Sum16, from: [u8; 4], to: [u8; 4]) -> Sum16 {
    replace(field, &from, &to)
}

/// [`replace`] for an IPv6 address (Linux `inet_proto_csum_replace16`).
#[inline]
pub fn replace16(field: Sum16, from: &[u8; 16], to: &[u8; 16]) -> Sum16 {
    replace(field, from, to)
}

/// Moves a `CHECKSUM_PARTIAL` pseudo-header seed when a pseudo-header field
/// changes (the Partial branch of Linux `inet_proto_csum_replace4/16`).
///
/// The seed is stored uncomplemented, so it moves with the sum: `~fold(seed - from + to)`.
#[inline]
pub fn replace_seed(seed: Sum16, from: &[u8], to: &[u8]) -> Sum16 {
    let moved = fold(seed.unfold().sub(field_sum(from)).add(field_sum(to)));
    Sum16::from_raw(!moved.raw())
}

/// The unfolded sum after `from` is replaced by `to` in the covered bytes
/// (the `skb->csum` update of `inet_proto_csum_replace4` for Complete packets).
#[inline]
pub fn replace_in_sum(sum: Wsum, from: &[u8], to: &[u8]) -> Wsum {
    sum.sub(field_sum(from)).add(field_sum(to))
}
