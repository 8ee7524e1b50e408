//! One sandbox per participant slot: a wasmtime [`Store`] whose state grants only that
//! participant's capabilities — its own secrets (`bench_model::env`), no filesystem unless granted (`fs`),
//! deny-by-default HTTP (`http`), captured stdio (`stdio`), host-computed primitives
//! (`natives`), WebSocket connections under the HTTP rules (`websocket`), bodies read whole
//! (`bodies`) — within its `limits`.

pub mod bodies;
pub mod context;
pub mod cpu;
pub mod fs;
pub mod grants;
pub mod http;
pub mod limits;
pub mod memory;
pub mod natives;
pub(crate) mod stdio;
pub mod websocket;

use crate::sandbox::context::TaskRecorder;
use bodies::BodiesView;
use fs::DirGrant;
use http::{HttpPolicy, OutboundHttp};
use limits::Limits;
use memory::{Grown, HostMemory, SandboxMemory};
use natives::Natives;
use std::sync::Arc;
use stdio::CapturedOutput;
use wasmtime::component::ResourceTable;
use wasmtime::{Engine, ResourceLimiter, Store};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};
use websocket::{WebSocketView, WebSockets};

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
    /// The run's host memory budget, shared by all its sandboxes.
    pub host_memory: Arc<HostMemory>,
}

/// Most resources (HTTP fields, requests, streams, pollables…) one sandbox holds in the host
/// at once.
const MAX_RESOURCES: usize = 65_536;

/// Live resources past which a sandbox's next task gets a fresh instance.
const REFRESH_AT_RESOURCES: usize = MAX_RESOURCES / 4 * 3;

/// Tasks between two counts of a sandbox's live resources (a count walks the table).
const CENSUS_EVERY_TASKS: u32 = 256;

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
    /// The live hashers and streams of the `natives` interface.
    pub natives: Natives,
    /// The open WebSocket connections of the running task.
    pub websockets: WebSockets,
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    memory: Arc<SandboxMemory>,
    /// Tasks since the live resources were last counted.
    tasks_since_census: u32,
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
        let memory = SandboxMemory::new(
            capabilities.limits.max_memory_bytes,
            capabilities.host_memory.clone(),
        );
        Self {
            recorder: TaskRecorder::new(capabilities.limits.task),
            stdout,
            stderr,
            http_hooks: OutboundHttp::new(capabilities.http.clone()),
            natives: Natives::new(memory.clone()),
            websockets: WebSockets::new(memory.clone()),
            wasi: wasi.build(),
            http: WasiHttpCtx::new(),
            table: resource_table(),
            memory,
            tasks_since_census: 0,
        }
    }
}

fn resource_table() -> ResourceTable {
    let mut table = ResourceTable::new();
    table.set_max_capacity(MAX_RESOURCES);
    table
}

impl SandboxState {
    /// How many host resources (wasi handles: streams, pollables, HTTP requests and
    /// responses…) the guest holds: what a guest that never drops them grows.
    pub fn live_resources(&mut self) -> usize {
        self.table.iter_mut().count()
    }

    /// What the `websocket` interface reaches: its connections live in the table wasi's
    /// pollables use, and open through the outbound-HTTP rules.
    pub(crate) fn websocket(&mut self) -> WebSocketView<'_> {
        WebSocketView {
            table: &mut self.table,
            sockets: &mut self.websockets,
            http: &mut self.http_hooks,
        }
    }

    /// What the `bodies` interface reaches: the guest's streams live in wasi's table, and
    /// what it buffers counts against the sandbox's memory.
    pub(crate) fn bodies(&mut self) -> BodiesView<'_> {
        BodiesView {
            table: &mut self.table,
            memory: &self.memory,
        }
    }

    /// The memory the sandbox holds now (linear memories, tables, fields, host buffers).
    pub(crate) fn memory_held(&self) -> usize {
        self.memory.held()
    }

    /// Whether, at the end of a task, the sandbox holds so many host resources that its next
    /// task should get a fresh instance (counted every [`CENSUS_EVERY_TASKS`] tasks). An
    /// engine that keeps resources until its garbage collector runs (StarlingMonkey keeps
    /// each `fetch`'s response header fields until it collects their `Headers`, which a task
    /// allocating little may not do for tens of thousands of fetches) would otherwise reach
    /// [`MAX_RESOURCES`] and trap in the middle of a task.
    pub(crate) fn holds_too_many_resources(&mut self) -> bool {
        self.tasks_since_census += 1;
        if self.tasks_since_census < CENSUS_EVERY_TASKS {
            return false;
        }
        self.tasks_since_census = 0;
        self.live_resources() >= REFRESH_AT_RESOURCES
    }

    /// Gives back the estimate of HTTP fields the guest no longer holds once enough were
    /// counted since the last recount, so the next task's host buffers (which cannot
    /// recount) are not refused for fields long dropped.
    pub(crate) fn recount_fields(&mut self) {
        let table = &mut self.table;
        self.memory
            .recount_fields_when_due(|| http::fields::held(table));
    }

    /// Counts a growth of linear memory or a table (recounting the HTTP fields held when
    /// it does not fit); past a bound, the guest traps with `memory_limit`.
    fn grow(&mut self, what: Grown, current: usize, desired: usize) -> wasmtime::Result<bool> {
        let table = &mut self.table;
        self.memory
            .grow(what, current, desired, || http::fields::held(table))
            .map_err(wasmtime::Error::new)?;
        Ok(true)
    }
}

/// Linear memories, tables and the host's HTTP fields count against the sandbox's memory
/// limit and the run's host memory budget; crossing either traps with `memory_limit`.
impl ResourceLimiter for SandboxState {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.grow(Grown::LinearMemory, current, desired)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.grow(Grown::Table, current, desired)
    }
}

/// Creates a sandbox store: its guest yields to the async executor at every epoch tick, so
/// a deadline can interrupt even a CPU-bound loop. The first deadline is the next tick (a
/// new store's is epoch 0, long past, which would make every fresh instance yield at its
/// first epoch check).
pub(crate) fn new_store(engine: &Engine, capabilities: &Capabilities) -> Store<SandboxState> {
    let mut store = Store::new(engine, SandboxState::new(capabilities));
    store.limiter(|state| state as &mut dyn ResourceLimiter);
    store.epoch_deadline_async_yield_and_update(1);
    store.set_epoch_deadline(1);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};
    use wasmtime::{Config, Instance, Module};

    /// Polls `future` once: whether it finished without yielding.
    fn poll_once<F: Future>(future: F) -> Poll<F::Output> {
        pin!(future).poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn a_guest_in_a_new_sandbox_runs_until_the_next_epoch_tick_before_it_yields() {
        let engine = Engine::new(Config::new().epoch_interruption(true)).unwrap();
        let module = Module::new(
            &engine,
            wat::parse_str(
                r#"(module (func (export "count") (result i32)
                (local $i i32)
                (loop $again
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (br_if $again (i32.lt_u (local.get $i) (i32.const 1000))))
                (local.get $i)))"#,
            )
            .unwrap(),
        )
        .unwrap();
        let yields_at = |ticks_before_the_store: u32, ticks_after: u32| {
            for _ in 0..ticks_before_the_store {
                engine.increment_epoch();
            }
            let mut store = new_store(&engine, &Capabilities::default());
            let Poll::Ready(instance) = poll_once(Instance::new_async(&mut store, &module, &[]))
            else {
                panic!("instantiating yielded");
            };
            let count = instance
                .unwrap()
                .get_typed_func::<(), i32>(&mut store, "count")
                .unwrap();
            for _ in 0..ticks_after {
                engine.increment_epoch();
            }
            match poll_once(count.call_async(&mut store, ())) {
                Poll::Ready(counted) => {
                    assert_eq!(counted.unwrap(), 1000);
                    false
                }
                Poll::Pending => true,
            }
        };
        assert!(!yields_at(3, 0), "yielded before the next tick");
        assert!(yields_at(0, 1), "did not yield at the next tick");
    }
}
