//! An empty task: measures the host's per-iteration overhead.

use bench_guest::{export_task, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult};

struct Noop;

impl Task for Noop {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("rust-noop", "Rust no-op")
            .participant(Participant::new("local"))
            .iterations(1000)
    }

    fn run(_ctx: &Context) -> TaskResult {
        Ok(TaskOutput::new())
    }
}

export_task!(Noop);
