//! What `bench run`, `bench check` and `bench inspect` share: the task loaded, its config
//! validated, the flags parsed, the plan resolved and the sandbox grants decided.

use crate::flags::{self, RunFlags};
use crate::project::{self, progress::BuildProgress};
use crate::settings;
use anyhow::Result;
use bench_model::ceilings::Ceilings;
use bench_model::config::{self, BenchmarkConfig, Participant};
use bench_model::plan::ExecPlan;
use bench_model::plan::{self, ResolvedRun, Skipped};
use bench_report::gate;
use bench_runtime::compile_budget::CompileBudget;
use bench_runtime::component::TaskComponent;
use bench_runtime::engine::{EngineSettings, TaskEngine};
use bench_runtime::sandbox::grants::RunGrants;
use std::path::Path;
use std::sync::Arc;

/// Everything decided before the first task runs.
pub(super) struct Prepared {
    /// The engine the task was loaded with (sandboxes allocated on demand); a run loads
    /// the task into an engine of its own, sized to the run, which takes this one's place.
    pub engine: TaskEngine,
    /// The loaded task.
    pub task: Arc<TaskComponent>,
    /// Its validated config.
    pub config: BenchmarkConfig,
    /// The run flags.
    pub flags: RunFlags,
    /// Knobs after shapes, overrides and merging.
    pub resolved: ResolvedRun,
    /// Participants that will run.
    pub available: Vec<Participant>,
    /// Participants skipped for missing env vars.
    pub skipped: Vec<Skipped>,
    /// Sandbox grants.
    pub grants: RunGrants,
    /// The schedule, concurrency and pacing the executors follow.
    pub exec_plan: ExecPlan,
    /// Sandboxes the run keeps alive at once (within the grants' cap).
    pub sandboxes: usize,
}

/// Where a run's sandboxes get environment variables from: this process's environment
/// ([`host_env`], `bench run`), or only what a worker's operator serves (`bench worker
/// --serve-env`).
pub(super) type Env<'a> = &'a (dyn Fn(&str) -> Option<String> + Sync);

/// A variable of this process's environment.
pub(super) fn host_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The step shown while wasmtime compiles a component it has not cached yet.
const COMPILING: &str = "compiling component (cached next time)";

/// The flag that lets a build run install scripts (read before the build, as `-q` is).
const ALLOW_SCRIPTS_FLAG: &str = "--allow-build-scripts";

/// Whether the words ask for quiet output (`-q`/`--quiet`, checked before the flags are
/// parsed, so the build is quiet too).
fn is_quiet(argv: &[String]) -> bool {
    argv.iter().any(|word| word == "-q" || word == "--quiet")
}

/// Loads the task and decides everything a run needs before its first task, with this
/// process's environment.
pub(super) async fn prepare(task_path: &Path, argv: &[String]) -> Result<Prepared> {
    // The operator's ceilings and budgets: the command line's, then the environment's and
    // the bench config file's.
    let mut ceilings = flags::ceilings_of(argv)?;
    settings::apply(&mut ceilings)?;
    prepare_with(task_path, argv, ceilings, &host_env).await
}

/// [`prepare`] within the ceilings and budgets `ceilings`, with participants' variables
/// from `env`.
pub(super) async fn prepare_with(
    task_path: &Path,
    argv: &[String],
    ceilings: Ceilings,
    env: Env<'_>,
) -> Result<Prepared> {
    let progress = BuildProgress::on_stderr(is_quiet(argv));
    let scripts = settings::build_scripts(argv.iter().any(|word| word == ALLOW_SCRIPTS_FLAG))?;
    let wasm = project::resolve_task(task_path, progress, scripts)?;
    let engine = TaskEngine::new(&EngineSettings::default())?
        .with_compile_budget(CompileBudget::of(&ceilings));
    // Shown on a terminal only: piped stderr does not depend on the cache.
    let compiling = engine
        .must_compile(&wasm)
        .then(|| progress.terminal_step(COMPILING));
    let task = Arc::new(TaskComponent::load(&engine, &wasm)?);
    drop(compiling);
    let config_json = task.config_json().await?;
    let config = config::parse_config(&config_json)?;
    let no_ingest_env = std::env::var("BENCHSDK_NO_INGEST").ok();
    let mut flags =
        flags::parse_run_flags(argv, &config.custom_cli_flags, no_ingest_env.as_deref())?;
    flags.sandbox.ceilings = ceilings;
    let resolved = plan::resolve(&config, &flags.plan)?;
    gate::ensure_scored(config.scoring.is_some(), flags.fail_under)?;
    let grants = RunGrants::resolve(&config, &flags.sandbox)?;
    for warning in &resolved.warnings {
        eprintln!("{warning}");
    }
    let selected = plan::select_participants(&config.participants, resolved.providers.as_deref())?;
    // A dispatched run's participants need their env vars on the workers, not here.
    let (available, skipped) = if flags.dispatch.is_some() {
        (selected, Vec::new())
    } else {
        plan::filter_by_env(selected, env)
    };
    let exec_plan = ExecPlan {
        schedule: Arc::new(plan::Schedule::for_run(&config, &resolved)),
        concurrency: resolved.concurrency,
        stagger_delay_ms: resolved.stagger_delay_ms,
        load: resolved.load.clone(),
        warmup: resolved.warmup,
        shuffle_seed: resolved.shuffle_seed,
        stop: Default::default(),
    };
    let sandboxes = exec_plan.sandboxes_at_once(resolved.group_by, available.len());
    grants.ensure_sandboxes(
        sandboxes,
        resolved.group_by,
        &resolved.load,
        resolved.concurrency,
    )?;
    Ok(Prepared {
        engine,
        task,
        config,
        flags,
        resolved,
        available,
        skipped,
        grants,
        exec_plan,
        sandboxes,
    })
}
