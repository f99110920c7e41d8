//! Zero-copy, bounds-checked header views and the layer walker [`parse()`].
//!
//! Every view has a checked constructor that returns a [`ParseError`] naming the
//! layer, the field and the offset; after it succeeds no accessor panics.
//! Read by every other room; imports none of them.
//!
//! # Shape
//!
//! One file per protocol. Each header has a `#[repr(C)]` zerocopy struct of its
//! fixed part (network-endian fields), a checked read-only view
//! (`XxxHeader::new_checked(&[u8])`, e.g. [`Ipv4Header::new_checked`]) and,
//! where other rooms rewrite fields, a writable view (`XxxHeaderMut`) with
//! setters. Field offsets are named constants of each protocol module
//! ([`tcp::CHECKSUM_OFFSET`], [`ipv4::TOTAL_LEN_OFFSET`], ...): no other room
//! writes a bare header offset.
//!
//! # Invariants
//!
//! - A constructor checks every length the header declares (IHL, total length,
//!   data offset, UDP length, GRE flags, GENEVE option length and every GENEVE
//!   option) against the slice it got; afterwards optional fields come back as
//!   `Option`.
//! - Setters never change a header's length (IHL, data offset, GRE flags and
//!   GENEVE option length are read-only), so a writable view cannot invalidate
//!   its own check. Writing an optional field the header lacks returns
//!   [`Absent`] and writes nothing.
//! - A [`ParseError`]'s offset is the faulty header's (or option's) first byte:
//!   views report offsets relative to their slice, [`parse()`] moves them to the
//!   buffer it was given ([`ParseError::at`]).
//!
//! # The walk
//!
//! [`parse()`] / [`parse_ip_at`] walk Ethernet, up to [`MAX_VLAN_TAGS`] VLAN
//! tags, IPv4 or IPv6, up to [`MAX_EXT_HEADERS`] extension headers and the
//! transport header, and return [`Layers`] with
//! `l2 <= l3 < l4 <= payload <= end <= len`. `end` comes from the IP length,
//! so Ethernet padding is never part of the datagram, and transport headers
//! are checked against `end`. The pseudo-header address offsets follow the
//! final destination of a routing header with segments left (RFC 8200 8.1)
//! and a Home Address option (RFC 6275). A non-first fragment ends the walk
//! without a transport header. TCP options are not validated by [`parse()`]
//! (Linux ignores malformed ones); [`TcpHeader::validate_options`] is there
//! for callers that care. The Linux functions each check models are listed
//! in the `parse` module's source docs.
//!
//! # Shared vocabulary
//!
//! The segmentation words every room uses live here, below all of them:
//! [`GsoType`] (Linux `SKB_GSO_*` bits, set by GRO, read by transmit),
//! [`GsoKind`] (the one kind a paravirt header carries) and [`GsoParams`]
//! (a segmentation request as plain values, both boundary directions).
#![forbid(unsafe_code)]

mod cast;
pub mod consts;
mod error;
mod flags_fmt;
pub(crate) use flags_fmt::flags_debug;
pub mod ethernet;
pub mod geneve;
pub mod gre;
mod gso;
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
pub use gso::{GsoKind, GsoParams, GsoType};
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
