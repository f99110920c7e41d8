//! Kernel levels: which implementation of the sum and of CRC32c runs.
//!
//! The best level is found once at run time (CPUID read by hand, no `std`) and
//! cached in an atomic; tests and benchmarks may force a lower one. A level the
//! CPU lacks can never be selected, so forcing is always safe.

#![forbid(unsafe_code)]

use core::fmt;

/// Implementation level of the ones-complement sum ([`partial`](super::partial),
/// [`partial_copy`](super::partial_copy)); ordered from slowest to fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Level {
    /// Portable 64-bit scalar code (every target).
    Scalar = 0,
    /// x86-64 SSE2, 16-byte vectors (every x86-64 CPU).
    Sse2 = 1,
    /// x86-64 AVX2, 32-byte vectors (Haswell, Zen and later).
    Avx2 = 2,
    /// x86-64 AVX-512F+BW (and BMI2), 64-byte vectors with masked head and tail (Ice Lake, Zen 4).
    Avx512 = 3,
}

impl Level {
    /// Every level, slowest first (for tests and benchmarks that try each one).
    pub const ALL: [Level; 4] = [Level::Scalar, Level::Sse2, Level::Avx2, Level::Avx512];

    /// Short lower-case name, used in benchmark ids.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Sse2 => "sse2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// From the `repr(u8)` value; `None` for anything else.
    pub(crate) const fn from_u8(v: u8) -> Option<Level> {
        match v {
            0 => Some(Level::Scalar),
            1 => Some(Level::Sse2),
            2 => Some(Level::Avx2),
            3 => Some(Level::Avx512),
            _ => None,
        }
    }
}

/// Implementation level of CRC32c ([`crc32c`](super::crc32c)); ordered from
/// slowest to fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum CrcLevel {
    /// Portable slice-by-8 tables (every target).
    Table = 0,
    /// x86-64 SSE4.2 `crc32` instruction, three interleaved streams.
    Sse42 = 1,
    /// SSE4.2 plus PCLMULQDQ folding of 128-byte blocks for long buffers.
    Pclmul = 2,
    /// SSE4.2 plus AVX-512 VPCLMULQDQ folding of 256-byte blocks for long buffers.
    Vpclmul = 3,
}

impl CrcLevel {
    /// Every level, slowest first.
    pub const ALL: [CrcLevel; 4] = [
        CrcLevel::Table,
        CrcLevel::Sse42,
        CrcLevel::Pclmul,
        CrcLevel::Vpclmul,
    ];

    /// Short lower-case name, used in benchmark ids.
    pub const fn name(self) -> &'static str {
        match self {
            CrcLevel::Table => "table",
            CrcLevel::Sse42 => "sse42",
            CrcLevel::Pclmul => "pclmul",
            CrcLevel::Vpclmul => "vpclmul",
        }
    }

    /// From the `repr(u8)` value; `None` for anything else.
    pub(crate) const fn from_u8(v: u8) -> Option<CrcLevel> {
        match v {
            0 => Some(CrcLevel::Table),
            1 => Some(CrcLevel::Sse42),
            2 => Some(CrcLevel::Pclmul),
            3 => Some(CrcLevel::Vpclmul),
            _ => None,
        }
    }
}

/// Why a level could not be selected: this CPU (or target) lacks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The level asked for (as its name).
    pub requested: &'static str,
    /// The best level this CPU supports (as its name).
    pub best: &'static str,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel level {} is not supported here (best: {})",
            self.requested, self.best
        )
    }
}

impl core::error::Error for Unsupported {}
