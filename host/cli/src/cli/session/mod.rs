//! A run's session, the seam above the executors that `bench run`, `bench run --resume` and
//! `bench worker` share: the results directory opened ([`open`]), the observers watching
//! ([`watchers`]), the tasks executed in one [`Mode`] ([`execute`]), then the run closed
//! with its summary and exit code ([`close`]). The run's engine and its participants'
//! slots are made the same way for a run and for a worker ([`slots`]).

pub(super) mod close;
pub(super) mod execute;
pub(super) mod open;
pub(super) mod slots;
pub(super) mod watchers;

#[cfg(test)]
mod tests;

use super::coordinate::Prior;
use anyhow::Result;
use bench_model::config::GroupBy;
use bench_model::plan::ExecPlan;
use bench_platform::reporter::PlatformRun;
use bench_report::metrics::MetricsRecorder;
use bench_report::results::for_each_record;
use bench_report::RunReporter;
use bench_runtime::exec::{ParticipantRun, SlotFactory};
use close::Executed;
use execute::{Execution, Mode};
use open::Opened;
use watchers::Watchers;

/// An opened run with its observers watching, until its tasks are executed.
pub(super) struct RunSession {
    opened: Opened,
    watchers: Watchers,
    platform: Option<PlatformRun>,
    /// What a resumed run recorded before: the coordinator skips those tasks.
    prior: Prior,
}

impl RunSession {
    /// Starts watching the opened run: the console and results writer of `reporter`, the
    /// `metrics`, the `platform` run when there is one, progress bars when `bars`. A
    /// resumed run's records so far count as they did, for `tasks` tasks per participant.
    pub(super) fn watch(
        opened: Opened,
        reporter: RunReporter,
        metrics: MetricsRecorder,
        platform: Option<PlatformRun>,
        bars: bool,
        tasks: usize,
    ) -> Result<Self> {
        let mut watchers =
            Watchers::new(reporter, &opened.manifest, metrics, bars, platform.as_ref());
        let mut prior = Prior::new(&opened.names, tasks);
        if opened.resuming {
            for_each_record(&opened.dir, |participant, record| {
                watchers.tally.add(participant, record);
                prior.add(participant, record);
            })?;
        }
        Ok(Self {
            opened,
            watchers,
            platform,
            prior,
        })
    }

    /// The opened run.
    pub(super) fn opened(&self) -> &Opened {
        &self.opened
    }

    /// Runs the plan's tasks in `mode` (on `participants`' slots, unless the workers of a
    /// dispatched run run them) with every observer watching.
    pub(super) async fn execute<S: SlotFactory + Clone>(
        self,
        mode: Mode,
        participants: &[ParticipantRun<S>],
        plan: &ExecPlan,
        group_by: GroupBy,
    ) -> Result<Executed> {
        let Self {
            opened,
            mut watchers,
            platform,
            prior,
        } = self;
        let run = Execution {
            group_by,
            participants,
            plan,
            platform: platform.as_ref(),
            names: &opened.names,
            dir: &opened.dir,
            prior,
        };
        let shares = execute::execute(mode, run, &mut watchers.observers()).await?;
        Ok(Executed {
            opened,
            watchers,
            platform,
            shares,
        })
    }
}
