//! AVX2 ones-complement sum and fused copy+sum (32-byte vectors): the
//! `lane_kernels` template of `sum_lanes.rs` at width 32.
use core::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_loadu_si256, _mm256_set1_epi64x,
    _mm256_setzero_si256, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256,
    _mm256_sub_epi64,
};

use super::sum_lanes::lane_kernels;

lane_kernels!(
    "avx2", __m256i, 32,
    add: _mm256_add_epi64,
    and: _mm256_and_si256,
    loadu: _mm256_loadu_si256,
    set1: _mm256_set1_epi64x,
    setzero: _mm256_setzero_si256,
    slli: _mm256_slli_epi64,
    srli: _mm256_srli_epi64,
    storeu: _mm256_storeu_si256,
    sub: _mm256_sub_epi64,
    reg: ymm_reg
);
