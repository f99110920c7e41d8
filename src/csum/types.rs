//! `Wsum` and `Sum16`: the two shapes a ones-complement checksum takes.
//!
//! They mirror Linux's `__wsum` and `__sum16`: words are loaded in the host's
//! byte order (RFC 1071 2(B): the sum is byte-order independent), so on a
//! little-endian host a `Wsum` holds the number the kernel's `__wsum` holds on x86.

#![forbid(unsafe_code)]

use core::fmt;

/// A 32-bit unfolded ones-complement partial sum (Linux `__wsum`).
///
/// Kept unfolded so sums of pieces can be added cheaply; fold it with
/// [`fold`](super::fold) to get a header checksum.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, zerocopy::FromZeros)]
pub struct Wsum(u32);

impl Wsum {
    /// The empty sum.
    pub const ZERO: Wsum = Wsum(0);

    /// Wraps a raw 32-bit sum (host word order, like `__wsum`).
    #[inline]
    pub const fn new(raw: u32) -> Wsum {
        Wsum(raw)
    }

    /// The raw 32-bit value.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Ones-complement addition with end-around carry (Linux `csum_add`).
    #[inline]
    #[must_use]
    pub const fn add(self, other: Wsum) -> Wsum {
        let (s, carry) = self.0.overflowing_add(other.0);
        Wsum(s.wrapping_add(carry as u32))
    }

    /// Ones-complement subtraction (Linux `csum_sub`: add the complement).
    #[inline]
    #[must_use]
    pub const fn sub(self, other: Wsum) -> Wsum {
        self.add(Wsum(!other.0))
    }

    /// The ones-complement of the sum (bitwise not, Linux `~csum`).
    #[inline]
    #[must_use]
    pub const fn not(self) -> Wsum {
        Wsum(!self.0)
    }

    /// Two's-complement negation (Linux `wsum_negate`), used by `skb_postpull_rcsum`.
    ///
    /// `-partial(x, -c)` removes `x` from `c` without the +0/-0 slip of `~partial(x, ~c)`.
    #[inline]
    #[must_use]
    pub const fn negate(self) -> Wsum {
        Wsum(self.0.wrapping_neg())
    }

    /// Rotate by 8 bits: the sum of a block that starts at an odd offset
    /// contributes byte-swapped (Linux `csum_shift`).
    #[inline]
    #[must_use]
    pub const fn shifted_by(self, offset: usize) -> Wsum {
        if offset & 1 == 1 {
            Wsum(self.0.rotate_right(8))
        } else {
            self
        }
    }
}

impl fmt::Debug for Wsum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Wsum({:#010x})", self.0)
    }
}

/// A folded, complemented 16-bit checksum as stored in a header (Linux `__sum16`).
///
/// Holds the two header bytes; [`Sum16::to_bytes`] gives them in wire order, so
/// no caller ever has to think about endianness.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Sum16(u16);

impl Sum16 {
    /// The all-zero field: a valid sum when verifying, or "no checksum" for IPv4 UDP.
    pub const ZERO: Sum16 = Sum16(0);
    /// All ones: how a computed UDP checksum of 0 is sent (RFC 768, `CSUM_MANGLED_0`).
    pub const MANGLED_ZERO: Sum16 = Sum16(0xFFFF);

    /// From the two header bytes in wire order.
    #[inline]
    pub const fn from_bytes(bytes: [u8; 2]) -> Sum16 {
        Sum16(u16::from_ne_bytes(bytes))
    }

    /// The two header bytes in wire order.
    #[inline]
    pub const fn to_bytes(self) -> [u8; 2] {
        self.0.to_ne_bytes()
    }

    /// The checksum as a number in network byte order (what `etherparse` and
    /// Wireshark print).
    #[inline]
    pub const fn to_be_u16(self) -> u16 {
        u16::from_be_bytes(self.to_bytes())
    }

    /// From a number in network byte order (the inverse of [`Sum16::to_be_u16`]).
    #[inline]
    pub const fn from_be_u16(value: u16) -> Sum16 {
        Sum16::from_bytes(value.to_be_bytes())
    }

    /// True for the all-zero field.
    #[inline]
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The UDP transmit rule: a computed 0 is sent as 0xFFFF (RFC 768, RFC 8200 8.1).
    #[inline]
    #[must_use]
    pub const fn udp_mangle_zero(self) -> Sum16 {
        if self.0 == 0 {
            Sum16::MANGLED_ZERO
        } else {
            self
        }
    }

    /// Widens back to a sum (Linux `csum_unfold`): the field's value as a `Wsum`.
    #[inline]
    pub const fn unfold(self) -> Wsum {
        Wsum::new(self.0 as u32)
    }

    /// The raw 16-bit value in host word order (the same bits `__sum16` holds).
    #[inline]
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// From a raw 16-bit value in host word order.
    #[inline]
    pub const fn from_raw(raw: u16) -> Sum16 {
        Sum16(raw)
    }
}

impl fmt::Debug for Sum16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b] = self.to_bytes();
        write!(f, "Sum16({a:02x}{b:02x})")
    }
}

impl fmt::Display for Sum16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#06x}", self.to_be_u16())
    }
}
