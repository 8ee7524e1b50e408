//! Writing into a results directory without following links: a directory given to bench
//! (`--out`, `bench merge --out`, `bench report`'s) may have been prepared by someone else,
//! so bench refuses one that is a symlink or holds symlinks where it writes, creates its
//! folders itself, and opens every file it writes with `O_NOFOLLOW` (a link planted later
//! fails the open instead of redirecting the write).

use anyhow::{bail, Context as _, Result};
use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

/// Creates the results directory `dir` and its `logs/` folder, refusing a `dir` that is a
/// symlink or holds one (directly or in `logs/`).
pub fn create_results_dir(dir: &Path) -> Result<()> {
    refuse_link(dir)?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the results directory {}", dir.display()))?;
    let logs = dir.join("logs");
    match std::fs::create_dir(&logs) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => {
            return Err(error)
                .with_context(|| format!("cannot create the results directory {}", dir.display()))
        }
    }
    refuse_links_in(dir)?;
    if !std::fs::symlink_metadata(&logs)?.is_dir() {
        bail!("{} is not a directory", logs.display());
    }
    refuse_links_in(&logs)
}

/// Fails when `path` is a symlink.
pub fn refuse_link(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => Err(planted(path)),
        _ => Ok(()),
    }
}

/// Fails when a direct entry of `dir` is a symlink.
fn refuse_links_in(dir: &Path) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        if entry.file_type()?.is_symlink() {
            return Err(planted(&entry.path()));
        }
    }
    Ok(())
}

fn planted(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{} is a symlink: bench never writes results through a link it did not create \
         (remove it, or choose another --out directory)",
        path.display()
    )
}

/// Opens `path` for writing from its start (created, or emptied), never through a symlink.
pub fn create(path: &Path) -> Result<File> {
    File::options()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))
}

/// Opens `path` for appending (created when missing), never through a symlink.
pub fn append(path: &Path) -> Result<File> {
    File::options()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))
}

/// Creates `path`, failing when anything (a file or a link) is there already.
pub fn create_new(path: &Path) -> std::io::Result<File> {
    File::options()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Writes `bytes` as the whole of `path`, never through a symlink.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    create(path)?
        .write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_fresh_directory_is_created_with_its_logs_folder() {
        let dir = tempfile::TempDir::new().unwrap();
        let results = dir.path().join("a/b");
        create_results_dir(&results).unwrap();
        assert!(results.join("logs").is_dir());
        create_results_dir(&results).unwrap();
    }

    #[test]
    fn planted_links_are_refused_and_never_written_through() {
        let dir = tempfile::TempDir::new().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let results = dir.path().join("results");
        std::fs::create_dir_all(results.join("logs")).unwrap();
        symlink(&victim, results.join("logs/attacker.log")).unwrap();
        let error = create_results_dir(&results).unwrap_err().to_string();
        assert!(error.contains("logs/attacker.log is a symlink"), "{error}");

        let linked = dir.path().join("linked");
        symlink(&results, &linked).unwrap();
        assert!(create_results_dir(&linked).is_err());
        let logs_link = dir.path().join("other");
        std::fs::create_dir(&logs_link).unwrap();
        symlink(dir.path(), logs_link.join("logs")).unwrap();
        assert!(create_results_dir(&logs_link).is_err());

        assert!(write(&results.join("logs/attacker.log"), b"x").is_err());
        assert!(append(&results.join("logs/attacker.log")).is_err());
        assert!(create_new(&results.join("logs/attacker.log")).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
}
