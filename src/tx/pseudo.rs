//! The pseudo-header sum of a packet's transport, read from its headers: the
//! state room's implementation (`state::site`), named for the tx callers.

pub(crate) use crate::state::site::{pseudo as pseudo_sum, seed};
