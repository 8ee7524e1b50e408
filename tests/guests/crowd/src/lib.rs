//! An empty task with 1 000 participants (`p000` … `p999`): what the host does per
//! participant (banners, samples, sandboxes) dominates its runs.

use bench_guest::{export_task, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult};

struct Crowd;

impl Task for Crowd {
    fn config() -> BenchmarkConfig {
        (0..1000).fold(
            BenchmarkConfig::new("crowd", "Crowd").iterations(1),
            |config, n| config.participant(Participant::new(format!("p{n:03}"))),
        )
    }

    fn run(_ctx: &Context) -> TaskResult {
        Ok(TaskOutput::new())
    }
}

export_task!(Crowd);
