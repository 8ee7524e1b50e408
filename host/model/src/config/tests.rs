//! Config vectors of test-vectors §2 that apply to 0.3.0 (display variant B), plus the
//! loader's participant checks and the typed result.

use super::*;
use serde_json::json;

/// The base config of test-vectors §2 with `extra`'s keys added or replaced.
fn config_with(extra: Value) -> Value {
    let mut config = json!({
        "benchmarkSlug": "s",
        "benchmarkName": "n",
        "participants": [{ "name": "e2b", "requiredEnvVars": [] }],
    });
    let target = config.as_object_mut().unwrap();
    for (key, value) in extra.as_object().unwrap() {
        target.insert(key.clone(), value.clone());
    }
    config
}

fn parse(extra: Value) -> Result<BenchmarkConfig, ConfigError> {
    parse_config(&config_with(extra).to_string())
}

fn error(extra: Value) -> String {
    match parse(extra) {
        Ok(config) => panic!("expected an error, got {config:?}"),
        Err(e) => e.to_string(),
    }
}

fn metric(key: &str, median: f64, p95: f64, p99: f64) -> Value {
    json!({ "key": key, "ceiling": 1000, "weights": { "median": median, "p95": p95, "p99": p99 } })
}

fn scoring_with_metric(mut metric: Value, extra: Value) -> Value {
    for (key, value) in extra.as_object().unwrap() {
        metric[key] = value.clone();
    }
    json!({ "metrics": [metric] })
}

#[test]
fn bc1_knobs_are_kept() {
    let config = parse(json!({
        "benchmarkSlug": "sandbox-tti-local",
        "benchmarkName": "Sandbox TTI",
        "iterations": 5,
        "concurrency": 1,
        "staggerDelayMs": 0,
    }))
    .unwrap();
    assert_eq!(config.benchmark_slug, "sandbox-tti-local");
    assert_eq!(config.benchmark_name, "Sandbox TTI");
    assert_eq!(config.iterations, Some(5));
    assert_eq!(config.concurrency, Some(1));
    assert_eq!(config.stagger_delay_ms, Some(0.0));
}

#[test]
fn bc2_minimal_config_leaves_knobs_unset() {
    let config = parse(json!({})).unwrap();
    assert_eq!(config.iterations, None);
    assert_eq!(config.phases, None);
    assert_eq!(config.concurrency, None);
    assert_eq!(config.stagger_delay_ms, None);
    assert_eq!(config.group_by, None);
    assert_eq!(config.default_providers, None);
    assert!(config.shapes.is_empty());
    assert!(config.custom_cli_flags.is_empty());
    assert_eq!(config.raw, config_with(json!({})));
}

#[test]
fn bc4_bc5_cv1_identity_is_required() {
    assert_eq!(
        error(json!({"benchmarkSlug": ""})),
        "benchmarkSlug is required"
    );
    assert_eq!(
        error(json!({"benchmarkName": ""})),
        "benchmarkName is required"
    );
    assert_eq!(
        error(json!({"benchmarkSlug": 5})),
        "benchmarkSlug is required"
    );
    assert_eq!(
        error(json!({"benchmarkSlug": null})),
        "benchmarkSlug is required"
    );
    let missing_name = json!({"benchmarkSlug": "s", "participants": []});
    assert_eq!(
        parse_config(&missing_name.to_string())
            .unwrap_err()
            .to_string(),
        "benchmarkName is required"
    );
}

#[test]
fn bc6_bc7_bc8_cv4_cv5_knob_values() {
    let cases = [
        (
            json!({"iterations": 0}),
            "iterations must be an integer >= 1 (got 0)",
        ),
        (
            json!({"iterations": 1.5}),
            "iterations must be an integer >= 1 (got 1.5)",
        ),
        (
            json!({"iterations": "5"}),
            "iterations must be an integer >= 1 (got 5)",
        ),
        (
            json!({"iterations": null}),
            "iterations must be an integer >= 1 (got null)",
        ),
        (
            json!({"iterations": -1}),
            "iterations must be an integer >= 1 (got -1)",
        ),
        (
            json!({"concurrency": 0}),
            "concurrency must be an integer >= 1 (got 0)",
        ),
        (
            json!({"concurrency": true}),
            "concurrency must be an integer >= 1 (got true)",
        ),
        (
            json!({"staggerDelayMs": -1}),
            "staggerDelayMs must be a number >= 0 (got -1)",
        ),
        // CV-5: NaN cannot travel in JSON; `JSON.stringify` turns it into null.
        (
            json!({"staggerDelayMs": null}),
            "staggerDelayMs must be a number >= 0 (got null)",
        ),
        (
            json!({"staggerDelayMs": "NaN"}),
            "staggerDelayMs must be a number >= 0 (got NaN)",
        ),
        (
            json!({"staggerDelayMs": "5"}),
            "staggerDelayMs must be a number >= 0 (got 5)",
        ),
        (
            json!({"groupBy": "rounds"}),
            "groupBy must be 'participant' or 'round' (got rounds)",
        ),
        (
            json!({"groupBy": null}),
            "groupBy must be 'participant' or 'round' (got null)",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(error(extra.clone()), expected, "{extra}");
    }
}

#[test]
fn bc9_zero_stagger_and_integral_floats_are_fine() {
    let config = parse_config(
        r#"{"benchmarkSlug":"s","benchmarkName":"n","participants":[],
            "staggerDelayMs":0,"iterations":2.0,"concurrency":1e1,"groupBy":"round"}"#,
    )
    .unwrap();
    assert_eq!(config.stagger_delay_ms, Some(0.0));
    assert_eq!(config.iterations, Some(2));
    assert_eq!(config.concurrency, Some(10));
    assert_eq!(config.group_by, Some(GroupBy::Round));
}

#[test]
fn knobs_beyond_u32_are_rejected() {
    assert_eq!(
        error(json!({"iterations": 5_000_000_000_u64})),
        "iterations must be an integer between 1 and 4294967295 (got 5000000000)"
    );
}

#[test]
fn bc10_phases_are_typed_in_order() {
    let config = parse(json!({"phases": [
        {"name": "cold", "iterations": 3},
        {"name": "warm", "iterations": 3},
    ]}))
    .unwrap();
    let phases = config.phases.unwrap();
    assert_eq!(phases.len(), 2);
    assert_eq!(
        phases[0],
        Phase {
            name: "cold".into(),
            iterations: Some(3)
        }
    );
    assert_eq!(phases[1].name, "warm");
}

#[test]
fn phase_without_iterations_passes_validation() {
    let config = parse(json!({"phases": [{"name": "cold"}]})).unwrap();
    assert_eq!(config.phases.unwrap()[0].iterations, None);
}

#[test]
fn bc11_to_bc14_cv2_cv3_phase_rules() {
    let cases = [
        (
            json!({"iterations": 2, "phases": [{"name": "cold", "iterations": 1}]}),
            "phases and iterations are mutually exclusive",
        ),
        (
            json!({"iterations": null, "phases": []}),
            "phases and iterations are mutually exclusive",
        ),
        (json!({"phases": []}), "phases must be a non-empty array"),
        (json!({"phases": "x"}), "phases must be a non-empty array"),
        (json!({"phases": null}), "phases must be a non-empty array"),
        (
            json!({"phases": [{"name": "cold", "iterations": 0}]}),
            "phase 'cold' iterations must be an integer >= 1 (got 0)",
        ),
        (
            json!({"phases": [{"name": "cold", "iterations": 1.5}]}),
            "phase 'cold' iterations must be an integer >= 1 (got 1.5)",
        ),
        (
            json!({"phases": [{"name": "cold", "iterations": 1}, {"name": "cold", "iterations": 1}]}),
            "duplicate phase name: cold",
        ),
        (
            json!({"phases": [{"name": "", "iterations": 1}]}),
            "each phase requires a non-empty name",
        ),
        (
            json!({"phases": [{"name": 7, "iterations": 1}]}),
            "each phase requires a non-empty name",
        ),
        // Upstream crashes on a null phase; here it simply has no name.
        (
            json!({"phases": [null]}),
            "each phase requires a non-empty name",
        ),
        // Phases are checked in order: the duplicate comes before the bad count.
        (
            json!({"phases": [{"name": "a", "iterations": 1}, {"name": "a", "iterations": 0}]}),
            "duplicate phase name: a",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(error(extra.clone()), expected, "{extra}");
    }
}

#[test]
fn bc15_shapes_are_typed_in_declaration_order() {
    let config = parse(json!({"shapes": {
        "burst": {"slug": "sandbox-burst-local", "name": "Burst"},
        "staggered": {"slug": "sandbox-staggered-local", "staggerDelayMs": 200},
    }}))
    .unwrap();
    assert_eq!(
        config.shapes,
        vec![
            (
                "burst".to_string(),
                Shape {
                    slug: "sandbox-burst-local".into(),
                    name: Some("Burst".into()),
                    stagger_delay_ms: None
                }
            ),
            (
                "staggered".to_string(),
                Shape {
                    slug: "sandbox-staggered-local".into(),
                    name: None,
                    stagger_delay_ms: Some(200.0)
                }
            ),
        ]
    );
}

#[test]
fn bc16_bc17_cv7_to_cv9_shape_rules() {
    let cases = [
        (
            json!({"shapes": {"burst": {"slug": "Burst"}}}),
            r#"shape 'burst' needs a lowercase slug (got "Burst")"#,
        ),
        (
            json!({"shapes": {"s": {"slug": "ok", "staggerDelayMs": -1}}}),
            "shape 's' staggerDelayMs must be a number >= 0 (got -1)",
        ),
        (
            json!({"shapes": {"b": {}}}),
            "shape 'b' needs a lowercase slug (got undefined)",
        ),
        (
            json!({"shapes": {"b": {"slug": "-x"}}}),
            r#"shape 'b' needs a lowercase slug (got "-x")"#,
        ),
        (
            json!({"shapes": {"b": {"slug": "ok", "name": " "}}}),
            "shape 'b' name must be a non-empty string",
        ),
        (
            json!({"shapes": {"b": {"slug": "ok", "name": 5}}}),
            "shape 'b' name must be a non-empty string",
        ),
        (
            json!({"shapes": {"b": {"slug": 0}}}),
            "shape 'b' needs a lowercase slug (got 0)",
        ),
        (
            json!({"shapes": {"b": {"slug": {"x": 1.0}}}}),
            r#"shape 'b' needs a lowercase slug (got {"x":1})"#,
        ),
        (
            json!({"shapes": {"b": null}}),
            "shape 'b' needs a lowercase slug (got undefined)",
        ),
        // `Object.entries` of an array or a string yields index keys.
        (
            json!({"shapes": [{"slug": "Bad"}]}),
            r#"shape '0' needs a lowercase slug (got "Bad")"#,
        ),
        (
            json!({"shapes": "ab"}),
            "shape '0' needs a lowercase slug (got undefined)",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(error(extra.clone()), expected, "{extra}");
    }
}

#[test]
fn shape_slug_is_tested_as_a_string() {
    // `/regex/.test(5)` tests "5", so a numeric slug passes upstream too.
    let config = parse(json!({"shapes": {"b": {"slug": 5}}})).unwrap();
    assert_eq!(config.shapes[0].1.slug, "5");
}

#[test]
fn cv10_dimensions_must_be_a_plain_object() {
    for dimensions in [json!([]), json!(null), json!("x"), json!(3)] {
        assert_eq!(
            error(json!({"dimensions": dimensions})),
            "dimensions must be a plain object"
        );
    }
    let config = parse(json!({"dimensions": {"file_size": "10MB"}})).unwrap();
    assert_eq!(
        Value::Object(config.dimensions.unwrap()),
        json!({"file_size": "10MB"})
    );
}

#[test]
fn cv11_to_cv26_scoring_rules() {
    let ok = metric("a", 1.0, 0.0, 0.0);
    let cases = [
        (
            json!({"metrics": []}),
            "scoring.metrics must be a non-empty array",
        ),
        (json!({}), "scoring.metrics must be a non-empty array"),
        (json!(null), "scoring.metrics must be a non-empty array"),
        (
            json!({"metrics": [ok.clone()], "success": {"requireData": []}}),
            "scoring.success.requireData must be a plain object",
        ),
        (
            json!({"metrics": [ok.clone()], "success": null}),
            "scoring.success.requireData must be a plain object",
        ),
        (
            json!({"metrics": [ok.clone()], "success": {"requireData": {}}}),
            "scoring.success.requireData must declare at least one data field",
        ),
        (
            json!({"metrics": [ok.clone()], "success": {"requireData": {"ok": null}}}),
            "scoring.success.requireData.ok must be a string, number, or boolean (got object)",
        ),
        (
            json!({"metrics": [null]}),
            "scoring.metrics[0] must be an object",
        ),
        (
            json!({"metrics": [ok.clone(), []]}),
            "scoring.metrics[1] must be an object",
        ),
        (
            scoring_with_metric(ok.clone(), json!({"key": " "})),
            "scoring.metrics[0].key must be a non-empty string",
        ),
        (
            json!({"metrics": [metric("a", 0.5, 0.0, 0.0), metric("a", 0.5, 0.0, 0.0)]}),
            "duplicate scoring metric key: a",
        ),
        (
            scoring_with_metric(ok.clone(), json!({"unit": 5})),
            "scoring.metrics[0].unit must be a string",
        ),
        (
            json!({"metrics": [{"key": "a", "weights": {"median": 1, "p95": 0, "p99": 0}}]}),
            "scoring.metrics[0].ceiling must be a finite number (got undefined)",
        ),
        (
            scoring_with_metric(ok.clone(), json!({"ceiling": "10"})),
            "scoring.metrics[0].ceiling must be a finite number (got 10)",
        ),
        // CV-20: Infinity cannot travel in JSON; the string prints the same way.
        (
            scoring_with_metric(ok.clone(), json!({"floor": "Infinity"})),
            "scoring.metrics[0].floor must be a finite number (got Infinity)",
        ),
        (
            scoring_with_metric(ok.clone(), json!({"floor": null})),
            "scoring.metrics[0].floor must be a finite number (got null)",
        ),
        (
            scoring_with_metric(ok.clone(), json!({"weights": null})),
            "scoring.metrics[0].weights must be an object",
        ),
        (
            scoring_with_metric(ok.clone(), json!({"weights": {"median": 1, "p99": 0}})),
            "scoring.metrics[0].weights.p95 must be a finite number (got undefined)",
        ),
        (
            json!({"metrics": [metric("a", 1.2, -0.2, 0.0)]}),
            "scoring.metrics[0].weights must be non-negative",
        ),
        (
            scoring_with_metric(ok.clone(), json!({"trim": "0.1"})),
            "scoring.metrics[0].trim must be a finite number (got 0.1)",
        ),
        (
            json!({"metrics": [metric("a", 0.5, 0.2, 0.1)]}),
            "scoring metric weights must sum to 1.0 (got 0.800)",
        ),
        (
            json!({"metrics": [metric("a", 1.01, 0.0, 0.0)]}),
            "scoring metric weights must sum to 1.0 (got 1.010)",
        ),
    ];
    for (scoring, expected) in cases {
        assert_eq!(error(json!({"scoring": scoring})), expected, "{scoring}");
    }
}

#[test]
fn scoring_weights_inside_tolerance_pass() {
    let scoring = json!({"metrics": [
        metric("a", 0.4, 0.25, 0.15),
        metric("b", 0.2, 0.0, 0.0),
    ], "success": {"requireData": {"verified": true, "n": 24, "mode": "cold"}}});
    let config = parse(json!({ "scoring": scoring.clone() })).unwrap();
    assert_eq!(
        config.scoring.as_ref().map(Declared::declared),
        Some(&scoring)
    );
    assert!(parse(json!({"scoring": {"metrics": [metric("a", 1.009, 0.0, 0.0)]}})).is_ok());
}

#[test]
fn cv27_custom_cli_flags_start_with_dashes() {
    let expected = r#"customCliFlags must be an array of strings starting with "--""#;
    for flags in [json!(["-x"]), json!("--x"), json!([5]), json!(null)] {
        assert_eq!(error(json!({"customCliFlags": flags})), expected);
    }
    let config = parse(json!({"customCliFlags": ["--file-size", "--region"]})).unwrap();
    assert_eq!(config.custom_cli_flags, ["--file-size", "--region"]);
}

fn display_metric_x() -> Value {
    json!([{"key": "x", "label": "X"}])
}

#[test]
fn bc18_display_example_passes_without_description() {
    let display = json!({
        "metrics": [{"key": "throughputMbps", "label": "Throughput", "unit": "Mbps", "direction": "higher-better", "decimals": 2, "order": 0}],
        "steps": [{"key": "create", "label": "Create sandbox", "order": 1}],
        "overview": {"defaultMetric": "throughputMbps", "defaultLayout": "ranking"},
    });
    let config = parse(json!({ "display": display.clone() })).unwrap();
    assert_eq!(
        config.display.as_ref().map(Declared::declared),
        Some(&display)
    );
}

#[test]
fn bb5_description_is_an_unexpected_key() {
    let display = json!({
        "description": "A test benchmark",
        "metrics": [{"key": "throughputMbps", "label": "Throughput", "unit": "Mbps", "direction": "higher-better"}],
        "steps": [{"key": "create", "label": "Create sandbox"}],
        "overview": {"defaultMetric": "throughputMbps", "defaultLayout": "ranking"},
    });
    assert_eq!(
        error(json!({ "display": display })),
        "display contains unexpected key: 'description'"
    );
}

#[test]
fn bc19_to_bc27_bb1_to_bb4_cv28_to_cv41_display_rules() {
    let tti_display =
        json!({"metrics": [{"key": "ttiMs", "label": "Time to interactive", "unit": "ms"}]});
    let cases = [
        (
            json!({"display": {"metrics": [{"key": "x", "label": "X", "direction": "up"}]}}),
            "display.metrics[0].direction must be 'higher-better' or 'lower-better'",
        ),
        (
            json!({"display": {"metrics": [{"key": "x", "label": "X"}, {"key": "x", "label": "X2"}]}}),
            "duplicate display metric key: x",
        ),
        (
            json!({"display": {"overview": {"defaultMetric": ""}}}),
            "display.overview.defaultMetric must be a non-empty string",
        ),
        (
            json!({"display": {"overview": {"defaultMetric": 123}}}),
            "display.overview.defaultMetric must be a non-empty string",
        ),
        (
            json!({"display": {"metrics": display_metric_x(), "overview": {"defaultMetric": "y"}}}),
            "display.overview.defaultMetric 'y' is not declared in display.metrics and is not a known default (compositeScore, task)",
        ),
        (
            json!({"display": tti_display.clone(), "scoring": scoring_with_metric(metric("ttiMs", 1.0, 0.0, 0.0), json!({"unit": "s"}))}),
            "scoring.metrics[0].unit 's' conflicts with display.metrics[0].unit 'ms' for key 'ttiMs'",
        ),
        (
            json!({"display": {"metrics": "not-an-array"}, "scoring": {"metrics": [metric("ttiMs", 1.0, 0.0, 0.0)]}}),
            "display.metrics must be an array",
        ),
        (
            json!({"display": {"metrics": [{"key": "x", "label": "X", "unit": 123}]}}),
            "display.metrics[0].unit must be a string",
        ),
        (
            json!({"display": {"metrics": display_metric_x(), "overview": {"defaultMetric": "compositeScore"}}}),
            "display.overview.defaultMetric cannot be 'compositeScore' without config.scoring or config.onScore",
        ),
        // CV-44 describes variant A; variant B needs scoring even without display.metrics.
        (
            json!({"display": {"overview": {"defaultMetric": "compositeScore"}}}),
            "display.overview.defaultMetric cannot be 'compositeScore' without config.scoring or config.onScore",
        ),
        (json!({"display": []}), "display must be an object"),
        (json!({"display": null}), "display must be an object"),
        (json!({"display": {"foo": 1}}), "display contains unexpected key: 'foo'"),
        (
            json!({"display": {"metrics": [{"key": "x", "label": "X", "color": "red"}]}}),
            "display.metrics[0] contains unexpected key: 'color'",
        ),
        (
            json!({"display": {"metrics": [{"label": "X"}]}}),
            "display.metrics[0].key must be a non-empty string",
        ),
        (
            json!({"display": {"metrics": [{"key": "x"}]}}),
            "display.metrics[0].label must be a non-empty string",
        ),
        (
            json!({"display": {"metrics": [{"key": "x", "label": "X", "decimals": 1.5}]}}),
            "display.metrics[0].decimals must be a non-negative integer",
        ),
        (
            json!({"display": {"metrics": [{"key": "x", "label": "X", "order": -1}]}}),
            "display.metrics[0].order must be a non-negative integer",
        ),
        (json!({"display": {"metrics": [null]}}), "display.metrics[0] must be an object"),
        (json!({"display": {"steps": {}}}), "display.steps must be an array"),
        (json!({"display": {"steps": ["a"]}}), "display.steps[0] must be an object"),
        (
            json!({"display": {"steps": [{"key": "a", "label": "A"}, {"key": "a", "label": "B"}]}}),
            "duplicate display step key: a",
        ),
        (
            json!({"display": {"steps": [{"key": "a", "label": "A", "extra": 1}]}}),
            "display.steps[0] contains unexpected key: 'extra'",
        ),
        (
            json!({"display": {"steps": [{"key": " ", "label": "A"}]}}),
            "display.steps[0].key must be a non-empty string",
        ),
        (
            json!({"display": {"steps": [{"key": "a"}]}}),
            "display.steps[0].label must be a non-empty string",
        ),
        (
            json!({"display": {"steps": [{"key": "a", "label": "A", "order": "1"}]}}),
            "display.steps[0].order must be a non-negative integer",
        ),
        (json!({"display": {"overview": []}}), "display.overview must be an object"),
        (
            json!({"display": {"overview": {"defaultLayout": "grid"}}}),
            "display.overview.defaultLayout must be 'ranking', 'cards', 'chart', or 'leaderboard'",
        ),
        (
            json!({"display": {"overview": {"sort": "x"}}}),
            "display.overview contains unexpected key: 'sort'",
        ),
        (
            json!({"scoring": {"metrics": [metric("a", 0.8, 0.0, 0.0)]}, "display": {"foo": 1}}),
            "scoring metric weights must sum to 1.0 (got 0.800)",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(error(extra.clone()), expected, "{extra}");
    }
}

#[test]
fn bc23_bc24_bc27_bb2_bb3_accepted_displays() {
    let accepted = [
        json!({"display": {"metrics": display_metric_x(), "overview": {"defaultMetric": "x"}}}),
        json!({
            "display": {"metrics": [{"key": "ttiMs", "label": "Time to interactive", "unit": "ms"}]},
            "scoring": {"metrics": [metric("ttiMs", 1.0, 0.0, 0.0)]},
        }),
        json!({"display": {"overview": {"defaultMetric": "anything"}}}),
        json!({
            "display": {"metrics": display_metric_x(), "overview": {"defaultMetric": "compositeScore"}},
            "scoring": {"metrics": [metric("x", 1.0, 0.0, 0.0)]},
        }),
        json!({"display": {"metrics": display_metric_x(), "overview": {"defaultMetric": "task"}}}),
        // A matching unit is no conflict.
        json!({
            "display": {"metrics": [{"key": "ttiMs", "label": "TTI", "unit": "ms"}]},
            "scoring": scoring_with_metric(metric("ttiMs", 1.0, 0.0, 0.0), json!({"unit": "ms"})),
        }),
    ];
    for extra in accepted {
        assert!(parse(extra.clone()).is_ok(), "{extra}");
    }
}

#[test]
fn unit_conflict_prints_the_scoring_index_for_both_lists() {
    let extra = json!({
        "display": {"metrics": [
            {"key": "other", "label": "Other"},
            {"key": "ttiMs", "label": "TTI", "unit": "ms"},
        ]},
        "scoring": {"metrics": [
            scoring_with_metric(metric("ttiMs", 1.0, 0.0, 0.0), json!({"unit": "s"}))["metrics"][0].clone(),
        ]},
    });
    assert_eq!(
        error(extra),
        "scoring.metrics[0].unit 's' conflicts with display.metrics[0].unit 'ms' for key 'ttiMs'"
    );
}

#[test]
fn loader_checks_shape_and_participants() {
    let message = |text: &str| parse_config(text).unwrap_err().to_string();
    assert_eq!(
        message("{"),
        "config is not valid JSON: EOF while parsing an object at line 1 column 1"
    );
    assert_eq!(message("[]"), "config must be a JSON object");
    assert_eq!(message("null"), "config must be a JSON object");
    assert_eq!(
        message(r#"{"benchmarkSlug":"s"}"#),
        "benchmarkName is required"
    );
    assert_eq!(
        message(r#"{"benchmarkSlug":"s","benchmarkName":"n"}"#),
        "config must declare participants (an array)"
    );
    assert_eq!(
        message(r#"{"benchmarkSlug":"s","benchmarkName":"n","participants":{}}"#),
        "config must declare participants (an array)"
    );
    let cases = [
        (
            json!([{"name": ""}]),
            "participants[0].name must be a non-empty string",
        ),
        (
            json!([{"name": "a"}, {"name": " "}]),
            "participants[1].name must be a non-empty string",
        ),
        (
            json!([{"name": "a"}, "b"]),
            "participants[1].name must be a non-empty string",
        ),
        (
            json!([{"name": "a"}, {"name": 5}]),
            "participants[1].name must be a non-empty string",
        ),
        (
            json!([{"name": "a"}, {"name": "a"}]),
            "duplicate participant name: a",
        ),
    ];
    for (participants, expected) in cases {
        assert_eq!(error(json!({ "participants": participants })), expected);
    }
    // Config rules come first.
    assert_eq!(
        error(json!({"participants": "x", "iterations": 0})),
        "iterations must be an integer >= 1 (got 0)"
    );
}

#[test]
fn pt1_pt2_required_env_vars_default_to_none() {
    let config = parse(json!({"participants": [
        {"name": "local"},
        {"name": "odd", "requiredEnvVars": "x"},
        {"name": "mixed", "requiredEnvVars": ["A", 5, null, "B"], "region": "eu"},
    ]}))
    .unwrap();
    let vars: Vec<_> = config
        .participants
        .iter()
        .map(|p| (p.name.as_str(), p.required_env_vars.clone()))
        .collect();
    assert_eq!(
        vars,
        [
            ("local", vec![]),
            ("odd", vec![]),
            ("mixed", vec!["A".to_string(), "B".to_string()]),
        ]
    );
    assert_eq!(
        config.participants[2].raw,
        json!({"name": "mixed", "requiredEnvVars": ["A", 5, null, "B"], "region": "eu"})
    );
}

#[test]
fn default_providers_and_group_by_are_typed() {
    let config =
        parse(json!({"defaultProviders": ["e2b", "modal"], "groupBy": "participant"})).unwrap();
    assert_eq!(
        config.default_providers,
        Some(vec!["e2b".into(), "modal".into()])
    );
    assert_eq!(config.group_by, Some(GroupBy::Participant));
    assert_eq!(GroupBy::Participant.as_str(), "participant");
    assert_eq!(GroupBy::parse("round"), Some(GroupBy::Round));
    assert_eq!(GroupBy::parse("Round"), None);
}

#[test]
fn the_display_section_gives_the_unit_and_direction_of_the_last_entry_of_a_key() {
    let display = DisplaySection::read(&json!({"metrics": [
        {"key": "ttiMs", "label": "TTI", "unit": "s"},
        {"key": "sizeMb", "label": "Size"},
        {"key": "ttiMs", "label": "TTI", "unit": "ms", "direction": "higher-better"},
        {"label": "no key", "unit": "x"},
        "not an object",
    ]}));
    assert_eq!(display.unit("ttiMs"), Some("ms"));
    assert!(display.metric("ttiMs").unwrap().higher_is_better);
    assert_eq!(display.unit("sizeMb"), None);
    assert!(!display.metric("sizeMb").unwrap().higher_is_better);
    assert_eq!(display.unit("other"), None);
    assert_eq!(display.metrics.len(), 3);
    for odd in [
        json!({"metrics": {"key": "x", "unit": "ms"}}),
        json!("x"),
        json!(null),
    ] {
        assert_eq!(
            DisplaySection::read(&odd),
            DisplaySection::default(),
            "{odd}"
        );
    }
}

#[test]
fn the_scoring_section_reads_as_javascript_reads_it() {
    let scoring = ScoringSection::read(&json!({
        "groupBy": 7,
        "success": {"requireData": {"verified": true}},
        "metrics": [
            {"key": "mbps", "unit": "Mbps", "ceiling": 900, "floor": 1, "higherIsBetter": 1,
             "weights": {"median": 0.5, "p95": 0.5, "p99": 0}, "trim": 0.1},
            {"key": "ms", "higherIsBetter": "", "weights": {"median": 0}},
            7,
        ]
    }));
    assert_eq!(scoring.group_by.as_deref(), Some("7"));
    assert_eq!(
        scoring.require_data,
        json!({"verified": true}).as_object().cloned()
    );
    let mbps = scoring.metric("mbps").unwrap();
    assert_eq!(mbps.unit.as_deref(), Some("Mbps"));
    assert_eq!(
        (mbps.ceiling, mbps.floor, mbps.trim),
        (900.0, Some(1.0), Some(0.1))
    );
    assert!(mbps.higher_is_better, "1 is truthy");
    assert_eq!(mbps.weights.total(), 1.0);
    let ms = scoring.metric("ms").unwrap();
    assert!(!ms.higher_is_better, "'' is falsy");
    assert!(ms.ceiling.is_nan() && ms.weights.p95.is_nan());
    assert_eq!(
        scoring.metrics[2].key, "",
        "a metric that is not an object reads as empty"
    );
    let unruled = ScoringSection::read(&json!({"groupBy": "", "success": null, "metrics": []}));
    assert_eq!(unruled, ScoringSection::default());
}

#[test]
fn a_parsed_config_keeps_its_sections_as_declared_beside_their_typed_values() {
    let config = parse(json!({
        "scoring": {"metrics": [{"key": "ms", "ceiling": 100, "label": "kept",
                                 "weights": {"median": 1, "p95": 0, "p99": 0}}]},
        "display": {"metrics": [{"key": "ms", "label": "Time", "unit": "ms"}]},
    }))
    .unwrap();
    let scoring = config.scoring.unwrap();
    assert_eq!(scoring.metrics[0].key, "ms");
    assert_eq!(scoring.declared()["metrics"][0]["label"], "kept");
    assert_eq!(config.display.unwrap().unit("ms"), Some("ms"));
}
