//! A task with scoring and deterministic measures: every number it reports follows from the
//! participant and the task index, so its scores can be computed by hand (see
//! `tests/e2e/scoring.rs`). It shows groups (`size`), a success rule (`verified`), a
//! lower-is-better and a higher-is-better metric, array samples and a failing task.

use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Participant, Scoring, ScoringMetric, Task,
    TaskError, TaskOutput, TaskResult,
};

struct Scored;

impl Task for Scored {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("rust-scored", "Rust scored")
            .participant(
                Participant::new("fast")
                    .field("baseMs", 100)
                    .field("baseMbps", 200),
            )
            .participant(
                Participant::new("slow")
                    .field("baseMs", 300)
                    .field("baseMbps", 100),
            )
            .iterations(6)
            .dimensions(json!({ "region": "local" }))
            .scoring(
                Scoring::new()
                    .group_by("size")
                    .require_data("verified", true)
                    // No unit here: `display.metrics` supplies `ms`.
                    .metric(ScoringMetric::lower_is_better("uploadMs", 1000.0).weights(0.5, 0.2, 0.1))
                    .metric(
                        ScoringMetric::higher_is_better("throughputMbps", 510.0)
                            .floor(10.0)
                            .unit("Mbps")
                            .weights(0.2, 0.0, 0.0),
                    ),
            )
            .display(json!({
                "metrics": [
                    { "key": "uploadMs", "label": "Upload", "unit": "ms", "direction": "lower-better" },
                    { "key": "throughputMbps", "label": "Throughput", "unit": "Mbps", "direction": "higher-better" }
                ]
            }))
    }

    fn run(ctx: &Context) -> TaskResult {
        let participant = ctx.participant();
        let base_ms = participant["baseMs"].as_u64().unwrap_or_default();
        let base_mbps = participant["baseMbps"].as_u64().unwrap_or_default();
        let i = u64::from(ctx.task_index());
        let size = if i % 2 == 0 { "1MB" } else { "4MB" };
        ctx.step("upload", || {
            ctx.measure(json!({ "bytes": if i % 2 == 0 { 1 << 20 } else { 4 << 20 } }));
            Ok(())
        })?;
        if ctx.participant_name() == "fast" && i == 5 {
            return Err(TaskError::new("the upload was rejected")
                .code("upload_failed")
                .data(json!({ "size": size })));
        }
        ctx.measure(json!({
            "uploadMs": base_ms + 20 * i,
            // Two samples per task: one per upload stream.
            "throughputMbps": [base_mbps + 10 * i, base_mbps + 10 * i + 20],
        }));
        let verified = !(ctx.participant_name() == "slow" && i == 4);
        Ok(TaskOutput::new().data(json!({ "size": size, "verified": verified })))
    }
}

export_task!(Scored);
