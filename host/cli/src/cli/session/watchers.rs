//! What watches a run's events, in order: the progress bar (it only draws, and is cleared
//! before the console ends its line), then the results writer and the console, so a record
//! is on disk before anything sends it; the tally the summary is made from, the system
//! metrics, the first failure, and the platform reporter last.

use super::open::Opened;
use anyhow::Result;
use bench_model::config::GroupBy;
use bench_model::events::Observers;
use bench_model::plan::RunManifest;
use bench_platform::reporter::{PlatformObserver, PlatformRun};
use bench_report::failures::FirstFailure;
use bench_report::metrics::MetricsRecorder;
use bench_report::progress::ProgressBars;
use bench_report::tally::RunTally;
use bench_report::RunReporter;

/// The observers of one run.
pub(super) struct Watchers {
    /// The progress bars, on a terminal.
    pub progress: Option<ProgressBars>,
    /// The console and the results writer.
    pub reporter: RunReporter,
    /// What the summary needs of each record; no record is kept.
    pub tally: RunTally,
    /// The system metrics.
    pub metrics: MetricsRecorder,
    /// The first failed task, for the failure gates.
    pub first_failure: FirstFailure,
    /// The platform reporter, when the run reports to one.
    pub platform: Option<PlatformObserver>,
}

impl Watchers {
    /// The observers of a run of `manifest`: its console and results writer (`reporter`),
    /// its `metrics`, progress bars when `bars`, the `platform` run's observer when it
    /// reports to one.
    pub(super) fn new(
        reporter: RunReporter,
        manifest: &RunManifest,
        metrics: MetricsRecorder,
        bars: bool,
        platform: Option<&PlatformRun>,
    ) -> Self {
        Self {
            progress: bars.then(ProgressBars::default),
            reporter,
            tally: RunTally::new(manifest),
            metrics: metrics.clone(),
            first_failure: FirstFailure::default(),
            platform: platform.map(|platform| platform.observer(metrics)),
        }
    }

    /// All of them, as one observer, in that order.
    pub(super) fn observers(&mut self) -> Observers<'_> {
        let mut observers = Observers::default();
        if let Some(progress) = &mut self.progress {
            observers.push(progress);
        }
        observers.push(&mut self.reporter);
        observers.push(&mut self.tally);
        observers.push(&mut self.metrics);
        observers.push(&mut self.first_failure);
        if let Some(observer) = &mut self.platform {
            observers.push(observer);
        }
        observers
    }
}

/// Starts sampling the system into the opened run's `metrics.jsonl`, as often as
/// `group_by` asks.
pub(in crate::cli) fn start_metrics(opened: &Opened, group_by: GroupBy) -> Result<MetricsRecorder> {
    let interval = MetricsRecorder::interval(group_by);
    MetricsRecorder::start(&opened.dir, interval, opened.disk.clone())
}
