//! Soak of one reused instance: `TASKS` tasks of a component that fetches `--url` per task
//! (`tests/guests-js/fetch`, built by `bench build`), all in one sandbox, against a local
//! keep-alive server answering every GET with `BODY` bytes. Prints, at ten points of the run,
//! the tasks done and failed, the host resources the instance holds, the process's resident
//! memory and the time so far (`scripts/soak-js-fetch.sh` builds and runs it).
//!
//! ```sh
//! cargo bench -p bench-runtime --bench js_soak -- WASM TASKS BODY
//! ```

use bench_runtime::component::TaskComponent;
use bench_runtime::engine::{EngineSettings, TaskEngine};
use bench_runtime::exec::{SlotConfig, SlotFactory, TaskRunner};
use bench_runtime::sandbox::http::{AllowedHost, HttpPolicy};
use bench_runtime::sandbox::Capabilities;
use bytes::Bytes;
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use tokio::net::TcpListener;

/// Progress lines per run.
const REPORTS: u64 = 10;

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let [wasm, tasks, body] = args.as_slice() else {
        eprintln!("usage: js_soak WASM TASKS BODY_BYTES");
        std::process::exit(2);
    };
    let number = |text: &str| -> u64 {
        text.parse().unwrap_or_else(|_| {
            eprintln!("{text} is not a number");
            std::process::exit(2);
        })
    };
    soak(Path::new(wasm), number(tasks), number(body) as usize);
}

fn soak(wasm: &Path, tasks: u64, body: usize) {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(async {
        let port = serve(Bytes::from(vec![b'x'; body])).await;
        let url = format!("http://127.0.0.1:{port}/");
        let allowed = vec![AllowedHost::parse(&format!("http://127.0.0.1:{port}")).expect("host")];
        let engine = TaskEngine::new(&EngineSettings::default()).expect("engine");
        let task = Arc::new(TaskComponent::load(&engine, wasm).expect("component"));
        let config = SlotConfig {
            task,
            participant_json: r#"{"name":"local"}"#.into(),
            capabilities: Capabilities {
                http: HttpPolicy::new(allowed, true, Arc::default()),
                ..Capabilities::default()
            },
            args: vec![("--url".into(), url)],
            fresh_instance: false,
            stop: Default::default(),
        };
        let mut slot = config.open_slot();
        println!("{tasks} tasks of {body}-byte fetches in one instance");
        println!(
            "{:>9} {:>7} {:>10} {:>8} {:>8}",
            "tasks", "failed", "resources", "RSS MiB", "seconds"
        );
        let started = Instant::now();
        let mut failed = 0;
        for index in 0..tasks {
            let finished = slot.run(index as u32, None).await;
            if !finished.record.is_success() {
                failed += 1;
            }
            let done = index + 1;
            if done % (tasks / REPORTS).max(1) == 0 || done == tasks {
                let resources = slot
                    .live_resources()
                    .map_or("none".to_owned(), |count| count.to_string());
                println!(
                    "{done:>9} {failed:>7} {resources:>10} {:>8.1} {:>8.1}",
                    resident_mib(),
                    started.elapsed().as_secs_f64()
                );
            }
        }
    });
}

/// Serves `body` to every request on a loopback port (HTTP/1.1 keep-alive); its port.
async fn serve(body: Bytes) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("local address").port();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let body = body.clone();
            tokio::spawn(async move {
                let service = service_fn(move |_request: hyper::Request<_>| {
                    let body = body.clone();
                    async move { Ok::<_, Infallible>(hyper::Response::new(Full::new(body))) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    port
}

/// This process's resident memory (`VmRSS`), MiB.
fn resident_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}
