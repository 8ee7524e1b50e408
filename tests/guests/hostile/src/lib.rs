//! A hostile task: participant `attacker` runs the attack named by `--attack`; participant
//! `holder` (which needs `BENCH_TEST_SECRET`) behaves. Every successful task reports what it
//! could see of the environment.

use bench_guest::{
    export_task, http, json, BenchmarkConfig, Context, Participant, Task, TaskError, TaskOutput,
    TaskResult,
};
use std::hint::black_box;

struct Hostile;

impl Task for Hostile {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("hostile", "Hostile")
            .participant(Participant::new("attacker"))
            .participant(Participant::new("holder").env("BENCH_TEST_SECRET"))
            .iterations(2)
            .custom_cli_flag("--attack")
            .custom_cli_flag("--url")
            .custom_cli_flag("--host-header")
    }

    fn run(ctx: &Context) -> TaskResult {
        if ctx.participant_name() == "attacker" {
            attack(ctx, ctx.arg("--attack").unwrap_or_default())?;
        }
        Ok(TaskOutput::new().data(json!({
            "secretVisible": std::env::var("BENCH_TEST_SECRET").is_ok(),
            "envCount": std::env::vars().count(),
        })))
    }
}

fn attack(ctx: &Context, name: &str) -> Result<(), TaskError> {
    match name {
        "loop" => loop {
            black_box(());
        },
        "memory" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                black_box(&hoard);
            }
        }
        "recursion" => {
            black_box(recurse(0));
        }
        "passwd" => match std::fs::read_to_string("/etc/passwd") {
            Ok(text) => ctx.measure(json!({ "passwdReadable": true, "passwdBytes": text.len() })),
            Err(error) => {
                ctx.measure(json!({ "passwdReadable": false, "error": error.to_string() }))
            }
        },
        "http" => {
            let url = ctx.arg("--url").unwrap_or_default();
            let host = ctx.arg("--host-header");
            let headers: Vec<(&str, &str)> = host.map(|h| ("host", h)).into_iter().collect();
            // wasi:http forbids setting `host`; then the request goes out without it.
            let response = match http::send(http::Method::Get, url, &headers) {
                Err(error) if error.message().starts_with("header host") => {
                    ctx.measure(json!({ "hostHeader": "forbidden" }));
                    http::get(url)?
                }
                other => other?,
            };
            ctx.measure(json!({ "status": response.status() }));
        }
        "log-flood" => {
            for i in 0..150_000 {
                ctx.log(&format!("flood line {i}"));
            }
        }
        "stdio" => {
            println!("to stdout");
            eprintln!("to stderr");
        }
        "granted-dir" => {
            let read = std::fs::read_to_string("/data/hello.txt");
            let wrote = std::fs::write("/data/written.txt", b"hi");
            ctx.measure(json!({
                "read": read.ok(),
                "writable": wrote.is_ok(),
            }));
        }
        "big-measure" => ctx.measure(json!({ "blob": "x".repeat(2 << 20) })),
        "step-flood" => {
            for i in 0..1_000_000 {
                ctx.step(&format!("step {i}"), || Ok(()))?;
            }
        }
        "long-step-name" => ctx.step(&"n".repeat(16 << 20), || Ok(()))?,
        "big-log" => {
            let message = "x".repeat(64 << 20);
            for _ in 0..8 {
                ctx.log(&message);
            }
        }
        "log-volume" => {
            let message = "v".repeat(512 << 10);
            for _ in 0..64 {
                ctx.log(&message);
            }
        }
        "fields-flood" => {
            // wasi:http fields live in the host: 100 KiB each, held until the task fails.
            let value = vec![b'v'; 100 << 10];
            let mut held = Vec::new();
            for _ in 0..100_000 {
                let fields = wasip2::http::types::Fields::new();
                let _ = fields.append("x-flood", &value);
                held.push(fields);
            }
            black_box(&held);
        }
        "handle-leak" => {
            // 200 empty fields a task, never dropped, as an engine that frees its handles
            // only when its garbage collector runs: 65 536 would be reached in task 328.
            for _ in 0..200 {
                std::mem::forget(wasip2::http::types::Fields::new());
            }
        }
        "panic" => panic!("hostile panic"),
        _ => {}
    }
    Ok(())
}

#[allow(unconditional_recursion)]
fn recurse(depth: u64) -> u64 {
    black_box(recurse(black_box(depth + 1))) + 1
}

export_task!(Hostile);
