//! The JavaScript toolchain bench builds with (esbuild, componentize-js): bench installs it
//! itself, once per lockfile, into its cache (`<cache>/toolchain/js-<digest>/`) from the
//! package lock the binary carries (pinned versions, each package checked against its
//! integrity hash by `npm ci`), with install scripts off. bench never runs a tool from a task
//! project's `node_modules`: a project supplies only the packages its task imports.

use super::cache;
use super::progress::BuildProgress;
use super::tool;
use anyhow::{Context as _, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The toolchain's package and its lockfile.
const PACKAGE_JSON: &str = include_str!("js_toolchain/package.json");
const PACKAGE_LOCK: &str = include_str!("js_toolchain/package-lock.json");

/// The build step that installs it.
const INSTALL_STEP: &str = "installing the JavaScript toolchain (once)";

/// An installed toolchain.
#[derive(Debug, Clone)]
pub(super) struct JsToolchain {
    root: PathBuf,
}

impl JsToolchain {
    /// The toolchain in bench's cache, installed first when it is not there.
    pub(super) fn ensure(progress: BuildProgress) -> Result<Self> {
        let root = cache::dir()?
            .join("toolchain")
            .join(format!("js-{}", digest()));
        cache::fill_once(&root, |staging| install(staging, progress))?;
        Ok(Self {
            root: std::fs::canonicalize(&root)?,
        })
    }

    /// esbuild's native binary (esbuild's package would otherwise find it with its install
    /// script).
    pub(super) fn esbuild(&self) -> Result<PathBuf> {
        let scope = self.root.join("node_modules").join("@esbuild");
        let binaries = std::fs::read_dir(&scope)
            .with_context(|| {
                format!(
                    "the JavaScript toolchain in {} has no esbuild",
                    self.root.display()
                )
            })?
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.path().join("bin").join("esbuild"))
            .find(|binary| binary.is_file());
        binaries.with_context(|| {
            format!(
                "the JavaScript toolchain in {} has no esbuild binary for this system",
                self.root.display()
            )
        })
    }

    /// componentize-js's package folder.
    pub(super) fn componentize_js_package(&self) -> PathBuf {
        self.root
            .join("node_modules/@bytecodealliance/componentize-js")
    }

    /// componentize-js's command-line script (run with `node`).
    pub(super) fn componentize_js(&self) -> PathBuf {
        self.componentize_js_package().join("src/cli.js")
    }

    /// What a build's fingerprint records of the toolchain.
    pub(super) fn build_key() -> &'static str {
        PACKAGE_LOCK
    }
}

/// Installs the toolchain into `staging`: `npm ci --ignore-scripts` of the lockfile.
fn install(staging: &Path, progress: BuildProgress) -> Result<()> {
    std::fs::write(staging.join("package.json"), PACKAGE_JSON)?;
    std::fs::write(staging.join("package-lock.json"), PACKAGE_LOCK)?;
    let mut npm = Command::new("npm");
    npm.args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"]);
    tool::run(
        npm,
        staging,
        INSTALL_STEP,
        "install Node.js and npm",
        progress,
    )
}

/// The first 12 hex digits of the lockfile's sha256: another lockfile installs beside.
fn digest() -> String {
    hex::encode(Sha256::digest(PACKAGE_LOCK))[..12].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::{COMPONENTIZE_JS_VERSION, ESBUILD_VERSION, PREVIEW2_SHIM_VERSION};

    #[test]
    fn the_toolchain_pins_the_versions_projects_are_made_with() {
        let package: serde_json::Value = serde_json::from_str(PACKAGE_JSON).unwrap();
        let dependencies = &package["dependencies"];
        assert_eq!(
            dependencies["@bytecodealliance/componentize-js"],
            COMPONENTIZE_JS_VERSION
        );
        assert_eq!(dependencies["esbuild"], ESBUILD_VERSION);
        assert_eq!(
            dependencies["@bytecodealliance/preview2-shim"],
            PREVIEW2_SHIM_VERSION
        );
        let lock: serde_json::Value = serde_json::from_str(PACKAGE_LOCK).unwrap();
        let packages = lock["packages"].as_object().unwrap();
        assert_eq!(packages["node_modules/esbuild"]["version"], ESBUILD_VERSION);
        for (name, entry) in packages.iter().filter(|(name, _)| !name.is_empty()) {
            let integrity = entry["integrity"].as_str().unwrap_or_default();
            assert!(
                integrity.starts_with("sha512-"),
                "{name} has no integrity hash"
            );
        }
    }
}
