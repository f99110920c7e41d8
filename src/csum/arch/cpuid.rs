//! CPUID and XCR0, read by hand (no `std::is_x86_feature_detected!`).

use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};

/// The features the kernels need, each already gated on OS register support.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Features {
    pub sse2: bool,
    pub sse42: bool,
    pub pclmul: bool,
    pub avx2: bool,
    /// AVX-512F and BW, with BMI2 (every such CPU has it): the kernels build
    /// their byte masks with `bzhi` and `shlx`, one operation each where a
    /// shift by `cl` takes three.
    pub avx512bw: bool,
    pub vpclmul_avx512: bool,
    pub avx512vnni: bool,
    /// An AMD (or Hygon) core: its `crc32` unit runs beside the carry-less
    /// multiplier, which the hybrid CRC chunks rely on.
    pub amd: bool,
}

const fn bit(reg: u32, n: u32) -> bool {
    reg & (1 << n) != 0
}

/// True when CPUID leaf 0's vendor string (EBX, EDX, ECX, 4 ASCII bytes each,
/// little-endian) is "AuthenticAMD" or "HygonGenuine" (Hygon's cores are Zen).
pub(super) const fn vendor_is_amd(ebx: u32, edx: u32, ecx: u32) -> bool {
    matches!(
        (ebx, edx, ecx),
        (0x6874_7541, 0x6974_6E65, 0x444D_4163) | (0x6F67_7948, 0x6E65_476E, 0x656E_6975)
    )
}

/// XCR0 (which register states the OS saves on context switch).
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: the caller checked CPUID.1:ECX.OSXSAVE, so XGETBV is enabled and
    // XCR0 (register 0) always exists.
    unsafe { _xgetbv(0) }
}

/// Reads CPUID leaves 0 (vendor), 1 and 7 and XCR0.
pub(super) fn read() -> Features {
    // CPUID exists on every x86-64 CPU; leaf 7 is read only when leaf 0 reports it.
    let l0 = __cpuid(0);
    let max_leaf = l0.eax;
    let amd = vendor_is_amd(l0.ebx, l0.edx, l0.ecx);
    let l1 = __cpuid(1);
    let l7 = if max_leaf >= 7 {
        Some(__cpuid_count(7, 0))
    } else {
        None
    };
    let osxsave = bit(l1.ecx, 27);
    let xcr0 = if osxsave {
        // SAFETY: OSXSAVE is set, so XGETBV may be executed (and the CPU has
        // XSAVE, the target feature `xcr0` enables).
        unsafe { xcr0() }
    } else {
        0
    };
    // XCR0 bits 1 (SSE) and 2 (AVX upper halves); 5, 6, 7 (opmask, ZMM0-15
    // upper halves, ZMM16-31).
    let ymm_os = xcr0 & 0b110 == 0b110;
    let zmm_os = ymm_os && xcr0 & 0xE0 == 0xE0;
    let avx = bit(l1.ecx, 28) && ymm_os;
    let (ebx7, ecx7) = l7.map_or((0, 0), |r| (r.ebx, r.ecx));
    let avx2 = avx && bit(ebx7, 5);
    let avx512f = zmm_os && bit(ebx7, 16);
    Features {
        sse2: bit(l1.edx, 26),
        sse42: bit(l1.ecx, 20),
        pclmul: bit(l1.ecx, 1),
        avx2,
        avx512bw: avx512f && bit(ebx7, 30) && bit(ebx7, 8),
        vpclmul_avx512: avx512f && bit(ecx7, 10),
        avx512vnni: avx512f && bit(ecx7, 11),
        amd,
    }
}
