//! {{title}}: one iteration of the workload in `run`, the benchmark in `config`.

use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult,
};

struct Benchmark;

impl Task for Benchmark {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("{{slug}}", "{{title}}")
            .participant(Participant::new("local"))
            .iterations(3)
    }

    fn run(ctx: &Context) -> TaskResult {
        let items = ctx.step("prepare", || Ok((1..=100u64).collect::<Vec<_>>()))?;
        ctx.step("work", || {
            let sum: u64 = items.iter().sum();
            ctx.measure(json!({ "items": items.len(), "sum": sum }));
            Ok(())
        })?;
        ctx.log("done");
        Ok(TaskOutput::new().data(json!({ "participant": ctx.participant_name() })))
    }
}

export_task!(Benchmark);
