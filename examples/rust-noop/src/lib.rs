//! An empty task: measures the host's per-iteration overhead. With `--step` it runs one step
//! that records one measurement instead.

use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult,
};

struct Noop;

impl Task for Noop {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("rust-noop", "Rust no-op")
            .participant(Participant::new("local"))
            .iterations(1000)
            .custom_cli_flag("--step")
    }

    fn run(ctx: &Context) -> TaskResult {
        if ctx.arg("--step").is_some() {
            ctx.step("work", || {
                ctx.measure(json!({ "value": 1 }));
                Ok(())
            })?;
        }
        Ok(TaskOutput::new())
    }
}

export_task!(Noop);
