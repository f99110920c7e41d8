//! Short-slice sum with an x86-64 `add`/`adc` chain (the shape of Linux's
//! x86-64 `csum_partial`): for data up to `scalar::SMALL` bytes one carry
//! chain issues fewer instructions than any vector kernel's setup and
//! horizontal reduction, and needs no dispatch.
//!
//! Invariant as `scalar::sum_small`: a 64-bit end-around-carry sum keeps the
//! residue modulo `2^64 - 1` (so modulo `2^32 - 1`) and is zero only when every
//! term is.

use crate::csum::scalar;

/// `s` plus the 32 bytes at `c`, end-around carry.
#[inline(always)]
fn adc32(s: u64, c: &[u8; 32]) -> u64 {
    let mut s = s;
    // SAFETY: `c` is 32 readable bytes; the asm reads exactly [p, p + 32) and
    // changes only `s` and the flags (no stack, no writes to memory).
    unsafe {
        core::arch::asm!(
            "add {s}, qword ptr [{p}]",
            "adc {s}, qword ptr [{p} + 8]",
            "adc {s}, qword ptr [{p} + 16]",
            "adc {s}, qword ptr [{p} + 24]",
            "adc {s}, 0",
            s = inout(reg) s,
            p = in(reg) c.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    s
}

/// `s` plus the 64 bytes at `c`, end-around carry.
#[inline(always)]
fn adc64(s: u64, c: &[u8; 64]) -> u64 {
    let mut s = s;
    // SAFETY: `c` is 64 readable bytes; the asm reads exactly [p, p + 64) and
    // changes only `s` and the flags (no stack, no writes to memory).
    unsafe {
        core::arch::asm!(
            "add {s}, qword ptr [{p}]",
            "adc {s}, qword ptr [{p} + 8]",
            "adc {s}, qword ptr [{p} + 16]",
            "adc {s}, qword ptr [{p} + 24]",
            "adc {s}, qword ptr [{p} + 32]",
            "adc {s}, qword ptr [{p} + 40]",
            "adc {s}, qword ptr [{p} + 48]",
            "adc {s}, qword ptr [{p} + 56]",
            "adc {s}, 0",
            s = inout(reg) s,
            p = in(reg) c.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    s
}

/// `s + w` with the carry added back in.
#[inline(always)]
fn add1(s: u64, w: u64) -> u64 {
    let (t, c) = s.overflowing_add(w);
    t + c as u64
}

/// `init` plus the raw sum of `data` (any length; meant for at most
/// `scalar::SMALL` bytes, longer data takes 32-byte steps).
#[inline(always)]
pub(crate) fn sum_small(data: &[u8], init: u64) -> u64 {
    let mut s = init;
    let mut rest = data;
    if let Some((c, r)) = rest.split_first_chunk::<64>() {
        s = adc64(s, c);
        rest = r;
    }
    while let Some((c, r)) = rest.split_first_chunk::<32>() {
        s = adc32(s, c);
        rest = r;
    }
    if let Some((c, r)) = rest.split_first_chunk::<16>() {
        let (x, y) = c.split_at(8);
        s = add1(add1(s, scalar::word(x)), scalar::word(y));
        rest = r;
    }
    if let Some((c, _)) = rest.split_first_chunk::<8>() {
        s = add1(s, scalar::word(c));
    }
    let r = rest.len() & 7;
    if r != 0 {
        s = add1(s, scalar::last_bytes(data, r));
    }
    s
}
