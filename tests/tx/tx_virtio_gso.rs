//! `GsoInfo::from_virtio` / `GsoInfo::to_virtio`: the virtio GSO description
//! and the transmit side's request, both ways.
use netoffload::gro::VirtioGsoError;
use netoffload::tx::GsoInfo;
use netoffload::wire::{GsoKind, GsoParams, GsoType};

fn params(kind: GsoKind, ecn: bool) -> GsoParams {
    GsoParams {
        kind,
        ecn,
        gso_size: 1400,
        hdr_len: 52,
        segs: 3,
    }
}

#[test]
fn virtio_kinds_become_requests_and_back() {
    let cases = [
        (GsoKind::TcpV4, false, GsoType::TCPV4),
        (GsoKind::TcpV4, true, GsoType::TCPV4 | GsoType::TCP_ECN),
        (GsoKind::TcpV6, false, GsoType::TCPV6),
        (GsoKind::TcpV6, true, GsoType::TCPV6 | GsoType::TCP_ECN),
        (GsoKind::UdpL4, false, GsoType::UDP_L4),
    ];
    for (kind, ecn, want) in cases {
        let info = GsoInfo::from_virtio(&params(kind, ecn)).unwrap();
        assert_eq!(info, GsoInfo::new(1400, want), "{kind:?} ecn={ecn}");
        let back = info.to_virtio(52, 3).unwrap();
        assert_eq!(
            back,
            GsoParams {
                kind,
                ecn,
                gso_size: 1400,
                hdr_len: 52,
                segs: 3
            }
        );
    }
}

#[test]
fn ufo_has_no_request() {
    assert_eq!(GsoInfo::from_virtio(&params(GsoKind::Ufo, false)), None);
}

#[test]
fn requests_virtio_cannot_say_are_refused() {
    let r = |t| GsoInfo::new(1400, t).to_virtio(52, 3);
    assert_eq!(
        r(GsoType::TCPV4 | GsoType::TCP_ACCECN),
        Err(VirtioGsoError::AccEcnCwr)
    );
    assert_eq!(
        r(GsoType::TCPV4 | GsoType::TCP_FIXEDID),
        Err(VirtioGsoError::FixedId)
    );
    let t = GsoType::TCPV4 | GsoType::GRE;
    assert_eq!(r(t), Err(VirtioGsoError::Tunnel(t)));
    assert_eq!(
        r(GsoType::empty()),
        Err(VirtioGsoError::NoKind(GsoType::empty()))
    );
}
