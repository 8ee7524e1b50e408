//! Where the guest SDKs are. The binary carries their sources (see `build.rs`) and unpacks
//! them once per SDK content into `<cache>/sdk/<version>-<digest>/guest-sdk/`, so task
//! projects never depend on the checkout bench was built from; `BENCH_SDK_DIR` (a checkout
//! of this repository) points elsewhere instead.

use super::cache;
use anyhow::{bail, Context as _, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The embedded SDK sources: paths relative to `guest-sdk/`, and contents.
const FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/guest_sdk_files.rs"));

/// A folder holding the three SDKs under `guest-sdk/`.
#[derive(Debug, Clone)]
pub(crate) struct Sdk {
    root: PathBuf,
}

impl Sdk {
    /// `BENCH_SDK_DIR` once it is known to hold all three SDKs (else an error naming it),
    /// or the embedded SDKs, unpacked into the cache when they are not there yet.
    pub(crate) fn locate() -> Result<Self> {
        let root = match std::env::var_os("BENCH_SDK_DIR").filter(|dir| !dir.is_empty()) {
            Some(dir) => checked(PathBuf::from(dir))?,
            // Canonical, as projects name it: a relative BENCH_CACHE_DIR still works later.
            None => std::fs::canonicalize(unpacked(&cache::dir()?.join("sdk"))?)?,
        };
        Ok(Self { root })
    }

    /// The Rust SDK crate (`bench-guest`).
    pub(crate) fn rust(&self) -> PathBuf {
        self.root.join("guest-sdk")
    }

    /// The JavaScript/TypeScript SDK package (`@bench/task`).
    pub(crate) fn js(&self) -> PathBuf {
        self.root.join("guest-sdk").join("js")
    }

    /// The Python SDK (the `bench_task` package's parent directory).
    pub(crate) fn python(&self) -> PathBuf {
        self.root.join("guest-sdk").join("python")
    }
}

/// Puts back the unpacked SDKs that a project's manifest (`Cargo.toml`, `package.json`) names
/// when they are gone, e.g. after bench's cache was cleared: this bench's own SDKs are
/// unpacked again where the project expects them; another bench's are an error naming the
/// path this bench's SDK has. Paths outside an SDK cache are left to the build tool.
pub(crate) fn restore_for(manifest: &Path) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return Ok(());
    };
    // Every other piece between double quotes is a TOML or JSON string.
    for quoted in text.split('"').skip(1).step_by(2) {
        let path = Path::new(quoted.strip_prefix("file:").unwrap_or(quoted));
        if !path.is_absolute() || path.exists() {
            continue;
        }
        let Some(root) = unpacked_root_of(path) else {
            continue;
        };
        let (Some(sdk_cache), Some(name)) = (root.parent(), root.file_name()) else {
            continue;
        };
        if name.to_str() == Some(unpacked_name().as_str()) {
            unpacked(sdk_cache)?;
            continue;
        }
        let ours = Sdk::locate()?.root.join(path.strip_prefix(root)?);
        bail!(
            "{} uses the bench SDK at {}, which no longer exists (bench's cache was cleared) and \
             is not this bench's version: point it at {}",
            manifest.display(),
            path.display(),
            ours.display()
        );
    }
    Ok(())
}

/// The folder an unpacked SDK path lies in (`<cache>/sdk/<version>-<digest>` above its
/// `guest-sdk/`), if it is one.
fn unpacked_root_of(path: &Path) -> Option<&Path> {
    path.ancestors().find(|ancestor| {
        let in_sdk_cache = ancestor.parent().and_then(Path::file_name) == Some("sdk".as_ref());
        let named_like_one = ancestor
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.rsplit_once('-'))
            .is_some_and(|(_, digest)| {
                digest.len() == DIGEST_LENGTH && digest.bytes().all(|b| b.is_ascii_hexdigit())
            });
        in_sdk_cache && named_like_one && path.starts_with(ancestor.join("guest-sdk"))
    })
}

/// `BENCH_SDK_DIR`, canonical, when it holds every SDK.
fn checked(dir: PathBuf) -> Result<PathBuf> {
    let root = std::fs::canonicalize(&dir).unwrap_or(dir);
    let missing = missing_sdks(&root);
    if !missing.is_empty() {
        bail!(
            "BENCH_SDK_DIR ({}) is not a bench checkout: it has no {}; set BENCH_SDK_DIR to the \
             root of a bench repository checkout",
            root.display(),
            missing.join(", ")
        );
    }
    Ok(root)
}

/// The SDK files `root` lacks.
fn missing_sdks(root: &Path) -> Vec<&'static str> {
    [
        "guest-sdk/Cargo.toml",
        "guest-sdk/js/package.json",
        "guest-sdk/python/bench_task",
    ]
    .into_iter()
    .filter(|file| !root.join(file).exists())
    .collect()
}

/// The embedded SDKs' folder under `sdk_cache`, unpacked first when missing
/// ([`cache::fill_once`]).
fn unpacked(sdk_cache: &Path) -> Result<PathBuf> {
    let root = sdk_cache.join(unpacked_name());
    cache::fill_once(&root, |staging| {
        for (name, bytes) in FILES {
            let path = staging.join("guest-sdk").join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot unpack the SDKs into {}", root.display()))?;
    Ok(root)
}

/// The name of the folder the embedded SDKs unpack into: `<version>-<digest>`.
fn unpacked_name() -> String {
    format!("{}-{}", env!("CARGO_PKG_VERSION"), digest())
}

/// How many hex digits of the sources' digest name their folder.
const DIGEST_LENGTH: usize = 12;

/// The first [`DIGEST_LENGTH`] hex digits of a digest of the embedded sources: a bench with
/// other SDK sources (even of the same version) unpacks beside this one.
fn digest() -> String {
    let mut hasher = Sha256::new();
    for (name, bytes) in FILES {
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hex::encode(hasher.finalize())[..DIGEST_LENGTH].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_checkout_holds_every_sdk_and_an_empty_folder_none() {
        let here = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        assert!(missing_sdks(&here).is_empty());
        let empty = tempfile::TempDir::new().unwrap();
        assert_eq!(
            missing_sdks(empty.path()),
            [
                "guest-sdk/Cargo.toml",
                "guest-sdk/js/package.json",
                "guest-sdk/python/bench_task"
            ]
        );
    }

    #[test]
    fn the_binary_carries_the_sdk_sources_and_nothing_else() {
        let names: Vec<&str> = FILES.iter().map(|(name, _)| *name).collect();
        for expected in [
            "Cargo.toml",
            "src/lib.rs",
            "wit/task.wit",
            "js/package.json",
            "js/src/index.js",
            "python/bench_task/__init__.py",
        ] {
            assert!(names.contains(&expected), "{expected} missing: {names:?}");
        }
        for name in &names {
            assert!(
                !name.contains("__pycache__")
                    && !name.contains("node_modules")
                    && !name.starts_with("target/"),
                "{name}"
            );
        }
        let task_wit = FILES
            .iter()
            .find(|(name, _)| *name == "wit/task.wit")
            .unwrap();
        assert_eq!(task_wit.1, include_bytes!("../../../../wit/task.wit"));
    }

    #[test]
    fn the_unpacked_crate_manifest_stands_alone() {
        let (_, manifest) = FILES
            .iter()
            .find(|(name, _)| *name == "Cargo.toml")
            .unwrap();
        let manifest = std::str::from_utf8(manifest).unwrap();
        assert!(!manifest.contains(".workspace"), "{manifest}");
        assert!(
            manifest.contains(&format!("version = \"{}\"\n", env!("CARGO_PKG_VERSION"))),
            "{manifest}"
        );
        assert!(manifest.contains("\nedition = \""), "{manifest}");
        assert!(manifest.contains("name = \"bench-guest\""), "{manifest}");
    }

    #[test]
    fn unpacking_writes_every_sdk_once() {
        let cache = tempfile::TempDir::new().unwrap();
        let root = unpacked(cache.path()).unwrap();
        assert!(missing_sdks(&root).is_empty());
        let lib = root.join("guest-sdk/src/lib.rs");
        assert_eq!(
            std::fs::read(&lib).unwrap(),
            include_bytes!("../../../../guest-sdk/src/lib.rs")
        );
        std::fs::write(&lib, "changed").unwrap();
        assert_eq!(unpacked(cache.path()).unwrap(), root);
        assert_eq!(std::fs::read(&lib).unwrap(), b"changed", "unpacked twice");
        let entries = std::fs::read_dir(cache.path()).unwrap().count();
        assert_eq!(entries, 1, "a staging folder was left behind");
    }

    #[test]
    fn a_cleared_cache_is_refilled_for_a_project_that_names_it() {
        let dir = tempfile::TempDir::new().unwrap();
        let sdk_cache = dir.path().join("sdk");
        let root = sdk_cache.join(unpacked_name());
        let manifest = dir.path().join("package.json");
        let js = root.join("guest-sdk/js");
        let elsewhere = dir.path().join("elsewhere/guest-sdk");
        std::fs::write(
            &manifest,
            format!(
                "{{\"devDependencies\": {{\"@bench/task\": \"file:{}\", \"x\": \"{}\"}}}}",
                js.display(),
                elsewhere.display()
            ),
        )
        .unwrap();
        restore_for(&manifest).unwrap();
        assert!(missing_sdks(&root).is_empty());
        assert!(
            !elsewhere.exists(),
            "a path outside the SDK cache was written"
        );
    }

    #[test]
    fn another_bench_version_s_cleared_sdk_is_an_error_naming_both_paths() {
        let dir = tempfile::TempDir::new().unwrap();
        let gone = dir.path().join("sdk/0.0.1-0123456789ab/guest-sdk");
        let manifest = dir.path().join("Cargo.toml");
        let text = format!(
            "[dependencies]\nbench-guest = {{ path = \"{}\" }}\n",
            gone.display()
        );
        std::fs::write(&manifest, text).unwrap();
        let error = restore_for(&manifest).unwrap_err().to_string();
        assert!(error.contains(&gone.display().to_string()), "{error}");
        let ours = Sdk::locate().unwrap().rust();
        assert!(
            error.ends_with(&format!("point it at {}", ours.display())),
            "{error}"
        );
        assert!(!gone.exists());
    }

    #[test]
    fn a_wrong_sdk_dir_names_what_it_lacks() {
        let empty = tempfile::TempDir::new().unwrap();
        let error = checked(empty.path().to_owned()).unwrap_err().to_string();
        assert!(error.starts_with("BENCH_SDK_DIR ("), "{error}");
        assert!(error.contains("it has no guest-sdk/Cargo.toml"), "{error}");
    }
}
