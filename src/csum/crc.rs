//! CRC-32C (Castagnoli, reflected), as SCTP (RFC 9260) and iSCSI (RFC 3720) use it.
//!
//! Representation: a 32-bit register `r` stands for the polynomial whose
//! `x^(31-i)` coefficient is bit `i` (reflected). Multiplying by `x` is a right
//! shift that reduces by [`POLY`] when bit 0 falls off. The raw register over a
//! message `M` (init 0) is `M(x)·x^32 mod P`; the public functions invert the
//! register on entry and exit (init and final XOR `0xFFFF_FFFF`).
//!
//! This file holds the portable slice-by-8 kernel, the GF(2) arithmetic that
//! the combine and the SIMD kernels' constants are built from, and the public
//! entry points (which dispatch through `arch`).

#![forbid(unsafe_code)]

use super::arch;

/// Reflected Castagnoli polynomial (`0x1EDC6F41` bit-reversed, without `x^32`).
pub(crate) const POLY: u32 = 0x82F6_3B78;

/// Slice-by-8 tables: `TABLES[0]` is the byte table; `TABLES[k][b]` is
/// `TABLES[0][b]` advanced over `k` more zero bytes.
static TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            i += 1;
        }
        k += 1;
    }
    t
};

/// One table lookup (the index is masked to a byte, so it is always in range).
#[inline(always)]
fn tab(k: usize, idx: u32) -> u32 {
    TABLES[k & 7][(idx & 0xFF) as usize]
}

/// Advances the raw register over `data`, eight bytes per step (slice-by-8).
pub(crate) fn update_table(mut reg: u32, data: &[u8]) -> u32 {
    let mut words = data.chunks_exact(8);
    for c in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        let w = u64::from_le_bytes(b);
        let lo = (w as u32) ^ reg;
        let hi = (w >> 32) as u32;
        reg = tab(7, lo)
            ^ tab(6, lo >> 8)
            ^ tab(5, lo >> 16)
            ^ tab(4, lo >> 24)
            ^ tab(3, hi)
            ^ tab(2, hi >> 8)
            ^ tab(1, hi >> 16)
            ^ tab(0, hi >> 24);
    }
    update_bytes(reg, words.remainder())
}

/// Advances the raw register one byte at a time (tails only).
#[inline]
pub(crate) fn update_bytes(mut reg: u32, data: &[u8]) -> u32 {
    for &b in data {
        reg = (reg >> 8) ^ tab(0, reg ^ b as u32);
    }
    reg
}

/// `a·b mod P` in the reflected representation (`0x8000_0000` is 1).
pub(crate) const fn mul_mod(a: u32, mut b: u32) -> u32 {
    let mut m = 1u32 << 31;
    let mut p = 0u32;
    while m != 0 {
        if a & m != 0 {
            p ^= b;
        }
        m >>= 1;
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
    }
    p
}

/// `X2N[k] = x^(2^k) mod P` for `k < 67`, enough for `x^(8·n)` with any `u64` n.
const X2N: [u32; 67] = {
    let mut t = [0u32; 67];
    t[0] = 1 << 30; // x^1
    let mut k = 1;
    while k < 67 {
        t[k] = mul_mod(t[k - 1], t[k - 1]);
        k += 1;
    }
    t
};

/// `x^n mod P` (reflected) for any `n`.
pub(crate) const fn x_pow(mut n: u64) -> u32 {
    let mut p = 1u32 << 31;
    let mut k = 0;
    while n != 0 {
        if n & 1 != 0 {
            p = mul_mod(X2N[k], p);
        }
        n >>= 1;
        k += 1;
    }
    p
}

/// `x^(8·bytes) mod P`: the factor that moves a register past `bytes` bytes.
const fn x_pow_bytes(bytes: u64) -> u32 {
    // 8·bytes can exceed u64 only for bytes >= 2^61; split the exponent.
    let hi = bytes >> 60;
    let lo = bytes & ((1 << 60) - 1);
    let mut p = x_pow(8 * lo);
    let mut i = 0;
    while i < hi {
        p = mul_mod(p, x_pow(1 << 63));
        i += 1;
    }
    p
}

/// Tables that multiply a register by a fixed `x^(8·n)` one byte at a time:
/// `shift(r) = T[0][r & 0xFF] ^ T[1][(r >> 8) & 0xFF] ^ T[2][..] ^ T[3][r >> 24]`
/// (the table-driven multiply the three-stream kernel combines with).
#[cfg_attr(
    not(all(target_arch = "x86_64", not(target_os = "none"))),
    allow(dead_code)
)]
pub(crate) const fn shift_tables(bytes: u64) -> [[u32; 256]; 4] {
    let k = x_pow_bytes(bytes);
    let mut t = [[0u32; 256]; 4];
    let mut j = 0;
    while j < 4 {
        let mut b = 0;
        while b < 256 {
            t[j][b] = mul_mod(k, (b as u32) << (8 * j));
            b += 1;
        }
        j += 1;
    }
    t
}

/// Applies a shift table set to a register.
#[cfg_attr(
    not(all(target_arch = "x86_64", not(target_os = "none"))),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn shift_by(t: &[[u32; 256]; 4], r: u32) -> u32 {
    t[0][(r & 0xFF) as usize]
        ^ t[1][((r >> 8) & 0xFF) as usize]
        ^ t[2][((r >> 16) & 0xFF) as usize]
        ^ t[3][(r >> 24) as usize]
}

/// CRC-32C of `data` (init and final XOR 0xFFFFFFFF): `"123456789"` gives 0xE3069283.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c_append(0, data)
}

/// Continues a CRC-32C: `crc32c_append(crc32c(a), b) == crc32c(a ++ b)`.
#[inline]
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    !arch::crc_update(!crc, data)
}

/// The CRC-32C of `a ++ b` from `crc32c(a)`, `crc32c(b)` and `b.len()`
/// (zlib's `crc32_combine`; lets streams computed apart, e.g. per segment, be joined).
///
/// Costs `O(log len_b)` multiplications and reads no data.
pub fn crc32c_combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    mul_mod(x_pow_bytes(len_b), crc_a) ^ crc_b
}
