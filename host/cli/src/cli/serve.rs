//! `bench serve`: a self-hosted benchmarks platform (the API `bench run` reports to) on one
//! SQLite file, and its administration without SQL: `bench serve orgs create|list` and
//! `bench serve keys create|list|revoke`.

use super::error_exit;
use bench_platform::commands::table;
use bench_platform::serve::{self, KeyRow, OrgRow, ServeOptions};
use clap::{Args, Subcommand};
use serde_json::{json, Value};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// The flags of `bench serve`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(super) struct ServeArgs {
    #[command(subcommand)]
    admin: Option<Admin>,
    /// The database file (created if missing).
    #[arg(long, value_name = "FILE", required = true)]
    db: Option<PathBuf>,
    /// The port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// The address to listen on (anything but loopback wants a TLS-terminating proxy in
    /// front).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// The URL clients reach the server at (e.g. the reverse proxy's https:// address),
    /// used in the links it hands out and to check where a login comes from; defaults to
    /// the listen address.
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// Another origin (a host name of its own, routed to this server) that artifact
    /// download links point to, so an artifact never opens in the dashboard's origin.
    #[arg(long, value_name = "URL")]
    artifact_origin: Option<String>,
    /// Create an API key, print it, then serve.
    #[arg(long)]
    create_key: bool,
    /// The organization of the key created (default `local`, created if missing); a key
    /// sees only its organization's benchmarks.
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

/// `bench serve orgs …` and `bench serve keys …`.
#[derive(Debug, Subcommand)]
enum Admin {
    /// The organizations of a database.
    #[command(subcommand)]
    Orgs(OrgsCommand),
    /// The API keys of a database.
    #[command(subcommand)]
    Keys(KeysCommand),
}

/// `bench serve orgs …`.
#[derive(Debug, Subcommand)]
enum OrgsCommand {
    /// Create an organization.
    Create {
        /// Its slug: 1 to 64 of a-z, 0-9 and -.
        slug: String,
        #[command(flatten)]
        db: DbArg,
    },
    /// List the organizations, with their keys and benchmarks counted.
    List {
        #[command(flatten)]
        db: DbArg,
    },
}

/// `bench serve keys …`.
#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Create an API key of an organization and print it (only once: just its hash is kept).
    Create {
        /// The organization (create it first with `bench serve orgs create`).
        #[arg(long, value_name = "SLUG", default_value = "local")]
        org: String,
        /// The key may only read.
        #[arg(long)]
        read_only: bool,
        #[command(flatten)]
        db: DbArg,
    },
    /// List the API keys by the prefix that names them (never the keys).
    List {
        #[command(flatten)]
        db: DbArg,
    },
    /// Revoke an API key, named by its prefix (as `keys list` shows it) or the key itself:
    /// it stops working, and so do the dashboard sessions it opened, at once.
    Revoke {
        /// The key's prefix (`bp_` and 6 hex digits) or the key.
        key: String,
        #[command(flatten)]
        db: DbArg,
    },
}

/// The database of an administration command.
#[derive(Debug, Args)]
struct DbArg {
    /// The database file of `bench serve --db`.
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
}

impl ServeArgs {
    /// Serves until the process is stopped, or runs the administration command; returns
    /// the exit code.
    pub(super) async fn execute(self) -> ExitCode {
        if let Some(admin) = self.admin {
            return admin.execute().unwrap_or_else(|error| error_exit(&error));
        }
        let Some(db) = self.db else {
            return error_exit(&anyhow::anyhow!("bench serve needs --db FILE"));
        };
        let options = ServeOptions {
            db,
            host: self.host,
            port: self.port,
            public_url: self.public_url,
            artifact_origin: self.artifact_origin,
            create_key: self.create_key,
            org: self.org,
            read_only: self.read_only,
            public_read: self.public_read,
        };
        match serve::serve(options).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("bench serve: {error:#}");
                ExitCode::FAILURE
            }
        }
    }
}

impl Admin {
    fn execute(self) -> anyhow::Result<ExitCode> {
        match self {
            Admin::Orgs(OrgsCommand::Create { slug, db }) => {
                let org = serve::create_org(&db.db, &slug)?;
                println!("Organization {} created.", org.slug);
            }
            Admin::Orgs(OrgsCommand::List { db }) => print_orgs(&serve::orgs(&db.db)?),
            Admin::Keys(KeysCommand::Create { org, read_only, db }) => {
                let key = serve::create_key(&db.db, &org, read_only)?;
                println!("API key: {key}");
            }
            Admin::Keys(KeysCommand::List { db }) => print_keys(&serve::keys(&db.db)?),
            Admin::Keys(KeysCommand::Revoke { key, db }) => {
                let revoked = serve::revoke_key(&db.db, &key)?;
                println!(
                    "API key {}… of {} revoked ({} session(s) ended).",
                    revoked.prefix, revoked.org, revoked.sessions
                );
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

fn print_orgs(orgs: &[OrgRow]) {
    let rows: Vec<Value> = orgs
        .iter()
        .map(|org| {
            json!({"organization": org.slug, "keys": org.keys, "benchmarks": org.benchmarks,
                "created": org.created_at})
        })
        .collect();
    print!("{}", table(&Value::Array(rows), &[]));
}

fn print_keys(keys: &[KeyRow]) {
    let rows: Vec<Value> = keys
        .iter()
        .map(|key| {
            let access = if key.read_only { "read" } else { "read-write" };
            json!({"key": format!("{}…", key.prefix), "organization": key.org, "access": access,
                "sessions": key.sessions, "created": key.created_at})
        })
        .collect();
    print!("{}", table(&Value::Array(rows), &[]));
}
