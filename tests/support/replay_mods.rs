// The replay example's modules at the root of a test crate, as the example
// has them (they refer to each other as `crate::...`). Included with
// `include!` by the replay tests (paths are relative to this file); not a
// module of `support`.
#[path = "../../examples/replay/app.rs"]
mod app;
#[path = "../../examples/replay/capture.rs"]
mod capture;
#[path = "../../examples/replay/cli.rs"]
mod cli;
#[path = "../../examples/replay/csumcheck.rs"]
mod csumcheck;
#[path = "../../examples/replay/explain.rs"]
mod explain;
#[path = "../../examples/replay/gro_run.rs"]
mod gro_run;
#[path = "../../examples/replay/mix.rs"]
mod mix;
#[path = "../../examples/replay/nic.rs"]
mod nic;
#[path = "../../examples/replay/report.rs"]
mod report;
#[path = "../../examples/replay/verdicts.rs"]
mod verdicts;
#[path = "../../examples/replay/walk.rs"]
mod walk;
