//! Headless Chromium for the browser tests: `browser.mjs` (playwright-core driving the
//! system `chromium`) opens pages and answers with what they show.

use super::root;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// Runs one browser job (see `browser.mjs`) and returns its answer.
pub(crate) fn browse(job: &Value) -> Value {
    let root = root();
    assert!(
        root.join("node_modules").join("playwright-core").is_dir(),
        "playwright-core is missing: run `npm ci` at the repository root"
    );
    let output = Command::new("node")
        .arg(root.join("tests/e2e/support/browser.mjs"))
        .arg(job.to_string())
        .current_dir(&root)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the browser failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The directory a browser test writes its screenshots to (kept after the test, under
/// `target/tmp`).
pub(crate) fn screenshots(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("screenshots")
        .join(test);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
