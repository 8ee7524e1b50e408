//! Python task projects: the task module `app.py` (with the `bench_task` SDK) becomes a
//! component with componentize-py. Third-party pure-Python packages come from the active
//! virtual environment's site-packages, as componentize-py finds them.

use super::fingerprint::Fingerprint;
use super::progress::BuildProgress;
use super::sdk::Sdk;
use super::{build_if_changed, tool, wit, Built};
use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The task module every Python project has.
pub(super) const APP_FILE: &str = "app.py";
/// The componentize-py version Python tasks are built with.
pub(crate) const COMPONENTIZE_PY_VERSION: &str = "0.25.1";

/// The module componentize-py wraps: it prepares the interpreter for the sandbox (the SDK's
/// adapters: `ssl`, refusals, the asyncio loop), imports the task module (which registers its
/// task with the SDK), carries the HTTP libraries it imported over wasi:http, and imports the
/// SDK's implementation of the world's exports.
const SHIM_MODULE: &str = "bench_component";
const SHIM: &str = "import bench_task.adapters\n\
                    bench_task.adapters.install()\n\
                    import app  # noqa: F401 (registers the task)\n\
                    bench_task.adapters.adapt_loaded()\n\
                    from bench_task.component import WitWorld  # noqa: F401\n";

/// Builds a Python task project and returns the component's path.
pub(super) fn build(dir: &Path, progress: BuildProgress) -> Result<PathBuf> {
    let dir =
        &std::fs::canonicalize(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    if !dir.join(APP_FILE).is_file() {
        bail!(
            "{} has no {APP_FILE}: a Python task project's task module is {APP_FILE}",
            dir.display()
        );
    }
    let sdk = Sdk::locate()?.python();
    let fingerprint = Fingerprint::of(&[dir, &sdk], wit::contents().chain([SHIM]))?;
    build_if_changed(dir, &fingerprint, |staging| {
        Ok(Built {
            component: build_in(dir, &sdk, staging, progress)?,
            fingerprint: fingerprint.clone(),
        })
    })
}

fn build_in(dir: &Path, sdk: &Path, staging: &Path, progress: BuildProgress) -> Result<PathBuf> {
    let wit_dir = staging.join("wit");
    wit::write(&wit_dir)?;
    let shim_dir = staging.join("py");
    std::fs::create_dir_all(&shim_dir)?;
    std::fs::write(shim_dir.join(format!("{SHIM_MODULE}.py")), SHIM)?;
    let component = staging.join("task.wasm");
    let mut componentize = Command::new("componentize-py");
    componentize
        .arg("-d")
        .arg(&wit_dir)
        .args(["-w", wit::PYTHON_WORLD, "componentize", SHIM_MODULE])
        .arg("-p")
        .arg(&shim_dir)
        .arg("-p")
        .arg(dir)
        .arg("-p")
        .arg(sdk)
        .arg("-o")
        .arg(&component);
    tool::run(
        componentize,
        dir,
        "componentize-py",
        &format!("pip install componentize-py=={COMPONENTIZE_PY_VERSION}"),
        progress,
    )?;
    Ok(component)
}
