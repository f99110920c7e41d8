//! The replay tool (`replay`), the README's main job: runs traffic through the
//! checksum and GRO pipeline under simulated NICs and explains every decision.
//! A library so its tests can reach the modules; the binary is `src/main.rs`.

pub mod app;
pub mod capture;
pub mod cli;
pub mod csumcheck;
pub mod explain;
pub mod gro_run;
pub mod mix;
pub mod nic;
pub mod pipeline;
pub mod report;
pub mod rss;
pub mod shared_source;
pub mod verdicts;
pub mod walk;
pub mod workers;
