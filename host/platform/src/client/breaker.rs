//! The client's circuit breaker: one budget of failure for all the calls of a client (a
//! run, an upload). Failed attempts spend it — the time they took and the backoff after
//! them — and calls that run out of attempts count against it; once it is spent, or two
//! calls in a row gave up, the breaker opens and every later call fails at once, so an
//! unreachable platform costs a bounded time in all and the rest stays local for
//! `bench upload`.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Calls in a row that may run out of attempts before the breaker opens.
const EXHAUSTED_CALLS: u32 = 2;

/// The breaker of one client.
#[derive(Debug)]
pub(crate) struct Breaker {
    budget: Duration,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Time failed attempts and their backoff took, in all.
    spent: Duration,
    /// Calls in a row that ran out of attempts.
    exhausted: u32,
    /// Why it opened, once it did.
    open: Option<String>,
    /// When the platform last answered anything.
    last_answer: Option<Instant>,
}

impl Breaker {
    /// A closed breaker that opens once failures took `budget`.
    pub(crate) fn new(budget: Duration) -> Self {
        Self {
            budget,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Why it is open, when it is.
    pub(crate) fn open_reason(&self) -> Option<String> {
        self.state().open.clone()
    }

    /// When the platform last answered with a success or a definite refusal.
    pub(crate) fn last_answer(&self) -> Option<Instant> {
        self.state().last_answer
    }

    /// The platform answered (a success or a definite refusal): failures in a row are
    /// forgotten.
    pub(crate) fn answered(&self) {
        let mut state = self.state();
        state.exhausted = 0;
        state.last_answer = Some(Instant::now());
    }

    /// An attempt failed in a way worth retrying after `took` (its own time plus the
    /// backoff before the next); true while the budget lasts.
    pub(crate) fn spend(&self, took: Duration, error: &str) -> bool {
        let mut state = self.state();
        state.spent += took;
        if state.open.is_none() && state.spent >= self.budget {
            state.open = Some(format!(
                "it failed for {} s in all (last: {error})",
                state.spent.as_secs()
            ));
        }
        state.open.is_none()
    }

    /// A call ran out of attempts.
    pub(crate) fn exhausted(&self, error: &str) {
        let mut state = self.state();
        state.exhausted += 1;
        if state.open.is_none() && state.exhausted >= EXHAUSTED_CALLS {
            state.open = Some(format!(
                "{EXHAUSTED_CALLS} calls in a row got no answer (last: {error})"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breaker_opens_when_its_budget_is_spent() {
        let breaker = Breaker::new(Duration::from_secs(10));
        assert!(breaker.spend(Duration::from_secs(6), "timed out"));
        assert_eq!(breaker.open_reason(), None);
        assert!(!breaker.spend(Duration::from_secs(6), "timed out"));
        assert_eq!(
            breaker.open_reason().as_deref(),
            Some("it failed for 12 s in all (last: timed out)")
        );
    }

    #[test]
    fn the_breaker_opens_after_calls_in_a_row_give_up_but_an_answer_resets_the_row() {
        let breaker = Breaker::new(Duration::from_secs(60));
        assert_eq!(breaker.last_answer(), None);
        breaker.exhausted("refused");
        breaker.answered();
        assert!(breaker.last_answer().is_some());
        breaker.exhausted("refused");
        assert_eq!(breaker.open_reason(), None);
        breaker.exhausted("refused");
        assert_eq!(
            breaker.open_reason().as_deref(),
            Some("2 calls in a row got no answer (last: refused)")
        );
    }
}
