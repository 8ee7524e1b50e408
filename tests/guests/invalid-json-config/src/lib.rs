//! A task whose `config` export returns text that is not JSON (written against the raw
//! bindings, since the SDK always produces valid JSON).

use bench_guest::bindings::{Guest, TaskError, TaskInput, TaskOutput};

struct InvalidJson;

impl Guest for InvalidJson {
    fn config() -> String {
        "{ this is not json".into()
    }

    fn run(_input: TaskInput) -> Result<TaskOutput, TaskError> {
        Ok(TaskOutput {
            data: None,
            latency_ms: None,
            steps: Vec::new(),
        })
    }
}

bench_guest::bindings::__export_task_world!(InvalidJson with_types_in bench_guest::bindings);
