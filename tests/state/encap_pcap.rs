//! Decap against real captures in ../shared/corpus/pcap: every tunnelled
//! packet either decapsulates to a state the independent oracle calls sound,
//! or is refused with the reason the oracle agrees with (a bad outer checksum
//! is refused exactly when it is bad). Ignored unless asked for
//! (`cargo test --test state encap_pcap -- --ignored`): they need the corpus.

use crate::support::corpus;
use crate::support::encap as encap_support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use corpus::pcap_dir;

use encap_support::*;
use netoffload::csum::{self, Wsum};
use netoffload::encap::{
    DecapError, EncapConfig, OuterCsum, TunnelKind, ZeroCsumPolicy, decap, decap_nested, detect,
};
use netoffload::state::{CsumMeta, CsumState};
use netoffload::wire::{self, LinkType};

/// A capture of the corpus; missing is a failure (these tests run only when asked).
fn capture(name: &str) -> PathBuf {
    let path = pcap_dir().join(name);
    assert!(path.is_file(), "corpus file missing: {}", path.display());
    path
}

fn cfg() -> EncapConfig {
    EncapConfig {
        vxlan_ports: [4789, 8472, 0, 0],
        max_depth: 4,
        // Captures are what they are: accept zero IPv6 UDP checksums on tunnel ports.
        ipv6_zero_csum_ports: [4789, 6081, 8472, 0],
        ipv6_zero_csum_policy: ZeroCsumPolicy::Both,
        geneve_accept_critical: true,
        ..EncapConfig::DEFAULT
    }
}

#[derive(Default, Debug)]
struct Stats {
    packets: usize,
    tunnels: usize,
    decapsulated: usize,
    bad_outer: usize,
    refused: usize,
    max_steps: usize,
    kinds: BTreeMap<String, usize>,
}

fn frames(path: &std::path::Path) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).unwrap();
    let cap = pcap_parser::PcapCapture::from_file(&data).expect("pcap");
    assert_eq!(cap.header.network, pcap_parser::Linktype::ETHERNET);
    cap.blocks
        .iter()
        .filter(|b| b.caplen == b.origlen)
        .map(|b| b.data.to_vec())
        .collect()
}

fn run_file(name: &str, cfg: &EncapConfig) -> Stats {
    let path = capture(name);
    let mut st = Stats::default();
    for bytes in frames(&path) {
        st.packets += 1;
        let Ok(outer) = wire::parse(&bytes, LinkType::Ethernet) else {
            continue;
        };
        let Some(kind) = detect(&bytes, &outer, cfg) else {
            continue;
        };
        st.tunnels += 1;
        *st.kinds.entry(format!("{kind:?}")).or_default() += 1;
        let outer_ok = chain(&bytes, &outer, true).first().copied();
        // An honest device sum: from the IP header to the end of the frame.
        let device_sum = csum::partial(&bytes[outer.l3..], Wsum::ZERO);
        for meta in [
            CsumMeta::NONE,
            CsumMeta::from_state(CsumState::Complete { csum: device_sum }),
        ] {
            match decap(&bytes, &outer, outer.l3, meta, cfg) {
                Ok(d) => {
                    sound(&bytes, &d.inner, d.inner.l3, &d.meta, true)
                        .unwrap_or_else(|e| panic!("{name}: unsound: {e}"));
                    if matches!(d.tunnel.outer_csum, OuterCsum::Udp(_) | OuterCsum::Gre(_)) {
                        assert_eq!(
                            outer_ok,
                            Some(true),
                            "{name}: accepted a bad outer checksum"
                        );
                    }
                }
                Err(r) => match r.error {
                    DecapError::BadOuterChecksum { .. } => {
                        assert_eq!(
                            outer_ok,
                            Some(false),
                            "{name}: refused a good outer checksum"
                        );
                        st.bad_outer += 1;
                    }
                    other => {
                        eprintln!("{name}: refused: {other}");
                        st.refused += 1;
                    }
                },
            }
        }
        if let Ok(n) = decap_nested(&bytes, &outer, outer.l3, CsumMeta::NONE, cfg) {
            st.decapsulated += 1;
            st.max_steps = st.max_steps.max(n.steps.len());
            if !n.steps.is_empty() {
                sound(&bytes, &n.inner, n.inner.l3, &n.meta, true)
                    .unwrap_or_else(|e| panic!("{name}: nested unsound: {e}"));
            }
        }
    }
    eprintln!("{name}: {st:?}");
    st
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn captures_decap_soundly() {
    let cfg = cfg();
    // (file, tunnel kind that must be seen, least nesting depth reached)
    let expect: &[(&str, TunnelKind, usize)] = &[
        ("tcpdump__vxlan.pcap", TunnelKind::Vxlan, 1),
        (
            "zeek__tunnels__vxlan-encapsulated-http.pcap",
            TunnelKind::Vxlan,
            1,
        ),
        ("tcpdump__geneve.pcap", TunnelKind::Geneve, 1),
        ("tcpdump__various_gre.pcap", TunnelKind::Gre, 0),
        ("zeek__tunnels__gre-sample.pcap", TunnelKind::Gre, 1),
        ("zeek__tunnels__gre-within-gre.pcap", TunnelKind::Gre, 2),
        ("zeek__tunnels__4in4.pcap", TunnelKind::IpInIp, 1),
        ("zeek__tunnels__4in6.pcap", TunnelKind::IpInIp, 1),
        ("zeek__tunnels__6in4.pcap", TunnelKind::IpInIp, 1),
        ("zeek__tunnels__6in6.pcap", TunnelKind::IpInIp, 1),
        ("zeek__tunnels__ping6-in-ipv4.pcap", TunnelKind::IpInIp, 1),
        ("zeek__tunnels__vxlan-triple-v2.pcap", TunnelKind::Vxlan, 3),
        ("tcpdump__gso-ipv4-vxlan-ipv4.pcap", TunnelKind::Vxlan, 0),
        ("tcpdump__gso-ipv6-vxlan-ipv6.pcap", TunnelKind::Vxlan, 0),
        ("tcpdump__gso-ipv4-geneve-ipv6.pcap", TunnelKind::Geneve, 0),
        ("tcpdump__geneve-gcp.pcap", TunnelKind::Geneve, 0),
    ];
    for &(file, kind, depth) in expect {
        let st = run_file(file, &cfg);
        assert!(
            st.kinds.contains_key(&format!("{kind:?}")),
            "{file}: no {kind:?} seen: {st:?}"
        );
        assert!(
            st.max_steps >= depth,
            "{file}: depth {} < {depth}",
            st.max_steps
        );
    }
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn vxlan_triple_is_too_deep_by_default() {
    let path = capture("zeek__tunnels__vxlan-triple-v2.pcap");
    let bytes = &frames(&path)[0];
    let outer = wire::parse(bytes, LinkType::Ethernet).unwrap();
    let r = decap_nested(
        bytes,
        &outer,
        outer.l3,
        CsumMeta::NONE,
        &EncapConfig::DEFAULT,
    )
    .unwrap_err();
    assert_eq!(r.error, DecapError::TooDeep { limit: 2 });
}

#[test]
#[ignore = "needs ../shared/corpus"]
fn captured_bad_inner_tcp_checksums_are_not_called_good() {
    let cfg = cfg();
    for file in [
        "zeek__tunnels__vxlan-inner-tcp-bad-checksum.pcap",
        "zeek__tunnels__geneve-inner-tcp-bad-checksum.pcap",
    ] {
        let path = capture(file);
        for bytes in frames(&path) {
            let outer = wire::parse(&bytes, LinkType::Ethernet).unwrap();
            let n = decap_nested(&bytes, &outer, outer.l3, CsumMeta::NONE, &cfg).unwrap();
            assert!(!n.steps.is_empty(), "{file}");
            // Whatever the state, checking the inner TCP with it must fail.
            let c = chain(&bytes, &n.inner, true);
            assert_eq!(
                c.first(),
                Some(&false),
                "{file}: oracle says inner is good?"
            );
            sound(&bytes, &n.inner, n.inner.l3, &n.meta, true).unwrap();
            let (ok, _) = inner_validate(&bytes, &n.inner, &n.meta);
            assert!(
                !ok,
                "{file}: {:?} says the bad inner TCP is good",
                n.meta.state()
            );
        }
    }
}
