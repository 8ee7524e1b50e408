//! What workers learn of a run: its component, its flags and its participants.

use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The longest run id a worker takes (run ids name subjects and consumers).
const MAX_RUN_ID_BYTES: usize = 64;

/// A run as the coordinator announces it (the latest announcement of a run wins).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunDescriptor {
    /// The run id.
    pub run_id: String,
    /// sha256 (hex) of the task component: its name in the object store.
    pub component_sha256: String,
    /// The run's flags as workers get them (never a credential: those are the
    /// coordinator's only).
    pub argv: Vec<String>,
    /// The participants in run order (a unit's subject names one by its number).
    pub participants: Vec<String>,
    /// How long a worker may go silent on a unit before it goes to another worker.
    pub ack_wait_ms: u64,
    /// Whether the run is over (workers stop serving it).
    #[serde(default)]
    pub done: bool,
    /// When this announcement was made (Unix milliseconds, rising with each one of the
    /// run): a worker ignores an announcement older than one it saw, so an old one
    /// replayed changes nothing.
    #[serde(default)]
    pub revision: u64,
}

impl RunDescriptor {
    /// How often a worker tells JetStream it is still running a unit.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_millis((self.ack_wait_ms / 3).max(100))
    }

    /// Refuses a run id that cannot name a subject: letters, digits and `-` only.
    pub fn check_run_id(run_id: &str) -> Result<(), String> {
        let fits = !run_id.is_empty()
            && run_id.len() <= MAX_RUN_ID_BYTES
            && run_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if fits {
            Ok(())
        } else {
            Err(format!(
                "a run id must be 1 to {MAX_RUN_ID_BYTES} letters, digits or -"
            ))
        }
    }
}

/// A revision later than `previous` and no earlier than now.
pub(crate) fn next_revision(previous: u64) -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64);
    now.max(previous + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_name_subjects_and_revisions_rise() {
        assert_eq!(RunDescriptor::check_run_id("019b76da-a800-7abc"), Ok(()));
        for bad in ["", "a.b", "a*", "a b", ">", &"a".repeat(65)] {
            assert!(RunDescriptor::check_run_id(bad).is_err(), "{bad}");
        }
        let first = next_revision(0);
        assert!(first > 1_700_000_000_000);
        assert_eq!(next_revision(u64::MAX - 1), u64::MAX);
        assert!(next_revision(first) > first);
    }
}
