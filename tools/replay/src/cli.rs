//! Command line, parsed by clap; option names are fixed by issue 9 (other
//! tools depend on them). Repeating an option is an error (clap's default).

use clap::{Parser, ValueEnum};

use crate::nic::Profile;
use crate::rss::RssMode;

/// The tunnel GRO checksum policy (`--policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum)]
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

/// Where `--verdicts` / `--gro` write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sink {
    /// Standard output (`-`).
    Stdout,
    /// A file.
    File(String),
}

fn sink(v: &str) -> Result<Sink, String> {
    Ok(if v == "-" {
        Sink::Stdout
    } else {
        Sink::File(v.to_string())
    })
}

fn budget(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{v}' is not a positive integer")),
    }
}

fn threads(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        _ => Err(format!("'{v}' is not a number of threads from 1 to 256")),
    }
}

/// Parsed options.
#[derive(Clone, Debug, PartialEq, Eq, Parser)]
#[command(
    name = "replay",
    version,
    about = "Replays a capture (pcap or pcapng) or a built-in traffic mix through simulated \
             NICs, Linux's receive checksum states and GRO, and explains every decision.",
    long_about = None,
    after_help = "Without FILE, replays a built-in deterministic traffic mix under every NIC \
profile and both tunnel policies and prints one table. With FILE (pcap or pcapng; `-` reads \
standard input), replays the capture once, streaming it in bounded memory.

Standard output carries at most one machine-readable stream (--json, --verdicts -, --gro -); \
the table and --explain then go to standard error.

Exit status: 0 success (also when a capture is cut short: everything before the cut is \
reported and a warning names where it was cut), 1 the input cannot be read, 2 usage error."
)]
pub struct Options {
    /// The capture to replay (`-` for standard input); without it, the built-in mix.
    #[arg(value_name = "FILE")]
    pub file: Option<String>,
    /// How the simulated NIC reports receive checksums [default: l4 for a capture, every profile for the mix]
    #[arg(long, value_parser = Profile::parse_arg, value_name = "none|l4|l4-tunnel|complete")]
    pub nic: Option<Profile>,
    /// Tunnel GRO checksum policy [default: compute for a capture, both for the mix]
    #[arg(long, value_enum)]
    pub policy: Option<Policy>,
    /// Frames per simulated poll; every flow is flushed at the end of a poll
    #[arg(long, default_value_t = 64, value_parser = budget, value_name = "N")]
    pub budget: usize,
    /// Flush every flow before a frame more than T microseconds after the previous one
    #[arg(long = "gap-us", default_value_t = 1000, value_name = "T")]
    pub gap_us: u64,
    /// UDP GRO for plain UDP flows (on unless --no-udp-gro)
    #[arg(long = "no-udp-gro", action = clap::ArgAction::SetFalse)]
    pub udp_gro: bool,
    /// CSV frame,depth,layer,status for every checksum of every frame
    #[arg(long, value_parser = sink, value_name = "PATH|-")]
    pub verdicts: Option<Sink>,
    /// CSV out,frames,segments,payload_bytes,reason, one row per packet handed up
    #[arg(long, value_parser = sink, value_name = "PATH|-")]
    pub gro: Option<Sink>,
    /// Explain the first N frames, one line each
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub explain: usize,
    /// Print the summary as one JSON object
    #[arg(long)]
    pub json: bool,
    /// Receive queues, each with its own GRO engine, fed by the Toeplitz RSS hash
    #[arg(long, default_value_t = 1, value_parser = threads, value_name = "N")]
    pub threads: usize,
    /// Which headers of a tunnelled frame RSS hashes
    #[arg(long, value_enum, default_value_t = RssMode::Outer)]
    pub rss: RssMode,
    /// Show the progress line even when standard error is not a terminal
    #[arg(long)]
    pub progress: bool,
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
            threads: 1,
            rss: RssMode::Outer,
            progress: false,
        }
    }
}

/// Why the command line was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CliError {
    /// `-h` / `--help` / `--version`: the text to print on stdout.
    Help(String),
    /// A usage error, with its message (one paragraph, no usage dump).
    Usage(String),
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Help(t) | CliError::Usage(t) => write!(f, "{t}"),
        }
    }
}

impl Options {
    /// Machine-readable streams that would go to standard output.
    pub fn stdout_streams(&self) -> usize {
        usize::from(self.json)
            + usize::from(self.verdicts == Some(Sink::Stdout))
            + usize::from(self.gro == Some(Sink::Stdout))
    }

    /// Refuses combinations that would mix two machine-readable streams on stdout.
    pub fn check(&self) -> Result<(), CliError> {
        if self.stdout_streams() > 1 {
            let mut names = Vec::new();
            if self.json {
                names.push("--json");
            }
            if self.verdicts == Some(Sink::Stdout) {
                names.push("--verdicts -");
            }
            if self.gro == Some(Sink::Stdout) {
                names.push("--gro -");
            }
            return Err(CliError::Usage(format!(
                "{} would share standard output: give all but one of them a file",
                names.join(" and ")
            )));
        }
        if self.file.is_some() && self.file == self.verdicts_path() {
            return Err(CliError::Usage(
                "--verdicts would overwrite the capture being read".into(),
            ));
        }
        Ok(())
    }

    fn verdicts_path(&self) -> Option<String> {
        match &self.verdicts {
            Some(Sink::File(p)) => Some(p.clone()),
            _ => None,
        }
    }
}

/// Parses the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Options, CliError> {
    let argv = std::iter::once("replay".to_string()).chain(args.iter().cloned());
    match Options::try_parse_from(argv) {
        Ok(o) => {
            o.check()?;
            Ok(o)
        }
        Err(e) => match e.kind() {
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                Err(CliError::Help(e.to_string()))
            }
            _ => Err(CliError::Usage(first_line(&e.to_string()))),
        },
    }
}

/// clap's message without its "Usage:" and "For more information" lines.
fn first_line(msg: &str) -> String {
    let body: Vec<&str> = msg
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
        .collect();
    body.join(" ")
        .trim_start_matches("error: ")
        .replace("  ", " ")
        .trim()
        .to_string()
}
