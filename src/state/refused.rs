//! The one refusal shape of every room: the error, and the metadata the call
//! consumed, handed back unchanged.

use core::fmt;

use super::types::CsumMeta;

/// A call that could not run: why, and the caller's metadata as it was.
///
/// Every call that consumes a [`CsumMeta`] (state transitions, decapsulation,
/// encapsulation, the transmit fill, the paravirt from-meta boundaries) takes
/// it by move, so a stale copy cannot be kept beside a changed packet; on a
/// refusal this gives it back. `E` names the room's failure
/// ([`StateError`](super::StateError), `DecapError`, `EncapError`, `TxError`,
/// `BoundaryError`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Refused<E> {
    /// The metadata as it was before the call.
    pub meta: CsumMeta,
    /// Why.
    pub error: E,
}

impl<E> Refused<E> {
    /// A refusal of `error` that hands back `meta`.
    pub const fn new(meta: CsumMeta, error: E) -> Refused<E> {
        Refused { meta, error }
    }

    /// The metadata and the error, apart.
    pub fn into_parts(self) -> (CsumMeta, E) {
        (self.meta, self.error)
    }

    /// The same refusal with the error turned into another room's (the
    /// metadata stays).
    pub fn map_error<F>(self, f: impl FnOnce(E) -> F) -> Refused<F> {
        Refused {
            meta: self.meta,
            error: f(self.error),
        }
    }
}

impl<E: fmt::Display> fmt::Display for Refused<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (state kept: {})", self.error, self.meta.state())
    }
}

/// The room's error is the source, so error reporters print the chain.
impl<E: core::error::Error + 'static> core::error::Error for Refused<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}
