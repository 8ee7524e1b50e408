//! A CPU-bound task: a sieve of Eratosthenes up to `--limit` (default 2 000 000), timed as
//! one step. Used to measure what epoch interruption costs CPU-bound guests.

use bench_guest::{export_task, json, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult};

struct Sieve;

impl Task for Sieve {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("rust-cpu", "Rust CPU-bound sieve")
            .participant(Participant::new("local"))
            .iterations(20)
            .custom_cli_flag("--limit")
    }

    fn run(ctx: &Context) -> TaskResult {
        let limit = ctx
            .arg("--limit")
            .and_then(|value| value.parse::<usize>().ok())
            .unwrap_or(2_000_000);
        let primes = ctx.step("sieve", || Ok(count_primes(limit)))?;
        ctx.measure(json!({ "primes": primes }));
        Ok(TaskOutput::new())
    }
}

fn count_primes(limit: usize) -> usize {
    let mut composite = vec![false; limit + 1];
    let mut count = 0;
    for n in 2..=limit {
        if !composite[n] {
            count += 1;
            let mut multiple = n * n;
            while multiple <= limit {
                composite[multiple] = true;
                multiple += n;
            }
        }
    }
    count
}

export_task!(Sieve);
