//! An HTTP client task: GETs each URL of `--urls` (comma-separated) in order and reads its
//! body. Participant `client` has no allowed hosts of its own; `wildcard` allows `*`.

use bench_guest::{
    export_task, http, json, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult,
};

struct HttpClient;

impl Task for HttpClient {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("http-client", "HTTP client")
            .participant(Participant::new("client"))
            .participant(Participant::new("wildcard").field("allowedHosts", json!(["*"])))
            .custom_cli_flag("--urls")
    }

    fn run(ctx: &Context) -> TaskResult {
        let mut statuses = Vec::new();
        for url in ctx.arg("--urls").unwrap_or_default().split(',') {
            let fetched = http::get(url).and_then(|response| {
                let status = response.status();
                response.bytes().map(|body| (status, body.len()))
            });
            match fetched {
                Ok((status, bytes)) => statuses.push(json!({ "status": status, "bytes": bytes })),
                Err(error) => return Err(error.data(json!({ "completed": statuses }))),
            }
        }
        Ok(TaskOutput::new().data(json!({ "statuses": statuses })))
    }
}

export_task!(HttpClient);
