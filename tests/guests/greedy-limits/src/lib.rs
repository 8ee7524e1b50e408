//! A well-behaved task whose config asks for more of every limit than bench allows by
//! default: the run is refused unless the operator raises each ceiling.

use bench_guest::{export_task, json, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult};

struct GreedyLimits;

impl Task for GreedyLimits {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("greedy-limits", "Greedy limits")
            .participant(Participant::new("greedy"))
            .iterations(2)
            .field(
                "limits",
                json!({
                    "memoryMb": 4096,
                    "taskTimeoutMs": 60000,
                    "maxSteps": 100000,
                    "maxStepNameBytes": 65536,
                    "maxLogMessageBytes": 16777216,
                    "maxTaskLogBytes": 1073741824,
                    "maxDataBytes": 67108864,
                    "maxParticipantLogBytes": 1099511627776u64,
                    "maxSandboxes": 1000000,
                }),
            )
    }

    fn run(ctx: &Context) -> TaskResult {
        ctx.step("work", || Ok(()))?;
        Ok(TaskOutput::new().data(json!({ "ok": true })))
    }
}

export_task!(GreedyLimits);
