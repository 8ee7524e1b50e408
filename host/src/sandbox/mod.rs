//! One sandbox per participant slot: a wasmtime [`Store`] whose state grants only that
//! participant's capabilities (its own secrets, no filesystem, deny-by-default HTTP,
//! captured stdio) within memory and time limits.

pub mod http;
pub mod stdio;

use crate::context::TaskRecorder;
use http::OutboundHttp;
use stdio::CapturedOutput;
use wasmtime::component::ResourceTable;
use wasmtime::{Engine, Store, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

/// What one sandbox is granted.
#[derive(Debug, Clone, Default)]
pub struct Capabilities {
    /// Environment variables visible to the guest (the participant's declared secrets).
    pub env: Vec<(String, String)>,
    /// Largest linear memory the guest may grow to, in bytes.
    pub max_memory_bytes: usize,
}

/// The state of one sandbox's store.
pub struct SandboxState {
    /// Steps, measurements and logs of the running task.
    pub recorder: TaskRecorder,
    /// The guest's captured stdout.
    pub stdout: CapturedOutput,
    /// The guest's captured stderr.
    pub stderr: CapturedOutput,
    wasi: WasiCtx,
    http: WasiHttpCtx,
    http_hooks: OutboundHttp,
    table: ResourceTable,
    limits: StoreLimits,
}

impl SandboxState {
    fn new(capabilities: &Capabilities) -> Self {
        let stdout = CapturedOutput::default();
        let stderr = CapturedOutput::default();
        let wasi = WasiCtxBuilder::new()
            .envs(&capabilities.env)
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .build();
        Self {
            recorder: TaskRecorder::default(),
            stdout,
            stderr,
            wasi,
            http: WasiHttpCtx::new(),
            http_hooks: OutboundHttp,
            table: ResourceTable::new(),
            limits: StoreLimitsBuilder::new()
                .memory_size(capabilities.max_memory_bytes)
                .trap_on_grow_failure(true)
                .build(),
        }
    }
}

/// Creates a sandbox store: its guest yields to the async executor at every epoch tick, so
/// a deadline can interrupt even a CPU-bound loop.
pub fn new_store(engine: &Engine, capabilities: &Capabilities) -> Store<SandboxState> {
    let mut store = Store::new(engine, SandboxState::new(capabilities));
    store.limiter(|state| &mut state.limits);
    store.epoch_deadline_async_yield_and_update(1);
    store
}

impl WasiView for SandboxState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for SandboxState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.http_hooks,
        }
    }
}
