//! Naive RFC 1071 arithmetic shared by every test oracle (support, encap,
//! paravirt, tx): big-endian byte pairs added into a `u64`, an odd last byte
//! padded with zero, folded at the end. Independent of `netoffload::csum`.
#![allow(dead_code)]

/// Adds the big-endian 16-bit words of `data` to `acc`, unfolded.
pub fn words(data: &[u8], mut acc: u64) -> u64 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u64::from(*last) << 8;
    }
    acc
}

/// Folds an unfolded sum to 16 bits (no complement).
pub fn fold(mut acc: u64) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    acc as u16
}

/// The folded (not complemented) sum of `data` on top of `init`.
pub fn sum(data: &[u8], init: u64) -> u16 {
    fold(words(data, init))
}

/// The pseudo-header word sum (unfolded): both addresses, the protocol and
/// the 32-bit length.
pub fn pseudo(src: &[u8], dst: &[u8], proto: u8, len: usize) -> u64 {
    let len = len as u64;
    words(dst, words(src, 0)) + u64::from(proto) + (len & 0xFFFF) + (len >> 16)
}
