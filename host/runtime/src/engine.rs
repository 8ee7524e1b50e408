//! One wasmtime [`Engine`] per process, a ticker that drives epoch interruption, and an
//! on-disk cache of compiled components.

use anyhow::{Context as _, Result};
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use wasmtime::component::Component;
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How often the ticker advances the epoch; running guests yield to the async executor at
/// this interval, which is what lets a deadline interrupt a CPU-bound loop.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Engine settings chosen by the user.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Compile guests with epoch checks, so deadlines can stop CPU-bound loops. Only the
    /// epoch-cost benchmark turns this off.
    pub epoch_interruption: bool,
    /// Directory of the compiled-component cache; `None` disables caching.
    pub cache_dir: Option<PathBuf>,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            epoch_interruption: true,
            cache_dir: default_cache_dir(),
        }
    }
}

/// The cache directory: `BENCH_CACHE_DIR`, else `<user cache dir>/bench/components`.
pub(crate) fn default_cache_dir() -> Option<PathBuf> {
    match std::env::var_os("BENCH_CACHE_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::cache_dir().map(|dir| dir.join("bench").join("components")),
    }
}

/// The process-wide engine with its epoch ticker and component cache.
pub struct TaskEngine {
    engine: Engine,
    cache_dir: Option<PathBuf>,
    ticker_stop: Arc<AtomicBool>,
}

impl TaskEngine {
    /// Creates the engine (pooling allocator when the machine allows it) and starts the
    /// epoch ticker.
    pub fn new(settings: &EngineSettings) -> Result<Self> {
        let engine = Engine::new(&engine_config(settings, true))
            .or_else(|_| Engine::new(&engine_config(settings, false)))
            .map_err(anyhow::Error::from)
            .context("failed to create the WebAssembly engine")?;
        let ticker_stop = Arc::new(AtomicBool::new(false));
        spawn_epoch_ticker(engine.clone(), ticker_stop.clone());
        Ok(Self {
            engine,
            cache_dir: settings.cache_dir.clone(),
            ticker_stop,
        })
    }

    /// The wasmtime engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Compiles a component, or loads it from the cache when these bytes were compiled
    /// before by this wasmtime version with these engine settings.
    pub(crate) fn load_component(&self, bytes: &[u8]) -> Result<Component> {
        let Some(cache_path) = self.cache_path(bytes) else {
            return compile(&self.engine, bytes);
        };
        if cache_path.is_file() {
            // SAFETY: the file was written by `Component::serialize` of an engine with the
            // same version and settings (both are part of its name), in a directory this
            // user owns; a corrupt or foreign file fails deserialization and is recompiled.
            #[allow(unsafe_code)]
            let cached = unsafe { Component::deserialize_file(&self.engine, &cache_path) };
            if let Ok(component) = cached {
                return Ok(component);
            }
        }
        let component = compile(&self.engine, bytes)?;
        if let Ok(serialized) = component.serialize() {
            // A cache that cannot be written only costs the next run a compile.
            let _ = write_atomically(&cache_path, &serialized);
        }
        Ok(component)
    }

    fn cache_path(&self, bytes: &[u8]) -> Option<PathBuf> {
        let dir = self.cache_dir.as_ref()?;
        let mut settings = std::collections::hash_map::DefaultHasher::new();
        self.engine
            .precompile_compatibility_hash()
            .hash(&mut settings);
        let digest = hex::encode(Sha256::digest(bytes));
        Some(dir.join(format!(
            "{digest}-wasmtime{}-{:016x}.cwasm",
            wasmtime_version(),
            settings.finish()
        )))
    }
}

impl Drop for TaskEngine {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
    }
}

/// The version of the `wasmtime` crate this host links (its `wasmtime-environ`, released in
/// lockstep, carries it).
pub(crate) fn wasmtime_version() -> &'static str {
    wasmtime_environ::VERSION
}

fn engine_config(settings: &EngineSettings, pooling: bool) -> Config {
    let mut config = Config::new();
    config
        .wasm_component_model(true)
        .epoch_interruption(settings.epoch_interruption)
        .concurrency_support(false);
    if pooling {
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(1000)
            .total_core_instances(10_000)
            .total_memories(2000)
            .total_tables(10_000)
            .max_core_instances_per_component(200)
            .max_memories_per_component(20)
            .max_tables_per_component(200)
            .max_tables_per_module(20)
            .table_elements(200_000)
            .max_memory_size(4 << 30)
            .max_component_instance_size(4 << 20)
            .max_core_instance_size(4 << 20);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}

fn compile(engine: &Engine, bytes: &[u8]) -> Result<Component> {
    Component::new(engine, bytes).map_err(|error| anyhow::anyhow!("{error:#}"))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = tempfile_path(path);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

fn tempfile_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}

fn spawn_epoch_ticker(engine: Engine, stop: Arc<AtomicBool>) {
    std::thread::Builder::new()
        .name("bench-epoch".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(EPOCH_TICK);
                engine.increment_epoch();
            }
        })
        .expect("spawning the epoch ticker thread");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wasmtime_version_is_the_linked_crates_semver() {
        let parts: Vec<&str> = wasmtime_version().split('.').collect();
        assert_eq!(parts.len(), 3, "{}", wasmtime_version());
        assert!(parts.iter().all(|part| part.parse::<u32>().is_ok()));
    }
}
