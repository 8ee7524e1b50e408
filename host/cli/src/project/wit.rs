//! The WIT package JavaScript and Python tasks are built against: the `bench:task` contract
//! this host speaks, the guest worlds that add WASI imports, and the WASI 0.2 packages
//! (vendored from wasmtime-wasi-http 48.0.8). All of it is embedded in the binary, so a
//! build always matches the host that runs it.

use anyhow::{Context as _, Result};
use std::path::Path;

/// The world JavaScript tasks are componentized for.
pub(super) const JS_WORLD: &str = "js-task";
/// The world Python tasks are componentized for.
pub(super) const PYTHON_WORLD: &str = "python-task";

const FILES: &[(&str, &str)] = &[
    ("guest.wit", include_str!("wit/guest.wit")),
    (
        "deps/task/task.wit",
        include_str!("../../../../wit/task.wit"),
    ),
    ("deps/cli.wit", include_str!("wit/deps/cli.wit")),
    ("deps/clocks.wit", include_str!("wit/deps/clocks.wit")),
    (
        "deps/filesystem.wit",
        include_str!("wit/deps/filesystem.wit"),
    ),
    ("deps/http.wit", include_str!("wit/deps/http.wit")),
    ("deps/io.wit", include_str!("../../../../wit/deps/io.wit")),
    ("deps/random.wit", include_str!("wit/deps/random.wit")),
    ("deps/sockets.wit", include_str!("wit/deps/sockets.wit")),
];

/// Writes the WIT package into `dir` (replacing what was there).
pub(super) fn write(dir: &Path) -> Result<()> {
    for (name, text) in FILES {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Feeds the embedded WIT into a fingerprint, so a host with another contract rebuilds.
pub(super) fn contents() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(_, text)| *text)
}
