//! The `runConfig` a run is described by (spec §6.2).

use super::ResolvedRun;
use crate::config::BenchmarkConfig;
use crate::js;
use serde_json::{json, Map, Value};

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
