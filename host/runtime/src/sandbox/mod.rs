//! One sandbox per participant slot: a wasmtime [`Store`] whose state grants only that
//! participant's capabilities — its own secrets (`env`), no filesystem unless granted (`fs`),
//! deny-by-default HTTP (`http`), captured stdio (`stdio`) — within its `limits`.

pub mod context;
pub mod env;
pub mod fs;
pub mod grants;
pub mod http;
pub mod limits;
pub(crate) mod stdio;

use crate::sandbox::context::TaskRecorder;
use fs::DirGrant;
use http::{HttpPolicy, OutboundHttp};
use limits::Limits;
use stdio::CapturedOutput;
use wasmtime::component::ResourceTable;
use wasmtime::{Engine, Store, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

/// What one sandbox is granted.
#[derive(Debug, Clone, Default)]
pub struct Capabilities {
    /// Environment variables visible to the guest.
    pub env: Vec<(String, String)>,
    /// Host directories preopened for the guest.
    pub dirs: Vec<DirGrant>,
    /// Outbound HTTP destinations.
    pub http: HttpPolicy,
    /// Memory and time limits.
    pub limits: Limits,
}

/// The state of one sandbox's store.
pub struct SandboxState {
    /// Steps, measurements and logs of the running task.
    pub recorder: TaskRecorder,
    /// The guest's captured stdout.
    pub stdout: CapturedOutput,
    /// The guest's captured stderr.
    pub stderr: CapturedOutput,
    /// The outbound-HTTP hook (and the destinations it denied).
    pub http_hooks: OutboundHttp,
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    store_limits: StoreLimits,
}

impl SandboxState {
    fn new(capabilities: &Capabilities) -> Self {
        let stdout = CapturedOutput::default();
        let stderr = CapturedOutput::default();
        let mut wasi = WasiCtxBuilder::new();
        wasi.envs(&capabilities.env)
            .stdout(stdout.clone())
            .stderr(stderr.clone());
        for dir in &capabilities.dirs {
            let perms = if dir.writable {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            // The grant was checked to be a directory when it was parsed; one that vanished
            // since is simply not visible to the guest.
            let _ = wasi.preopened_dir(&dir.host, &dir.guest, perms);
        }
        Self {
            recorder: TaskRecorder::new(capabilities.limits.task),
            stdout,
            stderr,
            http_hooks: OutboundHttp::new(capabilities.http.clone()),
            wasi: wasi.build(),
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
            store_limits: StoreLimitsBuilder::new()
                .memory_size(capabilities.limits.max_memory_bytes)
                .trap_on_grow_failure(true)
                .build(),
        }
    }
}

/// Creates a sandbox store: its guest yields to the async executor at every epoch tick, so
/// a deadline can interrupt even a CPU-bound loop.
pub(crate) fn new_store(engine: &Engine, capabilities: &Capabilities) -> Store<SandboxState> {
    let mut store = Store::new(engine, SandboxState::new(capabilities));
    store.limiter(|state| &mut state.store_limits);
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
