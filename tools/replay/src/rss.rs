//! Receive side scaling: the Toeplitz hash over a frame's addresses and ports
//! picks the worker (receive queue) of `--threads N`, as a NIC's RSS does
//! (Microsoft's RSS specification; Linux `skb_get_hash` / ethtool `-X`).

use netoffload::wire::{LinkType, Net, Transport};

use crate::walk::Walk;

/// The key of Microsoft's RSS verification suite (also the default of many NICs).
pub const MS_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
];

/// Entries of the indirection table (hash low bits -> queue), as on most NICs.
pub const RETA_SIZE: u32 = 128;

/// Toeplitz hash of `input` under `key`: for every set input bit, XOR in the
/// 32 key bits starting at that bit position (input shorter than the key minus 4 bytes).
pub fn toeplitz(key: &[u8; 40], input: &[u8]) -> u32 {
    let mut hash = 0u32;
    // The 64-bit window holds key bits [i, i + 64) for the current input byte.
    let mut window = u64::from_be_bytes([
        key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
    ]);
    for (i, &byte) in input.iter().enumerate() {
        for bit in 0..8 {
            if byte & (0x80 >> bit) != 0 {
                hash ^= (window >> (32 - bit)) as u32;
            }
        }
        window = (window << 8) | u64::from(key.get(i + 8).copied().unwrap_or(0));
    }
    hash
}

/// Which headers the hash reads in a tunnel (`--rss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RssMode {
    /// The outermost IP header and its ports (what a NIC that does not parse tunnels sees).
    Outer,
    /// The innermost IP header and its ports (a NIC that parses tunnels).
    Inner,
}

/// The hash input of one level: source address, destination address, then
/// source and destination port for TCP/UDP/SCTP first fragments (else the 2-tuple).
pub fn tuple(bytes: &[u8], w: &Walk, mode: RssMode) -> Option<Vec<u8>> {
    let lv = match mode {
        RssMode::Outer => w.levels.first(),
        RssMode::Inner => w.levels.last(),
    }?;
    let l = &lv.layers;
    let alen = match l.net {
        Net::Ipv4 => 4,
        Net::Ipv6 => 16,
    };
    let mut t = Vec::with_capacity(2 * alen + 4);
    t.extend_from_slice(bytes.get(l.pseudo_src..l.pseudo_src + alen)?);
    t.extend_from_slice(bytes.get(l.pseudo_dst..l.pseudo_dst + alen)?);
    let ports = matches!(
        l.transport,
        Transport::Tcp | Transport::Udp | Transport::Sctp
    ) && !l.fragment.is_fragment;
    if ports {
        t.extend_from_slice(bytes.get(l.l4..l.l4 + 4)?);
    }
    Some(t)
}

/// Longest hash input: two IPv6 addresses and two ports.
pub const MAX_INPUT: usize = 36;

/// The Toeplitz hash by table: for every input byte position and value, the
/// XOR of the key windows its set bits select (one lookup per byte instead of
/// one step per bit; equal to [`toeplitz`] by construction).
pub struct Table(Box<[[u32; 256]; MAX_INPUT]>);

impl Table {
    /// The table of `key`: each cell is the cell of the value without its
    /// lowest set bit, XOR the key window of that bit (a few thousand steps,
    /// so a short capture does not wait for the table).
    pub fn new(key: &[u8; 40]) -> Table {
        let mut t = Box::new([[0u32; 256]; MAX_INPUT]);
        for (pos, row) in t.iter_mut().enumerate() {
            // The key window of each bit of this byte, most significant bit first.
            let windows: [u32; 8] = std::array::from_fn(|bit| {
                let mut input = [0u8; MAX_INPUT];
                input[pos] = 0x80 >> bit;
                toeplitz(key, &input[..=pos])
            });
            for value in 1..256usize {
                let lowest = value.trailing_zeros() as usize;
                row[value] = row[value & (value - 1)] ^ windows[7 - lowest];
            }
        }
        Table(t)
    }

    /// The hash of `input` (at most [`MAX_INPUT`] bytes; longer input is cut).
    pub fn hash(&self, input: &[u8]) -> u32 {
        self.hash_from(0, 0, input)
    }

    /// The hash so far `h` of the input before byte position `at`, carried on
    /// over `more` (the input in pieces as they lie in a packet, nothing copied).
    fn hash_from(&self, h: u32, at: usize, more: &[u8]) -> u32 {
        more.iter()
            .zip(self.0.iter().skip(at))
            .fold(h, |h, (&b, row)| h ^ row[usize::from(b)])
    }
}

/// The table of the Microsoft key, built once.
fn ms_table() -> &'static Table {
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| Table::new(&MS_KEY))
}

/// The queue of a hash input among `queues`: the hash's low bits through an
/// indirection table filled round robin; frames with no IP header go to queue 0.
pub fn queue_of(t: Option<&[u8]>, queues: usize) -> usize {
    reta(t.map(|t| ms_table().hash(t)), queues)
}

/// The indirection table's queue for a hash (`None`: no IP header, queue 0).
fn reta(hash: Option<u32>, queues: usize) -> usize {
    match hash {
        // A 32-bit division: the 64-bit one was a quarter of the steer's time.
        Some(h) if queues > 1 => ((h % RETA_SIZE) % queues as u32) as usize,
        _ => 0,
    }
}

/// The queue of a walked frame.
pub fn queue(bytes: &[u8], w: &Walk, mode: RssMode, queues: usize) -> usize {
    queue_of(tuple(bytes, w, mode).as_deref(), queues)
}

/// The outer hash input read straight from the headers, as a NIC's parser
/// does, without the full walk: Ethernet with up to two VLAN tags (or raw IP),
/// IPv4 or IPv6, ports of TCP/UDP/SCTP when they follow the fixed header of an
/// unfragmented packet (else the 2-tuple). `None` when not IP.
pub fn outer_tuple(bytes: &[u8], link: LinkType) -> Option<Vec<u8>> {
    let (addrs, ports) = outer_input(bytes, link)?;
    Some([addrs, ports.unwrap_or_default()].concat())
}

/// The queue of a frame by its outer headers read directly (no walk, nothing
/// allocated or copied: every frame of a `--threads` run is steered by it).
pub fn outer_queue(bytes: &[u8], link: LinkType, queues: usize) -> usize {
    let hash = outer_input(bytes, link).map(|(addrs, ports)| {
        let t = ms_table();
        t.hash_from(t.hash(addrs), addrs.len(), ports.unwrap_or_default())
    });
    reta(hash, queues)
}

/// [`outer_tuple`] as it lies in the frame: the addresses, and the ports if any.
fn outer_input(bytes: &[u8], link: LinkType) -> Option<(&[u8], Option<&[u8]>)> {
    let (mut l3, mut et) = match link {
        LinkType::Ethernet => (14, be16(bytes, 12)?),
        LinkType::RawIp => match bytes.first()? >> 4 {
            4 => (0, 0x0800),
            6 => (0, 0x86DD),
            _ => return None,
        },
    };
    for _ in 0..2 {
        if et == 0x8100 || et == 0x88A8 {
            et = be16(bytes, l3 + 2)?;
            l3 += 4;
        }
    }
    let (addrs, proto, l4, frag) = match et {
        0x0800 => {
            let ihl = usize::from(bytes.get(l3)? & 0x0F) * 4;
            let frag = be16(bytes, l3 + 6)? & 0x3FFF != 0;
            (
                bytes.get(l3 + 12..l3 + 20)?,
                *bytes.get(l3 + 9)?,
                l3 + ihl,
                frag,
            )
        }
        0x86DD => (
            bytes.get(l3 + 8..l3 + 40)?,
            *bytes.get(l3 + 6)?,
            l3 + 40,
            false,
        ),
        _ => return None,
    };
    let ports = (!frag && matches!(proto, 6 | 17 | 132))
        .then(|| bytes.get(l4..l4 + 4))
        .flatten();
    Some((addrs, ports))
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}
