//! The [`TaskRunner`] of a run: one participant slot, a sandbox whose instance serves task
//! after task, and is replaced by a fresh one (from the shared `InstancePre`) after a trap or
//! timeout.

use super::outcome::{build_record, TaskEnd, Timing};
use super::runner::{RoomCheck, SlotFactory, TaskRunner};
use super::slot_threads;
use crate::component::{trap_summary, TaskComponent};
use crate::sandbox::context::{bounded_name, RecordedTask, StepDeadline};
use crate::sandbox::limits::{BoundExceeded, StopCode, TaskBounds};
use crate::sandbox::{self, Capabilities, SandboxState};
use bench_contract::bench::task::model::TaskInput;
use bench_contract::Task;
use bench_model::clock::{self, Moment};
use bench_model::events::Finished;
use bench_model::js;
use bench_model::stop::RunStop;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Handle;
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
    /// The run's stop switch: a running task is interrupted when it says so.
    pub stop: RunStop,
}

/// One concurrency slot of one participant: its sandbox, created by the first task, and the
/// slot thread its tasks run on.
pub struct SandboxSlot {
    config: SlotConfig,
    live: Option<LiveInstance>,
    home: Option<Handle>,
    /// The last task found no instance: one could not be created for it.
    unopened: bool,
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
    Interrupted,
}

impl SlotFactory for SlotConfig {
    type Runner = SandboxSlot;

    fn room_check(&self) -> Option<RoomCheck> {
        let task = self.task.clone();
        let host = self.capabilities.host_memory.clone();
        Some(Arc::new(move || match task.held_bytes() as u64 {
            0 => usize::MAX,
            each => usize::try_from(host.room() / each).unwrap_or(usize::MAX),
        }))
    }

    fn open_slot(&self) -> SandboxSlot {
        SandboxSlot {
            config: self.clone(),
            live: None,
            home: slot_threads::next(),
            unopened: false,
        }
    }

    fn homes(&self) -> Vec<Handle> {
        slot_threads::all()
    }
}

impl TaskRunner for SandboxSlot {
    fn home(&self) -> Option<Handle> {
        self.home.clone()
    }

    fn could_not_open(&self) -> bool {
        self.unopened
    }

    async fn run(&mut self, index: u32, phase: Option<&str>) -> Finished {
        let start = Moment::now();
        self.unopened = false;
        let mut live = match self.live.take() {
            Some(live) => live,
            None => match instantiate(&self.config).await {
                Ok(live) => live,
                Err(message) => {
                    self.unopened = true;
                    let ending = stopped(StopCode::InstantiationFailed, message);
                    let timing = Timing::ending_now(start);
                    let record =
                        build_record(index, phase, timing, RecordedTask::default(), ending);
                    return Finished {
                        record,
                        log: Vec::new(),
                        worker: None,
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
        let end = call_with_deadlines(&mut live, &input, task_timeout, &self.config.stop).await;
        let timing = Timing::ending_now(start);
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
            CallEnd::Interrupted => (
                stopped(
                    StopCode::Interrupted,
                    "the run was stopped while the task was running".into(),
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
            let stamp = js::iso_timestamp(clock::wall_now());
            log.push(format!(
                "{stamp} [task {index}] [warn] denied request to {destination}"
            ));
        }
        // A guest that reached the natives' live-object bound may have leaked them, and one
        // nearing the resource bound may be keeping what it no longer uses: the next task gets
        // a fresh instance.
        let reusable = reusable && !state.natives.exhausted() && !state.holds_too_many_resources();
        // The next task of a reused instance starts with no connection open, and with the
        // HTTP fields the guest dropped no longer counted.
        let closing = state.websockets.end_task();
        state.recount_fields();
        if reusable {
            // What a sandbox comes to; not one being discarded (it trapped, e.g. at its own
            // memory limit), which gives its memory back.
            self.config.task.note_held(state.memory_held());
        }
        collect_stdio(state, index, !reusable, &mut log);
        let ending = enforce_bounds(&mut recorded, ending, &self.config.capabilities.limits.task);
        let record = build_record(index, phase, timing, recorded, ending);
        if reusable && !self.config.fresh_instance {
            self.live = Some(live);
        }
        // The connections close before the task is reported: a run that ends with it would
        // otherwise cut their closing handshakes off.
        closing.done().await;
        Finished {
            record,
            log,
            worker: None,
        }
    }
}

impl SandboxSlot {
    /// The host resources the slot's instance holds between tasks (`None` before its first
    /// task, or once a trap discarded it).
    pub fn live_resources(&mut self) -> Option<usize> {
        let live = self.live.as_mut()?;
        Some(live.store.data_mut().live_resources())
    }
}

/// Creates a sandbox and instantiates the task in it.
async fn instantiate(config: &SlotConfig) -> Result<LiveInstance, String> {
    let task = &config.task;
    let mut store = sandbox::new_store(task.pre.engine(), &config.capabilities);
    let deadline = store.data().recorder.watch_deadline();
    match task.pre.instantiate_async(&mut store).await {
        Ok(instance) => {
            task.note_held(store.data().memory_held());
            Ok(LiveInstance {
                store,
                task: instance,
                deadline,
            })
        }
        Err(error) => Err(format!(
            "could not instantiate the task: {}",
            trap_summary(&error)
        )),
    }
}

/// Calls `run`, racing it against the task timeout, the deadline of the open steps and the
/// run's interruption; the guest yields at every epoch tick, so even a CPU-bound loop is
/// stopped on time.
async fn call_with_deadlines(
    live: &mut LiveInstance,
    input: &TaskInput,
    task_timeout: Option<Duration>,
    stop: &RunStop,
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
    let interrupted = stop.interrupted();
    tokio::pin!(interrupted);
    let guest_cpu = store.data().recorder.guest_cpu();
    let call = guest_cpu.metered(task.call_run(&mut *store, input));
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
            () = &mut interrupted => return CallEnd::Interrupted,
            _ = deadline.changed() => {}
        }
    }
}

fn stopped(code: StopCode, message: String) -> TaskEnd {
    TaskEnd::Stopped { code, message }
}

fn stopped_by_trap(trap: &wasmtime::Error, live: &LiveInstance) -> TaskEnd {
    if let Some(bound) = trap.downcast_ref::<BoundExceeded>() {
        return stopped(bound.code, bound.message.clone());
    }
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

/// Holds what the task returned to its bounds: too many steps (recorded plus returned) or
/// more data than a record may hold (measured plus returned text) fail the task and drop its
/// data; returned step names and error codes longer than a step name may be are cut.
fn enforce_bounds(
    recorded: &mut RecordedTask,
    mut ending: TaskEnd,
    bounds: &TaskBounds,
) -> TaskEnd {
    let (returned_steps, returned_bytes) = match &mut ending {
        TaskEnd::Output(output) => {
            let bytes = text_len(&output.data) + returned_step_bytes(&output.steps);
            (std::mem::take(&mut output.steps), bytes)
        }
        TaskEnd::Failed(error) => {
            let bytes = text_len(&error.data)
                + error.message.len()
                + text_len(&error.code)
                + returned_step_bytes(&error.steps);
            (std::mem::take(&mut error.steps), bytes)
        }
        TaskEnd::Stopped { .. } => (Vec::new(), 0),
    };
    let max_steps = bounds.max_steps;
    if recorded.steps.len().saturating_add(returned_steps.len()) > max_steps {
        recorded.measures.clear();
        recorded.steps.clear();
        return stopped(
            StopCode::TooManySteps,
            format!("the task recorded more than {max_steps} steps"),
        );
    }
    let max_data = bounds.max_data_bytes;
    if recorded.measured_bytes.saturating_add(returned_bytes) > max_data {
        recorded.measures.clear();
        recorded.steps.iter_mut().for_each(|step| step.data = None);
        return stopped(
            StopCode::DataTooLarge,
            format!("the task recorded more than {max_data} bytes of data; its data was dropped"),
        );
    }
    let max_name = bounds.max_step_name_bytes;
    let returned_steps = returned_steps.into_iter().map(|mut step| {
        step.name = bounded_name(step.name, max_name);
        step.error_code = step.error_code.map(|code| bounded_name(code, max_name));
        step
    });
    match &mut ending {
        TaskEnd::Output(output) => output.steps = returned_steps.collect(),
        TaskEnd::Failed(error) => {
            error.steps = returned_steps.collect();
            error.code = error.code.take().map(|code| bounded_name(code, max_name));
        }
        TaskEnd::Stopped { .. } => {}
    }
    ending
}

fn text_len(text: &Option<String>) -> usize {
    text.as_ref().map_or(0, String::len)
}

/// Bytes of text in returned steps, all of which lands in the record.
fn returned_step_bytes(steps: &[bench_contract::bench::task::model::StepRecord]) -> usize {
    steps
        .iter()
        .map(|step| {
            step.name.len()
                + text_len(&step.data)
                + text_len(&step.error_code)
                + text_len(&step.started_at)
                + text_len(&step.completed_at)
        })
        .sum()
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
        let stamp = js::iso_timestamp(clock::wall_now());
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

#[cfg(test)]
mod tests {
    use super::*;
    use bench_contract::bench::task::model::{self, TaskOutput};
    use bench_model::record::{Data, Status, StepRecord};

    fn recorded(measured_bytes: usize) -> RecordedTask {
        let mut measures = Data::new();
        measures.insert("kept".into(), 1.into());
        let step = StepRecord {
            name: "s".into(),
            status: Status::Success,
            started_at: None,
            completed_at: None,
            latency_ms: None,
            duration_us: None,
            guest_cpu_us: None,
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
            guest_cpu: None,
        }
    }

    fn returning(bytes: usize) -> TaskEnd {
        TaskEnd::Output(TaskOutput {
            data: Some("x".repeat(bytes)),
            latency_ms: None,
            steps: Vec::new(),
        })
    }

    const MAX_DATA: usize = 1 << 20;

    fn returned_steps(count: usize, name: &str) -> Vec<model::StepRecord> {
        let step = model::StepRecord {
            name: name.into(),
            status: model::Status::Success,
            started_at: None,
            completed_at: None,
            latency_ms: None,
            data: None,
            error_code: Some("E".repeat(2000)),
        };
        vec![step; count]
    }

    #[test]
    fn data_up_to_the_limit_is_kept() {
        let mut task = recorded(MAX_DATA - 10);
        let ending = enforce_bounds(&mut task, returning(10), &TaskBounds::default());
        assert!(matches!(ending, TaskEnd::Output(_)));
        assert!(!task.measures.is_empty() && task.steps[0].data.is_some());
    }

    #[test]
    fn measured_and_returned_data_past_the_limit_fail_the_task_without_its_data() {
        let mut task = recorded(MAX_DATA - 10);
        let ending = enforce_bounds(&mut task, returning(11), &TaskBounds::default());
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

    #[test]
    fn recorded_and_returned_steps_past_the_limit_fail_the_task() {
        let bounds = TaskBounds {
            max_steps: 3,
            ..TaskBounds::default()
        };
        let within = TaskEnd::Output(TaskOutput {
            data: None,
            latency_ms: None,
            steps: returned_steps(2, "r"),
        });
        assert!(matches!(
            enforce_bounds(&mut recorded(0), within, &bounds),
            TaskEnd::Output(_)
        ));
        let over = TaskEnd::Output(TaskOutput {
            data: None,
            latency_ms: None,
            steps: returned_steps(3, "r"),
        });
        let mut task = recorded(0);
        let ending = enforce_bounds(&mut task, over, &bounds);
        let TaskEnd::Stopped { code, message } = ending else {
            panic!("the task should be stopped: {ending:?}");
        };
        assert_eq!(code, StopCode::TooManySteps);
        assert_eq!(message, "the task recorded more than 3 steps");
        assert!(task.steps.is_empty());
    }

    #[test]
    fn returned_step_names_and_codes_are_cut_to_the_name_bound() {
        let bounds = TaskBounds {
            max_step_name_bytes: 4,
            ..TaskBounds::default()
        };
        let ending = TaskEnd::Output(TaskOutput {
            data: None,
            latency_ms: None,
            steps: returned_steps(1, "abcdefgh"),
        });
        let TaskEnd::Output(output) = enforce_bounds(&mut recorded(0), ending, &bounds) else {
            panic!("the task should succeed");
        };
        assert_eq!(output.steps[0].name, "abcd... (truncated, 8 bytes)");
        assert_eq!(
            output.steps[0].error_code.as_deref(),
            Some("EEEE... (truncated, 2000 bytes)")
        );
    }
}
