//! `replay`: replays the built-in traffic mix, or a pcap/pcapng capture (a
//! file or `-` for standard input), through simulated NICs, Linux's receive
//! checksum states and GRO. `replay --help` lists the options.

use netoffload_replay::{app, cli};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match cli::parse(&args) {
        Ok(o) => o,
        Err(cli::CliError::Help(text)) => {
            print!("{text}");
            return;
        }
        Err(cli::CliError::Usage(msg)) => {
            eprintln!("replay: {msg} (see replay --help)");
            std::process::exit(2);
        }
    };
    if let Err(msg) = app::main_with(&opts) {
        eprintln!("replay: {msg}");
        std::process::exit(1);
    }
}
