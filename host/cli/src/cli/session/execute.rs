//! Executing a run's tasks in one of its modes: every participant here ([`Mode::Local`]),
//! one static shard's share ([`Mode::Shard`]), or through the workers of a dispatched run
//! ([`Mode::Coordinate`]). (A worker runs each unit it is handed with
//! `exec::run_unit_in_new_slot`.)

use crate::cli::coordinate::{coordinate, Coordination, Prior, WorkerShares};
use crate::cli::dispatched::DispatchedRun;
use anyhow::Result;
use bench_dispatch::Coordinator;
use bench_model::config::GroupBy;
use bench_model::events::RunObserver;
use bench_model::plan::{ExecPlan, LoadModel, Shard};
use bench_platform::reporter::PlatformRun;
use bench_runtime::exec::{self, ParticipantRun, SlotFactory};
use std::path::Path;
use std::time::Duration;

/// Where a run's tasks run.
pub(in crate::cli) enum Mode {
    /// Every participant's, on this machine.
    Local,
    /// One static shard's share, on this machine (`--shard i/N`).
    Shard(Shard),
    /// On the workers of a dispatched run (`--dispatch`), this machine coordinating.
    Coordinate(Box<Dispatch>),
}

/// What coordinating a dispatched run needs besides the run.
pub(in crate::cli) struct Dispatch {
    /// The coordinator's connection, started.
    pub link: Coordinator,
    /// `--worker-wait`.
    pub worker_wait: Duration,
    /// `dispatch.json`: the workers that join are added to it.
    pub dispatched: DispatchedRun,
}

/// The run being executed.
pub(super) struct Execution<'a, S> {
    /// Participants one after another, or rounds.
    pub group_by: GroupBy,
    /// The participants this machine runs, with their slots.
    pub participants: &'a [ParticipantRun<S>],
    /// Schedule, concurrency, pacing and stop.
    pub plan: &'a ExecPlan,
    /// Platform reporting, when on.
    pub platform: Option<&'a PlatformRun>,
    /// Every participant's name, in run order.
    pub names: &'a [String],
    /// The results directory.
    pub dir: &'a Path,
    /// What a resumed run recorded before.
    pub prior: Prior,
}

/// Runs the tasks of `run` in `mode`, handing every event to `observer`; who ran the tasks
/// of a dispatched run.
pub(super) async fn execute<S: SlotFactory + Clone>(
    mode: Mode,
    run: Execution<'_, S>,
    observer: &mut dyn RunObserver,
) -> Result<Option<WorkerShares>> {
    match mode {
        Mode::Local => local(&run, observer).await.map(|()| None),
        Mode::Shard(shard) => of_shard(shard, &run, observer).await.map(|()| None),
        Mode::Coordinate(dispatch) => {
            let coordination = Coordination {
                link: dispatch.link,
                names: run.names,
                plan: run.plan,
                group_by: run.group_by,
                worker_wait: dispatch.worker_wait,
                platform: run.platform,
                prior: run.prior,
                dispatched: dispatch.dispatched,
                dir: run.dir,
            };
            coordinate(coordination, observer).await.map(Some)
        }
    }
}

/// Every participant's tasks, in rounds or one participant after another (each with the
/// plan's load model).
async fn local<S: SlotFactory>(
    run: &Execution<'_, S>,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let plan = run.plan;
    match run.group_by {
        GroupBy::Round => {
            if let Some(platform) = run.platform {
                platform.begin_rounds();
            }
            exec::run_rounds(run.participants, plan, observer).await
        }
        GroupBy::Participant => {
            for participant in run.participants {
                if plan.stop.is_stopping() {
                    break;
                }
                if let Some(platform) = run.platform {
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

/// The participant slots of one static shard (`--shard i/N`, see `exec::Shard`).
async fn of_shard<S: SlotFactory + Clone>(
    shard: Shard,
    run: &Execution<'_, S>,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let plan = run.plan;
    match run.group_by {
        GroupBy::Round => {
            let held: Vec<ParticipantRun<S>> = run
                .participants
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
            for (position, participant) in run.participants.iter().enumerate() {
                if plan.stop.is_stopping() {
                    break;
                }
                exec::run_participant_shard(participant, position, shard, plan, observer).await?;
            }
            Ok(())
        }
    }
}
