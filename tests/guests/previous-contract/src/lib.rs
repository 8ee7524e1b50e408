//! A task built against the first published contract, `bench:task@0.1.0` (its WIT kept
//! verbatim in `wit/`): a host with a later 0.1 contract still runs it unchanged.

wit_bindgen::generate!({ path: "wit", world: "task" });

use bench::task::context;
use bench::task::model::{StepOptions, Value};

struct Previous;

impl Guest for Previous {
    fn config() -> String {
        r#"{"benchmarkSlug":"previous-contract","benchmarkName":"Previous contract",
            "participants":[{"name":"p"}],"iterations":2}"#
            .into()
    }

    fn run(input: TaskInput) -> Result<TaskOutput, TaskError> {
        let options = StepOptions {
            timeout_ms: None,
            concurrency: None,
            capture_output: None,
        };
        let step = context::step_start("work", options);
        context::measure(&[("index".into(), Value::Number(input.task_index.into()))]);
        context::step_end(step, None);
        Ok(TaskOutput {
            data: Some(r#"{"contract":"0.1.0"}"#.into()),
            latency_ms: None,
            steps: Vec::new(),
        })
    }
}

export!(Previous);
