//! The `bench` binary.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    bench::cli::Cli::parse().execute()
}
