//! The replay tool's command line and capture reading: option parsing and its
//! usage errors, every supported link type in pcap and pcapng (files written
//! here byte by byte), the error naming an unsupported link type, truncated
//! frames, and the `--gro` / `--verdicts` CSV files end to end.
#![allow(dead_code)]

mod support;

use netoffload_replay::{app, capture, cli, mix, nic};
use support::{pcap, pcapng, rows_of, samples, tmp};

use cli::{CliError, Options, Policy, Sink};

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn defaults_and_every_option() {
    let o = cli::parse(&[]).unwrap();
    assert_eq!(o, Options::default());
    assert_eq!(
        (o.budget, o.gap_us, o.udp_gro, o.json, o.explain),
        (64, 1000, true, false, 0)
    );
    let o = cli::parse(&args(
        "cap.pcap --nic l4-tunnel --policy strict --budget 8 --gap-us 50 --no-udp-gro --verdicts - --gro out.csv --explain 3 --threads 2 --rss inner",
    ))
    .unwrap();
    assert_eq!(
        (o.threads, o.rss),
        (2, netoffload_replay::rss::RssMode::Inner)
    );
    let j = cli::parse(&args("--json --progress")).unwrap();
    assert!(j.json && j.progress);
    assert_eq!(o.file.as_deref(), Some("cap.pcap"));
    assert_eq!(o.nic, Some(nic::Profile::L4Tunnel));
    assert_eq!(o.policy, Some(Policy::Strict));
    assert_eq!(
        (o.budget, o.gap_us, o.udp_gro, o.explain, o.json),
        (8, 50, false, 3, false)
    );
    assert_eq!(o.verdicts, Some(Sink::Stdout));
    assert_eq!(o.gro, Some(Sink::File("out.csv".into())));
    let o = cli::parse(&args("--nic=complete --policy=compute")).unwrap();
    assert_eq!(
        (o.nic, o.policy),
        (Some(nic::Profile::Complete), Some(Policy::Compute))
    );
    for p in nic::Profile::ALL {
        assert_eq!(nic::Profile::parse(p.name()), Some(p));
    }
}

#[test]
fn usage_errors_name_the_problem() {
    let err = |s: &str| match cli::parse(&args(s)) {
        Err(CliError::Usage(m)) => m,
        other => panic!("{s}: {other:?}"),
    };
    assert!(err("--nic fast").contains("'fast'"));
    assert!(err("--policy lax").contains("'lax'"));
    assert!(err("--budget 0").contains("--budget"));
    assert!(err("--budget many").contains("'many'"));
    assert!(err("--gap-us -5").contains("-5"));
    assert!(err("--explain").contains("--explain"));
    assert!(err("--bogus").contains("--bogus"));
    assert!(err("a.pcap b.pcap").contains("b.pcap"));
    assert!(
        matches!(cli::parse(&args("--help")), Err(CliError::Help(t)) if t.contains("--verdicts"))
    );
    assert!(
        matches!(cli::parse(&args("--version")), Err(CliError::Help(t)) if t.contains("replay"))
    );
}

fn read_rows(path: &std::path::Path) -> Vec<Vec<(usize, &'static str, &'static str)>> {
    capture::read(path.to_str().unwrap())
        .unwrap()
        .iter()
        .map(|f| {
            assert!(f.bad_link.is_none(), "{:?}", f.bad_link);
            rows_of(&f.bytes, f.link)
        })
        .collect()
}

#[test]
fn every_supported_link_type_gives_the_same_verdicts_as_ethernet() {
    use netoffload::wire::LinkType;
    let frames = samples();
    let want: Vec<_> = frames
        .iter()
        .map(|f| rows_of(f, LinkType::Ethernet))
        .collect();
    assert!(want.iter().all(|r| !r.is_empty()));
    let ip = |f: &Vec<u8>| f[14..].to_vec();
    let is_v6 = |f: &Vec<u8>| f[12..14] == [0x86, 0xdd];
    type Wrap = Box<dyn Fn(&Vec<u8>) -> Vec<u8>>;
    let wrappers: Vec<(u32, Wrap)> = vec![
        (1, Box::new(|f: &Vec<u8>| f.clone())),
        (101, Box::new(ip)),
        (12, Box::new(ip)),
        (228, Box::new(ip)), // only used with IPv4 frames below
        (
            113,
            Box::new(move |f: &Vec<u8>| {
                let mut v = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 0, 0, 0];
                v.extend_from_slice(&f[12..14]);
                v.extend_from_slice(&f[14..]);
                v
            }),
        ),
        (
            276,
            Box::new(move |f: &Vec<u8>| {
                let mut v = f[12..14].to_vec();
                v.extend_from_slice(&[0; 18]);
                v.extend_from_slice(&f[14..]);
                v
            }),
        ),
        (
            0,
            Box::new(move |f: &Vec<u8>| {
                let af: u32 = if is_v6(f) { 30 } else { 2 };
                let mut v = af.to_le_bytes().to_vec();
                v.extend_from_slice(&f[14..]);
                v
            }),
        ),
        (
            108,
            Box::new(move |f: &Vec<u8>| {
                let af: u32 = if is_v6(f) { 24 } else { 2 };
                let mut v = af.to_be_bytes().to_vec();
                v.extend_from_slice(&f[14..]);
                v
            }),
        ),
    ];
    for (link, wrap) in &wrappers {
        let chosen: Vec<usize> = (0..frames.len())
            .filter(|&i| *link != 228 || !is_v6(&frames[i]))
            .collect();
        let wrapped: Vec<Vec<u8>> = chosen.iter().map(|&i| wrap(&frames[i])).collect();
        let expect: Vec<_> = chosen.iter().map(|&i| want[i].clone()).collect();
        let p = tmp(&format!("link{link}.pcap"));
        let recs: Vec<(&[u8], u32)> = wrapped
            .iter()
            .map(|w| (w.as_slice(), w.len() as u32))
            .collect();
        std::fs::write(&p, pcap(*link, &recs)).unwrap();
        assert_eq!(read_rows(&p), expect, "pcap link type {link}");
        let p = tmp(&format!("link{link}.pcapng"));
        let refs: Vec<&[u8]> = wrapped.iter().map(Vec::as_slice).collect();
        std::fs::write(&p, pcapng(*link as u16, &refs)).unwrap();
        assert_eq!(read_rows(&p), expect, "pcapng link type {link}");
    }
}

#[test]
fn timestamps_are_microseconds() {
    let frames = samples();
    let p = tmp("ts.pcap");
    std::fs::write(
        &p,
        pcap(
            1,
            &[
                (&frames[0], frames[0].len() as u32),
                (&frames[1], frames[1].len() as u32),
            ],
        ),
    )
    .unwrap();
    let got: Vec<u64> = capture::read(p.to_str().unwrap())
        .unwrap()
        .iter()
        .map(|f| f.ts_us)
        .collect();
    assert_eq!(got, vec![1_500_000, 1_500_002]);
    let p = tmp("ts.pcapng");
    std::fs::write(&p, pcapng(1, &[&frames[0], &frames[1]])).unwrap();
    let got: Vec<u64> = capture::read(p.to_str().unwrap())
        .unwrap()
        .iter()
        .map(|f| f.ts_us)
        .collect();
    assert_eq!(got, vec![2_000_000, 2_000_250]);
}

#[test]
fn unsupported_link_type_is_a_clear_error_naming_it() {
    let frames = samples();
    let p = tmp("wifi.pcap");
    std::fs::write(&p, pcap(105, &[(&frames[0], frames[0].len() as u32)])).unwrap();
    let e = capture::read(p.to_str().unwrap()).unwrap_err().to_string();
    assert!(e.contains("105") && e.contains("IEEE802_11"), "{e}");
    // pcapng names the link type per interface: a warning naming it, and its
    // frames counted as malformed (nothing read is thrown away).
    let p = tmp("wifi.pcapng");
    std::fs::write(&p, pcapng(105, &[&frames[0]])).unwrap();
    let mut r = capture::open(p.to_str().unwrap()).unwrap();
    let f = r.next_frame().unwrap().unwrap();
    assert!(f.bad_link.unwrap().contains("105"));
    let w = r.take_warnings().join("\n");
    assert!(w.contains("105") && w.contains("IEEE802_11"), "{w}");
    let p = tmp("garbage.pcap");
    std::fs::write(&p, b"this is not a capture file at all, not even close").unwrap();
    assert!(capture::read(p.to_str().unwrap()).is_err());
}

#[test]
fn truncated_and_malformed_frames_are_counted_not_fatal() {
    let frames = samples();
    let cut = &frames[0][..60];
    let junk = [0u8; 10];
    let p = tmp("cut.pcap");
    std::fs::write(
        &p,
        pcap(
            1,
            &[
                (cut, frames[0].len() as u32),
                (&junk, 10),
                (&frames[1], frames[1].len() as u32),
            ],
        ),
    )
    .unwrap();
    let read = capture::read(p.to_str().unwrap()).unwrap();
    assert!(read[0].truncated && !read[2].truncated);
    let inputs = app::capture_inputs(p.to_str().unwrap()).unwrap();
    let rows: Vec<_> = app::all_verdicts(&inputs)
        .into_iter()
        .filter(|r| r.frame == 1)
        .map(|r| (r.depth, r.layer.name(), r.status.name()))
        .collect();
    assert_eq!(rows, vec![(0, "ipv4", "good"), (0, "tcp", "unverified")]);
    let r = app::run(
        &inputs,
        nic::Profile::L4,
        Policy::Compute,
        &Options::default(),
        false,
    );
    // The frame cut by the snapshot length counts as truncated, the junk as malformed.
    assert_eq!(
        (
            r.stats.packets_in,
            r.stats.packets_out,
            r.stats.malformed,
            r.stats.truncated
        ),
        (3, 3, 1, 1)
    );
}

#[test]
fn gro_and_verdict_csv_files_end_to_end() {
    let m = mix::build();
    let recs: Vec<(&[u8], u32)> = m
        .iter()
        .map(|p| (p.bytes.as_slice(), p.bytes.len() as u32))
        .collect();
    let cap = tmp("mix.pcap");
    std::fs::write(&cap, pcap(1, &recs)).unwrap();
    let gro = tmp("gro.csv");
    let ver = tmp("verdicts.csv");
    let o = Options {
        file: Some(cap.to_str().unwrap().into()),
        gro: Some(Sink::File(gro.to_str().unwrap().into())),
        verdicts: Some(Sink::File(ver.to_str().unwrap().into())),
        ..Options::default()
    };
    app::main_with(&o).unwrap();
    let g = std::fs::read_to_string(&gro).unwrap();
    let mut lines = g.lines();
    assert_eq!(
        lines.next(),
        Some("out,frames,segments,payload_bytes,reason")
    );
    let mut seen = vec![false; m.len()];
    let mut outs = 0;
    for (i, l) in lines.enumerate() {
        let cols: Vec<&str> = l.split(',').collect();
        assert_eq!(cols.len(), 5, "{l}");
        assert_eq!(cols[0], (i + 1).to_string());
        let frames: Vec<usize> = cols[1].split(';').map(|x| x.parse().unwrap()).collect();
        assert_eq!(frames.len().to_string(), cols[2]);
        for f in frames {
            assert!(!seen[f - 1], "frame {f} twice");
            seen[f - 1] = true;
        }
        assert!(!cols[4].is_empty());
        outs += 1;
    }
    assert!(seen.iter().all(|&s| s));
    assert!(outs < m.len(), "something merged");
    let v = std::fs::read_to_string(&ver).unwrap();
    assert_eq!(v.lines().next(), Some("frame,depth,layer,status"));
    assert!(v.lines().skip(1).all(|l| {
        let c: Vec<&str> = l.split(',').collect();
        c.len() == 4
            && ["ipv4", "tcp", "udp", "sctp", "icmp", "icmpv6", "gre"].contains(&c[2])
            && ["good", "bad", "zero", "unverified"].contains(&c[3])
    }));
    assert_eq!(v.lines().filter(|l| l.ends_with(",bad")).count(), 5);
    // --gro with several runs is refused.
    let o = Options {
        gro: Some(Sink::File(gro.to_str().unwrap().into())),
        ..Options::default()
    };
    assert!(app::main_with(&o).unwrap_err().contains("--gro"));
}

#[test]
fn every_tunnel_class_of_a_capture_is_in_the_tunnel_view() {
    let frames = samples();
    let recs: Vec<(&[u8], u32)> = frames
        .iter()
        .map(|f| (f.as_slice(), f.len() as u32))
        .collect();
    let p = tmp("tunnels.pcap");
    std::fs::write(&p, pcap(1, &recs)).unwrap();
    let inputs = app::capture_inputs(p.to_str().unwrap()).unwrap();
    let r = app::run(
        &inputs,
        nic::Profile::L4,
        Policy::Compute,
        &Options::default(),
        false,
    );
    assert!(r.stats.classes.contains_key("vxlan"));
    let table = netoffload_replay::report::table(&[r.stats], "t");
    let view = table
        .split("Tunnel traffic per class")
        .nth(1)
        .expect("a tunnel view");
    assert!(view.lines().nth(1).unwrap().contains("vxlan"), "{table}");
}
