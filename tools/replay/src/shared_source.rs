//! A capture source read once for every `--threads` worker, and legacy pcap
//! records taken straight from its pieces (no copy into a parser's buffer).

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Condvar, Mutex};

use pcap_parser::{PcapBlockOwned, parse_pcap_frame, parse_pcap_frame_be};

use netoffload::wire::LinkType;

use crate::capture::{End, MAX_BLOCK};

/// Indexed records ahead of the current one whose bytes a reader prefetches
/// when they are its own, and how many bytes of each at most.
const PREFETCH_AHEAD: usize = 4;
const PREFETCH_MAX: usize = 2048;

/// The RSS queue of a record's captured bytes (`--threads`, outer hashing).
pub type Steer = dyn Fn(&[u8], LinkType) -> usize + Send + Sync;

/// Bytes per read of a shared source (the size of each reader's buffer too).
/// Small enough that the piece is still in the reading core's L2 when its
/// records are indexed (1 MiB: the index pass missed the cache on every
/// record, `--threads 2` 1.58x instead of 1.70x on the `--spread` capture).
pub const SHARED_READ: usize = 1 << 18;
/// Reads kept for the readers behind: the reader this many reads ahead of the
/// slowest waits (memory stays bounded: 32 MiB). A window this wide lets a
/// worker run ahead through a stretch where another queue has most of the
/// work (8 MiB: `--threads 2` 11% slower on the `--spread` capture).
const SHARED_AHEAD: usize = 128;

/// A source read once for several readers (one per `--threads` worker): the
/// reader that first needs the next piece reads it, the others take the piece
/// kept for them. So every worker parses every frame, standard input works,
/// and the reading (and its system time) falls to whichever worker is ahead.
pub struct Shared {
    state: Mutex<SharedState>,
    source: Mutex<Source>,
    moved: Condvar,
}

/// The source, and the indexer that steers each piece's records as it is read.
struct Source {
    read: Box<dyn Read + Send>,
    indexer: Option<Indexer>,
    /// [`Shared::start_index`] was called (it acts once).
    index_started: bool,
}

pub struct SharedState {
    /// Reads kept, numbered from `first` (`None`: the read failed).
    kept: VecDeque<Option<Piece>>,
    first: usize,
    /// The number of the next read each reader takes.
    next: Vec<usize>,
    /// A reader is reading the source (outside the lock).
    reading: bool,
    /// The source is exhausted (or failed): no read after the kept ones.
    ended: bool,
    /// Buffers of dropped reads, for the next ones.
    spare: Vec<Vec<u8>>,
}

impl Shared {
    /// Read number `next[me]` for reader `me`: kept, read now, or waited for.
    pub fn take(&self, me: usize) -> Option<Piece> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let i = s.next[me];
            if i < s.first + s.kept.len() {
                let piece = s.kept[i - s.first].clone();
                // A read every reader has moved past is dropped and its buffer
                // kept for a next read. Each reader holds the read before its
                // next (the one it is parsing), this one until it has the new
                // one: so `slowest` is counted before this reader moves on.
                let slowest = s.next.iter().copied().min().unwrap_or(0);
                s.next[me] += 1;
                while s.first + 1 < slowest {
                    if let Some(Some(old)) = s.kept.pop_front()
                        && let Ok(buf) = Arc::try_unwrap(old.bytes)
                    {
                        s.spare.push(buf);
                    }
                    s.first += 1;
                }
                self.moved.notify_all();
                return piece;
            }
            if s.ended {
                return Some(Piece::default());
            }
            if s.reading || s.kept.len() >= SHARED_AHEAD {
                s = self.moved.wait(s).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            s.reading = true;
            let mut buf = s.spare.pop().unwrap_or_else(|| vec![0; SHARED_READ]);
            drop(s);
            let (r, index) = {
                let mut src = self.source.lock().unwrap_or_else(|e| e.into_inner());
                let r = src.read.read(&mut buf);
                let index = match (&r, &mut src.indexer) {
                    (Ok(n), Some(ix)) if *n > 0 => ix.index(&buf[..*n], 0).map(Arc::new),
                    _ => None,
                };
                (r, index)
            };
            s = self.state.lock().unwrap_or_else(|e| e.into_inner());
            s.reading = false;
            match r {
                Ok(n) => {
                    s.ended = n == 0;
                    s.kept.push_back(Some(Piece {
                        bytes: Arc::new(buf),
                        len: n,
                        index,
                    }));
                }
                Err(_) => {
                    s.ended = true;
                    s.kept.push_back(None);
                }
            }
            self.moved.notify_all();
        }
    }
}

/// One read of a shared source: the first `len` bytes of a reused buffer, and
/// the RSS queues of the records in it when the source is indexed.
#[derive(Clone, Default)]
pub struct Piece {
    bytes: Arc<Vec<u8>>,
    len: usize,
    index: Option<Arc<Index>>,
}

/// The legacy pcap records that lie whole in one piece, one after another:
/// each one's offset in the piece, length and RSS queue. Made once, by the worker
/// that reads the piece (while it is in that worker's cache): the others pass
/// over the records of other queues without reading or hashing them.
pub struct Index {
    records: Vec<(u32, u32, u16)>,
}

/// Walks the record headers of each piece as it is read (a record crossing
/// into the next piece is carried over as its remaining length, or its header
/// bytes when the header itself is cut). Stops for good at a record it cannot
/// size (over [`MAX_BLOCK`], or a header cut at the end of a piece that is
/// too short): the readers then frame the rest themselves, as without an index.
struct Indexer {
    steer: Arc<Steer>,
    link: LinkType,
    big_endian: bool,
    /// Bytes at the start of the next piece that belong to a crossing record.
    pass: usize,
    /// The first bytes of a crossing record whose 16-byte header is cut.
    head: Vec<u8>,
    stopped: bool,
}

impl Indexer {
    /// The index of the piece `p`, its records starting at `from` (the end of
    /// the file header in the first piece); `None` once stopped.
    fn index(&mut self, p: &[u8], from: usize) -> Option<Index> {
        if self.stopped {
            return None;
        }
        let mut at = from;
        if !self.head.is_empty() {
            let had = self.head.len();
            let Some(rest) = p.get(..16 - had) else {
                self.stopped = true;
                return None;
            };
            self.head.extend_from_slice(rest);
            let Some(total) = record_total(&self.head, self.big_endian) else {
                self.stopped = true;
                return None;
            };
            self.head.clear();
            self.pass = total - had;
        }
        if self.pass >= p.len() - at {
            self.pass -= p.len() - at;
            return Some(Index {
                records: Vec::new(),
            });
        }
        at += self.pass;
        self.pass = 0;
        let mut records = Vec::with_capacity(p.len() / 256);
        while at < p.len() {
            let rest = &p[at..];
            if rest.len() < 16 {
                self.head.extend_from_slice(rest);
                break;
            }
            let Some(total) = record_total(rest, self.big_endian) else {
                self.stopped = true;
                break;
            };
            if total > rest.len() {
                self.pass = total - rest.len();
                break;
            }
            let queue = (self.steer)(&rest[16..total], self.link);
            // A queue number that does not fit is never a worker's: the frame is framed as usual.
            let queue = u16::try_from(queue).unwrap_or(u16::MAX);
            records.push((at as u32, total as u32, queue));
            at += total;
        }
        Some(Index { records })
    }
}

/// A legacy pcap record's total length (16-byte header and captured bytes)
/// from its header; `None` over [`MAX_BLOCK`].
fn record_total(header: &[u8], big_endian: bool) -> Option<usize> {
    let b = [header[8], header[9], header[10], header[11]];
    let caplen = if big_endian {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    };
    let total = 16 + caplen as usize;
    (total <= MAX_BLOCK).then_some(total)
}

/// One reader's view of a [`Shared`] source.
pub struct SharedReader {
    shared: Arc<Shared>,
    me: usize,
    piece: Piece,
    at: usize,
}

impl Read for SharedReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.at == self.piece.len {
            match self.shared.take(self.me) {
                Some(p) => {
                    self.piece = p;
                    self.at = 0;
                }
                None => return Err(std::io::Error::other("read error")),
            }
        }
        let n = buf.len().min(self.piece.len - self.at);
        buf[..n].copy_from_slice(&self.piece.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl Shared {
    /// A shared source over `source` for `readers` readers.
    pub fn new(source: Box<dyn Read + Send>, readers: usize) -> Arc<Shared> {
        let source = Source {
            read: source,
            indexer: None,
            index_started: false,
        };
        Arc::new(Shared {
            state: Mutex::new(SharedState {
                kept: VecDeque::new(),
                first: 0,
                next: vec![0; readers],
                reading: false,
                ended: false,
                spare: Vec::new(),
            }),
            source: Mutex::new(source),
            moved: Condvar::new(),
        })
    }

    /// From now on each piece is indexed as it is read ([`Index`]), starting
    /// with the first, whose records begin at `offset` (after the file
    /// header). Acts once, and only while the first read is the only one.
    pub fn start_index(&self, offset: usize, big_endian: bool, link: LinkType, steer: Arc<Steer>) {
        let mut src = self.source.lock().unwrap_or_else(|e| e.into_inner());
        if std::mem::replace(&mut src.index_started, true) {
            return;
        }
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (0, 1) = (s.first, s.kept.len()) else {
            return;
        };
        let Some(Some(first)) = s.kept.front_mut() else {
            return;
        };
        if offset > first.len {
            return;
        }
        let mut ix = Indexer {
            steer,
            link,
            big_endian,
            pass: 0,
            head: Vec::new(),
            stopped: false,
        };
        first.index = ix.index(&first.bytes[..first.len], offset).map(Arc::new);
        src.indexer = Some(ix);
    }

    /// The first read, while every reader is still on it (as when the
    /// readers are opened, each reading the file header from it).
    fn first_piece(&self) -> Option<Piece> {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match (s.first, s.kept.front()) {
            (0, Some(Some(p))) => Some(p.clone()),
            _ => None,
        }
    }

    /// Reader `me`'s `Read` view (for the parser that reads the file header).
    pub fn reader(self: &Arc<Shared>, me: usize) -> SharedReader {
        SharedReader {
            shared: self.clone(),
            me,
            piece: Piece::default(),
            at: 0,
        }
    }
}

/// Where a record taken by [`Direct::next_record`] lies.
pub enum Record {
    /// In the current piece, at this range.
    Piece(usize, usize),
    /// Gathered across pieces in the carry buffer.
    Carry,
}

/// Legacy pcap records (16-byte header, then the captured bytes) read straight
/// from the pieces of a [`Shared`] source; a record across two pieces is
/// gathered in a small carry buffer. Stops as pcap-parser's reader does: a
/// cut record is `End::Cut`, a record over [`MAX_BLOCK`] is `End::Broken`.
pub struct Direct {
    shared: Arc<Shared>,
    me: usize,
    piece: Piece,
    pos: usize,
    carry: Vec<u8>,
    carry_taken: bool,
    big_endian: bool,
    /// File offset of the next record.
    offset: u64,
    /// The next record of the piece's index to take.
    entry: usize,
}

impl Direct {
    /// Takes over reader `me` after the file header, at file offset `offset`
    /// in the first piece (which the header parser read whole); `rest` is
    /// what the header parser holds beyond the header, the same bytes, copied
    /// only if the first piece is no longer kept.
    pub fn new(
        shared: Arc<Shared>,
        me: usize,
        rest: &[u8],
        offset: u64,
        big_endian: bool,
    ) -> Direct {
        let (piece, pos) = match shared.first_piece() {
            Some(p) if p.len == offset as usize + rest.len() => (p, offset as usize),
            _ => (
                Piece {
                    bytes: Arc::new(rest.to_vec()),
                    len: rest.len(),
                    index: None,
                },
                0,
            ),
        };
        Direct {
            shared,
            me,
            piece,
            pos,
            carry: Vec::new(),
            carry_taken: false,
            big_endian,
            offset,
            entry: 0,
        }
    }

    /// The reader this is (worker `me` keeps RSS queue `me`).
    pub fn me(&self) -> usize {
        self.me
    }

    /// A record returned by [`Direct::next_record`] parsed by pcap-parser
    /// (`None` cannot happen: the record's length was checked).
    pub fn block(&self, r: &Record) -> Option<PcapBlockOwned<'_>> {
        let bytes = match *r {
            Record::Piece(at, len) => &self.piece.bytes[at..at + len],
            Record::Carry => &self.carry[..],
        };
        let parsed = if self.big_endian {
            parse_pcap_frame_be(bytes)
        } else {
            parse_pcap_frame(bytes)
        };
        parsed.ok().map(|(_, b)| PcapBlockOwned::Legacy(b))
    }

    /// The record's total length from its header (`Err` over [`MAX_BLOCK`]).
    fn record_len(&self, header: &[u8], frames: u64) -> Result<usize, End> {
        record_total(header, self.big_endian).ok_or_else(|| End::Broken {
            frames,
            offset: self.offset,
            why: format!(
                "a block larger than {} MiB (a corrupt length, not a frame)",
                MAX_BLOCK >> 20
            ),
        })
    }

    /// The next piece; false at the end of the source.
    fn fetch(&mut self, frames: u64) -> Result<bool, End> {
        match self.shared.take(self.me) {
            Some(p) => {
                self.piece = p;
                self.pos = 0;
                self.entry = 0;
                Ok(self.piece.len > 0)
            }
            None => Err(End::Broken {
                frames,
                offset: self.offset,
                why: "read error".into(),
            }),
        }
    }

    /// The next record, and its RSS queue when the piece's index has it;
    /// `Ok(None)` at a clean end; `Err` with how the capture ended otherwise.
    /// `frames`: frames read so far.
    pub fn next_record(&mut self, frames: u64) -> Result<Option<(Record, Option<usize>)>, End> {
        if self.carry_taken {
            self.carry.clear();
            self.carry_taken = false;
        }
        loop {
            if self.carry.is_empty()
                && let Some(ix) = &self.piece.index
                && let Some(&(at, len, queue)) = ix.records.get(self.entry)
                && self.pos == at as usize
            {
                // Every reader takes the indexed records in turn (the one at
                // `pos` is the next entry). This reader's records arrive
                // from another core's cache (the one that read the piece):
                // start the transfer of its own a few records ahead.
                if let Some(&(ahead, len, queue)) = ix.records.get(self.entry + PREFETCH_AHEAD)
                    && usize::from(queue) == self.me
                {
                    let ahead = ahead as usize;
                    netoffload::csum::prefetch(
                        &self.piece.bytes[ahead..ahead + (len as usize).min(PREFETCH_MAX)],
                    );
                }
                let (at, len) = (self.pos, len as usize);
                self.entry += 1;
                self.pos += len;
                self.offset += len as u64;
                return Ok(Some((Record::Piece(at, len), Some(usize::from(queue)))));
            }
            if self.carry.is_empty() {
                let data = &self.piece.bytes[self.pos..self.piece.len];
                if data.is_empty() {
                    if !self.fetch(frames)? {
                        return Ok(None);
                    }
                    continue;
                }
                if data.len() >= 16 {
                    let total = self.record_len(data, frames)?;
                    if data.len() >= total {
                        let at = self.pos;
                        self.pos += total;
                        self.offset += total as u64;
                        return Ok(Some((Record::Piece(at, total), None)));
                    }
                }
                self.carry.extend_from_slice(data);
                self.pos = self.piece.len;
                continue;
            }
            // A record across pieces: header first, then its captured bytes.
            let want = if self.carry.len() < 16 {
                16
            } else {
                self.record_len(&self.carry, frames)?
            };
            if self.carry.len() >= 16 && self.carry.len() == want {
                self.offset += want as u64;
                self.carry_taken = true;
                return Ok(Some((Record::Carry, None)));
            }
            if self.pos == self.piece.len && !self.fetch(frames)? {
                return Err(End::Cut {
                    frames,
                    offset: self.offset,
                });
            }
            let take = (want - self.carry.len()).min(self.piece.len - self.pos);
            self.carry
                .extend_from_slice(&self.piece.bytes[self.pos..self.pos + take]);
            self.pos += take;
        }
    }
}
