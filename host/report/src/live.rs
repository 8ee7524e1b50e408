//! Live statistics for the progress line: per participant and metric an HDR histogram
//! (the `hdrhistogram` crate, microseconds to an hour at 3 significant digits), so the
//! p50/p99 so far cost the same memory after a minute as after a day. The metrics are the
//! task latency, the open-model response and service times, and the record's numeric
//! measures (at most [`MAX_METRICS`] per participant). The summary keeps exact samples.

use bench_model::metric::{LATENCY, RESPONSE_TIME, SERVICE_TIME};
use bench_model::record::TaskRecord;
use hdrhistogram::Histogram;
use serde_json::Value;
use std::collections::HashMap;

/// The most metrics tracked per participant (the rest are left out of the live line).
pub(crate) const MAX_METRICS: usize = 32;
/// The largest value a histogram holds: an hour, in microseconds (larger ones saturate).
const HIGHEST_MICROS: u64 = 3_600_000_000;

/// What the progress line shows of one participant so far.
#[derive(Debug, Default)]
pub(crate) struct LiveStats {
    participants: HashMap<String, ParticipantLive>,
}

/// One participant's histograms and counts.
#[derive(Debug, Default)]
struct ParticipantLive {
    metrics: HashMap<String, Histogram<u64>>,
    dropped: u64,
}

/// The live figures of one participant's headline metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LiveLine {
    /// Median so far, in the metric's unit.
    pub p50: f64,
    /// 99th percentile so far.
    pub p99: f64,
    /// Arrivals dropped so far.
    pub dropped: u64,
}

impl LiveStats {
    /// Records a successful task's latency (at its finest resolution), response and service
    /// times and numeric measures.
    pub(crate) fn add(&mut self, participant: &str, record: &TaskRecord) {
        if !record.is_success() {
            return;
        }
        let live = self.participant(participant);
        live.record(LATENCY, record.fine_latency_ms());
        if let Some(arrival) = &record.arrival {
            live.record(RESPONSE_TIME, arrival.response_time_ms);
            live.record(SERVICE_TIME, arrival.service_time_ms);
        }
        for (key, value) in record.data.iter().flatten() {
            if let Some(number) = value.as_f64().filter(|_| !matches!(value, Value::Bool(_))) {
                live.record(key, number);
            }
        }
    }

    /// Counts a dropped arrival.
    pub(crate) fn add_dropped(&mut self, participant: &str) {
        self.participant(participant).dropped += 1;
    }

    /// The figures of `metric` for `participant`, once it has a sample.
    pub(crate) fn line(&self, participant: &str, metric: &str) -> Option<LiveLine> {
        let live = self.participants.get(participant)?;
        let histogram = live.metrics.get(metric)?;
        let at = |quantile: f64| {
            histogram.median_equivalent(histogram.value_at_quantile(quantile)) as f64 / 1000.0
        };
        Some(LiveLine {
            p50: at(0.5),
            p99: at(0.99),
            dropped: live.dropped,
        })
    }

    /// How many samples `metric` of `participant` holds.
    #[cfg(test)]
    fn samples(&self, participant: &str, metric: &str) -> u64 {
        self.participants
            .get(participant)
            .and_then(|live| live.metrics.get(metric))
            .map_or(0, Histogram::len)
    }

    fn participant(&mut self, name: &str) -> &mut ParticipantLive {
        if !self.participants.contains_key(name) {
            self.participants
                .insert(name.to_owned(), ParticipantLive::default());
        }
        self.participants
            .get_mut(name)
            .expect("the participant was just added")
    }
}

impl ParticipantLive {
    /// Adds `value` (milliseconds, or the measure's own unit, kept in thousandths) to the
    /// histogram of `metric`; negative and non-finite values are left out.
    fn record(&mut self, metric: &str, value: f64) {
        if !value.is_finite() || value < 0.0 {
            return;
        }
        if !self.metrics.contains_key(metric) {
            if self.metrics.len() >= MAX_METRICS {
                return;
            }
            let histogram = Histogram::new_with_bounds(1, HIGHEST_MICROS, 3)
                .expect("the histogram bounds are valid");
            self.metrics.insert(metric.to_owned(), histogram);
        }
        let histogram = self
            .metrics
            .get_mut(metric)
            .expect("the metric has a histogram");
        histogram.saturating_record((value * 1000.0).round() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::record::{ArrivalTiming, Status};
    use serde_json::json;

    #[test]
    fn percentiles_so_far_within_three_digits() {
        let mut live = LiveStats::default();
        for ms in 1..=1000 {
            live.add("a", &TaskRecord::bare(0, Status::Success, f64::from(ms)));
        }
        live.add("a", &TaskRecord::bare(0, Status::Error, 1e9));
        let line = live.line("a", LATENCY).unwrap();
        assert!((line.p50 - 500.0).abs() <= 0.5, "{line:?}");
        assert!((line.p99 - 990.0).abs() <= 1.0, "{line:?}");
        assert_eq!(live.samples("a", LATENCY), 1000, "failures are left out");
        assert_eq!(live.line("b", LATENCY), None);
    }

    #[test]
    fn the_latency_is_the_task_s_monotonic_duration_where_it_has_one() {
        let mut live = LiveStats::default();
        for us in [7.0, 8.0, 9.0] {
            let mut record = TaskRecord::bare(0, Status::Success, 0.0);
            record.duration_us = Some(us);
            live.add("a", &record);
        }
        live.add("b", &TaskRecord::bare(0, Status::Success, 3.0));
        let p50 = |participant: &str| live.line(participant, LATENCY).unwrap().p50;
        assert_eq!(p50("a"), 0.008);
        assert!((p50("b") - 3.0).abs() <= 0.003, "{}", p50("b"));
    }

    #[test]
    fn open_runs_and_measures_get_their_own_histograms_up_to_the_cap() {
        let mut live = LiveStats::default();
        let mut record = TaskRecord::bare(0, Status::Success, 4.0);
        record.arrival = Some(ArrivalTiming {
            intended_start_at: String::new(),
            start_lag_ms: 1000.0,
            service_time_ms: 4.0,
            response_time_ms: 1004.0,
        });
        let mut data = serde_json::Map::new();
        for key in 0..100 {
            data.insert(format!("m{key}"), json!(key));
        }
        data.insert("flag".into(), json!(true));
        record.data = Some(data);
        live.add("a", &record);
        live.add_dropped("a");
        let line = live.line("a", RESPONSE_TIME).unwrap();
        assert!((line.p99 - 1004.0).abs() < 1.0);
        assert_eq!(line.dropped, 1);
        assert_eq!(live.participants["a"].metrics.len(), MAX_METRICS);
        assert_eq!(live.samples("a", "flag"), 0);
    }

    #[test]
    fn memory_does_not_grow_with_the_samples() {
        let mut live = LiveStats::default();
        live.add("a", &TaskRecord::bare(0, Status::Success, 1.0));
        let size = |live: &LiveStats| live.participants["a"].metrics[LATENCY].distinct_values();
        let before = size(&live);
        for i in 0..200_000u32 {
            let ms = f64::from(i % 5000) / 7.0;
            live.add("a", &TaskRecord::bare(0, Status::Success, ms));
        }
        assert_eq!(size(&live), before, "the same buckets hold every sample");
    }
}
