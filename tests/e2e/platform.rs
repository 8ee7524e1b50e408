//! End-to-end: `bench run` reporting to `bench serve` on 127.0.0.1 (through a recording
//! proxy), in both groupBy modes and as two sibling invocations sharing a `--run-key`;
//! afterwards the server holds exactly the records of `records.ndjson`.

use crate::support::{
    bench::{run_bench, run_command, Run},
    guests::example,
    platform::{platform_bench, run_id, Server},
    proxy::{Exchange, Proxy},
    results::records,
};
use serde_json::{json, Value};
use std::path::Path;
use tempfile::TempDir;

/// A server, a proxy in front of it, and a scratch directory.
struct Platform {
    dir: TempDir,
    server: Server,
    proxy: Proxy,
}

impl Platform {
    fn start() -> Platform {
        let dir = TempDir::new().unwrap();
        // Artifact links point at the proxy too, so it sees every request.
        let proxy = Proxy::start(0);
        let server = Server::start_at(dir.path(), Some(&proxy.url()));
        proxy.forward_to(server.port);
        Platform { dir, server, proxy }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `bench run rust-hello --out <out> <args>` reporting through the proxy.
    fn run(&self, out: &str, args: &[&str]) -> Run {
        self.run_example("rust-hello", out, args)
    }

    /// `bench run <example> --out <out> <args>` reporting through the proxy.
    fn run_example(&self, name: &str, out: &str, args: &[&str]) -> Run {
        let component = example(name);
        let mut command = platform_bench(self.path(), &self.proxy.url(), &self.server.key);
        command.args(["run", component.to_str().unwrap(), "--out", out]);
        command.args(args);
        run_command(&mut command)
    }

    /// A platform CLI command against the server.
    fn cli(&self, args: &[&str]) -> Run {
        let mut command = platform_bench(self.path(), &self.server.url(), &self.server.key);
        command.args(args);
        run_command(&mut command)
    }
}

/// Records sorted by participant then task index (the server keeps arrival order).
fn sorted(mut records: Vec<Value>) -> Vec<Value> {
    records.sort_by_key(|r| {
        (
            r["participant"].as_str().unwrap().to_owned(),
            r["taskIndex"].as_u64(),
        )
    });
    records
}

#[test]
fn participant_mode_reports_every_record_with_upstream_payloads() {
    let platform = Platform::start();
    let run = platform.run("results", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let id = run_id(&run);
    let lines = run.lines();
    let created = lines
        .iter()
        .position(|l| l.starts_with("Run created: "))
        .unwrap();
    assert_eq!(lines[created], format!("Run created: Rust hello #1 ({id})"));
    let dashboard = format!(
        "{}/local/benchmarks/rust-hello/runs/{id}",
        platform.proxy.url()
    );
    assert_eq!(lines[created + 1], format!("View at: {dashboard}"));
    assert_eq!(lines[created + 2], "");
    assert_eq!(
        lines[created + 3],
        "=".repeat(70),
        "the participant banner follows"
    );
    assert!(run
        .stdout
        .contains(&format!("\nAll done. View at: {dashboard}\n")));
    assert!(!run.stdout.contains("Dry run"));

    let local = records(&platform.path().join("results"));
    assert_eq!(local.len(), 6);
    let stored = platform.server.records("rust-hello", &id);
    // Byte for byte: the same keys in the same order.
    assert_eq!(
        serde_json::to_string(&stored).unwrap(),
        serde_json::to_string(&local).unwrap()
    );

    // What the server received, field by field (spec §6.2).
    let upsert = platform.proxy.requests("PUT", "/benchmarks/rust-hello");
    assert_eq!(upsert.len(), 1);
    assert_eq!(upsert[0].json(), json!({"name": "Rust hello"}));
    let create = &platform
        .proxy
        .requests("POST", "/benchmarks/rust-hello/runs")[0]
        .json();
    let keys: Vec<&str> = create
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["totalTasks", "workerCount", "participants", "config"]
    );
    assert_eq!(create["totalTasks"], 3);
    assert_eq!(create["participants"], json!(["alpha", "beta"]));
    assert_eq!(
        create["config"],
        json!({"benchmarkSlug": "rust-hello", "benchmarkName": "Rust hello",
               "phases": [{"name": "cold", "iterations": 1}, {"name": "warm", "iterations": 2}],
               "concurrency": 1, "staggerDelayMs": 0, "groupBy": "participant",
               "participants": ["alpha", "beta"]})
    );
    for plan in platform.proxy.requests("POST", "/workers") {
        assert_eq!(plan.json(), json!({}));
    }
    for claim in platform.proxy.requests("POST", "/workers/claim") {
        assert_eq!(claim.json(), json!({}));
    }
    let batches = platform.proxy.requests("POST", "/events");
    for batch in &batches {
        let body = batch.json();
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["type", "attemptId", "sequenceNumber", "isFinal", "records"]
        );
        assert_eq!(body["type"], "task_results");
    }
    let finals: Vec<Value> = batches
        .iter()
        .map(Exchange::json)
        .filter(|body| body["isFinal"] == true)
        .collect();
    assert_eq!(finals.len(), 2, "one final batch per participant");
    let heartbeat = platform.proxy.requests("POST", "/heartbeat")[0].json();
    let keys: Vec<&str> = heartbeat
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "attemptId",
            "progressDone",
            "progressInFlight",
            "progressErrors",
            "progressTotal"
        ]
    );
    assert_eq!(heartbeat["progressTotal"], 3);
    let completes = platform.proxy.requests("POST", "/complete");
    assert_eq!(completes.len(), 2);
    assert_eq!(
        completes[0].json().as_object().unwrap().len(),
        1,
        "only attemptId"
    );

    // Artifacts: each participant's log and its system metrics.
    let (_, artifacts) = platform
        .server
        .get(&format!("/benchmarks/rust-hello/runs/{id}/artifacts"));
    let kinds: Vec<(&str, &str)> = artifacts["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["kind"].as_str().unwrap(), a["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("coordinator.log", "worker.log"),
            ("system-metrics", "metrics.jsonl"),
            ("coordinator.log", "worker.log"),
            ("system-metrics", "metrics.jsonl"),
        ]
    );
    let log = &artifacts["items"][0];
    let local_log = std::fs::read(platform.path().join("results/logs/alpha.log")).unwrap();
    assert_eq!(log["sizeBytes"], local_log.len());
    assert_eq!(log["metadata"], json!({"sizeBytes": local_log.len()}));
    assert_eq!(log["contentType"], "text/plain");

    // The run is complete, and the read commands show it.
    let shown = platform.cli(&["runs", "show", "rust-hello", &id, "--json"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(shown["status"], "completed");
    let listed = platform.cli(&["runs", "list", "rust-hello"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(listed.lines()[0].starts_with("id"), "{}", listed.stdout);
    assert!(listed.stdout.contains(&id));
    assert!(listed.stdout.contains("completed"));
    let benchmarks = platform.cli(&["benchmarks", "list", "--format", "json"]);
    let benchmarks: Value = serde_json::from_str(&benchmarks.stdout).unwrap();
    assert_eq!(benchmarks[0]["slug"], "rust-hello");
    assert_eq!(benchmarks[0]["name"], "Rust hello");
    let listed = platform.cli(&["artifacts", "list", "rust-hello", &id]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert_eq!(
        listed.lines().len(),
        5,
        "a header and 4 artifacts:\n{}",
        listed.stdout
    );
    assert!(listed.lines()[1].contains("coordinator.log"));
}

#[test]
fn failed_tasks_fail_the_worker_with_upstream_codes() {
    let platform = Platform::start();
    let run = platform.run("results", &["--fail-at", "1", "--provider", "alpha"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let fails = platform.proxy.requests("POST", "/fail");
    assert_eq!(fails.len(), 1);
    let body = fails[0].json();
    assert_eq!(body["errorCode"], "Error");
    assert_eq!(body["errorMessage"], "One or more tasks failed");
    let id = run_id(&run);
    let shown = platform.cli(&["runs", "show", "rust-hello", &id, "--json"]);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(shown["status"], "failed");
    assert_eq!(
        platform.server.records("rust-hello", &id),
        records(&platform.path().join("results"))
    );
}

#[test]
fn round_mode_reports_through_one_reporter_per_participant() {
    let platform = Platform::start();
    let run = platform.run("results", &["--group-by", "round"]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let id = run_id(&run);
    let local = records(&platform.path().join("results"));
    assert_eq!(
        sorted(platform.server.records("rust-hello", &id)),
        sorted(local)
    );

    for plan in platform.proxy.requests("POST", "/workers") {
        assert_eq!(
            plan.json(),
            json!({"workerCount": 1, "targetConcurrency": 3})
        );
    }
    let claims = platform.proxy.requests("POST", "/workers/claim");
    assert_eq!(claims.len(), 2);
    assert_eq!(claims[0].json()["processKind"], "process");
    assert!(claims[0].json()["processKey"].is_string());

    let (_, artifacts) = platform
        .server
        .get(&format!("/benchmarks/rust-hello/runs/{id}/artifacts"));
    let metrics: Vec<&Value> = artifacts["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "system-metrics")
        .collect();
    assert_eq!(metrics.len(), 1, "one shared system-metrics artifact");
    let metadata = &metrics[0]["metadata"];
    assert_eq!(metadata["scope"], "shared-process");
    assert_eq!(metadata["participants"], json!(["alpha", "beta"]));
    // Baseline, one sample per round (3) and a final one.
    let uploaded = std::fs::read_to_string(platform.path().join("results/metrics.jsonl")).unwrap();
    assert_eq!(uploaded.lines().count(), 5, "{uploaded}");
    assert_eq!(metadata["sizeBytes"], uploaded.len());
    for line in uploaded.lines() {
        let sample: Value = serde_json::from_str(line).unwrap();
        assert!(sample["ts"].as_str().unwrap().ends_with('Z'));
        assert!(sample["cpuUserUs"].is_u64());
    }
    let completes = platform.proxy.requests("POST", "/complete");
    assert_eq!(completes.len(), 2);
}

#[test]
fn sibling_invocations_with_one_run_key_converge_on_one_run() {
    let platform = Platform::start();
    let hello = example("rust-hello");
    let spawn = |provider: &str, out: &str| {
        platform_bench(platform.path(), &platform.proxy.url(), &platform.server.key)
            .args(["run", hello.to_str().unwrap(), "--run-key", "ci-7"])
            .args(["--provider", provider, "--out", out])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (alpha, beta) = (spawn("alpha", "a"), spawn("beta", "b"));
    let runs: Vec<Run> = [alpha, beta]
        .into_iter()
        .map(|child| Run::from(child.wait_with_output().unwrap()))
        .collect();
    for run in &runs {
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
        assert!(run
            .stdout
            .contains("Shared run (key \"ci-7\"): Rust hello #1 ("));
    }
    let id = run_id(&runs[0]);
    assert_eq!(run_id(&runs[1]), id, "both joined one run");
    let creates = platform
        .proxy
        .requests("POST", "/benchmarks/rust-hello/runs");
    assert_eq!(creates.len(), 2);
    for create in &creates {
        let body = create.json();
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["runKey", "config"]);
    }
    let registered = platform.proxy.requests("PUT", "/participants/alpha");
    assert_eq!(registered[0].json(), json!({"totalTasks": 3}));
    let (_, participants) = platform
        .server
        .get(&format!("/benchmarks/rust-hello/runs/{id}/participants"));
    let names: Vec<&str> = participants["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    let mut both = records(&platform.path().join("a"));
    both.extend(records(&platform.path().join("b")));
    assert_eq!(
        sorted(platform.server.records("rust-hello", &id)),
        sorted(both)
    );
}

#[test]
fn no_ingest_keeps_a_configured_platform_out_of_the_run() {
    let platform = Platform::start();
    let run = platform.run("results", &["--no-ingest"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run
        .stdout
        .contains("Dry run: no platform ingest or reporting."));
    assert!(run.stdout.contains("All done. No platform run created."));
    assert!(platform.proxy.journal().is_empty());
}

#[test]
fn a_local_run_can_be_uploaded_later() {
    let platform = Platform::start();
    let local = run_bench(
        platform.path(),
        &[
            "run",
            example("rust-hello").to_str().unwrap(),
            "--out",
            "results",
        ],
    );
    assert_eq!(local.code, Some(0), "{}", local.stderr);
    let upload = platform.cli(&["upload", "results"]);
    assert_eq!(upload.code, Some(0), "{}\n{}", upload.stdout, upload.stderr);
    let id = run_id(&upload);
    assert!(upload
        .stdout
        .contains("Delivered 6 record(s); 0 were already on the platform."));
    assert_eq!(
        platform.server.records("rust-hello", &id),
        records(&platform.path().join("results"))
    );
}

#[test]
fn a_scored_run_submits_its_summary_json() {
    let platform = Platform::start();
    let run = platform.run_example("rust-scored", "results", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let id = run_id(&run);
    let results = platform.path().join("results");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("summary.json")).unwrap())
            .unwrap();
    let submitted = platform.proxy.requests("POST", "/summary");
    assert_eq!(submitted.len(), 1);
    assert_eq!(
        submitted[0].json(),
        json!({"run": summary["run"], "results": summary["results"], "scoring": summary["scoring"]})
    );
    let upsert = platform.proxy.requests("PUT", "/benchmarks/rust-scored")[0].json();
    assert_eq!(upsert["config"]["scoring"], summary["scoring"]);
    assert!(upsert["config"]["display"].is_object());
    assert_eq!(
        platform.server.records("rust-scored", &id),
        records(&results)
    );

    let shown = platform.cli(&["results", "rust-scored", "--run", &id, "--json"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(shown["results"], summary["results"]);
    let table = platform.cli(&["results", "rust-scored", "--run", &id]);
    assert!(table.lines()[0].starts_with("provider"), "{}", table.stdout);
    assert!(table.stdout.contains("uploadMs (median)"));

    let exported = platform.cli(&["export", "rust-scored", "--run", &id, "--out", "exports"]);
    assert_eq!(exported.code, Some(0), "{}", exported.stderr);
    let path = platform
        .path()
        .join("exports")
        .join(format!("rust-scored-{id}.json"));
    assert_eq!(
        exported.stdout.trim_end(),
        format!(
            "Exported to {}",
            Path::new("exports")
                .join(format!("rust-scored-{id}.json"))
                .display()
        )
    );
    let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(document["benchmarkSlug"], "rust-scored");
    assert_eq!(document["runId"], id.as_str());
    assert_eq!(document["results"]["results"], summary["results"]);
}

#[test]
fn saved_settings_name_the_organization_and_every_request_carries_the_key() {
    let platform = Platform::start();
    let settings = platform.path().join(".benchsdk");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(settings.join("config.json"), r#"{"org": "local"}"#).unwrap();
    let run = platform.run("results", &["--provider", "alpha"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let journal = platform.proxy.journal();
    assert!(journal.len() > 5);
    let bearer = format!(
        "authorization: bearer {}",
        platform.server.key.to_lowercase()
    );
    for exchange in journal.iter().filter(|e| !e.path.contains("/uploads/")) {
        let head = exchange.head.to_lowercase();
        assert!(
            head.contains("\r\nx-org-slug: local\r\n"),
            "{}",
            exchange.head
        );
        assert!(head.contains(&bearer), "{}", exchange.head);
        assert!(
            head.contains("content-type: application/json"),
            "{}",
            exchange.head
        );
    }
    // Presigned uploads carry no credentials.
    let uploads: Vec<&Exchange> = journal
        .iter()
        .filter(|e| e.path.contains("/uploads/"))
        .collect();
    assert_eq!(uploads.len(), 2, "a log and the system metrics");
    for upload in uploads {
        assert!(!upload.head.to_lowercase().contains("authorization"));
    }
}

#[test]
fn upload_and_serve_refuse_what_they_cannot_do() {
    let platform = Platform::start();
    let missing = platform.cli(&["upload", "nowhere"]);
    assert_eq!(missing.code, Some(1));
    assert!(
        missing
            .stderr
            .starts_with("Upload failed: nowhere is not a results directory: "),
        "{}",
        missing.stderr
    );

    // A run reported through one URL is not finished through another.
    let run = platform.run("results", &["--provider", "alpha"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let elsewhere = platform.cli(&["upload", "results"]);
    assert_eq!(elsewhere.code, Some(1));
    assert_eq!(
        elsewhere.stderr.trim_end(),
        format!(
            "Upload failed: results is being delivered to {}/api/v1; point BENCHMARKS_PLATFORM_URL (or --base-url) there to finish it",
            platform.proxy.url()
        )
    );

    let serve = run_bench(
        platform.path(),
        &["serve", "--db", "no/such/dir/x.db", "--port", "0"],
    );
    assert_eq!(serve.code, Some(1));
    assert!(
        serve
            .stderr
            .starts_with("bench serve: cannot open no/such/dir/x.db"),
        "{}",
        serve.stderr
    );
}
