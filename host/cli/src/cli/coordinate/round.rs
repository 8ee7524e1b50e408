//! Round mode's window: at most `concurrency` units of a round in flight, the next ones
//! published as earlier ones are recorded.

use bench_model::dispatch::WorkUnit;
use std::ops::Range;

/// Where a round stands.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct RoundWindow {
    /// The participant numbers of the published units not recorded yet.
    pub in_flight: Vec<usize>,
    /// The units to publish now (indexes into the round's units).
    pub publish: Range<usize>,
}

/// The window of a round whose first `published` `units` (participant number, unit) are
/// published, with at most `limit` in flight; `None` once every unit is recorded.
pub(super) fn round_window(
    units: &[(usize, WorkUnit)],
    published: usize,
    limit: usize,
    recorded: impl Fn(&WorkUnit) -> bool,
) -> Option<RoundWindow> {
    if units.iter().all(|(_, unit)| recorded(unit)) {
        return None;
    }
    let in_flight: Vec<usize> = units[..published]
        .iter()
        .filter(|(_, unit)| !recorded(unit))
        .map(|(position, _)| *position)
        .collect();
    let free = limit.saturating_sub(in_flight.len());
    let end = (published + free).min(units.len());
    Some(RoundWindow {
        in_flight,
        publish: published..end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::dispatch::round_units;

    #[test]
    fn a_round_keeps_at_most_its_limit_in_flight() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).into();
        let units: Vec<(usize, WorkUnit)> =
            round_units(4, &names).into_iter().enumerate().collect();
        let none = |_: &WorkUnit| false;
        let window = |published, recorded: &[&str]| {
            round_window(&units, published, 2, |unit: &WorkUnit| {
                recorded.contains(&unit.participant.as_str())
            })
        };
        assert_eq!(
            round_window(&units, 0, 2, none),
            Some(RoundWindow {
                in_flight: vec![],
                publish: 0..2
            })
        );
        assert_eq!(
            window(2, &[]),
            Some(RoundWindow {
                in_flight: vec![0, 1],
                publish: 2..2
            })
        );
        assert_eq!(
            window(2, &["a"]),
            Some(RoundWindow {
                in_flight: vec![1],
                publish: 2..3
            })
        );
        assert_eq!(
            window(3, &["a", "b"]),
            Some(RoundWindow {
                in_flight: vec![2],
                publish: 3..3
            })
        );
        assert_eq!(window(3, &["a", "b", "c"]), None);
    }
}
