//! Participant selection, knob merging (test-vectors §3) and schedules.

use super::*;
use crate::config::{parse_config, BenchmarkConfig, GroupBy, Participant};
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
    let json = run_config_json(&config, &run, &names(&["e2b", "modal"]));
    assert_eq!(
        json.to_string(),
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
        run_config_json(&config, &run, &names(&["e2b"])).to_string(),
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
        run_config_json(&config, &run, &[]).to_string(),
        r#"{"benchmarkSlug":"s-burst","benchmarkName":"Burst","phases":[{"name":"cold","iterations":3},{"name":"warm","iterations":1}],"concurrency":1,"staggerDelayMs":100,"groupBy":"round","participants":[]}"#
    );
}
