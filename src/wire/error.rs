//! Parse errors that locate the fault: which layer, which field, at which offset.

use core::fmt;

/// The header a parse error was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layer {
    /// Ethernet II header.
    Ethernet,
    /// 802.1Q / 802.1ad tag.
    Vlan,
    /// IPv4 header (with options).
    Ipv4,
    /// IPv6 fixed header.
    Ipv6,
    /// An IPv6 extension header.
    Ipv6Ext,
    /// TCP header (with options).
    Tcp,
    /// UDP header.
    Udp,
    /// SCTP common header.
    Sctp,
    /// ICMP or ICMPv6 header.
    Icmp,
    /// GRE header.
    Gre,
    /// VXLAN header.
    Vxlan,
    /// GENEVE header (with options).
    Geneve,
    /// Link-layer framing of a capture (SLL, NULL).
    Link,
}

/// The header field whose value made the input unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Field {
    /// The header itself (no single field: the bytes end first).
    Header,
    /// Ethernet / VLAN EtherType.
    EtherType,
    /// IP version nibble.
    Version,
    /// IPv4 IHL.
    Ihl,
    /// IPv4 total length.
    TotalLength,
    /// IPv6 payload length.
    PayloadLength,
    /// IPv6 extension header length.
    ExtLength,
    /// IPv6 Jumbo Payload option.
    JumboLength,
    /// TCP data offset.
    DataOffset,
    /// A TCP or IPv4 option's length byte.
    OptionLength,
    /// UDP length.
    UdpLength,
    /// GRE flags and version word.
    GreFlags,
    /// GRE version.
    GreVersion,
    /// VXLAN flags.
    VxlanFlags,
    /// GENEVE version.
    GeneveVersion,
    /// GENEVE option length (header word count).
    GeneveOptLength,
    /// A GENEVE option's own length.
    GeneveOption,
    /// Number of nested headers (VLAN tags, extension headers, tunnels).
    Nesting,
    /// An optional checksum field (GRE with the C bit).
    Checksum,
    /// An optional key field (GRE with the K bit).
    Key,
    /// An optional sequence number field (GRE with the S bit).
    Sequence,
    /// An optional acknowledgment number field (enhanced GRE with the A bit).
    Ack,
    /// An IPv6 extension header's own structure (routing type, segment list).
    ExtHeader,
}

/// What is wrong with the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The buffer ends before the header does.
    Truncated {
        /// Bytes the header needs from its start.
        needed: usize,
        /// Bytes the buffer has from the header's start.
        available: usize,
    },
    /// A length field claims more bytes than the buffer holds.
    LengthBeyondBuffer {
        /// The claimed length, in bytes.
        claimed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
    /// A length field is smaller than its header's minimum.
    LengthTooSmall {
        /// The value, in bytes.
        value: usize,
        /// The minimum, in bytes.
        min: usize,
    },
    /// A field holds a value this crate does not accept (unknown version,
    /// reserved bits set, a protocol that cannot follow).
    Unsupported {
        /// The value as read.
        value: u32,
    },
    /// More nested headers than the configured limit.
    TooDeep {
        /// The limit.
        limit: usize,
    },
}

/// A typed parse error: layer, field, fault, and the byte offset of the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseError {
    /// The header being parsed.
    pub layer: Layer,
    /// The field at fault.
    pub field: Field,
    /// What is wrong with it.
    pub kind: ErrorKind,
    /// Offset of the first byte of the header at fault in the parsed buffer
    /// (for an option error: of the option itself).
    pub offset: usize,
}

impl ParseError {
    /// Builds an error; `offset` is the header's offset in the whole buffer.
    pub const fn new(layer: Layer, field: Field, kind: ErrorKind, offset: usize) -> Self {
        ParseError {
            layer,
            field,
            kind,
            offset,
        }
    }

    /// A truncated-header error.
    pub const fn truncated(layer: Layer, offset: usize, needed: usize, available: usize) -> Self {
        ParseError::new(
            layer,
            Field::Header,
            ErrorKind::Truncated { needed, available },
            offset,
        )
    }

    /// The same error with its offset moved by `base` (for views parsed at a sub-slice).
    #[must_use]
    pub const fn at(mut self, base: usize) -> Self {
        self.offset += base;
        self
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layer::Ethernet => "Ethernet",
            Layer::Vlan => "VLAN",
            Layer::Ipv4 => "IPv4",
            Layer::Ipv6 => "IPv6",
            Layer::Ipv6Ext => "IPv6 extension",
            Layer::Tcp => "TCP",
            Layer::Udp => "UDP",
            Layer::Sctp => "SCTP",
            Layer::Icmp => "ICMP",
            Layer::Gre => "GRE",
            Layer::Vxlan => "VXLAN",
            Layer::Geneve => "GENEVE",
            Layer::Link => "link-layer",
        })
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Header => "header",
            Field::EtherType => "EtherType",
            Field::Version => "version",
            Field::Ihl => "IHL",
            Field::TotalLength => "total length",
            Field::PayloadLength => "payload length",
            Field::ExtLength => "extension header length",
            Field::JumboLength => "Jumbo Payload length",
            Field::DataOffset => "data offset",
            Field::OptionLength => "option length",
            Field::UdpLength => "length",
            Field::GreFlags => "flags",
            Field::GreVersion => "version",
            Field::VxlanFlags => "flags",
            Field::GeneveVersion => "version",
            Field::GeneveOptLength => "option length",
            Field::GeneveOption => "option's length",
            Field::Nesting => "nesting",
            Field::Checksum => "checksum",
            Field::Key => "key",
            Field::Sequence => "sequence number",
            Field::Ack => "acknowledgment number",
            Field::ExtHeader => "extension header",
        })
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (layer, field, at) = (self.layer, self.field, self.offset);
        match self.kind {
            ErrorKind::Truncated { needed, available } => write!(
                f,
                "the {layer} header at byte {at} is cut short: it needs {needed} bytes, {available} are there"
            ),
            ErrorKind::LengthBeyondBuffer { claimed, available } => write!(
                f,
                "the {layer} {field} {claimed} (header at byte {at}) claims more than the {available} bytes there"
            ),
            ErrorKind::LengthTooSmall { value, min } => write!(
                f,
                "the {layer} {field} {value} (header at byte {at}) is below the minimum {min}"
            ),
            ErrorKind::Unsupported { value } => write!(
                f,
                "the {layer} {field} {value:#x} (header at byte {at}) is not supported"
            ),
            ErrorKind::TooDeep { limit } => write!(
                f,
                "the {layer} header at byte {at} is nested more than {limit} deep"
            ),
        }
    }
}

impl core::error::Error for ParseError {}

/// A setter was asked to write an optional field the header does not carry
/// (for example a GRE key without the K bit). Nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Absent {
    /// The header.
    pub layer: Layer,
    /// The optional field it lacks.
    pub field: Field,
}

impl fmt::Display for Absent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} header carries no {} field",
            self.layer, self.field
        )
    }
}

impl core::error::Error for Absent {}
