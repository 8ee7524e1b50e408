//! End-to-end: what reaches a platform is the truth about a run — runs that share an id
//! stay apart, runs cut short are delivered as partial — and a slow or silent platform never
//! holds a run up.

use crate::support::{
    bench::{run_bench, run_command},
    guests::example,
    platform::{platform_bench, run_id, Server},
    results::{read_json, records},
};
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;

/// `bench run rust-hello --out <out>`, kept local.
fn local_run(cwd: &Path, out: &str) {
    let hello = example("rust-hello");
    let run = run_bench(cwd, &["run", hello.to_str().unwrap(), "--out", out]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

#[test]
fn two_runs_forced_to_one_id_are_both_stored() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    local_run(dir.path(), "first");
    local_run(dir.path(), "second");
    let first_id = read_json(&dir.path().join("first/run.json"))["runId"].clone();
    let uuid = first_id.as_str().unwrap();
    assert_eq!(uuid.len(), 36, "a UUID: {uuid}");
    assert_eq!(&uuid[14..15], "7", "version 7: {uuid}");
    let second_manifest = dir.path().join("second/run.json");
    let mut manifest = read_json(&second_manifest);
    assert_ne!(manifest["runId"], first_id);
    manifest["runId"] = first_id;
    std::fs::write(&second_manifest, manifest.to_string()).unwrap();

    let upload = |out: &str| {
        let run = run_command(
            platform_bench(dir.path(), &server.url(), &server.key).args(["upload", out]),
        );
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
        assert!(
            run.stdout
                .contains("Delivered 6 record(s); 0 were already on the platform."),
            "{}",
            run.stdout
        );
        run_id(&run)
    };
    let (first, second) = (upload("first"), upload("second"));
    assert_ne!(first, second, "two platform runs");
    for (platform_run, out) in [(first, "first"), (second, "second")] {
        let stored: Vec<Value> = server.records("rust-hello", &platform_run);
        assert_eq!(stored, records(&dir.path().join(out)), "{out}");
    }
}
