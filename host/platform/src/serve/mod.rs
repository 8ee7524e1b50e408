//! `bench serve`: a self-hosted benchmarks platform — the API `bench run` reports to
//! (spec §6), stored in one SQLite file, behind API-key auth, and a read-only dashboard of
//! its benchmarks and runs ([`dashboard`]) — so
//! `BENCHMARKS_PLATFORM_URL=http://127.0.0.1:PORT bench run …` works on one machine.
//!
//! It holds up against clients that misbehave: a connection has [`HEADER_TIMEOUT`] to send
//! a request's head (and no longer to sit idle between requests), [`BODY_TIMEOUT`] to send
//! its body, at most [`MAX_CONNECTIONS`] are served at once, and bodies are read only after
//! the caller is authenticated, up to the limit of their route. Every answer carries the
//! security headers of [`headers`]. Organizations and API keys are managed without SQL by
//! the functions below (`bench serve orgs …`, `bench serve keys …`).

mod dashboard;
mod db;
mod extract;
mod headers;
mod refusal;
mod router;
mod tokens;

pub use db::{KeyRow, OrgRow};

use anyhow::{anyhow, Context as _, Result};
use axum::middleware;
use db::{Database, Store};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tower_http::timeout::RequestBodyTimeoutLayer;

/// Longest time a connection may take to send a request's head, or stay idle between two
/// requests.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest time a request may take to send its body.
const BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// Connections served at once; more wait in the listen queue.
const MAX_CONNECTIONS: usize = 1024;

/// How `bench serve` runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The database file (created if missing).
    pub db: PathBuf,
    /// The address to listen on.
    pub host: IpAddr,
    /// The port (0 picks a free one).
    pub port: u16,
    /// The URL clients reach the server at, for the artifact links it hands out; the
    /// listen address when `None`.
    pub public_url: Option<String>,
    /// Another origin (a host name of its own) the artifact download links point to, so an
    /// artifact never opens in the dashboard's origin.
    pub artifact_origin: Option<String>,
    /// Create an API key (printed once) before serving.
    pub create_key: bool,
    /// The organization of the key created (`local` when `None`).
    pub org: Option<String>,
    /// The key created may only read.
    pub read_only: bool,
    /// The dashboard's pages open without logging in (`--public-read`).
    pub public_read: bool,
}

/// Opens (or creates) the database, optionally creates an API key and prints it, then
/// serves until interrupted. The first line printed is `Listening on http://HOST:PORT`.
pub async fn serve(options: ServeOptions) -> Result<()> {
    let db = &options.db;
    let store = Store::open(db).with_context(|| format!("cannot open {}", db.display()))?;
    let database = Database::new(store);
    let (host, port) = (options.host, options.port);
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(host, port))
        .await
        .with_context(|| format!("cannot listen on {host}:{port}"))?;
    let address = listener.local_addr()?;
    let public_url = match &options.public_url {
        Some(url) => checked_url("--public-url", url)?,
        None => format!("http://{address}"),
    };
    let artifact_origin = options
        .artifact_origin
        .as_deref()
        .map(|url| checked_url("--artifact-origin", url))
        .transpose()?;
    let mut out = std::io::stdout();
    writeln!(out, "Listening on http://{address}")?;
    if options.create_key {
        let org = options.org.clone().unwrap_or_else(|| "local".into());
        let read_only = options.read_only;
        let key = database
            .run(move |store| store.create_key(&org, read_only))
            .await
            .map_err(|refusal| anyhow!("cannot create an API key: {}", refusal.message))?;
        writeln!(out, "API key: {key}")?;
    }
    writeln!(out, "Database: {}", db.display())?;
    out.flush()?;
    if !host.is_loopback() && options.public_url.is_none() {
        eprintln!(
            "bench serve: warning: listening on {host} without TLS — API keys and results travel in clear. Put a TLS-terminating reverse proxy in front and pass its address with --public-url (see docs/platform.md)."
        );
    }
    let secret = database
        .run(|store| store.token_secret())
        .await
        .map_err(|refusal| anyhow!("cannot read the token secret: {}", refusal.message))?;
    let dashboard = dashboard::Dashboard::new(
        database.clone(),
        &public_url,
        options.public_read,
        dashboard::Heavy::for_this_machine(),
    );
    let links = router::Links::new(&public_url, artifact_origin.as_deref(), &secret);
    let app = router::router(database, links)
        .merge(dashboard::routes(dashboard))
        .layer(middleware::from_fn(headers::secure))
        .layer(RequestBodyTimeoutLayer::new(BODY_TIMEOUT));
    accept(listener, app).await;
    Ok(())
}

/// The URL of `flag` without a trailing slash; an error unless it is an http(s) URL.
fn checked_url(flag: &str, url: &str) -> Result<String> {
    let trimmed = url.trim_end_matches('/');
    let scheme_ok = trimmed.starts_with("http://") || trimmed.starts_with("https://");
    if !scheme_ok || trimmed.contains(char::is_whitespace) {
        anyhow::bail!("{flag} must be an http:// or https:// URL (got {url:?})");
    }
    Ok(trimmed.to_owned())
}

/// Runs `job` on the database file `db` (created if missing), in one transaction.
fn administer<T>(db: &Path, job: impl FnOnce(&Store) -> Result<T, refusal::Refusal>) -> Result<T> {
    let store = Store::open(db).with_context(|| format!("cannot open {}", db.display()))?;
    store
        .transact(job)
        .map_err(|refusal| anyhow!("{}", refusal.message))
}

/// `bench serve orgs create`: a new organization.
pub fn create_org(db: &Path, slug: &str) -> Result<OrgRow> {
    administer(db, |store| store.create_org(slug))
}

/// `bench serve orgs list`: every organization, with its keys and benchmarks counted.
pub fn orgs(db: &Path) -> Result<Vec<OrgRow>> {
    administer(db, Store::orgs)
}

/// `bench serve keys create`: a new API key of the existing organization `org` (maybe
/// read-only), returned once (only its hash is stored).
pub fn create_key(db: &Path, org: &str, read_only: bool) -> Result<String> {
    administer(db, |store| {
        if !store.has_org(org)? {
            return Err(refusal::Refusal::bad_request(format!(
                "there is no organization {org:?}; create it with `bench serve orgs create {org}`"
            )));
        }
        store.create_key(org, read_only)
    })
}

/// `bench serve keys list`: every API key by its prefix (never the key).
pub fn keys(db: &Path) -> Result<Vec<KeyRow>> {
    administer(db, Store::keys)
}

/// `bench serve keys revoke`: deletes the key named by `name` (the key or its prefix) and
/// ends its dashboard sessions; a server using the file refuses it from its next request.
pub fn revoke_key(db: &Path, name: &str) -> Result<KeyRow> {
    administer(db, |store| store.revoke_key(name))
}

/// Serves each connection of `listener` on its own task, [`MAX_CONNECTIONS`] at once, until
/// Ctrl-C.
async fn accept(listener: tokio::net::TcpListener, app: axum::Router) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let shutdown = tokio::signal::ctrl_c();
    tokio::pin!(shutdown);
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        let stream = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors, or a connection reset before it was
                    // accepted: wait a little rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _slot = slot;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            // A connection that fails (reset, timed out) concerns only its client.
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_public_url_is_an_http_url() {
        assert_eq!(
            checked_url("--public-url", "https://bench.example.com/").unwrap(),
            "https://bench.example.com"
        );
        assert_eq!(
            checked_url("--public-url", "ftp://x")
                .unwrap_err()
                .to_string(),
            "--public-url must be an http:// or https:// URL (got \"ftp://x\")"
        );
    }
}
