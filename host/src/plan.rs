//! From a validated config and the run flags to what a run executes (spec §1.5–1.7, §6.2):
//! participant selection and env gating, shape and identity overrides, merged knobs
//! (`mergeConfig`), the task schedule, and the `runConfig` sent to the platform.

use crate::config::{positive_int, BenchmarkConfig, GroupBy, Participant, Shape};
use crate::flags::RunFlags;
use crate::js;
use serde_json::{json, Map, Value};

/// Why a run cannot be planned; `Display` is upstream's exact message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// `--provider` named participants the config does not declare.
    #[error("Unknown participant(s): {}. Available: {}", unknown.join(", "), available.join(", "))]
    UnknownParticipants {
        /// The unknown names, in the order given.
        unknown: Vec<String>,
        /// Every declared name, in config order.
        available: Vec<String>,
    },
    /// `--shape` named a shape the config does not declare.
    #[error("Unknown --shape \"{shape}\". Known shapes: {}.", known.join(", "))]
    UnknownShape {
        /// The requested shape.
        shape: String,
        /// Declared shapes, in declaration order.
        known: Vec<String>,
    },
    /// `--shape` was given but the config declares no shapes.
    #[error("Unknown --shape \"{0}\": this benchmark declares no shapes.")]
    NoShapes(String),
    /// A merged knob is out of range (`iterations must be an integer >= 1 (got NaN)`).
    #[error("{0}")]
    InvalidKnob(String),
}

/// Upstream's `mergeConfig` warning when `--iterations` meets unevenly sized phases.
pub const UNEVEN_PHASES_WARNING: &str =
    "--iterations is ignored because this benchmark sizes its phases individually.";

/// The participants named by `--provider` (or `defaultProviders`), in config order; all of
/// them when `names` is `None`. An empty list selects nobody.
pub fn select_participants(
    all: &[Participant],
    names: Option<&[String]>,
) -> Result<Vec<Participant>, PlanError> {
    let Some(names) = names else {
        return Ok(all.to_vec());
    };
    let unknown: Vec<String> = names
        .iter()
        .filter(|name| !all.iter().any(|p| &p.name == *name))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(PlanError::UnknownParticipants {
            unknown,
            available: all.iter().map(|p| p.name.clone()).collect(),
        });
    }
    Ok(all
        .iter()
        .filter(|p| names.contains(&p.name))
        .cloned()
        .collect())
}

/// A participant left out because some of its required env vars are unset or empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Participant name.
    pub name: String,
    /// The missing variables, in declared order.
    pub missing: Vec<String>,
}

impl Skipped {
    /// The console line upstream prints: `Skipping <name>: missing <A, B>`.
    pub fn line(&self) -> String {
        format!(
            "Skipping {}: missing {}",
            self.name,
            self.missing.join(", ")
        )
    }
}

/// Splits participants into those whose required env vars all have non-empty values
/// (per `lookup`) and those skipped.
pub fn filter_by_env(
    list: Vec<Participant>,
    lookup: impl Fn(&str) -> Option<String>,
) -> (Vec<Participant>, Vec<Skipped>) {
    let mut available = Vec::new();
    let mut skipped = Vec::new();
    for participant in list {
        let missing: Vec<String> = participant
            .required_env_vars
            .iter()
            .filter(|var| lookup(var).is_none_or(|value| value.is_empty()))
            .cloned()
            .collect();
        if missing.is_empty() {
            available.push(participant);
        } else {
            skipped.push(Skipped {
                name: participant.name,
                missing,
            });
        }
    }
    (available, skipped)
}

/// The `NoAvailableParticipantsError` message (a clean exit upstream).
pub fn no_participants_message(skipped: &[Skipped]) -> String {
    let mut message =
        String::from("No participants have their required env vars set — nothing to run");
    if !skipped.is_empty() {
        let names: Vec<&str> = skipped.iter().map(|s| s.name.as_str()).collect();
        message.push_str(&format!(" (skipped: {})", names.join(", ")));
    }
    message.push('.');
    message
}

/// The identity and knobs a run uses after shape, flag overrides and `mergeConfig`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedRun {
    /// Platform slug (shape, then `--benchmark`/`--slug`).
    pub benchmark_slug: String,
    /// Display name (shape, then `--name`).
    pub benchmark_name: String,
    /// Tasks per participant: the schedule length.
    pub iterations: u32,
    /// Iterations of every phase, when `--iterations` resized evenly sized phases.
    pub phase_iterations: Option<u32>,
    /// Max tasks in flight.
    pub concurrency: u32,
    /// Ramp delay in milliseconds.
    pub stagger_delay_ms: f64,
    /// Ordering across participants.
    pub group_by: GroupBy,
    /// Participant names to run (`--provider`, else `defaultProviders`); `None` runs all.
    pub providers: Option<Vec<String>>,
    /// Whether the run reports under the file's own identity, so the benchmark may be
    /// upserted: `--shape` or `--name` given, no `--benchmark`, or `--benchmark` equal to
    /// the config's slug.
    pub identity_is_ours: bool,
    /// Warnings to print before the run.
    pub warnings: Vec<String>,
}

/// Applies `--shape`, the identity overrides and `mergeConfig`, in upstream's order.
pub fn resolve(config: &BenchmarkConfig, flags: &RunFlags) -> Result<ResolvedRun, PlanError> {
    let mut slug = config.benchmark_slug.clone();
    let mut name = config.benchmark_name.clone();
    let mut stagger_delay_ms = config.stagger_delay_ms;
    if let Some(shape_name) = &flags.shape {
        let shape = find_shape(config, shape_name)?;
        slug = shape.slug.clone();
        name = shape.name.clone().unwrap_or_else(|| shape.slug.clone());
        stagger_delay_ms = shape.stagger_delay_ms.or(stagger_delay_ms);
    }
    if let Some(benchmark) = &flags.benchmark {
        slug = benchmark.clone();
    }
    if let Some(flag_name) = &flags.name {
        name = flag_name.clone();
    }
    let mut warnings = Vec::new();
    let (iterations, phase_iterations) = match &config.phases {
        None => {
            let iterations = flags.iterations.or(config.iterations).unwrap_or(1);
            (f64::from(iterations), None)
        }
        Some(phases) => {
            let counts: Vec<Option<u32>> = phases.iter().map(|p| p.iterations).collect();
            let uneven = counts.iter().any(|count| counts.first() != Some(count));
            match flags.iterations {
                Some(per_phase) if !uneven => {
                    let total = f64::from(per_phase) * counts.len() as f64;
                    (total, Some(per_phase))
                }
                requested => {
                    if requested.is_some() {
                        warnings.push(UNEVEN_PHASES_WARNING.to_owned());
                    }
                    // An undeclared phase count makes the sum NaN, as upstream.
                    let sum = counts
                        .iter()
                        .map(|count| count.map_or(f64::NAN, f64::from))
                        .sum();
                    (sum, None)
                }
            }
        }
    };
    let iterations = positive_int("iterations", iterations).map_err(PlanError::InvalidKnob)?;
    Ok(ResolvedRun {
        benchmark_slug: slug,
        benchmark_name: name,
        iterations,
        phase_iterations,
        concurrency: flags.concurrency.or(config.concurrency).unwrap_or(1),
        stagger_delay_ms: flags.stagger_delay_ms.or(stagger_delay_ms).unwrap_or(0.0),
        group_by: flags
            .group_by
            .or(config.group_by)
            .unwrap_or(GroupBy::Participant),
        providers: flags
            .providers
            .clone()
            .or_else(|| config.default_providers.clone()),
        identity_is_ours: flags.shape.is_some()
            || flags.name.is_some()
            || flags
                .benchmark
                .as_ref()
                .is_none_or(|b| *b == config.benchmark_slug),
        warnings,
    })
}

fn find_shape<'a>(config: &'a BenchmarkConfig, shape_name: &str) -> Result<&'a Shape, PlanError> {
    if config.shapes.is_empty() {
        return Err(PlanError::NoShapes(shape_name.to_owned()));
    }
    config
        .shapes
        .iter()
        .find(|(name, _)| name == shape_name)
        .map(|(_, shape)| shape)
        .ok_or_else(|| PlanError::UnknownShape {
            shape: shape_name.to_owned(),
            known: config.shapes.iter().map(|(name, _)| name.clone()).collect(),
        })
}

/// One task of a participant's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The phase the task belongs to, when the config declares phases.
    pub phase: Option<String>,
}

/// The tasks each participant runs, in order (`buildSchedule`): every phase repeated
/// `phase_iterations` (or its own count) times, else `iterations` untagged slots.
pub fn build_schedule(config: &BenchmarkConfig, resolved: &ResolvedRun) -> Vec<Slot> {
    match &config.phases {
        None => vec![Slot { phase: None }; resolved.iterations as usize],
        Some(phases) => phases
            .iter()
            .flat_map(|phase| {
                let count = resolved.phase_iterations.or(phase.iterations).unwrap_or(0);
                let slot = Slot {
                    phase: Some(phase.name.clone()),
                };
                std::iter::repeat_n(slot, count as usize)
            })
            .collect(),
    }
}

/// The `runConfig` object sent with `createRun` (spec §6.2), numbers printed as JavaScript
/// prints them.
pub fn run_config_json(
    config: &BenchmarkConfig,
    resolved: &ResolvedRun,
    participant_names: &[String],
) -> Value {
    let mut run = Map::new();
    run.insert("benchmarkSlug".into(), json!(resolved.benchmark_slug));
    run.insert("benchmarkName".into(), json!(resolved.benchmark_name));
    if let Some(per_phase) = resolved.phase_iterations {
        run.insert("phaseIterations".into(), json!(per_phase));
    }
    match &config.phases {
        Some(phases) => {
            let phases = phases
                .iter()
                .map(|phase| {
                    let mut entry = Map::new();
                    entry.insert("name".into(), json!(phase.name));
                    if let Some(count) = resolved.phase_iterations.or(phase.iterations) {
                        entry.insert("iterations".into(), json!(count));
                    }
                    Value::Object(entry)
                })
                .collect();
            run.insert("phases".into(), Value::Array(phases));
        }
        None => {
            run.insert("iterations".into(), json!(resolved.iterations));
        }
    }
    run.insert("concurrency".into(), json!(resolved.concurrency));
    run.insert(
        "staggerDelayMs".into(),
        js::number(resolved.stagger_delay_ms),
    );
    run.insert("groupBy".into(), json!(resolved.group_by.as_str()));
    if let Some(dimensions) = &config.dimensions {
        run.insert("dimensions".into(), Value::Object(dimensions.clone()));
    }
    if let Some(scoring) = &config.scoring {
        run.insert("scoring".into(), scoring.clone());
    }
    run.insert("participants".into(), json!(participant_names));
    let mut run = Value::Object(run);
    js::normalize_numbers(&mut run);
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_config;
    use crate::flags::parse_run_flags;

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

    fn flags(argv: &[&str]) -> RunFlags {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        parse_run_flags(&argv, &[], None).unwrap()
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
        let run = resolve(&config_c(json!({})), &flags(&[])).unwrap();
        assert_eq!(knobs(&run), (100, None, 1, 0.0, GroupBy::Participant));
        assert_eq!(run.providers, None);
        assert!(run.warnings.is_empty());
    }

    #[test]
    fn mc2_flags_win() {
        let argv = [
            "--iterations",
            "5",
            "--concurrency",
            "5",
            "--stagger-delay-ms",
            "200",
            "--group-by",
            "round",
            "--provider",
            "e2b",
        ];
        let run = resolve(&config_c(json!({})), &flags(&argv)).unwrap();
        assert_eq!(knobs(&run), (5, None, 5, 200.0, GroupBy::Round));
        assert_eq!(run.providers, Some(names(&["e2b"])));
    }

    #[test]
    fn mc3_mc4_defaults() {
        let run = resolve(&bare(json!({})), &flags(&[])).unwrap();
        assert_eq!(knobs(&run), (1, None, 1, 0.0, GroupBy::Participant));
        let run = resolve(&bare(json!({"groupBy": "round"})), &flags(&[])).unwrap();
        assert_eq!(run.group_by, GroupBy::Round);
    }

    #[test]
    fn mc5_default_providers() {
        let config = bare(json!({"defaultProviders": ["e2b"]}));
        let run = resolve(&config, &flags(&[])).unwrap();
        assert_eq!(run.providers, Some(names(&["e2b"])));
        let run = resolve(&config, &flags(&["--provider", "modal"])).unwrap();
        assert_eq!(run.providers, Some(names(&["modal"])));
    }

    #[test]
    fn mc6_rb15_even_phases_scale_per_phase() {
        let config = bare(json!({"phases": [
            {"name": "1MB", "iterations": 2}, {"name": "16MB", "iterations": 2},
        ]}));
        let run = resolve(&config, &flags(&[])).unwrap();
        assert_eq!((run.iterations, run.phase_iterations), (4, None));
        let run = resolve(&config, &flags(&["--iterations", "10"])).unwrap();
        assert_eq!((run.iterations, run.phase_iterations), (20, Some(10)));
        assert!(run.warnings.is_empty());

        let run = resolve(&config, &flags(&["--iterations", "3"])).unwrap();
        assert_eq!(run.iterations, 6);
        let phases: Vec<_> = build_schedule(&config, &run)
            .into_iter()
            .map(|slot| slot.phase.unwrap())
            .collect();
        assert_eq!(phases, ["1MB", "1MB", "1MB", "16MB", "16MB", "16MB"]);
    }

    #[test]
    fn mc7_uneven_phases_ignore_iterations_with_a_warning() {
        let config = bare(json!({"phases": [
            {"name": "cold", "iterations": 3}, {"name": "warm", "iterations": 2},
        ]}));
        let run = resolve(&config, &flags(&["--iterations", "99"])).unwrap();
        assert_eq!((run.iterations, run.phase_iterations), (5, None));
        assert_eq!(
            run.warnings,
            ["--iterations is ignored because this benchmark sizes its phases individually."]
        );
        let phases: Vec<_> = build_schedule(&config, &run)
            .into_iter()
            .map(|slot| slot.phase.unwrap())
            .collect();
        assert_eq!(phases, ["cold", "cold", "cold", "warm", "warm"]);
    }

    #[test]
    fn phase_without_iterations_fails_when_merged() {
        let config = bare(json!({"phases": [{"name": "cold"}, {"name": "warm", "iterations": 1}]}));
        let expected = "iterations must be an integer >= 1 (got NaN)";
        assert_eq!(
            resolve(&config, &flags(&[])).unwrap_err().to_string(),
            expected
        );
        let error = resolve(&config, &flags(&["--iterations", "2"])).unwrap_err();
        assert_eq!(error.to_string(), expected);
        // Evenly undeclared phases take `--iterations` per phase, as upstream.
        let config = bare(json!({"phases": [{"name": "cold"}, {"name": "warm"}]}));
        let run = resolve(&config, &flags(&["--iterations", "2"])).unwrap();
        assert_eq!((run.iterations, run.phase_iterations), (4, Some(2)));
    }

    #[test]
    fn schedule_lengths_beyond_u32_are_rejected() {
        let config = bare(json!({"phases": [
            {"name": "a", "iterations": 4_000_000_000_u32}, {"name": "b", "iterations": 4_000_000_000_u32},
        ]}));
        assert_eq!(
            resolve(&config, &flags(&[])).unwrap_err().to_string(),
            "iterations must be an integer between 1 and 4294967295 (got 8000000000)"
        );
    }

    #[test]
    fn schedule_without_phases_is_untagged() {
        let config = config_c(json!({"iterations": 3}));
        let run = resolve(&config, &flags(&[])).unwrap();
        assert_eq!(build_schedule(&config, &run), vec![Slot { phase: None }; 3]);
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
        let run = resolve(&shaped_config(), &flags(&["--shape", "staggered"])).unwrap();
        assert_eq!(run.benchmark_slug, "sandbox-staggered-local");
        assert_eq!(run.benchmark_name, "Sandbox staggered TTI");
        assert_eq!(run.stagger_delay_ms, 200.0);
        assert!(run.identity_is_ours);

        let run = resolve(&shaped_config(), &flags(&["--shape", "burst"])).unwrap();
        assert_eq!(run.benchmark_slug, "sandbox-burst-local");
        assert_eq!(run.benchmark_name, "sandbox-burst-local");
        assert_eq!(run.stagger_delay_ms, 50.0);

        let argv = [
            "--shape",
            "staggered",
            "--stagger-delay-ms",
            "10",
            "--slug",
            "x",
            "--name",
            "X",
        ];
        let run = resolve(&shaped_config(), &flags(&argv)).unwrap();
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
            resolve(&config, &flags(&["--shape", "nope"]))
                .unwrap_err()
                .to_string(),
            r#"Unknown --shape "nope". Known shapes: burst."#
        );
        assert_eq!(
            resolve(&shaped_config(), &flags(&["--shape", "nope"]))
                .unwrap_err()
                .to_string(),
            r#"Unknown --shape "nope". Known shapes: burst, staggered."#
        );
        assert_eq!(
            resolve(&bare(json!({})), &flags(&["--shape", "nope"]))
                .unwrap_err()
                .to_string(),
            r#"Unknown --shape "nope": this benchmark declares no shapes."#
        );
    }

    #[test]
    fn rb7_rb9_identity_overrides() {
        let config = shaped_config();
        let ours = |argv: &[&str]| resolve(&config, &flags(argv)).unwrap();
        let run = ours(&[
            "--slug",
            "sandbox-burst-local",
            "--name",
            "Sandbox burst TTI",
        ]);
        assert_eq!(run.benchmark_slug, "sandbox-burst-local");
        assert_eq!(run.benchmark_name, "Sandbox burst TTI");
        assert!(run.identity_is_ours);
        let run = ours(&["--benchmark", "sandbox-burst-local"]);
        assert_eq!(run.benchmark_slug, "sandbox-burst-local");
        assert_eq!(run.benchmark_name, "Sandbox TTI");
        assert!(!run.identity_is_ours);
        assert!(ours(&[]).identity_is_ours);
        assert!(ours(&["--benchmark", "sandbox-tti-local"]).identity_is_ours);
        assert!(ours(&["--benchmark", "other", "--shape", "burst"]).identity_is_ours);
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
        let run = resolve(&config, &flags(&[])).unwrap();
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
            &flags(&["--iterations", "5", "--stagger-delay-ms", "2.5"]),
        )
        .unwrap();
        assert_eq!(build_schedule(&config, &run).len(), 10);
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
        let run = resolve(&config, &flags(&["--shape", "burst"])).unwrap();
        assert_eq!(
            run_config_json(&config, &run, &[]).to_string(),
            r#"{"benchmarkSlug":"s-burst","benchmarkName":"Burst","phases":[{"name":"cold","iterations":3},{"name":"warm","iterations":1}],"concurrency":1,"staggerDelayMs":100,"groupBy":"round","participants":[]}"#
        );
    }
}
