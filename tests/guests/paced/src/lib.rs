//! A task whose duration is set by a flag: one step `wait` sleeps `--delay-ms` milliseconds
//! (default 100) and measures `waitedMs`, the time it took as the guest saw it. Scored on
//! `waitedMs` (lower is better), so two runs with different delays differ in latency, in
//! the step's duration, in the measure and in the composite score.

use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Participant, Scoring, ScoringMetric, Task,
    TaskOutput, TaskResult,
};
use std::time::{Duration, Instant};

struct Paced;

impl Task for Paced {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("paced", "Paced")
            .participant(Participant::new("local"))
            .iterations(20)
            .custom_cli_flag("--delay-ms")
            .scoring(
                Scoring::new().metric(
                    ScoringMetric::lower_is_better("waitedMs", 1000.0)
                        .unit("ms")
                        .weights(1.0, 0.0, 0.0),
                ),
            )
    }

    fn run(ctx: &Context) -> TaskResult {
        let ms = ctx
            .arg("--delay-ms")
            .and_then(|value| value.parse::<u64>().ok())
            .unwrap_or(100);
        let waited = ctx.step("wait", || {
            let start = Instant::now();
            std::thread::sleep(Duration::from_millis(ms));
            Ok(start.elapsed())
        })?;
        ctx.measure(json!({ "waitedMs": waited.as_secs_f64() * 1000.0 }));
        Ok(TaskOutput::new())
    }
}

export_task!(Paced);
