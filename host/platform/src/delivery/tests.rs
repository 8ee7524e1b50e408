//! The delivery against a scripted platform: what it sends and in which order, how it
//! retries, what the ledger keeps when the platform fails, and how a later delivery from
//! that ledger sends the rest — every record exactly once.

use super::*;
use crate::client::fake::{FakePlatform, Scripted};
use crate::client::{Endpoint, Retry};
use crate::tail::{RecordsTail, RECORDS_FILE};
use bench_model::plan::RunManifest;
use serde_json::json;
use std::time::Duration;

const API: &str = "http://platform.test/api/v1";

type FakeDelivery = Delivery<Arc<FakePlatform>>;

/// A results directory of a run of `participants` with `tasks` tasks each, and the
/// platform it is delivered to.
pub(crate) struct Run {
    dir: tempfile::TempDir,
    pub(crate) platform: Arc<FakePlatform>,
    ledger: Ledger,
}

impl Run {
    pub(crate) fn new(group_by: &str, participants: &[&str], tasks: u32) -> Self {
        let manifest: RunManifest = serde_json::from_value(json!({
            "benchmarkSlug": "s", "benchmarkName": "S", "iterations": tasks,
            "concurrency": 1, "staggerDelayMs": 0, "groupBy": group_by,
            "participants": participants,
            "runId": "20260101T000000Z-0001", "startedAt": "x",
            "component": {"path": "task.wasm", "sha256": "00", "sizeBytes": 1},
            "host": {"benchVersion": "0.1.0", "wasmtimeVersion": "48.0.8", "os": "linux", "arch": "x86_64"},
        }))
        .unwrap();
        let ledger = crate::new_ledger(&manifest, API, true, None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        ledger.save(dir.path()).unwrap();
        Self {
            dir,
            platform: Arc::default(),
            ledger,
        }
    }

    /// Writes `records.ndjson`: per participant, how many records, and which of them
    /// failed.
    pub(crate) fn record(&self, records: &[(&str, u32, &[u32])]) {
        let mut text = String::new();
        for (participant, count, failed) in records {
            for index in 0..*count {
                let status = if failed.contains(&index) {
                    "error"
                } else {
                    "success"
                };
                text.push_str(&format!(
                    "{{\"participant\":\"{participant}\",\"taskIndex\":{index},\"status\":\"{status}\"}}\n"
                ));
            }
        }
        std::fs::write(self.dir.path().join(RECORDS_FILE), text).unwrap();
    }

    /// A delivery from the ledger on disk, retrying as `retry` says, that counted no
    /// record yet.
    pub(crate) fn uncounted(&self, retry: Retry) -> FakeDelivery {
        let ledger = Ledger::load(self.dir.path()).unwrap().unwrap();
        let client = Client::over(Arc::clone(&self.platform), API, retry);
        Delivery::new(Arc::new(client), ledger, self.dir.path())
    }

    /// A delivery from the ledger on disk (as `bench upload` starts one), retrying as
    /// `retry` says, that counted every record.
    fn delivery(&self, retry: Retry) -> FakeDelivery {
        let mut delivery = self.uncounted(retry);
        let mut tail = RecordsTail::new(self.dir.path());
        tail.read_new(|line| {
            delivery.count(&line);
        })
        .unwrap();
        delivery
    }

    fn saved(&self) -> Ledger {
        Ledger::load(self.dir.path()).unwrap().unwrap()
    }

    /// The task indexes the platform stored for a participant, in order.
    pub(crate) fn stored(&self, participant: &str) -> Vec<u64> {
        let records = self.platform.stored(&format!("att-{participant}"));
        records
            .iter()
            .map(|record| record["taskIndex"].as_u64().unwrap())
            .collect()
    }
}

/// Retries that wait little, so tests on real time stay short.
const QUICK: Retry = Retry {
    attempts: 5,
    base_delay: Duration::from_millis(1),
    max_delay: Duration::from_millis(2),
    budget: Duration::from_secs(60),
};

#[tokio::test]
async fn a_finished_run_is_delivered_in_upstreams_order_with_idempotency_keys() {
    let run = Run::new("participant", &["a", "b"], 3);
    run.record(&[("a", 3, &[]), ("b", 3, &[])]);
    let mut delivery = run.delivery(Retry::ONCE);
    delivery.deliver_all().await.unwrap();
    use Endpoint::*;
    assert_eq!(
        run.platform.endpoints(),
        [
            UpsertBenchmark,
            CreateRun,
            PlanWorkers,
            ClaimWorker,
            SendTaskResults,
            Complete,
            PlanWorkers,
            ClaimWorker,
            SendTaskResults,
            Complete
        ]
    );
    assert_eq!(run.stored("a"), [0, 1, 2]);
    assert_eq!(run.stored("b"), [0, 1, 2]);
    let batch = &run.platform.received(SendTaskResults)[0].body;
    assert_eq!(batch["isFinal"], true);
    assert_eq!(
        batch["records"][0],
        json!({"taskIndex": 0, "status": "success"})
    );
    let root = format!("bench:20260101T000000Z-0001:{}", run.ledger.delivery_id);
    let keys = |endpoint| -> Vec<Option<String>> {
        let received = run.platform.received(endpoint);
        received.into_iter().map(|r| r.idempotency_key).collect()
    };
    assert_eq!(keys(CreateRun), [Some(format!("{root}:run"))]);
    assert_eq!(
        keys(ClaimWorker),
        [
            Some(format!("{root}:claim:a")),
            Some(format!("{root}:claim:b"))
        ]
    );
    assert_eq!(keys(SendTaskResults), [None, None]);
    assert!(delivery.outstanding().is_empty());
    let saved = run.saved();
    assert_eq!(
        saved.run.unwrap().dashboard_url,
        "http://platform.test/acme/benchmarks/s/runs/run_1"
    );
    assert!(saved
        .participants
        .iter()
        .all(|p| p.closed && p.delivered == 3));
    delivery.deliver_all().await.unwrap();
    assert_eq!(run.platform.endpoints().len(), 10, "nothing is sent twice");
}

#[tokio::test(start_paused = true)]
async fn server_errors_are_retried_with_backoff_and_the_same_batch() {
    let run = Run::new("participant", &["a"], 2);
    run.record(&[("a", 2, &[])]);
    run.platform.script(
        Endpoint::SendTaskResults,
        [Scripted::Status(503), Scripted::Status(500)],
    );
    let mut delivery = run.delivery(Retry::default());
    let started = tokio::time::Instant::now();
    delivery.deliver_all().await.unwrap();
    let waited = started.elapsed();
    // 250 ms then 500 ms, each randomized to 50–100 %.
    assert!(
        waited >= Duration::from_millis(375) && waited < Duration::from_millis(750),
        "{waited:?}"
    );
    let sent = run.platform.received(Endpoint::SendTaskResults);
    assert_eq!(sent.len(), 3);
    assert!(sent.iter().all(|request| request.body == sent[0].body));
    assert_eq!(run.stored("a"), [0, 1]);
    assert_eq!(delivery.client().unavailable(), None);
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_longer_than_the_backoff_is_waited_out() {
    let run = Run::new("participant", &["a"], 1);
    run.platform
        .script(Endpoint::CreateRun, [Scripted::RetryAfter(429, 7)]);
    let mut delivery = run.delivery(Retry::default());
    let started = tokio::time::Instant::now();
    delivery.ensure_run().await.unwrap();
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(7) && waited < Duration::from_secs(8),
        "{waited:?}"
    );
    let creates = run.platform.received(Endpoint::CreateRun);
    assert_eq!(creates.len(), 2);
    assert_eq!(creates[0].idempotency_key, creates[1].idempotency_key);
}

#[tokio::test(start_paused = true)]
async fn a_platform_that_never_answers_opens_the_breaker_and_everything_stays_in_the_ledger() {
    let run = Run::new("participant", &["a", "b"], 2);
    run.record(&[("a", 2, &[]), ("b", 2, &[])]);
    run.platform
        .script(Endpoint::UpsertBenchmark, vec![Scripted::Timeout; 10]);
    let mut delivery = run.delivery(Retry::default());
    let started = tokio::time::Instant::now();
    let error = delivery.deliver_all().await.unwrap_err();
    assert!(error.is_retryable(), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(61),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        delivery.client().unavailable().as_deref(),
        Some("it failed for 60 s in all (last: fetch failed: operation timed out)")
    );
    assert_eq!(run.platform.received(Endpoint::UpsertBenchmark).len(), 2);
    let again = delivery.deliver_all().await.unwrap_err();
    assert!(matches!(again, ApiError::Unavailable(_)), "{again}");
    assert_eq!(
        run.platform.endpoints().len(),
        2,
        "an open breaker sends nothing"
    );
    let outstanding = delivery.outstanding();
    assert_eq!(outstanding.records, 4);
    assert_eq!(
        outstanding.items,
        ["the run", "the completion of a", "the completion of b"]
    );
    assert_eq!(
        run.saved(),
        run.ledger,
        "the ledger still has everything to send"
    );
}

#[tokio::test]
async fn a_definite_refusal_is_not_retried_and_stops_the_delivery() {
    for status in [401, 403] {
        let run = Run::new("participant", &["a"], 1);
        run.record(&[("a", 1, &[])]);
        run.platform
            .script(Endpoint::CreateRun, [Scripted::Status(status)]);
        let mut delivery = run.delivery(QUICK);
        let error = delivery.deliver_all().await.unwrap_err();
        let reason = if status == 401 {
            "Unauthorized"
        } else {
            "Forbidden"
        };
        assert_eq!(
            error.to_string(),
            format!(
                "Benchmark API request failed: {status} {reason}: scripted {status} (scripted)"
            )
        );
        assert!(!error.is_retryable());
        assert_eq!(run.platform.received(Endpoint::CreateRun).len(), 1);
        assert_eq!(delivery.client().unavailable(), None);
        assert!(
            delivery.client().last_answer().is_some(),
            "a refusal is an answer"
        );
        assert_eq!(run.saved().run, None);
    }
}

#[tokio::test]
async fn a_batch_whose_answer_was_lost_is_resent_by_the_next_delivery_and_stored_once() {
    let run = Run::new("participant", &["a"], 5);
    run.record(&[("a", 3, &[])]);
    run.platform
        .script(Endpoint::SendTaskResults, [Scripted::Lost]);
    let mut first = run.delivery(Retry::ONCE);
    first.ensure_worker(0).await.unwrap();
    let error = first.send_records(0, false).await.unwrap_err();
    assert_eq!(
        error,
        ApiError::Transport("connection reset by peer".into())
    );
    let saved = run.saved();
    let entry = &saved.participants[0];
    let batch = Batch {
        sequence_number: 0,
        end: 2,
        is_final: false,
    };
    assert_eq!(entry.in_flight, Some(batch), "the newest record waits");
    assert_eq!((entry.delivered, entry.closed), (0, false));

    // The run went on: the next delivery finds more records than the batch in flight.
    run.record(&[("a", 5, &[])]);
    let mut second = run.delivery(Retry::ONCE);
    second.deliver_all().await.unwrap();
    let sent = run.platform.received(Endpoint::SendTaskResults);
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[0].body, sent[1].body,
        "the same batch: sequence number and records"
    );
    assert_eq!(sent[2].body["sequenceNumber"], 1);
    assert_eq!(run.stored("a"), [0, 1, 2, 3, 4], "every record once");
    assert_eq!(run.platform.received(Endpoint::CreateRun).len(), 1);
    assert_eq!(run.platform.received(Endpoint::ClaimWorker).len(), 1);
    assert_eq!(run.platform.received(Endpoint::Complete).len(), 1);
    assert!(second.outstanding().is_empty());
}

#[tokio::test]
async fn records_go_in_batches_of_500_and_the_newest_waits_for_the_end() {
    let run = Run::new("participant", &["a"], 1201);
    run.record(&[("a", 1201, &[])]);
    let mut delivery = run.delivery(Retry::ONCE);
    delivery.ensure_worker(0).await.unwrap();
    delivery.send_records(0, false).await.unwrap();
    let batches = |run: &Run| -> Vec<(u64, usize, bool)> {
        let sent = run.platform.received(Endpoint::SendTaskResults);
        sent.iter()
            .map(|request| {
                let body = &request.body;
                let records = body["records"].as_array().unwrap().len();
                (
                    body["sequenceNumber"].as_u64().unwrap(),
                    records,
                    body["isFinal"] == true,
                )
            })
            .collect()
    };
    assert_eq!(
        batches(&run),
        [(0, 500, false), (1, 500, false), (2, 200, false)]
    );
    assert_eq!(run.saved().participants[0].delivered, 1200);
    delivery.send_records(0, true).await.unwrap();
    assert_eq!(
        batches(&run)[3],
        (3, 1, true),
        "the final batch is never empty"
    );
    assert_eq!(run.stored("a"), (0..1201).collect::<Vec<u64>>());
}

#[tokio::test]
async fn workers_end_as_what_their_records_say() {
    let cases: [(u32, &[u32], bool, &str, Value); 4] = [
        (2, &[], false, "complete", json!({"attemptId": "att-a"})),
        (
            2,
            &[1],
            false,
            "fail",
            json!({"attemptId": "att-a", "errorCode": "Error", "errorMessage": "One or more tasks failed"}),
        ),
        (
            1,
            &[],
            false,
            "fail",
            json!({"attemptId": "att-a", "errorCode": "Partial", "errorMessage": "Partial: 1 of 2 task(s) recorded"}),
        ),
        (
            1,
            &[],
            true,
            "fail",
            json!({"attemptId": "att-a", "errorCode": "Interrupted", "errorMessage": "Interrupted: 1 of 2 task(s) recorded"}),
        ),
    ];
    for (recorded, failed, interrupted, outcome, body) in cases {
        let run = Run::new("participant", &["a"], 2);
        run.record(&[("a", recorded, failed)]);
        let mut delivery = run.delivery(Retry::ONCE);
        if interrupted {
            delivery.mark_interrupted();
        }
        delivery.deliver_all().await.unwrap();
        let endpoint = if outcome == "complete" {
            Endpoint::Complete
        } else {
            Endpoint::Fail
        };
        let finished = run.platform.received(endpoint);
        assert_eq!(finished.len(), 1, "{outcome}");
        assert!(finished[0]
            .url
            .ends_with(&format!("/workers/w-a/{outcome}")));
        assert_eq!(finished[0].body, body);
    }
}

#[tokio::test]
async fn a_participant_without_a_pending_worker_stays_local() {
    let run = Run::new("participant", &["a", "b"], 1);
    run.record(&[("a", 1, &[]), ("b", 1, &[])]);
    run.platform.script(
        Endpoint::ClaimWorker,
        [Scripted::Body(r#"{"assignment":null}"#.into())],
    );
    let mut delivery = run.delivery(Retry::ONCE);
    delivery.deliver_all().await.unwrap();
    assert_eq!(run.stored("a"), Vec::<u64>::new());
    assert_eq!(run.stored("b"), [0]);
    assert!(run.saved().participants[0].unassigned);
    assert!(
        delivery.outstanding().is_empty(),
        "{:?}",
        delivery.outstanding()
    );
}

#[tokio::test]
async fn logs_and_metrics_are_uploaded_once_and_a_failed_upload_is_retried_alone() {
    let run = Run::new("participant", &["a"], 1);
    run.record(&[("a", 1, &[])]);
    std::fs::create_dir(run.dir.path().join("logs")).unwrap();
    std::fs::write(run.dir.path().join("logs/a.log"), "line 1\n").unwrap();
    std::fs::write(
        run.dir.path().join(METRICS_FILE),
        "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n",
    )
    .unwrap();
    run.platform
        .script(Endpoint::UploadArtifact, [Scripted::Status(503)]);
    let mut delivery = run.delivery(QUICK);
    delivery.participant_done(0, 1, (1, 3));
    delivery.deliver_all().await.unwrap();
    let created = run.platform.received(Endpoint::CreateWorkerArtifact);
    let kinds: Vec<&Value> = created
        .iter()
        .map(|request| &request.body["kind"])
        .collect();
    assert_eq!(kinds, ["coordinator.log", "system-metrics"]);
    assert_eq!(created[0].body["metadata"], json!({"sizeBytes": 7}));
    assert_eq!(
        created[1].body["metadata"],
        json!({"sizeBytes": 16}),
        "lines 1..3"
    );
    let uploads = run.platform.received(Endpoint::UploadArtifact);
    assert_eq!(uploads.len(), 3, "the log's upload was retried");
    assert_eq!(uploads[0].url, uploads[1].url);
    let saved = run.saved();
    assert!(saved.participants[0].log_uploaded && saved.participants[0].metrics_uploaded);
}

#[tokio::test]
async fn a_summary_the_platform_did_not_take_is_submitted_by_the_next_delivery() {
    let run = Run::new("round", &["a"], 1);
    run.record(&[("a", 1, &[])]);
    run.platform
        .script(Endpoint::SubmitRunSummary, [Scripted::Status(500)]);
    let summary = RunSummary {
        run: json!({"triggeredBy": "manual"}),
        results: vec![json!({"provider": "a"})],
        scoring: None,
        load: None,
    };
    let mut first = run.delivery(Retry::ONCE);
    first.set_summary(summary.clone());
    assert!(first.deliver_all().await.unwrap_err().is_retryable());
    assert_eq!(first.outstanding().items, ["the run summary"]);
    let mut second = run.delivery(Retry::ONCE);
    second.deliver_all().await.unwrap();
    let submitted = run.platform.received(Endpoint::SubmitRunSummary);
    assert_eq!(submitted.len(), 2);
    assert_eq!(submitted[1].body, serde_json::to_value(&summary).unwrap());
    assert_eq!(run.stored("a"), [0]);
    assert_eq!(
        run.platform.received(Endpoint::Complete).len(),
        1,
        "not again"
    );
    let claim = &run.platform.received(Endpoint::ClaimWorker)[0].body;
    assert_eq!(
        claim["processKind"], "process",
        "round mode claims as a process"
    );
}

#[test]
fn artifact_metadata_gets_the_size_last() {
    let assignment = Assignment {
        worker_id: "w".into(),
        attempt_id: "a1".into(),
        task_range_start: 0,
    };
    let metadata = json!({"scope": "shared-process", "participants": ["e2b", "modal"]});
    let body = artifact_body(
        &assignment,
        "system-metrics",
        "application/x-ndjson",
        "metrics.jsonl",
        metadata.as_object().unwrap().clone(),
        12,
    );
    assert_eq!(
        serde_json::to_string(&body).unwrap(),
        r#"{"attemptId":"a1","kind":"system-metrics","contentType":"application/x-ndjson","name":"metrics.jsonl","metadata":{"scope":"shared-process","participants":["e2b","modal"],"sizeBytes":12}}"#
    );
}
