//! From a validated config and the run flags to what a run executes (spec §1.5–1.7, §6.2):
//! participant selection and env gating (`participants`), shape and identity overrides and
//! merged knobs (`resolve`), the load model and arrival schedule (`load`), the task schedule
//! (`schedule`), and the run manifest `run.json`
//! whose first keys are the `runConfig` sent to the platform (`manifest`).

mod exec_plan;
mod floor;
mod load;
mod manifest;
mod participants;
mod resolve;
mod schedule;
mod shard;
#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "test-support"))]
pub use exec_plan::test_plan;
pub use exec_plan::ExecPlan;
pub use floor::{InstrumentFloor, FLOOR_FACTOR};
pub use load::{ArrivalPlan, LoadManifest, LoadModel, LoadOverrides, RateProfile};
#[cfg(any(test, feature = "test-support"))]
pub use manifest::test_manifest;
pub use manifest::{ComponentInfo, HostInfo, Origin, RunConfig, RunManifest, TaskCounts};
pub use participants::{filter_by_env, no_participants_message, select_participants, Skipped};
pub use resolve::{resolve, Overrides, ResolvedRun};
pub use schedule::Schedule;
pub use shard::{Shard, Stride, MAX_SHARDS};

/// Why a run cannot be planned; `Display` is upstream's exact message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// `--provider` named participants the config does not declare.
    #[error("Unknown participant(s): {}. Available: {}", unknown.join(", "), available.join(", "))]
    UnknownParticipants {
        /// The unknown names, in the order given.
        unknown: Vec<String>,
        /// Every declared name, in config order.
        available: Vec<String>,
    },
    /// `--shape` named a shape the config does not declare.
    #[error("Unknown --shape \"{shape}\". Known shapes: {}.", known.join(", "))]
    UnknownShape {
        /// The requested shape.
        shape: String,
        /// Declared shapes, in declaration order.
        known: Vec<String>,
    },
    /// `--shape` was given but the config declares no shapes.
    #[error("Unknown --shape \"{0}\": this benchmark declares no shapes.")]
    NoShapes(String),
    /// A merged knob is out of range (`iterations must be an integer >= 1 (got NaN)`).
    #[error("{0}")]
    InvalidKnob(String),
}
