//! Notices of one kind on stderr, escaped: the first [`NOTICES_SHOWN`] one by one, then
//! every tenfold, and how many in all at the end of the run.

use bench_model::text::escape_control;

/// How many notices of each kind are shown one by one; after that only every tenfold.
const NOTICES_SHOWN: u64 = 20;

/// Notices of one kind.
pub(super) struct Notices {
    what: &'static str,
    count: u64,
}

impl Notices {
    /// No notice yet of `what`.
    pub(super) fn new(what: &'static str) -> Self {
        Self { what, count: 0 }
    }

    /// Counts a left-out message and shows why when it is among those shown.
    pub(super) fn count(&mut self, reason: &str) {
        self.count += 1;
        if self.shown() {
            eprintln!(
                "[bench] {} (#{}): {}",
                self.what,
                self.count,
                escape_control(reason)
            );
        }
    }

    /// Shows a line (escaped) when it is among those shown.
    pub(super) fn show(&mut self, line: &str) {
        self.count += 1;
        if self.shown() {
            eprintln!("[bench] {}", escape_control(line));
        }
    }

    /// Whether the latest notice is shown: one of the first [`NOTICES_SHOWN`], or the
    /// 100th, 1000th…
    fn shown(&self) -> bool {
        let mut count = self.count;
        while count >= 10 && count.is_multiple_of(10) {
            count /= 10;
        }
        self.count <= NOTICES_SHOWN || count == 1
    }

    /// The count, when any.
    pub(super) fn summary(&self) {
        if self.count > 0 {
            eprintln!("[bench] {}: {} in all", self.what, self.count);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_twenty_are_shown_then_every_tenfold() {
        let mut notices = Notices::new("left out");
        let shown: Vec<u64> = (1..=10_000)
            .filter(|_| {
                notices.count += 1;
                notices.shown()
            })
            .collect();
        let mut expected: Vec<u64> = (1..=20).collect();
        expected.extend([100, 1000, 10_000]);
        assert_eq!(shown, expected);
    }
}
