//! The JavaScript engine JS tasks are made of: StarlingMonkey, shipped inside componentize-js,
//! with bench's fix for its wasi:http handles.
//!
//! StarlingMonkey (componentize-js 0.23.0) never drops the wasi:http resources of a `fetch`
//! and takes a new pollable for every 8 KiB of body it reads, so an instance that serves task
//! after task gains five handles per fetch plus one per chunk and traps at wasmtime's limit
//! of 100 000 live handles (a task reading 1 MiB per fetch: every ~740 tasks). bench gives
//! componentize-js (`--engine`) a copy of the engine with a handle janitor spliced between
//! the engine and its imports ([`splice`], `janitor.wat`), which drops each handle once the
//! engine can no longer use it, and which has the engine read response bodies in chunks of up
//! to 1 MiB where it asks for 8 KiB. The janitor is written for the engine builds it knows (by
//! digest); any other engine is used as it is, with a note.

#[cfg(test)]
mod janitor_tests;
mod splice;

use anyhow::{Context as _, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The janitor's source (part of JS builds' fingerprint: a change rebuilds them).
pub(super) const JANITOR: &str = include_str!("janitor.wat");

/// The componentize-js release whose engines the janitor is written for.
const FIXED_RELEASE: &str = "0.23.0";

/// The engine builds of that release, by file name in its `lib/`, with their sha256.
const KNOWN_ENGINES: &[(&str, &str)] = &[
    (
        INTERPRETER_ENGINE,
        "6094cd93d966f9bec9b01332db6e0eedbaf22f60b745c9f823f21e33cbd4d365",
    ),
    (
        AOT_ENGINE,
        "a6b0b3e86a05dad31481652cc1261c900ccd8558f5f88a7bc3e7b8a681391f53",
    ),
];
const INTERPRETER_ENGINE: &str = "starlingmonkey_embedding.wasm";
const AOT_ENGINE: &str = "starlingmonkey_embedding_weval.wasm";

/// The engine a JS task is componentized with.
#[derive(Debug)]
pub(super) enum Engine {
    /// The engine with the janitor, written to this file.
    Fixed(PathBuf),
    /// componentize-js's own engine (not one the janitor is written for): this note says so.
    AsShipped(String),
}

/// Writes the janitor-fixed engine of the componentize-js package at `componentize` (the
/// interpreter build, or the AOT one when `aot`) into `dir`.
pub(super) fn engine(componentize: &Path, aot: bool, dir: &Path) -> Result<Engine> {
    let name = if aot { AOT_ENGINE } else { INTERPRETER_ENGINE };
    let shipped = componentize.join("lib").join(name);
    let bytes = std::fs::read(&shipped)
        .with_context(|| format!("cannot read componentize-js' engine {}", shipped.display()))?;
    let digest = hex::encode(Sha256::digest(&bytes));
    if !KNOWN_ENGINES.contains(&(name, digest.as_str())) {
        return Ok(Engine::AsShipped(format!(
            "note: {} is not the engine of componentize-js {FIXED_RELEASE}, so bench's fix for \
             its fetch handles is left out: an instance that makes many fetches may run out of \
             handles (use componentize-js {FIXED_RELEASE})",
            shipped.display()
        )));
    }
    let fixed = splice::with_janitor(&bytes, JANITOR)
        .with_context(|| format!("cannot add the handle janitor to {}", shipped.display()))?;
    let path = dir.join(name);
    std::fs::write(&path, fixed).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(Engine::Fixed(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_engine_is_used_as_shipped_with_a_note() {
        let package = tempfile::TempDir::new().unwrap();
        std::fs::create_dir(package.path().join("lib")).unwrap();
        std::fs::write(
            package.path().join("lib").join(INTERPRETER_ENGINE),
            b"\0asm",
        )
        .unwrap();
        let out = tempfile::TempDir::new().unwrap();
        let Engine::AsShipped(note) = engine(package.path(), false, out.path()).unwrap() else {
            panic!("an unknown engine was patched");
        };
        assert!(note.contains("componentize-js 0.23.0"), "{note}");
        assert!(std::fs::read_dir(out.path()).unwrap().next().is_none());
    }

    #[test]
    fn a_missing_engine_is_an_error_naming_it() {
        let package = tempfile::TempDir::new().unwrap();
        let error = engine(package.path(), true, package.path())
            .unwrap_err()
            .to_string();
        assert!(error.contains(AOT_ENGINE), "{error}");
    }
}
