//! Simulated NIC receive-checksum profiles: what a device reports for a frame,
//! computed from the frame's bytes (Linux drivers' `ip_summed` / `csum_level`).

use netoffload::csum::{self, Wsum};
use netoffload::state::{self, CsumLevel, CsumState, DeviceReport};
use netoffload::wire::Transport;

use crate::csumcheck::{self, CsumLayer, Status};
use crate::walk::Walk;

/// How the simulated device reports receive checksums (`--nic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// No receive checksum offload: `CHECKSUM_NONE` always.
    None,
    /// Like ixgbe / 82599: verifies the outermost TCP/UDP checksum (a zero UDP
    /// checksum verifies trivially) and reports `Unnecessary` level 0, or bad.
    L4,
    /// Tunnel-aware: also verifies the checksum inside the first tunnel (level 1).
    L4Tunnel,
    /// Full-packet sum like mlx5: `Complete` with the sum from the L3 header to the end.
    Complete,
}

impl Profile {
    /// Every profile, in table order.
    pub const ALL: [Profile; 4] = [
        Profile::None,
        Profile::L4,
        Profile::L4Tunnel,
        Profile::Complete,
    ];

    /// The `--nic` name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::None => "none",
            Profile::L4 => "l4",
            Profile::L4Tunnel => "l4-tunnel",
            Profile::Complete => "complete",
        }
    }

    /// Parses a `--nic` value.
    pub fn parse(s: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Parses a `--nic` value for clap, naming the accepted ones when it fails.
    pub fn parse_arg(s: &str) -> Result<Profile, String> {
        Profile::parse(s).ok_or_else(|| {
            format!("unknown profile '{s}' (expected none, l4, l4-tunnel or complete)")
        })
    }
}

/// What the device said about one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// Nothing (`CHECKSUM_NONE`): no offload, or a frame the device does not parse.
    Nothing,
    /// `CHECKSUM_UNNECESSARY` with this many checksums verified (level + 1).
    Unnecessary {
        /// `csum_level`.
        level: u8,
    },
    /// The device found the checksum at this depth bad (the driver counts a
    /// checksum error and leaves `CHECKSUM_NONE`, as ixgbe does).
    Bad {
        /// Depth of the bad checksum.
        depth: usize,
    },
    /// `CHECKSUM_COMPLETE` with the sum of the bytes from the outer L3 header to its end.
    Complete {
        /// The sum.
        csum: Wsum,
    },
}

impl Report {
    /// The report in the `state` room's terms.
    pub fn device(self) -> DeviceReport {
        match self {
            Report::Nothing => DeviceReport::None,
            Report::Bad { .. } => DeviceReport::L4Bad,
            Report::Unnecessary { level } => DeviceReport::L4Ok {
                level: CsumLevel::new(level).unwrap_or(CsumLevel::MAX),
            },
            Report::Complete { csum } => DeviceReport::Complete { csum },
        }
    }

    /// The checksum state the driver hands to the stack (`state::receive`).
    pub fn state(self) -> CsumState {
        state::receive(self.device()).meta.state()
    }
}

/// Computes the device report of `profile` for a walked frame.
pub fn report(profile: Profile, bytes: &[u8], walk: &Walk) -> Report {
    let Some(outer) = walk.levels.first() else {
        return Report::Nothing;
    };
    match profile {
        Profile::None => Report::Nothing,
        Profile::Complete => {
            let l = &outer.layers;
            Report::Complete {
                csum: csum::partial(&bytes[l.l3..l.end], Wsum::ZERO),
            }
        }
        Profile::L4 | Profile::L4Tunnel => {
            let max_depth = if profile == Profile::L4 { 0 } else { 1 };
            // The checksums the device can see, outermost first, in the csum_level
            // sense (TCP, UDP incl. zero, GRE with its C bit).
            let mut verified = 0u8;
            for (depth, lv) in walk.levels.iter().enumerate().take(max_depth + 1) {
                let l = &lv.layers;
                if l.fragment.is_fragment {
                    break;
                }
                let layer = match l.transport {
                    Transport::Tcp => CsumLayer::Tcp,
                    Transport::Udp => CsumLayer::Udp,
                    Transport::Gre if profile == Profile::L4Tunnel => {
                        if csumcheck::gre_has_csum(bytes, l.l4) {
                            CsumLayer::Gre
                        } else {
                            continue; // no checksum at this level; look inside
                        }
                    }
                    Transport::Ipip | Transport::Ipv6InIp if profile == Profile::L4Tunnel => {
                        continue;
                    }
                    _ => break,
                };
                // An IPv4 header that does not verify stops the device's parse.
                if l.net == netoffload::wire::Net::Ipv4
                    && csumcheck::ipv4_status(bytes, l) == Status::Bad
                {
                    break;
                }
                match csumcheck::l4_status(bytes, l, layer).0 {
                    Status::Good | Status::Zero => verified += 1,
                    Status::Bad if verified == 0 => return Report::Bad { depth },
                    _ => break,
                }
                if verified as usize > max_depth {
                    break;
                }
            }
            match verified {
                0 => Report::Nothing,
                n => Report::Unnecessary { level: n - 1 },
            }
        }
    }
}
