//! `bench serve`: a self-hosted benchmarks platform (the API `bench run` reports to) on one
//! SQLite file.

use bench_platform::serve::ServeOptions;
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
    /// The address to listen on (anything but loopback wants a TLS-terminating proxy in
    /// front).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// The URL clients reach the server at (e.g. the reverse proxy's https:// address),
    /// used in the artifact links it hands out; defaults to the listen address.
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// Create an API key, print it, then serve.
    #[arg(long)]
    create_key: bool,
    /// The organization of the key created (default `local`); a key sees only its
    /// organization's benchmarks.
    #[arg(long, value_name = "SLUG", requires = "create_key")]
    org: Option<String>,
    /// The key created may only read.
    #[arg(long, requires = "create_key")]
    read_only: bool,
    /// Open the dashboard's pages (benchmarks, runs) to anyone who can reach the server,
    /// without logging in; they only read.
    #[arg(long)]
    public_read: bool,
}

impl ServeArgs {
    /// Serves until the process is stopped; returns the exit code.
    pub(super) async fn execute(self) -> ExitCode {
        let options = ServeOptions {
            db: self.db,
            host: self.host,
            port: self.port,
            public_url: self.public_url,
            create_key: self.create_key,
            org: self.org,
            read_only: self.read_only,
            public_read: self.public_read,
        };
        match bench_platform::serve::serve(options).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("bench serve: {error:#}");
                ExitCode::FAILURE
            }
        }
    }
}
