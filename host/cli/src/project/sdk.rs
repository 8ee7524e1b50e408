//! Where the guest SDKs are: `BENCH_SDK_DIR` (a checkout of this repository), else the source
//! tree this binary was built from. Task projects reference them by path until the SDKs are
//! published to registries.

use std::path::PathBuf;

/// The repository root holding `guest-sdk/`.
pub(crate) fn root() -> PathBuf {
    let root = match std::env::var_os("BENCH_SDK_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")),
    };
    std::fs::canonicalize(&root).unwrap_or(root)
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
