//! What the host spends on each finished task's record, piece by piece: the ISO timestamps
//! (one per event), serialising the record as its `records.ndjson` line, and the summary
//! tally taking its samples — for a no-op task's record and for a task with one step that
//! records one measurement. The whole-process figures are `scripts/bench-overhead.sh`.
//!
//! `cargo bench -p bench-runtime --bench record_path`

use bench_model::js;
use bench_model::plan::RunManifest;
use bench_model::record::{Data, Status, StepRecord, TaskRecord};
use bench_report::tally::RunTally;
use divan::{black_box, Bencher};
use serde_json::json;
use std::time::SystemTime;

fn main() {
    divan::main();
}

/// The two record shapes the overhead targets are set for.
#[derive(Debug, Clone, Copy)]
enum Shape {
    NoOp,
    StepAndMeasure,
}

const SHAPES: [Shape; 2] = [Shape::NoOp, Shape::StepAndMeasure];

fn record(shape: Shape, task_index: u32) -> TaskRecord {
    let at = js::iso_timestamp(SystemTime::now());
    let step = match shape {
        Shape::NoOp => StepRecord {
            name: "task".into(),
            status: Status::Success,
            started_at: Some(at.clone()),
            completed_at: Some(at.clone()),
            latency_ms: Some(0.0),
            duration_us: Some(4.321),
            guest_cpu_us: None,
            concurrency: None,
            timeout_ms: None,
            data: None,
            error_code: Some(None),
            implicit: true,
        },
        Shape::StepAndMeasure => StepRecord {
            name: "work".into(),
            status: Status::Success,
            started_at: Some(at.clone()),
            completed_at: Some(at.clone()),
            latency_ms: Some(0.0),
            duration_us: Some(4.321),
            guest_cpu_us: None,
            concurrency: None,
            timeout_ms: None,
            data: json!({"value": 1}).as_object().cloned(),
            error_code: None,
            implicit: false,
        },
    };
    TaskRecord {
        task_index,
        status: Status::Success,
        started_at: at.clone(),
        error_code: None,
        data: None::<Data>,
        completed_at: at,
        latency_ms: 0.0,
        duration_us: Some(5.678),
        guest_cpu_us: None,
        steps: vec![step],
        arrival: None,
    }
}

/// One `startedAt`/`completedAt` value: a clock read and its RFC 3339 text.
#[divan::bench]
fn iso_timestamp() -> String {
    js::iso_timestamp(black_box(SystemTime::now()))
}

/// A record serialised into a reused buffer, as the results writer does.
#[divan::bench(args = SHAPES)]
fn serialize_record(bencher: Bencher, shape: Shape) {
    let record = record(shape, 41);
    let mut line = Vec::with_capacity(1024);
    bencher.bench_local(|| {
        line.clear();
        serde_json::to_writer(&mut line, black_box(&record)).unwrap();
        line.push(b'\n');
        line.len()
    });
}

/// The summary tally taking one record (the sample columns grow as in a run).
#[divan::bench(args = SHAPES)]
fn tally_record(bencher: Bencher, shape: Shape) {
    let manifest: RunManifest = serde_json::from_str(include_str!(
        "../../../tests/e2e/fixtures/summary-parity/no-op/run.json"
    ))
    .unwrap();
    let mut tally = RunTally::new(&manifest);
    let record = record(shape, 41);
    bencher.bench_local(|| tally.add(black_box("alpha"), black_box(&record)));
}
