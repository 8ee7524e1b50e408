//! `bench serve`: a self-hosted benchmarks platform (the API `bench run` reports to) on one
//! SQLite file.

use clap::Args;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// The flags of `bench serve`.
#[derive(Debug, Args)]
pub(super) struct ServeArgs {
    /// The database file (created if missing).
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
    /// The port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Create an API key, print it, then serve.
    #[arg(long)]
    create_key: bool,
}

impl ServeArgs {
    /// Serves until the process is stopped; returns the exit code.
    pub(super) async fn execute(self) -> ExitCode {
        match bench_platform::serve::serve(&self.db, self.host, self.port, self.create_key).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("bench serve: {error:#}");
                ExitCode::FAILURE
            }
        }
    }
}
