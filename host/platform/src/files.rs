//! Files written whole: a temporary file beside the target, renamed over it, so a process
//! that dies mid-write leaves either the old or the new contents, never a torn file. There
//! is no `fsync`: the delivery ledger is rewritten after every batch, and a sync each time
//! would cost more than the batch.

use std::io::Write;
use std::path::Path;

/// Who may read a written file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Everyone the umask allows, as a plain write would (results, exports).
    Shared,
    /// Only the owner (credentials).
    Private,
}

/// Writes `contents` to `path` atomically, creating its parent directory when missing.
pub(crate) fn write_atomically(
    path: &Path,
    contents: &[u8],
    access: Access,
) -> std::io::Result<()> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".").suffix(".tmp");
    #[cfg(unix)]
    if access == Access::Shared {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut file = builder.tempfile_in(parent)?;
    file.write_all(contents)?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_and_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/out.json");
        write_atomically(&path, b"old", Access::Shared).unwrap();
        write_atomically(&path, b"new", Access::Shared).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn private_files_are_readable_by_their_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials.json");
        write_atomically(&path, b"{}", Access::Private).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let plain = dir.path().join("plain.json");
        std::fs::write(&plain, b"{}").unwrap();
        let shared = dir.path().join("export.json");
        write_atomically(&shared, b"{}", Access::Shared).unwrap();
        let mode = |path| std::fs::metadata(path).unwrap().permissions().mode();
        assert_eq!(
            mode(&shared),
            mode(&plain),
            "as a plain write, umask applied"
        );
    }
}
