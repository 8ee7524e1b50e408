//! The `bench` binary: the command line over `bench-runtime` (local runs) and
//! `bench-platform` (reporting and `bench serve`).

mod cli;
mod color;
mod flags;
mod project;
mod scaffold;
mod settings;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A contained build tool: bench restricts itself, then becomes the tool.
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args
        .first()
        .is_some_and(|first| first == project::contain::CONTAINED)
    {
        return project::contain::exec_contained(&args[1..]);
    }
    // Many participants, sandboxes and connections need many descriptors; the soft limit is
    // raised to the hard one where allowed (best effort: bench also runs within a low one).
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    cli::Cli::parse().execute()
}
