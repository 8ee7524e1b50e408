//! Building task projects into components (`bench build`, and `bench run <dir>`): detect the
//! language, build with that language's toolchain, and skip the build when no source
//! changed since the last one.

mod cache;
pub(crate) mod contain;
mod fingerprint;
mod javascript;
mod js_toolchain;
mod one_file;
pub(crate) mod progress;
mod python;
mod rust;
pub(crate) mod sdk;
mod starlingmonkey;
mod tool;
mod weval;
mod wit;

use anyhow::{bail, Result};
use fingerprint::Fingerprint;
use one_file::TaskFile;
use progress::BuildProgress;
use std::path::{Path, PathBuf};

pub(crate) use javascript::{COMPONENTIZE_JS_VERSION, ESBUILD_VERSION, PREVIEW2_SHIM_VERSION};
pub(crate) use python::COMPONENTIZE_PY_VERSION;

/// The language of a task project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    /// A `cdylib` crate (`Cargo.toml`).
    Rust,
    /// A JavaScript or TypeScript package (`package.json`).
    JavaScript,
    /// A Python project (`pyproject.toml` or `app.py`).
    Python,
}

impl Language {
    /// Detects a project's language from its marker files.
    pub(crate) fn detect(dir: &Path) -> Option<Self> {
        if dir.join("Cargo.toml").is_file() {
            Some(Self::Rust)
        } else if dir.join("package.json").is_file() {
            Some(Self::JavaScript)
        } else if dir.join("pyproject.toml").is_file() || dir.join(python::APP_FILE).is_file() {
            Some(Self::Python)
        } else {
            None
        }
    }
}

/// Whether a project's dependencies may run their install scripts (and the project its
/// own `preinstall`, `postinstall`…) when bench installs them: only when the operator says
/// so (`--allow-build-scripts`, `BENCH_ALLOW_BUILD_SCRIPTS`, the bench config file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuildScripts {
    /// `npm --ignore-scripts` (the default).
    Ignored,
    /// The operator allows install scripts.
    Allowed,
}

/// Resolves what `bench run`/`check`/`build` were given: a `.wasm` file as is; a project
/// directory, or one JavaScript/TypeScript/Python task file, built first.
pub(crate) fn resolve_task(
    path: &Path,
    progress: BuildProgress,
    scripts: BuildScripts,
) -> Result<PathBuf> {
    if path.is_dir() {
        build(path, progress, scripts)
    } else if path.exists() {
        match TaskFile::of(path)? {
            TaskFile::Component => Ok(path.to_owned()),
            kind => build(&one_file::project_for(path, kind)?, progress, scripts),
        }
    } else {
        bail!("{} does not exist", path.display())
    }
}

/// Builds a task project and returns the component's path; `progress` shows the steps
/// (and the tools' output) on stderr.
fn build(dir: &Path, progress: BuildProgress, scripts: BuildScripts) -> Result<PathBuf> {
    match Language::detect(dir) {
        Some(Language::Rust) => rust::build(dir, progress),
        Some(Language::JavaScript) => javascript::build(dir, progress, scripts),
        Some(Language::Python) => python::build(dir, progress),
        None => bail!(
            "{} is not a task project: expected a Cargo.toml (Rust), a package.json \
             (JavaScript/TypeScript) or a pyproject.toml or app.py (Python)",
            dir.display()
        ),
    }
}

/// Where a JavaScript or Python build puts its component: `<project>/target/bench/task.wasm`.
fn component_path(project: &Path) -> PathBuf {
    project.join("target").join("bench").join("task.wasm")
}

/// What a build made: the component and the fingerprint of what it was built from.
struct Built {
    component: PathBuf,
    fingerprint: Fingerprint,
}

/// Returns the project's component when it was built from these inputs; else runs `build`
/// in a staging folder of this process (concurrent builds never see each other's files),
/// moves the component it returns into place and records its fingerprint.
fn build_if_changed(
    project: &Path,
    fingerprint: &Fingerprint,
    build: impl FnOnce(&Path) -> Result<Built>,
) -> Result<PathBuf> {
    let component = component_path(project);
    if fingerprint.is_current(&component) {
        return Ok(component);
    }
    let staging = component.with_file_name(format!("build-{}", std::process::id()));
    std::fs::create_dir_all(&staging)?;
    let result = build(&staging).and_then(|built| {
        std::fs::rename(built.component, &component)?;
        built.fingerprint.save(&component)?;
        Ok(component)
    });
    let _ = std::fs::remove_dir_all(&staging);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_languages_by_marker_files() {
        let dir = tempfile::TempDir::new().unwrap();
        let root = dir.path();
        assert_eq!(Language::detect(root), None);
        std::fs::write(root.join("app.py"), "").unwrap();
        assert_eq!(Language::detect(root), Some(Language::Python));
        std::fs::write(root.join("package.json"), "{}").unwrap();
        assert_eq!(Language::detect(root), Some(Language::JavaScript));
        std::fs::write(root.join("Cargo.toml"), "").unwrap();
        assert_eq!(Language::detect(root), Some(Language::Rust));
    }

    #[test]
    fn a_folder_without_markers_is_not_a_project() {
        let dir = tempfile::TempDir::new().unwrap();
        let error = build(dir.path(), BuildProgress::Quiet, BuildScripts::Ignored)
            .unwrap_err()
            .to_string();
        assert!(error.contains("is not a task project"), "{error}");
    }
}
