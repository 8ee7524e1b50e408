//! The threads sandboxes run their tasks on: one current-thread tokio runtime per core the
//! process may use, each with its own I/O driver and timers, shared by every run of the
//! process. A slot is given one of them when it is opened (in turn) and its task loop runs
//! there, so what its tasks cause — wasmtime-wasi-http's task per outgoing request, the
//! request's connection, the wake-ups of both — stays on that thread. On the process's
//! multi-threaded runtime each request of a guest woke an idle worker and crossed between
//! threads (four to five context switches per small GET, a third of its CPU).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::thread;
use tokio::runtime::{Builder, Handle};

/// The slot threads, started on first use.
struct SlotThreads {
    handles: Vec<Handle>,
    next: AtomicUsize,
}

static THREADS: OnceLock<Option<SlotThreads>> = OnceLock::new();

/// The runtime of the next slot thread (round-robin), or `None` when no thread could be
/// started (the executor's own runtime runs the slot then).
pub(crate) fn next() -> Option<Handle> {
    THREADS
        .get_or_init(SlotThreads::start)
        .as_ref()
        .map(SlotThreads::next)
}

/// The runtimes of every slot thread, the next one's first (none when no thread could be
/// started).
pub(crate) fn all() -> Vec<Handle> {
    THREADS
        .get_or_init(SlotThreads::start)
        .as_ref()
        .map_or_else(Vec::new, |threads| {
            (0..threads.handles.len()).map(|_| threads.next()).collect()
        })
}

impl SlotThreads {
    /// One thread per core this process may use (its CPU affinity and cgroup quota), each
    /// driving its runtime for the life of the process.
    fn start() -> Option<Self> {
        let count = thread::available_parallelism().map_or(1, usize::from);
        let handles = (0..count)
            .map(|number| {
                let runtime = Builder::new_current_thread().enable_all().build().ok()?;
                let handle = runtime.handle().clone();
                thread::Builder::new()
                    .name(format!("bench-slot-{number}"))
                    .spawn(move || runtime.block_on(std::future::pending::<()>()))
                    .ok()?;
                Some(handle)
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self {
            handles,
            next: AtomicUsize::new(0),
        })
    }

    /// The runtime of the thread whose turn it is.
    fn next(&self) -> Handle {
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        self.handles[turn % self.handles.len()].clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn slots_take_the_threads_in_turn_and_run_there() {
        let threads = SlotThreads::start().expect("slot threads start");
        let count = threads.handles.len();
        let mut names = Vec::new();
        for _ in 0..count * 2 {
            let handle = threads.next();
            let name = handle
                .spawn(async { thread::current().name().map(str::to_owned) })
                .await
                .unwrap();
            names.push(name.expect("slot threads are named"));
        }
        assert!(names.iter().all(|name| name.starts_with("bench-slot-")));
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), count, "{names:?}");
        // A task spawned from a slot's task stays on the slot's thread.
        let handle = next().expect("the process's slot threads start");
        let (outer, inner) = handle
            .spawn(async {
                let outer = thread::current().id();
                let inner = tokio::spawn(async { thread::current().id() })
                    .await
                    .unwrap();
                (outer, inner)
            })
            .await
            .unwrap();
        assert_eq!(outer, inner);
    }
}
