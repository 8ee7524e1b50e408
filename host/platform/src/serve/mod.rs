//! `bench serve`: a self-hosted benchmarks platform — the API `bench run` reports to
//! (spec §6), stored in one SQLite file, behind API-key auth — so
//! `BENCHMARKS_PLATFORM_URL=http://127.0.0.1:PORT bench run …` works on one machine.

mod db;
mod routes;

use db::Store;

use anyhow::{Context as _, Result};
use axum::extract::DefaultBodyLimit;
use axum::Router;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Largest request body (artifacts are uploaded whole).
const MAX_BODY_BYTES: usize = 256 * 1024 * 1024;

/// Opens (or creates) the database, optionally creates an API key and prints it, then
/// serves on `host:port` until interrupted. Port 0 picks a free port; the first line
/// printed is `Listening on http://HOST:PORT`.
pub async fn serve(db: &Path, host: IpAddr, port: u16, create_key: bool) -> Result<()> {
    let store = Store::open(db).with_context(|| format!("cannot open {}", db.display()))?;
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(host, port))
        .await
        .with_context(|| format!("cannot listen on {host}:{port}"))?;
    let address = listener.local_addr()?;
    let mut out = std::io::stdout();
    writeln!(out, "Listening on http://{address}")?;
    if create_key {
        writeln!(out, "API key: {}", store.create_key()?)?;
    }
    writeln!(out, "Database: {}", db.display())?;
    out.flush()?;
    let app = Arc::new(routes::App {
        store: Mutex::new(store),
    });
    let router = Router::new()
        .fallback(routes::handle)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app);
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
