//! Ones-complement sum and fused copy+sum: ours (auto-dispatched and each
//! forced level) beside the peers on the same inputs in one run.
//!
//! Group ids are `partial_<size>_off<o>` and `copy_<size>_off<o>`; function ids
//! starting with `ours_` are ours, `peer_` are other implementations and
//! `limit_` is the wrapping-u64 read limit. `cargo run --example bench_table`
//! prints the ratios from `target/criterion`.
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use netoffload::csum::{self, Level, Wsum};

#[path = "support/interleave.rs"]
mod interleave;
use interleave::{Case, PageBuf};

const SIZES: [usize; 6] = [64, 576, 1500, 9000, 64 * 1024, 1024 * 1024];
const OFFSETS: [usize; 2] = [1, 3];
/// The longest input smoltcp's `checksum::data` sums without overflowing its
/// u32 accumulator: 65537 words of 0xFFFF (`u32::MAX / 0xFFFF`).
const SMOLTCP_MAX_LEN: usize = 2 * (u32::MAX / 0xFFFF) as usize;

/// A buffer whose slice starts `off` bytes past a 64-byte boundary.
struct Input {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl Input {
    fn new(len: usize, off: usize) -> Input {
        let mut buf: Vec<u8> = (0..len + 128)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).rotate_left(7) as u8)
            .collect();
        let base = buf.as_mut_ptr() as usize;
        let start = (64 - base % 64) % 64 + off;
        Input { buf, start, len }
    }
    fn get(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
    fn get_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

/// A plain loop over 16-bit words into a u64, folded once (DPDK's
/// `rte_raw_cksum` shape, with a wide accumulator so it is correct for 1 MiB).
fn u16_loop(data: &[u8]) -> u16 {
    let mut s = 0u64;
    let mut it = data.chunks_exact(2);
    for c in &mut it {
        s += u16::from_ne_bytes([c[0], c[1]]) as u64;
    }
    if let [b] = it.remainder() {
        s += *b as u64;
    }
    while s >> 16 != 0 {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}

/// Wrapping sum of u64 words: not a checksum, just how fast the bytes can be read.
fn wrapping_u64(data: &[u8]) -> u64 {
    let mut it = data.chunks_exact(8);
    let s = (&mut it).fold(0u64, |a, c| {
        a.wrapping_add(u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])))
    });
    s ^ it.remainder().len() as u64
}

/// The L1 read limit with the widest loads: a wrapping u64 lane sum of 64-byte
/// vectors into four accumulators (not a checksum; one load and one add per
/// 64 bytes, the least any AVX-512 sum can do), the last bytes scalar.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn read_limit_avx512(data: &[u8]) -> u64 {
    use std::arch::x86_64::*;
    let mut acc = [_mm512_setzero_si512(); 4];
    let mut blocks = data.chunks_exact(256);
    for b in &mut blocks {
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: `b` is 256 readable bytes; each unaligned load reads
            // 64 of them; AVX-512F is enabled for this function and the
            // caller checked the CPU has it.
            let v = unsafe { _mm512_loadu_si512(b.as_ptr().add(64 * i).cast()) };
            *a = _mm512_add_epi64(*a, v);
        }
    }
    let v = _mm512_add_epi64(
        _mm512_add_epi64(acc[0], acc[1]),
        _mm512_add_epi64(acc[2], acc[3]),
    );
    _mm512_reduce_add_epi64(v) as u64 ^ wrapping_u64(blocks.remainder())
}

/// Copies the 64 bytes at `at` from `s` to `d` and returns them (one step
/// of [`copy_vectors`]).
///
/// # Safety
/// Bytes `at..at + 64` must lie inside both buffers, and the CPU must
/// support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn copy_vec(s: *const u8, d: *mut u8, at: usize) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    // SAFETY: the caller's bound; unaligned loads and stores.
    unsafe {
        let v = _mm512_loadu_si512(s.add(at).cast());
        _mm512_storeu_si512(d.add(at).cast(), v);
        v
    }
}

/// The lanes of the last 64 bytes of a slice whose `t < 64` trailing bytes
/// follow its whole vectors: the bytes already summed masked off.
#[cfg(target_arch = "x86_64")]
const fn tail_lanes(t: usize) -> u64 {
    !((1u64 << (64 - t)) - 1)
}

/// Copies `src` to `dst` (their common length) as the bound kernels do and
/// hands each copied vector to `add` with its accumulator index, 0 or 1:
/// the whole vectors two at a time (0, 1), then one (0); with `tail`, the
/// last 64 bytes with the bytes already copied masked off (1).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn copy_vectors(
    src: &[u8],
    dst: &mut [u8],
    tail: bool,
    mut add: impl FnMut(std::arch::x86_64::__m512i, usize),
) {
    use std::arch::x86_64::*;
    let len = src.len().min(dst.len());
    let n = len / 64;
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    let mut j = 0;
    while j + 2 <= n {
        // SAFETY: vectors `j` and `j + 1` lie inside both slices (`j + 2 <=
        // n`); unaligned loads and stores; AVX-512F is enabled here.
        let (v0, v1) = unsafe { (copy_vec(s, d, 64 * j), copy_vec(s, d, 64 * j + 64)) };
        add(v0, 0);
        add(v1, 1);
        j += 2;
    }
    if j < n {
        // SAFETY: vector `j < n` lies inside both slices; as above.
        add(unsafe { copy_vec(s, d, 64 * j) }, 0);
    }
    let t = len - 64 * n;
    if tail && t > 0 && n > 0 {
        let at = 64 * n + t - 64;
        // SAFETY: bytes `at..at + 64` end at the slices' common length and
        // start inside them (`n > 0`); as above.
        let v = unsafe { copy_vec(s, d, at) };
        add(_mm512_maskz_mov_epi8(tail_lanes(t), v), 1);
    }
}

/// The least a fused AVX-512 copy+sum of the kernel's shape does: whole
/// 64-byte vectors only (no head, no tail), each loaded, stored and added into
/// the three-operation accumulators (`b += v`, `a += v >> 32`, two pairs). A
/// lower bound for `partial_copy`, not a checksum of the whole slice.
/// With `TAIL`, also the bytes after the last whole vector: the slice's last
/// 64 bytes loaded, stored and added with the bytes already summed masked
/// off, so every byte is copied and summed once (any length, one more vector).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn fused_limit_avx512<const TAIL: bool>(src: &[u8], dst: &mut [u8]) -> u64 {
    use std::arch::x86_64::*;
    let z = _mm512_setzero_si512();
    let (mut b, mut a) = ([z; 2], [z; 2]);
    copy_vectors(src, dst, TAIL, |v, i| {
        b[i] = _mm512_add_epi64(b[i], v);
        a[i] = _mm512_add_epi64(a[i], _mm512_srli_epi64::<32>(v));
    });
    let (b, a) = (_mm512_add_epi64(b[0], b[1]), _mm512_add_epi64(a[0], a[1]));
    let lane = _mm512_add_epi64(_mm512_sub_epi64(b, _mm512_slli_epi64::<32>(a)), a);
    _mm512_reduce_add_epi64(lane) as u64
}

/// [`fused_limit_avx512`] with every byte, in the shape of the VNNI copy
/// (`copy_source_aligned_vnni`): each vector loaded, stored, added as u32
/// lanes (`vpaddd`) and its lanes' top bytes added by `vpdpbusd`, two
/// operations a vector. A lower bound for that copy where the CPU has VNNI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn fused_limit_vnni(src: &[u8], dst: &mut [u8]) -> u64 {
    use std::arch::x86_64::*;
    let z = _mm512_setzero_si512();
    let w = _mm512_set1_epi32(1 << 24);
    let (mut b, mut t) = (z, [z; 2]);
    copy_vectors(src, dst, true, |v, i| {
        b = _mm512_add_epi32(b, v);
        t[i] = _mm512_dpbusd_epi32(t[i], v, w);
    });
    let tt = _mm512_add_epi32(t[0], t[1]);
    let low = _mm512_sub_epi32(b, _mm512_slli_epi32::<24>(tt));
    _mm512_reduce_add_epi64(_mm512_add_epi64(low, _mm512_slli_epi64::<24>(tt))) as u64
}

/// The shape of Linux's x86-64 `csum_partial` (`arch/x86/lib/csum-partial_64.c`):
/// an `adc` chain over 64-byte blocks, then 32/16/8-byte steps, then the tail,
/// folded 64 -> 32. Written here from the description, not copied.
#[cfg(target_arch = "x86_64")]
fn linux_adc(data: &[u8], init: u32) -> u32 {
    let mut sum = init as u64;
    let mut blocks = data.chunks_exact(64);
    for b in &mut blocks {
        // SAFETY: `b` is 64 readable bytes; the asm reads exactly [p, p+64) and
        // touches only `sum` and the flags.
        unsafe {
            core::arch::asm!(
                "add {s}, [{p}]",
                "adc {s}, [{p} + 8]",
                "adc {s}, [{p} + 16]",
                "adc {s}, [{p} + 24]",
                "adc {s}, [{p} + 32]",
                "adc {s}, [{p} + 40]",
                "adc {s}, [{p} + 48]",
                "adc {s}, [{p} + 56]",
                "adc {s}, 0",
                s = inout(reg) sum,
                p = in(reg) b.as_ptr(),
                options(readonly, nostack),
            );
        }
    }
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        let (s, c) = sum.overflowing_add(u64::from_ne_bytes(w.try_into().unwrap_or([0; 8])));
        sum = s + c as u64;
    }
    let mut t = [0u8; 8];
    let r = words.remainder();
    t[..r.len()].copy_from_slice(r);
    let (s, c) = sum.overflowing_add(u64::from_ne_bytes(t));
    sum = s + c as u64;
    let (s, c) = ((sum >> 32) as u32).overflowing_add(sum as u32);
    s + c as u32
}

fn sum_levels() -> Vec<Level> {
    Level::ALL
        .into_iter()
        .filter(|l| *l <= csum::detected_level())
        .collect()
}

fn bench_partial(c: &mut Criterion) {
    for &size in &SIZES {
        for &off in &OFFSETS {
            let input = Input::new(size, off);
            let d = input.get();
            let mut g = c.benchmark_group(format!("partial_{size}_off{off}"));
            g.throughput(Throughput::Bytes(size as u64));
            g.bench_function("ours_auto", |b| {
                b.iter(|| csum::partial(black_box(d), Wsum::ZERO))
            });
            for l in sum_levels() {
                g.bench_function(BenchmarkId::new("ours", l.name()), |b| {
                    b.iter(|| csum::partial_at(l, black_box(d), Wsum::ZERO))
                });
            }
            g.bench_function("peer_internet_checksum", |b| {
                b.iter(|| internet_checksum::checksum(black_box(d)))
            });
            g.bench_function("peer_etherparse", |b| {
                b.iter(|| {
                    etherparse::checksum::Sum16BitWords::new()
                        .add_slice(black_box(d))
                        .ones_complement()
                })
            });
            // smoltcp sums 16-bit words into a u32 that carries only at the
            // end: past SMOLTCP_MAX_LEN bytes it can overflow, a panic where
            // overflow checks are on (`cargo test --all-targets` runs this file
            // in a debug build). Skipped there; `cargo bench` keeps its time
            // (its sum wraps at 1 MiB: a time, not a checksum).
            if d.len() <= SMOLTCP_MAX_LEN || !cfg!(debug_assertions) {
                g.bench_function("peer_smoltcp", |b| {
                    b.iter(|| smoltcp::wire::checksum::data(black_box(d)))
                });
            }
            g.bench_function("peer_u16_loop", |b| b.iter(|| u16_loop(black_box(d))));
            #[cfg(target_arch = "x86_64")]
            g.bench_function("peer_linux_adc", |b| b.iter(|| linux_adc(black_box(d), 0)));
            g.bench_function("limit_wrapping_u64", |b| {
                b.iter(|| wrapping_u64(black_box(d)))
            });
            g.finish();
        }
    }
}

fn bench_copy(c: &mut Criterion) {
    for &size in &SIZES {
        for &off in &OFFSETS {
            let input = Input::new(size, off);
            let mut out = Input::new(size, off);
            let d = input.get();
            let mut g = c.benchmark_group(format!("copy_{size}_off{off}"));
            g.throughput(Throughput::Bytes(size as u64));
            g.bench_function("ours_auto", |b| {
                b.iter(|| csum::partial_copy(black_box(d), out.get_mut(), Wsum::ZERO))
            });
            for l in sum_levels() {
                g.bench_function(BenchmarkId::new("ours", l.name()), |b| {
                    b.iter(|| csum::partial_copy_at(l, black_box(d), out.get_mut(), Wsum::ZERO))
                });
            }
            g.bench_function("peer_copy_from_slice", |b| {
                b.iter(|| out.get_mut().copy_from_slice(black_box(d)))
            });
            g.bench_function("peer_copy_then_partial", |b| {
                b.iter(|| {
                    let o = out.get_mut();
                    o.copy_from_slice(black_box(d));
                    csum::partial(o, Wsum::ZERO)
                })
            });
            g.finish();
        }
    }
}

/// Linux x86-64 `ip_fast_csum` for a 20-byte header: five u32 words in one
/// `add`/`adc` chain, then `csum_fold` (written from the description).
#[cfg(target_arch = "x86_64")]
fn linux_ip_fast_csum(h: &[u8; 20]) -> u16 {
    let mut sum: u32;
    // SAFETY: `h` is 20 readable bytes; the asm reads exactly [p, p+20) and
    // touches only `sum` and the flags.
    unsafe {
        core::arch::asm!(
            "mov {s:e}, [{p}]",
            "add {s:e}, [{p} + 4]",
            "adc {s:e}, [{p} + 8]",
            "adc {s:e}, [{p} + 12]",
            "adc {s:e}, [{p} + 16]",
            "adc {s:e}, 0",
            s = out(reg) sum,
            p = in(reg) h.as_ptr(),
            options(readonly, nostack),
        );
    }
    linux_fold(sum)
}

/// Linux x86-64 `ip_fast_csum(iph, iph->ihl)` as the kernel runs it: the
/// word count comes from the header at run time, the first four words are
/// chained, the rest go through a one-word `adc` loop, then `csum_fold`
/// (written from the description in `checksum_64.h`). `None` for a header
/// whose IHL is below 5 or longer than the slice.
#[cfg(target_arch = "x86_64")]
fn linux_ip_fast_csum_ihl(h: &[u8]) -> Option<u16> {
    let ihl = u32::from(h.first()? & 0x0f);
    if ihl < 5 || h.len() < 4 * ihl as usize {
        return None;
    }
    let mut sum: u32;
    // SAFETY: `h` has at least `4 * ihl` readable bytes and the asm reads
    // exactly [p, p + 4 * ihl); it changes only `sum`, its own copies of the
    // pointer and the count, and the flags.
    unsafe {
        core::arch::asm!(
            "mov {s:e}, [{p}]",
            "sub {n:e}, 4",
            "add {s:e}, [{p} + 4]",
            "adc {s:e}, [{p} + 8]",
            "adc {s:e}, [{p} + 12]",
            "2:",
            "adc {s:e}, [{p} + 16]",
            "lea {p}, [{p} + 4]",
            "dec {n:e}",
            "jne 2b",
            "adc {s:e}, 0",
            s = out(reg) sum,
            p = inout(reg) h.as_ptr() => _,
            n = inout(reg) ihl => _,
            options(readonly, nostack),
        );
    }
    Some(linux_fold(sum))
}

/// Linux `csum_fold`.
fn linux_fold(sum: u32) -> u16 {
    let (t, c) = sum.overflowing_add(sum.rotate_right(16));
    !((t.wrapping_add(c as u32) >> 16) as u16)
}

/// Offsets from a 64-byte boundary (0, 1, 2, and 14: a payload after an
/// Ethernet header).
const ALIGNS: [usize; 4] = [0, 1, 2, 14];

/// Header-size sums and short packets' (100 and 300 bytes: ACKs with
/// payload, DNS, VoIP), ours beside every peer, interleaved; each case folds
/// to the 16-bit checksum so all do the same work.
fn bench_small_interleaved(_c: &mut Criterion) {
    for len in [20usize, 40, 64, 100, 300] {
        for off in ALIGNS {
            let buf = PageBuf::new(len, 64 + off, len as u32);
            let d = buf.get();
            let mut cases = vec![Case::new("ours_fold_partial", || {
                black_box(csum::fold(csum::partial(black_box(d), Wsum::ZERO)));
            })];
            cases.extend(sum_peers(d));
            #[cfg(target_arch = "x86_64")]
            cases.push(Case::new("peer_linux_adc", || {
                black_box(linux_fold(linux_adc(black_box(d), 0)));
            }));
            interleave::table(
                &format!("small_sum_{len}_off{off}"),
                &mut cases,
                200_000.0,
                31,
            );
        }
    }
    for off in ALIGNS {
        let mut buf = PageBuf::new(20, 64 + off, 5);
        // Version 4, IHL 5: what a caller of Linux's `ip_fast_csum` reads.
        if let Some(b) = buf.get_mut().first_mut() {
            *b = 0x45;
        }
        let d = buf.get();
        let mut cases = vec![Case::new("ours_ipv4_header", || {
            black_box(csum::ipv4_header(black_box(d)));
        })];
        cases.extend(sum_peers(d));
        // The peer computes the same field (bytes as stored in the header).
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            linux_ip_fast_csum_ihl(d).map(u16::to_ne_bytes),
            Some(csum::ipv4_header(d).to_bytes())
        );
        #[cfg(target_arch = "x86_64")]
        cases.push(Case::new("peer_linux_ip_fast_csum", || {
            black_box(linux_ip_fast_csum_ihl(black_box(d)));
        }));
        // Not a peer: the same chain with the length fixed at compile time
        // and a thin pointer (what no caller of a variable header has).
        #[cfg(target_arch = "x86_64")]
        if let Some(h) = d.first_chunk::<20>() {
            cases.push(Case::new("limit_adc_fixed_20", move || {
                black_box(linux_ip_fast_csum(black_box(h)));
            }));
            // Ours given the same: a 20-byte array (the length test folds away).
            cases.push(Case::new("ours_ipv4_header_fixed_20", move || {
                let h: &[u8; 20] = black_box(h);
                black_box(csum::ipv4_header(h));
            }));
        }
        interleave::table(
            &format!("ipv4_header_20_off{off}"),
            &mut cases,
            200_000.0,
            31,
        );
    }
}

/// Long sums against the read limit (a wrapping u64 sum: not a checksum,
/// only how fast the bytes can be read) and the fastest peers, interleaved.
fn bench_sum_interleaved(_c: &mut Criterion) {
    for len in [1500usize, 9000] {
        for off in ALIGNS {
            let title = format!("sum_{len}_off{off}");
            if !interleave::selected(&title) {
                continue;
            }
            let buf = PageBuf::new(len, 64 + off, 3);
            let d = buf.get();
            let mut cases = vec![
                Case::new("ours_partial", || {
                    black_box(csum::partial(black_box(d), Wsum::ZERO));
                }),
                Case::new("limit_wrapping_u64", || {
                    black_box(wrapping_u64(black_box(d)));
                }),
                Case::new("peer_smoltcp", || {
                    black_box(smoltcp::wire::checksum::data(black_box(d)));
                }),
            ];
            #[cfg(target_arch = "x86_64")]
            cases.push(Case::new("peer_linux_adc", || {
                black_box(linux_adc(black_box(d), 0));
            }));
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx512f") {
                cases.push(Case::new("limit_avx512_loads", || {
                    // SAFETY: AVX-512F was detected just above.
                    black_box(unsafe { read_limit_avx512(black_box(d)) });
                }));
            }
            interleave::table(&title, &mut cases, 300_000.0, 31);
        }
    }
}

/// One copy table: `copy_from_slice` first (ratios are "x memcpy"), then the
/// fused copy, copy-then-sum, the sum alone and, with AVX-512, the least a
/// fused kernel of ours' shape does ([`fused_limit_avx512`]: the whole
/// vectors, then every byte; with VNNI also [`fused_limit_vnni`]); each copy
/// writes its own destination buffer at the same offsets.
fn copy_table(title: &str, len: usize, src_off: usize, dst_off: usize) {
    if !interleave::selected(title) {
        return;
    }
    let src = PageBuf::new(len, src_off, 1);
    let s = src.get();
    let mut d1 = PageBuf::new(len, dst_off, 2);
    let mut d2 = PageBuf::new(len, dst_off, 3);
    let mut d3 = PageBuf::new(len, dst_off, 4);
    let mut cases = vec![
        Case::new("peer_copy_from_slice", move || {
            d1.get_mut().copy_from_slice(black_box(s));
            black_box(d1.get_mut().as_mut_ptr());
        }),
        Case::new("ours_partial_copy", move || {
            black_box(csum::partial_copy(black_box(s), d2.get_mut(), Wsum::ZERO));
        }),
        Case::new("copy_then_partial", move || {
            let o = d3.get_mut();
            o.copy_from_slice(black_box(s));
            black_box(csum::partial(o, Wsum::ZERO));
        }),
        Case::new("ours_partial_alone", || {
            black_box(csum::partial(black_box(s), Wsum::ZERO));
        }),
    ];
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw") {
        let mut d4 = PageBuf::new(len, dst_off, 5);
        cases.push(Case::new("limit_fused_whole_vectors", move || {
            // SAFETY: AVX-512F and BW were detected just above.
            black_box(unsafe { fused_limit_avx512::<false>(black_box(s), d4.get_mut()) });
        }));
        let mut d5 = PageBuf::new(len, dst_off, 6);
        cases.push(Case::new("limit_fused_every_byte", move || {
            // SAFETY: as above.
            black_box(unsafe { fused_limit_avx512::<true>(black_box(s), d5.get_mut()) });
        }));
        if std::is_x86_feature_detected!("avx512vnni") {
            let mut d6 = PageBuf::new(len, dst_off, 7);
            cases.push(Case::new("limit_fused_every_byte_vnni", move || {
                // SAFETY: AVX-512F, BW and VNNI were detected.
                black_box(unsafe { fused_limit_vnni(black_box(s), d6.get_mut()) });
            }));
        }
    }
    let budget = if len > 4096 { 1_000_000.0 } else { 200_000.0 };
    interleave::table(title, &mut cases, budget, 31);
}

/// Chunks of a GSO batch into fresh buffers, as `tx::segment` copies them:
/// 1448 bytes at a time from a 64 KiB payload into the next of 45 buffers of
/// 1600 bytes (72 KiB, beyond L1), 54 bytes in. [`csum::partial_copy`]
/// against [`csum::partial_copy_to_cold`], memcpy and copy-then-sum.
fn fresh_destination_table() {
    const CHUNK: usize = 1448;
    const BUFS: usize = 45;
    const AT: usize = 54;
    let title = "copyx_1448_fresh_destinations";
    if !interleave::selected(title) {
        return;
    }
    let src = PageBuf::new(AT + BUFS * CHUNK, 0, 1);
    let s = src.get();
    let chunk = move |i: usize| &s[AT + i * CHUNK..][..CHUNK];
    let fresh = || vec![vec![0u8; 1600]; BUFS];
    let (mut d1, mut d2, mut d3, mut d4) = (fresh(), fresh(), fresh(), fresh());
    let (mut i1, mut i2, mut i3, mut i4) = (0, 0, 0, 0);
    let mut cases = vec![
        Case::new("peer_copy_from_slice", move || {
            i1 = (i1 + 1) % BUFS;
            d1[i1][AT..AT + CHUNK].copy_from_slice(black_box(chunk(i1)));
            black_box(d1[i1].as_ptr());
        }),
        Case::new("ours_partial_copy", move || {
            i2 = (i2 + 1) % BUFS;
            let d = &mut d2[i2][AT..AT + CHUNK];
            black_box(csum::partial_copy(black_box(chunk(i2)), d, Wsum::ZERO));
        }),
        Case::new("ours_partial_copy_to_cold", move || {
            i3 = (i3 + 1) % BUFS;
            let d = &mut d3[i3][AT..AT + CHUNK];
            black_box(csum::partial_copy_to_cold(
                black_box(chunk(i3)),
                d,
                Wsum::ZERO,
            ));
        }),
        Case::new("copy_then_partial", move || {
            i4 = (i4 + 1) % BUFS;
            let o = &mut d4[i4][AT..AT + CHUNK];
            o.copy_from_slice(black_box(chunk(i4)));
            black_box(csum::partial(o, Wsum::ZERO));
        }),
    ];
    interleave::table(title, &mut cases, 300_000.0, 31);
}

/// The fused copy against memcpy: offsets 0/1/2/14 (alike and mixed) with
/// src and dst on different pages at the same page offset, then the
/// destination at several offsets within its page (4 KiB aliasing).
fn bench_copy_interleaved(_c: &mut Criterion) {
    fresh_destination_table();
    let pairs = [
        (0, 0),
        (1, 1),
        (2, 2),
        (14, 14),
        (0, 1),
        (1, 0),
        (2, 14),
        (14, 2),
    ];
    for len in [1500usize, 64 * 1024] {
        for (so, dso) in pairs {
            copy_table(
                &format!("copyx_{len}_src{so}_dst{dso}"),
                len,
                64 + so,
                64 + dso,
            );
        }
    }
    // Source 64 bytes into its page; destination at other page offsets,
    // including just after the source's (aliasing when loads run ahead of
    // stores) and just before it.
    for dpage in [
        0usize,
        32,
        64 + 64,
        64 + 256,
        1024,
        2048,
        3072,
        4096 - 64,
        4096 - 256,
    ] {
        copy_table(
            &format!("copyx_1500_page_src64_dst{dpage}"),
            1500,
            64,
            dpage,
        );
    }
}

/// Pages of our own mapping, the last `guard` of them unmapped (`PROT_NONE`).
#[cfg(unix)]
struct Pages {
    at: *mut u8,
    len: usize,
    guard: usize,
}

#[cfg(unix)]
impl Pages {
    const PAGE: usize = 4096;

    /// `n` readable, writable pages (filled with `seed`-derived bytes)
    /// followed by `guard` unmapped ones.
    fn new(n: usize, guard: usize, seed: u8) -> Pages {
        let len = (n + guard) * Self::PAGE;
        // SAFETY: a fresh private anonymous mapping; no existing memory is
        // touched, and the result is checked before use.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(at, libc::MAP_FAILED, "mmap failed");
        let at = at.cast::<u8>();
        // SAFETY: `at..at + n pages` is the readable, writable part of the mapping.
        let data = unsafe { std::slice::from_raw_parts_mut(at, n * Self::PAGE) };
        for (i, b) in data.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(31) ^ seed;
        }
        // SAFETY: the last `guard` pages lie inside this mapping.
        let r = unsafe {
            libc::mprotect(
                at.add(n * Self::PAGE).cast(),
                guard * Self::PAGE,
                libc::PROT_NONE,
            )
        };
        assert_eq!(r, 0, "mprotect failed");
        Pages { at, len, guard }
    }

    /// The `len` bytes that end where the mapped pages end.
    fn tail(&mut self, len: usize) -> &mut [u8] {
        let mapped = self.len - self.guard * Self::PAGE;
        // SAFETY: `mapped - len .. mapped` is inside the mapped part, which
        // only this `Pages` hands out.
        unsafe { std::slice::from_raw_parts_mut(self.at.add(mapped - len), len) }
    }
}

#[cfg(unix)]
impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: the whole mapping made in `new`, no longer borrowed.
        unsafe { libc::munmap(self.at.cast(), self.len) };
    }
}

/// Sums and fused copies of 1500 and 40 bytes that end at a page end, the
/// next page unmapped or mapped: no masked access of the kernels may reach
/// the unmapped page (a microcode assist on an Intel Xeon).
#[cfg(unix)]
fn bench_page_end_interleaved(_c: &mut Criterion) {
    let title = "page_end";
    if !interleave::selected(title) {
        return;
    }
    let (mut unmapped, mut mapped) = (Pages::new(2, 1, 1), Pages::new(3, 0, 1));
    let (a, b) = (&*unmapped.tail(1500), &*mapped.tail(1500));
    let (a40, b40) = (&a[1460..], &b[1460..]);
    let mut d = [1, 2, 3, 4].map(|k| PageBuf::new(1500, 64 + 3, 5 + k));
    let [d1, d2, d3, d4] = &mut d;
    let mut cases = vec![
        Case::new("ours_partial_unmapped_after", || {
            black_box(csum::partial(black_box(a), Wsum::ZERO));
        }),
        Case::new("ours_partial_mapped_after", || {
            black_box(csum::partial(black_box(b), Wsum::ZERO));
        }),
        Case::new("ours_partial_copy_unmapped_after", || {
            black_box(csum::partial_copy(black_box(a), d1.get_mut(), Wsum::ZERO));
        }),
        Case::new("ours_partial_copy_mapped_after", || {
            black_box(csum::partial_copy(black_box(b), d2.get_mut(), Wsum::ZERO));
        }),
        Case::new("ours_partial_copy_40_unmapped_after", || {
            let d = &mut d3.get_mut()[..40];
            black_box(csum::partial_copy(black_box(a40), d, Wsum::ZERO));
        }),
        Case::new("ours_partial_copy_40_mapped_after", || {
            let d = &mut d4.get_mut()[..40];
            black_box(csum::partial_copy(black_box(b40), d, Wsum::ZERO));
        }),
    ];
    interleave::table(title, &mut cases, 200_000.0, 31);
}

#[cfg(not(unix))]
fn bench_page_end_interleaved(_c: &mut Criterion) {}

criterion_group!(benches, bench_partial, bench_copy);
criterion_group!(
    interleaved,
    bench_small_interleaved,
    bench_sum_interleaved,
    bench_copy_interleaved,
    bench_page_end_interleaved
);
criterion_main!(benches, interleaved);

/// The peer crates' checksums of `d`, as interleaved cases (one list for
/// every table that compares them).
fn sum_peers(d: &[u8]) -> Vec<Case<'_>> {
    vec![
        Case::new("peer_internet_checksum", || {
            black_box(internet_checksum::checksum(black_box(d)));
        }),
        Case::new("peer_etherparse", || {
            black_box(
                etherparse::checksum::Sum16BitWords::new()
                    .add_slice(black_box(d))
                    .ones_complement(),
            );
        }),
        Case::new("peer_smoltcp", || {
            black_box(!smoltcp::wire::checksum::data(black_box(d)));
        }),
    ]
}
