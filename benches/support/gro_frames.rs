//! Frames for the GRO benchmark and its callgrind driver (`examples/gro_count.rs`):
//! TCP/IPv4 segments with timestamps and 1448-byte payloads, plain or in VXLAN,
//! checksums computed here naively, in bursts of 32 with flows round-robin.
#![allow(dead_code)]

pub const BURST: usize = 32;
pub const PAYLOAD: usize = 1448;

/// Big-endian 16-bit word sum (a naive reference, independent of the crate).
pub fn sum16(data: &[u8]) -> u32 {
    let mut s = 0u32;
    for c in data.chunks(2) {
        s += u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32;
    }
    s
}

/// Folds and complements a word sum.
pub fn fold(mut s: u32) -> u16 {
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}

/// Ethernet + IPv4 + TCP (12-byte timestamp option) + payload, checksums right.
pub fn tcp4(flow: u32, seq: u32, id: u16) -> Vec<u8> {
    let mut ip = vec![0u8; 20];
    let tcp_len = 32 + PAYLOAD;
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&((20 + tcp_len) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&id.to_be_bytes());
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = 6;
    ip[12..16].copy_from_slice(&[10, (flow >> 8) as u8, flow as u8, 1]);
    ip[16..20].copy_from_slice(&[10, 0, 0, 2]);
    let c = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    let mut t = vec![0u8; 32];
    t[0..2].copy_from_slice(&(40000u16.wrapping_add(flow as u16)).to_be_bytes());
    t[2..4].copy_from_slice(&80u16.to_be_bytes());
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[8..12].copy_from_slice(&1u32.to_be_bytes());
    t[12] = 8 << 4;
    t[13] = 0x10;
    t[14..16].copy_from_slice(&512u16.to_be_bytes());
    t[20..32].copy_from_slice(&[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2]);
    t.extend((0..PAYLOAD).map(|i| (i as u32 ^ seq) as u8));
    let ps = sum16(&ip[12..20]) + 6 + tcp_len as u32;
    let c = fold(ps + sum16(&t));
    t[16..18].copy_from_slice(&c.to_be_bytes());
    let mut f = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0];
    f.extend_from_slice(&ip);
    f.extend_from_slice(&t);
    f
}

/// The same segment inside VXLAN (outer UDP checksum zero, as most senders).
pub fn vxlan(flow: u32, seq: u32, id: u16) -> Vec<u8> {
    let inner = tcp4(flow, seq, id);
    let mut body = vec![0u8; 16];
    body[0..2].copy_from_slice(&(50000u16.wrapping_add(flow as u16)).to_be_bytes());
    body[2..4].copy_from_slice(&4789u16.to_be_bytes());
    body[4..6].copy_from_slice(&((16 + inner.len()) as u16).to_be_bytes());
    body[8] = 0x08;
    body[12..16].copy_from_slice(&(42u32 << 8).to_be_bytes());
    body.extend_from_slice(&inner);
    let mut ip = vec![0u8; 20];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&((20 + body.len()) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&id.wrapping_add(7).to_be_bytes());
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&[192, 168, 0, 1]);
    ip[16..20].copy_from_slice(&[192, 168, 0, 2]);
    let c = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    let mut f = vec![2, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 4, 8, 0];
    f.extend_from_slice(&ip);
    f.extend_from_slice(&body);
    f
}

/// Bursts of 32 frames, flows round-robin, each flow's segments in order.
pub fn bursts(
    flows: u32,
    make: fn(u32, u32, u16) -> Vec<u8>,
    n_bursts: usize,
) -> Vec<Vec<Vec<u8>>> {
    let mut seq = vec![1000u32; flows as usize];
    let mut id = vec![1u16; flows as usize];
    let mut k = 0u32;
    (0..n_bursts)
        .map(|_| {
            (0..BURST)
                .map(|_| {
                    let f = (k % flows) as usize;
                    k += 1;
                    let fr = make(f as u32, seq[f], id[f]);
                    seq[f] = seq[f].wrapping_add(PAYLOAD as u32);
                    id[f] = id[f].wrapping_add(1);
                    fr
                })
                .collect()
        })
        .collect()
}
