//! Participant selection, knob merging (test-vectors §3), schedules and the run manifest.

use super::*;
use crate::config::{parse_config, BenchmarkConfig, GroupBy, Participant};
use crate::record::{Status, TaskRecord};
use serde_json::{json, Value};

/// The phase of every task of a schedule, in order.
fn phases_of(schedule: &Schedule) -> Vec<Option<&str>> {
    (0..schedule.len())
        .map(|index| schedule.phase_at(index))
        .collect()
}

fn config(value: Value) -> BenchmarkConfig {
    parse_config(&value.to_string()).unwrap()
}

/// Config C of test-vectors §3.2 with `extra`'s keys added or replaced.
fn config_c(extra: Value) -> BenchmarkConfig {
    let mut value = json!({
        "benchmarkSlug": "s", "benchmarkName": "n",
        "iterations": 100, "concurrency": 1, "staggerDelayMs": 0, "participants": [],
    });
    for (key, v) in extra.as_object().unwrap() {
        value[key] = v.clone();
    }
    config(value)
}

fn bare(extra: Value) -> BenchmarkConfig {
    let mut value = json!({"benchmarkSlug": "s", "benchmarkName": "n", "participants": []});
    for (key, v) in extra.as_object().unwrap() {
        value[key] = v.clone();
    }
    config(value)
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn participant(name: &str, env: &[&str]) -> Participant {
    Participant {
        name: name.into(),
        required_env_vars: names(env),
        raw: json!({ "name": name, "requiredEnvVars": env }),
    }
}

fn knobs(run: &ResolvedRun) -> (u32, Option<u32>, u32, f64, GroupBy) {
    (
        run.iterations,
        run.phase_iterations,
        run.concurrency,
        run.stagger_delay_ms,
        run.group_by,
    )
}

#[test]
fn mc1_config_values() {
    let run = resolve(&config_c(json!({})), &Overrides::default()).unwrap();
    assert_eq!(knobs(&run), (100, None, 1, 0.0, GroupBy::Participant));
    assert_eq!(run.providers, None);
    assert!(run.warnings.is_empty());
}

#[test]
fn mc2_flags_win() {
    let overrides = Overrides {
        iterations: Some(5),
        concurrency: Some(5),
        stagger_delay_ms: Some(200.0),
        group_by: Some(GroupBy::Round),
        providers: Some(names(&["e2b"])),
        ..Overrides::default()
    };
    let run = resolve(&config_c(json!({})), &overrides).unwrap();
    assert_eq!(knobs(&run), (5, None, 5, 200.0, GroupBy::Round));
    assert_eq!(run.providers, Some(names(&["e2b"])));
}

#[test]
fn mc3_mc4_defaults() {
    let run = resolve(&bare(json!({})), &Overrides::default()).unwrap();
    assert_eq!(knobs(&run), (1, None, 1, 0.0, GroupBy::Participant));
    let run = resolve(&bare(json!({"groupBy": "round"})), &Overrides::default()).unwrap();
    assert_eq!(run.group_by, GroupBy::Round);
}

#[test]
fn mc5_default_providers() {
    let config = bare(json!({"defaultProviders": ["e2b"]}));
    let run = resolve(&config, &Overrides::default()).unwrap();
    assert_eq!(run.providers, Some(names(&["e2b"])));
    let run = resolve(
        &config,
        &Overrides {
            providers: Some(names(&["modal"])),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(run.providers, Some(names(&["modal"])));
}

#[test]
fn mc6_rb15_even_phases_scale_per_phase() {
    let config = bare(json!({"phases": [
        {"name": "1MB", "iterations": 2}, {"name": "16MB", "iterations": 2},
    ]}));
    let run = resolve(&config, &Overrides::default()).unwrap();
    assert_eq!((run.iterations, run.phase_iterations), (4, None));
    let run = resolve(
        &config,
        &Overrides {
            iterations: Some(10),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!((run.iterations, run.phase_iterations), (20, Some(10)));
    assert!(run.warnings.is_empty());

    let run = resolve(
        &config,
        &Overrides {
            iterations: Some(3),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(run.iterations, 6);
    let schedule = Schedule::for_run(&config, &run);
    let phases = phases_of(&schedule);
    assert_eq!(
        phases,
        ["1MB", "1MB", "1MB", "16MB", "16MB", "16MB"].map(Some)
    );
}

#[test]
fn mc7_uneven_phases_ignore_iterations_with_a_warning() {
    let config = bare(json!({"phases": [
        {"name": "cold", "iterations": 3}, {"name": "warm", "iterations": 2},
    ]}));
    let run = resolve(
        &config,
        &Overrides {
            iterations: Some(99),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!((run.iterations, run.phase_iterations), (5, None));
    assert_eq!(
        run.warnings,
        ["--iterations is ignored because this benchmark sizes its phases individually."]
    );
    let schedule = Schedule::for_run(&config, &run);
    let phases = phases_of(&schedule);
    assert_eq!(phases, ["cold", "cold", "cold", "warm", "warm"].map(Some));
}

#[test]
fn phase_without_iterations_fails_when_merged() {
    let config = bare(json!({"phases": [{"name": "cold"}, {"name": "warm", "iterations": 1}]}));
    let expected = "iterations must be an integer >= 1 (got NaN)";
    assert_eq!(
        resolve(&config, &Overrides::default())
            .unwrap_err()
            .to_string(),
        expected
    );
    let error = resolve(
        &config,
        &Overrides {
            iterations: Some(2),
            ..Overrides::default()
        },
    )
    .unwrap_err();
    assert_eq!(error.to_string(), expected);
    // Evenly undeclared phases take `--iterations` per phase, as upstream.
    let config = bare(json!({"phases": [{"name": "cold"}, {"name": "warm"}]}));
    let run = resolve(
        &config,
        &Overrides {
            iterations: Some(2),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!((run.iterations, run.phase_iterations), (4, Some(2)));
}

#[test]
fn schedule_lengths_beyond_u32_are_rejected() {
    let config = bare(json!({"phases": [
        {"name": "a", "iterations": 4_000_000_000_u32}, {"name": "b", "iterations": 4_000_000_000_u32},
    ]}));
    assert_eq!(
        resolve(&config, &Overrides::default())
            .unwrap_err()
            .to_string(),
        "iterations must be an integer between 1 and 4294967295 (got 8000000000)"
    );
}

#[test]
fn schedule_without_phases_is_untagged() {
    let config = config_c(json!({"iterations": 3}));
    let run = resolve(&config, &Overrides::default()).unwrap();
    let schedule = Schedule::for_run(&config, &run);
    assert_eq!(schedule.len(), 3);
    assert_eq!(phases_of(&schedule), [None, None, None]);
}

fn shaped_config() -> BenchmarkConfig {
    bare(json!({
        "benchmarkSlug": "sandbox-tti-local", "benchmarkName": "Sandbox TTI", "staggerDelayMs": 50,
        "shapes": {
            "burst": {"slug": "sandbox-burst-local"},
            "staggered": {"slug": "sandbox-staggered-local", "name": "Sandbox staggered TTI", "staggerDelayMs": 200},
        },
    }))
}

#[test]
fn rb10_shape_sets_identity_and_stagger() {
    let run = resolve(
        &shaped_config(),
        &Overrides {
            shape: Some("staggered".into()),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(run.benchmark_slug, "sandbox-staggered-local");
    assert_eq!(run.benchmark_name, "Sandbox staggered TTI");
    assert_eq!(run.stagger_delay_ms, 200.0);
    assert!(run.identity_is_ours);

    let run = resolve(
        &shaped_config(),
        &Overrides {
            shape: Some("burst".into()),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(run.benchmark_slug, "sandbox-burst-local");
    assert_eq!(run.benchmark_name, "sandbox-burst-local");
    assert_eq!(run.stagger_delay_ms, 50.0);

    let overrides = Overrides {
        shape: Some("staggered".into()),
        stagger_delay_ms: Some(10.0),
        benchmark: Some("x".into()),
        name: Some("X".into()),
        ..Overrides::default()
    };
    let run = resolve(&shaped_config(), &overrides).unwrap();
    assert_eq!(
        (run.benchmark_slug.as_str(), run.benchmark_name.as_str()),
        ("x", "X")
    );
    assert_eq!(run.stagger_delay_ms, 10.0);
}

#[test]
fn rb11_unknown_shapes() {
    let config = bare(json!({"shapes": {"burst": {"slug": "sandbox-burst-local"}}}));
    assert_eq!(
        resolve(
            &config,
            &Overrides {
                shape: Some("nope".into()),
                ..Overrides::default()
            }
        )
        .unwrap_err()
        .to_string(),
        r#"Unknown --shape "nope". Known shapes: burst."#
    );
    assert_eq!(
        resolve(
            &shaped_config(),
            &Overrides {
                shape: Some("nope".into()),
                ..Overrides::default()
            }
        )
        .unwrap_err()
        .to_string(),
        r#"Unknown --shape "nope". Known shapes: burst, staggered."#
    );
    assert_eq!(
        resolve(
            &bare(json!({})),
            &Overrides {
                shape: Some("nope".into()),
                ..Overrides::default()
            }
        )
        .unwrap_err()
        .to_string(),
        r#"Unknown --shape "nope": this benchmark declares no shapes."#
    );
}

#[test]
fn rb7_rb9_identity_overrides() {
    let config = shaped_config();
    let ours = |overrides: Overrides| resolve(&config, &overrides).unwrap();
    let run = ours(Overrides {
        benchmark: Some("sandbox-burst-local".into()),
        name: Some("Sandbox burst TTI".into()),
        ..Overrides::default()
    });
    assert_eq!(run.benchmark_slug, "sandbox-burst-local");
    assert_eq!(run.benchmark_name, "Sandbox burst TTI");
    assert!(run.identity_is_ours);
    let run = ours(Overrides {
        benchmark: Some("sandbox-burst-local".into()),
        ..Overrides::default()
    });
    assert_eq!(run.benchmark_slug, "sandbox-burst-local");
    assert_eq!(run.benchmark_name, "Sandbox TTI");
    assert!(!run.identity_is_ours);
    assert!(ours(Overrides::default()).identity_is_ours);
    assert!(
        ours(Overrides {
            benchmark: Some("sandbox-tti-local".into()),
            ..Overrides::default()
        })
        .identity_is_ours
    );
    assert!(
        ours(Overrides {
            benchmark: Some("other".into()),
            shape: Some("burst".into()),
            ..Overrides::default()
        })
        .identity_is_ours
    );
}

#[test]
fn pt3_pt8_env_gating() {
    let list = vec![
        participant("ready", &["BENCHSDK_TEST_VAR"]),
        participant("missing", &["BENCHSDK_TEST_VAR", "BENCHSDK_MISSING_VAR"]),
        participant("empty", &["BENCHSDK_EMPTY_VAR"]),
    ];
    let env = |name: &str| match name {
        "BENCHSDK_TEST_VAR" => Some("1".to_string()),
        "BENCHSDK_EMPTY_VAR" => Some(String::new()),
        _ => None,
    };
    let (available, skipped) = filter_by_env(list, env);
    assert_eq!(available, [participant("ready", &["BENCHSDK_TEST_VAR"])]);
    assert_eq!(
        skipped,
        [
            Skipped {
                name: "missing".into(),
                missing: names(&["BENCHSDK_MISSING_VAR"])
            },
            Skipped {
                name: "empty".into(),
                missing: names(&["BENCHSDK_EMPTY_VAR"])
            },
        ]
    );
    assert_eq!(
        skipped[0].line(),
        "Skipping missing: missing BENCHSDK_MISSING_VAR"
    );
}

#[test]
fn pt1_pt2_participants_without_env_vars_are_available() {
    let config = bare(json!({"participants": [
        {"name": "local"}, {"name": "odd", "requiredEnvVars": "x"},
    ]}));
    let (available, skipped) = filter_by_env(config.participants.clone(), |_| None);
    assert_eq!(available, config.participants);
    assert!(skipped.is_empty());
}

#[test]
fn rb12_no_participants_message() {
    let skipped = [
        Skipped {
            name: "e2b".into(),
            missing: names(&["E2B_API_KEY"]),
        },
        Skipped {
            name: "modal".into(),
            missing: names(&["MODAL_TOKEN", "MODAL_SECRET"]),
        },
    ];
    assert_eq!(
        no_participants_message(&skipped),
        "No participants have their required env vars set — nothing to run (skipped: e2b, modal)."
    );
    assert_eq!(
        no_participants_message(&[]),
        "No participants have their required env vars set — nothing to run."
    );
    assert_eq!(
        skipped[1].line(),
        "Skipping modal: missing MODAL_TOKEN, MODAL_SECRET"
    );
}

#[test]
fn pt4_to_pt6_selection() {
    let all = [participant("a", &[]), participant("b", &[])];
    assert_eq!(select_participants(&all, None).unwrap(), all);
    assert_eq!(
        select_participants(&all, Some(&names(&["b"]))).unwrap(),
        [all[1].clone()]
    );
    assert_eq!(
        select_participants(&all, Some(&names(&["b", "a"]))).unwrap(),
        all
    );
    assert_eq!(select_participants(&all, Some(&[])).unwrap(), []);
    assert_eq!(
        select_participants(&all, Some(&names(&["c"])))
            .unwrap_err()
            .to_string(),
        "Unknown participant(s): c. Available: a, b"
    );
    assert_eq!(
        select_participants(&all, Some(&names(&["d", "a", "c"])))
            .unwrap_err()
            .to_string(),
        "Unknown participant(s): d, c. Available: a, b"
    );
}

#[test]
fn run_config_without_phases() {
    let config = bare(json!({
        "iterations": 3, "concurrency": 2, "staggerDelayMs": 0,
        "dimensions": {"file_size": "10MB"},
        "scoring": {"metrics": [{"key": "ttiMs", "ceiling": 1000, "weights": {"median": 1.0, "p95": 0, "p99": 0}}]},
    }));
    let run = resolve(&config, &Overrides::default()).unwrap();
    let run_config = RunConfig::new(&config, &run, &names(&["e2b", "modal"]));
    assert_eq!(
        serde_json::to_string(&run_config).unwrap(),
        r#"{"benchmarkSlug":"s","benchmarkName":"n","iterations":3,"concurrency":2,"staggerDelayMs":0,"groupBy":"participant","dimensions":{"file_size":"10MB"},"scoring":{"metrics":[{"key":"ttiMs","ceiling":1000,"weights":{"median":1,"p95":0,"p99":0}}]},"participants":["e2b","modal"]}"#
    );
}

#[test]
fn run_config_with_resized_phases() {
    let config = bare(json!({"phases": [
        {"name": "cold", "iterations": 2}, {"name": "warm", "iterations": 2},
    ]}));
    let run = resolve(
        &config,
        &Overrides {
            iterations: Some(5),
            stagger_delay_ms: Some(2.5),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(Schedule::for_run(&config, &run).len(), 10);
    assert_eq!(
        serde_json::to_string(&RunConfig::new(&config, &run, &names(&["e2b"]))).unwrap(),
        r#"{"benchmarkSlug":"s","benchmarkName":"n","phaseIterations":5,"phases":[{"name":"cold","iterations":5},{"name":"warm","iterations":5}],"concurrency":1,"staggerDelayMs":2.5,"groupBy":"participant","participants":["e2b"]}"#
    );
}

#[test]
fn run_config_with_declared_phases_and_shape() {
    let config = bare(json!({
        "phases": [{"name": "cold", "iterations": 3}, {"name": "warm", "iterations": 1}],
        "groupBy": "round",
        "shapes": {"burst": {"slug": "s-burst", "name": "Burst", "staggerDelayMs": 100}},
    }));
    let run = resolve(
        &config,
        &Overrides {
            shape: Some("burst".into()),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&RunConfig::new(&config, &run, &[])).unwrap(),
        r#"{"benchmarkSlug":"s-burst","benchmarkName":"Burst","phases":[{"name":"cold","iterations":3},{"name":"warm","iterations":1}],"concurrency":1,"staggerDelayMs":100,"groupBy":"round","participants":[]}"#
    );
}

/// A manifest as `bench run` builds it, with fixed identity, times, component and host.
fn manifest(config: &BenchmarkConfig, participants: &[&str], run_id: &str) -> RunManifest {
    let run = resolve(config, &Overrides::default()).unwrap();
    RunManifest {
        run_config: RunConfig::new(config, &run, &names(participants)),
        display: config.display.clone(),
        run_id: run_id.into(),
        started_at: "2026-11-30T16:53:13.456Z".into(),
        component: ComponentInfo {
            path: "target/guests/wasm32-wasip2/release/rust_hello.wasm".into(),
            sha256: "94abe8838e0c5199f40fb968bb3b7fb98374fb6996e4cc8bb8e4bd8d1db7416a".into(),
            size_bytes: 129_850,
        },
        host: HostInfo {
            bench_version: "0.1.0".into(),
            wasmtime_version: "48.0.8".into(),
            os: "linux".into(),
            arch: "x86_64".into(),
        },
        origin: Origin {
            git_sha: Some("7b2ed4b084a8942c627f50459c361e847e2db94b".into()),
            git_ref: Some("main".into()),
            triggered_by: "manual".into(),
        },
        completed_at: None,
        tasks: None,
        log_files: Default::default(),
        interrupted: false,
        shard: None,
        load: None,
        warmup: None,
        shuffle_seed: None,
        instrument_floor: None,
    }
}

fn complete(mut manifest: RunManifest, completed_at: &str, total: u64, failed: u64) -> RunManifest {
    manifest.complete(completed_at.into(), TaskCounts { total, failed });
    manifest
}

#[test]
fn a_phases_run_json_is_byte_identical_at_start_and_end() {
    let config = bare(json!({
        "benchmarkSlug": "rust-hello", "benchmarkName": "Rust hello",
        "participants": [{"name": "alpha", "region": "eu"}, {"name": "beta", "region": "us"}],
        "phases": [{"name": "cold", "iterations": 1}, {"name": "warm", "iterations": 2}],
        "customCliFlags": ["--fail-at"],
    }));
    let started = manifest(&config, &["alpha", "beta"], "20261130T165313Z-b47b");
    let mut expected = include_str!("testdata/run-phases.json").to_owned();
    let done = complete(started.clone(), "2026-11-30T16:53:13.471Z", 6, 0);
    assert_eq!(done.to_json_text(), expected);
    // Before the run ends there is no `completedAt` and no `tasks`, not even as null.
    let end = expected.find(",\n  \"completedAt\"").unwrap();
    expected.replace_range(end.., "\n}\n");
    assert_eq!(started.to_json_text(), expected);
}

#[test]
fn a_scored_run_json_with_dimensions_and_display_is_byte_identical() {
    // As the Rust SDK declares it: floats such as `1000.0` print as JavaScript prints them.
    let config = bare(json!({
        "benchmarkSlug": "rust-scored", "benchmarkName": "Rust scored",
        "participants": [{"name": "fast", "baseMs": 100}, {"name": "slow", "baseMs": 300}],
        "iterations": 6,
        "dimensions": {"region": "local"},
        "scoring": {
            "groupBy": "size",
            "success": {"requireData": {"verified": true}},
            "metrics": [
                {"key": "uploadMs", "ceiling": 1000.0, "higherIsBetter": false,
                 "weights": {"median": 0.5, "p95": 0.2, "p99": 0.1}},
                {"key": "throughputMbps", "unit": "Mbps", "ceiling": 510.0, "floor": 10.0,
                 "higherIsBetter": true, "weights": {"median": 0.2, "p95": 0.0, "p99": 0.0}},
            ],
        },
        "display": {"metrics": [
            {"key": "uploadMs", "label": "Upload", "unit": "ms", "direction": "lower-better"},
            {"key": "throughputMbps", "label": "Throughput", "unit": "Mbps", "direction": "higher-better"},
        ]},
    }));
    let mut manifest = manifest(&config, &["fast", "slow"], "20261130T165316Z-fd79");
    manifest.started_at = "2026-11-30T16:53:16.018Z".into();
    manifest.component.sha256 =
        "58dd37e20bf98960ee3096257bcb699544b6b5b5d118f7848c448c01cff66938".into();
    manifest.component.size_bytes = 128_957;
    manifest.component.path = "target/guests/wasm32-wasip2/release/rust_scored.wasm".into();
    let done = complete(manifest, "2026-11-30T16:53:16.031Z", 12, 1);
    assert_eq!(
        done.to_json_text(),
        include_str!("testdata/run-scored.json")
    );
}

#[test]
fn a_plain_run_json_keeps_fractional_stagger_and_round_order() {
    let config = bare(json!({
        "iterations": 4, "concurrency": 3, "staggerDelayMs": 2.5, "groupBy": "round",
    }));
    let mut manifest = manifest(&config, &["a"], "r");
    manifest.origin = Origin::default();
    let text = serde_json::to_string(&complete(manifest, "t", 4, 4)).unwrap();
    assert_eq!(
        text,
        r#"{"benchmarkSlug":"s","benchmarkName":"n","iterations":4,"concurrency":3,"staggerDelayMs":2.5,"groupBy":"round","participants":["a"],"runId":"r","startedAt":"2026-11-30T16:53:13.456Z","component":{"path":"target/guests/wasm32-wasip2/release/rust_hello.wasm","sha256":"94abe8838e0c5199f40fb968bb3b7fb98374fb6996e4cc8bb8e4bd8d1db7416a","sizeBytes":129850},"host":{"benchVersion":"0.1.0","wasmtimeVersion":"48.0.8","os":"linux","arch":"x86_64"},"origin":{"triggeredBy":"manual"},"completedAt":"t","tasks":{"total":4,"failed":4}}"#
    );
}

#[test]
fn a_manifest_reads_back_as_written() {
    for text in [
        include_str!("testdata/run-phases.json"),
        include_str!("testdata/run-scored.json"),
    ] {
        let manifest: RunManifest = serde_json::from_str(text).unwrap();
        assert_eq!(manifest.to_json_text(), text);
        let again: RunManifest = serde_json::from_str(&manifest.to_json_text()).unwrap();
        assert_eq!(again, manifest);
    }
    let phases: RunManifest =
        serde_json::from_str(include_str!("testdata/run-phases.json")).unwrap();
    assert_eq!(phases.run_config.tasks_per_participant(), 3);
    assert_eq!(phases.run_config.group_by, GroupBy::Participant);
    assert_eq!(
        phases.tasks,
        Some(TaskCounts {
            total: 6,
            failed: 0
        })
    );
    let scored: RunManifest =
        serde_json::from_str(include_str!("testdata/run-scored.json")).unwrap();
    assert_eq!(scored.run_config.tasks_per_participant(), 6);
    assert_eq!(
        scored.run_config.scoring.unwrap().declared()["metrics"][1]["floor"],
        10
    );
}

#[test]
fn an_older_manifest_with_unknown_keys_and_no_origin_is_read() {
    let manifest = test_manifest(json!({"trigger": {"source": "ci"}, "notes": [1, 2]}));
    assert_eq!(manifest.origin, Origin::default());
    assert_eq!(manifest.completed_at, None);
    let text = serde_json::to_string(&manifest).unwrap();
    assert!(
        !text.contains(r#""trigger""#) && !text.contains("null"),
        "{text}"
    );
    assert!(
        text.contains(r#""origin":{"triggeredBy":"manual"}"#),
        "{text}"
    );
}

#[test]
fn a_manifest_missing_its_length_or_its_id_is_rejected() {
    let mut value = serde_json::to_value(test_manifest(json!({}))).unwrap();
    value.as_object_mut().unwrap().remove("iterations");
    assert!(serde_json::from_value::<RunManifest>(value).is_err());
    let mut value = serde_json::to_value(test_manifest(json!({}))).unwrap();
    value.as_object_mut().unwrap().remove("runId");
    let error = serde_json::from_value::<RunManifest>(value).unwrap_err();
    assert_eq!(error.to_string(), "missing field `runId`");
}

#[test]
fn task_counts_count_every_record_and_its_failures() {
    let record = |status| TaskRecord::bare(0, status, 1.0);
    let mut counts = TaskCounts::default();
    for status in [Status::Success, Status::Error, Status::Error] {
        counts.add(&record(status));
    }
    assert_eq!(
        counts,
        TaskCounts {
            total: 3,
            failed: 2
        }
    );
}

#[test]
fn shuffle_needs_rounds_and_keeps_a_given_seed() {
    let config = config_c(json!({"groupBy": "round"}));
    let shuffled = |seed: Option<u64>| Overrides {
        shuffle: true,
        shuffle_seed: seed,
        ..Overrides::default()
    };
    assert_eq!(
        resolve(&config, &shuffled(Some(9))).unwrap().shuffle_seed,
        Some(9)
    );
    assert!(resolve(&config, &shuffled(None))
        .unwrap()
        .shuffle_seed
        .is_some());
    assert_eq!(
        resolve(&config, &Overrides::default())
            .unwrap()
            .shuffle_seed,
        None
    );
    let participant_mode = config_c(json!({}));
    assert_eq!(
        resolve(&participant_mode, &shuffled(None))
            .unwrap_err()
            .to_string(),
        "--shuffle reorders participants within rounds; it needs --group-by round"
    );
}

#[test]
fn warmup_cannot_share_its_phase_name_with_the_config() {
    let config = bare(json!({"phases": [{"name": "warmup", "iterations": 1}]}));
    let warm = Overrides {
        warmup: Some(2),
        ..Overrides::default()
    };
    assert_eq!(
        resolve(&config, &warm).unwrap_err().to_string(),
        "--warmup records its tasks in phase 'warmup', which this config declares itself; rename that phase"
    );
    assert_eq!(resolve(&config_c(json!({})), &warm).unwrap().warmup, 2);
}
