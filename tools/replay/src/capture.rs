//! Capture files (pcap and pcapng) read with the `pcap-parser` crate, one frame
//! at a time from a file or standard input; link headers other than Ethernet
//! are stripped so the frame starts at IP.

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use netoffload::wire::LinkType;
use pcap_parser::pcapng::Block;
use pcap_parser::{Linktype, PcapBlockOwned, PcapError};

use crate::shared_source::{Direct, SHARED_READ, Shared, Steer};

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

/// One captured frame as it lies in the reader's buffer (nothing copied), for
/// `--threads` workers that skip the frames of other queues.
#[derive(Clone, Debug)]
pub struct FrameRef<'a> {
    /// The bytes from the Ethernet header (or the IP header for other link types).
    pub bytes: &'a [u8],
    /// How `bytes` begins.
    pub link: LinkType,
    /// Capture timestamp in microseconds.
    pub ts_us: u64,
    /// True when fewer bytes were captured than were on the wire.
    pub truncated: bool,
    /// Link framing that could not be understood (the frame counts as malformed).
    pub bad_link: Option<String>,
}

impl FrameRef<'_> {
    /// The frame with its bytes copied out of the reader's buffer.
    pub fn to_owned_frame(&self) -> Frame {
        Frame {
            bytes: self.bytes.to_vec(),
            link: self.link,
            ts_us: self.ts_us,
            truncated: self.truncated,
            bad_link: self.bad_link.clone(),
        }
    }
}

/// A test on a frame's captured bytes and how they begin: true to pass it over.
pub type Skip = dyn Fn(&[u8], LinkType) -> bool;

/// What [`Reader::next_unless`] found.
pub enum Next<T> {
    /// A frame, handed to the caller's function (what it returned).
    Frame(T),
    /// A frame passed over (the caller's test said so).
    Skipped,
}

/// A capture that cannot be read at all (nothing was read from it).
#[derive(Debug)]
pub enum CaptureError {
    /// The path could not be opened, with the reason in words.
    Open(String, String),
    /// Not a pcap or pcapng file, or broken before its first frame.
    Format(String),
    /// A link type this tool does not decode.
    LinkType(i32),
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureError::Open(p, why) => write!(f, "{p}: {why}"),
            CaptureError::Format(m) => write!(f, "{m}"),
            CaptureError::LinkType(l) => write!(f, "{}", link_type_message(*l)),
        }
    }
}

/// The words for an unsupported link type, with the supported ones.
fn link_type_message(l: i32) -> String {
    format!(
        "unsupported link type {l} ({}); supported: Ethernet (1), Linux SLL (113), \
         Linux SLL2 (276), raw IP (101, 12, 228, 229), BSD NULL (0) and LOOP (108)",
        link_name(l)
    )
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

impl Link {
    /// The link type of frames that are their captured bytes (no link header
    /// to strip): Ethernet and raw IP.
    fn plain(self) -> Option<LinkType> {
        match self {
            Link::Ethernet => Some(LinkType::Ethernet),
            Link::Raw => Some(LinkType::RawIp),
            Link::Sll | Link::Sll2 | Link::Null | Link::Loop => None,
        }
    }
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
fn frame<'a>(link: Link, data: &'a [u8], ts_us: u64, orig_len: u32) -> FrameRef<'a> {
    let truncated = (data.len() as u64) < u64::from(orig_len);
    let mut f = FrameRef {
        bytes: &[],
        link: LinkType::RawIp,
        ts_us,
        truncated,
        bad_link: None,
    };
    let strip = |f: &mut FrameRef<'a>, n: usize, ok: bool, what: String| {
        if data.len() < n {
            f.bad_link = Some(format!(
                "{what}: frame shorter than its {n}-byte link header"
            ));
        } else if !ok {
            f.bad_link = Some(what);
        }
        f.bytes = data.get(n..).unwrap_or_default();
    };
    match link {
        Link::Ethernet => {
            f.link = LinkType::Ethernet;
            f.bytes = data;
        }
        Link::Raw => f.bytes = data,
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

/// How the stream of a capture ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// At a block boundary: every byte was read.
    Clean,
    /// In the middle of a block (the capture was cut short, as when a capture
    /// is copied while being written): the frames before it were all read.
    Cut {
        /// Frames read before the cut.
        frames: u64,
        /// Byte offset of the block that is cut.
        offset: u64,
    },
    /// A block that does not parse (corruption); the frames before it were all read.
    Broken {
        /// Frames read before it.
        frames: u64,
        /// Byte offset of the broken block.
        offset: u64,
        /// What is wrong, in words.
        why: String,
    },
}

/// Largest block read: pcap-parser's buffer grows to hold one block, so a
/// bigger one (a corrupt length, not a frame) is refused rather than allocated.
pub const MAX_BLOCK: usize = 16 << 20;

/// Counts the bytes read and fills each read as far as the source allows (a
/// pipe returns short reads; pcap-parser takes a short first read as a short file).
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.inner.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if n > 0 => {
                    let _ = e;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A capture being read: yields one frame at a time (nothing is kept once returned).
pub struct Reader {
    inner: Box<dyn pcap_parser::traits::PcapReaderIterator + Send>,
    /// Legacy pcap read straight from a shared source (`inner` then read only the file header).
    direct: Option<Direct>,
    framing: Framing,
    frames: u64,
    end: Option<End>,
    bytes_read: Arc<AtomicU64>,
    /// Total size when the source is a regular file (for the progress line).
    pub size: Option<u64>,
}

/// What the headers read so far say about the frames that follow.
struct Framing {
    path: String,
    /// Legacy pcap: link type and nanosecond timestamps.
    legacy: Option<(Link, bool)>,
    /// pcapng: per interface, link type (or the unsupported number), timestamp resolution and offset.
    ifaces: Vec<(Result<Link, i32>, u64, i64)>,
    last_ts: u64,
    /// Warnings to print once (e.g. an interface of an unsupported link type).
    warnings: Vec<String>,
}

/// Opens `path` (`-` is standard input) and reads its file header.
pub fn open(path: &str) -> Result<Reader, CaptureError> {
    open_shared(path, 0, None).map(|(r, _)| r)
}

/// Opens `path` for `1 + copies` readers (one per `--threads` worker, each
/// parsing every frame and keeping its own): the source is read once and
/// shared ([`Shared`]), so standard input works too. The readers must be read
/// alongside each other (on their own threads): one far ahead waits. With
/// `steer` (reader `me` keeps queue `me`'s frames), the records of an
/// Ethernet or raw-IP legacy pcap are steered once, as each piece is read,
/// and a reader passes over other queues' records without reading them.
pub fn open_shared(
    path: &str,
    copies: usize,
    steer: Option<Arc<Steer>>,
) -> Result<(Reader, Vec<Reader>), CaptureError> {
    let read = Arc::new(AtomicU64::new(0));
    let (source, size): (Box<dyn Read + Send>, Option<u64>) = if path == "-" {
        (Box::new(std::io::stdin()), None)
    } else {
        let meta = std::fs::metadata(path).map_err(|e| open_error(path, &e))?;
        if meta.is_dir() {
            return Err(CaptureError::Open(path.into(), "is a directory".into()));
        }
        if meta.is_file() && meta.len() == 0 {
            return Err(CaptureError::Open(
                path.into(),
                "empty file (not a pcap or pcapng file)".into(),
            ));
        }
        let file = std::fs::File::open(path).map_err(|e| open_error(path, &e))?;
        (Box::new(file), meta.is_file().then_some(meta.len()))
    };
    let counted = Counted {
        inner: source,
        read: read.clone(),
    };
    let shared = Shared::new(Box::new(counted), copies + 1);
    let mut readers = (0..=copies).map(|me| {
        // Only the first reader's counter is read (the progress line); the
        // bytes are counted once, by the source.
        let counter = if me == 0 {
            read.clone()
        } else {
            Arc::new(AtomicU64::new(0))
        };
        let source = Box::new(shared.reader(me));
        from_source(
            path,
            source,
            counter,
            size,
            Some((shared.clone(), me, steer.clone())),
        )
    });
    let first = readers.next().expect("one reader")?;
    let others = readers.collect::<Result<Vec<_>, _>>()?;
    Ok((first, others))
}

/// A reader over `source`, its file header read.
fn from_source(
    path: &str,
    source: Box<dyn Read + Send>,
    read: Arc<AtomicU64>,
    size: Option<u64>,
    direct: Option<(Arc<Shared>, usize, Option<Arc<Steer>>)>,
) -> Result<Reader, CaptureError> {
    let inner = match pcap_parser::create_reader(SHARED_READ, source) {
        Ok(r) => r,
        Err(PcapError::Eof) => {
            return Err(CaptureError::Open(
                path.into(),
                "empty input (not a pcap or pcapng file)".into(),
            ));
        }
        Err(PcapError::Incomplete(_)) | Err(PcapError::UnexpectedEof) => {
            return Err(CaptureError::Format(format!(
                "{path}: cut short inside the file header ({} bytes): no frames",
                read.load(Ordering::Relaxed)
            )));
        }
        Err(PcapError::ReadError) => {
            return Err(CaptureError::Format(format!("{path}: read error")));
        }
        Err(_) => {
            return Err(CaptureError::Format(format!(
                "{path}: not a pcap or pcapng file (unknown magic number)"
            )));
        }
    };
    let mut r = Reader {
        inner,
        framing: Framing {
            path: path.to_string(),
            legacy: None,
            ifaces: Vec::new(),
            last_ts: 0,
            warnings: Vec::new(),
        },
        direct: None,
        frames: 0,
        end: None,
        bytes_read: read,
        size,
    };
    // A legacy file header names the link type of the whole file: refuse an
    // unsupported one before anything else is read.
    let header = match r.inner.next() {
        Ok((len, PcapBlockOwned::LegacyHeader(h))) => Some((
            len,
            h.network,
            h.is_nanosecond_precision(),
            (!h.is_modified_format()).then_some(h.is_bigendian()),
        )),
        _ => None,
    };
    if let Some((len, network, nanos, layout)) = header {
        r.framing.legacy = Some((link_of(network)?, nanos));
        r.inner.consume_noshift(len);
        // Records of a legacy pcap on a shared source are read straight from
        // its pieces; the header parser read the first piece whole.
        if let (Some((shared, me, steer)), Some(big_endian)) = (direct, layout) {
            if let (Some(steer), Some(link)) = (steer, link_of(network)?.plain()) {
                shared.start_index(len, big_endian, link, steer);
            }
            r.direct = Some(Direct::new(
                shared,
                me,
                r.inner.data(),
                len as u64,
                big_endian,
            ));
        }
    }
    Ok(r)
}

fn open_error(path: &str, e: &std::io::Error) -> CaptureError {
    let why = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => format!("cannot open ({e})"),
    };
    CaptureError::Open(path.to_string(), why)
}

/// pcap-parser's error in words (never its variant names).
fn words(e: &PcapError<&[u8]>) -> String {
    match e {
        PcapError::Eof | PcapError::UnexpectedEof | PcapError::Incomplete(_) => "cut short".into(),
        PcapError::ReadError => "read error".into(),
        PcapError::HeaderNotRecognized => "a block of unknown type".into(),
        PcapError::BufferTooSmall => "a block larger than the read buffer".into(),
        _ => "a block that does not parse (corrupt length or type)".into(),
    }
}

impl Reader {
    /// Bytes read from the source so far (a shared counter, for the progress line).
    pub fn bytes_read(&self) -> Arc<AtomicU64> {
        self.bytes_read.clone()
    }

    /// How the stream ended (`None` while frames remain).
    pub fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }

    /// The path given (`-` for standard input).
    pub fn path(&self) -> &str {
        &self.framing.path
    }

    /// Ends the stream on `e` (what the iterator does with a header error).
    pub fn record_error(&mut self, e: CaptureError) {
        self.end = Some(End::Broken {
            frames: self.frames,
            offset: 0,
            why: e.to_string(),
        });
    }

    /// Warnings met so far (taken: each is returned once).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.framing.warnings)
    }

    /// The next frame; `Ok(None)` at the end of the capture (see [`Reader::end`]);
    /// `Err` only for a legacy file header of an unsupported link type.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        self.next_with(|f| f.to_owned_frame())
    }

    /// Hands the next frame, still in the read buffer, to `use_frame` and
    /// returns what it returns; `Ok(None)` at the end, as [`Reader::next_frame`].
    pub fn next_with<T>(
        &mut self,
        use_frame: impl FnOnce(FrameRef<'_>) -> T,
    ) -> Result<Option<T>, CaptureError> {
        // Without a test nothing is skipped.
        Ok(match self.next_unless(None, |f, _| use_frame(f))? {
            Some(Next::Frame(t)) => Some(t),
            _ => None,
        })
    }

    /// [`Reader::next_with`], but a frame for which `skip` (given the captured
    /// bytes and how they begin) is true may be passed over before it is
    /// framed: only counted (a `--threads` worker and the frames of other
    /// queues). Done where the bytes need no link header stripped (Ethernet or
    /// raw IP in a legacy pcap); other frames reach `use_frame` untested,
    /// with `false`, tested ones with `true`. A record the source's index
    /// already steered ([`open_shared`]) is decided by that instead: `skip`
    /// must give the same answer as the steer.
    pub fn next_unless<T>(
        &mut self,
        skip: Option<&Skip>,
        use_frame: impl FnOnce(FrameRef<'_>, bool) -> T,
    ) -> Result<Option<Next<T>>, CaptureError> {
        if self.end.is_some() {
            return Ok(None);
        }
        if self.direct.is_some() {
            return self.next_direct(skip, use_frame);
        }
        let use_frame = |f: FrameRef<'_>| Next::Frame(use_frame(f, false));
        loop {
            let offset = self.inner.consumed() as u64;
            match self.inner.next() {
                Ok((len, block)) => {
                    let Some(f) = self.framing.block(block)? else {
                        self.inner.consume_noshift(len);
                        continue;
                    };
                    self.frames += 1;
                    self.framing.last_ts = f.ts_us;
                    let out = use_frame(f);
                    // No shift per block: the buffer's remainder moves to its
                    // front only when it is refilled (a partial block, not
                    // every byte once more).
                    self.inner.consume_noshift(len);
                    return Ok(Some(out));
                }
                Err(PcapError::Eof) => {
                    self.end = Some(End::Clean);
                    return Ok(None);
                }
                Err(PcapError::UnexpectedEof) => {
                    self.end = Some(End::Cut {
                        frames: self.frames,
                        offset,
                    });
                    return Ok(None);
                }
                Err(PcapError::Incomplete(_)) => {
                    if self.inner.reader_exhausted() {
                        self.end = Some(if self.inner.data().is_empty() {
                            End::Clean
                        } else {
                            End::Cut {
                                frames: self.frames,
                                offset,
                            }
                        });
                        return Ok(None);
                    }
                    if !self.refill(offset) {
                        return Ok(None);
                    }
                }
                Err(PcapError::BufferTooSmall) => {
                    let size = self.inner.data().len().max(1 << 20) * 2;
                    if size > MAX_BLOCK || !self.inner.grow(size) {
                        self.end = Some(End::Broken {
                            frames: self.frames,
                            offset,
                            why: format!(
                                "a block larger than {} MiB (a corrupt length, not a frame)",
                                MAX_BLOCK >> 20
                            ),
                        });
                        return Ok(None);
                    }
                    if !self.refill(offset) {
                        return Ok(None);
                    }
                }
                Err(e) => {
                    let why = words(&e);
                    self.end = Some(End::Broken {
                        frames: self.frames,
                        offset,
                        why,
                    });
                    return Ok(None);
                }
            }
        }
    }

    /// [`Reader::next_with`] for a legacy pcap read straight from shared pieces.
    fn next_direct<T>(
        &mut self,
        skip: Option<&Skip>,
        use_frame: impl FnOnce(FrameRef<'_>, bool) -> T,
    ) -> Result<Option<Next<T>>, CaptureError> {
        let Some(direct) = &mut self.direct else {
            return Ok(None);
        };
        let (record, queue) = match direct.next_record(self.frames) {
            Ok(Some(found)) => found,
            Ok(None) => {
                self.end = Some(End::Clean);
                return Ok(None);
            }
            Err(end) => {
                self.end = Some(end);
                return Ok(None);
            }
        };
        // Ethernet and raw IP frames are their captured bytes: tested as they lie.
        let plain = self.framing.legacy.and_then(|(link, _)| link.plain());
        // Steered when its piece was read: reader `me` keeps queue `me`.
        let steered = queue.filter(|_| skip.is_some() && plain.is_some());
        if steered.is_some_and(|q| q != direct.me()) {
            self.frames += 1;
            return Ok(Some(Next::Skipped));
        }
        let Some(block) = direct.block(&record) else {
            self.end = Some(End::Broken {
                frames: self.frames,
                offset: 0,
                why: "a block that does not parse (corrupt length or type)".into(),
            });
            return Ok(None);
        };
        let tested = match (skip, plain, &block) {
            _ if steered.is_some() => true,
            (Some(skip), Some(link), PcapBlockOwned::Legacy(b)) => {
                if skip(b.data, link) {
                    self.frames += 1;
                    return Ok(Some(Next::Skipped));
                }
                true
            }
            _ => false,
        };
        let Some(f) = self.framing.block(block)? else {
            return Ok(None);
        };
        self.frames += 1;
        self.framing.last_ts = f.ts_us;
        Ok(Some(Next::Frame(use_frame(f, tested))))
    }

    /// Reads more of the source; false (and the end recorded) on a read error.
    fn refill(&mut self, offset: u64) -> bool {
        if self.inner.refill().is_err() {
            self.end = Some(End::Broken {
                frames: self.frames,
                offset,
                why: "read error".into(),
            });
            return false;
        }
        true
    }
}

impl Framing {
    /// One block: a frame, or header bookkeeping (`None`).
    fn block<'a>(
        &mut self,
        block: PcapBlockOwned<'a>,
    ) -> Result<Option<FrameRef<'a>>, CaptureError> {
        Ok(match block {
            PcapBlockOwned::LegacyHeader(h) => {
                let link = link_of(h.network)?;
                self.legacy = Some((link, h.is_nanosecond_precision()));
                None
            }
            PcapBlockOwned::Legacy(b) => {
                let Some((link, nanos)) = self.legacy else {
                    return Ok(None);
                };
                let frac = if nanos {
                    u64::from(b.ts_usec) / 1000
                } else {
                    u64::from(b.ts_usec)
                };
                let ts = u64::from(b.ts_sec) * 1_000_000 + frac;
                Some(frame(link, b.data, ts, b.origlen))
            }
            PcapBlockOwned::NG(Block::SectionHeader(_)) => {
                self.ifaces.clear();
                None
            }
            PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                let res = idb.ts_resolution().unwrap_or(1_000_000);
                let link = link_of(idb.linktype).map_err(|_| idb.linktype.0);
                if let Err(l) = link {
                    self.warnings.push(format!(
                        "{}: interface {}: {}: its frames are counted as malformed",
                        self.path,
                        self.ifaces.len(),
                        link_type_message(l)
                    ));
                }
                self.ifaces.push((link, res, idb.ts_offset()));
                None
            }
            PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                let Some(&(link, res, off)) = self.ifaces.get(epb.if_id as usize) else {
                    return Ok(Some(self.unusable(format!(
                        "packet on undeclared interface {}",
                        epb.if_id
                    ))));
                };
                let Ok(link) = link else {
                    return Ok(Some(self.unusable(format!(
                        "interface {} has unsupported link type {}",
                        epb.if_id,
                        link.err().unwrap_or_default()
                    ))));
                };
                let (sec, frac) = epb.decode_ts(off.max(0) as u64, res);
                let ts = u64::from(sec) * 1_000_000 + u64::from(frac) * 1_000_000 / res.max(1);
                let caplen = (epb.caplen as usize).min(epb.data.len());
                Some(frame(link, &epb.data[..caplen], ts, epb.origlen))
            }
            PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                let Some(&(link, _, _)) = self.ifaces.first() else {
                    return Ok(Some(self.unusable("packet before any interface".into())));
                };
                let Ok(link) = link else {
                    return Ok(Some(self.unusable(format!(
                        "interface 0 has unsupported link type {}",
                        link.err().unwrap_or_default()
                    ))));
                };
                let len = (spb.origlen as usize).min(spb.data.len());
                Some(frame(link, &spb.data[..len], self.last_ts, spb.origlen))
            }
            PcapBlockOwned::NG(_) => None,
        })
    }

    /// A frame this tool cannot frame (counted as malformed, never dropped).
    fn unusable(&self, why: String) -> FrameRef<'static> {
        FrameRef {
            bytes: &[],
            link: LinkType::Ethernet,
            ts_us: self.last_ts,
            truncated: false,
            bad_link: Some(why),
        }
    }
}

impl Iterator for Reader {
    type Item = Frame;

    /// Frames until the end (a legacy header error ends the stream as broken).
    fn next(&mut self) -> Option<Frame> {
        match self.next_frame() {
            Ok(f) => f,
            Err(e) => {
                self.record_error(e);
                None
            }
        }
    }
}

/// What the end of a capture means for the user: a warning line, if any.
pub fn end_warning(path: &str, end: &End) -> Option<String> {
    match end {
        End::Clean => None,
        End::Cut { frames, offset } => Some(format!(
            "{path}: the capture was cut short in the middle of a block at byte {offset}, \
             after {frames} frames; everything before the cut was read and is reported"
        )),
        End::Broken {
            frames,
            offset,
            why,
        } => Some(format!(
            "{path}: stopped at byte {offset} after {frames} frames: {why}; \
             everything before it was read and is reported"
        )),
    }
}

/// Reads every frame of a capture into memory (tests and small captures; the
/// tool itself streams with [`open`]). A cut or broken end is not an error.
pub fn read(path: &str) -> Result<Vec<Frame>, CaptureError> {
    let mut r = open(path)?;
    let mut frames = Vec::new();
    while let Some(f) = r.next_frame()? {
        frames.push(f);
    }
    Ok(frames)
}
