//! bench's cache folder for what it unpacks, installs and builds on the user's behalf (the
//! guest SDKs, the JavaScript toolchain, the build projects of one-file tasks):
//! `BENCH_CACHE_DIR` (shared with the compiled components), else `<user cache dir>/bench`.

use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// The cache folder (not created here).
pub(crate) fn dir() -> Result<PathBuf> {
    match std::env::var_os("BENCH_CACHE_DIR") {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => dirs::cache_dir()
            .map(|dir| dir.join("bench"))
            .context("this system has no user cache folder: set BENCH_CACHE_DIR"),
    }
}

/// Makes the folder `root` with `fill`, unless it exists: filled in a staging folder beside
/// it and renamed into place, so a folder that exists is complete (two benches filling it at
/// once both succeed).
pub(super) fn fill_once(root: &Path, fill: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    if root.is_dir() {
        return Ok(());
    }
    let parent = root.parent().context("a cache folder has a parent")?;
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".filling-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot write in {}", parent.display()))?;
    fill(staging.path())?;
    match std::fs::rename(staging.path(), root) {
        Ok(()) => Ok(()),
        Err(_) if root.is_dir() => Ok(()),
        Err(error) => Err(error).with_context(|| format!("cannot fill {}", root.display())),
    }
}
