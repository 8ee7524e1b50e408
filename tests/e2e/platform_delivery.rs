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

/// The run, and the workers of each participant, as the server holds them.
fn stored_run(server: &Server, id: &str) -> (Value, Vec<Value>) {
    let (status, run) = server.get(&format!("/benchmarks/rust-hello/runs/{id}"));
    assert_eq!(status, 200, "{run}");
    let workers = ["alpha", "beta"]
        .iter()
        .map(|name| {
            let (_, workers) = server.get(&format!(
                "/benchmarks/rust-hello/runs/{id}/participants/{name}/workers"
            ));
            workers["items"][0].clone()
        })
        .collect();
    (run["run"].clone(), workers)
}

#[test]
fn a_run_killed_mid_way_is_uploaded_as_interrupted_with_its_counts() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let hello = example("rust-hello");
    let mut child = crate::support::bench::bench(dir.path())
        .args(["run", hello.to_str().unwrap(), "--out", "results"])
        .args(["--stagger-delay-ms", "1000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let results = dir.path().join("results");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(results.join("records.ndjson"))
        .map_or(0, |text| text.lines().count())
        < 1
    {
        assert!(std::time::Instant::now() < deadline, "no records");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let local = records(&results);
    let count = |name: &str| local.iter().filter(|r| r["participant"] == name).count();
    let (alpha, beta) = (count("alpha"), count("beta"));
    assert_eq!((alpha, beta), (1, 0), "killed after alpha's first task");

    let upload = run_command(
        platform_bench(dir.path(), &server.url(), &server.key).args(["upload", "results"]),
    );
    assert_eq!(upload.code, Some(0), "{}\n{}", upload.stdout, upload.stderr);
    assert!(
        upload.stderr.contains(&format!(
            "[bench] {} of 6 planned task(s) are missing (alpha {alpha}/3, beta {beta}/3 recorded): the run was interrupted (run.json has no end time); it is uploaded as interrupted."
        , 6 - alpha - beta)),
        "{}",
        upload.stderr
    );
    let id = run_id(&upload);
    assert_eq!(server.records("rust-hello", &id), local);
    let (run, workers) = stored_run(&server, &id);
    assert_eq!(run["status"], "interrupted");
    assert_eq!(
        (run["plannedTasks"].as_u64(), run["recordedTasks"].as_u64()),
        (Some(6), Some((alpha + beta) as u64))
    );
    for (worker, recorded) in workers.iter().zip([alpha, beta]) {
        assert_eq!(worker["status"], "failed", "{worker}");
        assert_eq!(worker["errorCode"], "Interrupted");
        assert_eq!(
            worker["errorMessage"],
            format!("Interrupted: {recorded} of 3 task(s) recorded")
        );
    }
}

#[test]
fn a_records_file_cut_short_is_uploaded_as_partial() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    local_run(dir.path(), "results");
    let path = dir.path().join("results/records.ndjson");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6);
    let cut = format!(
        "{}\n{}",
        lines[..4].join("\n"),
        &lines[4][..lines[4].len() / 2]
    );
    std::fs::write(&path, &cut).unwrap();

    let upload = run_command(
        platform_bench(dir.path(), &server.url(), &server.key).args(["upload", "results"]),
    );
    assert_eq!(upload.code, Some(0), "{}\n{}", upload.stdout, upload.stderr);
    assert!(
        upload.stderr.contains(&format!(
            "{} line 5 is cut short (it has no end); it is not uploaded.",
            Path::new("results/records.ndjson").display()
        )),
        "{}",
        upload.stderr
    );
    assert!(
        upload.stderr.contains("[bench] 2 of 6 planned task(s) are missing (alpha 3/3, beta 1/3 recorded): records.ndjson holds fewer records than the run planned; it is uploaded as partial."),
        "{}",
        upload.stderr
    );
    assert!(upload
        .stdout
        .contains("Delivered 4 record(s); 0 were already on the platform."));
    let id = run_id(&upload);
    let (run, workers) = stored_run(&server, &id);
    assert_eq!(run["status"], "partial");
    assert_eq!(
        (run["plannedTasks"].as_u64(), run["recordedTasks"].as_u64()),
        (Some(6), Some(4))
    );
    assert_eq!(workers[0]["status"], "completed");
    assert_eq!(workers[1]["errorCode"], "Partial");
    assert_eq!(
        workers[1]["errorMessage"],
        "Partial: 1 of 3 task(s) recorded"
    );

    // A line that is not a record stops the upload, named by its number.
    let garbage = format!("{}\n{{oops\n{}\n", lines[..2].join("\n"), lines[2]);
    local_run(dir.path(), "other");
    std::fs::write(dir.path().join("other/records.ndjson"), garbage).unwrap();
    let refused = run_command(
        platform_bench(dir.path(), &server.url(), &server.key).args(["upload", "other"]),
    );
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert_eq!(
        refused.stderr.trim_end(),
        format!(
            "Upload failed: {} line 3 is not a record: key must be a string (column 2)",
            Path::new("other/records.ndjson").display()
        )
    );
}
