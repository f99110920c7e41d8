//! Checksum arithmetic: ones-complement sums (RFC 1071), incremental updates
//! (RFC 1624), pseudo-headers and CRC32c.
//!
//! Knows nothing of what packets mean. Every function here is total (no panic)
//! except [`partial_copy`] with slices of different lengths, like `copy_from_slice`.
//!
//! Byte order follows the kernel: 16-bit words are summed in host order, so a
//! [`Wsum`] is the kernel's `__wsum` and [`Sum16::to_bytes`] gives the header bytes.
//!
//! ## Kernels and dispatch
//!
//! [`partial`] and [`partial_copy`] run a scalar, SSE2, AVX2 or AVX-512 kernel,
//! [`crc32c`] a slice-by-8 table, SSE4.2 `crc32`, PCLMULQDQ or VPCLMULQDQ
//! kernel. The best level is detected once at run time without `std` (CPUID and
//! XCR0 read by hand) and cached; [`set_level`] / [`set_crc_level`] force a
//! lower one (tests, benchmarks), and [`partial_at`] / [`crc32c_append_at`] run
//! one level directly. Every level returns the *identical* [`Wsum`] / CRC, not
//! only the same folded checksum. Within the VPCLMULQDQ level, long buffers on
//! AMD cores also run `crc32` streams beside the folding (measured faster
//! there, slower on Intel cores): the same CRC either way.
//!
//! Slices of at most 64 bytes skip the dispatch: [`partial`] sums them inline
//! (no vector kernel's masked load and horizontal reduction). The header
//! sizes 20, 40 and 64 take two `add`/`adc` chains of u64 words side by side
//! (`ip_fast_csum`'s shape, at a length known at compile time); other lengths
//! take SSE2 lanes and u32 words on x86-64. Both keep the raw-sum invariant,
//! so the `Wsum` is still identical.
//!
//! `unsafe` lives only in the private `arch` module (the SIMD kernels).
//!
//! # Files
//!
//! - `types.rs`: [`Wsum`] (`__wsum`) and [`Sum16`] (`__sum16`, wire bytes).
//! - `mod.rs`: the public contract: [`partial`], [`partial_copy`], [`fold`],
//!   [`ipv4_header`] (`ip_fast_csum`), [`pseudo_v4`] / [`pseudo_v6`]
//!   (`csum_tcpudp_nofold`, `csum_ipv6_magic` unfolded), [`replace`] and its
//!   fixed-size forms (`csum_replace2/4`, `inet_proto_csum_replace4/16`,
//!   RFC 1624 eq. 3), [`replace_seed`] (the `CHECKSUM_PARTIAL` seed) and
//!   [`replace_in_sum`] (the `CHECKSUM_COMPLETE` sum), and the level controls.
//! - `level.rs`: [`Level`], [`CrcLevel`], [`Unsupported`].
//! - `scalar.rs`: the portable reference sum and the raw-sum fold.
//! - `crc.rs`: CRC32c slice-by-8, GF(2) arithmetic modulo the Castagnoli
//!   polynomial, [`crc32c_combine`] in `O(log n)`.
//! - `arch/`: CPU detection, dispatch and the SIMD kernels; each kernel's
//!   module docs prove its carry bounds. Non-x86-64 targets compile only the
//!   scalar and table paths. Design notes and kernel choices:
//!   `docs/perf/csum.md`.
#![deny(unsafe_code)]

mod arch;
mod crc;
mod level;
mod scalar;
mod types;

pub(crate) use arch::prefetch_head;
pub use arch::{prefetch, prefetch_lead};
pub use crc::{crc32c, crc32c_append, crc32c_combine};
pub use level::{CrcLevel, Level, Unsupported};
pub use types::{Sum16, Wsum};

/// Sums `data` onto `init` (Linux `csum_partial`).
///
/// Any length and alignment; `fold(partial(x, init))` equals Linux's
/// `csum_fold(csum_partial(x, len, init))` for every input. Runs the active
/// [`Level`]; all levels give the same `Wsum`.
#[inline(always)]
pub fn partial(data: &[u8], init: Wsum) -> Wsum {
    partial_with::<true>(data, init)
}

/// [`partial`] of a buffer that comes from beyond L2, such as a frame a
/// device just wrote: the same `Wsum`, never with the AVX-512 VNNI body.
/// Why: VNNI sums L1-resident data faster, data still arriving from L3 or
/// memory slower (GRO software verify of 1500-byte frames, 3-6 ns per frame;
/// `docs/perf/gro-hot-path.md`, session 13).
#[inline(always)]
pub fn partial_cold(data: &[u8], init: Wsum) -> Wsum {
    partial_with::<false>(data, init)
}

/// Slices [`partial_group`] sums together: eight, a quarter of a driver's
/// usual receive burst.
pub const GROUP: usize = arch::GROUP;

/// [`partial_cold`] of each of [`GROUP`] slices from `Wsum::ZERO`: the same
/// `Wsum`s, the slices read side by side where the CPU has a kernel for it
/// (AVX-512 with VNNI), one after another elsewhere.
/// Why: a burst of frames one per page, cold from the device, arrives faster
/// read together (GRO's software verify, `docs/perf/gro-hot-path.md`,
/// session 22), as ISA-L's multi-buffer hashes read several buffers.
#[inline]
pub fn partial_group(data: &[&[u8]; GROUP]) -> [Wsum; GROUP] {
    match grouped(data) {
        Some(sums) => sums,
        None => data.map(|d| partial_cold(d, Wsum::ZERO)),
    }
}

/// [`partial_group`] where it has a kernel, else `None` (callers that
/// otherwise sum one frame at a time with their own hints).
#[inline]
pub(crate) fn grouped(data: &[&[u8]; GROUP]) -> Option<[Wsum; GROUP]> {
    arch::sum_group(data).map(|r| r.map(|raw| scalar::raw_to_wsum(raw, Wsum::ZERO)))
}

pub(crate) use arch::has_group_kernel;

/// [`partial`] when `HOT` (data likely in L1), else [`partial_cold`]. Only
/// `partial` takes the VNNI body for long slices and sums 65-128 bytes in
/// line; `partial_cold`'s callers (the GRO engine) keep their code small.
#[inline(always)]
fn partial_with<const HOT: bool>(data: &[u8], init: Wsum) -> Wsum {
    // 20 bytes (an option-less IPv4 or TCP header) before any range test, as
    // `ipv4_header` does: after `sum_short`'s tests it took 1.67 ns in line,
    // first 1.25 (40 and 64 B 0.1 ns slower; `docs/perf/csum.md`, session 26).
    if let Ok(h) = <&[u8; 20]>::try_from(data) {
        let raw = scalar::end_around_words(h, init.get() as u64);
        return Wsum::new(scalar::fold64(raw));
    }
    if data.len() <= scalar::SMALL {
        // `init` joins the carry chain: `fold64` of any sum with the raw-sum
        // invariant is the same unique representative (see `scalar::fold64`).
        return Wsum::new(scalar::fold64(sum_short(data, init.get() as u64)));
    }
    if HOT && data.len() <= 2 * scalar::SMALL {
        // The first 64 bytes as the fixed block, the rest by the short sum,
        // with no call: 65-128 B 0.8-1.3 ns faster than the kernel's
        // (`docs/perf/csum.md`, session 14). `end_around` keeps the raw-sum
        // invariant (zero only when both parts are).
        if let Some((block, rest)) = data.split_first_chunk::<{ scalar::SMALL }>() {
            let head = scalar::end_around_words(block, init.get() as u64);
            let raw = scalar::end_around(head, arch::sum_small(rest, 0));
            return Wsum::new(scalar::fold64(raw));
        }
    }
    scalar::raw_to_wsum(sum_long::<HOT>(data), init)
}

/// The raw short-path sum of `data` (at most `scalar::SMALL` bytes) plus `init`.
/// An IPv6 header or TCP with options (40) and a whole short block (64) run
/// at a length known at compile time, with no length branches, as 20 bytes
/// do in `partial_with`. `partial` is `inline(always)` so this stays inlined
/// into its callers (as a call, it cost 0.5-0.9 ns per sum).
#[inline(always)]
fn sum_short(data: &[u8], init: u64) -> u64 {
    if let Ok(h) = <&[u8; 40]>::try_from(data) {
        return scalar::end_around_words(h, init);
    }
    if let Ok(h) = <&[u8; scalar::SMALL]>::try_from(data) {
        return scalar::end_around_words(h, init);
    }
    arch::sum_small(data, init)
}

/// The raw sum of `data` above `scalar::SMALL` bytes: the dispatch and the
/// vector kernels, kept out of line so the short path inlines into callers
/// without the long path's register saves. Without `init` (added by the
/// caller) it needs no frame of its own and ends in a jump to the kernel.
#[inline(never)]
fn sum_long<const VNNI: bool>(data: &[u8]) -> u64 {
    arch::sum::<VNNI>(data)
}

/// [`partial`] with one given kernel level (for tests and benchmarks that
/// compare levels without touching the global choice).
///
/// # Errors
///
/// [`Unsupported`] when this CPU lacks `level`.
#[inline]
pub fn partial_at(level: Level, data: &[u8], init: Wsum) -> Result<Wsum, Unsupported> {
    arch::sum_at(level, data).map(|raw| scalar::raw_to_wsum(raw, init))
}

/// Copies `src` into `dst` and returns the sum of the bytes plus `init` (Linux
/// `csum_partial_copy_nocheck`): one pass over the data instead of two.
/// Tuned for a destination in L1; for fresh buffers see
/// [`partial_copy_to_cold`].
///
/// # Panics
///
/// If `src.len() != dst.len()`, exactly like `copy_from_slice`.
// Always in line, as `partial` is: called, it cost a 1500 B copy at offsets
// 1/0 about 0.4 ns (`docs/perf/csum.md`, session 27).
#[inline(always)]
pub fn partial_copy(src: &[u8], dst: &mut [u8], init: Wsum) -> Wsum {
    partial_copy_with::<true>(src, dst, init)
}

/// [`partial_copy`] into a destination beyond L1, such as a fresh buffer
/// from a pool, a guest's receive buffer or each segment of a GSO batch: the
/// same `Wsum` and bytes; at the AVX-512 level the stores fall on whole
/// lines (at the others it is [`partial_copy`]).
/// Why: [`partial_copy`] splits stores where that is fastest in L1; into
/// cold buffers split stores cost more (`tx::segment` of 64 KiB 10% faster
/// this way; `docs/perf/csum.md`, session 28).
///
/// # Panics
///
/// If `src.len() != dst.len()`, like [`partial_copy`].
#[inline(always)]
pub fn partial_copy_to_cold(src: &[u8], dst: &mut [u8], init: Wsum) -> Wsum {
    partial_copy_with::<false>(src, dst, init)
}

/// [`partial_copy`] (`WARM_DST`) or [`partial_copy_to_cold`].
#[inline(always)]
fn partial_copy_with<const WARM_DST: bool>(src: &[u8], dst: &mut [u8], init: Wsum) -> Wsum {
    if src.len() != dst.len() {
        lengths_differ(src.len(), dst.len());
    }
    scalar::raw_to_wsum(arch::copy::<WARM_DST>(src, dst), init)
}

/// The panic of [`partial_copy`], [`partial_copy_to_cold`] and
/// [`partial_copy_at`] on unequal lengths.
/// Why out of line: the check in line is one compare; `assert_eq!` stored
/// both lengths to the stack on every call.
#[cold]
#[inline(never)]
#[track_caller]
fn lengths_differ(src: usize, dst: usize) -> ! {
    panic!("partial_copy: source and destination slice lengths differ ({src} and {dst})")
}

/// [`partial_copy`] with one given kernel level.
///
/// # Errors
///
/// [`Unsupported`] when this CPU lacks `level` (nothing is copied then).
///
/// # Panics
///
/// If `src.len() != dst.len()`, like [`partial_copy`].
pub fn partial_copy_at(
    level: Level,
    src: &[u8],
    dst: &mut [u8],
    init: Wsum,
) -> Result<Wsum, Unsupported> {
    if src.len() != dst.len() {
        lengths_differ(src.len(), dst.len());
    }
    arch::copy_at(level, src, dst).map(|raw| scalar::raw_to_wsum(raw, init))
}

/// The best sum level this CPU supports (detected once, cached).
pub fn detected_level() -> Level {
    arch::detected().0
}

/// The sum level [`partial`] and [`partial_copy`] use now.
pub fn level() -> Level {
    arch::sum_level()
}

/// Makes `level` the one [`partial`] and [`partial_copy`] use; returns the
/// previous one. Global: meant for benchmarks and tests, not libraries.
///
/// # Errors
///
/// [`Unsupported`] when this CPU lacks `level` (nothing changes then).
pub fn set_level(level: Level) -> Result<Level, Unsupported> {
    arch::set_sum_level(level)
}

/// Uses the best supported level not above `level` and returns it (never fails).
pub fn force_level(level: Level) -> Level {
    let chosen = level.min(detected_level());
    // `chosen` is supported by construction, so this cannot fail.
    let _previous = arch::set_sum_level(chosen);
    chosen
}

/// The best CRC32c level this CPU supports.
pub fn detected_crc_level() -> CrcLevel {
    arch::detected().1
}

/// The CRC32c level [`crc32c`] uses now.
pub fn crc_level() -> CrcLevel {
    arch::crc_level()
}

/// Makes `level` the one [`crc32c`] uses; returns the previous one (global).
///
/// # Errors
///
/// [`Unsupported`] when this CPU lacks `level` (nothing changes then).
pub fn set_crc_level(level: CrcLevel) -> Result<CrcLevel, Unsupported> {
    arch::set_crc_level(level)
}

/// Uses the best supported CRC level not above `level` and returns it.
pub fn force_crc_level(level: CrcLevel) -> CrcLevel {
    let chosen = level.min(detected_crc_level());
    let _previous = arch::set_crc_level(chosen);
    chosen
}

/// [`crc32c_append`] with one given kernel level.
///
/// # Errors
///
/// [`Unsupported`] when this CPU lacks `level`.
pub fn crc32c_append_at(level: CrcLevel, crc: u32, data: &[u8]) -> Result<u32, Unsupported> {
    arch::crc_update_at(level, !crc, data).map(|r| !r)
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
///
/// The option-less 20-byte header as Linux's `ip_fast_csum` does it: the
/// chains `partial` runs at 20 bytes, checked first (through `partial`'s
/// length tests it took 2.3 ns instead of 1.85). Always inlined, with
/// headers with options out of line: with `partial` inlined here too, LLVM
/// stopped inlining this into a second caller (a call, 1.50 -> 1.96 ns).
#[inline(always)]
pub fn ipv4_header(header: &[u8]) -> Sum16 {
    if let Ok(h) = <&[u8; 20]>::try_from(header) {
        return fold(Wsum::new(scalar::fold64(scalar::end_around_words(h, 0))));
    }
    ipv4_header_any(header)
}

/// [`ipv4_header`] of any other length (options, or a malformed slice).
#[inline(never)]
fn ipv4_header_any(header: &[u8]) -> Sum16 {
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
/// The two addresses are summed as one 32-byte short sum ([`partial`]), not
/// word by word: about 30 instructions less per IPv6 packet on GRO's path.
#[inline]
pub fn pseudo_v6(src: &[u8; 16], dst: &[u8; 16], proto: u8, len: u32, init: Wsum) -> Wsum {
    let mut addrs = [0u8; 32];
    let (s, d) = addrs.split_at_mut(16);
    s.copy_from_slice(src);
    d.copy_from_slice(dst);
    let head = init
        .add(Wsum::new(u32::from_ne_bytes(len.to_be_bytes())))
        .add(Wsum::new(u32::from_ne_bytes((proto as u32).to_be_bytes())));
    partial(&addrs, head)
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
