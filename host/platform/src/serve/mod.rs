//! `bench serve`: a self-hosted benchmarks platform — the API `bench run` reports to
//! (spec §6), stored in one SQLite file, behind API-key auth — so
//! `BENCHMARKS_PLATFORM_URL=http://127.0.0.1:PORT bench run …` works on one machine.

mod db;
mod extract;
mod refusal;
mod router;

use anyhow::{anyhow, Context as _, Result};
use db::{Database, Store};
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

/// Opens (or creates) the database, optionally creates an API key and prints it, then
/// serves on `host:port` until interrupted. Port 0 picks a free port; the first line
/// printed is `Listening on http://HOST:PORT`.
pub async fn serve(db: &Path, host: IpAddr, port: u16, create_key: bool) -> Result<()> {
    let store = Store::open(db).with_context(|| format!("cannot open {}", db.display()))?;
    let database = Database::new(store);
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(host, port))
        .await
        .with_context(|| format!("cannot listen on {host}:{port}"))?;
    let address = listener.local_addr()?;
    let mut out = std::io::stdout();
    writeln!(out, "Listening on http://{address}")?;
    if create_key {
        let key = database
            .run(|store| store.create_key())
            .await
            .map_err(|refusal| anyhow!("cannot create an API key: {}", refusal.message))?;
        writeln!(out, "API key: {key}")?;
    }
    writeln!(out, "Database: {}", db.display())?;
    out.flush()?;
    axum::serve(listener, router::router(database))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
