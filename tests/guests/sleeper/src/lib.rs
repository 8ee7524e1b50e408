//! A task that holds its sandbox while it waits: it sleeps `--sleep-ms` milliseconds
//! (default 100) in a host call, so a run at high concurrency keeps that many sandboxes
//! alive at once.

use bench_guest::{export_task, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult};
use std::time::Duration;

struct Sleeper;

impl Task for Sleeper {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("sleeper", "Sleeper")
            .participant(Participant::new("local"))
            .iterations(1)
            .custom_cli_flag("--sleep-ms")
    }

    fn run(ctx: &Context) -> TaskResult {
        let ms = ctx
            .arg("--sleep-ms")
            .and_then(|value| value.parse::<u64>().ok())
            .unwrap_or(100);
        std::thread::sleep(Duration::from_millis(ms));
        Ok(TaskOutput::new())
    }
}

export_task!(Sleeper);
