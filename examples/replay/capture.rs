//! Capture files (pcap and pcapng) read with the `pcap-parser` crate; link
//! headers other than Ethernet are stripped so the frame starts at IP.

use std::fs::File;

use netoffload::wire::LinkType;
use pcap_parser::pcapng::Block;
use pcap_parser::{Linktype, PcapBlockOwned, PcapError};

/// One captured frame, normalised to Ethernet or raw IP.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The bytes from the Ethernet header (or the IP header for other link types).
    pub bytes: Vec<u8>,
    /// How `bytes` begins.
    pub link: LinkType,
    /// Capture timestamp in microseconds.
    pub ts_us: u64,
    /// True when fewer bytes were captured than were on the wire.
    pub truncated: bool,
    /// Link framing that could not be understood (e.g. a NULL header with an
    /// unknown address family): the frame counts as malformed.
    pub bad_link: Option<String>,
}

/// A capture that cannot be read at all.
#[derive(Debug)]
pub enum CaptureError {
    /// The file could not be opened.
    Open(String, std::io::Error),
    /// Not a pcap or pcapng file, or broken beyond the first block.
    Format(String),
    /// A link type this tool does not decode.
    LinkType(i32),
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureError::Open(p, e) => write!(f, "cannot open {p}: {e}"),
            CaptureError::Format(m) => write!(f, "{m}"),
            CaptureError::LinkType(l) => write!(
                f,
                "unsupported link type {l} ({}); supported: Ethernet (1), Linux SLL (113), \
                 Linux SLL2 (276), raw IP (101, 12, 228, 229), BSD NULL (0) and LOOP (108)",
                link_name(*l)
            ),
        }
    }
}

fn link_name(l: i32) -> &'static str {
    match l {
        0 => "NULL",
        1 => "ETHERNET",
        6 => "IEEE802_5",
        9 => "PPP",
        12 | 14 | 101 => "RAW",
        105 => "IEEE802_11",
        108 => "LOOP",
        113 => "LINUX_SLL",
        127 => "IEEE802_11_RADIOTAP",
        228 => "IPV4",
        229 => "IPV6",
        276 => "LINUX_SLL2",
        _ => "unknown",
    }
}

/// How to strip a link header.
#[derive(Clone, Copy, Debug)]
enum Link {
    Ethernet,
    Sll,
    Sll2,
    Raw,
    Null,
    Loop,
}

fn link_of(l: Linktype) -> Result<Link, CaptureError> {
    match l.0 {
        1 => Ok(Link::Ethernet),
        113 => Ok(Link::Sll),
        276 => Ok(Link::Sll2),
        12 | 14 | 101 | 228 | 229 => Ok(Link::Raw),
        0 => Ok(Link::Null),
        108 => Ok(Link::Loop),
        other => Err(CaptureError::LinkType(other)),
    }
}

/// Normalises one captured frame.
fn frame(link: Link, data: &[u8], ts_us: u64, orig_len: u32) -> Frame {
    let truncated = (data.len() as u64) < u64::from(orig_len);
    let mut f = Frame {
        bytes: Vec::new(),
        link: LinkType::RawIp,
        ts_us,
        truncated,
        bad_link: None,
    };
    let strip = |f: &mut Frame, n: usize, ok: bool, what: String| {
        if data.len() < n {
            f.bad_link = Some(format!(
                "{what}: frame shorter than its {n}-byte link header"
            ));
        } else if !ok {
            f.bad_link = Some(what);
        }
        f.bytes = data.get(n..).unwrap_or_default().to_vec();
    };
    match link {
        Link::Ethernet => {
            f.link = LinkType::Ethernet;
            f.bytes = data.to_vec();
        }
        Link::Raw => f.bytes = data.to_vec(),
        Link::Sll => {
            let proto = be16(data, 14);
            strip(
                &mut f,
                16,
                is_ip(proto),
                format!("SLL protocol {proto:#06x} is not IP"),
            );
        }
        Link::Sll2 => {
            let proto = be16(data, 0);
            strip(
                &mut f,
                20,
                is_ip(proto),
                format!("SLL2 protocol {proto:#06x} is not IP"),
            );
        }
        Link::Null | Link::Loop => {
            let raw = data
                .get(..4)
                .map(|b| [b[0], b[1], b[2], b[3]])
                .unwrap_or([0; 4]);
            // NULL stores the address family in the capturing host's byte order; accept either.
            let af = match link {
                Link::Loop => u32::from_be_bytes(raw),
                _ => {
                    let le = u32::from_le_bytes(raw);
                    if le < 0x1_0000 {
                        le
                    } else {
                        u32::from_be_bytes(raw)
                    }
                }
            };
            // AF_INET 2; AF_INET6 is 10 (Linux), 24 (NetBSD/OpenBSD), 28 (FreeBSD), 30 (macOS).
            let ok = matches!(af, 2 | 10 | 24 | 28 | 30);
            strip(
                &mut f,
                4,
                ok,
                format!("loopback address family {af} is not IP"),
            );
        }
    }
    f
}

fn be16(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(&[x, y]) => u16::from_be_bytes([x, y]),
        _ => 0,
    }
}

fn is_ip(proto: u16) -> bool {
    proto == 0x0800 || proto == 0x86DD
}

/// Reads every frame of a pcap or pcapng file.
pub fn read(path: &str) -> Result<Vec<Frame>, CaptureError> {
    let file = File::open(path).map_err(|e| CaptureError::Open(path.to_string(), e))?;
    let mut reader = pcap_parser::create_reader(1 << 20, file)
        .map_err(|e| CaptureError::Format(format!("{path}: not a pcap or pcapng file ({e:?})")))?;
    let mut frames = Vec::new();
    // Legacy pcap: one link type and a timestamp unit for the file.
    let mut legacy: Option<(Link, bool)> = None;
    // pcapng: per interface, link type and timestamp resolution / offset.
    let mut ifaces: Vec<(Result<Link, i32>, u64, i64)> = Vec::new();
    loop {
        match reader.next() {
            Ok((offset, block)) => {
                match block {
                    PcapBlockOwned::LegacyHeader(h) => {
                        let link = link_of(h.network)?;
                        legacy = Some((link, h.is_nanosecond_precision()));
                    }
                    PcapBlockOwned::Legacy(b) => {
                        let (link, nanos) = legacy.ok_or_else(|| {
                            CaptureError::Format(format!("{path}: packet before the file header"))
                        })?;
                        let frac = if nanos {
                            u64::from(b.ts_usec) / 1000
                        } else {
                            u64::from(b.ts_usec)
                        };
                        let ts = u64::from(b.ts_sec) * 1_000_000 + frac;
                        frames.push(frame(link, b.data, ts, b.origlen));
                    }
                    PcapBlockOwned::NG(Block::SectionHeader(_)) => ifaces.clear(),
                    PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                        let res = idb.ts_resolution().unwrap_or(1_000_000);
                        ifaces.push((
                            link_of(idb.linktype).map_err(|_| idb.linktype.0),
                            res,
                            idb.ts_offset(),
                        ));
                    }
                    PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                        let (link, res, off) =
                            ifaces.get(epb.if_id as usize).copied().ok_or_else(|| {
                                CaptureError::Format(format!(
                                    "{path}: packet on undeclared interface {}",
                                    epb.if_id
                                ))
                            })?;
                        let link = link.map_err(CaptureError::LinkType)?;
                        let (sec, frac) = epb.decode_ts(off.max(0) as u64, res);
                        let ts =
                            u64::from(sec) * 1_000_000 + u64::from(frac) * 1_000_000 / res.max(1);
                        let caplen = (epb.caplen as usize).min(epb.data.len());
                        frames.push(frame(link, &epb.data[..caplen], ts, epb.origlen));
                    }
                    PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                        let (link, _, _) = ifaces.first().copied().ok_or_else(|| {
                            CaptureError::Format(format!("{path}: packet before any interface"))
                        })?;
                        let link = link.map_err(CaptureError::LinkType)?;
                        let len = (spb.origlen as usize).min(spb.data.len());
                        let ts = frames.last().map_or(0, |f: &Frame| f.ts_us);
                        frames.push(frame(link, &spb.data[..len], ts, spb.origlen));
                    }
                    PcapBlockOwned::NG(_) => {}
                }
                reader.consume(offset);
            }
            Err(PcapError::Eof) => break,
            Err(PcapError::Incomplete(_)) => {
                if reader.reader_exhausted() && reader.data().is_empty() {
                    break;
                }
                if reader.reader_exhausted() {
                    eprintln!(
                        "replay: {path}: the last block is cut short; {} frames read",
                        frames.len()
                    );
                    break;
                }
                reader
                    .refill()
                    .map_err(|e| CaptureError::Format(format!("{path}: read error ({e:?})")))?;
            }
            Err(PcapError::BufferTooSmall) => {
                let size = reader.data().len().max(1 << 20) * 2;
                if size > 1 << 28 || !reader.grow(size) {
                    return Err(CaptureError::Format(format!(
                        "{path}: a block larger than 256 MiB"
                    )));
                }
                reader
                    .refill()
                    .map_err(|e| CaptureError::Format(format!("{path}: read error ({e:?})")))?;
            }
            Err(e) => {
                return Err(CaptureError::Format(format!(
                    "{path}: broken capture after {} frames ({e:?})",
                    frames.len()
                )));
            }
        }
    }
    Ok(frames)
}
