//! What epoch interruption costs a CPU-bound guest: `examples/rust-cpu` (a sieve) run in one
//! reused instance with and without epoch checks compiled in.
//!
//! `cargo bench -p bench-runtime --bench epoch_cost`

mod support;

use bench_runtime::component::TaskComponent;
use bench_runtime::engine::{EngineSettings, TaskEngine};
use bench_runtime::exec::{SlotConfig, SlotFactory, TaskRunner};
use bench_runtime::sandbox::Capabilities;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WARMUP: usize = 3;
const SAMPLES: usize = 30;

fn main() {
    let wasm = support::build_example("rust-cpu");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let with = runtime.block_on(measure(&wasm, true));
    let without = runtime.block_on(measure(&wasm, false));
    println!("sieve to 5 000 000, {SAMPLES} tasks in one instance (median of task wall time):");
    println!("  epoch interruption on : {:>8.2} ms", ms(with));
    println!("  epoch interruption off: {:>8.2} ms", ms(without));
    println!("  cost: {:+.1}%", (ms(with) / ms(without) - 1.0) * 100.0);
}

async fn measure(wasm: &Path, epoch_interruption: bool) -> Duration {
    let settings = EngineSettings {
        epoch_interruption,
        cache_dir: None,
    };
    let engine = TaskEngine::new(&settings).expect("engine");
    let task = Arc::new(TaskComponent::load(&engine, wasm).expect("component"));
    let config = SlotConfig {
        task,
        participant_json: r#"{"name":"local"}"#.into(),
        capabilities: Capabilities::default(),
        args: vec![("--limit".into(), "5000000".into())],
        fresh_instance: false,
        stop: Default::default(),
    };
    let mut slot = config.open_slot();
    let mut samples = Vec::with_capacity(SAMPLES);
    for i in 0..WARMUP + SAMPLES {
        let start = Instant::now();
        let finished = slot.run(i as u32, None).await;
        assert!(finished.record.is_success(), "{:?}", finished.record);
        if i >= WARMUP {
            samples.push(start.elapsed());
        }
    }
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
