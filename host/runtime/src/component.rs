//! Loading a task component: format checks with actionable messages, compilation (cached),
//! world checks, and the [`TaskPre`] every sandbox is instantiated from.

use crate::compile_budget::OverBudget;
use crate::engine::{PoolSize, TaskEngine};
use crate::sandbox::bodies::BodiesHost;
use crate::sandbox::context::TaskRecorder;
use crate::sandbox::natives::Natives;
use crate::sandbox::websocket::WebSocketHost;
use crate::sandbox::{self, Capabilities, SandboxState};
use anyhow::{bail, Context as _, Result};
use bench_contract::bench::task as contract;
use bench_contract::{TaskPre, CONTRACT_PACKAGE};
use bench_model::plan::ComponentInfo;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, HasSelf, Linker};

/// The world every task targets.
pub(crate) const TASK_WORLD: &str = "bench:task/task@0.1.4";

/// The `bench:task` interfaces the host links. A component built against an earlier 0.1
/// version imports some of them at its version, which wasmtime's semver matching links to
/// these (0.1.0 to 0.1.3 components load unchanged).
const PROVIDED_TASK: &[&str] = &[
    "bench:task/model",
    "bench:task/context",
    "bench:task/natives",
    "bench:task/websocket",
    "bench:task/bodies",
];

/// How long the `config` export may take.
const CONFIG_TIMEOUT: Duration = Duration::from_secs(30);

/// Largest config a task may return, in bytes of JSON text (10 000 participants take about
/// 300 KB).
const MAX_CONFIG_BYTES: usize = 16 << 20;

/// A compiled task component, ready to instantiate.
pub struct TaskComponent {
    /// Where it was loaded from.
    pub path: PathBuf,
    /// sha256 of its bytes, hex.
    pub sha256: String,
    /// Size of its bytes.
    pub size_bytes: usize,
    /// Pre-linked instance factory (cheap per-sandbox instantiation).
    pub pre: TaskPre<SandboxState>,
    /// The most memory an instance of it held, just after it was created or at the end of
    /// a task that did not trap.
    held_bytes: AtomicUsize,
}

impl TaskComponent {
    /// Its identity in `run.json`: path, hash and size.
    pub fn info(&self) -> ComponentInfo {
        ComponentInfo {
            path: self.path.display().to_string(),
            sha256: self.sha256.clone(),
            size_bytes: self.size_bytes as u64,
        }
    }

    /// Reads, checks, compiles (or loads from the cache) and links a task component.
    pub fn load(engine: &TaskEngine, path: &Path) -> Result<Self> {
        let shown = path.display();
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {shown}"))?;
        check_format(&bytes).with_context(|| format!("{shown} cannot be run"))?;
        let component = engine.load_component(&bytes).map_err(|error| {
            let what = if error.is::<OverBudget>() {
                "cannot be compiled"
            } else {
                "is not a valid WebAssembly component"
            };
            error.context(format!("{shown} {what}"))
        })?;
        check_exports(engine, &component)
            .with_context(|| format!("{shown} is not a bench task"))?;
        Ok(Self {
            path: path.to_owned(),
            sha256: hex::encode(Sha256::digest(&bytes)),
            size_bytes: bytes.len(),
            pre: link(engine, &component, path)?,
            held_bytes: AtomicUsize::new(0),
        })
    }

    /// This task in another engine (a run's, whose pool is sized from the run), without
    /// compiling it again.
    pub fn load_into(&self, engine: &TaskEngine) -> Result<Self> {
        let compiled = self.pre.instance_pre().component();
        let component = engine
            .adopt_component(&self.sha256, compiled)
            .with_context(|| {
                format!("cannot load {} into the run's engine", self.path.display())
            })?;
        Ok(Self {
            path: self.path.clone(),
            sha256: self.sha256.clone(),
            size_bytes: self.size_bytes,
            pre: link(engine, &component, &self.path)?,
            held_bytes: AtomicUsize::new(0),
        })
    }

    /// Notes what an instance holds, once created (its initial linear memories and tables)
    /// and at the end of each task that did not trap (what it grew to): what another
    /// sandbox comes to take.
    pub(crate) fn note_held(&self, bytes: usize) {
        // Read first: most tasks hold no more than the most seen, and a read leaves the
        // cache line shared between the slot threads.
        if bytes > self.held_bytes.load(Ordering::Relaxed) {
            self.held_bytes.fetch_max(bytes, Ordering::Relaxed);
        }
    }

    /// The most an instance held; 0 before the first was created.
    pub(crate) fn held_bytes(&self) -> usize {
        self.held_bytes.load(Ordering::Relaxed)
    }

    /// The pool `sandboxes` live instances of this task need.
    pub fn pool_size(&self, sandboxes: u32) -> PoolSize {
        let required = self.pre.instance_pre().component().resources_required();
        PoolSize::new(sandboxes, required.as_ref())
    }

    /// The names of the component's imports.
    pub fn imports(&self) -> Vec<String> {
        let component = self.pre.instance_pre().component();
        component
            .component_type()
            .imports(self.pre.engine())
            .map(|(name, _)| name.to_owned())
            .collect()
    }

    /// The names of the component's exports.
    pub fn exports(&self) -> Vec<String> {
        let component = self.pre.instance_pre().component();
        component
            .component_type()
            .exports(self.pre.engine())
            .map(|(name, _)| name.to_owned())
            .collect()
    }

    /// Calls the component's `config` export in a sandbox without any capabilities.
    pub async fn config_json(&self) -> Result<String> {
        let capabilities = Capabilities::default();
        let mut store = sandbox::new_store(self.pre.engine(), &capabilities);
        let call = async {
            let task = self.pre.instantiate_async(&mut store).await?;
            task.call_config(&mut store).await
        };
        let outcome = tokio::time::timeout(CONFIG_TIMEOUT, call).await;
        match outcome {
            Ok(Ok(json)) => bounded_config(json),
            Ok(Err(error)) => {
                // A panicking guest says why on stderr (the Rust SDK prints one line).
                let said = store.data().stderr.last_line();
                let said = said.map(|line| format!(" ({line})")).unwrap_or_default();
                bail!(
                    "the task's `config` export failed: {}{said}",
                    trap_summary(&error)
                )
            }
            Err(_) => bail!(
                "the task's `config` export did not return within {}s",
                CONFIG_TIMEOUT.as_secs()
            ),
        }
    }
}

/// Refuses a config larger than [`MAX_CONFIG_BYTES`] before it is parsed.
fn bounded_config(json: String) -> Result<String> {
    if json.len() > MAX_CONFIG_BYTES {
        bail!(
            "the task's config is {} bytes of JSON (at most {MAX_CONFIG_BYTES} bytes)",
            json.len()
        );
    }
    Ok(json)
}

/// A one-line description of a wasmtime error: the trap, else the innermost cause.
pub(crate) fn trap_summary(error: &wasmtime::Error) -> String {
    let text = match error.downcast_ref::<wasmtime::Trap>() {
        Some(trap) => trap.to_string(),
        None => error.root_cause().to_string(),
    };
    text.lines().next().unwrap_or_default().to_owned()
}

fn check_format(bytes: &[u8]) -> Result<()> {
    const MAGIC: &[u8] = b"\0asm";
    const CORE_VERSION: [u8; 4] = [0x01, 0x00, 0x00, 0x00];
    if bytes.len() < 8 || &bytes[..4] != MAGIC {
        bail!("it is not a WebAssembly file (no `\\0asm` header); expected a component built for wasm32-wasip2");
    }
    if bytes[4..8] == CORE_VERSION {
        bail!(
            "it is a core WebAssembly module, not a component; build the task for the \
             wasm32-wasip2 target (`bench build <dir>` or `cargo build --release --target \
             wasm32-wasip2`), or wrap a core module with `wasm-tools component new`"
        );
    }
    Ok(())
}

fn check_exports(engine: &TaskEngine, component: &Component) -> Result<()> {
    let exported: Vec<(String, bool)> = component
        .component_type()
        .exports(engine.engine())
        .map(|(name, item)| {
            (
                name.to_owned(),
                matches!(item.ty, ComponentItem::ComponentFunc(_)),
            )
        })
        .collect();
    let missing: Vec<&str> = ["config", "run"]
        .into_iter()
        .filter(|name| {
            !exported
                .iter()
                .any(|(export, is_func)| export == name && *is_func)
        })
        .collect();
    if !missing.is_empty() {
        let found: Vec<&str> = exported.iter().map(|(name, _)| name.as_str()).collect();
        bail!(
            "it does not export {} (it exports: {}); a task must target the world `{TASK_WORLD}`",
            missing
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(" and "),
            if found.is_empty() {
                "nothing".to_owned()
            } else {
                found.join(", ")
            },
        );
    }
    Ok(())
}

/// WASI 0.2 interfaces the host links (wasmtime-wasi and wasi:http), by `package/interface`.
const PROVIDED_WASI: &[&str] = &[
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/stderr",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:cli/terminal-stderr",
    "wasi:clocks/monotonic-clock",
    "wasi:clocks/wall-clock",
    "wasi:filesystem/types",
    "wasi:filesystem/preopens",
    "wasi:io/error",
    "wasi:io/poll",
    "wasi:io/streams",
    "wasi:random/random",
    "wasi:random/insecure",
    "wasi:random/insecure-seed",
    "wasi:sockets/network",
    "wasi:sockets/instance-network",
    "wasi:sockets/udp",
    "wasi:sockets/udp-create-socket",
    "wasi:sockets/tcp",
    "wasi:sockets/tcp-create-socket",
    "wasi:sockets/ip-name-lookup",
    "wasi:http/types",
    "wasi:http/outgoing-handler",
];

fn import_names(engine: &TaskEngine, component: &Component) -> Vec<String> {
    component
        .component_type()
        .imports(engine.engine())
        .map(|(name, _)| name.to_owned())
        .collect()
}

/// Says which imports the host does not provide (and whether the task was built against
/// another version of the bench contract).
fn explain_missing_imports(imports: &[String], error: &wasmtime::Error) -> String {
    let missing: Vec<&String> = imports.iter().filter(|name| !is_provided(name)).collect();
    if let Some(other) = missing.iter().find(|name| name.starts_with("bench:task/")) {
        let version = other.rsplit_once('@').map_or("an unversioned", |(_, v)| v);
        return format!(
            "was built against bench:task@{version}, but this bench provides {CONTRACT_PACKAGE}; \
             rebuild the task with a matching SDK"
        );
    }
    if missing.is_empty() {
        return format!("cannot be linked: {}", trap_summary(error));
    }
    let names: Vec<&str> = missing.iter().map(|name| name.as_str()).collect();
    format!(
        "imports what bench does not provide: {} (bench provides WASI 0.2, wasi:http and \
         {CONTRACT_PACKAGE}: context, natives, websocket, bodies)",
        names.join(", ")
    )
}

fn is_provided(import: &str) -> bool {
    let (interface, version) = import.rsplit_once('@').unwrap_or((import, ""));
    if interface.starts_with("bench:task/") {
        return PROVIDED_TASK.contains(&interface) && version.starts_with("0.1.");
    }
    PROVIDED_WASI.contains(&interface) && version.starts_with("0.2.")
}

/// Links the component against the host and checks it against the task world.
fn link(engine: &TaskEngine, component: &Component, path: &Path) -> Result<TaskPre<SandboxState>> {
    let shown = path.display();
    let linker = task_linker(engine)?;
    let instance_pre = linker.instantiate_pre(component).map_err(|error| {
        let imports = import_names(engine, component);
        anyhow::anyhow!("{shown} {}", explain_missing_imports(&imports, &error))
    })?;
    TaskPre::new(instance_pre)
        .map_err(|error| anyhow::anyhow!("{error:#}"))
        .with_context(|| format!("{shown} does not match the {TASK_WORLD} world"))
}

fn task_linker(engine: &TaskEngine) -> Result<Linker<SandboxState>> {
    let mut linker: Linker<SandboxState> = Linker::new(engine.engine());
    wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(anyhow::Error::from)?;
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)
        .map_err(anyhow::Error::from)?;
    sandbox::http::fields::account_in(&mut linker)?;
    contract::model::add_to_linker::<_, HasSelf<TaskRecorder>>(&mut linker, |state| {
        &mut state.recorder
    })
    .map_err(anyhow::Error::from)?;
    contract::context::add_to_linker::<_, HasSelf<TaskRecorder>>(&mut linker, |state| {
        &mut state.recorder
    })
    .map_err(anyhow::Error::from)?;
    contract::natives::add_to_linker::<_, HasSelf<Natives>>(&mut linker, |state| {
        &mut state.natives
    })
    .map_err(anyhow::Error::from)?;
    contract::websocket::add_to_linker::<_, WebSocketHost>(&mut linker, SandboxState::websocket)
        .map_err(anyhow::Error::from)?;
    contract::bodies::add_to_linker::<_, BodiesHost>(&mut linker, SandboxState::bodies)
        .map_err(anyhow::Error::from)?;
    Ok(linker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_contract_versions_link_and_a_later_one_is_named() {
        assert!(is_provided("bench:task/context@0.1.0"));
        assert!(is_provided("bench:task/model@0.1.0"));
        assert!(is_provided("bench:task/natives@0.1.1"));
        assert!(is_provided("bench:task/natives@0.1.2"));
        assert!(is_provided("bench:task/websocket@0.1.2"));
        assert!(is_provided("bench:task/websocket@0.1.3"));
        assert!(is_provided("bench:task/bodies@0.1.3"));
        assert!(is_provided("bench:task/bodies@0.1.4"));
        assert!(!is_provided("bench:task/context@0.2.0"));
        assert!(!is_provided("bench:task/gpu@0.1.1"));
        let imports = [
            "wasi:cli/stdout@0.2.6".to_owned(),
            "bench:task/context@0.2.0".to_owned(),
        ];
        assert_eq!(
            explain_missing_imports(&imports, &wasmtime::Error::msg("unlinked")),
            "was built against bench:task@0.2.0, but this bench provides bench:task@0.1.4; \
             rebuild the task with a matching SDK"
        );
    }

    #[test]
    fn a_config_past_its_size_bound_is_refused() {
        let most = " ".repeat(MAX_CONFIG_BYTES);
        assert_eq!(bounded_config(most.clone()).unwrap(), most);
        let error = bounded_config(most + "{}").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the task's config is 16777218 bytes of JSON (at most 16777216 bytes)"
        );
    }
}
