//! The tasks each participant runs, in order (spec §1.7), kept as phases with counts: the
//! length and the phase of any index are computed, so a schedule of a billion tasks takes no
//! more memory than one of ten.

use super::{LoadModel, ResolvedRun};
use crate::config::BenchmarkConfig;

/// The tasks each participant runs, in order (`buildSchedule`): every phase repeated
/// `phase_iterations` (or its own count) times, else `iterations` untagged tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Consecutive tasks of one phase, in order; empty phases are left out.
    runs: Vec<PhaseRun>,
    len: usize,
}

/// Consecutive tasks of one phase, up to (not including) schedule index `end`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PhaseRun {
    phase: Option<String>,
    end: usize,
}

impl Schedule {
    /// The schedule of a validated config run with these knobs: on arrivals, one untagged
    /// task per arrival; for a duration, none (its tasks are counted as they start).
    pub fn for_run(config: &BenchmarkConfig, resolved: &ResolvedRun) -> Self {
        match &resolved.load {
            LoadModel::Iterations => {}
            LoadModel::Duration(_) => return Self::from_phases([]),
            LoadModel::ArrivalRate(arrivals) => {
                let count = arrivals.profile.expected_tasks();
                return Self::from_phases([(None, usize::try_from(count).unwrap_or(usize::MAX))]);
            }
        }
        match &config.phases {
            None => Self::from_phases([(None, resolved.iterations as usize)]),
            Some(phases) => Self::from_phases(phases.iter().map(|phase| {
                let count = resolved.phase_iterations.or(phase.iterations).unwrap_or(0);
                (Some(phase.name.clone()), count as usize)
            })),
        }
    }

    /// `count` tasks of each phase in turn (`None`: untagged tasks).
    pub fn from_phases(phases: impl IntoIterator<Item = (Option<String>, usize)>) -> Self {
        let mut len = 0usize;
        let runs = phases
            .into_iter()
            .filter(|(_, count)| *count > 0)
            .map(|(phase, count)| {
                len = len.saturating_add(count);
                PhaseRun { phase, end: len }
            })
            .collect();
        Self { runs, len }
    }

    /// How many tasks each participant runs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the schedule holds no task.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The phase of task `index`: `None` for an untagged task (or past the end).
    pub fn phase_at(&self, index: usize) -> Option<&str> {
        let run = self.runs.partition_point(|run| run.end <= index);
        self.runs.get(run)?.phase.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phases(schedule: &Schedule) -> Vec<Option<&str>> {
        (0..schedule.len())
            .map(|index| schedule.phase_at(index))
            .collect()
    }

    #[test]
    fn phases_follow_one_another_and_empty_ones_are_skipped() {
        let schedule = Schedule::from_phases([
            (Some("cold".to_owned()), 2),
            (Some("never".to_owned()), 0),
            (Some("warm".to_owned()), 3),
        ]);
        assert_eq!(schedule.len(), 5);
        assert_eq!(
            phases(&schedule),
            [
                Some("cold"),
                Some("cold"),
                Some("warm"),
                Some("warm"),
                Some("warm")
            ]
        );
        assert_eq!(schedule.phase_at(5), None, "past the end");
    }

    #[test]
    fn untagged_tasks_have_no_phase() {
        let schedule = Schedule::from_phases([(None, 3)]);
        assert_eq!(phases(&schedule), [None, None, None]);
        assert!(!schedule.is_empty());
        assert!(Schedule::from_phases([(None, 0)]).is_empty());
    }

    #[test]
    fn a_huge_schedule_is_a_few_words() {
        let count = u32::MAX as usize;
        let schedule =
            Schedule::from_phases([(Some("a".to_owned()), count), (Some("b".to_owned()), count)]);
        assert_eq!(schedule.len(), 2 * count);
        assert_eq!(schedule.runs.len(), 2);
        assert_eq!(schedule.phase_at(count - 1), Some("a"));
        assert_eq!(schedule.phase_at(count), Some("b"));
        assert_eq!(schedule.phase_at(2 * count - 1), Some("b"));
    }
}
