//! Legacy pcap records read straight from the shared source's pieces
//! (`SHARED_READ` bytes each, `shared_source::Direct`): records across piece boundaries (a header cut by
//! the boundary, a record longer than two pieces, empty records), both byte
//! orders, and captures cut at any point end as pcap-parser's reader ends them.

mod support;

use netoffload_replay::capture::{self, End};
use netoffload_replay::shared_source::SHARED_READ;
use support::tmp;

/// `n` records of varied lengths (0 to ~3000 bytes, one of 3 MiB), each filled
/// with its own number so a mix-up shows.
fn records(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let len = if i == n / 2 {
                3 << 20
            } else {
                (i * 7919) % 3001
            };
            vec![(i % 251) as u8; len]
        })
        .collect()
}

/// A classic pcap of raw-IP records (link type 101), little- or big-endian.
fn pcap(records: &[Vec<u8>], big_endian: bool) -> Vec<u8> {
    let w32 = |v: u32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let w16 = |v: u16| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut f = Vec::new();
    f.extend_from_slice(&w32(0xa1b2_c3d4));
    f.extend_from_slice(&w16(2));
    f.extend_from_slice(&w16(4));
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(&w32(16 << 20));
    f.extend_from_slice(&w32(101));
    for (i, r) in records.iter().enumerate() {
        f.extend_from_slice(&w32(1));
        f.extend_from_slice(&w32(i as u32));
        f.extend_from_slice(&w32(r.len() as u32));
        f.extend_from_slice(&w32(r.len() as u32));
        f.extend_from_slice(r);
    }
    f
}

/// Every frame of the file, and how it ended.
fn read_all(name: &str, bytes: &[u8]) -> (Vec<Vec<u8>>, End) {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    let mut r = capture::open(p.to_str().unwrap()).expect("opens");
    let mut frames = Vec::new();
    while let Some(f) = r.next_frame().expect("legacy header ok") {
        frames.push(f.bytes);
    }
    (frames, r.end().cloned().expect("ended"))
}

#[test]
fn records_across_pieces_read_whole_in_both_byte_orders() {
    let recs = records(3000);
    for big_endian in [false, true] {
        let bytes = pcap(&recs, big_endian);
        assert!(bytes.len() > 5 * SHARED_READ);
        let (frames, end) = read_all(&format!("pieces-{big_endian}.pcap"), &bytes);
        assert_eq!(end, End::Clean);
        assert_eq!(frames.len(), recs.len());
        for (i, (f, r)) in frames.iter().zip(&recs).enumerate() {
            assert!(f == r, "record {i} ({} bytes)", r.len());
        }
    }
}

/// Cut anywhere (in a header, in the data, on a piece boundary): the whole
/// records before the cut are read and the end names the cut record's offset.
#[test]
fn a_capture_cut_anywhere_keeps_every_whole_record_before_the_cut() {
    let recs = records(1200);
    let bytes = pcap(&recs, false);
    // Record start offsets.
    let mut starts = Vec::new();
    let mut at = 24;
    for r in &recs {
        starts.push(at);
        at += 16 + r.len();
    }
    let piece = SHARED_READ;
    for cut in [
        piece - 3,
        piece + 8,
        2 * piece,
        starts[600] + (2 << 20),
        starts[700] + 5,
        starts[900] + 20,
        bytes.len() - 1,
    ] {
        let (frames, end) = read_all("pieces-cut.pcap", &bytes[..cut]);
        let whole = starts.iter().filter(|&&s| s < cut).count() - 1;
        let last_start = starts[whole] as u64;
        if starts.contains(&cut) {
            continue; // a cut on a record boundary is a clean end
        }
        assert_eq!(frames.len(), whole, "cut at {cut}");
        assert_eq!(
            end,
            End::Cut {
                frames: whole as u64,
                offset: last_start
            },
            "cut at {cut}"
        );
    }
}

/// Records placed so that a record header straddles each of 15 piece
/// boundaries (1 to 15 of its 16 bytes before it), and one starts exactly on
/// the 16th.
fn straddling() -> Vec<Vec<u8>> {
    let piece = SHARED_READ;
    let (mut recs, mut at) = (Vec::new(), 24);
    let push = |recs: &mut Vec<Vec<u8>>, len: usize| {
        recs.push(vec![(recs.len() % 251) as u8; len]);
        len + 16
    };
    for k in 1..=16usize {
        let header_at = k * piece - k % 16;
        while header_at - at > 3016 {
            at += push(&mut recs, 2000);
        }
        at += push(&mut recs, header_at - at - 16);
    }
    for _ in 0..100 {
        push(&mut recs, 500);
    }
    recs
}

/// `--threads`: readers of one shared source, the records steered once as
/// each piece is read. Each reader gets exactly its queue's records, whole
/// and in order, and counts the others; the steer ran once per record the
/// index covered (not once per reader), and the readers' own test ran only
/// for the few records it did not cover (those across piece boundaries).
#[test]
fn steered_readers_each_get_exactly_their_records_in_order() {
    for (name, recs) in [("varied", records(3000)), ("straddling", straddling())] {
        for big_endian in [false, true] {
            assert_steered(
                &format!("pieces-steered-{name}-{big_endian}.pcap"),
                &recs,
                big_endian,
            );
        }
    }
}

fn assert_steered(name: &str, recs: &[Vec<u8>], big_endian: bool) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use capture::Next;
    use netoffload::wire::LinkType;

    let queue = |b: &[u8]| usize::from(b.first().copied().unwrap_or(0) % 3);
    let bytes = pcap(recs, big_endian);
    let pieces = bytes.len().div_ceil(SHARED_READ);
    let p = tmp(name);
    std::fs::write(&p, &bytes).unwrap();
    let (steered, tested) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let counted = steered.clone();
    let steer = Arc::new(move |b: &[u8], _: LinkType| {
        counted.fetch_add(1, Ordering::Relaxed);
        queue(b)
    });
    let (first, others) = capture::open_shared(p.to_str().unwrap(), 2, Some(steer)).unwrap();
    let readers: Vec<_> = std::iter::once(first).chain(others).collect();
    let got: Vec<(Vec<Vec<u8>>, usize, End)> = std::thread::scope(|s| {
        let handles: Vec<_> = readers
            .into_iter()
            .enumerate()
            .map(|(me, mut r)| {
                let tested = tested.clone();
                s.spawn(move || {
                    let skip = move |b: &[u8], _: LinkType| {
                        tested.fetch_add(1, Ordering::Relaxed);
                        queue(b) != me
                    };
                    let (mut frames, mut skipped) = (Vec::new(), 0);
                    loop {
                        match r.next_unless(Some(&skip), |f, _| f.bytes.to_vec()) {
                            Ok(Some(Next::Frame(f))) => frames.push(f),
                            Ok(Some(Next::Skipped)) => skipped += 1,
                            Ok(None) => break,
                            Err(e) => panic!("{e}"),
                        }
                    }
                    (frames, skipped, r.end().cloned().expect("ended"))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (me, (frames, skipped, end)) in got.iter().enumerate() {
        let mine: Vec<&Vec<u8>> = recs.iter().filter(|r| queue(r) == me).collect();
        assert_eq!(*end, End::Clean, "{name}: reader {me}");
        assert_eq!(frames.len(), mine.len(), "{name}: reader {me}");
        assert_eq!(frames.len() + skipped, recs.len(), "{name}: reader {me}");
        assert!(
            frames.iter().zip(&mine).all(|(f, r)| f == *r),
            "{name}: reader {me}"
        );
    }
    let (steered, tested) = (
        steered.load(Ordering::Relaxed),
        tested.load(Ordering::Relaxed),
    );
    assert!(
        steered + pieces >= recs.len() && steered <= recs.len(),
        "{name}: steered {steered} of {}",
        recs.len()
    );
    assert!(
        tested <= 3 * pieces,
        "{name}: {tested} records tested by the readers ({pieces} pieces)"
    );
}
