//! The `bench` binary: the command line over `bench-runtime` (local runs) and
//! `bench-platform` (reporting and `bench serve`).

mod cli;
mod color;
mod flags;
mod project;
mod scaffold;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Many participants, sandboxes and connections need many descriptors; the soft limit is
    // raised to the hard one where allowed (best effort: bench also runs within a low one).
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    cli::Cli::parse().execute()
}
