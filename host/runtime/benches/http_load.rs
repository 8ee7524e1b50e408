//! A local HTTP server and a native load generator, to compare a guest doing one GET per task
//! with a native client on the same server (`scripts/bench-http.sh` runs both).
//!
//! ```sh
//! cargo bench -p bench-runtime --bench http_load -- serve            # prints the port
//! cargo bench -p bench-runtime --bench http_load -- get URL N         # keep-alive client
//! cargo bench -p bench-runtime --bench http_load -- get-reconnect URL N
//! cargo bench -p bench-runtime --bench http_load -- guest WASM URL N [keep-alive|reconnect]
//! ```
//!
//! The server answers every GET `hello` over HTTP/1.1 keep-alive; `GET /stats` answers the
//! connections and requests it accepted so far (`connections=… requests=…`). The client
//! sends `N` GETs one after the other (concurrency 1, as a task's single GET), reads each
//! body, and prints its requests per second. `guest` runs `N` tasks of the
//! `tests/guests/http-client` component (`--urls URL`: one GET per task) in one reused
//! sandbox, in this process (the sandbox and outbound-HTTP path of `bench run`, without
//! its records and console), and prints tasks per second.

use bench_runtime::component::TaskComponent;
use bench_runtime::engine::{EngineSettings, TaskEngine};
use bench_runtime::exec::{SlotConfig, SlotFactory, TaskRunner};
use bench_runtime::sandbox::http::{AllowedHost, HttpPolicy};
use bench_runtime::sandbox::Capabilities;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full};
use hyper::service::service_fn;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::convert::Infallible;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tokio::net::TcpListener;

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["serve"] => serve(),
        ["get", url, count] => get(url, parse_count(count), true),
        ["get-reconnect", url, count] => get(url, parse_count(count), false),
        ["guest", wasm, url, count] => guest(wasm, url, parse_count(count), true),
        ["guest", wasm, url, count, "keep-alive"] => guest(wasm, url, parse_count(count), true),
        ["guest", wasm, url, count, "reconnect"] => guest(wasm, url, parse_count(count), false),
        _ => {
            eprintln!(
                "usage: http_load serve | get URL N | get-reconnect URL N \
                 | guest WASM URL N [keep-alive|reconnect]"
            );
            std::process::exit(2);
        }
    }
}

fn parse_count(text: &str) -> u64 {
    text.parse().unwrap_or_else(|_| {
        eprintln!("N must be a positive integer (got \"{text}\")");
        std::process::exit(2);
    })
}

/// Counts of what the server accepted.
#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    requests: AtomicU64,
}

/// Serves on a loopback port until killed; prints the port on the first line.
fn serve() {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        println!("{}", listener.local_addr().expect("local address").port());
        let counters = Arc::new(Counters::default());
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            counters.connections.fetch_add(1, Ordering::Relaxed);
            let counters = counters.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: hyper::Request<_>| {
                    let counters = counters.clone();
                    async move {
                        let body = if request.uri().path() == "/stats" {
                            Bytes::from(format!(
                                "connections={} requests={}\n",
                                counters.connections.load(Ordering::Relaxed),
                                counters.requests.load(Ordering::Relaxed)
                            ))
                        } else {
                            counters.requests.fetch_add(1, Ordering::Relaxed);
                            Bytes::from_static(b"hello")
                        };
                        Ok::<_, Infallible>(hyper::Response::new(Full::new(body)))
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}

/// Sends `count` GETs to `url` one after the other and prints requests per second.
fn get(url: &str, count: u64, keep_alive: bool) {
    let uri: http::Uri = url.parse().unwrap_or_else(|error| {
        eprintln!("bad URL {url}: {error}");
        std::process::exit(2);
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(if keep_alive { usize::MAX } else { 0 })
            .build(connector);
        let started = Instant::now();
        for _ in 0..count {
            let response = client
                .get(uri.clone())
                .await
                .unwrap_or_else(|error| panic!("GET {url}: {error}"));
            let body = response.into_body().collect().await.expect("response body");
            assert_eq!(body.to_bytes().as_ref(), b"hello");
        }
        let seconds = started.elapsed().as_secs_f64();
        println!("{:.0}", count as f64 / seconds);
    });
}

/// Runs `count` one-GET tasks of the `http-client` component at `wasm` in one sandbox, on a
/// multi-threaded runtime as `bench run` does, and prints tasks per second.
fn guest(wasm: &str, url: &str, count: u64, keep_alive: bool) {
    let uri: http::Uri = url.parse().expect("URL");
    let rule = format!(
        "{}://{}",
        uri.scheme_str().unwrap_or("http"),
        uri.authority().expect("URL with a host")
    );
    let allowed = vec![AllowedHost::parse(&rule).expect("allowed host")];
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(async {
        let engine = TaskEngine::new(&EngineSettings {
            epoch_interruption: true,
            cache_dir: None,
        })
        .expect("engine");
        let task = Arc::new(TaskComponent::load(&engine, Path::new(wasm)).expect("component"));
        let config = SlotConfig {
            task,
            participant_json: r#"{"name":"client"}"#.into(),
            capabilities: Capabilities {
                http: HttpPolicy::new(allowed, keep_alive, Arc::default()),
                ..Capabilities::default()
            },
            args: vec![("--urls".into(), url.into())],
            fresh_instance: false,
            stop: Default::default(),
        };
        let mut slot = config.open_slot();
        // The first task instantiates the component and opens the connection.
        let first = slot.run(0, None).await;
        assert!(first.record.is_success(), "{:?}", first.record);
        let started = Instant::now();
        for index in 1..=count {
            let finished = slot.run(index as u32, None).await;
            assert!(finished.record.is_success(), "{:?}", finished.record);
        }
        let seconds = started.elapsed().as_secs_f64();
        println!("{:.0}", count as f64 / seconds);
    });
}
