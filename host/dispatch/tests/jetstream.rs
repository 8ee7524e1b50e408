//! The transport against a real nats-server (JetStream, temporary store, free loopback
//! port): a unit never finished is given up on and said so, a batch published twice is
//! recorded once, a component whose bytes do not match its sha256 is refused.

use bench_dispatch::{
    AccessFiles, Announcement, Coordinator, CoordinatorSetup, Incoming, NatsAccess, Pulled,
    RunDescriptor, RunTrust, SigningKey, UnitDelivery, WorkSource, WorkerLink,
};
use bench_model::dispatch::{RecordBatch, WorkUnit};
use bench_model::events::Finished;
use bench_model::record::TaskRecord;
use futures_util::StreamExt;
use sha2::{Digest, Sha256};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// nats-server with JetStream, killed when dropped.
struct NatsServer {
    child: Child,
    url: String,
    _store: TempDir,
}

impl NatsServer {
    /// Starts nats-server on a free port. The port is free when picked, not when the server
    /// binds it: a server of a test running beside this one may take it first, and this one
    /// then exits (while the port answers); it is started again on another port.
    fn start() -> Self {
        let store = TempDir::new().unwrap();
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            // The server writes its ports file once it listens: a port that answers may be
            // another test's server (this one then exits), the file is this one's.
            let ports = store.path().join("ports");
            std::fs::create_dir_all(&ports).unwrap();
            let mut child = Command::new("nats-server")
                .args(["-a", "127.0.0.1", "-p", &port.to_string(), "-js", "-sd"])
                .arg(store.path())
                .arg("--ports_file_dir")
                .arg(&ports)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("nats-server runs (apt-get install nats-server)");
            let ports_file = ports.join(format!("nats-server_{}.ports", child.id()));
            let listening =
                || ports_file.exists() && TcpStream::connect(("127.0.0.1", port)).is_ok();
            let deadline = Instant::now() + Duration::from_secs(DELIVERY_DEADLINE_SECS);
            while !listening() && child.try_wait().unwrap().is_none() {
                assert!(Instant::now() < deadline, "nats-server did not start");
                std::thread::sleep(Duration::from_millis(20));
            }
            if child.try_wait().unwrap().is_none() {
                return Self {
                    child,
                    url: format!("nats://127.0.0.1:{port}"),
                    _store: store,
                };
            }
        }
        panic!("nats-server exited at start five times (no free port?)");
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const COMPONENT: &[u8] = b"\0asm component bytes";

fn descriptor(run: &str, ack_wait_ms: u64) -> RunDescriptor {
    RunDescriptor {
        run_id: run.to_owned(),
        component_sha256: hex::encode(Sha256::digest(COMPONENT)),
        argv: vec![],
        participants: vec!["a".into(), "b".into()],
        ack_wait_ms,
        done: false,
        revision: 0,
    }
}

fn access(url: &str) -> NatsAccess {
    NatsAccess::new(url, AccessFiles::default()).unwrap()
}

async fn coordinator(url: &str, descriptor: RunDescriptor) -> Coordinator {
    Coordinator::start(CoordinatorSetup {
        access: &access(url),
        descriptor,
        component: COMPONENT,
        signer: None,
        trusted_workers: None,
        known_workers: Vec::new(),
        resumed: false,
    })
    .await
    .unwrap()
}

async fn worker(url: &str, name: &str) -> WorkerLink {
    WorkerLink::connect(&access(url), name, SigningKey::generate(), RunTrust::Any)
        .await
        .unwrap()
}

/// The next unit `source` delivers (within the test's deadline).
async fn pull(source: &WorkSource) -> UnitDelivery {
    let deadline = Instant::now() + Duration::from_secs(DELIVERY_DEADLINE_SECS);
    loop {
        assert!(Instant::now() < deadline, "no unit delivered");
        if let Pulled::Unit(delivery) = source.next().await.unwrap() {
            return *delivery;
        }
    }
}

fn unit(participant: &str) -> WorkUnit {
    WorkUnit {
        participant: participant.into(),
        first: 0,
        step: 1,
        count: 2,
        ramp_anchor_ms: None,
    }
}

/// Run `run` with participant `a`'s unit published and delivered to worker `w1`.
async fn running_unit(nats: &NatsServer, run: &str) -> (Coordinator, WorkerLink, UnitDelivery) {
    let coordinator = coordinator(&nats.url, descriptor(run, 30_000)).await;
    let worker = worker(&nats.url, "w1").await;
    coordinator.publish_units(0, &[unit("a")]).await.unwrap();
    let delivery = pull(&worker.work(run, 0, "a").await.unwrap()).await;
    (coordinator, worker, delivery)
}

/// A batch of `unit`'s tasks `indices`.
fn batch_of(run: &str, unit: &WorkUnit, worker: &str, indices: &[u32]) -> RecordBatch {
    let mut batch = RecordBatch::new(run, unit, worker);
    for index in indices {
        let finished = Finished {
            record: serde_json::from_value::<TaskRecord>(serde_json::json!({
                "taskIndex": index, "status": "success", "startedAt": "",
                "completedAt": "", "latencyMs": 1, "steps": []
            }))
            .unwrap(),
            log: vec![],
            worker: None,
        };
        assert!(batch.push(&unit.participant, finished).is_none());
    }
    batch
}

/// Headers that sign `payload` on `subject` with `key` (anyone can make a key of their own).
fn signed_by(key: &SigningKey, subject: &str, payload: &[u8]) -> async_nats::HeaderMap {
    let mut headers = async_nats::HeaderMap::new();
    key.sign(subject, payload, &mut headers);
    headers
}

/// Reads what the coordinator gets within `within`.
async fn received(coordinator: &mut Coordinator, within: Duration) -> Vec<Incoming> {
    let deadline = Instant::now() + within;
    let mut all = Vec::new();
    while Instant::now() < deadline {
        if let Some(incoming) = coordinator.next(Duration::from_millis(50)).await.unwrap() {
            all.push(incoming);
        }
    }
    all
}

/// How long a test waits for what should come within a second: redeliveries every ack-wait
/// (200 ms) and advisories stretch a lot on a loaded machine.
const DELIVERY_DEADLINE_SECS: u64 = 60;
/// A unit never acked is delivered again every ack-wait until JetStream gives up after
/// [`MAX_DELIVER`] deliveries and says so in an advisory. Under load a redelivery can go to a
/// pull that has just expired and never reach the worker, and nats-server 2.9 may report a
/// late redelivery's count wrongly, so the test asserts the bounds, not the exact sequence.
#[tokio::test]
async fn a_unit_never_finished_is_given_up_on_after_five_deliveries() {
    const MAX_DELIVER: i64 = 5;
    let nats = NatsServer::start();
    let mut coordinator = coordinator(&nats.url, descriptor("r1", 200)).await;
    coordinator.publish_units(1, &[unit("b")]).await.unwrap();
    let worker = worker(&nats.url, "w1").await;
    let source = worker.work("r1", 1, "b").await.unwrap();
    let mut deliveries = Vec::new();
    let mut seen = Vec::new();
    let given_up = |seen: &[Incoming]| {
        seen.iter().any(|incoming| {
            matches!(
                incoming,
                Incoming::GaveUp {
                    participant: 1,
                    units: 1
                }
            )
        })
    };
    let deadline = Instant::now() + Duration::from_secs(DELIVERY_DEADLINE_SECS);
    while !given_up(&seen) {
        assert!(
            Instant::now() < deadline,
            "no advisory after deliveries {deliveries:?}: {seen:?}"
        );
        if let Pulled::Unit(delivery) = source.next().await.unwrap() {
            assert_eq!(delivery.unit, unit("b"));
            deliveries.push(delivery.delivered());
            // Dropped without an ack, as by a worker that died.
        }
        seen.extend(received(&mut coordinator, Duration::from_millis(50)).await);
    }
    assert!(
        deliveries.len() >= 2,
        "never delivered again: {deliveries:?}"
    );
    assert!(
        deliveries
            .iter()
            .all(|count| (1..=MAX_DELIVER).contains(count)),
        "{deliveries:?}"
    );
    // Given up: no further delivery reaches a worker that asks again.
    for _ in 0..3 {
        assert!(
            matches!(source.next().await.unwrap(), Pulled::Nothing),
            "delivered after JetStream gave up (deliveries {deliveries:?})"
        );
    }
}

#[tokio::test]
async fn a_batch_published_twice_is_received_once_and_components_are_verified() {
    let nats = NatsServer::start();
    let mut coordinator = coordinator(&nats.url, descriptor("r2", 30_000)).await;
    let worker = worker(&nats.url, "w1").await;
    let sha = hex::encode(Sha256::digest(COMPONENT));
    assert_eq!(worker.component(&sha).await.unwrap(), COMPONENT);
    let error = worker.component(&"0".repeat(64)).await.unwrap_err();
    assert!(
        format!("{error:#}").contains("cannot fetch component"),
        "{error:#}"
    );

    let batch = batch_of("r2", &unit("a"), "w1", &[0, 1]);
    coordinator.publish_units(0, &[unit("a")]).await.unwrap();
    let delivery = pull(&worker.work("r2", 0, "a").await.unwrap()).await;
    worker.hello("r2", &["a".into()]).await.unwrap();
    worker.publish(&batch, &delivery).await.unwrap();
    let again = worker.publish(&batch, &delivery).await.unwrap_err();
    assert!(
        format!("{again:#}").contains("already holds another message with this batch's id"),
        "{again:#}"
    );
    let got = received(&mut coordinator, Duration::from_millis(500)).await;
    let batches = got
        .iter()
        .filter(|i| matches!(i, Incoming::Records(_)))
        .count();
    let hellos: Vec<_> = got
        .iter()
        .filter_map(|i| match i {
            Incoming::Hello { note, .. } => Some((note.worker.as_str(), note.participants.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(batches, 1, "{got:?}");
    assert_eq!(hellos, [("w1", vec!["a".to_owned()])]);
}

/// The next announcement a worker reads (within the test's deadline).
async fn next<S>(runs: &mut std::pin::Pin<&mut S>) -> Announcement
where
    S: futures_util::Stream<Item = anyhow::Result<Announcement>>,
{
    tokio::time::timeout(Duration::from_secs(DELIVERY_DEADLINE_SECS), runs.next())
        .await
        .expect("an announcement")
        .unwrap()
        .unwrap()
}

/// What the coordinator left out, by reason.
fn dropped(got: &[Incoming]) -> Vec<&str> {
    got.iter()
        .filter_map(|incoming| match incoming {
            Incoming::Dropped(reason) => Some(reason.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn only_batches_signed_by_a_joined_worker_under_their_own_id_count() {
    let nats = NatsServer::start();
    let (mut coordinator, worker, delivery) = running_unit(&nats, "r3").await;
    worker.hello("r3", &["a".into()]).await.unwrap();

    // Hand-made messages on the run's records subject, before the real batch.
    let client = async_nats::connect(&nats.url).await.unwrap();
    let js = async_nats::jetstream::new(client);
    let fake = batch_of("r3", &unit("a"), "w1", &[0, 1]).to_bytes();
    let subject = "bench.records.r3";
    let send = |headers: async_nats::HeaderMap, payload: Vec<u8>| {
        let js = js.clone();
        async move {
            js.publish_with_headers(subject, headers, payload.into())
                .await
                .unwrap()
                .await
                .unwrap();
        }
    };
    let kind = |mut headers: async_nats::HeaderMap, id: &str| {
        headers.insert("Bench-Kind", "records");
        headers.insert("Nats-Msg-Id", id);
        headers
    };
    send(kind(async_nats::HeaderMap::new(), "fake-1"), fake.clone()).await;
    send(
        kind(signed_by(&SigningKey::generate(), subject, &fake), "fake-2"),
        fake.clone(),
    )
    .await;
    let mut forged = signed_by(&SigningKey::generate(), subject, &fake);
    forged.insert("Bench-Key", worker.key().to_hex().as_str());
    send(kind(forged, "fake-3"), fake.clone()).await;
    // Ids a batch of this run would have had before: the real one must still get through.
    for id in ["r3/a/0", "r3/0/0-1/1/0000000000000000"] {
        send(kind(async_nats::HeaderMap::new(), id), b"x".to_vec()).await;
    }
    worker
        .publish(&batch_of("r3", &unit("a"), "w1", &[0, 1]), &delivery)
        .await
        .unwrap();
    let got = received(&mut coordinator, Duration::from_millis(800)).await;
    let batches = got
        .iter()
        .filter(|i| matches!(i, Incoming::Records(_)))
        .count();
    assert_eq!(batches, 1, "{got:?}");
    let reasons = dropped(&got);
    assert_eq!(reasons.len(), 5, "{reasons:?}");
    assert!(reasons[0].contains("no worker signed"), "{reasons:?}");
    assert!(
        reasons[1].contains("a key no worker of this run said hello with"),
        "{reasons:?}"
    );
    assert!(reasons[2].contains("forged signature"), "{reasons:?}");
}

#[tokio::test]
async fn an_advisory_jetstream_does_not_confirm_is_left_out() {
    let nats = NatsServer::start();
    // The unit is healthy: delivered once, running.
    let (mut coordinator, _worker, _running) = running_unit(&nats, "r4").await;
    let client = async_nats::connect(&nats.url).await.unwrap();
    let advisory = serde_json::json!({
        "type": "io.nats.jetstream.advisory.v1.max_deliver",
        "stream": "BENCH_WORK", "consumer": "work-r4-0", "stream_seq": 1, "deliveries": 5
    });
    client
        .publish(
            "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.BENCH_WORK.work-r4-0",
            serde_json::to_vec(&advisory).unwrap().into(),
        )
        .await
        .unwrap();
    client.flush().await.unwrap();
    let got = received(&mut coordinator, Duration::from_millis(500)).await;
    assert!(
        !got.iter().any(|i| matches!(i, Incoming::GaveUp { .. })),
        "{got:?}"
    );
    assert!(
        dropped(&got)
            .iter()
            .any(|reason| reason.contains("does not confirm")),
        "{got:?}"
    );
    assert_eq!(coordinator.given_up_units(0).await.unwrap(), 0);
}

#[tokio::test]
async fn a_trusting_worker_reads_only_what_its_keys_signed() {
    let nats = NatsServer::start();
    let trusted = SigningKey::generate();
    let trusted_public = trusted.public();
    let mut signed = Coordinator::start(CoordinatorSetup {
        access: &access(&nats.url),
        descriptor: descriptor("r5", 30_000),
        component: COMPONENT,
        signer: Some(trusted),
        trusted_workers: None,
        known_workers: Vec::new(),
        resumed: false,
    })
    .await
    .unwrap();
    let _rogue = Coordinator::start(CoordinatorSetup {
        access: &access(&nats.url),
        descriptor: descriptor("r6", 30_000),
        component: COMPONENT,
        signer: Some(SigningKey::generate()),
        trusted_workers: None,
        known_workers: Vec::new(),
        resumed: false,
    })
    .await
    .unwrap();
    let _unsigned = coordinator(&nats.url, descriptor("r7", 30_000)).await;
    let link = WorkerLink::connect(
        &access(&nats.url),
        "w1",
        SigningKey::generate(),
        RunTrust::Keys(vec![trusted_public]),
    )
    .await
    .unwrap();
    let runs = link.runs().await.unwrap();
    tokio::pin!(runs);
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let announcement = next(&mut runs).await;
        seen.push(match announcement {
            Announcement::Run(run) => format!("{} served", run.run_id),
            Announcement::Refused { run, reason } => format!("{} refused: {reason}", run.unwrap()),
        });
    }
    seen.sort();
    assert_eq!(seen[0], "r5 served");
    assert!(
        seen[1].starts_with("r6 refused: its announcement is signed by ed25519:"),
        "{seen:?}"
    );
    assert!(seen[1].ends_with("a key this worker does not trust (bench worker --trust FILE.pub)"));
    assert!(
        seen[2].starts_with("r7 refused: its announcement is not signed"),
        "{seen:?}"
    );

    // A forged "done" of the trusted run: refused by the worker, replaced by its coordinator.
    let client = async_nats::connect(&nats.url).await.unwrap();
    let js = async_nats::jetstream::new(client);
    let forged = RunDescriptor {
        done: true,
        revision: u64::MAX,
        ..descriptor("r5", 30_000)
    };
    let payload = serde_json::to_vec(&forged).unwrap();
    js.publish_with_headers(
        "bench.runs.r5",
        signed_by(&SigningKey::generate(), "bench.runs.r5", &payload),
        payload.into(),
    )
    .await
    .unwrap()
    .await
    .unwrap();
    let refused = next(&mut runs).await;
    assert!(
        matches!(refused, Announcement::Refused { .. }),
        "{refused:?}"
    );
    let got = received(&mut signed, Duration::from_millis(500)).await;
    assert!(
        dropped(&got)
            .iter()
            .any(|reason| reason.contains("did not make")),
        "{got:?}"
    );
    let again = next(&mut runs).await;
    assert!(
        matches!(again, Announcement::Run(ref run) if !run.done),
        "{again:?}"
    );

    // Units: the signed one runs, one made by hand is refused and removed.
    signed.publish_units(0, &[unit("a")]).await.unwrap();
    let payload = serde_json::to_vec(&WorkUnit {
        first: 1,
        ..unit("a")
    })
    .unwrap();
    js.publish("bench.work.r5.0", payload.into())
        .await
        .unwrap()
        .await
        .unwrap();
    let source = link.work("r5", 0, "a").await.unwrap();
    let mut pulled = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(DELIVERY_DEADLINE_SECS);
    while pulled.len() < 2 && Instant::now() < deadline {
        match source.next().await.unwrap() {
            Pulled::Unit(delivery) => {
                pulled.push(format!("unit {}", delivery.unit.first));
                delivery.done().await.unwrap();
            }
            Pulled::Refused(reason) => pulled.push(reason),
            Pulled::Nothing => {}
        }
    }
    assert_eq!(pulled[0], "unit 0");
    assert!(
        pulled[1].starts_with("a work unit is not signed"),
        "{pulled:?}"
    );
}

#[tokio::test]
async fn workers_sharing_one_key_each_count_under_their_own_name() {
    let nats = NatsServer::start();
    let keys = TempDir::new().unwrap();
    let key_file = keys.path().join("worker.key");
    SigningKey::generate().write_new(&key_file).unwrap();
    let shared = || SigningKey::read(&key_file).unwrap();
    let mut coordinator = coordinator(&nats.url, descriptor("r6", 30_000)).await;
    coordinator.publish_units(0, &[unit("a")]).await.unwrap();
    coordinator.publish_units(1, &[unit("b")]).await.unwrap();
    // Two replicas of one deployment, one key between them.
    let mut deliveries = Vec::new();
    for (name, participant, index) in [("w1", "a", 0), ("w2", "b", 1)] {
        let link = WorkerLink::connect(&access(&nats.url), name, shared(), RunTrust::Any)
            .await
            .unwrap();
        let delivery = pull(&link.work("r6", index, participant).await.unwrap()).await;
        link.hello("r6", &[participant.into()]).await.unwrap();
        deliveries.push((link, delivery, name, participant));
    }
    for (link, delivery, name, participant) in &deliveries {
        let batch = batch_of("r6", &unit(participant), name, &[0, 1]);
        link.publish(&batch, delivery).await.unwrap();
    }
    // A name that never said hello, under the shared key, does not count.
    let (link, delivery, _, _) = &deliveries[0];
    let stranger = batch_of("r6", &unit("a"), "w3", &[0]);
    link.publish(&stranger, delivery).await.unwrap();
    let got = received(&mut coordinator, Duration::from_millis(500)).await;
    let workers: Vec<_> = got
        .iter()
        .filter_map(|incoming| match incoming {
            Incoming::Records(batch) => Some(batch.worker.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(workers, ["w1", "w2"], "{got:?}");
    assert_eq!(
        dropped(&got),
        ["a record batch naming worker \"w3\", signed by the key of worker \"w1\", \"w2\""]
    );
}
