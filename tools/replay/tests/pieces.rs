//! Legacy pcap records read straight from the shared source's 1 MiB pieces
//! (`shared_source::Direct`): records across piece boundaries (a header cut by
//! the boundary, a record longer than two pieces, empty records), both byte
//! orders, and captures cut at any point end as pcap-parser's reader ends them.

mod support;

use netoffload_replay::capture::{self, End};
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
        assert!(bytes.len() > 5 << 20);
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
    let piece = 1 << 20;
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
