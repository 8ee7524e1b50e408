//! Shape and identity overrides and `mergeConfig` (spec §1.6): the knobs a run uses.

use super::load::{resolve_load, LoadModel, LoadOverrides};
use super::PlanError;
use crate::config::{positive_int, BenchmarkConfig, GroupBy, Shape};
use crate::record::WARMUP_PHASE;

/// Upstream's `mergeConfig` warning when `--iterations` meets unevenly sized phases.
pub(crate) const UNEVEN_PHASES_WARNING: &str =
    "--iterations is ignored because this benchmark sizes its phases individually.";

/// What the command line overrides in a config (upstream's run flags, spec §5.2); `None`
/// when not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// `--benchmark`/`--slug`: platform slug override.
    pub benchmark: Option<String>,
    /// `--name`: display name override.
    pub name: Option<String>,
    /// `--shape`: named identity to apply.
    pub shape: Option<String>,
    /// `--iterations`.
    pub iterations: Option<u32>,
    /// `--concurrency`.
    pub concurrency: Option<u32>,
    /// `--stagger-delay-ms`.
    pub stagger_delay_ms: Option<f64>,
    /// `--group-by`.
    pub group_by: Option<GroupBy>,
    /// `--provider` names, appended across repeats (`Some(vec![])` selects nobody).
    pub providers: Option<Vec<String>>,
    /// `--duration`, `--rate`, `--stages`, `--pre-allocated`, `--max-sandboxes`.
    pub load: LoadOverrides,
    /// `--warmup N`: warm-up tasks per slot before the measured ones.
    pub warmup: Option<u32>,
    /// `--shuffle`: a new participant order in every round.
    pub shuffle: bool,
    /// `--shuffle=SEED`: the seed of that order (random when not given).
    pub shuffle_seed: Option<u64>,
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
    /// How tasks are started (the config's `executor` and the load flags).
    pub load: LoadModel,
    /// Warm-up tasks per slot (0: none).
    pub warmup: u32,
    /// The seed of the shuffled round order, when rounds are shuffled.
    pub shuffle_seed: Option<u64>,
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
pub fn resolve(config: &BenchmarkConfig, overrides: &Overrides) -> Result<ResolvedRun, PlanError> {
    let mut slug = config.benchmark_slug.clone();
    let mut name = config.benchmark_name.clone();
    let mut stagger_delay_ms = config.stagger_delay_ms;
    if let Some(shape_name) = &overrides.shape {
        let shape = find_shape(config, shape_name)?;
        slug = shape.slug.clone();
        name = shape.name.clone().unwrap_or_else(|| shape.slug.clone());
        stagger_delay_ms = shape.stagger_delay_ms.or(stagger_delay_ms);
    }
    if let Some(benchmark) = &overrides.benchmark {
        slug = benchmark.clone();
    }
    if let Some(flag_name) = &overrides.name {
        name = flag_name.clone();
    }
    let mut warnings = Vec::new();
    let (iterations, phase_iterations) = match &config.phases {
        None => {
            let iterations = overrides.iterations.or(config.iterations).unwrap_or(1);
            (f64::from(iterations), None)
        }
        Some(phases) => {
            let counts: Vec<Option<u32>> = phases.iter().map(|p| p.iterations).collect();
            let uneven = counts.iter().any(|count| counts.first() != Some(count));
            match overrides.iterations {
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
    let concurrency = overrides.concurrency.or(config.concurrency).unwrap_or(1);
    let group_by = overrides
        .group_by
        .or(config.group_by)
        .unwrap_or(GroupBy::Participant);
    let warmup = overrides.warmup.unwrap_or(0);
    if warmup > 0
        && config
            .phases
            .iter()
            .flatten()
            .any(|phase| phase.name == WARMUP_PHASE)
    {
        return Err(PlanError::InvalidKnob(format!(
            "--warmup records its tasks in phase '{WARMUP_PHASE}', which this config declares itself; rename that phase"
        )));
    }
    if overrides.shuffle && group_by != GroupBy::Round {
        return Err(PlanError::InvalidKnob(
            "--shuffle reorders participants within rounds; it needs --group-by round".into(),
        ));
    }
    let shuffle_seed = overrides
        .shuffle
        .then(|| overrides.shuffle_seed.unwrap_or_else(|| fastrand::u64(..)));
    Ok(ResolvedRun {
        benchmark_slug: slug,
        benchmark_name: name,
        iterations,
        phase_iterations,
        concurrency,
        stagger_delay_ms: overrides
            .stagger_delay_ms
            .or(stagger_delay_ms)
            .unwrap_or(0.0),
        group_by,
        load: resolve_load(config, &overrides.load, concurrency, group_by)?,
        warmup,
        shuffle_seed,
        providers: overrides
            .providers
            .clone()
            .or_else(|| config.default_providers.clone()),
        identity_is_ours: overrides.shape.is_some()
            || overrides.name.is_some()
            || overrides
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
