//! What workers learn of a run: its component, its flags and its participants.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A run as the coordinator announces it (the latest announcement of a run wins).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunDescriptor {
    /// The run id.
    pub run_id: String,
    /// sha256 (hex) of the task component: its name in the object store.
    pub component_sha256: String,
    /// The run's flags as the coordinator got them (secrets are never flags).
    pub argv: Vec<String>,
    /// The participants in run order (a unit's subject names one by its number).
    pub participants: Vec<String>,
    /// How long a worker may go silent on a unit before it goes to another worker.
    pub ack_wait_ms: u64,
    /// Whether the run is over (workers stop serving it).
    #[serde(default)]
    pub done: bool,
}

impl RunDescriptor {
    /// How often a worker tells JetStream it is still running a unit.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_millis((self.ack_wait_ms / 3).max(100))
    }
}
