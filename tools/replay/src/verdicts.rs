//! `--verdicts`: one CSV row per checksum of every frame (`frame,depth,layer,status`),
//! descending into tunnels. Depth 0 is the outermost level.

use std::io::Write;

use netoffload::wire::Net;

use crate::csumcheck::{self, CsumLayer, Status};
use crate::walk::{Stop, Walk, be16};

/// One checksum's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Frame number, from 1 in file order.
    pub frame: u64,
    /// 0 for the outermost headers, +1 per decapsulation.
    pub depth: usize,
    /// Which checksum.
    pub layer: CsumLayer,
    /// What checking it found.
    pub status: Status,
}

/// The verdict rows of one frame, outermost first.
pub fn frame_rows(frame: u64, bytes: &[u8], walk: &Walk, truncated: bool) -> Vec<Row> {
    let mut rows = Vec::new();
    for (depth, lv) in walk.levels.iter().enumerate() {
        let l = &lv.layers;
        if l.net == Net::Ipv4 {
            rows.push(Row {
                frame,
                depth,
                layer: CsumLayer::Ipv4,
                status: csumcheck::ipv4_status(bytes, l),
            });
        }
        if let Some(layer) = csumcheck::l4_layer(bytes, l) {
            let (mut status, _) = csumcheck::l4_status(bytes, l, layer);
            if truncated && status != Status::Zero {
                status = Status::Unverified;
            }
            rows.push(Row {
                frame,
                depth,
                layer,
                status,
            });
        }
    }
    match &walk.stop {
        Some(Stop::Malformed(_)) => rows.extend(salvage(frame, bytes, walk)),
        Some(Stop::InnerMalformed { depth, .. }) => {
            if let Some(t) = walk.levels.last().and_then(|l| l.tunnel) {
                rows.extend(salvage_ip(frame, bytes, t.inner, *depth));
            }
        }
        _ => {}
    }
    rows
}

/// Rows for a frame whose outer IP layer did not parse: the IPv4 header
/// checksum when the header is whole, and the L4 checksum as unverified.
fn salvage(frame: u64, bytes: &[u8], _walk: &Walk) -> Vec<Row> {
    // Find the IP header behind Ethernet/VLAN, or at 0 for raw IP.
    let l3 = match bytes.first().map(|b| b >> 4) {
        Some(4 | 6) if bytes.len() < 14 || !looks_ethernet(bytes) => 0,
        _ => {
            let mut o = 14;
            let mut et = be16(bytes, 12).unwrap_or(0);
            while et == 0x8100 || et == 0x88A8 {
                et = be16(bytes, o + 2).unwrap_or(0);
                o += 4;
            }
            if et != 0x0800 && et != 0x86DD {
                return Vec::new();
            }
            o
        }
    };
    salvage_ip(frame, bytes, l3, 0)
}

fn looks_ethernet(bytes: &[u8]) -> bool {
    matches!(
        be16(bytes, 12),
        Some(0x0800 | 0x86DD | 0x8100 | 0x88A8 | 0x8847)
    )
}

/// Salvage rows for an IP header at `l3` that did not fully parse.
pub fn salvage_ip(frame: u64, bytes: &[u8], l3: usize, depth: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    let Some(&v) = bytes.get(l3) else {
        return rows;
    };
    let proto = match v >> 4 {
        4 => {
            let ihl = (v & 0xF) as usize * 4;
            let Some(hdr) = bytes.get(l3..l3 + ihl).filter(|_| ihl >= 20) else {
                return rows;
            };
            let status = if netoffload::csum::ipv4_header(hdr).is_zero() {
                Status::Good
            } else {
                Status::Bad
            };
            rows.push(Row {
                frame,
                depth,
                layer: CsumLayer::Ipv4,
                status,
            });
            let frag = be16(bytes, l3 + 6).unwrap_or(0) & 0x1FFF;
            if frag != 0 {
                return rows;
            }
            hdr[9]
        }
        6 => match bytes.get(l3 + 6) {
            Some(&p) => p,
            None => return rows,
        },
        _ => return rows,
    };
    let layer = match proto {
        6 => Some(CsumLayer::Tcp),
        17 => Some(CsumLayer::Udp),
        132 => Some(CsumLayer::Sctp),
        1 => Some(CsumLayer::Icmp),
        58 => Some(CsumLayer::Icmpv6),
        _ => None,
    };
    if let Some(layer) = layer {
        rows.push(Row {
            frame,
            depth,
            layer,
            status: Status::Unverified,
        });
    }
    rows
}

/// A `--verdicts` CSV writer with its header (`frame,depth,layer,status`) written.
pub fn writer<W: Write>(w: W) -> csv::Result<csv::Writer<W>> {
    let mut c = csv::Writer::from_writer(w);
    c.write_record(["frame", "depth", "layer", "status"])?;
    Ok(c)
}

/// Writes rows.
pub fn write_rows<W: Write>(out: &mut csv::Writer<W>, rows: &[Row]) -> csv::Result<()> {
    for r in rows {
        out.write_record([
            r.frame.to_string().as_str(),
            r.depth.to_string().as_str(),
            r.layer.name(),
            r.status.name(),
        ])?;
    }
    Ok(())
}
