//! `bench new <dir> --lang rust|js|ts|python`: a task project that builds and runs as it is,
//! with a README of its own. Templates are embedded; the SDKs are referenced by path, to the
//! copy this binary unpacks into its cache or to `BENCH_SDK_DIR` ([`crate::project::sdk`]),
//! until they are published.

use crate::project::{
    sdk::Sdk, COMPONENTIZE_JS_VERSION, COMPONENTIZE_PY_VERSION, ESBUILD_VERSION,
    PREVIEW2_SHIM_VERSION,
};
use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};

/// The language of a new task project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Lang {
    /// A Rust crate using `bench-guest`.
    Rust,
    /// A JavaScript package using `@bench/task`.
    Js,
    /// A TypeScript package using `@bench/task`.
    Ts,
    /// A Python project using `bench_task`.
    Python,
}

type Template = (&'static str, &'static str);

const RUST: &[Template] = &[
    ("Cargo.toml", include_str!("templates/rust/Cargo.toml")),
    ("src/lib.rs", include_str!("templates/rust/src/lib.rs")),
    ("README.md", include_str!("templates/rust/README.md")),
    (".gitignore", include_str!("templates/rust/gitignore")),
];
const JS: &[Template] = &[
    ("package.json", include_str!("templates/js/package.json")),
    ("task.bench.js", include_str!("templates/js/task.bench.js")),
    ("README.md", include_str!("templates/js/README.md")),
    (".gitignore", include_str!("templates/js/gitignore")),
];
const TS: &[Template] = &[
    ("package.json", include_str!("templates/ts/package.json")),
    ("task.bench.ts", include_str!("templates/ts/task.bench.ts")),
    ("tsconfig.json", include_str!("templates/ts/tsconfig.json")),
    ("README.md", include_str!("templates/ts/README.md")),
    (".gitignore", include_str!("templates/ts/gitignore")),
];
const PYTHON: &[Template] = &[
    (
        "pyproject.toml",
        include_str!("templates/python/pyproject.toml"),
    ),
    ("app.py", include_str!("templates/python/app.py")),
    ("README.md", include_str!("templates/python/README.md")),
    (".gitignore", include_str!("templates/python/gitignore")),
];

impl Lang {
    fn templates(self) -> &'static [Template] {
        match self {
            Self::Rust => RUST,
            Self::Js => JS,
            Self::Ts => TS,
            Self::Python => PYTHON,
        }
    }
}

/// Creates a task project in `dir` (which must not exist or be empty) and returns the
/// files written, relative to `dir`.
pub(crate) fn create(dir: &Path, lang: Lang) -> Result<Vec<PathBuf>> {
    if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        bail!("{} already exists and is not empty", dir.display());
    }
    let title = dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| !name.is_empty())
        .with_context(|| format!("{} does not name a directory", dir.display()))?;
    let slug = slug(&title);
    let sdk = Sdk::locate()?;
    let values = [
        ("title", title.clone()),
        ("slug", slug.clone()),
        ("package", slug.clone()),
        ("crate", crate_name(&slug)),
        ("rust_sdk", sdk.rust().display().to_string()),
        ("js_sdk", sdk.js().display().to_string()),
        ("componentize_js", COMPONENTIZE_JS_VERSION.to_owned()),
        ("esbuild", ESBUILD_VERSION.to_owned()),
        ("preview2_shim", PREVIEW2_SHIM_VERSION.to_owned()),
        ("componentize_py", COMPONENTIZE_PY_VERSION.to_owned()),
    ];
    let mut written = Vec::new();
    for (name, template) in lang.templates() {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, render(template, &values))
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(PathBuf::from(name));
    }
    Ok(written)
}

/// Replaces every `{{key}}` of the template.
fn render(template: &str, values: &[(&str, String)]) -> String {
    values
        .iter()
        .fold(template.to_owned(), |text, (key, value)| {
            text.replace(&format!("{{{{{key}}}}}"), value)
        })
}

/// A benchmark slug (also the npm and Python package name): lowercase letters, digits and
/// dashes.
fn slug(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "task".to_owned()
    } else {
        slug.to_owned()
    }
}

/// A crate name for the slug (it must not start with a digit).
fn crate_name(slug: &str) -> String {
    if slug.starts_with(|c: char| c.is_ascii_digit()) {
        format!("task-{slug}")
    } else {
        slug.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_dashed() {
        assert_eq!(slug("My Task_2"), "my-task-2");
        assert_eq!(slug("--Äx--"), "x");
        assert_eq!(slug("!!!"), "task");
        assert_eq!(crate_name("2fast"), "task-2fast");
    }

    #[test]
    fn every_placeholder_of_every_template_is_filled() {
        for lang in [Lang::Rust, Lang::Js, Lang::Ts, Lang::Python] {
            let dir = tempfile::TempDir::new().unwrap();
            let project = dir.path().join("My Bench");
            let files = create(&project, lang).unwrap();
            assert!(files.contains(&PathBuf::from("README.md")), "{lang:?}");
            for file in files {
                let text = std::fs::read_to_string(project.join(&file)).unwrap();
                assert!(!text.contains("{{"), "{lang:?} {}: {text}", file.display());
                assert!(!text.contains("}}"), "{lang:?} {}: {text}", file.display());
            }
            let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
            assert!(readme.starts_with("# My Bench\n"), "{readme}");
        }
    }

    #[test]
    fn a_non_empty_directory_is_refused() {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("x"), "").unwrap();
        let error = create(dir.path(), Lang::Js).unwrap_err().to_string();
        assert!(error.contains("already exists and is not empty"), "{error}");
    }
}
