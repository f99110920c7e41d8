//! Command line: parsed by hand; option names are fixed by issue 9 (other tools depend on them).

use crate::nic::Profile;

/// The tunnel GRO checksum policy (`--policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// 2015 kernels: no tunnel GRO when the inner checksum would need computing.
    Strict,
    /// Current kernels: zero outer UDP checksums allowed, inner checked in software.
    Compute,
}

impl Policy {
    /// Both policies, in table order.
    pub const ALL: [Policy; 2] = [Policy::Strict, Policy::Compute];

    /// The `--policy` name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Strict => "strict",
            Policy::Compute => "compute",
        }
    }
}

/// Where `--verdicts` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sink {
    /// Standard output (`-`).
    Stdout,
    /// A file.
    File(String),
}

/// Parsed options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The capture to replay; `None` runs the built-in mix.
    pub file: Option<String>,
    /// `--nic`; `None` means the default (`l4` for a capture, every profile for the mix).
    pub nic: Option<Profile>,
    /// `--policy`; `None` means the default (`compute` for a capture, both for the mix).
    pub policy: Option<Policy>,
    /// `--budget N`: frames per simulated poll.
    pub budget: usize,
    /// `--gap-us T`: flush everything before a frame more than T microseconds after the previous one.
    pub gap_us: u64,
    /// UDP GRO for plain (non-tunnel) UDP flows.
    pub udp_gro: bool,
    /// `--verdicts PATH|-`.
    pub verdicts: Option<Sink>,
    /// `--gro PATH`.
    pub gro: Option<Sink>,
    /// `--explain N`.
    pub explain: usize,
    /// `--json`.
    pub json: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            file: None,
            nic: None,
            policy: None,
            budget: 64,
            gap_us: 1000,
            udp_gro: true,
            verdicts: None,
            gro: None,
            explain: 0,
            json: false,
        }
    }
}

/// Usage text.
pub const USAGE: &str = "\
usage: replay [FILE] [options]

Without FILE, replays a built-in deterministic traffic mix under every NIC
profile and both tunnel policies and prints one table. With FILE (pcap or
pcapng), replays the capture once.

options:
  --nic none|l4|l4-tunnel|complete  how the simulated NIC reports receive checksums (default l4)
  --policy strict|compute           tunnel GRO checksum policy (default compute)
  --budget N                        frames per simulated poll (default 64)
  --gap-us T                        flush all flows before a frame more than T us after the previous (default 1000)
  --no-udp-gro                      turn UDP GRO off for plain UDP flows
  --verdicts PATH|-                 CSV frame,depth,layer,status for every checksum of every frame
  --gro PATH|-                      CSV out,frames,segments,payload_bytes,reason, one row per packet handed up
  --explain N                       explain the first N frames, one line each
  --json                            print the summary as one JSON object
  -h, --help                        this text";

/// Why the command line was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CliError {
    /// `-h` / `--help`.
    Help,
    /// A usage error, with its message.
    Usage(String),
}

fn value<'a>(opt: &str, it: &mut impl Iterator<Item = &'a String>) -> Result<&'a String, CliError> {
    it.next()
        .ok_or_else(|| CliError::Usage(format!("{opt} needs a value")))
}

fn number<T: std::str::FromStr>(opt: &str, v: &str) -> Result<T, CliError> {
    v.parse()
        .map_err(|_| CliError::Usage(format!("{opt}: '{v}' is not a non-negative integer")))
}

/// Parses the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Options, CliError> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        // Accept --opt=value as well as --opt value.
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let take = |it: &mut std::slice::Iter<'_, String>| -> Result<String, CliError> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => value(name, it).cloned(),
            }
        };
        match name {
            "-h" | "--help" => return Err(CliError::Help),
            "--nic" => {
                let v = take(&mut it)?;
                o.nic = Some(Profile::parse(&v).ok_or_else(|| {
                    CliError::Usage(format!(
                        "--nic: unknown profile '{v}' (expected none, l4, l4-tunnel or complete)"
                    ))
                })?);
            }
            "--policy" => {
                let v = take(&mut it)?;
                o.policy = Some(match v.as_str() {
                    "strict" => Policy::Strict,
                    "compute" => Policy::Compute,
                    _ => {
                        return Err(CliError::Usage(format!(
                            "--policy: unknown policy '{v}' (expected strict or compute)"
                        )));
                    }
                });
            }
            "--budget" => {
                let v = take(&mut it)?;
                o.budget = number(name, &v)?;
                if o.budget == 0 {
                    return Err(CliError::Usage("--budget must be at least 1".into()));
                }
            }
            "--gap-us" => {
                let v = take(&mut it)?;
                o.gap_us = number(name, &v)?;
            }
            "--no-udp-gro" if inline.is_none() => o.udp_gro = false,
            "--verdicts" => o.verdicts = Some(sink(take(&mut it)?)),
            "--gro" => o.gro = Some(sink(take(&mut it)?)),
            "--explain" => {
                let v = take(&mut it)?;
                o.explain = number(name, &v)?;
            }
            "--json" if inline.is_none() => o.json = true,
            _ if name.starts_with('-') && name != "-" => {
                return Err(CliError::Usage(format!("unknown option '{a}'")));
            }
            _ => {
                if let Some(prev) = &o.file {
                    return Err(CliError::Usage(format!(
                        "only one capture file may be given ('{prev}' and '{a}')"
                    )));
                }
                o.file = Some(a.clone());
            }
        }
    }
    Ok(o)
}

fn sink(v: String) -> Sink {
    if v == "-" {
        Sink::Stdout
    } else {
        Sink::File(v)
    }
}
