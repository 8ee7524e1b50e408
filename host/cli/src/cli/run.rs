//! `bench run`: component → config → validated plan → executor → local
//! results (spec §3.1, local mode).

use super::coordinate::{
    coordinate, Coordination, Prior, WorkerShares, DEFAULT_ACK_WAIT, DEFAULT_WORKER_WAIT,
};
use super::dispatched::{self, DispatchedRun};
use super::interrupt::{self, DEFAULT_STOP_GRACE, INTERRUPTED_EXIT};
use super::task::{host_env, prepare, slot_config, Prepared};
use crate::flags::RunFlags;
use anyhow::{Context as _, Result};
use bench_dispatch::{Coordinator, CoordinatorSetup, PublicKey, RunDescriptor, SigningKey};
use bench_model::ceilings::LimitField;
use bench_model::config::GroupBy;
use bench_model::events::{Observers, RunObserver};
use bench_model::js;
use bench_model::plan::{self, HostInfo, LoadManifest, LoadModel, RunConfig, RunManifest};
use bench_model::plan::{ExecPlan, Shard};
use bench_model::text::escape_control;
use bench_platform::auth::Auth;
use bench_platform::reporter::{Closing, PlatformObserver, PlatformRun};
use bench_report::console::{Console, Header};
use bench_report::disk_budget::{DiskBudget, BUDGET_EXIT};
use bench_report::export::ExportManager;
use bench_report::failures::{FirstFailure, FAILED_TASKS_EXIT};
use bench_report::finish::{finish, RunResults};
use bench_report::metrics::MetricsRecorder;
use bench_report::origin;
use bench_report::paths;
use bench_report::progress::ProgressBars;
use bench_report::results::{for_each_record, read_manifest, renamed_log_files, ResultsWriter};
use bench_report::tally::RunTally;
use bench_report::RunReporter;
use bench_runtime::engine::{self, EngineSettings, TaskEngine};
use bench_runtime::exec::{self, ParticipantRun, SlotConfig};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Runs a benchmark task (a `.wasm` component or a project directory) with upstream flags.
pub(super) async fn run(task_path: &Path, argv: &[String]) -> Result<ExitCode> {
    run_task(task_path, argv, None).await
}

/// `bench run --resume <results-dir> [flags]`: reattaches to a dispatched run whose
/// coordinator stopped (killed, lost, or stopped by Ctrl-C or SIGTERM), and completes it in
/// the same results directory. `overrides` give connection flags again (`--dispatch URL`
/// with its credentials, `--sign`, `--nats-creds`…).
pub(super) async fn resume(dir: &Path, overrides: &[String]) -> Result<ExitCode> {
    let dispatched = DispatchedRun::read(dir)?;
    let mut manifest = read_manifest(dir)?;
    if manifest.completed_at.is_some() && !manifest.interrupted {
        anyhow::bail!(
            "the run in {} is complete: nothing to resume",
            dir.display()
        );
    }
    manifest.interrupted = false;
    manifest.completed_at = None;
    let mut dispatched = dispatched;
    let argv = dispatched.argv_with(overrides)?;
    dispatched.replace_argv(&argv);
    dispatched.write(dir)?;
    let component = dispatched.component.clone();
    let resumed = Resumed {
        dir: dir.to_owned(),
        manifest,
        dispatched,
    };
    run_task(&component, &argv, Some(resumed)).await
}

/// A dispatched run taken up again.
struct Resumed {
    dir: PathBuf,
    manifest: RunManifest,
    dispatched: DispatchedRun,
}

/// Why a spread run (`--dispatch`, `--shard`) cannot take the plan's load model, warm-up or
/// shuffle: those run on one machine only, and a spread run would silently drop them.
fn spread_with_single_machine_knobs(prepared: &Prepared) -> Option<String> {
    let spread = if prepared.flags.dispatch.is_some() {
        "--dispatch"
    } else if prepared.flags.shard.is_some() {
        "--shard"
    } else {
        return None;
    };
    let plan = &prepared.exec_plan;
    let knob = if plan.load != LoadModel::Iterations {
        format!("the {} executor", plan.load.kind().as_str())
    } else if plan.warmup > 0 {
        "--warmup".to_owned()
    } else if plan.shuffle_seed.is_some() {
        "--shuffle".to_owned()
    } else {
        return None;
    };
    Some(format!(
        "{knob} runs on one machine only; {spread} spreads upstream's iterations (leave out one of them)"
    ))
}

/// One run, new or `resumed`: prepared, its flags checked, its results directory opened,
/// its tasks run (here, on one shard's slots or by the workers of a dispatched run) with
/// every observer watching, then closed with its summary; the process's exit code.
async fn run_task(task_path: &Path, argv: &[String], resumed: Option<Resumed>) -> Result<ExitCode> {
    let mut prepared = prepare(task_path, argv).await?;
    let platform_auth = bench_platform::run_auth(prepared.flags.no_ingest).await?;
    refuse_flag_mix(&prepared, platform_auth.is_some())?;
    // On a terminal a progress bar replaces upstream's per-task lines; logs and pipes get
    // the lines unchanged.
    let bars =
        !prepared.flags.quiet && !prepared.flags.per_task_lines && std::io::stdout().is_terminal();
    let mut console = run_console(&prepared.flags, bars);
    for skipped in &prepared.skipped {
        console.line(&skipped.line());
    }
    if prepared.available.is_empty() {
        console.line(&plan::no_participants_message(&prepared.skipped));
        return Ok(ExitCode::SUCCESS);
    }
    // From here on Ctrl-C stops the run gracefully: what ran is kept and summarized.
    let grace = prepared
        .flags
        .stop_grace_ms
        .map_or(DEFAULT_STOP_GRACE, Duration::from_millis);
    interrupt::watch(prepared.exec_plan.stop.clone(), grace)?;
    load_into_run_engine(&mut prepared)?;
    let started_at = SystemTime::now();
    let (opened, results, dispatched) = open_results(&prepared, argv, resumed, started_at)?;
    print_header(&prepared, &mut console, started_at);
    let participants = local_participants(&prepared)?;
    let group_by = prepared.resolved.group_by;
    let interval = MetricsRecorder::interval(group_by);
    let metrics = MetricsRecorder::start(&opened.dir, interval, opened.disk.clone())?;
    let platform = start_platform(&prepared, platform_auth.as_ref(), &opened, &mut console);
    let platform = platform.await?;
    // The results writer sees every event first: a record is on disk before it is sent.
    // The tally keeps what the summary needs of each record; no record is kept.
    let mut watchers = Watchers {
        progress: bars.then(ProgressBars::default),
        reporter: RunReporter { console, results },
        tally: RunTally::new(&opened.manifest),
        metrics: metrics.clone(),
        first_failure: FirstFailure::default(),
        platform: platform.as_ref().map(|p| p.observer(metrics.clone())),
    };
    // A resumed run's records so far count as they did; the coordinator skips their tasks.
    let mut prior = Prior::new(&opened.names, prepared.exec_plan.schedule.len());
    if opened.resuming {
        for_each_record(&opened.dir, |participant, record| {
            watchers.tally.add(participant, record);
            prior.add(participant, record);
        })?;
    }
    let plan = &prepared.exec_plan;
    let shares = match (&prepared.flags.dispatch, prepared.flags.shard) {
        (Some(url), _) => {
            let dispatched = dispatched.context("a dispatched run has its dispatch.json")?;
            let link = start_coordinator(&prepared, argv, url, &opened, &dispatched).await?;
            let run = Coordination {
                link,
                names: &opened.names,
                plan,
                group_by,
                worker_wait: prepared
                    .flags
                    .worker_wait_ms
                    .map_or(DEFAULT_WORKER_WAIT, Duration::from_millis),
                platform: platform.as_ref(),
                prior,
                dispatched,
                dir: &opened.dir,
            };
            Some(coordinate(run, &mut watchers.observers()).await?)
        }
        (None, Some(shard)) => {
            let observers = &mut watchers.observers();
            execute_shard(group_by, shard, &participants, plan, observers).await?;
            None
        }
        (None, None) => {
            let observers = &mut watchers.observers();
            execute(group_by, &participants, plan, observers, platform.as_ref()).await?;
            None
        }
    };
    let closed = Closed {
        watchers,
        platform,
        shares,
    };
    close_run(&prepared, opened, closed).await
}

/// Loads the task into the run's engine, whose instance pool holds exactly the sandboxes the
/// run keeps alive (it also drives their deadlines, so it lives as long as `prepared`, to
/// the run's end), and drops the engine the task was loaded with.
fn load_into_run_engine(prepared: &mut Prepared) -> Result<()> {
    let pool = prepared.task.pool_size(prepared.sandboxes as u32);
    let engine = TaskEngine::for_run(&EngineSettings::default(), pool)?;
    prepared.task = Arc::new(prepared.task.load_into(&engine)?);
    drop(std::mem::replace(&mut prepared.engine, engine));
    Ok(())
}

/// Starts reporting the run to the platform, when the run reports to one (`auth`).
async fn start_platform(
    prepared: &Prepared,
    auth: Option<&Auth>,
    opened: &Opened,
    console: &mut Console,
) -> Result<Option<PlatformRun>> {
    let Some(auth) = auth else {
        return Ok(None);
    };
    let upsert = prepared.resolved.identity_is_ours;
    let run_key = prepared.flags.run_key.as_deref();
    let (manifest, dir) = (&opened.manifest, &opened.dir);
    let started = PlatformRun::start(auth, manifest, dir, upsert, run_key, console);
    Ok(Some(started.await?))
}

/// What the run is left with once its tasks are done.
struct Closed {
    watchers: Watchers,
    platform: Option<PlatformRun>,
    /// Who ran the tasks of a dispatched run.
    shares: Option<WorkerShares>,
}

/// Ends a run whose tasks are done: clears the bars, flushes the results and takes a last
/// metrics sample, finishes the platform run, completes `run.json`, prints the summary and
/// reports it; returns the run's exit code.
async fn close_run(prepared: &Prepared, opened: Opened, closed: Closed) -> Result<ExitCode> {
    let Opened {
        exports,
        disk,
        mut manifest,
        ..
    } = opened;
    let Closed {
        watchers,
        platform,
        shares,
    } = closed;
    // The platform's observer stays until the run's end, as every other one.
    let Watchers {
        mut progress,
        mut reporter,
        tally,
        metrics,
        first_failure,
        platform: _platform_observer,
    } = watchers;
    if let Some(progress) = &mut progress {
        progress.clear();
    }
    reporter.results.flush()?;
    metrics.sample();
    let mut closing = match platform {
        Some(platform) => platform.finish().await,
        None => Closing::default(),
    };
    for line in closing.done_lines() {
        reporter.console.line(&line);
    }
    if let Some(shares) = &shares {
        reporter.console.line(&worker_shares_line(shares));
    }
    let completed_at = SystemTime::now();
    let counts = tally.task_counts();
    manifest.complete(js::iso_timestamp(completed_at), counts);
    if let Some(load) = manifest.load.as_mut().filter(|load| load.is_open()) {
        load.dropped = tally.dropped();
    }
    manifest.interrupted = prepared.exec_plan.stop.is_stopping();
    reporter.results.write_run_json(&manifest)?;
    let results = RunResults {
        manifest: &manifest,
        tally,
        dir: reporter.results.dir(),
        exports: &exports,
        fail_under: prepared.flags.fail_under,
    };
    let code = finish(&mut reporter.console, results)?;
    closing.submit_summary().await;
    closing.report(prepared.flags.require_upload).await?;
    reporter
        .console
        .line(&format!("Results: {}", reporter.results.dir().display()));
    let verdict = first_failure.verdict(counts, &prepared.flags.failure_gates);
    Ok(exit_code(
        prepared,
        code,
        &disk,
        manifest.interrupted,
        verdict,
    ))
}

/// The exit code of a finished run: the disk budget's when its results reached it, the
/// interrupted one when it was stopped, the failed tasks' when a failure gate says so
/// (`verdict`), else the summary's `code` (`--fail-under`).
fn exit_code(
    prepared: &Prepared,
    code: ExitCode,
    disk: &DiskBudget,
    interrupted: bool,
    verdict: Option<String>,
) -> ExitCode {
    if let Some(budget) = disk.reached() {
        let limits = prepared.grants.effective_limits();
        eprintln!(
            "Benchmark stopped: its results reached the disk budget of {} (set by {}; raise it \
             with --disk-budget SIZE); the records of every task that ran are kept, and the \
             summary covers them",
            LimitField::DiskBytes.spec().shown(Some(budget)),
            limits.get(LimitField::DiskBytes).set_by
        );
        return ExitCode::from(BUDGET_EXIT);
    }
    if interrupted {
        return ExitCode::from(INTERRUPTED_EXIT);
    }
    if let Some(verdict) = verdict {
        eprintln!("{verdict}");
        return ExitCode::from(FAILED_TASKS_EXIT);
    }
    code
}

/// Refuses flags that do not go together, before anything runs: `--shard` with
/// `--dispatch` or with platform reporting (`reporting`), a one-machine knob in a spread
/// run, a coordinator's flag without `--dispatch`.
fn refuse_flag_mix(prepared: &Prepared, reporting: bool) -> Result<()> {
    let flags = &prepared.flags;
    if let (Some(_), Some(shard)) = (&flags.dispatch, flags.shard) {
        anyhow::bail!("--shard {shard} and --dispatch do not go together: a dispatched run spreads all of its tasks over the workers");
    }
    if let Some(spread) = spread_with_single_machine_knobs(prepared) {
        anyhow::bail!(spread);
    }
    if let Some(flag) = coordinator_flag_without_dispatch(prepared) {
        anyhow::bail!(
            "{flag} goes with --dispatch: it is how a dispatched run reaches NATS, signs or trusts"
        );
    }
    if let (Some(shard), true) = (flags.shard, reporting) {
        anyhow::bail!(
            "--shard {shard} runs only part of a run, so it reports nothing to the platform: add --no-ingest, then bench merge the shards and bench upload the merged results"
        );
    }
    Ok(())
}

/// The run's console: quiet, without upstream's task lines under progress `bars`, or with
/// them; coloured as `--color` and `NO_COLOR` say.
fn run_console(flags: &RunFlags, bars: bool) -> Console {
    let console = if flags.quiet {
        Console::quiet()
    } else if bars {
        Console::without_task_lines()
    } else {
        Console::default()
    };
    console.with_color(crate::color::choice().stdout())
}

/// A run's results directory, created (or reopened to resume), with `run.json` written.
struct Opened {
    dir: PathBuf,
    exports: ExportManager,
    disk: Arc<DiskBudget>,
    /// Participant names, in run order.
    names: Vec<String>,
    /// What `run.json` holds: a new run's manifest, or the resumed one's.
    manifest: RunManifest,
    /// Whether the run resumes one whose records are already there.
    resuming: bool,
}

/// Creates the results directory (refusing an earlier run's, unless resuming) and writes
/// `run.json`, a new dispatched run its `dispatch.json` too: the directory, its writer and
/// the `dispatch.json` of a dispatched run.
fn open_results(
    prepared: &Prepared,
    argv: &[String],
    resumed: Option<Resumed>,
    started_at: SystemTime,
) -> Result<(Opened, ResultsWriter, Option<DispatchedRun>)> {
    let flags = &prepared.flags;
    let run_id = run_id(started_at);
    let dir = match &resumed {
        Some(resumed) => resumed.dir.clone(),
        None => flags
            .out
            .as_ref()
            .map(PathBuf::from)
            .unwrap_or_else(|| paths::results_dir(&prepared.resolved.benchmark_slug, &run_id)),
    };
    // Refused before anything is created or truncated.
    if resumed.is_none() {
        ResultsWriter::refuse_earlier_run(&dir)?;
    }
    let exports = ExportManager::create(&flags.exports)?;
    let limits = prepared.grants.effective_limits();
    let max_log_bytes = limits.max_participant_log_bytes();
    let stop = prepared.exec_plan.stop.clone();
    let disk = DiskBudget::new(limits.value(LimitField::DiskBytes), stop);
    let results = match &resumed {
        Some(_) => ResultsWriter::reopen(&dir, max_log_bytes, disk.clone())?,
        None => ResultsWriter::create(&dir, max_log_bytes, disk.clone())?,
    };
    let names: Vec<String> = prepared.available.iter().map(|p| p.name.clone()).collect();
    let resuming = resumed.is_some();
    let (manifest, dispatched) = match resumed {
        Some(resumed) => (resumed.manifest, Some(resumed.dispatched)),
        None => (fresh_manifest(prepared, run_id, started_at, &names), None),
    };
    results.write_run_json(&manifest)?;
    let dispatched = match (&flags.dispatch, dispatched) {
        (Some(_), None) => {
            let component = std::path::absolute(&manifest.component.path)?;
            let dispatched = DispatchedRun::new(component, argv);
            dispatched.write(&dir)?;
            Some(dispatched)
        }
        (_, dispatched) => dispatched,
    };
    let opened = Opened {
        dir,
        exports,
        disk,
        names,
        manifest,
        resuming,
    };
    Ok((opened, results, dispatched))
}

/// The manifest a new run starts with: `run.json` until the run completes.
fn fresh_manifest(
    prepared: &Prepared,
    run_id: String,
    started_at: SystemTime,
    names: &[String],
) -> RunManifest {
    let resolved = &prepared.resolved;
    let load = LoadManifest::of(&resolved.load);
    let floor = exec::measure_floor();
    let floor = match &load {
        Some(load) if load.is_open() => exec::with_arrival_lag(floor),
        _ => floor,
    };
    RunManifest {
        run_config: RunConfig::new(&prepared.config, resolved, names),
        display: prepared.config.display.clone(),
        run_id,
        started_at: js::iso_timestamp(started_at),
        component: prepared.task.info(),
        host: HostInfo::current(env!("CARGO_PKG_VERSION"), engine::wasmtime_version()),
        origin: origin::collect_here(),
        completed_at: None,
        tasks: None,
        log_files: renamed_log_files(names.iter().map(String::as_str)),
        interrupted: false,
        shard: prepared.flags.shard,
        load,
        warmup: (resolved.warmup > 0).then_some(resolved.warmup),
        shuffle_seed: resolved.shuffle_seed,
        instrument_floor: Some(floor),
    }
}

/// Upstream's header, then the run's load model and shuffle seed when it has them.
fn print_header(prepared: &Prepared, console: &mut Console, started_at: SystemTime) {
    let resolved = &prepared.resolved;
    let date = js::iso_timestamp(started_at);
    console.header(&Header {
        benchmark_name: &resolved.benchmark_name,
        date: &date,
        dry_run: prepared.flags.no_ingest,
        iterations: prepared.exec_plan.schedule.len(),
        concurrency: resolved.concurrency,
        stagger_delay_ms: resolved.stagger_delay_ms,
        group_by: resolved.group_by.as_str(),
    });
    if let Some(load) = resolved.load.describe(resolved.concurrency) {
        console.line(&format!("Load: {load}"));
    }
    if let Some(seed) = resolved.shuffle_seed {
        console.line(&format!(
            "Shuffle: participant order changes every round (seed {seed}; --shuffle={seed} repeats it)"
        ));
    }
}

/// The participants this machine runs, with their slots: every available one, or none in
/// a dispatched run (its sandboxes are the workers', with their own environment).
fn local_participants(prepared: &Prepared) -> Result<Vec<ParticipantRun<SlotConfig>>> {
    let local = if prepared.flags.dispatch.is_some() {
        &[][..]
    } else {
        &prepared.available[..]
    };
    local
        .iter()
        .map(|participant| {
            Ok(ParticipantRun {
                name: participant.name.clone(),
                slots: slot_config(
                    &prepared.task,
                    participant,
                    &prepared.config,
                    &prepared.flags,
                    &prepared.grants,
                    &prepared.exec_plan.stop,
                    &host_env,
                )?,
            })
        })
        .collect()
}

/// Starts the coordinator of a dispatched run on `url`: the run's descriptor and component
/// for the workers, with the signing key and trusted worker keys the flags name.
async fn start_coordinator(
    prepared: &Prepared,
    argv: &[String],
    url: &str,
    opened: &Opened,
    dispatched: &DispatchedRun,
) -> Result<Coordinator> {
    let (flags, manifest) = (&prepared.flags, &opened.manifest);
    let descriptor = RunDescriptor {
        run_id: manifest.run_id.clone(),
        component_sha256: manifest.component.sha256.clone(),
        argv: dispatched::worker_argv(argv),
        participants: opened.names.clone(),
        ack_wait_ms: flags
            .ack_wait_ms
            .unwrap_or(DEFAULT_ACK_WAIT.as_millis() as u64),
        done: false,
        revision: 0,
    };
    let component = std::fs::read(&manifest.component.path)?;
    let access = dispatched::access(url, &flags.nats)?;
    let signer = flags
        .sign
        .as_deref()
        .map(|path| SigningKey::read(Path::new(path)))
        .transpose()?;
    let trusted_workers = match flags.trust_workers.as_slice() {
        [] => None,
        paths => Some(
            paths
                .iter()
                .map(|path| PublicKey::read(Path::new(path)))
                .collect::<Result<Vec<_>>>()?,
        ),
    };
    let setup = CoordinatorSetup {
        access: &access,
        descriptor,
        component: &component,
        signer,
        trusted_workers,
        known_workers: dispatched.known_workers(),
        resumed: opened.resuming,
    };
    Coordinator::start(setup).await
}

/// What watches a run's events. The bar goes first (it only draws): it is cleared before
/// the console ends its line; then the results writer, so a record is on disk before
/// anything sends it.
struct Watchers {
    progress: Option<ProgressBars>,
    reporter: RunReporter,
    tally: RunTally,
    metrics: MetricsRecorder,
    first_failure: FirstFailure,
    platform: Option<PlatformObserver>,
}

impl Watchers {
    /// All of them, as one observer, in that order.
    fn observers(&mut self) -> Observers<'_> {
        let mut observers = Observers::default();
        if let Some(progress) = &mut self.progress {
            observers.push(progress);
        }
        observers.push(&mut self.reporter);
        observers.push(&mut self.tally);
        observers.push(&mut self.metrics);
        observers.push(&mut self.first_failure);
        if let Some(observer) = &mut self.platform {
            observers.push(observer);
        }
        observers
    }
}

async fn execute(
    group_by: GroupBy,
    participants: &[ParticipantRun<SlotConfig>],
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
    platform: Option<&PlatformRun>,
) -> Result<()> {
    match group_by {
        GroupBy::Round => {
            if let Some(platform) = platform {
                platform.begin_rounds();
            }
            exec::run_rounds(participants, plan, observer).await
        }
        GroupBy::Participant => {
            for participant in participants {
                if plan.stop.is_stopping() {
                    break;
                }
                if let Some(platform) = platform {
                    if !platform.begin(&participant.name)? {
                        continue;
                    }
                }
                match &plan.load {
                    LoadModel::Iterations => {
                        exec::run_participant(participant, plan, observer).await?
                    }
                    LoadModel::Duration(duration) => {
                        exec::run_for_duration(participant, plan, *duration, observer).await?
                    }
                    LoadModel::ArrivalRate(arrivals) => {
                        exec::run_arrivals(participant, plan, arrivals, observer).await?
                    }
                }
            }
            Ok(())
        }
    }
}

/// Runs the participant slots of one static shard (`--shard i/N`, see `exec::Shard`).
async fn execute_shard(
    group_by: GroupBy,
    shard: Shard,
    participants: &[ParticipantRun<SlotConfig>],
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    match group_by {
        GroupBy::Round => {
            let held: Vec<ParticipantRun<SlotConfig>> = participants
                .iter()
                .enumerate()
                .filter(|(position, _)| shard.runs_rounds_of(*position))
                .map(|(_, participant)| participant.clone())
                .collect();
            if held.is_empty() {
                return Ok(());
            }
            exec::run_rounds(&held, plan, observer).await
        }
        GroupBy::Participant => {
            for (position, participant) in participants.iter().enumerate() {
                if plan.stop.is_stopping() {
                    break;
                }
                exec::run_participant_shard(participant, position, shard, plan, observer).await?;
            }
            Ok(())
        }
    }
}

/// A flag only a dispatched run takes, given without `--dispatch`.
fn coordinator_flag_without_dispatch(prepared: &Prepared) -> Option<&'static str> {
    let flags = &prepared.flags;
    if flags.dispatch.is_some() {
        return None;
    }
    let nats = &flags.nats;
    [
        (flags.sign.is_some(), "--sign"),
        (!flags.trust_workers.is_empty(), "--trust-worker"),
        (nats.creds.is_some(), "--nats-creds"),
        (nats.nkey.is_some(), "--nats-nkey"),
        (nats.ca.is_some(), "--nats-ca"),
        (nats.cert.is_some(), "--nats-cert"),
        (nats.key.is_some(), "--nats-key"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// `Workers: w1 60 tasks (50%), w2 60 tasks (50%)`: who ran the dispatched run's tasks.
fn worker_shares_line(shares: &WorkerShares) -> String {
    let total: u64 = shares.values().sum();
    if total == 0 {
        return "Workers: none recorded a task".to_owned();
    }
    let parts: Vec<String> = shares
        .iter()
        .map(|(worker, tasks)| {
            let percent = *tasks as f64 * 100.0 / total as f64;
            format!("{} {tasks} tasks ({percent:.1}%)", escape_control(worker))
        })
        .collect();
    format!("Workers: {}", parts.join(", "))
}

/// A run id: a UUIDv7 of the start time (milliseconds, so ids sort by start) and 74 random
/// bits, so two runs never share an id (the platform's idempotency keys start with it).
fn run_id(started_at: SystemTime) -> String {
    let since_epoch = started_at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let timestamp = uuid::Timestamp::from_unix(
        uuid::NoContext,
        since_epoch.as_secs(),
        since_epoch.subsec_nanos(),
    );
    uuid::Uuid::new_v7(timestamp).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_workers_line_gives_each_share_escaped() {
        let shares = WorkerShares::from([("w1".to_owned(), 1), ("w\x1b[2J".to_owned(), 3)]);
        assert_eq!(
            worker_shares_line(&shares),
            "Workers: w\\x1b[2J 3 tasks (75.0%), w1 1 tasks (25.0%)"
        );
    }

    #[test]
    fn run_ids_sort_by_start_and_differ_within_a_millisecond() {
        let start = SystemTime::UNIX_EPOCH + Duration::from_millis(1_767_225_600_000);
        let first = run_id(start);
        let same_instant = run_id(start);
        let later = run_id(start + Duration::from_millis(1));
        assert_ne!(first, same_instant);
        assert!(first < later && same_instant < later);
        let parsed = uuid::Uuid::parse_str(&first).unwrap();
        assert_eq!(parsed.get_version_num(), 7);
        assert!(first.starts_with("019b76da-a800-7"), "{first}");
    }
}
