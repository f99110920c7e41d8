//! The segment list of a held flow: a fixed array and a count, appended to
//! without a capacity branch (the segment limit keeps it from filling).

use super::config::MAX_SEGS;
use super::output::Segment;

const _: () = assert!(MAX_SEGS.is_power_of_two() && MAX_SEGS <= u8::MAX as usize);

/// Up to [`MAX_SEGS`] segments in order.
#[derive(Clone, Debug, zerocopy::FromZeros)]
pub(crate) struct SegList {
    n: u8,
    items: [Segment; MAX_SEGS],
}

impl SegList {
    pub(crate) const EMPTY: SegList = SegList {
        n: 0,
        items: [Segment {
            id: 0,
            start: 0,
            len: 0,
        }; MAX_SEGS],
    };

    /// Number of segments.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.n as usize
    }

    /// Drops every segment.
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.n = 0;
    }

    /// Appends `s`. The engine flushes a flow when it reaches its segment
    /// limit (at most [`MAX_SEGS`]), so the list is never full here; the
    /// index is masked and the count not clamped, which keeps the append to
    /// two stores and an increment (a clamp cost 3 instructions per merge).
    /// Past that limit, which no caller reaches, entries would wrap over
    /// the first ones: wrong, never out of bounds.
    #[inline(always)]
    pub(crate) fn push(&mut self, s: Segment) {
        debug_assert!(self.len() < MAX_SEGS, "segment list full");
        let n = self.n;
        self.items[n as usize % MAX_SEGS] = s;
        self.n = n.wrapping_add(1);
    }

    /// The segments in order.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[Segment] {
        self.items.get(..self.len()).unwrap_or(&self.items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(id: u32) -> Segment {
        Segment {
            id,
            start: id as u16,
            len: 3,
        }
    }

    #[test]
    fn appends_in_order_up_to_the_capacity() {
        let mut l = SegList::EMPTY;
        assert!(l.as_slice().is_empty());
        for i in 0..MAX_SEGS as u32 {
            l.push(seg(i));
            assert_eq!(l.len(), i as usize + 1);
        }
        assert!(l.as_slice().iter().map(|s| s.id).eq(0..MAX_SEGS as u32));
        l.clear();
        assert_eq!(l.len(), 0);
        l.push(seg(9));
        assert_eq!(l.as_slice(), &[seg(9)]);
    }
}
