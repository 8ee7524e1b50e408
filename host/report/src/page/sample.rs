//! An even sample of a stream of unknown length in bounded memory: every `stride`-th item
//! is kept, and each time the sample reaches twice its target the stride doubles and every
//! other kept item goes, so the items kept stay evenly spread over the whole stream.

/// Keeps between `target` and `2 × target` items (or all of them, when fewer came), evenly
/// spaced over everything offered.
#[derive(Debug, Clone)]
pub(crate) struct EvenSample<T> {
    target: usize,
    stride: u64,
    seen: u64,
    kept: Vec<T>,
}

impl<T> EvenSample<T> {
    /// An empty sample that keeps about `target` items (at least 1).
    pub(crate) fn new(target: usize) -> Self {
        Self {
            target: target.max(1),
            stride: 1,
            seen: 0,
            kept: Vec::new(),
        }
    }

    /// Offers the next item of the stream.
    pub(crate) fn offer(&mut self, item: T) {
        if self.seen.is_multiple_of(self.stride) {
            self.kept.push(item);
            if self.kept.len() >= 2 * self.target {
                let mut index = 0;
                self.kept.retain(|_| {
                    index += 1;
                    index % 2 == 1
                });
                self.stride *= 2;
            }
        }
        self.seen += 1;
    }

    /// How many items were offered.
    pub(crate) fn seen(&self) -> u64 {
        self.seen
    }

    /// Whether some offered items were left out.
    pub(crate) fn is_sampled(&self) -> bool {
        self.stride > 1
    }

    /// The items kept, in the order they came.
    pub(crate) fn into_kept(self) -> Vec<T> {
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_stream_is_kept_whole() {
        let mut sample = EvenSample::new(10);
        (0..19).for_each(|i| sample.offer(i));
        assert!(!sample.is_sampled());
        assert_eq!(sample.seen(), 19);
        assert_eq!(sample.into_kept(), (0..19).collect::<Vec<_>>());
    }

    #[test]
    fn a_long_stream_keeps_evenly_spaced_items_within_bounds() {
        let mut sample = EvenSample::new(10);
        (0..1000).for_each(|i| sample.offer(i));
        assert!(sample.is_sampled());
        let kept = sample.into_kept();
        assert!((10..20).contains(&kept.len()), "{}", kept.len());
        let gaps: Vec<i32> = kept.windows(2).map(|pair| pair[1] - pair[0]).collect();
        assert!(gaps.iter().all(|&gap| gap == 64), "{gaps:?}");
        assert_eq!(kept[0], 0);
        assert!(*kept.last().unwrap() >= 1000 - 64);
    }
}
