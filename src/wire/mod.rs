//! Zero-copy, bounds-checked header views and the layer walker [`parse`].
//!
//! Every view has a checked constructor that returns a [`ParseError`] naming the
//! layer, the field and the offset; after it succeeds no accessor panics.
//! Read by every other room; imports none of them.
#![forbid(unsafe_code)]

mod cast;
pub mod consts;
mod error;
pub mod geneve;
pub mod gre;
mod layers;
mod parse;
pub mod vxlan;

pub use error::{Absent, ErrorKind, Field, Layer, ParseError};
pub use geneve::{GeneveHeader, GeneveHeaderMut, GeneveOption, GeneveOptions};
pub use gre::{GreHeader, GreHeaderMut, GreVersion};
pub use layers::{Fragment, Layers, LinkType, Net, Transport};
pub use parse::{MAX_EXT_HEADERS, MAX_VLAN_TAGS, parse, parse_ip_at};
pub use vxlan::{VxlanHeader, VxlanHeaderMut};
