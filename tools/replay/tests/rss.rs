//! The Toeplitz RSS hash against Microsoft's RSS verification suite (the key
//! and the IPv4/IPv6 vectors with and without ports), and `--threads N`
//! against `--threads 1` on the built-in mix.

use std::net::{Ipv4Addr, Ipv6Addr};

use netoffload_replay::rss::{MS_KEY, Table, toeplitz};
use netoffload_replay::{app, cli, nic};

/// (source, destination, source port, destination port, hash of the
/// addresses, hash with the ports).
const V4: [(&str, &str, u16, u16, u32, u32); 5] = [
    (
        "66.9.149.187",
        "161.142.100.80",
        2794,
        1766,
        0x323e_8fc2,
        0x51cc_c178,
    ),
    (
        "199.92.111.2",
        "65.69.140.83",
        14230,
        4739,
        0xd718_262a,
        0xc626_b0ea,
    ),
    (
        "24.19.198.95",
        "12.22.207.184",
        12898,
        38024,
        0xd2d0_a5de,
        0x5c2b_394a,
    ),
    (
        "38.27.205.30",
        "209.142.163.6",
        48228,
        2217,
        0x8298_9176,
        0xafc7_327f,
    ),
    (
        "153.39.163.191",
        "202.188.127.2",
        44251,
        1303,
        0x5d18_09c5,
        0x10e8_28a2,
    ),
];

const V6: [(&str, &str, u16, u16, u32, u32); 3] = [
    (
        "3ffe:2501:200:1fff::7",
        "3ffe:2501:200:3::1",
        2794,
        1766,
        0x2cc1_8cd5,
        0x4020_7d3d,
    ),
    (
        "3ffe:501:8::260:97ff:fe40:efab",
        "ff02::1",
        14230,
        4739,
        0x0f0c_461c,
        0xdde5_1bbf,
    ),
    (
        "3ffe:1900:4545:3:200:f8ff:fe21:67cf",
        "fe80::200:f8ff:fe21:67cf",
        44251,
        38024,
        0x4b61_e985,
        0x02d1_feef,
    ),
];

/// Both ways of computing the hash (bit by bit, and by table) give the vector's values.
fn check(src: &[u8], dst: &[u8], sp: u16, dp: u16, two: u32, four: u32) {
    let table = Table::new(&MS_KEY);
    let mut t = [src, dst].concat();
    assert_eq!(toeplitz(&MS_KEY, &t), two, "2-tuple {t:02x?}");
    assert_eq!(table.hash(&t), two, "2-tuple by table {t:02x?}");
    t.extend_from_slice(&sp.to_be_bytes());
    t.extend_from_slice(&dp.to_be_bytes());
    assert_eq!(toeplitz(&MS_KEY, &t), four, "4-tuple {t:02x?}");
    assert_eq!(table.hash(&t), four, "4-tuple by table {t:02x?}");
}

#[test]
fn microsoft_ipv4_vectors() {
    for (s, d, sp, dp, two, four) in V4 {
        let (s, d): (Ipv4Addr, Ipv4Addr) = (s.parse().unwrap(), d.parse().unwrap());
        check(&s.octets(), &d.octets(), sp, dp, two, four);
    }
}

#[test]
fn microsoft_ipv6_vectors() {
    for (s, d, sp, dp, two, four) in V6 {
        let (s, d): (Ipv6Addr, Ipv6Addr) = (s.parse().unwrap(), d.parse().unwrap());
        check(&s.octets(), &d.octets(), sp, dp, two, four);
    }
}

/// Two queues: every per-frame number equals one queue's; only the GRO
/// columns (packets out, merge, flush reasons) may differ, and here they do
/// not need to. Every frame still goes up exactly once.
#[test]
fn two_queues_change_only_the_gro_columns() {
    let inputs = app::mix_inputs();
    for rss in [
        netoffload_replay::rss::RssMode::Outer,
        netoffload_replay::rss::RssMode::Inner,
    ] {
        let one = cli::Options::default();
        let two = cli::Options {
            threads: 2,
            rss,
            ..cli::Options::default()
        };
        let a = app::run(&inputs, nic::Profile::L4, cli::Policy::Compute, &one, false);
        let b = app::run(&inputs, nic::Profile::L4, cli::Policy::Compute, &two, false);
        let key = |s: &netoffload_replay::report::RunStats| {
            (
                s.packets_in,
                s.sw_csum_bytes,
                s.dup_csum_bytes,
                s.bad_csum,
                s.device_faults,
                s.malformed,
                s.not_ip,
            )
        };
        assert_eq!(key(&a.stats), key(&b.stats), "{rss:?}");
        let mut frames: Vec<u64> = b.outs.iter().flat_map(|o| o.frames.clone()).collect();
        frames.sort_unstable();
        assert_eq!(frames, (1..=inputs.len() as u64).collect::<Vec<_>>());
        assert!(b.stats.packets_out >= a.stats.packets_out / 2);
    }
}

/// The reader's direct outer parse finds the same hash input as the walk,
/// and the queue it steers to (hashed in place, the input not copied) is the
/// queue of that input.
#[test]
fn outer_tuple_equals_the_walks_outer_tuple_on_the_mix() {
    use netoffload_replay::rss::{RssMode, outer_queue, outer_tuple, queue_of, tuple};
    for inp in app::mix_inputs() {
        for queues in [1, 2, 3, 7, 256] {
            assert_eq!(
                outer_queue(&inp.bytes, inp.link, queues),
                queue_of(outer_tuple(&inp.bytes, inp.link).as_deref(), queues),
                "{} over {queues} queues",
                inp.class
            );
        }
        let w = netoffload_replay::walk::walk(&inp.bytes, inp.link);
        if w.levels
            .first()
            .is_some_and(|l| l.layers.fragment.is_fragment)
        {
            continue; // the walk keeps ports off fragments the same way; IPv6 ext headers differ
        }
        assert_eq!(
            outer_tuple(&inp.bytes, inp.link),
            tuple(&inp.bytes, &w, RssMode::Outer),
            "{}",
            inp.class
        );
    }
}
