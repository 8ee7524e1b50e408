//! A results directory read back — by `bench report`, `compare`, `merge`, `upload` and the
//! HTML report — is input like any other: someone else may have written it. Every file is
//! opened beneath the directory ([`ResultsDir`]: no absolute path, no `..`, no symbolic link
//! that leads out, each path resolved inside the directory by cap-std), a JSON file is read
//! up to [`MAX_JSON_FILE_BYTES`] and a line file one line of at most [`MAX_LINE_BYTES`] at a
//! time ([`read_line`]).

use anyhow::{anyhow, bail, Context as _, Result};
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io::{BufRead, ErrorKind, Read};
use std::path::{Component, Path, PathBuf};

/// Longest line read from a results directory's line files (`records.ndjson`,
/// `metrics.jsonl`), its newline included; a task's record is bounded far below it.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Largest JSON file read whole (`run.json`, `summary.json`, the delivery ledger).
pub const MAX_JSON_FILE_BYTES: u64 = 16 << 20;

/// A results directory opened for reading: the only way its files are read.
#[derive(Debug)]
pub struct ResultsDir {
    path: PathBuf,
    dir: Dir,
}

impl ResultsDir {
    /// Opens the directory at `path`.
    pub fn open(path: &Path) -> Result<Self> {
        let shown = if path.as_os_str().is_empty() {
            Path::new(".")
        } else {
            path
        };
        let dir = Dir::open_ambient_dir(shown, ambient_authority())
            .with_context(|| format!("cannot read the results directory {}", path.display()))?;
        Ok(Self {
            path: path.to_owned(),
            dir,
        })
    }

    /// The directory of the file at `path`, and the file's name in it.
    pub fn of_file(path: &Path) -> Result<(Self, String)> {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .ok_or_else(|| anyhow!("{} is not a file name", path.display()))?;
        let dir = Self::open(path.parent().unwrap_or(Path::new("")))?;
        Ok((dir, name.to_owned()))
    }

    /// Where the directory is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the file at `relative` — a path inside the directory, as `run.json` names its
    /// files — for reading; `None` when there is no such file. A path that is absolute,
    /// goes up (`..`) or leads out through a symbolic link is refused.
    pub fn open_file(&self, relative: &str) -> Result<Option<File>> {
        let shown = self.path.join(relative);
        if !is_inside(relative) {
            bail!(
                "{relative:?} is not a path inside the results directory {} (absolute paths and `..` are refused)",
                self.path.display()
            );
        }
        match self.dir.open(relative) {
            Ok(file) => Ok(Some(file.into_std())),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
            Err(error) if leads_out(&error) => bail!(
                "{} leads outside the results directory {} (a symbolic link out is refused)",
                shown.display(),
                self.path.display()
            ),
            Err(error) => Err(error).with_context(|| format!("cannot read {}", shown.display())),
        }
    }

    /// The JSON file at `relative` read as `T` (at most [`MAX_JSON_FILE_BYTES`]); `None`
    /// when there is no such file; an error `<path> is not <what>` when it is not a `T`.
    pub fn read_json<T: DeserializeOwned>(&self, relative: &str, what: &str) -> Result<Option<T>> {
        let Some(file) = self.open_file(relative)? else {
            return Ok(None);
        };
        let path = self.path.join(relative);
        let mut text = Vec::new();
        file.take(MAX_JSON_FILE_BYTES + 1)
            .read_to_end(&mut text)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if text.len() as u64 > MAX_JSON_FILE_BYTES {
            bail!(
                "{} is larger than {} MiB",
                path.display(),
                MAX_JSON_FILE_BYTES >> 20
            );
        }
        serde_json::from_slice(&text)
            .map(Some)
            .with_context(|| format!("{} is not {what}", path.display()))
    }
}

/// Whether `relative` stays inside the directory it is read from without resolving
/// anything: not absolute, no `..`, not empty.
fn is_inside(relative: &str) -> bool {
    let path = Path::new(relative);
    path.components().next().is_some()
        && path
            .components()
            .all(|part| matches!(part, Component::Normal(_) | Component::CurDir))
}

/// Whether cap-std refused to open a path because it resolves outside the directory.
fn leads_out(error: &std::io::Error) -> bool {
    error.kind() == ErrorKind::PermissionDenied && error.to_string().contains("outside")
}

/// How [`read_line`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A line of this many bytes was read: it ends with a newline unless it is the last
    /// line of the file.
    Read(usize),
    /// The end of the file: nothing was read.
    End,
    /// The line is longer than [`MAX_LINE_BYTES`]: its first bytes were read, no more.
    TooLong,
}

/// Reads the next line of `reader` into `line` (cleared first), its newline included,
/// never more than [`MAX_LINE_BYTES`] of it.
pub fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<Line> {
    line.clear();
    let read = reader
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', line)?;
    Ok(if read == 0 {
        Line::End
    } else if read > MAX_LINE_BYTES {
        Line::TooLong
    } else {
        Line::Read(read)
    })
}

/// The error of a line [`read_line`] found too long: `<path> line <n> is longer than 16 MiB`.
pub fn too_long(path: &Path, line_number: usize) -> anyhow::Error {
    anyhow!(
        "{} line {line_number} is longer than {} MiB",
        path.display(),
        MAX_LINE_BYTES >> 20
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    #[test]
    fn only_paths_inside_the_directory_are_opened() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret");
        std::fs::write(&secret, "secret").unwrap();
        let root = tempfile::tempdir().unwrap();
        let results = root.path().join("results");
        std::fs::create_dir_all(results.join("logs")).unwrap();
        std::fs::write(results.join("logs/a.log"), "a").unwrap();
        std::os::unix::fs::symlink(&secret, results.join("logs/out.log")).unwrap();
        std::os::unix::fs::symlink("a.log", results.join("logs/in.log")).unwrap();
        let dir = ResultsDir::open(&results).unwrap();
        let read = |relative: &str| {
            let mut text = String::new();
            if let Some(mut file) = dir.open_file(relative)? {
                file.read_to_string(&mut text).unwrap();
            }
            Ok::<_, anyhow::Error>(text)
        };
        assert_eq!(read("logs/a.log").unwrap(), "a");
        assert_eq!(
            read("./logs/in.log").unwrap(),
            "a",
            "a link inside is followed"
        );
        assert_eq!(read("logs/missing.log").unwrap(), "");
        for escape in [
            secret.to_str().unwrap(),
            "../results/logs/a.log",
            "logs/../x",
            "",
        ] {
            let error = read(escape).unwrap_err().to_string();
            assert!(
                error.contains("is not a path inside the results directory"),
                "{escape}: {error}"
            );
        }
        let error = read("logs/out.log").unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "{} leads outside the results directory {} (a symbolic link out is refused)",
                results.join("logs/out.log").display(),
                results.display()
            )
        );
    }

    #[test]
    fn a_json_file_has_a_size_cap() {
        let root = tempfile::tempdir().unwrap();
        let dir = ResultsDir::open(root.path()).unwrap();
        assert_eq!(
            dir.read_json::<serde_json::Value>("run.json", "JSON")
                .unwrap(),
            None
        );
        std::fs::write(root.path().join("run.json"), r#"{"a": 1}"#).unwrap();
        let value: serde_json::Value = dir.read_json("run.json", "JSON").unwrap().unwrap();
        assert_eq!(value["a"], 1);
        let big = std::fs::File::create(root.path().join("big.json")).unwrap();
        big.set_len(MAX_JSON_FILE_BYTES + 1).unwrap();
        let error = dir
            .read_json::<serde_json::Value>("big.json", "JSON")
            .unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("big.json is larger than 16 MiB"),
            "{error}"
        );
    }

    #[test]
    fn a_line_is_read_up_to_its_cap() {
        let mut text = b"short\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES - 1));
        text.extend(b"\n");
        text.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES + 10));
        let mut reader = BufReader::new(&text[..]);
        let mut line = Vec::new();
        assert_eq!(read_line(&mut reader, &mut line).unwrap(), Line::Read(6));
        assert_eq!(
            read_line(&mut reader, &mut line).unwrap(),
            Line::Read(MAX_LINE_BYTES),
            "a line of exactly the cap, its newline included"
        );
        assert_eq!(read_line(&mut reader, &mut line).unwrap(), Line::TooLong);
        assert_eq!(line.len(), MAX_LINE_BYTES + 1);
        let mut last = BufReader::new(&b"cut"[..]);
        assert_eq!(read_line(&mut last, &mut line).unwrap(), Line::Read(3));
        assert_eq!(read_line(&mut last, &mut line).unwrap(), Line::End);
        assert_eq!(
            too_long(Path::new("r/records.ndjson"), 3).to_string(),
            "r/records.ndjson line 3 is longer than 16 MiB"
        );
    }
}
