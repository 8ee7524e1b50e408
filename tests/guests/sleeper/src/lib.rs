//! A task that holds its sandbox while it waits: it sleeps `--sleep-ms` milliseconds
//! (default 100) in a host call, so a run at high concurrency keeps that many sandboxes
//! alive at once. With `--blob-max-bytes N` its record also carries a blob of a size drawn
//! anew each time (0 to N bytes), so a task run again makes a record of another size.

use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult,
};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

struct Sleeper;

impl Task for Sleeper {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("sleeper", "Sleeper")
            .participant(Participant::new("local"))
            .iterations(1)
            .custom_cli_flag("--sleep-ms")
            .custom_cli_flag("--blob-max-bytes")
    }

    fn run(ctx: &Context) -> TaskResult {
        let number = |flag| ctx.arg(flag).and_then(|value| value.parse::<u64>().ok());
        let ms = number("--sleep-ms").unwrap_or(100);
        std::thread::sleep(Duration::from_millis(ms));
        let Some(max) = number("--blob-max-bytes").filter(|max| *max > 0) else {
            return Ok(TaskOutput::new());
        };
        let drawn = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos() as u64);
        let blob = "b".repeat((drawn % (max + 1)) as usize);
        Ok(TaskOutput::new().data(json!({ "blob": blob })))
    }
}

export_task!(Sleeper);
