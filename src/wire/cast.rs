//! Bounds-checked zerocopy casts shared by the views: a header struct from the
//! front of a byte slice, or a typed truncation error.

use core::mem::size_of;

use zerocopy::network_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::error::{Layer, ParseError};

/// Casts the front of `b` to `T`; the error is `Truncated` at offset 0.
#[inline]
pub(crate) fn prefix<T>(b: &[u8], layer: Layer) -> Result<(&T, &[u8]), ParseError>
where
    T: FromBytes + KnownLayout + Immutable + Unaligned,
{
    T::ref_from_prefix(b).map_err(|_| ParseError::truncated(layer, 0, size_of::<T>(), b.len()))
}

/// Mutable counterpart of [`prefix`].
#[inline]
pub(crate) fn prefix_mut<T>(b: &mut [u8], layer: Layer) -> Result<(&mut T, &mut [u8]), ParseError>
where
    T: FromBytes + IntoBytes + KnownLayout + Unaligned,
{
    let len = b.len();
    T::mut_from_prefix(b).map_err(|_| ParseError::truncated(layer, 0, size_of::<T>(), len))
}

/// Reads a big-endian u16 at `at`, `None` past the end.
#[inline]
pub(crate) fn be16(b: &[u8], at: usize) -> Option<u16> {
    U16::read_from_prefix(b.get(at..)?)
        .ok()
        .map(|(v, _)| v.get())
}

/// Reads a big-endian u32 at `at`, `None` past the end.
#[inline]
pub(crate) fn be32(b: &[u8], at: usize) -> Option<u32> {
    U32::read_from_prefix(b.get(at..)?)
        .ok()
        .map(|(v, _)| v.get())
}

/// Writes a big-endian u16 at `at`; writes nothing past the end (callers
/// write only inside a header whose length a checked constructor verified).
#[inline]
pub(crate) fn put16(b: &mut [u8], at: usize, v: u16) {
    if let Some(s) = b.get_mut(at..) {
        let _ = U16::new(v).write_to_prefix(s);
    }
}

/// Writes a big-endian u32 at `at`; writes nothing past the end (callers
/// write only inside a header whose length a checked constructor verified).
#[inline]
pub(crate) fn put32(b: &mut [u8], at: usize, v: u32) {
    if let Some(s) = b.get_mut(at..) {
        let _ = U32::new(v).write_to_prefix(s);
    }
}

/// Reads a 24-bit big-endian value (VXLAN / GENEVE VNI).
#[inline]
pub(crate) const fn u24(b: [u8; 3]) -> u32 {
    ((b[0] as u32) << 16) | ((b[1] as u32) << 8) | b[2] as u32
}

/// The low 24 bits of `v` as big-endian bytes.
#[inline]
pub(crate) const fn to_u24(v: u32) -> [u8; 3] {
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}
