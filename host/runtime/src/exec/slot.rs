//! The [`TaskRunner`] of a run: one participant slot, a sandbox whose instance serves task
//! after task, and is replaced by a fresh one (from the shared `InstancePre`) after a trap or
//! timeout.

use super::outcome::{build_record, TaskEnd, Timing};
use super::runner::{SlotFactory, TaskRunner};
use crate::component::{trap_summary, TaskComponent};
use crate::events::Finished;
use crate::js;
use crate::sandbox::context::{RecordedTask, StepDeadline};
use crate::sandbox::limits::{StopCode, MAX_RECORD_DATA_BYTES};
use crate::sandbox::{self, Capabilities, SandboxState};
use bench_contract::bench::task::model::TaskInput;
use bench_contract::Task;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::watch;
use wasmtime::Store;

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

/// One concurrency slot of one participant: its sandbox, created by the first task.
pub struct SandboxSlot {
    config: SlotConfig,
    live: Option<LiveInstance>,
}

struct LiveInstance {
    store: Store<SandboxState>,
    task: Task,
    deadline: watch::Receiver<Option<StepDeadline>>,
}

type RunResult = wasmtime::Result<Result<bench_contract::TaskOutput, bench_contract::TaskError>>;

enum CallEnd {
    Returned(RunResult),
    StepTimedOut(StepDeadline),
    TaskTimedOut(Duration),
}

impl SlotFactory for SlotConfig {
    type Runner = SandboxSlot;

    fn open_slot(&self) -> SandboxSlot {
        SandboxSlot {
            config: self.clone(),
            live: None,
        }
    }
}

impl TaskRunner for SandboxSlot {
    async fn run(&mut self, index: u32, phase: Option<&str>) -> Finished {
        let started_at = SystemTime::now();
        let start = Instant::now();
        let mut live = match self.live.take() {
            Some(live) => live,
            None => match instantiate(&self.config).await {
                Ok(live) => live,
                Err(message) => {
                    let ending = stopped(StopCode::InstantiationFailed, message);
                    let timing = timing(started_at, start);
                    let record =
                        build_record(index, phase, timing, RecordedTask::default(), ending);
                    return Finished {
                        record,
                        log: Vec::new(),
                    };
                }
            },
        };
        live.store.data_mut().recorder.begin(index);
        let input = TaskInput {
            participant: self.config.participant_json.clone(),
            task_index: index,
            phase: phase.map(str::to_owned),
            args: self.config.args.clone(),
        };
        let task_timeout = self.config.capabilities.limits.task_timeout;
        let end = call_with_deadlines(&mut live, &input, task_timeout).await;
        let timing = timing(started_at, start);
        let (ending, reusable) = match end {
            CallEnd::Returned(Ok(Ok(output))) => (TaskEnd::Output(output), true),
            CallEnd::Returned(Ok(Err(error))) => (TaskEnd::Failed(error), true),
            CallEnd::Returned(Err(trap)) => (stopped_by_trap(&trap, &live), false),
            CallEnd::StepTimedOut(deadline) => {
                (stopped(StopCode::StepTimeout, deadline.message()), false)
            }
            CallEnd::TaskTimedOut(limit) => (
                stopped(
                    StopCode::TaskTimeout,
                    format!("Task timed out after {}ms", limit.as_millis()),
                ),
                false,
            ),
        };
        let state = live.store.data_mut();
        let mut recorded = match &ending {
            TaskEnd::Stopped { code, message } => state.recorder.finish(*code, message),
            _ => state.recorder.finish(
                StopCode::Abandoned,
                "step was still open when the task returned",
            ),
        };
        let mut log = state.recorder.take_log();
        for destination in state.http_hooks.take_denied() {
            let stamp = js::iso_timestamp(SystemTime::now());
            log.push(format!(
                "{stamp} [task {index}] [warn] denied request to {destination}"
            ));
        }
        collect_stdio(state, index, !reusable, &mut log);
        let ending = enforce_data_limit(&mut recorded, ending);
        let record = build_record(index, phase, timing, recorded, ending);
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

/// Calls `run`, racing it against the task timeout and the deadline of the open steps; the
/// guest yields at every epoch tick, so even a CPU-bound loop is stopped on time.
async fn call_with_deadlines(
    live: &mut LiveInstance,
    input: &TaskInput,
    task_timeout: Option<Duration>,
) -> CallEnd {
    let LiveInstance {
        store,
        task,
        deadline,
    } = live;
    let task_expiry = async {
        match task_timeout {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(task_expiry);
    let call = task.call_run(&mut *store, input);
    tokio::pin!(call);
    loop {
        let current = deadline.borrow_and_update().clone();
        let step_expiry = async {
            match &current {
                Some(deadline) => tokio::time::sleep_until(deadline.at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            result = &mut call => return CallEnd::Returned(result),
            () = step_expiry => {
                return CallEnd::StepTimedOut(current.expect("a step expiry needs a deadline"));
            }
            () = &mut task_expiry => {
                return CallEnd::TaskTimedOut(task_timeout.expect("a task expiry needs a limit"));
            }
            _ = deadline.changed() => {}
        }
    }
}

fn stopped(code: StopCode, message: String) -> TaskEnd {
    TaskEnd::Stopped { code, message }
}

fn stopped_by_trap(trap: &wasmtime::Error, live: &LiveInstance) -> TaskEnd {
    let code = StopCode::of_trap(trap);
    let mut message = match code {
        StopCode::MemoryLimit => format!("task exceeded its memory limit: {}", trap_summary(trap)),
        _ => format!("task trapped: {}", trap_summary(trap)),
    };
    if let Some(last) = live.store.data().stderr.last_line() {
        message.push_str(&format!(" ({last})"));
    }
    stopped(code, message)
}

/// Fails a task that recorded more data than a record may hold (its data is dropped).
fn enforce_data_limit(recorded: &mut RecordedTask, ending: TaskEnd) -> TaskEnd {
    let returned = match &ending {
        TaskEnd::Output(output) => {
            output.data.as_ref().map_or(0, String::len)
                + output
                    .steps
                    .iter()
                    .filter_map(|s| s.data.as_ref())
                    .map(String::len)
                    .sum::<usize>()
        }
        TaskEnd::Failed(error) => error.data.as_ref().map_or(0, String::len) + error.message.len(),
        TaskEnd::Stopped { .. } => 0,
    };
    if recorded.measured_bytes.saturating_add(returned) <= MAX_RECORD_DATA_BYTES {
        return ending;
    }
    recorded.measures.clear();
    recorded.steps.iter_mut().for_each(|step| step.data = None);
    stopped(
        StopCode::DataTooLarge,
        format!("the task recorded more than {MAX_RECORD_DATA_BYTES} bytes of data; its data was dropped"),
    )
}

fn collect_stdio(
    state: &SandboxState,
    task_index: u32,
    flush_partial: bool,
    log: &mut Vec<String>,
) {
    for (name, stream) in [("stdout", &state.stdout), ("stderr", &state.stderr)] {
        let (lines, dropped) = stream.take_lines(flush_partial);
        if lines.is_empty() && dropped == 0 {
            continue;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Data, Status, StepRecord};
    use bench_contract::bench::task::model::TaskOutput;

    fn recorded(measured_bytes: usize) -> RecordedTask {
        let mut measures = Data::new();
        measures.insert("kept".into(), 1.into());
        let step = StepRecord {
            name: "s".into(),
            status: Status::Success,
            started_at: None,
            completed_at: None,
            latency_ms: None,
            concurrency: None,
            timeout_ms: None,
            data: Some(measures.clone()),
            error_code: None,
            implicit: false,
        };
        RecordedTask {
            steps: vec![step],
            measures,
            measured_bytes,
        }
    }

    fn returning(bytes: usize) -> TaskEnd {
        TaskEnd::Output(TaskOutput {
            data: Some("x".repeat(bytes)),
            latency_ms: None,
            steps: Vec::new(),
        })
    }

    #[test]
    fn data_up_to_the_limit_is_kept() {
        let mut task = recorded(MAX_RECORD_DATA_BYTES - 10);
        let ending = enforce_data_limit(&mut task, returning(10));
        assert!(matches!(ending, TaskEnd::Output(_)));
        assert!(!task.measures.is_empty() && task.steps[0].data.is_some());
    }

    #[test]
    fn measured_and_returned_data_past_the_limit_fail_the_task_without_its_data() {
        let mut task = recorded(MAX_RECORD_DATA_BYTES - 10);
        let ending = enforce_data_limit(&mut task, returning(11));
        let TaskEnd::Stopped { code, message } = ending else {
            panic!("the task should be stopped: {ending:?}");
        };
        assert_eq!(code, StopCode::DataTooLarge);
        assert_eq!(
            message,
            "the task recorded more than 1048576 bytes of data; its data was dropped"
        );
        assert!(task.measures.is_empty());
        assert_eq!(task.steps[0].data, None);
    }
}
