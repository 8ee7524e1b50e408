//! Rebuild only when sources changed: a digest of a project's source files (and of the SDK
//! and toolchain inputs it builds with), stored next to the built component.

use anyhow::Result;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Folders that hold build output or installed dependencies, never sources.
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "__pycache__", "bench-results"];

/// A digest of everything a build reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fingerprint(String);

impl Fingerprint {
    /// Digests the files under `roots` (recursively, skipping build output, dependency and
    /// hidden folders) and the `extra` inputs (tool versions, embedded WIT).
    pub(super) fn of<'a>(
        roots: &[&Path],
        extra: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self> {
        let mut hasher = Sha256::new();
        hasher.update(env!("CARGO_PKG_VERSION"));
        for text in extra {
            hasher.update((text.len() as u64).to_le_bytes());
            hasher.update(text);
        }
        for root in roots {
            let mut files = Vec::new();
            collect_files(root, &mut files)?;
            files.sort();
            for file in files {
                let relative = file.strip_prefix(root).unwrap_or(&file);
                let bytes = std::fs::read(&file)?;
                hasher.update(relative.to_string_lossy().as_bytes());
                hasher.update((bytes.len() as u64).to_le_bytes());
                hasher.update(&bytes);
            }
        }
        Ok(Self(hex::encode(hasher.finalize())))
    }

    /// Whether `component` exists and was built from these inputs.
    pub(super) fn is_current(&self, component: &Path) -> bool {
        component.is_file()
            && std::fs::read_to_string(stamp_path(component)).is_ok_and(|saved| saved == self.0)
    }

    /// Records that `component` was built from these inputs.
    pub(super) fn save(&self, component: &Path) -> Result<()> {
        std::fs::write(stamp_path(component), &self.0)?;
        Ok(())
    }
}

fn stamp_path(component: &Path) -> PathBuf {
    component.with_extension("fingerprint")
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_ref()) {
                collect_files(&entry.path(), files)?;
            }
        } else if file_type.is_file() {
            files.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_with_sources_but_not_with_build_output() {
        let dir = tempfile::TempDir::new().unwrap();
        let root = dir.path();
        std::fs::write(root.join("task.js"), "a").unwrap();
        let first = Fingerprint::of(&[root], []).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join("target").join("task.wasm"), "x").unwrap();
        std::fs::create_dir_all(root.join("node_modules")).unwrap();
        std::fs::write(root.join("node_modules").join("dep.js"), "x").unwrap();
        assert_eq!(Fingerprint::of(&[root], []).unwrap(), first);
        std::fs::write(root.join("task.js"), "b").unwrap();
        assert_ne!(Fingerprint::of(&[root], []).unwrap(), first);
        assert_ne!(Fingerprint::of(&[root], ["v2"]).unwrap(), first);
    }

    #[test]
    fn a_component_is_current_only_with_its_stamp() {
        let dir = tempfile::TempDir::new().unwrap();
        let component = dir.path().join("task.wasm");
        let print = Fingerprint::of(&[dir.path()], []).unwrap();
        assert!(!print.is_current(&component));
        std::fs::write(&component, "wasm").unwrap();
        assert!(!print.is_current(&component));
        print.save(&component).unwrap();
        assert!(print.is_current(&component));
        let other = Fingerprint::of(&[dir.path()], ["other"]).unwrap();
        assert!(!other.is_current(&component));
    }
}
