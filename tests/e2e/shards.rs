//! End-to-end: static shards (`bench run --shard i/N`) merged by `bench merge` make the
//! results a single run makes: every (participant, taskIndex) once, every log line, and
//! `summary.json` byte for byte.

use crate::support::{
    bench::{run_bench, run_bench_pinned, run_into, Run},
    guests::example,
    results::{read_json, records},
};
use std::collections::BTreeSet;
use std::path::Path;
use tempfile::TempDir;

/// Runs `component` into `<cwd>/<out>` with pinned GitHub variables.
fn run(cwd: &Path, component: &Path, out: &str, args: &[&str]) -> Run {
    let run = run_into(cwd, component, out, None, args);
    assert_eq!(run.code, Some(0), "{out}: {}", run.stderr);
    run
}

/// (participant, taskIndex) of every record, and whether one came twice.
fn task_keys(dir: &Path) -> (BTreeSet<(String, u64)>, usize) {
    let records = records(dir);
    let keys: BTreeSet<(String, u64)> = records
        .iter()
        .map(|r| {
            (
                r["participant"].as_str().unwrap().to_owned(),
                r["taskIndex"].as_u64().unwrap(),
            )
        })
        .collect();
    (keys, records.len())
}

/// Each participant's log lines without their timestamps, sorted.
fn log_messages(dir: &Path, participant: &str) -> Vec<String> {
    let text =
        std::fs::read_to_string(dir.join("logs").join(format!("{participant}.log"))).unwrap();
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| {
            line.split_once(' ')
                .map_or(line, |(_, rest)| rest)
                .to_owned()
        })
        .collect();
    lines.sort();
    lines
}

fn merge(cwd: &Path, shards: &[&str], out: &str) -> Run {
    let mut args = vec!["merge"];
    args.extend_from_slice(shards);
    args.extend_from_slice(&["--out", out]);
    run_bench_pinned(cwd, &args, &[])
}

#[test]
fn three_shards_merged_equal_the_single_run() {
    let component = example("rust-scored");
    for (group_by, concurrency) in [("participant", "2"), ("round", "1")] {
        let tmp = TempDir::new().unwrap();
        let cwd = tmp.path();
        let knobs = ["--concurrency", concurrency, "--group-by", group_by];
        run(cwd, &component, "single", &knobs);
        let mut shard_records = 0;
        for index in 0..3 {
            let shard = format!("{index}/3");
            let out = format!("shard-{index}");
            let mut args = knobs.to_vec();
            args.extend_from_slice(&["--shard", &shard]);
            run(cwd, &component, &out, &args);
            let manifest = read_json(&cwd.join(&out).join("run.json"));
            assert_eq!(manifest["shard"], shard.as_str());
            shard_records += records(&cwd.join(&out)).len();
        }
        assert_eq!(shard_records, 12, "{group_by}: the shards split the run");
        // Any order of the directories.
        let merged = merge(cwd, &["shard-2", "shard-0", "shard-1"], "merged");
        assert_eq!(merged.code, Some(0), "{}", merged.stderr);
        assert!(
            merged.stdout.contains("Results: merged"),
            "{}",
            merged.stdout
        );

        let (single, merged) = (cwd.join("single"), cwd.join("merged"));
        let (keys, count) = task_keys(&merged);
        assert_eq!(count, 12, "{group_by}: every task once");
        assert_eq!(keys, task_keys(&single).0);
        let summary = |dir: &Path| std::fs::read_to_string(dir.join("summary.json")).unwrap();
        assert_eq!(summary(&merged), summary(&single), "{group_by}");
        for participant in ["fast", "slow"] {
            assert_eq!(
                log_messages(&merged, participant),
                log_messages(&single, participant)
            );
        }
        let manifest = read_json(&merged.join("run.json"));
        assert_eq!(manifest.get("shard"), None);
        assert_eq!(
            manifest["tasks"],
            read_json(&single.join("run.json"))["tasks"]
        );
        assert_eq!(
            manifest["participants"],
            serde_json::json!(["fast", "slow"])
        );
        let metrics = std::fs::read_to_string(merged.join("metrics.jsonl")).unwrap();
        assert!(
            metrics.lines().count() >= 3,
            "each shard's samples: {metrics}"
        );
        // `bench report` of the merged directory reads it as any run.
        let report = run_bench(cwd, &["report", "merged"]);
        assert_eq!(report.code, Some(0), "{}", report.stderr);
    }
}

#[test]
fn merge_refuses_a_missing_a_repeated_or_a_foreign_shard() {
    let component = example("rust-scored");
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    for index in 0..2 {
        run(
            cwd,
            &component,
            &format!("s{index}"),
            &["--shard", &format!("{index}/2")],
        );
    }
    run(
        cwd,
        &component,
        "other",
        &["--shard", "1/2", "--iterations", "4"],
    );
    run(cwd, &component, "whole", &[]);

    let missing = merge(cwd, &["s0"], "m1");
    assert_eq!(missing.code, Some(1));
    assert!(
        missing.stderr.contains("shard 1/2 is missing"),
        "{}",
        missing.stderr
    );
    let twice = merge(cwd, &["s0", "s1", "s1"], "m2");
    assert!(
        twice.stderr.contains("both hold shard 1/2"),
        "{}",
        twice.stderr
    );
    let foreign = merge(cwd, &["s0", "other"], "m3");
    assert!(
        foreign.stderr.contains("are not shards of the same run"),
        "{}",
        foreign.stderr
    );
    let whole = merge(cwd, &["s0", "whole"], "m4");
    assert!(
        whole.stderr.contains("holds no shard of a run"),
        "{}",
        whole.stderr
    );
    for out in ["m1", "m2", "m3", "m4"] {
        assert!(!cwd.join(out).join("summary.json").exists(), "{out}");
    }
    let bad = run_bench(cwd, &["run", component.to_str().unwrap(), "--shard", "2/2"]);
    assert_eq!(bad.code, Some(1));
    assert!(
        bad.stderr
            .contains(r#"--shard expects i/N with 0 <= i < N <= 100000 (got "2/2")"#),
        "{}",
        bad.stderr
    );
    // Merged into a directory that holds a run: refused, nothing mixed in.
    let onto = merge(cwd, &["s0", "s1"], "whole");
    assert!(
        onto.stderr.contains("already holds a run"),
        "{}",
        onto.stderr
    );
}

#[test]
fn a_shard_or_a_dispatched_run_refuses_single_machine_load_knobs() {
    let cwd = TempDir::new().unwrap();
    let component = example("rust-noop");
    let path = component.to_str().unwrap();
    for (spread, knobs, named) in [
        (
            ["--shard", "0/2"],
            &["--rate", "10/s", "--duration", "1s"][..],
            "the constant-arrival-rate executor",
        ),
        (
            ["--shard", "1/2"],
            &["--duration", "1s"][..],
            "the duration executor",
        ),
        (["--shard", "0/2"], &["--warmup", "2"][..], "--warmup"),
        (
            ["--dispatch", "nats://127.0.0.1:9"],
            &["--warmup", "1"][..],
            "--warmup",
        ),
    ] {
        let mut args = vec!["run", path, "--no-ingest", "--out", "never"];
        args.extend_from_slice(&spread);
        args.extend_from_slice(knobs);
        let refused = run_bench(cwd.path(), &args);
        assert_eq!(refused.code, Some(1), "{args:?}: {}", refused.stderr);
        assert!(
            refused.stderr.contains(&format!(
                "{named} runs on one machine only; {} spreads upstream's iterations",
                spread[0]
            )),
            "{args:?}: {}",
            refused.stderr
        );
        assert!(!cwd.path().join("never").exists(), "{args:?}");
    }
}
