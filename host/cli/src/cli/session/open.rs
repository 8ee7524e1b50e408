//! Opening a run: its results directory (created, refusing an earlier run's, or reopened
//! to resume) with `run.json` written, the manifest a new run starts with, and the
//! console's header.

use crate::cli::task::Prepared;
use anyhow::Result;
use bench_model::ceilings::{EffectiveLimits, LimitField};
use bench_model::js;
use bench_model::plan::{HostInfo, LoadManifest, RunConfig, RunManifest};
use bench_model::stop::RunStop;
use bench_report::console::{Console, Header};
use bench_report::disk_budget::DiskBudget;
use bench_report::export::{ExportManager, ExportPaths};
use bench_report::origin;
use bench_report::paths;
use bench_report::results::{renamed_log_files, ResultsWriter};
use bench_runtime::engine;
use bench_runtime::exec;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// What opening a run's results directory needs.
pub(in crate::cli) struct Opening {
    /// The results directory.
    pub dir: PathBuf,
    /// What `run.json` holds: a new run's manifest, or the resumed one's.
    pub manifest: RunManifest,
    /// Participant names, in run order.
    pub names: Vec<String>,
    /// Whether the run resumes one whose records are already there.
    pub resuming: bool,
    /// The export files asked for.
    pub exports: ExportPaths,
    /// The run's limits (log bytes per participant, disk budget).
    pub limits: EffectiveLimits,
    /// The run's stop switch, which a reached disk budget turns.
    pub stop: RunStop,
}

impl Opening {
    /// A new run of `prepared` started at `started_at`: its directory (`--out`, or one
    /// named after the benchmark and the run id) and its fresh manifest.
    pub(in crate::cli) fn new_run(prepared: &Prepared, started_at: SystemTime) -> Self {
        let run_id = run_id(started_at);
        let names = participant_names(prepared);
        let dir = prepared
            .flags
            .out
            .as_ref()
            .map(PathBuf::from)
            .unwrap_or_else(|| paths::results_dir(&prepared.resolved.benchmark_slug, &run_id));
        let manifest = fresh_manifest(prepared, run_id, started_at, &names);
        Self::of(prepared, dir, manifest, names, false)
    }

    /// The run in `dir` taken up again, with its `manifest`.
    pub(in crate::cli) fn resumed(
        prepared: &Prepared,
        dir: PathBuf,
        manifest: RunManifest,
    ) -> Self {
        let names = participant_names(prepared);
        Self::of(prepared, dir, manifest, names, true)
    }

    fn of(
        prepared: &Prepared,
        dir: PathBuf,
        manifest: RunManifest,
        names: Vec<String>,
        resuming: bool,
    ) -> Self {
        Self {
            dir,
            manifest,
            names,
            resuming,
            exports: prepared.flags.exports.clone(),
            limits: prepared.grants.effective_limits().clone(),
            stop: prepared.exec_plan.stop.clone(),
        }
    }
}

/// A run's results directory, created (or reopened to resume), with `run.json` written.
pub(in crate::cli) struct Opened {
    /// The results directory.
    pub dir: PathBuf,
    /// The export files, created.
    pub exports: ExportManager,
    /// The disk budget of what the run writes.
    pub disk: Arc<DiskBudget>,
    /// The run's limits.
    pub limits: EffectiveLimits,
    /// Participant names, in run order.
    pub names: Vec<String>,
    /// What `run.json` holds: a new run's manifest, or the resumed one's.
    pub manifest: RunManifest,
    /// Whether the run resumes one whose records are already there.
    pub resuming: bool,
}

/// Creates the results directory (refusing an earlier run's, unless resuming), the export
/// files and the results writer, and writes `run.json`: the directory and its writer.
pub(in crate::cli) fn open(opening: Opening) -> Result<(Opened, ResultsWriter)> {
    let Opening {
        dir,
        manifest,
        names,
        resuming,
        exports,
        limits,
        stop,
    } = opening;
    // Refused before anything is created or truncated.
    if !resuming {
        ResultsWriter::refuse_earlier_run(&dir)?;
    }
    let exports = ExportManager::create(&exports)?;
    let max_log_bytes = limits.max_participant_log_bytes();
    let disk = DiskBudget::new(limits.value(LimitField::DiskBytes), stop);
    let results = if resuming {
        ResultsWriter::reopen(&dir, max_log_bytes, disk.clone())?
    } else {
        ResultsWriter::create(&dir, max_log_bytes, disk.clone())?
    };
    results.write_run_json(&manifest)?;
    let opened = Opened {
        dir,
        exports,
        disk,
        limits,
        names,
        manifest,
        resuming,
    };
    Ok((opened, results))
}

/// The names of the participants that run, in run order.
fn participant_names(prepared: &Prepared) -> Vec<String> {
    prepared.available.iter().map(|p| p.name.clone()).collect()
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
pub(in crate::cli) fn print_header(
    prepared: &Prepared,
    console: &mut Console,
    started_at: SystemTime,
) {
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
