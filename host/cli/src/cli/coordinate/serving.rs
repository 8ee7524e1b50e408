//! Which workers said they serve which participant, and how long a participant may wait
//! for one (`--worker-wait`) before the run stops.

use anyhow::{bail, Result};
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

/// The workers serving each participant.
pub(super) struct Serving {
    /// Per participant: the workers that said they serve it.
    workers: HashMap<String, BTreeSet<String>>,
    /// `--worker-wait`.
    worker_wait: Duration,
}

impl Serving {
    /// No worker yet; a participant may wait `worker_wait` for one.
    pub(super) fn new(worker_wait: Duration) -> Self {
        Self {
            workers: HashMap::new(),
            worker_wait,
        }
    }

    /// `worker` said it serves `participants`.
    pub(super) fn add(&mut self, worker: &str, participants: Vec<String>) {
        for participant in participants {
            let workers = self.workers.entry(participant).or_default();
            workers.insert(worker.to_owned());
        }
    }

    /// Fails once `participant` has `waited` `--worker-wait` without a worker serving it.
    pub(super) fn check(&self, participant: &str, waited: Duration) -> Result<()> {
        let served = self.workers.get(participant).is_some_and(|w| !w.is_empty());
        if !served && waited >= self.worker_wait {
            bail!(
                "no worker can run participant \"{participant}\": none joined within {}s (a worker serves a participant only when it trusts the run's key and its operator grants what the participant asks: its requiredEnvVars with --serve-env, its hosts with --allow-host, its directories with --allow-dir)",
                self.worker_wait.as_secs_f64()
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_participant_no_worker_serves_stops_the_run_after_the_worker_wait() {
        let mut serving = Serving::new(Duration::from_secs(30));
        let waited = Duration::from_secs(30);
        assert!(
            serving.check("a", Duration::from_secs(29)).is_ok(),
            "still waiting"
        );
        let error = serving.check("a", waited).unwrap_err().to_string();
        assert!(
            error.starts_with("no worker can run participant \"a\": none joined within 30s"),
            "{error}"
        );
        serving.add("w1", vec!["a".into()]);
        assert!(serving.check("a", waited * 10).is_ok());
        assert!(serving.check("b", waited).is_err(), "w1 serves only a");
    }
}
