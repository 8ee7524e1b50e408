//! A task whose config fails validation (iterations 0).

use bench_guest::{export_task, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult};

struct InvalidConfig;

impl Task for InvalidConfig {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("invalid", "Invalid")
            .participant(Participant::new("p"))
            .iterations(0)
    }

    fn run(_ctx: &Context) -> TaskResult {
        Ok(TaskOutput::new())
    }
}

export_task!(InvalidConfig);
