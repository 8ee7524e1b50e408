//! One-file tasks (`bench run hello.bench.ts`, `task.py`): bench keeps a build project for
//! the file in its cache, keyed by the file's path, and builds it as any project (rebuilt
//! only when what it was built from, the SDK or the toolchain changed). A JavaScript or
//! TypeScript file is the project's `main` where it is, so it may import the modules beside
//! it and the packages installed above it; a Python file is copied in and imports only the
//! SDK and installed packages.

use super::cache;
use super::sdk::Sdk;
use anyhow::{bail, Context as _, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Extensions of JavaScript and TypeScript task files.
const JS_EXTENSIONS: &[&str] = &["js", "mjs", "ts", "mts"];
/// The extension of Python task files.
const PYTHON_EXTENSION: &str = "py";

/// What a file given to `bench run` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TaskFile {
    /// A compiled component (`.wasm`).
    Component,
    /// A JavaScript or TypeScript task module.
    JavaScript,
    /// A Python task module.
    Python,
}

impl TaskFile {
    /// Tells a task file by its extension; an unknown one is an error saying what is known.
    pub(super) fn of(file: &Path) -> Result<Self> {
        let extension = file
            .extension()
            .map(|extension| extension.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("wasm") => Ok(Self::Component),
            Some(extension) if JS_EXTENSIONS.contains(&extension) => Ok(Self::JavaScript),
            Some(PYTHON_EXTENSION) => Ok(Self::Python),
            _ => bail!(
                "{} is not a task bench can run: expected a .wasm component, a task project \
                 directory or one task file (.js, .mjs, .ts, .mts or .py)",
                file.display()
            ),
        }
    }
}

/// The build project of a JavaScript/TypeScript or Python task file, brought up to date
/// with the file (created on first use).
pub(super) fn project_for(file: &Path, kind: TaskFile) -> Result<PathBuf> {
    let file =
        std::fs::canonicalize(file).with_context(|| format!("cannot read {}", file.display()))?;
    let project = cache::dir()?.join("tasks").join(project_name(&file));
    std::fs::create_dir_all(&project)
        .with_context(|| format!("cannot create {}", project.display()))?;
    match kind {
        TaskFile::JavaScript => {
            let manifest = package_json(&file, &Sdk::locate()?.js());
            write_if_changed(&project.join("package.json"), manifest.as_bytes())?;
        }
        TaskFile::Python => {
            let source =
                std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            write_if_changed(&project.join(super::python::APP_FILE), &source)?
        }
        TaskFile::Component => bail!("{} is a component, not a task file", file.display()),
    }
    Ok(project)
}

/// The project folder's name: the file's name (for people looking in the cache) and a
/// digest of its full path (two files of one name never share a project).
fn project_name(file: &Path) -> String {
    let digest = hex::encode(Sha256::digest(file.as_os_str().as_encoded_bytes()));
    let stem: String = file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("{stem}-{}", &digest[..16])
}

/// The package of a one-file JavaScript/TypeScript task: the file (by its full path) is
/// `main`, and the SDK its only dependency (bench brings its own toolchain).
fn package_json(main: &Path, js_sdk: &Path) -> String {
    let package = serde_json::json!({
        "name": "bench-one-file-task",
        "version": "0.1.0",
        "private": true,
        "type": "module",
        "main": main.to_string_lossy(),
        "devDependencies": {
            "@bench/task": format!("file:{}", js_sdk.display()),
        },
    });
    format!("{package:#}\n")
}

/// Writes `bytes` to `path` unless it already holds them.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<()> {
    if std::fs::read(path).is_ok_and(|current| current == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_files_are_told_by_extension() {
        assert_eq!(
            TaskFile::of(Path::new("a/t.wasm")).unwrap(),
            TaskFile::Component
        );
        for name in ["hello.bench.ts", "hello.bench.js", "t.mjs", "T.TS"] {
            assert_eq!(TaskFile::of(Path::new(name)).unwrap(), TaskFile::JavaScript);
        }
        assert_eq!(
            TaskFile::of(Path::new("task.py")).unwrap(),
            TaskFile::Python
        );
        for name in ["notes.txt", "task"] {
            let error = TaskFile::of(Path::new(name)).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("{name} is not a task bench can run")),
                "{error}"
            );
        }
    }

    #[test]
    fn projects_are_keyed_by_the_full_path() {
        let first = project_name(Path::new("/a/hello.bench.ts"));
        assert!(first.starts_with("hello-bench-ts-"), "{first}");
        assert_eq!(first, project_name(Path::new("/a/hello.bench.ts")));
        assert_ne!(first, project_name(Path::new("/b/hello.bench.ts")));
    }

    #[test]
    fn the_package_makes_the_file_its_main() {
        let main = Path::new("/work/t.bench.ts");
        let package: serde_json::Value =
            serde_json::from_str(&package_json(main, Path::new("/sdk/js"))).unwrap();
        assert_eq!(package["main"], "/work/t.bench.ts");
        assert_eq!(package["devDependencies"]["@bench/task"], "file:/sdk/js");
        assert_eq!(
            package["devDependencies"].as_object().unwrap().len(),
            1,
            "only the SDK: the toolchain is bench's own"
        );
    }
}
