//! The run's engine and its participants' slots, made the same way by `bench run` and
//! `bench worker`: the task loaded into an engine sized to the sandboxes the run keeps
//! alive, and each participant's slot config from the prepared run, with variables from
//! the run's source of them.

use crate::cli::task::{host_env, Env, Prepared};
use anyhow::Result;
use bench_model::config::Participant;
use bench_runtime::engine::{EngineSettings, TaskEngine};
use bench_runtime::exec::{ParticipantRun, SlotConfig};
use std::sync::Arc;

/// Loads the task into the run's engine, whose instance pool holds the `sandboxes` the run
/// keeps alive at once (it also drives their deadlines, so it lives as long as `prepared`,
/// to the run's end), and drops the engine the task was loaded with.
pub(in crate::cli) fn load_into_run_engine(prepared: &mut Prepared, sandboxes: u32) -> Result<()> {
    let pool = prepared.task.pool_size(sandboxes);
    let engine = TaskEngine::for_run(&EngineSettings::default(), pool)?;
    prepared.task = Arc::new(prepared.task.load_into(&engine)?);
    drop(std::mem::replace(&mut prepared.engine, engine));
    Ok(())
}

/// What every sandbox of `participant` is made from: the run's task (loaded into the run's
/// engine), the participant's grants with variables from `env`, the custom flags.
pub(in crate::cli) fn slot_config(
    prepared: &Prepared,
    participant: &Participant,
    env: Env<'_>,
) -> Result<SlotConfig> {
    let Prepared {
        task,
        config,
        flags,
        grants,
        exec_plan,
        ..
    } = prepared;
    Ok(SlotConfig {
        task: task.clone(),
        participant_json: participant.raw.to_string(),
        capabilities: grants.for_participant(config, participant, env)?,
        args: flags.custom.clone(),
        fresh_instance: flags.fresh_instance,
        stop: exec_plan.stop.clone(),
    })
}

/// The participants this machine runs, with their slots: every available one, or none in
/// a dispatched run (its sandboxes are the workers', with their own environment).
pub(in crate::cli) fn local_participants(
    prepared: &Prepared,
) -> Result<Vec<ParticipantRun<SlotConfig>>> {
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
                slots: slot_config(prepared, participant, &host_env)?,
            })
        })
        .collect()
}
