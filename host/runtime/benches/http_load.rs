//! A local HTTP server and a native load generator, to compare a guest doing one GET per task
//! with a native client (and wrk) on the same server (`scripts/bench-http.sh` runs them all).
//!
//! ```sh
//! cargo bench -p bench-runtime --bench http_load -- serve                 # prints the port
//! cargo bench -p bench-runtime --bench http_load -- get URL N C            # keep-alive client
//! cargo bench -p bench-runtime --bench http_load -- get-reconnect URL N
//! cargo bench -p bench-runtime --bench http_load -- guest WASM URL N C [keep-alive|reconnect]
//! ```
//!
//! The server answers every GET `hello` over HTTP/1.1 keep-alive (`GET /1m`: 1 MiB);
//! `GET /stats` answers the connections and requests it accepted so far
//! (`connections=… requests=…`). The client sends `N` GETs from `C` loops at once (each one
//! request after the other), reads each body, and prints one line: requests per second, the
//! p50 and p99 latency of one request in microseconds, and the process's CPU time per
//! request in microseconds (the measured loop only: start-up, compiling the component and
//! the first task are left out). `guest` runs `N` tasks of the `tests/guests/http-client`
//! component (`--urls URL`: one GET per task) in `C` reused sandboxes, in this process (the
//! sandbox and outbound-HTTP path of `bench run`, without its records and console).

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
use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::runtime::Handle;

/// The body of `GET /1m`.
const BIG_BODY: usize = 1 << 20;

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["serve"] => serve(),
        ["get", url, count, loops] => get(url, number(count), number(loops), true),
        ["get-reconnect", url, count] => get(url, number(count), 1, false),
        ["guest", wasm, url, count, loops] => {
            guest(wasm, url, number(count), number(loops), true);
        }
        ["guest", wasm, url, count, loops, "keep-alive"] => {
            guest(wasm, url, number(count), number(loops), true);
        }
        ["guest", wasm, url, count, loops, "reconnect"] => {
            guest(wasm, url, number(count), number(loops), false);
        }
        _ => {
            eprintln!(
                "usage: http_load serve | get URL N C | get-reconnect URL N \
                 | guest WASM URL N C [keep-alive|reconnect]"
            );
            std::process::exit(2);
        }
    }
}

fn number(text: &str) -> u64 {
    match text.parse() {
        Ok(number) if number > 0 => number,
        _ => {
            eprintln!("N and C must be positive integers (got \"{text}\")");
            std::process::exit(2);
        }
    }
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
    let big = Bytes::from(vec![b'x'; BIG_BODY]);
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
            let (counters, big) = (counters.clone(), big.clone());
            tokio::spawn(async move {
                let service = service_fn(move |request: hyper::Request<_>| {
                    let (counters, big) = (counters.clone(), big.clone());
                    async move {
                        let body = match request.uri().path() {
                            "/stats" => Bytes::from(format!(
                                "connections={} requests={}\n",
                                counters.connections.load(Ordering::Relaxed),
                                counters.requests.load(Ordering::Relaxed)
                            )),
                            path => {
                                counters.requests.fetch_add(1, Ordering::Relaxed);
                                if path == "/1m" {
                                    big
                                } else {
                                    Bytes::from_static(b"hello")
                                }
                            }
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

/// This process's CPU time so far (user + system).
fn process_cpu() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Runs `count` requests from `loops` concurrent loops (`request(i)` sends request `i` and
/// waits for all of it; loop `i` on runtime `homes[i]`, by default this one), and prints requests per second, p50 and p99 latency (µs) and
/// CPU per request (µs).
async fn measure<F, R>(count: u64, loops: u64, homes: &[Handle], request: R)
where
    R: Fn(u64) -> F + Clone + Send + 'static,
    F: Future<Output = ()> + Send,
{
    let (cpu, started) = (process_cpu(), Instant::now());
    let mut running = tokio::task::JoinSet::new();
    for first in 0..loops {
        let request = request.clone();
        let home = homes
            .get(first as usize)
            .cloned()
            .unwrap_or_else(Handle::current);
        running.spawn_on(
            async move {
                let mut latencies = Vec::new();
                for index in (first..count).step_by(loops as usize) {
                    let sent = Instant::now();
                    request(index).await;
                    latencies.push(sent.elapsed());
                }
                latencies
            },
            &home,
        );
    }
    let mut latencies = Vec::with_capacity(count as usize);
    while let Some(done) = running.join_next().await {
        latencies.extend(done.expect("a request loop"));
    }
    let (seconds, cpu) = (started.elapsed().as_secs_f64(), process_cpu() - cpu);
    latencies.sort();
    let micros = |p: f64| {
        let rank = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len());
        latencies[rank - 1].as_secs_f64() * 1e6
    };
    println!(
        "{:.0} {:.1} {:.1} {:.2}",
        count as f64 / seconds,
        micros(0.5),
        micros(0.99),
        cpu.as_secs_f64() * 1e6 / count as f64
    );
}

/// Sends `count` GETs to `url` from `loops` loops sharing one client and prints the figures.
fn get(url: &str, count: u64, loops: u64, keep_alive: bool) {
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
        let send = |client: Client<_, Empty<Bytes>>, uri: http::Uri| async move {
            let response = client.get(uri).await.expect("GET");
            let body = response.into_body().collect().await.expect("response body");
            assert!(!body.to_bytes().is_empty());
        };
        // The first request opens the connection.
        send(client.clone(), uri.clone()).await;
        measure(count, loops, &[], move |_| {
            send(client.clone(), uri.clone())
        })
        .await;
    });
}

/// Runs `count` one-GET tasks of the `http-client` component at `wasm` in `loops` reused
/// sandboxes, each loop on its slot's thread as `bench run` runs it, and prints the figures.
fn guest(wasm: &str, url: &str, count: u64, loops: u64, keep_alive: bool) {
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
        // One sandbox per loop; the first task of each instantiates the component and
        // opens its connection.
        let (mut slots, mut homes) = (Vec::new(), Vec::new());
        for _ in 0..loops {
            let mut slot = config.open_slot();
            let first = slot.run(0, None).await;
            assert!(first.record.is_success(), "{:?}", first.record);
            homes.extend(slot.home());
            slots.push(tokio::sync::Mutex::new(slot));
        }
        let slots = Arc::new(slots);
        measure(count, loops, &homes, move |index| {
            let slots = slots.clone();
            async move {
                let mut slot = slots[(index % loops) as usize].lock().await;
                let finished = slot.run(index as u32 + 1, None).await;
                assert!(finished.record.is_success(), "{:?}", finished.record);
            }
        })
        .await;
    });
}
