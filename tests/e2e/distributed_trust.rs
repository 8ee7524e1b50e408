//! End-to-end: who controls a distributed run, tried as an attacker on the same NATS
//! server would. A worker trusting a key serves only runs signed by it (a rogue or unsigned
//! coordinator and hand-made messages are refused, said and escaped); grants stay the
//! worker operator's (no secret, directory or host it did not give reaches a task, even
//! with `--trust-any`); injected records, a forged advisory, a forged "done" and forged
//! message ids change nothing: every task is recorded once, by the real worker.

use crate::support::{
    bench::{bench, run_into},
    guests::{example, test_guest},
    nats::{wait_for_log, worker_log, NatsServer, Worker},
    results::{read_json, records, task_tally},
};
use bench_dispatch::SigningKey;
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tempfile::TempDir;

/// `bench keygen <cwd>/<name>.key`: (private key, public key).
fn keygen(cwd: &Path, name: &str) -> (PathBuf, PathBuf) {
    let key = cwd.join(format!("{name}.key"));
    let output = bench(cwd).arg("keygen").arg(&key).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Public key:  "), "{stdout}");
    (key.clone(), PathBuf::from(format!("{}.pub", key.display())))
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Headers signing `payload` on `subject` with a key of the test's own (anyone can make one).
fn hand_signed(key: &SigningKey, subject: &str, payload: &[u8]) -> async_nats::HeaderMap {
    let mut headers = async_nats::HeaderMap::new();
    key.sign(subject, payload, &mut headers);
    headers
}

/// Publishes to JetStream and waits for its ack.
async fn publish(
    js: &async_nats::jetstream::Context,
    subject: String,
    headers: async_nats::HeaderMap,
    payload: Vec<u8>,
) {
    js.publish_with_headers(subject, headers, payload.into())
        .await
        .unwrap()
        .await
        .unwrap();
}

/// Runs `attack` (with the id of the first run announced) on a thread of its own while the
/// test goes on; join the handle to see it done.
fn on_first_announcement<F, Fut>(url: String, attack: F) -> std::thread::JoinHandle<()>
where
    F: FnOnce(async_nats::jetstream::Context, String) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    let (ready, subscribed) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(async move {
                let client = async_nats::connect(url).await.unwrap();
                let mut runs = client.subscribe("bench.runs.>").await.unwrap();
                client.flush().await.unwrap();
                ready.send(()).unwrap();
                let announced = tokio::time::timeout(Duration::from_secs(120), runs.next())
                    .await
                    .expect("a run is announced")
                    .unwrap();
                let run = announced
                    .subject
                    .trim_start_matches("bench.runs.")
                    .to_owned();
                attack(async_nats::jetstream::new(client), run).await;
            });
    });
    subscribed.recv().unwrap();
    thread
}

#[test]
fn a_trusting_worker_serves_only_runs_signed_by_its_key() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let (key, public) = keygen(cwd, "run");
    let (rogue_key, _) = keygen(cwd, "rogue");
    let secret = [("BENCH_TEST_SECRET", "s3cret")];
    let serve = [
        "--trust",
        text(&public),
        "--slots",
        "2",
        "--serve-env",
        "BENCH_TEST_SECRET",
    ];
    let _worker = Worker::spawn(cwd, &nats.url(), "w1", &serve, &secret);
    wait_for_log(cwd, "w1", "serving");

    // A second coordinator with a task of its own, asking for the secret and the network.
    let hostile = test_guest("hostile");
    let attack = [
        "--worker-wait",
        "2s",
        "--attack",
        "http",
        "--url",
        "http://127.0.0.1:9/",
        "--allow-host",
        "http://127.0.0.1:*",
    ];
    let rogue_args: Vec<&str> = ["--sign", text(&rogue_key)]
        .into_iter()
        .chain(attack)
        .collect();
    let rogue = run_into(cwd, &hostile, "rogue", Some(&nats.url()), &rogue_args);
    assert_eq!(rogue.code, Some(1), "{}", rogue.stdout);
    assert!(
        rogue
            .stderr
            .contains("worker w1 refused the run: its announcement is signed by ed25519:")
            && rogue
                .stderr
                .contains("a key this worker does not trust (bench worker --trust FILE.pub)"),
        "{}",
        rogue.stderr
    );
    assert!(
        rogue.stderr.contains("no worker can run participant"),
        "{}",
        rogue.stderr
    );
    let unsigned = run_into(cwd, &hostile, "unsigned", Some(&nats.url()), &attack);
    assert_eq!(unsigned.code, Some(1), "{}", unsigned.stdout);
    assert!(
        unsigned
            .stderr
            .contains("worker w1 refused the run: its announcement is not signed"),
        "{}",
        unsigned.stderr
    );
    for dir in ["rogue", "unsigned"] {
        assert!(records(&cwd.join(dir)).is_empty(), "{dir} ran nothing");
    }

    // Hand-made messages: an announcement and, on the signed run, a unit nobody signed.
    let attacker = on_first_announcement(nats.url(), |js, run| async move {
        let unit = json!({"participant": "local", "first": 0, "step": 1, "count": 500});
        publish(
            &js,
            format!("bench.work.{run}.0"),
            Default::default(),
            unit.to_string().into_bytes(),
        )
        .await;
        let descriptor = json!({
            "runId": "evil", "componentSha256": "00", "argv": [], "participants": ["local"],
            "ackWaitMs": 1000, "revision": 1
        });
        publish(
            &js,
            "bench.runs.evil".into(),
            Default::default(),
            descriptor.to_string().into_bytes(),
        )
        .await;
    });
    let hello = example("rust-hello");
    let signed = run_into(
        cwd,
        &hello,
        "signed",
        Some(&nats.url()),
        &["--sign", text(&key)],
    );
    assert_eq!(signed.code, Some(0), "{}", signed.stderr);
    attacker.join().unwrap();
    let (tasks, workers) = task_tally(&cwd.join("signed"));
    assert!(tasks.values().all(|count| *count == 1), "{tasks:?}");
    assert_eq!(tasks.len(), 6, "only the run's own tasks: {tasks:?}");
    assert_eq!(workers.keys().collect::<Vec<_>>(), ["w1"]);
    wait_for_log(
        cwd,
        "w1",
        "refused an announcement of run evil: its announcement is not signed",
    );
    let log = worker_log(cwd, "w1");
    assert!(
        log.contains("refused a work message: a work unit is not signed"),
        "{log}"
    );
    assert!(!log.contains('\x1b'), "{log}");
}

/// A loopback HTTP server that answers 200 and keeps every request it got.
struct Listener {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Listener {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let kept = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                let mut head = [0; 4096];
                let read = stream.read(&mut head).unwrap_or(0);
                kept.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&head[..read]).into_owned());
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
            }
        });
        Self { port, requests }
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

#[test]
fn grants_stay_the_worker_operator_s() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let data = cwd.join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("hello.txt"), "hello").unwrap();
    let listener = Listener::start();
    let origin = listener.origin();
    let secret = [("BENCH_TEST_SECRET", "s3cret")];
    // Any run is served here (the insecure mode): still nothing its operator did not give.
    let _plain = Worker::spawn(cwd, &nats.url(), "w1", &["--trust-any"], &secret);
    let read_only = format!("{}:/data", data.display());
    let writable = format!("{read_only}:rw");
    let reader_args = [
        "--trust-any",
        "--allow-dir",
        &read_only,
        "--allow-host",
        &origin,
    ];
    let _reader = Worker::spawn(cwd, &nats.url(), "w2", &reader_args, &secret);
    let exfiltrate = test_guest("exfiltrate");
    let url = origin.clone();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["--worker-wait", "2s", "--url", &url];
        args.extend_from_slice(extra);
        run_into(cwd, &exfiltrate, out, Some(&nats.url()), &args)
    };

    // Everything asked for: the secret (requiredEnvVars), the network and a writable dir.
    let greedy = run(
        "greedy",
        &["--allow-host", &origin, "--allow-dir", &writable],
    );
    assert_eq!(greedy.code, Some(1), "{}", greedy.stdout);
    assert!(
        greedy
            .stderr
            .contains("no worker can run participant \"thief\""),
        "{}",
        greedy.stderr
    );
    wait_for_log(
        cwd,
        "w1",
        "thief (its requiredEnvVars BENCH_TEST_SECRET are not served here",
    );
    let log = worker_log(cwd, "w1");
    assert!(
        log.contains(&format!(
            "borrower (it asks for the host {origin}, which this worker does not allow"
        )),
        "{log}"
    );
    wait_for_log(
        cwd,
        "w2",
        "(writable), which this worker does not allow (bench worker --allow-dir)",
    );

    // Within the grants: the borrower runs, without the secret its passEnv names.
    let within = run(
        "within",
        &[
            "--provider",
            "borrower",
            "--allow-host",
            &origin,
            "--allow-dir",
            &read_only,
        ],
    );
    assert_eq!(within.code, Some(0), "{}", within.stderr);
    let records = records(&cwd.join("within"));
    assert_eq!(records.len(), 2);
    for record in &records {
        assert_eq!(record["worker"], "w2", "{record}");
        assert_eq!(record["data"]["secret"], "", "{record}");
        assert_eq!(record["data"]["read"], "hello", "{record}");
        assert_eq!(record["data"]["wrote"], false, "read-only: {record}");
        assert_eq!(record["data"]["sent"], true, "{record}");
    }
    assert!(!data.join("stolen.txt").exists());
    let requests = listener.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    for dir in ["greedy", "within"] {
        let written = std::fs::read_to_string(cwd.join(dir).join("records.ndjson")).unwrap();
        assert!(!written.contains("s3cret"), "{dir}: {written}");
    }
    assert!(
        requests.iter().all(|request| !request.contains("s3cret")),
        "{requests:?}"
    );
}

/// A hand-made record batch of `unit` (tasks `indices`, 5e-7 ms each) by worker `worker`.
fn fake_batch(
    run: &str,
    unit: &Value,
    worker: &str,
    indices: impl Iterator<Item = u64>,
) -> Vec<u8> {
    let tasks: Vec<Value> = indices
        .map(|index| {
            json!({"participant": "local", "record": {
                "taskIndex": index, "status": "success", "startedAt": "2026-01-01T00:00:00.000Z",
                "completedAt": "2026-01-01T00:00:00.000Z", "latencyMs": 5e-7, "steps": []
            }})
        })
        .collect();
    json!({"runId": run, "unit": unit, "worker": worker, "tasks": tasks})
        .to_string()
        .into_bytes()
}

#[test]
fn forged_records_advisories_announcements_and_ids_change_nothing() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let (key, public) = keygen(cwd, "run");
    let (worker_key, worker_public) = keygen(cwd, "w1");
    let serve = [
        "--trust",
        text(&public),
        "--sign",
        text(&worker_key),
        "--slots",
        "3",
    ];
    let _worker = Worker::spawn(cwd, &nats.url(), "w1", &serve, &[]);
    let (tasks, concurrency) = (300u64, 3u64);
    let attacker = on_first_announcement(nats.url(), move |js, run| async move {
        let records = format!("bench.records.{run}");
        let mut kind = async_nats::HeaderMap::new();
        kind.insert("Bench-Kind", "records");
        // Every message id a batch of this run could be predicted to have, taken first.
        for first in (0..tasks).step_by(64) {
            let last = (first + 63).min(tasks - 1);
            for id in [
                format!("{run}/local/{first}"),
                format!("{run}/0/{first}-{last}/1/0000000000000000"),
            ] {
                let mut headers = kind.clone();
                headers.insert("Nats-Msg-Id", id.as_str());
                publish(&js, records.clone(), headers, b"x".to_vec()).await;
            }
        }
        // A worker of our own: a hello and batches of every unit, and the same unsigned.
        let hand = SigningKey::generate();
        let hello = json!({"worker": "evil\u{1b}[2J", "participants": ["local"]})
            .to_string()
            .into_bytes();
        let mut headers = hand_signed(&hand, &records, &hello);
        headers.insert("Bench-Kind", "hello");
        publish(&js, records.clone(), headers, hello).await;
        for slot in 0..concurrency {
            let count = (tasks - slot).div_ceil(concurrency);
            let unit =
                json!({"participant": "local", "first": slot, "step": concurrency, "count": count});
            let indices = (0..count).map(|n| slot + n * concurrency).take(64);
            let batch = fake_batch(&run, &unit, "evil\u{1b}[2J", indices.clone());
            let last = slot + 63 * concurrency;
            let id = format!("{run}/0/{slot}-{last}/1/00000000000000ff");
            let mut headers = hand_signed(&hand, &records, &batch);
            headers.insert("Bench-Kind", "records");
            headers.insert("Nats-Msg-Id", id.as_str());
            publish(&js, records.clone(), headers, batch).await;
            let mut unsigned = kind.clone();
            unsigned.insert("Nats-Msg-Id", format!("{id}-u").as_str());
            publish(
                &js,
                records.clone(),
                unsigned,
                fake_batch(&run, &unit, "w1", indices),
            )
            .await;
        }
        // JetStream "gave up" on a unit, and the run is "done": both forged.
        let advisory =
            json!({"consumer": format!("work-{run}-0"), "stream_seq": 1, "deliveries": 5});
        js.client()
            .publish(
                format!("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.BENCH_WORK.work-{run}-0"),
                advisory.to_string().into(),
            )
            .await
            .unwrap();
        let done = json!({
            "runId": run, "componentSha256": "00", "argv": [], "participants": ["local"],
            "ackWaitMs": 30000, "done": true, "revision": u64::MAX
        })
        .to_string()
        .into_bytes();
        let subject = format!("bench.runs.{run}");
        publish(
            &js,
            subject.clone(),
            hand_signed(&hand, &subject, &done),
            done.clone(),
        )
        .await;
        publish(&js, subject, Default::default(), done).await;
    });
    let sleeper = test_guest("sleeper");
    let args = [
        "--sign",
        text(&key),
        "--trust-worker",
        text(&worker_public),
        "--iterations",
        "300",
        "--concurrency",
        "3",
        "--sleep-ms",
        "5",
        "-q",
    ];
    let run = run_into(cwd, &sleeper, "results", Some(&nats.url()), &args);
    attacker.join().unwrap();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let (recorded, workers) = task_tally(&cwd.join("results"));
    assert_eq!(recorded.len(), 300, "none lost");
    assert!(recorded.values().all(|count| *count == 1), "none twice");
    assert_eq!(workers.keys().collect::<Vec<_>>(), ["w1"], "{workers:?}");
    for record in records(&cwd.join("results")) {
        assert!(
            record["latencyMs"].as_f64().unwrap() >= 5.0,
            "a real sleep: {record}"
        );
    }
    assert!(
        run.stderr
            .contains("left out a message not from this run's workers"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("a key this run does not trust (--trust-worker)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("which its consumer's state does not confirm"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("an announcement of this run that this coordinator did not make"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains('\x1b'), "escaped: {}", run.stderr);
    let manifest = read_json(&cwd.join("results/run.json"));
    assert_eq!(manifest["tasks"]["total"], 300);
}

#[test]
fn a_replayed_signed_unit_records_no_task_twice() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let (key, public) = keygen(cwd, "run");
    let serve = ["--trust", text(&public), "--slots", "2"];
    let _worker = Worker::spawn(cwd, &nats.url(), "w1", &serve, &[]);
    wait_for_log(cwd, "w1", "serving");
    // The first unit the coordinator publishes, published again three times as it was
    // (signature and all) under message ids JetStream has not seen.
    let (ready, subscribed) = std::sync::mpsc::channel();
    let url = nats.url();
    let replayer = std::thread::spawn(move || {
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(async move {
                let client = async_nats::connect(url).await.unwrap();
                let mut units = client.subscribe("bench.work.>").await.unwrap();
                client.flush().await.unwrap();
                ready.send(()).unwrap();
                let unit = tokio::time::timeout(Duration::from_secs(120), units.next())
                    .await
                    .expect("a unit is published")
                    .unwrap();
                let js = async_nats::jetstream::new(client);
                for copy in 0..3 {
                    let mut headers = unit.headers.clone().unwrap_or_default();
                    headers.insert("Nats-Msg-Id", format!("replay-{copy}").as_str());
                    let subject = unit.subject.to_string();
                    publish(&js, subject, headers, unit.payload.to_vec()).await;
                }
            });
    });
    subscribed.recv().unwrap();
    let sleeper = test_guest("sleeper");
    let args = [
        "--sign",
        text(&key),
        "--iterations",
        "100",
        "--concurrency",
        "2",
        "--sleep-ms",
        "5",
        "-q",
    ];
    let run = run_into(cwd, &sleeper, "results", Some(&nats.url()), &args);
    replayer.join().unwrap();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let (recorded, _) = task_tally(&cwd.join("results"));
    assert_eq!(recorded.len(), 100, "none lost");
    assert!(
        recorded.values().all(|count| *count == 1),
        "none twice: {recorded:?}"
    );
    let manifest = read_json(&cwd.join("results/run.json"));
    assert_eq!(manifest["tasks"]["total"], 100);
}
