//! `bench run`: component → config → validated plan → executor → local
//! results (spec §3.1, local mode).

use super::coordinate::{DEFAULT_ACK_WAIT, DEFAULT_WORKER_WAIT};
use super::dispatched::{self, DispatchedRun};
use super::interrupt::{self, DEFAULT_STOP_GRACE};
use super::session::close::CloseRules;
use super::session::execute::{Dispatch, Mode};
use super::session::open::{self, Opened, Opening};
use super::session::{slots, watchers, RunSession};
use super::task::{prepare, Prepared};
use crate::flags::RunFlags;
use anyhow::{Context as _, Result};
use bench_dispatch::{Coordinator, CoordinatorSetup, PublicKey, RunDescriptor, SigningKey};
use bench_model::plan::{self, LoadModel, RunManifest};
use bench_platform::auth::Auth;
use bench_platform::reporter::PlatformRun;
use bench_report::console::Console;
use bench_report::results::read_manifest;
use bench_report::RunReporter;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
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
    let sandboxes = prepared.sandboxes as u32;
    slots::load_into_run_engine(&mut prepared, sandboxes)?;
    let started_at = SystemTime::now();
    let (opening, dispatched) = match resumed {
        Some(resumed) => (
            Opening::resumed(&prepared, resumed.dir, resumed.manifest),
            Some(resumed.dispatched),
        ),
        None => (Opening::new_run(&prepared, started_at), None),
    };
    let (opened, results) = open::open(opening)?;
    let dispatched = dispatch_json(&prepared, argv, &opened, dispatched)?;
    open::print_header(&prepared, &mut console, started_at);
    let participants = slots::local_participants(&prepared)?;
    let group_by = prepared.resolved.group_by;
    let metrics = watchers::start_metrics(&opened, group_by)?;
    let platform = start_platform(&prepared, platform_auth.as_ref(), &opened, &mut console);
    let platform = platform.await?;
    let reporter = RunReporter { console, results };
    let plan = &prepared.exec_plan;
    let tasks = plan.schedule.len();
    let session = RunSession::watch(opened, reporter, metrics, platform, bars, tasks)?;
    let mode = run_mode(&prepared, argv, session.opened(), dispatched).await?;
    let executed = session.execute(mode, &participants, plan, group_by).await?;
    executed.close(&CloseRules::of(&prepared)).await
}

/// The `dispatch.json` of a dispatched run: a resumed run's (`resumed`), or a new one's,
/// written into the opened results directory.
fn dispatch_json(
    prepared: &Prepared,
    argv: &[String],
    opened: &Opened,
    resumed: Option<DispatchedRun>,
) -> Result<Option<DispatchedRun>> {
    match (&prepared.flags.dispatch, resumed) {
        (Some(_), None) => {
            let component = std::path::absolute(&opened.manifest.component.path)?;
            let dispatched = DispatchedRun::new(component, argv);
            dispatched.write(&opened.dir)?;
            Ok(Some(dispatched))
        }
        (_, dispatched) => Ok(dispatched),
    }
}

/// Where the run's tasks run: on the workers of a dispatched run (its coordinator started
/// here), on one static shard's slots, or on every participant's slots here.
async fn run_mode(
    prepared: &Prepared,
    argv: &[String],
    opened: &Opened,
    dispatched: Option<DispatchedRun>,
) -> Result<Mode> {
    let flags = &prepared.flags;
    Ok(match (&flags.dispatch, flags.shard) {
        (Some(url), _) => {
            let dispatched = dispatched.context("a dispatched run has its dispatch.json")?;
            let link = start_coordinator(prepared, argv, url, opened, &dispatched).await?;
            let worker_wait = flags
                .worker_wait_ms
                .map_or(DEFAULT_WORKER_WAIT, Duration::from_millis);
            Mode::Coordinate(Box::new(Dispatch {
                link,
                worker_wait,
                dispatched,
            }))
        }
        (None, Some(shard)) => Mode::Shard(shard),
        (None, None) => Mode::Local,
    })
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
