//! End-to-end: a JavaScript task (tests/guests-js/node) imports Node's built-in modules by
//! bare and `node:` names, from ES modules and CommonJS alike, and finds Node's globals;
//! each check compares what the sandbox answers with what Node answers. Modules the sandbox
//! cannot offer import fine and fail when called; node:http reaches a local server through
//! the sandbox's fetch and is refused a host the config does not allow.

use crate::support::{
    bench::run_bench,
    fake_api::{FakeApi, Response},
    guests::built_project,
    results::records,
    root,
};
use serde_json::{json, Value};
use std::process::Command;
use tempfile::TempDir;

const PROJECT: &str = "tests/guests-js/node";

/// Runs the task once with `args` and returns the data of its record.
fn run_checks(args: &[&str]) -> Value {
    built_project(PROJECT);
    let dir = TempDir::new().unwrap();
    let path = root().join(PROJECT);
    let mut full = vec!["run", path.to_str().unwrap(), "--out", "results"];
    full.extend_from_slice(args);
    let run = run_bench(dir.path(), &full);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let record = records(&dir.path().join("results")).remove(0);
    assert_eq!(record["status"], "success", "{record}");
    record["data"].clone()
}

#[test]
fn node_modules_and_globals_answer_as_in_node() {
    let api = FakeApi::start(|request| {
        let test_header = request.header("x-test").unwrap_or("-");
        let body = format!(
            "{} {} x-test={test_header} {}",
            request.method,
            request.target,
            String::from_utf8_lossy(&request.body)
        );
        Response::with_status(200, "text/plain", body)
    });
    let data = run_checks(&["--url", &format!("{}/", api.origin())]);
    assert_eq!(data["failures"], json!({}), "{data}");
    let ran = data["ran"].as_array().unwrap();
    for check in [
        "buffer",
        "events",
        "stream",
        "web_streams",
        "xml",
        "unavailable",
        "crypto",
        "zlib",
        "subtle",
        "http",
    ] {
        assert!(ran.contains(&json!(check)), "{check} did not run: {data}");
    }
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(
        (requests[0].method.as_str(), requests[0].target.as_str()),
        ("POST", "/echo?q=1")
    );
    assert_eq!(requests[0].body, b"body");
    assert_eq!(
        requests[0].header("expect"),
        None,
        "fetch sends the body without waiting"
    );
}

/// Every built-in module of the Node on PATH (but its internal `_http_*`/`_tls_*` ones and the
/// `node:`-only `test`, `sqlite`, `sea`) has a module in the SDK, so no package's import of one
/// fails the bundle.
#[test]
fn every_node_built_in_module_has_a_module_in_the_sdk() {
    let output = Command::new("node")
        .args(["-p", "require('module').builtinModules.join('\\n')"])
        .output()
        .expect("node runs");
    let names = String::from_utf8(output.stdout).unwrap();
    let sdk = root().join("guest-sdk/js/src/node");
    let missing: Vec<&str> = names
        .lines()
        .filter(|name| !name.starts_with("_http_") && !name.starts_with("_tls_"))
        .filter(|name| !name.starts_with("node:") && *name != "_stream_wrap")
        .filter(|name| !sdk.join(format!("{name}.cjs")).is_file())
        .collect();
    assert!(missing.is_empty(), "no SDK module for {missing:?}");
}

/// The SDK's vendored polyfills are what scripts/vendor-node-polyfills.sh makes of the pinned
/// packages (nobody edited them by hand, and a version bump was re-vendored).
#[test]
fn the_vendored_polyfills_are_the_pinned_packages() {
    crate::support::guests::ensure_js_toolchain();
    let out = TempDir::new().unwrap();
    let status = Command::new("bash")
        .arg(root().join("scripts/vendor-node-polyfills.sh"))
        .arg(out.path())
        .status()
        .expect("bash runs");
    assert!(status.success());
    let vendored = root().join("guest-sdk/js/src/vendor");
    let mut names: Vec<_> = std::fs::read_dir(&vendored)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    names.sort();
    let mut made: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    made.sort();
    assert_eq!(names, made);
    for name in names {
        let committed = std::fs::read(vendored.join(&name)).unwrap();
        let rebuilt = std::fs::read(out.path().join(&name)).unwrap();
        assert!(
            committed == rebuilt,
            "{name:?} differs from what the script makes"
        );
    }
}
