//! The tasks each participant runs, in order (spec §1.7).

use super::ResolvedRun;
use crate::config::BenchmarkConfig;

/// One task of a participant's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The phase the task belongs to, when the config declares phases.
    pub phase: Option<String>,
}

/// The tasks each participant runs, in order (`buildSchedule`): every phase repeated
/// `phase_iterations` (or its own count) times, else `iterations` untagged slots.
pub fn build_schedule(config: &BenchmarkConfig, resolved: &ResolvedRun) -> Vec<Slot> {
    match &config.phases {
        None => vec![Slot { phase: None }; resolved.iterations as usize],
        Some(phases) => phases
            .iter()
            .flat_map(|phase| {
                let count = resolved.phase_iterations.or(phase.iterations).unwrap_or(0);
                let slot = Slot {
                    phase: Some(phase.name.clone()),
                };
                std::iter::repeat_n(slot, count as usize)
            })
            .collect(),
    }
}
