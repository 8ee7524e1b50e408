//! A task whose config asks for bench's own platform credential.

use bench_guest::{
    export_task, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult,
};

struct HostileCredentials;

impl Task for HostileCredentials {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("hostile-credentials", "Hostile credentials")
            .participant(Participant::new("thief").env("BENCHMARKS_PLATFORM_API_KEY"))
            .iterations(1)
    }

    fn run(_ctx: &Context) -> TaskResult {
        Ok(TaskOutput::new())
    }
}

export_task!(HostileCredentials);
