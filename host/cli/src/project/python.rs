//! Python task projects: the task module `app.py` (with the `bench_task` SDK) becomes a
//! component with componentize-py. Third-party pure-Python packages come from the active
//! virtual environment's site-packages, as componentize-py finds them.
//!
//! componentize-py runs the task's top-level code at build time (its pre-initialisation,
//! inside WebAssembly, with the Python path's folders mounted), so it runs contained
//! ([`super::contain`]): it writes only its output and temporary folders in the staging
//! folder, and the SDK it sees is a private copy there, so neither bench's SDK cache nor the
//! site-packages can be changed by the task's code.

use super::contain::Containment;
use super::fingerprint::Fingerprint;
use super::progress::BuildProgress;
use super::sdk::Sdk;
use super::{build_if_changed, tool, wit, Built};
use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};

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
    let private_sdk = staging.join("sdk");
    copy_read_only(sdk, &private_sdk)?;
    let out = staging.join("out");
    std::fs::create_dir_all(&out)?;
    let component = out.join("task.wasm");
    let mut componentize = Containment::writing_in(&out)
        .reading("/")
        .command("componentize-py", dir)?;
    componentize
        .arg("-d")
        .arg(&wit_dir)
        .args(["-w", wit::PYTHON_WORLD, "componentize", SHIM_MODULE])
        .arg("-p")
        .arg(&shim_dir)
        .arg("-p")
        .arg(dir)
        .arg("-p")
        .arg(&private_sdk)
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

/// Copies the folder `from` to `to` (created), its files read-only.
fn copy_read_only(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_read_only(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
            let mut permissions = std::fs::metadata(&target)?.permissions();
            permissions.set_readonly(true);
            std::fs::set_permissions(&target, permissions)?;
        }
    }
    Ok(())
}
