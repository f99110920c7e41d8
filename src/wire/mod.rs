//! Zero-copy, bounds-checked header views and the layer walker [`parse`].
//!
//! Every view has a checked constructor that returns a [`ParseError`] naming the
//! layer, the field and the offset; after it succeeds no accessor panics.
//! Read by every other room; imports none of them.
#![forbid(unsafe_code)]

mod cast;
pub mod consts;
mod error;
pub mod ethernet;
pub mod geneve;
pub mod gre;
pub mod icmp;
pub mod ipv4;
pub mod ipv6;
pub mod ipv6_ext;
mod layers;
mod parse;
pub mod sctp;
pub mod tcp;
pub mod udp;
pub mod vxlan;

pub use error::{Absent, ErrorKind, Field, Layer, ParseError};
pub use ethernet::{EthernetHeader, EthernetHeaderMut, VlanTag, VlanTagMut};
pub use geneve::{GeneveHeader, GeneveHeaderMut, GeneveOption, GeneveOptions};
pub use gre::{GreHeader, GreHeaderMut, GreVersion};
pub use icmp::{IcmpHeader, IcmpHeaderMut};
pub use ipv4::{Ipv4Header, Ipv4HeaderMut, Ipv4Option, Ipv4Options};
pub use ipv6::{Ipv6Header, Ipv6HeaderMut};
pub use ipv6_ext::{
    FragmentHeader, Ipv6ExtHeader, Ipv6ExtHeaderMut, Ipv6Option, Ipv6Options, RoutingHeader,
};
pub use layers::{Fragment, Layers, LinkType, Net, Transport};
pub use parse::{MAX_EXT_HEADERS, MAX_VLAN_TAGS, parse, parse_ip_at};
pub use sctp::{SctpHeader, SctpHeaderMut};
pub use tcp::{SackBlocks, TcpFlags, TcpHeader, TcpHeaderMut, TcpOption, TcpOptions};
pub use udp::{UdpHeader, UdpHeaderMut};
pub use vxlan::{VxlanHeader, VxlanHeaderMut};
