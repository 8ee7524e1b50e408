//! bench's cache folder for what it unpacks and builds on the user's behalf (the guest SDKs,
//! the build projects of one-file tasks): `BENCH_CACHE_DIR` (shared with the compiled
//! components), else `<user cache dir>/bench`.

use anyhow::{Context as _, Result};
use std::path::PathBuf;

/// The cache folder (not created here).
pub(crate) fn dir() -> Result<PathBuf> {
    match std::env::var_os("BENCH_CACHE_DIR") {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => dirs::cache_dir()
            .map(|dir| dir.join("bench"))
            .context("this system has no user cache folder: set BENCH_CACHE_DIR"),
    }
}
