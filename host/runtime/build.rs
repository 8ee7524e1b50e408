//! Records the version of the `wasmtime` crate this build links as `BENCH_WASMTIME_VERSION`,
//! read from the workspace's `Cargo.lock` (which Cargo has resolved before any build script
//! runs), so run manifests and the component cache name the engine that runs the guests.

use cargo_lock::Lockfile;
use std::path::PathBuf;

fn main() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name}"));
    let manifest_dir = PathBuf::from(var("CARGO_MANIFEST_DIR"));
    let lock_path = manifest_dir
        .ancestors()
        .map(|dir| dir.join("Cargo.lock"))
        .find(|path| path.is_file())
        .expect("Cargo writes the workspace's Cargo.lock before it builds");
    let lockfile = Lockfile::load(&lock_path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", lock_path.display()));
    let (name, version) = (var("CARGO_PKG_NAME"), var("CARGO_PKG_VERSION"));
    let this = lockfile
        .packages
        .iter()
        .find(|package| {
            package.name.as_str() == name
                && package.version.to_string() == version
                && package.source.is_none()
        })
        .unwrap_or_else(|| panic!("{} does not list {name} {version}", lock_path.display()));
    let wasmtime = this
        .dependencies
        .iter()
        .find(|dependency| dependency.name.as_str() == "wasmtime")
        .unwrap_or_else(|| panic!("{} does not list {name}'s wasmtime", lock_path.display()));
    println!(
        "cargo:rustc-env=BENCH_WASMTIME_VERSION={}",
        wasmtime.version
    );
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed=build.rs");
}
