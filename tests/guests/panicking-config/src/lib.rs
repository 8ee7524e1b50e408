//! A task whose `config` export panics.

use bench_guest::{export_task, BenchmarkConfig, Context, Task, TaskOutput, TaskResult};

struct PanickingConfig;

impl Task for PanickingConfig {
    fn config() -> BenchmarkConfig {
        panic!("the config is not ready")
    }

    fn run(_ctx: &Context) -> TaskResult {
        Ok(TaskOutput::new())
    }
}

export_task!(PanickingConfig);
