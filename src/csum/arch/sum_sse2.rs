//! SSE2 ones-complement sum and fused copy+sum (16-byte vectors): the
//! `lane_kernels` template of `sum_lanes.rs` at width 16.
use core::arch::x86_64::{
    __m128i, _mm_add_epi64, _mm_and_si128, _mm_loadu_si128, _mm_set1_epi64x, _mm_setzero_si128,
    _mm_slli_epi64, _mm_srli_epi64, _mm_storeu_si128, _mm_sub_epi64,
};

use super::sum_lanes::lane_kernels;

lane_kernels!(
    "sse2", __m128i, 16,
    add: _mm_add_epi64,
    and: _mm_and_si128,
    loadu: _mm_loadu_si128,
    set1: _mm_set1_epi64x,
    setzero: _mm_setzero_si128,
    slli: _mm_slli_epi64,
    srli: _mm_srli_epi64,
    storeu: _mm_storeu_si128,
    sub: _mm_sub_epi64,
    reg: xmm_reg
);
