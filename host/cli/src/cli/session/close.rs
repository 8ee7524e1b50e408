//! Closing a run whose tasks are done: the bars cleared, the results flushed, a last
//! metrics sample, the platform run finished, `run.json` completed, the summary printed
//! and reported, and the process's exit code.

use super::open::Opened;
use super::watchers::Watchers;
use crate::cli::coordinate::WorkerShares;
use crate::cli::interrupt::INTERRUPTED_EXIT;
use crate::cli::task::Prepared;
use anyhow::Result;
use bench_model::ceilings::{EffectiveLimits, LimitField};
use bench_model::js;
use bench_model::stop::RunStop;
use bench_model::text::escape_control;
use bench_platform::reporter::{Closing, PlatformRun};
use bench_report::disk_budget::{DiskBudget, BUDGET_EXIT};
use bench_report::failures::{FailureGates, FAILED_TASKS_EXIT};
use bench_report::finish::{finish, RunResults};
use std::process::ExitCode;
use std::time::SystemTime;

/// What the run is left with once its tasks are done.
pub(in crate::cli) struct Executed {
    pub(super) opened: Opened,
    pub(super) watchers: Watchers,
    pub(super) platform: Option<PlatformRun>,
    /// Who ran the tasks of a dispatched run.
    pub(super) shares: Option<WorkerShares>,
}

/// What closing a run follows of its flags.
pub(in crate::cli) struct CloseRules<'a> {
    /// The run's stop switch: a run stopped early is interrupted.
    pub stop: &'a RunStop,
    /// `--fail-under`.
    pub fail_under: Option<f64>,
    /// `--require-upload`.
    pub require_upload: bool,
    /// `--max-failure-rate` and `--allow-all-failed`.
    pub failure_gates: &'a FailureGates,
}

impl<'a> CloseRules<'a> {
    /// The rules of the `prepared` run.
    pub(in crate::cli) fn of(prepared: &'a Prepared) -> Self {
        Self {
            stop: &prepared.exec_plan.stop,
            fail_under: prepared.flags.fail_under,
            require_upload: prepared.flags.require_upload,
            failure_gates: &prepared.flags.failure_gates,
        }
    }
}

impl Executed {
    /// Ends the run as `rules` say; returns its exit code.
    pub(in crate::cli) async fn close(self, rules: &CloseRules<'_>) -> Result<ExitCode> {
        let Self {
            opened,
            watchers,
            platform,
            shares,
        } = self;
        let Opened {
            exports,
            disk,
            limits,
            mut manifest,
            ..
        } = opened;
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
        manifest.interrupted = rules.stop.is_stopping();
        reporter.results.write_run_json(&manifest)?;
        let results = RunResults {
            manifest: &manifest,
            tally,
            dir: reporter.results.dir(),
            exports: &exports,
            fail_under: rules.fail_under,
        };
        let code = finish(&mut reporter.console, results)?;
        closing.submit_summary().await;
        closing.report(rules.require_upload).await?;
        reporter
            .console
            .line(&format!("Results: {}", reporter.results.dir().display()));
        let verdict = first_failure.verdict(counts, rules.failure_gates);
        Ok(exit_code(
            &limits,
            code,
            &disk,
            manifest.interrupted,
            verdict,
        ))
    }
}

/// The exit code of a finished run: the disk budget's when its results reached it (set as
/// `limits` say), the interrupted one when it was stopped, the failed tasks' when a
/// failure gate says so (`verdict`), else the summary's `code` (`--fail-under`).
fn exit_code(
    limits: &EffectiveLimits,
    code: ExitCode,
    disk: &DiskBudget,
    interrupted: bool,
    verdict: Option<String>,
) -> ExitCode {
    if let Some(budget) = disk.reached() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workers_line_gives_each_share_escaped() {
        let shares = WorkerShares::from([("w1".to_owned(), 1), ("w\x1b[2J".to_owned(), 3)]);
        assert_eq!(
            worker_shares_line(&shares),
            "Workers: w\\x1b[2J 3 tasks (75.0%), w1 1 tasks (25.0%)"
        );
    }
}
