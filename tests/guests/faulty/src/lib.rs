//! A task that misbehaves on request: `--hang-at N` blocks in a host call inside a step with
//! a 100 ms timeout, `--spin-at N` loops on the CPU inside such a step, `--panic-at N` panics
//! inside a step. Other tasks succeed and count how often this instance ran.

use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Participant, StepOptions, Task, TaskOutput,
    TaskResult,
};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

static RUNS_IN_THIS_INSTANCE: AtomicU32 = AtomicU32::new(0);

struct Faulty;

fn asked(ctx: &Context, flag: &str) -> bool {
    ctx.arg(flag).and_then(|v| v.parse::<u32>().ok()) == Some(ctx.task_index())
}

impl Task for Faulty {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("faulty", "Faulty")
            .participant(Participant::new("p"))
            .iterations(3)
            .custom_cli_flag("--hang-at")
            .custom_cli_flag("--spin-at")
            .custom_cli_flag("--panic-at")
    }

    fn run(ctx: &Context) -> TaskResult {
        let runs = RUNS_IN_THIS_INSTANCE.fetch_add(1, Ordering::Relaxed) + 1;
        let limited = StepOptions::new().timeout_ms(100);
        if asked(ctx, "--hang-at") {
            ctx.step_with("hang", limited, || {
                std::thread::sleep(Duration::from_secs(30));
                Ok(())
            })?;
        }
        if asked(ctx, "--spin-at") {
            ctx.step_with("spin", limited, || {
                let mut x: u64 = 1;
                loop {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
                #[allow(unreachable_code)]
                Ok(x)
            })?;
        }
        if asked(ctx, "--panic-at") {
            ctx.step("explode", || -> Result<(), bench_guest::TaskError> { panic!("boom at task {}", ctx.task_index()) })?;
        }
        Ok(TaskOutput::new().data(json!({ "runsInInstance": runs })))
    }
}

export_task!(Faulty);
