//! CPU feature detection, level dispatch and the SIMD kernels: the only place
//! in the crate with `unsafe` code.
//!
//! Detection reads CPUID and XCR0 by hand (no `std`): a vector level counts
//! only when the CPU has the instructions *and* the OS saves the registers
//! (OSXSAVE, XCR0 bits for YMM / opmask+ZMM state). The chosen levels live in
//! two atomics that are only ever written with a level [`detected`] allows, so
//! the dispatchers may call the `#[target_feature]` kernels on that basis.
//!
//! Every kernel returns a *raw sum* `r: u64` with the invariant the scalar
//! reference has: `r ≡ Σ (little-endian u32 words of the data, zero-padded)
//! (mod 2^32 - 1)` and `r == 0` exactly when every byte is zero. Any two raw
//! sums with that invariant fold to the same `Wsum` (see `super::raw_to_wsum`),
//! which is why every level gives the identical `Wsum`, not only the same
//! folded checksum.
//!
//! Bare-metal x86_64 (`target_os = "none"`, a soft-float target whose kernel
//! does not save vector state) compiles the SIMD kernels out and runs scalar,
//! as every non-x86 target does.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicU8, Ordering};

use super::level::{CrcLevel, Level, Unsupported};
use super::{crc, scalar};

#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod cpuid;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod crc_pclmul;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod crc_sse42;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod crc_vpclmul;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod sum_avx2;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod sum_avx512;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod sum_lanes;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod sum_small;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
mod sum_sse2;

/// Marker for "not chosen yet" in the level atomics.
const UNSET: u8 = 0xFF;

/// Best levels found by detection: low nibble sum level, high nibble CRC level.
static DETECTED: AtomicU8 = AtomicU8::new(UNSET);
/// Active sum level; only ever holds [`UNSET`] or a level `<=` the detected one.
static SUM_LEVEL: AtomicU8 = AtomicU8::new(UNSET);
/// Active CRC level; only ever holds [`UNSET`] or a level `<=` the detected one.
static CRC_LEVEL: AtomicU8 = AtomicU8::new(UNSET);

/// CPU facts the kernels choose by, read once from CPUID: [`KNOWN`] once
/// read, then [`HYBRID`] and [`VNNI`] (x86-64 only, as the kernels are).
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
static CPU_FLAGS: AtomicU8 = AtomicU8::new(0);
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
const KNOWN: u8 = 1;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
const HYBRID: u8 = 2;
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
const VNNI: u8 = 4;

/// [`CPU_FLAGS`], read on first use.
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
fn cpu_flags() -> u8 {
    let v = CPU_FLAGS.load(Ordering::Relaxed);
    if v & KNOWN != 0 {
        return v;
    }
    read_cpu_flags()
}

/// [`cpu_flags`]' first call: CPUID read and cached. Out of line (as the
/// levels' first reads), so the cached path saves no registers for it.
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
#[cold]
#[inline(never)]
fn read_cpu_flags() -> u8 {
    let f = cpuid::read();
    let v = KNOWN | if f.amd { HYBRID } else { 0 } | if f.avx512vnni { VNNI } else { 0 };
    CPU_FLAGS.store(v, Ordering::Relaxed);
    v
}

/// True when the VPCLMULQDQ kernel should run hybrid chunks on this CPU: on
/// AMD cores, whose `crc32` unit works beside the carry-less multiplier (Zen
/// 5, 64 KiB: 1.33x crc-fast hybrid); on Intel cores the hybrid measured
/// slower than folding alone (Xeon, 64 KiB: 0.79x hybrid, 1.00x folding;
/// `docs/perf/csum.md`). Both give the same CRC.
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
fn crc_hybrid() -> bool {
    cpu_flags() & HYBRID != 0
}

/// True when this CPU has AVX-512 VNNI: the AVX-512 level then sums and
/// copies long slices with two vector operations per 64 bytes instead of
/// three (`sum_avx512::Dp`; the same raw sum). In line: as a call from
/// `partial_copy`, about 1 ns a copy (`docs/perf/csum.md`, session 26).
#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
#[inline]
fn sum_vnni() -> bool {
    // No first-use check: [`detected`] reads the flags before any level is
    // checked or stored, so a kernel level never runs with them unread (and
    // unread, this says false: the AVX-512 kernel without VNNI, as right).
    CPU_FLAGS.load(Ordering::Relaxed) & VNNI != 0
}

/// The best sum and CRC levels this CPU supports (detected once, then cached).
pub(crate) fn detected() -> (Level, CrcLevel) {
    let mut packed = DETECTED.load(Ordering::Relaxed);
    if packed == UNSET {
        #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
        cpu_flags();
        let (s, c) = detect_now();
        packed = (s as u8) | ((c as u8) << 4);
        DETECTED.store(packed, Ordering::Relaxed);
    }
    (
        Level::from_u8(packed & 0x0F).unwrap_or(Level::Scalar),
        CrcLevel::from_u8(packed >> 4).unwrap_or(CrcLevel::Table),
    )
}

#[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
fn detect_now() -> (Level, CrcLevel) {
    let f = cpuid::read();
    let sum = if f.avx512bw {
        Level::Avx512
    } else if f.avx2 {
        Level::Avx2
    } else if f.sse2 {
        Level::Sse2
    } else {
        Level::Scalar
    };
    let crc = if f.sse42 && f.pclmul && f.vpclmul_avx512 {
        CrcLevel::Vpclmul
    } else if f.sse42 && f.pclmul {
        CrcLevel::Pclmul
    } else if f.sse42 {
        CrcLevel::Sse42
    } else {
        CrcLevel::Table
    };
    (sum, crc)
}

#[cfg(not(all(target_arch = "x86_64", not(target_os = "none"))))]
fn detect_now() -> (Level, CrcLevel) {
    (Level::Scalar, CrcLevel::Table)
}

/// The active sum level (the detected best unless a lower one was set).
pub(crate) fn sum_level() -> Level {
    match Level::from_u8(SUM_LEVEL.load(Ordering::Relaxed)) {
        Some(l) => l,
        None => first_sum_level(),
    }
}

/// [`sum_level`]'s first call: the detected best, cached.
#[cold]
#[inline(never)]
fn first_sum_level() -> Level {
    let best = detected().0;
    SUM_LEVEL.store(best as u8, Ordering::Relaxed);
    best
}

/// The active CRC level.
pub(crate) fn crc_level() -> CrcLevel {
    match CrcLevel::from_u8(CRC_LEVEL.load(Ordering::Relaxed)) {
        Some(l) => l,
        None => first_crc_level(),
    }
}

/// [`crc_level`]'s first call: the detected best, cached.
#[cold]
#[inline(never)]
fn first_crc_level() -> CrcLevel {
    let best = detected().1;
    CRC_LEVEL.store(best as u8, Ordering::Relaxed);
    best
}

/// Checks that `level` is supported here.
pub(crate) fn check_sum_level(level: Level) -> Result<(), Unsupported> {
    let best = detected().0;
    if level <= best {
        Ok(())
    } else {
        Err(Unsupported {
            requested: level.name(),
            best: best.name(),
        })
    }
}

/// Checks that `level` is supported here.
pub(crate) fn check_crc_level(level: CrcLevel) -> Result<(), Unsupported> {
    let best = detected().1;
    if level <= best {
        Ok(())
    } else {
        Err(Unsupported {
            requested: level.name(),
            best: best.name(),
        })
    }
}

/// Makes `level` the active sum level if supported; returns the previous one.
pub(crate) fn set_sum_level(level: Level) -> Result<Level, Unsupported> {
    check_sum_level(level)?;
    let prev = sum_level();
    SUM_LEVEL.store(level as u8, Ordering::Relaxed);
    Ok(prev)
}

/// Makes `level` the active CRC level if supported; returns the previous one.
pub(crate) fn set_crc_level(level: CrcLevel) -> Result<CrcLevel, Unsupported> {
    check_crc_level(level)?;
    let prev = crc_level();
    CRC_LEVEL.store(level as u8, Ordering::Relaxed);
    Ok(prev)
}

/// Longest slice the SSE2 and AVX2 levels leave to [`sum_small`]: up to here
/// its chunks beat the lane kernels' piece loop and reduction (`partial_at`
/// at 65-128 B: 5.1-6.9 against 7.1-7.7 ns; `docs/perf/csum.md`, session 14).
const LANE_LEVELS_SMALL_MAX: usize = 128;

/// Raw sum of `data` at a level the caller has checked (`check_sum_level` or
/// read from `SUM_LEVEL`, which only holds checked levels).
/// The AVX-512 level is tested with one compare and the others are out of line
/// ([`sum_below_avx512`]): a `match` of every level compiles to a jump table,
/// whose indirect branch measured about 1 ns per call (`docs/perf/csum.md`).
/// Slices of at most `scalar::SMALL` bytes are the caller's ([`sum_at`]
/// sends them to [`sum_small`]; `partial` never passes them). `VNNI`: long
/// slices may take the VNNI body ([`sum`] says why not always).
#[inline]
fn sum_checked<const VNNI: bool>(level: Level, data: &[u8]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    if level == Level::Avx512 {
        return if VNNI && data.len() >= sum_avx512::DP_FROM && sum_vnni() {
            // SAFETY: `level` is <= the detected level, so this CPU has
            // AVX-512F+BW and BMI2, and the OS saves opmask and ZMM state;
            // `sum_vnni` is true only when CPUID also reports AVX-512 VNNI.
            unsafe { sum_avx512::sum_vnni(data) }
        } else {
            // SAFETY: as above, without VNNI.
            unsafe { sum_avx512::sum(data) }
        };
    }
    sum_below_avx512(level, data)
}

/// [`sum_checked`] at the levels below AVX-512.
#[inline(never)]
fn sum_below_avx512(level: Level, data: &[u8]) -> u64 {
    if data.len() <= LANE_LEVELS_SMALL_MAX && level != Level::Scalar {
        return sum_small(data, 0);
    }
    match level {
        #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
        // SAFETY: `level` is <= the detected level, so this CPU has SSE2.
        Level::Sse2 => unsafe { sum_sse2::sum(data) },
        #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
        // SAFETY: `level` is <= the detected level, so this CPU has AVX2 and the
        // OS saves YMM state.
        Level::Avx2 => unsafe { sum_avx2::sum(data) },
        _ => scalar::sum_raw(data),
    }
}

/// Copies the first and the last `K` bytes of `src` over those of `dst` (the
/// two moves overlap for lengths below `2K`; nothing when shorter than `K`).
#[inline(always)]
fn copy_ends<const K: usize>(src: &[u8], dst: &mut [u8]) {
    if let (Some(s), Some(d)) = (src.first_chunk::<K>(), dst.first_chunk_mut::<K>()) {
        *d = *s;
    }
    if let (Some(s), Some(d)) = (src.last_chunk::<K>(), dst.last_chunk_mut::<K>()) {
        *d = *s;
    }
}

/// Copies and sums fewer than 64 bytes (equal lengths): two overlapping moves
/// of a size fixed at compile time, as a `memcpy` of a short run does, then
/// the short sum of the source (still in L1).
/// Why: no call, no masked store (an AVX-512 masked store near a page end
/// costs a microcode assist), no vector reduction: 20 / 40 B 4.2-4.5 ->
/// 3.4-3.5 / 4.0 ns at AVX-512. Out of line: inlined, it moved the longer
/// copies' code and cost them 0.3-0.6 ns (`docs/perf/csum.md`, session 14).
#[inline(never)]
pub(super) fn copy_short(src: &[u8], dst: &mut [u8]) -> u64 {
    match src.len() {
        32.. => copy_ends::<32>(src, dst),
        16.. => copy_ends::<16>(src, dst),
        8.. => copy_ends::<8>(src, dst),
        4.. => copy_ends::<4>(src, dst),
        2.. => copy_ends::<2>(src, dst),
        _ => copy_ends::<1>(src, dst),
    }
    sum_small(src, 0)
}

/// Raw fused copy+sum at a checked level; `src.len() == dst.len()` is checked
/// by the caller. AVX-512 first, as in [`sum_checked`]. With `WARM_DST`
/// false the AVX-512 body is always aligned to the destination.
/// Why: a store split across lines costs little while the destination is in
/// L1 and much once it is not: 1448-byte chunks into 45 fresh buffers took
/// 46.5-52.9 ns aligned to the source, 38.8-41.5 aligned to the destination
/// (`docs/perf/csum.md`, session 28).
#[inline]
fn copy_checked<const WARM_DST: bool>(level: Level, src: &[u8], dst: &mut [u8]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    if level == Level::Avx512 {
        // SAFETY: as in `sum_checked`: AVX-512F+BW and BMI2 are present and
        // enabled, and VNNI too where `sum_vnni` says so.
        return unsafe {
            match src.len() {
                n if !WARM_DST || n > sum_avx512::SOURCE_ALIGNED_MAX => sum_avx512::copy(src, dst),
                n if n >= sum_avx512::DP_FROM && sum_vnni() => {
                    sum_avx512::copy_source_aligned_vnni(src, dst)
                }
                _ => sum_avx512::copy_source_aligned(src, dst),
            }
        };
    }
    copy_below_avx512(level, src, dst)
}

/// [`copy_checked`] at the levels below AVX-512.
#[inline(never)]
fn copy_below_avx512(level: Level, src: &[u8], dst: &mut [u8]) -> u64 {
    if src.len() < 64 && level != Level::Scalar {
        return copy_short(src, dst);
    }
    match level {
        #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
        // SAFETY: as in `sum_checked`: SSE2 is present.
        Level::Sse2 => unsafe { sum_sse2::copy(src, dst) },
        #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
        // SAFETY: as in `sum_checked`: AVX2 is present and enabled by the OS.
        Level::Avx2 => unsafe { sum_avx2::copy(src, dst) },
        _ => scalar::copy_raw(src, dst),
    }
}

/// `init` plus the raw sum of a short slice (at most `scalar::SMALL` bytes):
/// SSE2 lanes and u32 words on x86-64, the scalar reference elsewhere (`init < 2^32`, so
/// the sum cannot overflow; zero only when both parts are).
#[inline(always)]
pub(crate) fn sum_small(data: &[u8], init: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    {
        sum_small::sum_small(data, init)
    }
    #[cfg(not(all(target_arch = "x86_64", not(target_os = "none"))))]
    {
        init + scalar::fold64(scalar::sum_raw(data)) as u64
    }
}

/// Asks the CPU to bring every 64-byte line of `data` toward the L1 cache
/// (a hint, nothing is read architecturally): a caller that knows the next
/// buffer it will sum starts its transfer while it works on the current one
/// (drivers' `prefetch` of the next descriptor's data, Linux `net_prefetch`).
#[inline(always)]
pub fn prefetch(data: &[u8]) {
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // Offsets rather than `chunks`: the loop unrolls into bare prefetches.
        for at in (0..data.len()).step_by(64) {
            // SAFETY: PREFETCHT0 is a hint: it never faults, reads nothing
            // architecturally and writes nothing; the address is inside `data`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(data.as_ptr().wrapping_add(at).cast()) };
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(target_os = "none"))))]
    let _ = data;
}

/// Hints the four 64-byte lines after the first two of `data` (its bytes
/// 128 to 384, those there are) to the cache: a buffer's lead, for a
/// caller that hints the first two lines, its headers, on their own.
/// Why: for buffers one per page summed side by side (`partial_group`),
/// the leads of the next group, one buffer's per buffer worked on, beat
/// hinting each buffer whole: fewer hints hold the L1's fill buffers, and
/// the rest of each page still came in time (`docs/perf/gro-hot-path.md`,
/// session 23).
#[inline(always)]
pub fn prefetch_lead(data: &[u8]) {
    const FROM: usize = 2 * 64;
    const TO: usize = 6 * 64;
    prefetch(data.get(FROM..data.len().min(TO)).unwrap_or_default());
}

/// Hints the first two 64-byte lines from the start of `data` to the L1
/// cache, however short `data` is: the lines a packet's headers sit in, for
/// a caller that will parse them soon ([`prefetch`] without its loop).
#[inline(always)]
pub(crate) fn prefetch_head(data: &[u8]) {
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let at = data.as_ptr();
        // SAFETY: PREFETCHT0 is a hint: it never faults (the second line may
        // lie past `data`, even on an unmapped page), reads nothing
        // architecturally and writes nothing; `wrapping_add` makes no claim
        // about the pointer.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(at.cast());
            _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(64).cast());
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(target_os = "none"))))]
    let _ = data;
}

/// Raw sum with the active level (`partial` sends only slices longer than
/// `scalar::SMALL` here; shorter ones are summed right, only slower). The
/// first use goes out of line whole, so the cached path saves no registers
/// and ends in a jump to the kernel. `VNNI` false for data that comes from
/// beyond L2 (a frame a device just wrote): the AVX-512 level then never
/// takes the VNNI body, which sums L1-resident data faster (1500 B 11.9
/// against 12.9 ns) but cold frames slower (GRO `verify` floor 60.9 against
/// 55.9 ns per frame; `docs/perf/gro-hot-path.md`, session 13).
#[inline]
pub(crate) fn sum<const VNNI: bool>(data: &[u8]) -> u64 {
    match Level::from_u8(SUM_LEVEL.load(Ordering::Relaxed)) {
        Some(level) => sum_checked::<VNNI>(level, data),
        None => sum_first_use::<VNNI>(data),
    }
}

/// [`sum`] before any level is active: detects it, then sums.
#[cold]
#[inline(never)]
fn sum_first_use<const VNNI: bool>(data: &[u8]) -> u64 {
    sum_checked::<VNNI>(first_sum_level(), data)
}

/// Raw sum at `level`, or why not.
#[inline]
pub(crate) fn sum_at(level: Level, data: &[u8]) -> Result<u64, Unsupported> {
    check_sum_level(level)?;
    if data.len() <= scalar::SMALL && level != Level::Scalar {
        // Short data: the scalar carry chain beats any vector setup (what
        // `partial` runs too, so the level sweeps check it against scalar).
        return Ok(sum_small(data, 0));
    }
    Ok(sum_checked::<true>(level, data))
}

/// Fused copy+sum with the active level; `WARM_DST`: the destination is
/// likely in L1 (see [`copy_checked`]). Lengths must be equal (checked by
/// the caller). The level is read in line as in [`sum`] (a call to
/// [`sum_level`] here cost about 1 ns per copy).
#[inline]
pub(crate) fn copy<const WARM_DST: bool>(src: &[u8], dst: &mut [u8]) -> u64 {
    match Level::from_u8(SUM_LEVEL.load(Ordering::Relaxed)) {
        Some(level) => copy_checked::<WARM_DST>(level, src, dst),
        None => copy_first_use::<WARM_DST>(src, dst),
    }
}

/// [`copy`] before any level is active: detects it, then copies.
#[cold]
#[inline(never)]
fn copy_first_use<const WARM_DST: bool>(src: &[u8], dst: &mut [u8]) -> u64 {
    copy_checked::<WARM_DST>(first_sum_level(), src, dst)
}

/// Fused copy+sum at `level`, or why not. Lengths checked by the caller.
pub(crate) fn copy_at(level: Level, src: &[u8], dst: &mut [u8]) -> Result<u64, Unsupported> {
    check_sum_level(level)?;
    Ok(copy_checked::<true>(level, src, dst))
}

/// Advances a raw CRC32c register at a checked level (VPCLMULQDQ first, as
/// in [`sum_checked`]).
#[inline]
fn crc_checked(level: CrcLevel, reg: u32, data: &[u8]) -> u32 {
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    if level == CrcLevel::Vpclmul {
        // The hybrid choice is read only where it applies (a call per CRC).
        let hybrid = data.len() >= crc_vpclmul::HY_CHUNK && crc_hybrid();
        // SAFETY: `level` is <= the detected level: SSE4.2, PCLMULQDQ, AVX-512F
        // and VPCLMULQDQ present, ZMM state enabled by the OS.
        return unsafe { crc_vpclmul::update(reg, data, hybrid) };
    }
    crc_below_vpclmul(level, reg, data)
}

/// [`crc_checked`] at the levels below VPCLMULQDQ.
#[inline(never)]
fn crc_below_vpclmul(level: CrcLevel, reg: u32, data: &[u8]) -> u32 {
    match level {
        #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
        // SAFETY: `level` is <= the detected level, so this CPU has SSE4.2.
        CrcLevel::Sse42 => unsafe { crc_sse42::update(reg, data) },
        #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
        // SAFETY: `level` is <= the detected level: SSE4.2 and PCLMULQDQ present.
        CrcLevel::Pclmul => unsafe { crc_pclmul::update(reg, data) },
        _ => crc::update_table(reg, data),
    }
}

/// Advances a raw CRC32c register with the active level.
#[inline]
pub(crate) fn crc_update(reg: u32, data: &[u8]) -> u32 {
    crc_checked(crc_level(), reg, data)
}

/// Advances a raw CRC32c register at `level`, or why not.
pub(crate) fn crc_update_at(level: CrcLevel, reg: u32, data: &[u8]) -> Result<u32, Unsupported> {
    check_crc_level(level)?;
    Ok(crc_checked(level, reg, data))
}

/// Slices [`sum_group`] sums side by side.
pub(crate) const GROUP: usize = 8;

/// Whether [`sum_group`] has a kernel at the active level (AVX-512 with VNNI),
/// detecting the level on first use as [`sum`] does.
#[inline]
pub(crate) fn has_group_kernel() -> bool {
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    if sum_level() == Level::Avx512 {
        return sum_vnni();
    }
    false
}

/// Raw sums of [`GROUP`] slices read side by side, or `None` where the
/// active level has no such kernel ([`has_group_kernel`]).
#[inline]
pub(crate) fn sum_group(data: &[&[u8]; GROUP]) -> Option<[u64; GROUP]> {
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    if has_group_kernel() {
        const _: () = assert!(GROUP == sum_avx512::GROUP);
        // SAFETY: the active level is <= the detected one, so this CPU has
        // AVX-512F+BW and BMI2, and the OS saves opmask and ZMM state;
        // `sum_vnni` is true only when CPUID also reports AVX-512 VNNI.
        return Some(unsafe { sum_avx512::sum_group(data) });
    }
    let _ = data;
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `N` bytes of a multiplicative hash of their index, rotated by `rot`:
    /// every byte value, no short period.
    fn varied<const N: usize>(rot: u32) -> [u8; N] {
        core::array::from_fn(|i| (i as u32).wrapping_mul(0x9E37_79B9).rotate_left(rot) as u8)
    }

    /// How many bytes of `b` come before its first 64-byte boundary.
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    fn to_line(b: &[u8]) -> usize {
        (64 - b.as_ptr() as usize % 64) % 64
    }

    /// `Some(VNNI present)` when the AVX-512 level is supported, else `None`
    /// (the AVX-512 kernel tests then have nothing to check).
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    fn avx512_with_vnni() -> Option<bool> {
        check_sum_level(Level::Avx512).ok()?;
        Some(cpuid::read().avx512vnni)
    }

    /// The CPU flags are read with the levels, so [`sum_vnni`], which reads
    /// them without a first-use check, sees them wherever a level is used.
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    #[test]
    fn cpu_flags_are_known_once_levels_are() {
        detected();
        assert_ne!(CPU_FLAGS.load(Ordering::Relaxed) & KNOWN, 0);
        let vnni = cpuid::read().avx512vnni;
        assert_eq!(sum_vnni(), vnni);
    }

    /// The fused copy at every level against the scalar sum, with the
    /// destination at several distances from the source modulo 4 KiB (the
    /// page-offset cases the benches measure), over lengths that cover the
    /// head/tail overlap and several 256-byte blocks.
    #[test]
    fn copy_both_directions_equals_scalar() {
        let mut buf = [0u8; 3 * 4096 + 4096];
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (i as u32).wrapping_mul(2_654_435_761).rotate_left(5) as u8;
        }
        let base = (4096 - buf.as_ptr() as usize % 4096) % 4096;
        let src_start = base + 8;
        let src = &buf[src_start..src_start + 1300];
        let mut dst = [0u8; 2 * 4096 + 1400];
        let dst_base = (4096 - dst.as_ptr() as usize % 4096) % 4096;
        for dist in [0usize, 1, 3, 64, 100, 700, 2047, 2048, 3000, 4032, 4095] {
            // `dst - src` is `dist` modulo 4096 (src sits 8 bytes into its page).
            let doff = dst_base + (8 + dist) % 4096;
            for len in (0..=1300)
                .step_by(13)
                .chain([64, 65, 127, 128, 256, 320, 1024])
            {
                let want = scalar::sum_raw(&src[..len]);
                for level in Level::ALL {
                    if check_sum_level(level).is_err() {
                        continue;
                    }
                    let d = &mut dst[doff..doff + len];
                    d.fill(0xA5);
                    let got = copy_checked::<true>(level, &src[..len], d);
                    assert_eq!(
                        scalar::fold64(got),
                        scalar::fold64(want),
                        "{level:?} dist {dist} len {len}"
                    );
                    assert_eq!(d, &src[..len], "{level:?} dist {dist} len {len}");
                }
            }
        }
    }

    /// The AVX-512 sum with and without the VNNI accumulators, and the cold
    /// route (`sum::<false>`), against the scalar sum: every length to 2200
    /// bytes at every offset within a 64-byte line, and lengths around one and two VNNI pieces, on varied
    /// bytes and on all-ones (the largest carries); zero only for zero.
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    #[test]
    fn avx512_sums_with_and_without_vnni_equal_scalar() {
        let Some(vnni) = avx512_with_vnni() else {
            return;
        };
        let varied: [u8; 2 * 16384 + 600] = varied(7);
        let ones = [0xFFu8; 2 * 16384 + 600];
        let zeros = [0u8; 2200];
        let check = |d: &[u8], what: &str| {
            let (want, zero) = (
                scalar::fold64(scalar::sum_raw(d)),
                d.iter().all(|&b| b == 0),
            );
            // SAFETY: the AVX-512 level is supported (checked above), and
            // `sum_vnni` runs only when CPUID reports VNNI.
            let sums = unsafe {
                [
                    Some(sum_avx512::sum(d)),
                    vnni.then(|| sum_avx512::sum_vnni(d)),
                    Some(sum::<false>(d)),
                ]
            };
            for (kernel, raw) in ["avx512", "vnni", "cold"].into_iter().zip(sums) {
                let Some(raw) = raw else { continue };
                assert_eq!(scalar::fold64(raw), want, "{kernel} {what} len {}", d.len());
                assert_eq!(raw == 0, zero, "{kernel} {what} len {}", d.len());
            }
        };
        for len in 0..=2200 {
            for off in 0..64 {
                let (v, o) = (to_line(&varied) + off, to_line(&ones) + off);
                check(&varied[v..v + len], "varied");
                check(&ones[o..o + len], "ones");
            }
            check(&zeros[..len], "zeros");
        }
        let piece = sum_avx512::PIECE_DP;
        for len in (piece - 200..piece + 200).chain(2 * piece - 100..2 * piece + 100) {
            for off in [0, 1, 3, 14, 63] {
                let (v, o) = (to_line(&varied) + off, to_line(&ones) + off);
                check(&varied[v..v + len], "varied");
                check(&ones[o..o + len], "ones");
            }
        }
    }

    /// The AVX-512 copies, aligned to the source with and without the VNNI
    /// accumulators and aligned to the destination (what
    /// `partial_copy_to_cold` runs at every length), against the scalar sum
    /// and the source: every length to
    /// `SOURCE_ALIGNED_MAX` at every source offset within a 64-byte line, the
    /// destination on a line or at another offset, on varied bytes and on
    /// all-ones (the largest carries); zero only for zero; nothing written
    /// outside the destination.
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    #[test]
    fn avx512_copies_with_and_without_vnni_equal_scalar() {
        let Some(vnni) = avx512_with_vnni() else {
            return;
        };
        const MAX: usize = sum_avx512::SOURCE_ALIGNED_MAX;
        let varied: [u8; MAX + 128] = varied(7);
        let ones = [0xFFu8; MAX + 128];
        let mut dst = [0u8; MAX + 192];
        let mut check = |src: &[u8], doff: usize, what: &str| {
            let want = scalar::fold64(scalar::sum_raw(src));
            let zero = src.iter().all(|&b| b == 0);
            type CopyKernel = unsafe fn(&[u8], &mut [u8]) -> u64;
            let kernels: [(&str, CopyKernel); 3] = [
                ("avx512", sum_avx512::copy_source_aligned),
                ("vnni", sum_avx512::copy_source_aligned_vnni),
                ("destination-aligned", sum_avx512::copy),
            ];
            for (kernel, copy) in kernels {
                if kernel == "vnni" && !vnni {
                    continue;
                }
                let at = to_line(&dst) + doff;
                dst.fill(0x5A);
                // SAFETY: the AVX-512 level is supported (checked above), and
                // the VNNI kernel runs only when CPUID reports VNNI.
                let raw = unsafe { copy(src, &mut dst[at..at + src.len()]) };
                let len = src.len();
                assert_eq!(scalar::fold64(raw), want, "{kernel} {what} len {len}");
                assert_eq!(raw == 0, zero, "{kernel} {what} len {len}");
                assert_eq!(&dst[at..at + len], src, "{kernel} {what} copy len {len}");
                assert!(
                    dst[..at].iter().chain(&dst[at + len..]).all(|&b| b == 0x5A),
                    "{kernel} {what} wrote outside len {len}"
                );
            }
        };
        for len in 0..=MAX {
            for off in 0..64 {
                for doff in [0, 1 + (off * 7) % 63] {
                    let (v, o) = (to_line(&varied) + off, to_line(&ones) + off);
                    check(&varied[v..v + len], doff, "varied");
                    check(&ones[o..o + len], doff, "ones");
                }
            }
        }
    }

    /// The vendor strings the CRC hybrid choice reads, as CPUID returns them.
    #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
    #[test]
    fn vendor_strings() {
        let regs = |v: &[u8; 12]| {
            let w = |i: usize| u32::from_le_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]);
            (w(0), w(4), w(8))
        };
        for (vendor, amd) in [
            (b"AuthenticAMD", true),
            (b"HygonGenuine", true),
            (b"GenuineIntel", false),
            (b"CentaurHauls", false),
        ] {
            let (ebx, edx, ecx) = regs(vendor);
            assert_eq!(cpuid::vendor_is_amd(ebx, edx, ecx), amd, "{vendor:?}");
        }
    }

    /// Every CRC level, and the VPCLMULQDQ kernel with and without hybrid
    /// chunks, against the table kernel around one and two hybrid
    /// chunks of the VPCLMULQDQ kernel (whatever its size is), at every length
    /// from 250 to 1200 bytes (the 256- and 512-byte fold thresholds and every
    /// tail the 64-, 16- and 8-byte steps leave) and at every fifth length up
    /// to one hybrid chunk (the lengths a mid-size kernel would split).
    #[test]
    fn crc_levels_equal_table_around_hybrid_chunks() {
        #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
        let chunk = crc_vpclmul::HY_CHUNK;
        #[cfg(not(all(target_arch = "x86_64", not(target_os = "none"))))]
        let chunk = 8192;
        let buf: [u8; 2 * 10_000 + 600] = varied(11);
        let around = |c: usize| (c - 70..c + 330).step_by(3);
        let short = 250..1200;
        let mid = (1200..chunk).step_by(5);
        for len in around(chunk)
            .chain(around(2 * chunk))
            .chain(short)
            .chain(mid)
        {
            if len + 7 > buf.len() {
                continue;
            }
            let d = &buf[len % 7..len % 7 + len];
            let init = (len as u32).wrapping_mul(0x0101_0101);
            let want = crc::update_table(init, d);
            for level in CrcLevel::ALL {
                if check_crc_level(level).is_ok() {
                    assert_eq!(crc_checked(level, init, d), want, "{level:?} len {len}");
                }
            }
            #[cfg(all(target_arch = "x86_64", not(target_os = "none")))]
            if check_crc_level(CrcLevel::Vpclmul).is_ok() {
                for hybrid in [false, true] {
                    // SAFETY: VPCLMULQDQ level supported (checked above).
                    let got = unsafe { crc_vpclmul::update(init, d, hybrid) };
                    assert_eq!(got, want, "hybrid {hybrid} len {len}");
                }
            }
        }
    }
}
