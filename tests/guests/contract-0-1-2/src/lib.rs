//! A task built against `bench:task@0.1.2` (its WIT kept verbatim in `wit/`: the contract
//! with the host natives and the websocket interface, without `bodies`): a host with a later
//! 0.1 contract still runs it unchanged, natives included.

// The websocket interface uses wasi:io's pollables: bindings for them too.
wit_bindgen::generate!({ path: "wit", world: "task", generate_all });

use bench::task::context;
use bench::task::model::{StepOptions, Value};
use bench::task::natives::{self, HashAlgorithm};

/// Two tasks of one participant.
const CONFIG: &str = r#"{"benchmarkSlug":"contract-0-1-2","benchmarkName":"Contract 0.1.2",
    "participants":[{"name":"p"}],"iterations":2}"#;

struct Contract012;

/// The task's error for a failed native call.
fn failed(error: natives::NativeError) -> TaskError {
    TaskError {
        thrown: false,
        code: None,
        message: format!("{error:?}"),
        data: None,
        steps: Vec::new(),
    }
}

impl Guest for Contract012 {
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
        let digest = natives::digest(HashAlgorithm::Sha256, None, b"abc").map_err(failed)?;
        context::step_end(work, None);
        let hex = natives::hex_encode(&digest).map_err(failed)?;
        Ok(TaskOutput {
            data: Some(format!(r#"{{"contract":"0.1.2","sha256":"{hex}"}}"#)),
            latency_ms: None,
            steps: Vec::new(),
        })
    }
}

export!(Contract012);
