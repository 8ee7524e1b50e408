//! End-to-end: the compiled-component cache cannot be swapped or corrupted. Every entry is
//! bound to its component's bytes and the engine and authenticated with a per-user key kept
//! outside the cache; an entry copied from another component, or changed, is recompiled with
//! a one-line warning and never run.

use crate::support::bench::{bench, run_command, Run};
use crate::support::guests::test_guest;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A cache folder and key of the test's own (the shared cache stays untouched).
struct PrivateCache {
    dir: TempDir,
}

impl PrivateCache {
    fn new() -> Self {
        Self {
            dir: TempDir::new().unwrap(),
        }
    }

    fn check(&self, component: &Path) -> Run {
        run_command(
            bench(self.dir.path())
                .args(["check", component.to_str().unwrap()])
                .env("BENCH_CACHE_DIR", self.dir.path().join("cache"))
                .env("BENCH_CACHE_KEY", self.dir.path().join("config/cache.key")),
        )
    }

    /// The cache entry of `component`.
    fn entry(&self, component: &Path) -> PathBuf {
        let digest = hex::encode(Sha256::digest(std::fs::read(component).unwrap()));
        std::fs::read_dir(self.dir.path().join("cache"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| {
                let name = path.file_name().unwrap().to_string_lossy();
                name.starts_with(&digest) && name.ends_with(".acwasm")
            })
            .unwrap_or_else(|| panic!("no cache entry for {}", component.display()))
    }
}

const WARNING: &str = "failed its integrity check (not written by this user's bench for this \
                       component and engine, or changed since): compiling the component again";

fn assert_checked(run: &Run, benchmark: &str) {
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains(benchmark), "{}", run.stdout);
}

#[test]
fn a_swapped_or_corrupted_cache_entry_is_recompiled_never_run() {
    let sleeper = test_guest("sleeper");
    let paced = test_guest("paced");
    let cache = PrivateCache::new();
    assert_checked(&cache.check(&sleeper), "Benchmark: Sleeper (sleeper)");
    assert_checked(&cache.check(&paced), "Benchmark: Paced (paced)");
    let key = std::fs::metadata(cache.dir.path().join("config/cache.key")).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&key.permissions()) & 0o777,
        0o600
    );

    // The compiled code of one component put in the place of another's.
    let paced_entry = cache.entry(&paced);
    std::fs::copy(cache.entry(&sleeper), &paced_entry).unwrap();
    let swapped = cache.check(&paced);
    assert_checked(&swapped, "Benchmark: Paced (paced)");
    let warnings: Vec<&str> = swapped
        .stderr
        .lines()
        .filter(|line| line.contains(WARNING))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", swapped.stderr);
    assert!(
        warnings[0].starts_with(&format!(
            "warning: the cached compiled component {}",
            paced_entry.display()
        )),
        "{}",
        warnings[0]
    );

    // Machine code changed in place.
    let mut bytes = std::fs::read(&paced_entry).unwrap();
    let middle = bytes.len() / 2;
    for byte in &mut bytes[middle..middle + 64] {
        *byte = 0xcc;
    }
    std::fs::write(&paced_entry, bytes).unwrap();
    let corrupted = cache.check(&paced);
    assert_checked(&corrupted, "Benchmark: Paced (paced)");
    assert!(corrupted.stderr.contains(WARNING), "{}", corrupted.stderr);

    // The rewritten entry is trusted again.
    let again = cache.check(&paced);
    assert_checked(&again, "Benchmark: Paced (paced)");
    assert!(!again.stderr.contains("warning"), "{}", again.stderr);
}

#[test]
fn a_cache_from_elsewhere_is_not_trusted() {
    let sleeper = test_guest("sleeper");
    let theirs = PrivateCache::new();
    assert_checked(&theirs.check(&sleeper), "Benchmark: Sleeper (sleeper)");
    let ours = PrivateCache::new();
    std::fs::create_dir_all(ours.dir.path().join("cache")).unwrap();
    let entry = theirs.entry(&sleeper);
    std::fs::copy(
        &entry,
        ours.dir
            .path()
            .join("cache")
            .join(entry.file_name().unwrap()),
    )
    .unwrap();
    let run = ours.check(&sleeper);
    assert_checked(&run, "Benchmark: Sleeper (sleeper)");
    assert!(run.stderr.contains(WARNING), "{}", run.stderr);
}
