//! Ahead-of-time compilation of JavaScript tasks: componentize-js' `--aot` runs weval (the
//! WebAssembly partial evaluator), which specialises the JavaScript engine's interpreter on
//! the task's code, when a weval binary is installed. bench never lets componentize-js
//! download one (builds stay offline): it passes the binary it found, or builds without AOT.

use anyhow::{bail, Result};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variable naming the weval binary to use, or `off` to build JavaScript
/// tasks without AOT.
pub(super) const WEVAL_ENV: &str = "BENCH_WEVAL";
/// How to install the weval version componentize-js 0.23 is made for.
const INSTALL_WEVAL: &str = "cargo install weval --version 0.5.0 --locked";
/// The value of [`WEVAL_ENV`] that turns AOT off.
const OFF: &str = "off";

/// How a JavaScript task's component is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum JsCompilation {
    /// Ahead of time, with this weval binary.
    Aot(PathBuf),
    /// The JavaScript engine's interpreter runs the task's bytecode.
    Interpreted(NoAot),
}

/// Why a JavaScript task is built without AOT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NoAot {
    /// The project's `package.json` has `"bench": { "aot": false }`.
    ProjectOption,
    /// `BENCH_WEVAL=off`.
    TurnedOff,
    /// No weval binary: neither `BENCH_WEVAL` nor `weval` on `PATH`.
    NotFound,
}

impl JsCompilation {
    /// Decides from the project's option and this process's environment (`BENCH_WEVAL`,
    /// then `weval` on `PATH`).
    pub(super) fn choose(project_allows_aot: bool) -> Result<Self> {
        Self::choose_in(
            project_allows_aot,
            std::env::var_os(WEVAL_ENV).as_deref(),
            std::env::var_os("PATH").as_deref(),
        )
    }

    fn choose_in(
        project_allows_aot: bool,
        weval_env: Option<&OsStr>,
        path: Option<&OsStr>,
    ) -> Result<Self> {
        if !project_allows_aot {
            return Ok(Self::Interpreted(NoAot::ProjectOption));
        }
        match weval_env.filter(|value| !value.is_empty()) {
            Some(value) if value == OFF => Ok(Self::Interpreted(NoAot::TurnedOff)),
            Some(binary) => {
                let binary = Path::new(binary);
                if !binary.is_file() {
                    bail!(
                        "{WEVAL_ENV}={} is not a file: set it to a weval binary \
                         ({INSTALL_WEVAL}), or to `{OFF}` to build JavaScript tasks without AOT",
                        binary.display()
                    );
                }
                Ok(Self::Aot(binary.to_owned()))
            }
            None => Ok(path
                .and_then(|path| on_path(path, "weval"))
                .map_or(Self::Interpreted(NoAot::NotFound), Self::Aot)),
        }
    }

    /// What the build key records of this choice: whether AOT is used and, if so, which
    /// weval binary (its path, size and modification time, so a reinstall rebuilds).
    pub(super) fn build_key(&self) -> String {
        match self {
            Self::Aot(weval) => {
                let metadata = std::fs::metadata(weval).ok();
                let size = metadata.as_ref().map(std::fs::Metadata::len);
                let modified = metadata.and_then(|metadata| metadata.modified().ok());
                format!("js-aot weval {} {size:?} {modified:?}", weval.display())
            }
            Self::Interpreted(_) => "js-interpreted".to_owned(),
        }
    }

    /// The one-line note shown when AOT was wanted but no weval binary was found.
    pub(super) fn note(&self) -> Option<String> {
        (self == &Self::Interpreted(NoAot::NotFound)).then(|| {
            format!(
                "note: weval not found, so this JavaScript task is built without ahead-of-time \
                 compilation (install it with `{INSTALL_WEVAL}`, or set {WEVAL_ENV} to a weval \
                 binary)"
            )
        })
    }
}

/// The first executable file `name` in the folders of a `PATH` value.
fn on_path(path: &OsStr, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(file)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::os::unix::fs::PermissionsExt as _;

    /// A `PATH`-like value of these folders.
    fn path_of(dirs: &[&Path]) -> OsString {
        std::env::join_paths(dirs).unwrap()
    }

    fn install_fake_weval(dir: &Path) -> PathBuf {
        let weval = dir.join("weval");
        std::fs::write(&weval, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&weval, std::fs::Permissions::from_mode(0o755)).unwrap();
        weval
    }

    #[test]
    fn weval_on_path_is_used_unless_turned_off() {
        let empty = tempfile::TempDir::new().unwrap();
        let bin = tempfile::TempDir::new().unwrap();
        let weval = install_fake_weval(bin.path());
        let path = path_of(&[empty.path(), bin.path()]);
        let choose = |allowed, env: Option<&str>| {
            JsCompilation::choose_in(allowed, env.map(OsStr::new), Some(&path)).unwrap()
        };
        assert_eq!(choose(true, None), JsCompilation::Aot(weval.clone()));
        assert_eq!(choose(true, Some("")), JsCompilation::Aot(weval));
        assert_eq!(
            choose(true, Some("off")),
            JsCompilation::Interpreted(NoAot::TurnedOff)
        );
        assert_eq!(
            choose(false, None),
            JsCompilation::Interpreted(NoAot::ProjectOption)
        );
    }

    #[test]
    fn bench_weval_names_the_binary_and_a_wrong_one_is_explained() {
        let bin = tempfile::TempDir::new().unwrap();
        let weval = install_fake_weval(bin.path());
        let chosen =
            JsCompilation::choose_in(true, Some(weval.as_os_str()), Some(OsStr::new(""))).unwrap();
        assert_eq!(chosen, JsCompilation::Aot(weval));
        let missing = bin.path().join("nothing");
        let error = JsCompilation::choose_in(true, Some(missing.as_os_str()), None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("BENCH_WEVAL="), "{error}");
        assert!(error.contains("is not a file"), "{error}");
        assert!(error.contains(INSTALL_WEVAL), "{error}");
    }

    #[test]
    fn without_weval_the_interpreter_build_is_noted() {
        let empty = tempfile::TempDir::new().unwrap();
        let bin = tempfile::TempDir::new().unwrap();
        std::fs::write(bin.path().join("weval"), "not executable").unwrap();
        let path = path_of(&[empty.path(), bin.path()]);
        let chosen = JsCompilation::choose_in(true, None, Some(&path)).unwrap();
        assert_eq!(chosen, JsCompilation::Interpreted(NoAot::NotFound));
        let note = chosen.note().unwrap();
        assert!(note.starts_with("note: weval not found"), "{note}");
        assert!(note.contains(INSTALL_WEVAL), "{note}");
        assert_eq!(JsCompilation::Interpreted(NoAot::TurnedOff).note(), None);
    }

    #[test]
    fn the_build_key_tells_aot_from_the_interpreter() {
        let bin = tempfile::TempDir::new().unwrap();
        let weval = install_fake_weval(bin.path());
        let aot = JsCompilation::Aot(weval.clone()).build_key();
        assert!(aot.starts_with("js-aot weval "), "{aot}");
        assert_ne!(aot, JsCompilation::Interpreted(NoAot::NotFound).build_key());
        std::fs::write(&weval, "#!/bin/sh\n# another build\n").unwrap();
        assert_ne!(
            JsCompilation::Aot(weval).build_key(),
            aot,
            "size is part of it"
        );
        assert_eq!(
            JsCompilation::Interpreted(NoAot::NotFound).build_key(),
            JsCompilation::Interpreted(NoAot::TurnedOff).build_key()
        );
    }
}
