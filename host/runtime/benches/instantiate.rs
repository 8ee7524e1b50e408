//! What a fresh sandbox costs: `examples/rust-noop` run task after task in one slot, with
//! its instance reused and with a fresh instance for every task (`--fresh-instance`); the
//! difference is instantiation plus teardown. Measured with sandboxes from a run's instance
//! pool and from an on-demand engine, in wall time and in CPU time of the slot's thread
//! (Linux; less disturbed by other processes on a busy machine), and the time to set up a
//! pool for 1 and for 10 000 sandboxes.
//!
//! `cargo bench -p bench-runtime --bench instantiate`

mod support;

use bench_runtime::component::TaskComponent;
use bench_runtime::engine::{EngineSettings, TaskEngine};
use bench_runtime::exec::{SlotConfig, SlotFactory, TaskRunner};
use bench_runtime::sandbox::Capabilities;
use std::sync::Arc;
use std::time::{Duration, Instant};

const TASKS_PER_BATCH: u32 = 20_000;
const BATCHES: usize = 7;

fn main() {
    let wasm = support::build_example("rust-noop");
    let settings = EngineSettings {
        epoch_interruption: true,
        cache_dir: None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let loading = TaskEngine::new(&settings).expect("engine");
    let task = TaskComponent::load(&loading, &wasm).expect("component");

    for sandboxes in [1, 10_000] {
        let pool = task.pool_size(sandboxes);
        let start = Instant::now();
        let engine = TaskEngine::for_run(&settings, pool).expect("engine");
        let took = start.elapsed();
        assert!(engine.is_pooled());
        println!(
            "engine with a pool for {sandboxes:>6} sandboxes ({pool:?}): {:>8.3} ms",
            ms(took)
        );
    }
    let start = Instant::now();
    let _on_demand = TaskEngine::new(&settings).expect("engine");
    println!("engine without a pool: {:>8.3} ms", ms(start.elapsed()));

    println!(
        "per task, median (min; median CPU) of {BATCHES} batches of {TASKS_PER_BATCH} no-op \
         tasks in one slot:"
    );
    for (label, engine) in [
        (
            "pool",
            TaskEngine::for_run(&settings, task.pool_size(1)).unwrap(),
        ),
        ("on demand", TaskEngine::new(&settings).unwrap()),
    ] {
        let task = Arc::new(task.load_into(&engine).expect("component"));
        let reused = runtime.block_on(per_task(&task, false));
        let fresh = runtime.block_on(per_task(&task, true));
        println!(
            "  {label:>9}: reused instance {}, fresh instance {} → instantiate + teardown \
             {:.2} µs (CPU {})",
            reused.show(),
            fresh.show(),
            us(fresh.median) - us(reused.median),
            show_cpu(fresh.cpu_median.zip(reused.cpu_median).map(|(f, r)| f - r)),
        );
    }
}

/// Time per task over the batches.
struct PerTask {
    median: Duration,
    min: Duration,
    /// Median CPU time of the slot's thread, in µs, where the platform says.
    cpu_median: Option<f64>,
}

impl PerTask {
    fn show(&self) -> String {
        format!(
            "{:.2} µs ({:.2}; CPU {})",
            us(self.median),
            us(self.min),
            show_cpu(self.cpu_median)
        )
    }
}

async fn per_task(task: &Arc<TaskComponent>, fresh_instance: bool) -> PerTask {
    let config = SlotConfig {
        task: task.clone(),
        participant_json: r#"{"name":"local"}"#.into(),
        capabilities: Capabilities::default(),
        args: Vec::new(),
        fresh_instance,
        stop: Default::default(),
    };
    let mut slot = config.open_slot();
    // Warm up: the first instance, the pool slot's image, the allocator.
    for index in 0..1000 {
        assert!(slot.run(index, None).await.record.is_success());
    }
    let mut batches = Vec::with_capacity(BATCHES);
    let mut cpu_batches = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        let cpu_start = thread_cpu_ns();
        let start = Instant::now();
        for index in 0..TASKS_PER_BATCH {
            let finished = slot.run(index, None).await;
            assert!(finished.record.is_success(), "{:?}", finished.record);
        }
        batches.push(start.elapsed() / TASKS_PER_BATCH);
        if let Some((end, start)) = thread_cpu_ns().zip(cpu_start) {
            cpu_batches.push((end - start) as f64 / 1000.0 / f64::from(TASKS_PER_BATCH));
        }
    }
    batches.sort();
    cpu_batches.sort_by(f64::total_cmp);
    PerTask {
        median: batches[BATCHES / 2],
        min: batches[0],
        cpu_median: cpu_batches.get(BATCHES / 2).copied(),
    }
}

/// CPU time this thread has run, in ns (Linux's scheduler statistics; `None` elsewhere).
fn thread_cpu_ns() -> Option<u64> {
    let stats = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stats.split_whitespace().next()?.parse().ok()
}

fn show_cpu(cpu_us: Option<f64>) -> String {
    cpu_us.map_or("–".into(), |cpu| format!("{cpu:.2} µs"))
}

fn us(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
