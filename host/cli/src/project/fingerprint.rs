//! Rebuild only when sources changed: a digest of a project's source files (and of the SDK
//! and toolchain inputs it builds with), stored next to the built component. A build that
//! learns which files it read outside those (a bundler's inputs) adds them, and the stamp
//! lists them so the next check reads them again.

use anyhow::Result;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Folders that hold build output or installed dependencies, never sources.
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "__pycache__", "bench-results"];

/// A digest of everything a build reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fingerprint {
    digest: String,
    /// Files the digest covers besides the roots', recorded in the stamp.
    files_read: Vec<PathBuf>,
}

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
        Ok(Self {
            digest: hex::encode(hasher.finalize()),
            files_read: Vec::new(),
        })
    }

    /// This fingerprint extended by `files` (their paths and contents; a missing file counts
    /// as such, so its return is a change too). Paths that cannot be listed one per line in
    /// the stamp are left out.
    pub(super) fn and_files(self, files: Vec<PathBuf>) -> Self {
        let files: Vec<PathBuf> = files
            .into_iter()
            .filter(|file| file.to_str().is_some_and(|path| !path.contains('\n')))
            .collect();
        let mut hasher = Sha256::new();
        hasher.update(&self.digest);
        for file in &files {
            let path = file.as_os_str().as_encoded_bytes();
            hasher.update((path.len() as u64).to_le_bytes());
            hasher.update(path);
            match std::fs::read(file) {
                Ok(bytes) => {
                    hasher.update((bytes.len() as u64).to_le_bytes());
                    hasher.update(&bytes);
                }
                Err(_) => hasher.update(u64::MAX.to_le_bytes()),
            }
        }
        Self {
            digest: hex::encode(hasher.finalize()),
            files_read: files,
        }
    }

    /// The extra files the stamp of `component` lists (none without a stamp).
    pub(super) fn files_read_for(component: &Path) -> Vec<PathBuf> {
        std::fs::read_to_string(stamp_path(component))
            .map(|stamp| stamp.lines().skip(1).map(PathBuf::from).collect())
            .unwrap_or_default()
    }

    /// Whether `component` exists and was built from these inputs.
    pub(super) fn is_current(&self, component: &Path) -> bool {
        component.is_file()
            && std::fs::read_to_string(stamp_path(component))
                .is_ok_and(|stamp| stamp.lines().next() == Some(self.digest.as_str()))
    }

    /// Records that `component` was built from these inputs: the digest, then the extra
    /// files, a line each.
    pub(super) fn save(&self, component: &Path) -> Result<()> {
        let mut stamp = self.digest.clone();
        for file in &self.files_read {
            stamp.push('\n');
            stamp.push_str(&file.to_string_lossy());
        }
        std::fs::write(stamp_path(component), stamp)?;
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

    #[test]
    fn files_read_outside_the_roots_are_listed_in_the_stamp_and_count() {
        let project = tempfile::TempDir::new().unwrap();
        let outside = tempfile::TempDir::new().unwrap();
        let helper = outside.path().join("helper.ts");
        std::fs::write(&helper, "export const n = 1;").unwrap();
        let component = project.path().join("task.wasm");
        std::fs::write(&component, "wasm").unwrap();
        let base = Fingerprint::of(&[project.path()], []).unwrap();
        assert_eq!(
            Fingerprint::files_read_for(&component),
            Vec::<PathBuf>::new()
        );

        let built = base.clone().and_files(vec![helper.clone()]);
        assert_ne!(built, base);
        built.save(&component).unwrap();
        let listed = Fingerprint::files_read_for(&component);
        assert_eq!(listed, std::slice::from_ref(&helper));
        assert!(base
            .clone()
            .and_files(listed.clone())
            .is_current(&component));

        std::fs::write(&helper, "export const n = 2;").unwrap();
        assert!(!base
            .clone()
            .and_files(listed.clone())
            .is_current(&component));
        std::fs::remove_file(&helper).unwrap();
        assert!(!base.and_files(listed).is_current(&component));
    }
}
