//! The guest CPU of a run in its summary (records' `guestCpuUs`): under each participant's
//! latency, the median guest CPU of its successful tasks and its share of the latency
//! median; and a warning for each scored metric whose steps spent most of their time on the
//! guest's CPU, since such a figure measures the sandbox's CPU rather than the service.

use super::durations::duration;
use crate::scoring::median;
use bench_model::record::TaskRecord;

/// From this share of its steps' time on the guest's CPU, a scored metric gets a warning.
const MOSTLY: f64 = 0.5;
/// Steps shorter than this on average (µs) get no warning: a task of a few microseconds is
/// all guest CPU whatever it measures, and what it measures is no timing of the guest.
const NOTABLE_STEP_US: f64 = 1000.0;

/// One participant's guest CPU: one `f64` per successful task that has it, and for each
/// scored metric the guest CPU and the duration of the steps that measured it, summed.
#[derive(Debug, Clone, Default)]
pub(crate) struct GuestCpuSamples {
    task_ms: Vec<f64>,
    metrics: Vec<MetricCpu>,
}

#[derive(Debug, Clone, Copy, Default)]
struct MetricCpu {
    cpu_us: f64,
    duration_us: f64,
    steps: u32,
}

impl GuestCpuSamples {
    /// Takes what `record` says of the guest CPU; `metric_keys` are the data keys of the
    /// scored metrics (none in a run without `scoring`). A metric's time is that of the
    /// steps whose data carries its key, or the task's when no step does and the task's
    /// data does.
    pub(crate) fn add(&mut self, record: &TaskRecord, metric_keys: &[String]) {
        if !record.is_success() {
            return;
        }
        if let Some(us) = record.guest_cpu_us.filter(|us| us.is_finite()) {
            self.task_ms.push(us / 1000.0);
        }
        self.metrics.resize(metric_keys.len(), MetricCpu::default());
        for (key, metric) in metric_keys.iter().zip(&mut self.metrics) {
            let mut measured = false;
            for step in &record.steps {
                if step
                    .data
                    .as_ref()
                    .is_some_and(|data| data.contains_key(key))
                {
                    measured = true;
                    metric.add(step.guest_cpu_us, step.duration_us);
                }
            }
            let task_measured = record
                .data
                .as_ref()
                .is_some_and(|data| data.contains_key(key));
            if !measured && task_measured {
                metric.add(record.guest_cpu_us, record.duration_us);
            }
        }
    }

    /// `  <participant>: guest CPU <median> median, <share>% of the latency median`, when
    /// the participant's records have guest CPU and `latency_median_ms` is positive.
    pub(crate) fn line(
        &mut self,
        participant: &str,
        what: &str,
        latency_median_ms: f64,
    ) -> Option<String> {
        if self.task_ms.is_empty() {
            return None;
        }
        self.task_ms.sort_unstable_by(f64::total_cmp);
        let cpu = median(&self.task_ms);
        let share = if latency_median_ms > 0.0 {
            format!(
                ", {:.0}% of the {what} median",
                100.0 * cpu / latency_median_ms
            )
        } else {
            String::new()
        };
        Some(format!(
            "  {participant}: guest CPU {} median{share}",
            duration(cpu)
        ))
    }

    /// The warnings for the scored metrics whose steps spent most of their time on the
    /// guest's CPU (and lasted a millisecond or more on average).
    pub(crate) fn warnings(&self, participant: &str, metric_keys: &[String]) -> Vec<String> {
        metric_keys
            .iter()
            .zip(&self.metrics)
            .filter(|(_, metric)| metric.is_mostly_guest_cpu())
            .map(|(key, metric)| {
                format!(
                    "Warning: {participant}: the steps measuring {key} spent {:.0}% of their time on the guest's CPU: this figure measures the sandbox's CPU, not the service",
                    100.0 * metric.cpu_us / metric.duration_us
                )
            })
            .collect()
    }
}

impl MetricCpu {
    fn add(&mut self, cpu_us: Option<f64>, duration_us: Option<f64>) {
        if let (Some(cpu), Some(duration)) = (cpu_us, duration_us) {
            if cpu.is_finite() && duration.is_finite() {
                self.cpu_us += cpu;
                self.duration_us += duration;
                self.steps += 1;
            }
        }
    }

    fn is_mostly_guest_cpu(&self) -> bool {
        self.duration_us > 0.0
            && self.duration_us / f64::from(self.steps) >= NOTABLE_STEP_US
            && self.cpu_us / self.duration_us >= MOSTLY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::record::{Status, StepRecord};
    use serde_json::json;

    fn step(key: &str, cpu_us: f64, duration_us: f64) -> StepRecord {
        StepRecord {
            name: "s".into(),
            status: Status::Success,
            started_at: None,
            completed_at: None,
            latency_ms: Some(0.0),
            duration_us: Some(duration_us),
            guest_cpu_us: Some(cpu_us),
            concurrency: None,
            timeout_ms: None,
            data: json!({ key: 1 }).as_object().cloned(),
            error_code: None,
            implicit: false,
        }
    }

    fn record(cpu_us: Option<f64>, steps: Vec<StepRecord>) -> TaskRecord {
        let mut record = TaskRecord::bare(0, Status::Success, 1.0);
        record.duration_us = Some(1000.0);
        record.guest_cpu_us = cpu_us;
        record.data = json!({ "bytes": 5 }).as_object().cloned();
        record.steps = steps;
        record
    }

    #[test]
    fn the_line_gives_the_median_and_its_share_of_the_latency() {
        let mut samples = GuestCpuSamples::default();
        for us in [300.0, 100.0, 200.0] {
            samples.add(&record(Some(us), vec![]), &[]);
        }
        samples.add(&record(None, vec![]), &[]);
        assert_eq!(
            samples.line("local", "latency", 0.8).as_deref(),
            Some("  local: guest CPU 200 µs median, 25% of the latency median")
        );
        let mut old = GuestCpuSamples::default();
        old.add(&record(None, vec![]), &[]);
        assert_eq!(
            old.line("local", "latency", 1.0),
            None,
            "records without guestCpuUs"
        );
    }

    #[test]
    fn a_metric_measured_in_mostly_cpu_bound_steps_is_warned_about() {
        let keys = [
            "hashMs".to_owned(),
            "uploadMs".to_owned(),
            "bytes".to_owned(),
        ];
        let mut samples = GuestCpuSamples::default();
        for _ in 0..3 {
            let steps = vec![
                step("hashMs", 900.0, 1000.0),
                step("uploadMs", 10.0, 1000.0),
            ];
            samples.add(&record(Some(950.0), steps), &keys);
        }
        let warnings = samples.warnings("alpha", &keys);
        assert_eq!(
            warnings,
            [
                "Warning: alpha: the steps measuring hashMs spent 90% of their time on the guest's CPU: this figure measures the sandbox's CPU, not the service",
                "Warning: alpha: the steps measuring bytes spent 95% of their time on the guest's CPU: this figure measures the sandbox's CPU, not the service",
            ]
        );
        let mut quick = GuestCpuSamples::default();
        quick.add(&record(Some(9.0), vec![step("hashMs", 9.0, 10.0)]), &keys);
        assert!(
            quick.warnings("alpha", &keys).is_empty(),
            "steps of microseconds measure no guest timing"
        );
        let mut failed = record(Some(950.0), vec![step("uploadMs", 990.0, 1000.0)]);
        failed.status = Status::Error;
        let mut samples = GuestCpuSamples::default();
        samples.add(&failed, &keys);
        assert!(
            samples.warnings("alpha", &keys).is_empty(),
            "failed tasks count for nothing"
        );
    }
}
