//! The replay tool, the README's main job: runs traffic through the checksum
//! and GRO pipeline under simulated NICs and explains every decision.
//!
//! `cargo run --release --example replay` replays a built-in deterministic
//! traffic mix; `cargo run --release --example replay -- FILE [options]`
//! replays a pcap/pcapng capture. `--help` lists the options.

#[path = "replay/app.rs"]
mod app;
#[path = "replay/capture.rs"]
mod capture;
#[path = "replay/cli.rs"]
mod cli;
#[path = "replay/csumcheck.rs"]
mod csumcheck;
#[path = "replay/explain.rs"]
mod explain;
#[path = "replay/gro_run.rs"]
mod gro_run;
#[path = "replay/mix.rs"]
mod mix;
#[path = "replay/nic.rs"]
mod nic;
#[path = "replay/report.rs"]
mod report;
#[path = "replay/verdicts.rs"]
mod verdicts;
#[path = "replay/walk.rs"]
mod walk;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match cli::parse(&args) {
        Ok(o) => o,
        Err(cli::CliError::Help) => {
            println!("{}", cli::USAGE);
            return;
        }
        Err(cli::CliError::Usage(msg)) => {
            eprintln!("replay: {msg}\n\n{}", cli::USAGE);
            std::process::exit(2);
        }
    };
    if let Err(msg) = app::main_with(&opts) {
        eprintln!("replay: {msg}");
        std::process::exit(1);
    }
}
