//! One participant slot: a sandbox whose instance serves task after task, and is replaced by
//! a fresh one (from the shared `InstancePre`) after a trap or timeout.

use super::outcome::{build_record, Ending, Timing};
use crate::bindings::bench::task::model::TaskInput;
use crate::bindings::Task;
use crate::component::{trap_summary, TaskComponent};
use crate::context::StepDeadline;
use crate::js;
use crate::record::TaskRecord;
use crate::sandbox::{self, Capabilities, SandboxState};
use std::sync::Arc;
use std::time::{Instant, SystemTime};
use tokio::sync::watch;
use wasmtime::Store;

/// A finished task: its record and the participant-log lines it produced.
#[derive(Debug)]
pub struct Finished {
    /// The task record.
    pub record: TaskRecord,
    /// Lines for the participant log.
    pub log: Vec<String>,
}

/// What every task of one participant shares.
#[derive(Clone)]
pub struct SlotConfig {
    /// The compiled task.
    pub task: Arc<TaskComponent>,
    /// The participant object, as JSON text.
    pub participant_json: String,
    /// The participant's sandbox grants.
    pub capabilities: Capabilities,
    /// Custom CLI flags passed to the task.
    pub args: Vec<(String, String)>,
    /// Instantiate afresh for every task instead of reusing the slot's instance.
    pub fresh_instance: bool,
}

/// One concurrency slot of one participant.
pub struct Slot {
    config: SlotConfig,
    live: Option<LiveInstance>,
}

struct LiveInstance {
    store: Store<SandboxState>,
    task: Task,
    deadline: watch::Receiver<Option<StepDeadline>>,
}

enum CallEnd {
    Returned(wasmtime::Result<Result<crate::bindings::TaskOutput, crate::bindings::TaskError>>),
    TimedOut(StepDeadline),
}

impl Slot {
    /// A slot with no instance yet (it is created by the first task).
    pub fn new(config: SlotConfig) -> Self {
        Self { config, live: None }
    }

    /// Runs one task and builds its record. Never fails: whatever goes wrong becomes a failed
    /// record.
    pub async fn run(
        &mut self,
        task_index: u32,
        record_index: u32,
        phase: Option<&str>,
    ) -> Finished {
        let started_at = SystemTime::now();
        let start = Instant::now();
        let live = match self.live.take() {
            Some(live) => live,
            None => match instantiate(&self.config).await {
                Ok(live) => live,
                Err(message) => {
                    let ending = Ending::Stopped {
                        code: "instantiation_failed".into(),
                        message,
                    };
                    let timing = timing(started_at, start);
                    let record =
                        build_record(record_index, phase, timing, Default::default(), ending);
                    return Finished {
                        record,
                        log: Vec::new(),
                    };
                }
            },
        };
        let mut live = live;
        live.store.data_mut().recorder.begin(record_index);
        let input = TaskInput {
            participant: self.config.participant_json.clone(),
            task_index,
            phase: phase.map(str::to_owned),
            args: self.config.args.clone(),
        };
        let end = call_with_deadlines(&mut live, &input).await;
        let timing = timing(started_at, start);
        let (ending, reusable) = match end {
            CallEnd::Returned(Ok(Ok(output))) => (Ending::Output(output), true),
            CallEnd::Returned(Ok(Err(error))) => (Ending::Failed(error), true),
            CallEnd::Returned(Err(trap)) => (stopped_by_trap(&trap, &live), false),
            CallEnd::TimedOut(deadline) => (
                Ending::Stopped {
                    code: "step_timeout".into(),
                    message: deadline.message(),
                },
                false,
            ),
        };
        let (close_code, close_message) = match &ending {
            Ending::Stopped { code, message } => (code.clone(), message.clone()),
            _ => (
                "abandoned".into(),
                "step was still open when the task returned".into(),
            ),
        };
        let state = live.store.data_mut();
        let recorded = state.recorder.finish(&close_code, &close_message);
        let mut log = state.recorder.take_log();
        collect_stdio(state, record_index, !reusable, &mut log);
        let record = build_record(record_index, phase, timing, recorded, ending);
        if reusable && !self.config.fresh_instance {
            self.live = Some(live);
        }
        Finished { record, log }
    }
}

/// Creates a sandbox and instantiates the task in it.
async fn instantiate(config: &SlotConfig) -> Result<LiveInstance, String> {
    let task = &config.task;
    let mut store = sandbox::new_store(task.pre.engine(), &config.capabilities);
    let deadline = store.data().recorder.watch_deadline();
    match task.pre.instantiate_async(&mut store).await {
        Ok(instance) => Ok(LiveInstance {
            store,
            task: instance,
            deadline,
        }),
        Err(error) => Err(format!(
            "could not instantiate the task: {}",
            trap_summary(&error)
        )),
    }
}

/// Calls `run`, racing it against the deadline of the open steps; the guest yields at every
/// epoch tick, so even a CPU-bound loop is stopped on time.
async fn call_with_deadlines(live: &mut LiveInstance, input: &TaskInput) -> CallEnd {
    let LiveInstance {
        store,
        task,
        deadline,
    } = live;
    let call = task.call_run(&mut *store, input);
    tokio::pin!(call);
    loop {
        let current = deadline.borrow_and_update().clone();
        let expiry = async {
            match &current {
                Some(deadline) => tokio::time::sleep_until(deadline.at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            result = &mut call => return CallEnd::Returned(result),
            () = expiry => return CallEnd::TimedOut(current.expect("expiry only fires with a deadline")),
            _ = deadline.changed() => {}
        }
    }
}

fn stopped_by_trap(trap: &wasmtime::Error, live: &LiveInstance) -> Ending {
    let mut message = format!("task trapped: {}", trap_summary(trap));
    if let Some(last) = live.store.data().stderr.last_line() {
        message.push_str(&format!(" ({last})"));
    }
    Ending::Stopped {
        code: "trap".into(),
        message,
    }
}

fn collect_stdio(
    state: &SandboxState,
    task_index: u32,
    flush_partial: bool,
    log: &mut Vec<String>,
) {
    for (name, stream) in [("stdout", &state.stdout), ("stderr", &state.stderr)] {
        let (lines, dropped) = stream.take_lines(flush_partial);
        let stamp = js::iso_timestamp(SystemTime::now());
        log.extend(
            lines
                .into_iter()
                .map(|line| format!("{stamp} [task {task_index}] [{name}] {line}")),
        );
        if dropped > 0 {
            log.push(format!(
                "{stamp} [task {task_index}] [{name}] ... ({dropped} bytes dropped)"
            ));
        }
    }
}

fn timing(started_at: SystemTime, start: Instant) -> Timing {
    Timing {
        started_at,
        completed_at: SystemTime::now(),
        elapsed_ms: start.elapsed().as_millis() as f64,
    }
}
