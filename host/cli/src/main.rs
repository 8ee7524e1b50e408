//! The `bench` binary: the command line over `bench-runtime` (local runs) and
//! `bench-platform` (reporting and `bench serve`).

mod cli;
mod flags;
mod project;
mod scaffold;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    cli::Cli::parse().execute()
}
