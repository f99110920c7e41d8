//! Segments written back to back into one buffer at a fixed stride: the
//! layout UDP GSO (`sendmsg` with `UDP_SEGMENT`, the stride as segment size)
//! and `sendmmsg` (one iovec per stride) take. The bytes are
//! [`segment_one`]'s; only the placement is new.

use super::error::TxError;
use super::segment::{Segments, segment_one};

/// Linux `UDP_MAX_SEGMENTS`: the most segments one `UDP_SEGMENT` send may make.
const UDP_MAX_SEGMENTS: usize = 128;

/// How much one batch may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StrideLimits {
    /// Most bytes of the batch (stride * (n - 1) + the last segment).
    pub max_bytes: usize,
    /// Most segments.
    pub max_segs: usize,
}

impl StrideLimits {
    /// One `UDP_SEGMENT` send over IPv4: 65535 less the 20-byte IP and 8-byte
    /// UDP headers (`__ip_append_data`'s `0xFFFF - fragheaderlen` check), 128 segments.
    pub const UDP_GSO_V4: StrideLimits = StrideLimits {
        max_bytes: 65535 - 20 - 8,
        max_segs: UDP_MAX_SEGMENTS,
    };
    /// One `UDP_SEGMENT` send over IPv6: 65535 less the 8-byte UDP header
    /// (the payload length excludes the IPv6 header), 128 segments.
    pub const UDP_GSO_V6: StrideLimits = StrideLimits {
        max_bytes: 65535 - 8,
        max_segs: UDP_MAX_SEGMENTS,
    };
    /// No limit but the buffer (a `sendmmsg` batch).
    pub const NONE: StrideLimits = StrideLimits {
        max_bytes: usize::MAX,
        max_segs: usize::MAX,
    };
}

/// What [`segment_into`] wrote: segments `first..first + count` of the plan,
/// segment `first + i` at `i * stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packed {
    /// Index of the first segment written.
    pub first: usize,
    /// Segments written (at least 1).
    pub count: usize,
    /// Distance between segment starts: the first segment's length, which
    /// every segment but the plan's last has (the `UDP_SEGMENT` size).
    pub stride: usize,
    /// Bytes from the buffer's start to the end of the last segment.
    pub len: usize,
}

impl Packed {
    /// The index to pass as `first` for the next batch.
    pub const fn next(&self) -> usize {
        self.first + self.count
    }

    /// The byte range of batch segment `i` (`0..count`) in the buffer.
    pub fn range_of(&self, i: usize) -> Option<core::ops::Range<usize>> {
        if i >= self.count {
            return None;
        }
        let start = i * self.stride;
        Some(start..(start + self.stride).min(self.len))
    }
}

/// Writes as many segments of `plan` as fit, from index `first`, into `buf`
/// at a stride of [`Segments::max_len`], stopping at `limits` or the buffer's
/// end. Call again from [`Packed::next`] until it reaches
/// [`Segments::count`]; a 64 KiB super-packet over a 1500-byte path takes
/// two `UDP_SEGMENT` sends.
///
/// Refuses (writing nothing): `first` past the last segment; a buffer or
/// limit too small for even one segment; a `frame` that is not the planned
/// packet (the last segment, whose source ends furthest, is written first).
pub fn segment_into(
    frame: &[u8],
    plan: &Segments,
    first: usize,
    buf: &mut [u8],
    limits: StrideLimits,
) -> Result<Packed, TxError> {
    let total = plan.count();
    let Some(remaining) = total.checked_sub(first).filter(|&r| r > 0) else {
        return Err(TxError::SegmentIndexOutOfRange {
            index: first,
            count: total,
        });
    };
    let stride = plan.max_len();
    let cap = buf.len().min(limits.max_bytes);
    let most = remaining.min(limits.max_segs);
    // Every segment but the plan's last is `stride` long: n fit when the
    // first n - 1 strides and the n-th segment's length do.
    let fits = |n: usize| {
        plan.len_of(first + n - 1)
            .is_some_and(|last| (n - 1) * stride + last <= cap)
    };
    let mut count = (cap / stride.max(1)).min(most);
    if count < most && fits(count + 1) {
        count += 1;
    }
    if count == 0 {
        return Err(TxError::BufferTooSmall {
            index: first,
            needed: plan.len_of(first).unwrap_or(stride),
            available: cap,
        });
    }
    let last = count - 1;
    let mut len = 0;
    for i in core::iter::once(last).chain(0..last) {
        let at = i * stride;
        let dst = buf.get_mut(at..).unwrap_or(&mut []);
        let n = segment_one(frame, plan, first + i, dst)?;
        if i == last {
            len = at + n;
        }
    }
    Ok(Packed {
        first,
        count,
        stride,
        len,
    })
}
