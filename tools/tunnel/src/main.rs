//! A userspace tunnel between a Linux TUN device (virtio-net GSO/GRO) and a
//! UDP underlay, built on netoffload: the maintained example of issue 16.
//!
//! ```text
//! netoffload-tunnel --tun NAME --local ADDR:PORT --peer ADDR:PORT
//!                   [--plain] [--no-udp-gso] [--corrupt-every N]
//! ```
//!
//! Offload mode (default): the TUN has IFF_VNET_HDR and CSUM|TSO4|TSO6 (+USO);
//! each read is a virtio header and maybe a 64 KiB super-packet, turned into
//! checksum metadata (`VirtioNetHdr::to_meta`, `VirtioPolicy::TUN_READ`),
//! decided (`tx::decide`), cut at a fixed stride into one buffer
//! (`tx::segment_into`) and sent with one UDP GSO `sendmsg` (or `sendmmsg`).
//! Received datagrams go through GRO with software verification and leave as
//! one TUN write per super-packet with the header from
//! `SuperPacket::virtio_hdr`. Plain mode: one packet per read and per write.
//! Counters go to stderr every second.

mod counters;
mod rx;
mod sys;
mod tx;

use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use netoffload::state::paravirt::virtio::HdrLayout;
use netoffload::tx::StrideLimits;

use counters::Counters;

struct Args {
    tun: String,
    local: SocketAddr,
    peer: SocketAddr,
    plain: bool,
    udp_gso: bool,
    corrupt_every: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut tun = None;
    let mut local = None;
    let mut peer = None;
    let mut plain = false;
    let mut udp_gso = true;
    let mut corrupt_every = 0;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--tun" => tun = Some(val()?),
            "--local" => local = Some(val()?.parse().map_err(|e| format!("--local: {e}"))?),
            "--peer" => peer = Some(val()?.parse().map_err(|e| format!("--peer: {e}"))?),
            "--plain" => plain = true,
            "--no-udp-gso" => udp_gso = false,
            "--corrupt-every" => {
                corrupt_every = val()?
                    .parse()
                    .map_err(|e| format!("--corrupt-every: {e}"))?
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Args {
        tun: tun.ok_or("--tun NAME is required")?,
        local: local.ok_or("--local ADDR:PORT is required")?,
        peer: peer.ok_or("--peer ADDR:PORT is required")?,
        plain,
        udp_gso,
        corrupt_every,
    })
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("netoffload-tunnel: {e}");
            std::process::exit(2);
        }
    };
    let vnet = !args.plain;
    let tun = sys::open_tun(&args.tun, vnet, HdrLayout::Legacy.len()).unwrap_or_else(|e| {
        eprintln!("netoffload-tunnel: TUN {}: {e}", args.tun);
        std::process::exit(1)
    });
    let sock = sys::udp_socket(args.local, args.peer).unwrap_or_else(|e| {
        eprintln!("netoffload-tunnel: UDP {}: {e}", args.local);
        std::process::exit(1)
    });
    eprintln!(
        "netoffload-tunnel: {} mode={} uso={} udp_gso={} corrupt_every={}",
        args.tun,
        if vnet { "offload" } else { "plain" },
        tun.uso,
        args.udp_gso,
        args.corrupt_every
    );
    let counters = Arc::new(Counters::default());
    let limits = if args.peer.is_ipv4() {
        StrideLimits::UDP_GSO_V4
    } else {
        StrideLimits::UDP_GSO_V6
    };
    let txp = tx::TxPath {
        tun: tun.fd.as_raw_fd(),
        sock: sock.as_raw_fd(),
        vnet,
        udp_gso: args.udp_gso,
        limits,
        corrupt_every: args.corrupt_every,
        counters: counters.clone(),
    };
    let rxp = rx::RxPath {
        tun: tun.fd.as_raw_fd(),
        sock: sock.as_raw_fd(),
        vnet,
        uso: tun.uso,
        counters: counters.clone(),
    };
    // Named so that /proc/PID/task/*/comm tells the paths apart (ci/tunnel bench).
    let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
        std::thread::Builder::new()
            .name(name.into())
            .spawn(f)
            .unwrap_or_else(|e| {
                eprintln!("netoffload-tunnel: thread {name}: {e}");
                std::process::exit(1)
            })
    };
    spawn("tun-to-udp", Box::new(move || txp.run()));
    spawn("udp-to-tun", Box::new(move || rxp.run()));
    let mut last = String::new();
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let line = counters.line();
        if line != last {
            eprintln!("{line}");
            last = line;
        }
    }
    // The fds live as long as main, which never returns: the threads may use them.
}
