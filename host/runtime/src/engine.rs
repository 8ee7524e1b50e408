//! The wasmtime [`Engine`]s of a process — one that loads a task and calls its `config`,
//! and one per run whose instance pool is sized from the run — each with a ticker that
//! drives epoch interruption, and an authenticated on-disk cache of compiled components
//! ([`crate::compiled_cache`]).

use crate::compile_budget::CompileBudget;
use crate::compiled_cache::{self, CompiledCache, EngineBinding, Lookup};
use anyhow::{Context as _, Result};
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::OnceLock;
use std::time::Duration;
use wasmtime::component::Component;
use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, ResourcesRequired,
};

/// How often the ticker advances the epoch; running guests yield to the async executor at
/// this interval, which is what lets a deadline interrupt a CPU-bound loop.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Most linear memories a run's pool reserves address space for: every slot is a 4 GiB
/// reservation plus its guard, so 16 384 slots take 64 TiB of the 128 TiB a process can
/// address. A run that needs more allocates its sandboxes on demand.
const POOL_MAX_MEMORIES: u32 = 16_384;

/// Most core instances one task component may create.
const MAX_CORE_INSTANCES_PER_COMPONENT: u32 = 200;

/// Most linear memories and tables one task component may define unless its instance
/// defines more (then that many).
const MAX_MEMORIES_PER_COMPONENT: u32 = 20;
const MAX_TABLES_PER_COMPONENT: u32 = 200;

/// Linear memory a pool slot keeps resident (reset with `memset`, only the pages the last
/// instance wrote when the kernel can say which) instead of returning it to the kernel:
/// the next instance of the slot does not fault it in again.
const KEEP_RESIDENT_BYTES: usize = 1 << 20;

/// Table memory a pool slot keeps resident, reset with `memset` like linear memory: a table
/// returned to the kernel with `madvise` costs a system call, a TLB flush on every core the
/// process runs on and a page fault when the next instance touches it (8 192 elements).
const TABLE_KEEP_RESIDENT_BYTES: usize = 64 << 10;

/// Engine settings chosen by the user.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Compile guests with epoch checks, so deadlines can stop CPU-bound loops. Only the
    /// epoch-cost benchmark turns this off.
    pub epoch_interruption: bool,
    /// Directory of the compiled-component cache; `None` disables caching. Its entries are
    /// authenticated with the key of [`compiled_cache::default_key_file`].
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

/// What a run's instance pool holds: a slot for every sandbox alive at once, each with
/// room for the linear memories and tables the task's instance defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSize {
    /// Sandboxes alive at once.
    pub sandboxes: u32,
    /// Linear memories one instance of the task defines.
    pub memories_per_sandbox: u32,
    /// Tables one instance of the task defines.
    pub tables_per_sandbox: u32,
}

impl PoolSize {
    /// Room for `sandboxes` instances of a component that needs `required` (`None` when
    /// the component cannot say, because it instantiates an imported module: then the
    /// per-component maximum).
    pub fn new(sandboxes: u32, required: Option<&ResourcesRequired>) -> Self {
        Self {
            sandboxes,
            memories_per_sandbox: required.map_or(MAX_MEMORIES_PER_COMPONENT, |r| r.num_memories),
            tables_per_sandbox: required.map_or(MAX_TABLES_PER_COMPONENT, |r| r.num_tables),
        }
    }

    fn memories(&self) -> u32 {
        self.sandboxes
            .max(1)
            .saturating_mul(self.memories_per_sandbox.max(1))
    }

    /// Whether the pool's address space is reasonable to reserve up front.
    fn fits(&self) -> bool {
        self.memories() <= POOL_MAX_MEMORIES
    }

    fn allocation_config(&self) -> PoolingAllocationConfig {
        let sandboxes = self.sandboxes.max(1);
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(sandboxes)
            .total_core_instances(sandboxes.saturating_mul(MAX_CORE_INSTANCES_PER_COMPONENT))
            .total_memories(self.memories())
            .total_tables(sandboxes.saturating_mul(self.tables_per_sandbox.max(1)))
            // One fiber stack per task in flight, and never more tasks than sandboxes.
            .total_stacks(sandboxes)
            .max_core_instances_per_component(MAX_CORE_INSTANCES_PER_COMPONENT)
            .max_memories_per_component(self.memories_per_sandbox.max(MAX_MEMORIES_PER_COMPONENT))
            .max_tables_per_component(self.tables_per_sandbox.max(MAX_TABLES_PER_COMPONENT))
            .max_tables_per_module(20)
            .table_elements(200_000)
            .max_memory_size(4 << 30)
            .max_component_instance_size(4 << 20)
            .max_core_instance_size(4 << 20)
            .linear_memory_keep_resident(KEEP_RESIDENT_BYTES)
            .table_keep_resident(TABLE_KEEP_RESIDENT_BYTES)
            .pagemap_scan(Enabled::Auto);
        pool
    }
}

/// A wasmtime engine with its epoch ticker and component cache.
pub struct TaskEngine {
    engine: Engine,
    cache: Option<CompiledCache>,
    compile_budget: CompileBudget,
    pooled: bool,
    ticker_stop: Arc<AtomicBool>,
}

impl TaskEngine {
    /// An engine that allocates instances on demand (nothing reserved up front): it loads
    /// tasks and calls their `config`. Starts the epoch ticker.
    pub fn new(settings: &EngineSettings) -> Result<Self> {
        let engine = Engine::new(&engine_config(settings, None))
            .map_err(anyhow::Error::from)
            .context("failed to create the WebAssembly engine")?;
        Ok(Self::start(engine, settings, false))
    }

    /// The engine of a run: its sandboxes come from an instance pool sized to `pool`
    /// (slots reserved up front and reused, so instantiating is cheap), or on demand when
    /// such a pool would take too much address space or the machine refuses it.
    pub fn for_run(settings: &EngineSettings, pool: PoolSize) -> Result<Self> {
        let pooled = pool
            .fits()
            .then(|| Engine::new(&engine_config(settings, Some(pool))).ok())
            .flatten();
        match pooled {
            Some(engine) => Ok(Self::start(engine, settings, true)),
            None => Self::new(settings),
        }
    }

    fn start(engine: Engine, settings: &EngineSettings, pooled: bool) -> Self {
        let ticker_stop = Arc::new(AtomicBool::new(false));
        spawn_epoch_ticker(engine.clone(), ticker_stop.clone());
        Self {
            engine,
            cache: settings.cache_dir.clone().and_then(open_cache),
            compile_budget: CompileBudget::default(),
            pooled,
            ticker_stop,
        }
    }

    /// This engine, compiling components within `budget` (else bench's default budget).
    pub fn with_compile_budget(mut self, budget: CompileBudget) -> Self {
        self.compile_budget = budget;
        self
    }

    /// The wasmtime engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Whether sandboxes come from a pool sized to the run (else they are allocated on
    /// demand).
    pub fn is_pooled(&self) -> bool {
        self.pooled
    }

    /// Whether loading the component at `path` compiles it, as it is not in the cache (a
    /// file that cannot be read is left to the load to report).
    pub fn must_compile(&self, path: &Path) -> bool {
        let Ok(bytes) = std::fs::read(path) else {
            return false;
        };
        let digest = hex::encode(Sha256::digest(&bytes));
        self.cache
            .as_ref()
            .is_none_or(|cache| !cache.entry_path(&digest, &self.binding()).is_file())
    }

    /// Compiles a component, or loads it from the cache when this user's bench compiled
    /// these bytes before with this wasmtime version and these engine settings.
    pub(crate) fn load_component(&self, bytes: &[u8]) -> Result<Component> {
        let digest = hex::encode(Sha256::digest(bytes));
        let Some(cache) = &self.cache else {
            return self.compile(bytes);
        };
        if let Some(component) = self.cached(cache, &digest) {
            return Ok(component);
        }
        let component = self.compile(bytes)?;
        if let Ok(serialized) = component.serialize() {
            cache.store(&digest, &self.binding(), &serialized);
        }
        Ok(component)
    }

    /// `compiled` (loaded by another engine with the same compilation settings, from bytes
    /// whose sha256 is `digest`) in this engine: from the cache when it is there, else
    /// copied over.
    pub(crate) fn adopt_component(&self, digest: &str, compiled: &Component) -> Result<Component> {
        if let Some(component) = self.cache.as_ref().and_then(|c| self.cached(c, digest)) {
            return Ok(component);
        }
        let serialized = compiled.serialize().map_err(anyhow::Error::from)?;
        // SAFETY: the bytes were just serialized by this process from a component compiled
        // by an engine of the same version; deserialization checks the settings match.
        #[allow(unsafe_code)]
        let component = unsafe { Component::deserialize(&self.engine, &serialized) };
        component.map_err(|error| anyhow::anyhow!("{error:#}"))
    }

    /// The cached component of `digest`, when the cache holds an entry that passes its
    /// check; an entry that fails it is never deserialised (a one-line warning says so, and
    /// the caller compiles again).
    fn cached(&self, cache: &CompiledCache, digest: &str) -> Option<Component> {
        match cache.load(digest, &self.binding()) {
            Lookup::Verified(artifact) => {
                // SAFETY: the artifact carries a valid HMAC under this user's key, bound to
                // these component bytes, this wasmtime and these engine settings: this user's
                // bench wrote it with `Component::serialize`, and it has not changed since.
                #[allow(unsafe_code)]
                let component = unsafe { Component::deserialize(&self.engine, &artifact) };
                component.ok()
            }
            Lookup::Missing => None,
            Lookup::Rejected(entry) => {
                eprintln!(
                    "warning: the cached compiled component {} failed its integrity check (not \
                     written by this user's bench for this component and engine, or changed \
                     since): compiling the component again",
                    entry.display()
                );
                None
            }
        }
    }

    /// Compiles `bytes` within the compile budget: their sizes are checked first, and the
    /// compilation is watched.
    fn compile(&self, bytes: &[u8]) -> Result<Component> {
        self.compile_budget.check_sizes(bytes)?;
        let engine = self.engine.clone();
        let bytes = bytes.to_vec();
        self.compile_budget
            .watch(move || compile(&engine, &bytes))?
    }

    /// What this engine's cache entries are bound to.
    fn binding(&self) -> EngineBinding {
        let mut settings = std::collections::hash_map::DefaultHasher::new();
        self.engine
            .precompile_compatibility_hash()
            .hash(&mut settings);
        EngineBinding {
            wasmtime: wasmtime_version(),
            settings: settings.finish(),
        }
    }
}

/// The cache in `dir` with this user's key; without a usable key nothing is cached, and a
/// one-line warning (once per process) says why.
fn open_cache(dir: PathBuf) -> Option<CompiledCache> {
    static WARNED: OnceLock<()> = OnceLock::new();
    let opened = compiled_cache::default_key_file()
        .ok_or_else(|| {
            format!(
                "this system has no user config folder: set {}",
                compiled_cache::CACHE_KEY_ENV
            )
        })
        .and_then(|key_file| CompiledCache::open(dir, &key_file));
    match opened {
        Ok(cache) => Some(cache),
        Err(why) => {
            WARNED.get_or_init(|| {
                eprintln!("warning: compiled components are not cached: {why}");
            });
            None
        }
    }
}

impl Drop for TaskEngine {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
    }
}

/// The version of the `wasmtime` crate this host links (its `wasmtime-environ`, released in
/// lockstep, carries it).
pub fn wasmtime_version() -> &'static str {
    wasmtime_environ::VERSION
}

/// The engine's settings; the allocation strategy does not change compiled code, so both
/// kinds of engine share cached components.
fn engine_config(settings: &EngineSettings, pool: Option<PoolSize>) -> Config {
    let mut config = Config::new();
    config
        .wasm_component_model(true)
        .epoch_interruption(settings.epoch_interruption)
        .concurrency_support(false);
    if let Some(pool) = pool {
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(
            pool.allocation_config(),
        ));
    }
    config
}

fn compile(engine: &Engine, bytes: &[u8]) -> Result<Component> {
    Component::new(engine, bytes).map_err(|error| anyhow::anyhow!("{error:#}"))
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
    use crate::sandbox::{self, Capabilities};
    use wasmtime::{Instance, Module};

    /// A module whose `dirty` export changes its memory (a data segment's byte past the
    /// first MiB and a zero page) and its tables (a small one and one larger than a host
    /// page: elements set and replaced, the small one grown); `changes` says, one bit each,
    /// what differs from the module's initial state.
    const STATEFUL_MODULE: &str = r#"
        (module
          (memory 17)
          (data (i32.const 1048576) "\2a")
          (table $small 8 funcref)
          (table $large 2000 funcref)
          (elem (table $small) (i32.const 0) func $one)
          (elem declare func $one $two)
          (type $returns_i32 (func (result i32)))
          (func $one (result i32) (i32.const 1))
          (func $two (result i32) (i32.const 2))
          (func (export "changes") (result i32)
            (i32.or
              (i32.or
                (i32.ne (i32.load8_u (i32.const 1048576)) (i32.const 42))
                (i32.shl (i32.ne (i32.load (i32.const 4096)) (i32.const 0)) (i32.const 1)))
              (i32.or
                (i32.or
                  (i32.shl (i32.ne (table.size $small) (i32.const 8)) (i32.const 2))
                  (i32.shl (i32.eqz (ref.is_null (table.get $small (i32.const 1)))) (i32.const 3)))
                (i32.or
                  (i32.shl (i32.eqz (ref.is_null (table.get $large (i32.const 1999)))) (i32.const 4))
                  (i32.shl
                    (i32.ne (call_indirect $small (type $returns_i32) (i32.const 0)) (i32.const 1))
                    (i32.const 5))))))
          (func (export "dirty")
            (i32.store8 (i32.const 1048576) (i32.const 7))
            (i32.store (i32.const 4096) (i32.const 9))
            (table.set $small (i32.const 0) (ref.func $two))
            (table.set $small (i32.const 1) (ref.func $one))
            (table.set $large (i32.const 1999) (ref.func $one))
            (drop (table.grow $small (ref.func $one) (i32.const 4)))))
    "#;

    #[tokio::test]
    async fn an_instance_in_a_reused_pool_slot_starts_from_the_modules_initial_state() {
        let settings = EngineSettings {
            epoch_interruption: true,
            cache_dir: None,
        };
        // One slot for one memory and two tables: every instance gets the slots the last
        // one left.
        let pool = PoolSize {
            sandboxes: 1,
            memories_per_sandbox: 1,
            tables_per_sandbox: 2,
        };
        let engine = TaskEngine::for_run(&settings, pool).unwrap();
        assert!(engine.is_pooled());
        let module =
            Module::new(engine.engine(), wat::parse_str(STATEFUL_MODULE).unwrap()).unwrap();
        for instance_number in 1..=3 {
            let mut store = sandbox::new_store(engine.engine(), &Capabilities::default());
            let instance = Instance::new_async(&mut store, &module, &[]).await.unwrap();
            let changes = instance
                .get_typed_func::<(), i32>(&mut store, "changes")
                .unwrap();
            assert_eq!(
                changes.call_async(&mut store, ()).await.unwrap(),
                0,
                "instance {instance_number} found its memory or tables changed (bit 0: data \
                 segment, 1: zero page, 2: table size, 3: small table, 4: large table, 5: \
                 initial element)"
            );
            let dirty = instance
                .get_typed_func::<(), ()>(&mut store, "dirty")
                .unwrap();
            dirty.call_async(&mut store, ()).await.unwrap();
            assert_eq!(changes.call_async(&mut store, ()).await.unwrap(), 0b11_1111);
        }
    }

    #[test]
    fn the_wasmtime_version_is_the_linked_crates_semver() {
        let parts: Vec<&str> = wasmtime_version().split('.').collect();
        assert_eq!(parts.len(), 3, "{}", wasmtime_version());
        assert!(parts.iter().all(|part| part.parse::<u32>().is_ok()));
    }
}
