//! A task built against `bench:task@0.1.3` (its WIT kept verbatim in `wit/`: the contract
//! whose `bodies` has only `read-whole`): a host with a later 0.1 contract still runs it
//! unchanged, its whole read included (of the task's standard input, which is empty).

// The streams `bodies` reads are wasi:io's, as the `wasip2` crate binds them (so stdin's
// stream is one).
wit_bindgen::generate!({
    path: "wit",
    world: "task",
    with: {
        "wasi:io/error@0.2.12": wasip2::io::error,
        "wasi:io/poll@0.2.12": wasip2::io::poll,
        "wasi:io/streams@0.2.12": wasip2::io::streams,
    },
});

use bench::task::bodies;
use bench::task::context;
use bench::task::model::{StepOptions, Value};

/// Two tasks of one participant.
const CONFIG: &str = r#"{"benchmarkSlug":"contract-0-1-3","benchmarkName":"Contract 0.1.3",
    "participants":[{"name":"p"}],"iterations":2}"#;

struct Contract013;

impl Guest for Contract013 {
    fn config() -> String {
        CONFIG.into()
    }

    fn run(input: TaskInput) -> Result<TaskOutput, TaskError> {
        let index = Value::Number(input.task_index.into());
        let no_options = StepOptions {
            timeout_ms: None,
            concurrency: None,
            capture_output: None,
        };
        let work = context::step_start("work", no_options);
        context::measure(&[("index".into(), index)]);
        let stdin = wasip2::cli::stdin::get_stdin();
        let read = bodies::read_whole(&stdin, 0, Some(1000)).map_err(|error| TaskError {
            thrown: false,
            code: None,
            message: format!("{error:?}"),
            data: None,
            steps: Vec::new(),
        })?;
        context::step_end(work, None);
        Ok(TaskOutput {
            data: Some(format!(
                r#"{{"contract":"0.1.3","stdin":{}}}"#,
                read.len()
            )),
            latency_ms: None,
            steps: Vec::new(),
        })
    }
}

export!(Contract013);
