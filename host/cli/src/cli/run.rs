//! `bench run`: component → config → validated plan → executor → local
//! results (spec §3.1, local mode).

use super::coordinate::{
    coordinate, Coordination, Prior, WorkerShares, DEFAULT_ACK_WAIT, DEFAULT_WORKER_WAIT,
};
use super::dispatched::{self, DispatchedRun};
use super::interrupt::{self, DEFAULT_STOP_GRACE, INTERRUPTED_EXIT};
use super::task::{host_env, prepare, slot_config, Prepared};
use anyhow::{Context as _, Result};
use bench_dispatch::{Coordinator, CoordinatorSetup, PublicKey, RunDescriptor, SigningKey};
use bench_model::ceilings::LimitField;
use bench_model::config::GroupBy;
use bench_model::events::{Observers, RunObserver};
use bench_model::js;
use bench_model::plan::{self, HostInfo, LoadManifest, LoadModel, RunConfig, RunManifest};
use bench_model::plan::{ExecPlan, Shard};
use bench_model::text::escape_control;
use bench_platform::reporter::{Closing, PlatformRun};
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

async fn run_task(task_path: &Path, argv: &[String], resumed: Option<Resumed>) -> Result<ExitCode> {
    let prepared = prepare(task_path, argv).await?;
    let platform_auth = bench_platform::run_auth(prepared.flags.no_ingest).await?;
    if let (Some(_), Some(shard)) = (&prepared.flags.dispatch, prepared.flags.shard) {
        anyhow::bail!("--shard {shard} and --dispatch do not go together: a dispatched run spreads all of its tasks over the workers");
    }
    if let Some(spread) = spread_with_single_machine_knobs(&prepared) {
        anyhow::bail!(spread);
    }
    if let Some(flag) = coordinator_flag_without_dispatch(&prepared) {
        anyhow::bail!(
            "{flag} goes with --dispatch: it is how a dispatched run reaches NATS, signs or trusts"
        );
    }
    if let (Some(shard), Some(_)) = (prepared.flags.shard, &platform_auth) {
        anyhow::bail!(
            "--shard {shard} runs only part of a run, so it reports nothing to the platform: add --no-ingest, then bench merge the shards and bench upload the merged results"
        );
    }
    // On a terminal a progress bar replaces upstream's per-task lines; logs and pipes get
    // the lines unchanged.
    let bars =
        !prepared.flags.quiet && !prepared.flags.per_task_lines && std::io::stdout().is_terminal();
    let console = if prepared.flags.quiet {
        Console::quiet()
    } else if bars {
        Console::without_task_lines()
    } else {
        Console::default()
    };
    let mut console = console.with_color(crate::color::choice().stdout());
    for skipped in &prepared.skipped {
        console.line(&skipped.line());
    }
    if prepared.available.is_empty() {
        console.line(&plan::no_participants_message(&prepared.skipped));
        return Ok(ExitCode::SUCCESS);
    }
    let Prepared {
        engine: loading_engine,
        task,
        config,
        flags,
        resolved,
        available,
        grants,
        exec_plan,
        sandboxes,
        ..
    } = prepared;
    // From here on Ctrl-C stops the run gracefully: what ran is kept and summarized.
    let grace = flags
        .stop_grace_ms
        .map_or(DEFAULT_STOP_GRACE, Duration::from_millis);
    interrupt::watch(exec_plan.stop.clone(), grace)?;
    // The run's engine: its instance pool holds exactly the sandboxes the run keeps alive
    // (it also drives their deadlines, so it lives until the run ends).
    let _engine =
        TaskEngine::for_run(&EngineSettings::default(), task.pool_size(sandboxes as u32))?;
    let task = Arc::new(task.load_into(&_engine)?);
    drop(loading_engine);
    let started_at = SystemTime::now();
    let run_id = run_id(started_at);
    let dir = match &resumed {
        Some(resumed) => resumed.dir.clone(),
        None => flags
            .out
            .as_ref()
            .map(PathBuf::from)
            .unwrap_or_else(|| paths::results_dir(&resolved.benchmark_slug, &run_id)),
    };
    // Refused before anything is created or truncated.
    if resumed.is_none() {
        ResultsWriter::refuse_earlier_run(&dir)?;
    }
    let exports = ExportManager::create(&flags.exports)?;
    let limits = grants.effective_limits();
    let max_log_bytes = limits.max_participant_log_bytes();
    let disk = DiskBudget::new(limits.value(LimitField::DiskBytes), exec_plan.stop.clone());
    let results = match &resumed {
        Some(_) => ResultsWriter::reopen(&dir, max_log_bytes, disk.clone())?,
        None => ResultsWriter::create(&dir, max_log_bytes, disk.clone())?,
    };
    let names: Vec<String> = available.iter().map(|p| p.name.clone()).collect();
    let load_manifest = LoadManifest::of(&resolved.load);
    let floor = exec::measure_floor();
    let floor = match &load_manifest {
        Some(load) if load.is_open() => exec::with_arrival_lag(floor),
        _ => floor,
    };
    let fresh = RunManifest {
        run_config: RunConfig::new(&config, &resolved, &names),
        display: config.display.clone(),
        run_id,
        started_at: js::iso_timestamp(started_at),
        component: task.info(),
        host: HostInfo::current(env!("CARGO_PKG_VERSION"), engine::wasmtime_version()),
        origin: origin::collect_here(),
        completed_at: None,
        tasks: None,
        log_files: renamed_log_files(names.iter().map(String::as_str)),
        interrupted: false,
        shard: flags.shard,
        load: load_manifest,
        warmup: (resolved.warmup > 0).then_some(resolved.warmup),
        shuffle_seed: resolved.shuffle_seed,
        instrument_floor: Some(floor),
    };
    let resuming = resumed.is_some();
    let (mut manifest, dispatched) = match resumed {
        Some(resumed) => (resumed.manifest, Some(resumed.dispatched)),
        None => (fresh, None),
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

    let date = js::iso_timestamp(started_at);
    console.header(&Header {
        benchmark_name: &resolved.benchmark_name,
        date: &date,
        dry_run: flags.no_ingest,
        iterations: exec_plan.schedule.len(),
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
    // A dispatched run's sandboxes are the workers', with their own environment.
    let local = if flags.dispatch.is_some() {
        &[][..]
    } else {
        &available[..]
    };
    let participants = local
        .iter()
        .map(|participant| {
            Ok(ParticipantRun {
                name: participant.name.clone(),
                slots: slot_config(
                    &task,
                    participant,
                    &config,
                    &flags,
                    &grants,
                    &exec_plan.stop,
                    &host_env,
                )?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let metrics = MetricsRecorder::start(
        &dir,
        MetricsRecorder::interval(resolved.group_by),
        disk.clone(),
    )?;
    let platform = match &platform_auth {
        Some(auth) => {
            let (upsert, run_key) = (resolved.identity_is_ours, flags.run_key.as_deref());
            let started = PlatformRun::start(auth, &manifest, &dir, upsert, run_key, &mut console);
            Some(started.await?)
        }
        None => None,
    };
    // The results writer sees every event first: a record is on disk before it is sent.
    // The tally keeps what the summary needs of each record; no record is kept.
    let mut reporter = RunReporter { console, results };
    let mut tally = RunTally::new(&manifest);
    // A resumed run's records so far count as they did; the coordinator skips their tasks.
    let mut prior = Prior::new(&names, exec_plan.schedule.len());
    if resuming {
        for_each_record(&dir, |participant, record| {
            tally.add(participant, record);
            prior.add(participant, record);
        })?;
    }
    let mut first_failure = FirstFailure::default();
    let mut metrics_observer = metrics.clone();
    let mut platform_observer = platform.as_ref().map(|p| p.observer(metrics.clone()));
    let mut progress = bars.then(ProgressBars::default);
    let mut observers = Observers::default();
    // The bar goes first (it only draws): it is cleared before the console ends its line.
    if let Some(progress) = &mut progress {
        observers.push(progress);
    }
    observers.push(&mut reporter);
    observers.push(&mut tally);
    observers.push(&mut metrics_observer);
    observers.push(&mut first_failure);
    if let Some(observer) = &mut platform_observer {
        observers.push(observer);
    }
    let group_by = resolved.group_by;
    let mut shares = None;
    match (&flags.dispatch, flags.shard) {
        (Some(url), _) => {
            let dispatched = dispatched.context("a dispatched run has its dispatch.json")?;
            let descriptor = RunDescriptor {
                run_id: manifest.run_id.clone(),
                component_sha256: manifest.component.sha256.clone(),
                argv: dispatched::worker_argv(argv),
                participants: names.clone(),
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
                resumed: resuming,
            };
            let run = Coordination {
                link: Coordinator::start(setup).await?,
                names: &names,
                plan: &exec_plan,
                group_by,
                worker_wait: flags
                    .worker_wait_ms
                    .map_or(DEFAULT_WORKER_WAIT, Duration::from_millis),
                platform: platform.as_ref(),
                prior,
                dispatched,
                dir: &dir,
            };
            shares = Some(coordinate(run, &mut observers).await?);
        }
        (None, Some(shard)) => {
            execute_shard(group_by, shard, &participants, &exec_plan, &mut observers).await?
        }
        (None, None) => {
            execute(
                group_by,
                &participants,
                &exec_plan,
                &mut observers,
                platform.as_ref(),
            )
            .await?
        }
    }
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
    manifest.interrupted = exec_plan.stop.is_stopping();
    reporter.results.write_run_json(&manifest)?;
    let results = RunResults {
        manifest: &manifest,
        tally,
        dir: reporter.results.dir(),
        exports: &exports,
        fail_under: flags.fail_under,
    };
    let code = finish(&mut reporter.console, results)?;
    closing.submit_summary().await;
    closing.report(flags.require_upload).await?;
    reporter
        .console
        .line(&format!("Results: {}", reporter.results.dir().display()));
    if let Some(budget) = disk.reached() {
        eprintln!(
            "Benchmark stopped: its results reached the disk budget of {} (set by {}; raise it \
             with --disk-budget SIZE); the records of every task that ran are kept, and the \
             summary covers them",
            LimitField::DiskBytes.spec().shown(Some(budget)),
            limits.get(LimitField::DiskBytes).set_by
        );
        return Ok(ExitCode::from(BUDGET_EXIT));
    }
    if manifest.interrupted {
        return Ok(ExitCode::from(INTERRUPTED_EXIT));
    }
    if let Some(verdict) = first_failure.verdict(counts, &flags.failure_gates) {
        eprintln!("{verdict}");
        return Ok(ExitCode::from(FAILED_TASKS_EXIT));
    }
    Ok(code)
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
