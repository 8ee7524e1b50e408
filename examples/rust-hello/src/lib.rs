//! A small task showing every part of the task API: steps, a nested step, measurements,
//! logs, phases, participant fields, a custom CLI flag and a failing task.

use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Level, Participant, Task, TaskError, TaskOutput,
    TaskResult,
};

struct Hello;

impl Task for Hello {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("rust-hello", "Rust hello")
            .participant(Participant::new("alpha").field("region", "eu"))
            .participant(Participant::new("beta").field("region", "us"))
            .phase("cold", 1)
            .phase("warm", 2)
            .custom_cli_flag("--fail-at")
    }

    fn run(ctx: &Context) -> TaskResult {
        ctx.log_with(
            Level::Info,
            "starting",
            Some(json!({ "region": ctx.participant()["region"] })),
        );
        let sandbox = ctx.step("create", || {
            ctx.measure(json!({ "sandboxes": 1 }));
            Ok(format!("{}-{}", ctx.participant_name(), ctx.task_index()))
        })?;
        ctx.step("exec", || {
            ctx.step("connect", || {
                ctx.measure(json!({ "handshakes": 1 }));
                Ok(())
            })?;
            let checksum: u64 = (1..=1000).sum();
            ctx.measure(json!({ "checksum": checksum }));
            Ok(())
        })?;
        let fail_at = ctx.arg("--fail-at").and_then(|value| value.parse::<u32>().ok());
        if fail_at == Some(ctx.task_index()) {
            return Err(TaskError::new("failing as asked by --fail-at")
                .code("planned_failure")
                .data(json!({ "sandbox": sandbox })));
        }
        ctx.measure(json!({ "answer": 42 }));
        Ok(TaskOutput::new().data(json!({ "sandbox": sandbox })))
    }
}

export_task!(Hello);
