//! HTTP latency: time to first byte and total time of GET requests to the participant's
//! `url`, over wasi:http. Only the hosts the config (or `--allow-host`) allows are reachable.

use bench_guest::{
    export_task, http, json, BenchmarkConfig, Context, Participant, Task, TaskError, TaskOutput,
    TaskResult,
};

struct HttpLatency;

impl Task for HttpLatency {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("rust-http", "HTTP latency")
            .participant(Participant::new("local").field("url", "http://127.0.0.1:8080/"))
            .iterations(5)
            .field("allowedHosts", json!(["http://127.0.0.1:*", "http://localhost:*"]))
            .custom_cli_flag("--url")
    }

    fn run(ctx: &Context) -> TaskResult {
        let url = match ctx.arg("--url") {
            Some(url) => url.to_owned(),
            None => ctx.participant()["url"]
                .as_str()
                .ok_or_else(|| TaskError::new("the participant has no url").code("no_url"))?
                .to_owned(),
        };
        let response = ctx.step("ttfb", || http::get(&url))?;
        let status = response.status();
        let body = ctx.step("download", || response.bytes())?;
        if !(200..300).contains(&status) {
            return Err(TaskError::new(format!("GET {url} answered {status}"))
                .code("http_status")
                .data(json!({ "status": status })));
        }
        Ok(TaskOutput::new().data(json!({ "status": status, "bytes": body.len() })))
    }
}

export_task!(HttpLatency);
