//! Embeds the guest SDK sources (`guest-sdk/`: the Rust crate, the JS/TS package and the
//! Python package) in the binary, so `bench new` and the builds never need the checkout
//! bench was built from. Only sources go in: build output, installed dependencies, caches
//! and hidden files stay out. The crate's manifest is written standalone (the workspace's
//! `[workspace.package]` values filled in), as `cargo package` would.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Folders that never hold SDK sources.
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "__pycache__"];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let repository = manifest_dir.join("../..");
    let sdk = repository.join("guest-sdk");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());

    let mut files = Vec::new();
    collect(&sdk, &sdk, &mut files);
    files.sort();

    let workspace_manifest = repository.join("Cargo.toml");
    println!("cargo:rerun-if-changed={}", workspace_manifest.display());
    let crate_manifest =
        standalone_manifest(&read(&sdk.join("Cargo.toml")), &read(&workspace_manifest));
    let crate_manifest_path = out_dir.join("guest-sdk-Cargo.toml");
    std::fs::write(&crate_manifest_path, crate_manifest).unwrap();

    let mut code = String::from("&[\n");
    for relative in &files {
        let source = if relative == Path::new("Cargo.toml") {
            crate_manifest_path.clone()
        } else {
            sdk.join(relative)
        };
        let name = relative
            .components()
            .map(|part| part.as_os_str().to_str().expect("SDK paths are UTF-8"))
            .collect::<Vec<_>>()
            .join("/");
        writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            source.canonicalize().unwrap()
        )
        .unwrap();
    }
    code.push_str("]\n");
    std::fs::write(out_dir.join("guest_sdk_files.rs"), code).unwrap();
}

/// Collects the source files under `dir` (following symlinks, as `guest-sdk/wit` is one),
/// relative to `root`, and asks cargo to rerun when any of them or any folder changes.
fn collect(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    println!("cargo:rerun-if-changed={}", dir.display());
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || name.ends_with(".pyc") {
            continue;
        }
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str()) {
                collect(root, &path, files);
            }
        } else if path.is_file() {
            println!("cargo:rerun-if-changed={}", path.display());
            files.push(path.strip_prefix(root).unwrap().to_owned());
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The crate manifest with every `<key>.workspace = true` replaced by the workspace's
/// `[workspace.package]` value of that key.
fn standalone_manifest(manifest: &str, workspace: &str) -> String {
    let package_values: Vec<(&str, &str)> = workspace
        .lines()
        .skip_while(|line| line.trim() != "[workspace.package]")
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with('['))
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| (key.trim(), value.trim()))
        .collect();
    let mut standalone = String::new();
    for line in manifest.lines() {
        let inherited = line
            .split_once('=')
            .filter(|(_, value)| value.trim() == "true")
            .and_then(|(key, _)| key.trim().strip_suffix(".workspace"));
        match inherited {
            Some(key) => {
                let value = package_values
                    .iter()
                    .find(|(name, _)| *name == key)
                    .unwrap_or_else(|| panic!("[workspace.package] has no {key}"))
                    .1;
                writeln!(standalone, "{key} = {value}").unwrap();
            }
            None => writeln!(standalone, "{line}").unwrap(),
        }
    }
    standalone
}
