//! Where the guest SDKs are: `BENCH_SDK_DIR` (a checkout of this repository), else the source
//! tree this binary was built from. Task projects reference them by path until the SDKs are
//! published to registries.

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};

/// The repository root holding `guest-sdk/`.
pub(crate) fn root() -> PathBuf {
    let root = match std::env::var_os("BENCH_SDK_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")),
    };
    std::fs::canonicalize(&root).unwrap_or(root)
}

/// The SDK root, once it is known to hold all three SDKs; else an error naming where bench
/// looked and how to point it elsewhere (`bench new` checks before writing a project).
pub(crate) fn checked_root() -> Result<PathBuf> {
    let root = root();
    let missing = missing_sdks(&root);
    if missing.is_empty() {
        return Ok(root);
    }
    let place = match std::env::var_os("BENCH_SDK_DIR").filter(|dir| !dir.is_empty()) {
        Some(_) => format!("BENCH_SDK_DIR ({})", root.display()),
        None => format!("{} (the checkout bench was built from)", root.display()),
    };
    bail!(
        "{place} is not a bench checkout: it has no {}; set BENCH_SDK_DIR to the root of a \
         bench repository checkout",
        missing.join(", ")
    )
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

/// The Rust SDK crate (`bench-guest`).
pub(crate) fn rust() -> PathBuf {
    root().join("guest-sdk")
}

/// The JavaScript/TypeScript SDK package (`@bench/task`).
pub(crate) fn js() -> PathBuf {
    root().join("guest-sdk").join("js")
}

/// The Python SDK (the `bench_task` package's parent directory).
pub(crate) fn python() -> PathBuf {
    root().join("guest-sdk").join("python")
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
}
