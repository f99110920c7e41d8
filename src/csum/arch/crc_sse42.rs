//! CRC32c with the SSE4.2 `crc32` instruction.
//!
//! The instruction has a latency of about three cycles and a throughput of one
//! per cycle, so one stream runs at a third of the possible speed. Long
//! buffers are cut into three equal blocks summed as independent streams
//! (the last two starting from register 0) and joined by linearity:
//! `crc(r, A‖B‖C) = r_A·x^(16n) ⊕ r_B·x^(8n) ⊕ r_C` for blocks of `n` bytes,
//! the multiplications done with the byte tables of `crc::shift_tables`.

use core::arch::x86_64::{_mm_crc32_u8, _mm_crc32_u16, _mm_crc32_u32, _mm_crc32_u64};

use crate::csum::crc::{shift_by, shift_tables};

/// Block length of the long rounds (three blocks per round).
const LONG: usize = 1024;
/// Block length of the short rounds.
const SHORT: usize = 128;

static LONG1: [[u32; 256]; 4] = shift_tables(LONG as u64);
static LONG2: [[u32; 256]; 4] = shift_tables(2 * LONG as u64);
static SHORT1: [[u32; 256]; 4] = shift_tables(SHORT as u64);
static SHORT2: [[u32; 256]; 4] = shift_tables(2 * SHORT as u64);

/// One little-endian word from an 8-byte chunk.
#[inline(always)]
fn le64(c: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(c);
    u64::from_le_bytes(b)
}

/// One stream over `data`, eight bytes per instruction, then the `< 8` tail.
#[inline]
#[target_feature(enable = "sse4.2")]
pub(super) fn single(reg: u32, data: &[u8]) -> u32 {
    let mut r = reg as u64;
    let mut words = data.chunks_exact(8);
    for c in &mut words {
        r = _mm_crc32_u64(r, le64(c));
    }
    // The `< 8` tail as at most a word, a half-word and a byte (three steps in
    // the chain instead of up to seven).
    let mut r = r as u32;
    let mut rest = words.remainder();
    if let Some((w, tail)) = rest.split_first_chunk::<4>() {
        r = _mm_crc32_u32(r, u32::from_le_bytes(*w));
        rest = tail;
    }
    if let Some((h, tail)) = rest.split_first_chunk::<2>() {
        r = _mm_crc32_u16(r, u16::from_le_bytes(*h));
        rest = tail;
    }
    if let Some(&b) = rest.first() {
        r = _mm_crc32_u8(r, b);
    }
    r
}

/// Three streams over `3 * n` bytes of `data` (`n` a multiple of 8).
#[inline]
#[target_feature(enable = "sse4.2")]
fn three(reg: u32, data: &[u8], n: usize, t1: &[[u32; 256]; 4], t2: &[[u32; 256]; 4]) -> u32 {
    let (a, bc) = data.split_at(n);
    let (b, c) = bc.split_at(n);
    let (mut ra, mut rb, mut rc) = (reg as u64, 0u64, 0u64);
    for ((x, y), z) in a
        .chunks_exact(8)
        .zip(b.chunks_exact(8))
        .zip(c.chunks_exact(8))
    {
        ra = _mm_crc32_u64(ra, le64(x));
        rb = _mm_crc32_u64(rb, le64(y));
        rc = _mm_crc32_u64(rc, le64(z));
    }
    shift_by(t2, ra as u32) ^ shift_by(t1, rb as u32) ^ rc as u32
}

/// Advances the raw register over `data`.
///
/// # Safety
/// The CPU must support SSE4.2.
#[target_feature(enable = "sse4.2")]
pub(super) unsafe fn update(reg: u32, data: &[u8]) -> u32 {
    stream3(reg, data)
}

/// The three-stream loop (safe inside an SSE4.2 context).
#[inline]
#[target_feature(enable = "sse4.2")]
pub(super) fn stream3(mut reg: u32, mut data: &[u8]) -> u32 {
    while data.len() >= 3 * LONG {
        let (round, rest) = data.split_at(3 * LONG);
        reg = three(reg, round, LONG, &LONG1, &LONG2);
        data = rest;
    }
    while data.len() >= 3 * SHORT {
        let (round, rest) = data.split_at(3 * SHORT);
        reg = three(reg, round, SHORT, &SHORT1, &SHORT2);
        data = rest;
    }
    single(reg, data)
}
