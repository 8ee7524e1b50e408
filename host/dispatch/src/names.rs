//! The streams, subjects, consumers and bucket a distributed run uses.

/// The work-queue stream of every run's units (`bench.work.<run>.<participant number>`).
pub(crate) const WORK_STREAM: &str = "BENCH_WORK";
/// The stream of every run's record batches and worker notes (`bench.records.<run>`).
pub(crate) const RECORDS_STREAM: &str = "BENCH_RECORDS";
/// The stream of run descriptors, the latest per run (`bench.runs.<run>`).
pub(crate) const RUNS_STREAM: &str = "BENCH_RUNS";
/// The object store bucket of task components, named by their sha256.
pub(crate) const COMPONENTS_BUCKET: &str = "bench-components";

/// The header that says what a message on the records subject is.
pub(crate) const KIND_HEADER: &str = "Bench-Kind";
/// A worker joined a run and names the participants it serves.
pub(crate) const KIND_HELLO: &str = "hello";
/// A worker refused a run (its component did not verify).
pub(crate) const KIND_REFUSAL: &str = "refusal";
/// A batch of records.
pub(crate) const KIND_RECORDS: &str = "records";

pub(crate) fn work_subject(run: &str, participant: usize) -> String {
    format!("bench.work.{run}.{participant}")
}

pub(crate) fn work_consumer(run: &str, participant: usize) -> String {
    format!("work-{run}-{participant}")
}

pub(crate) fn records_subject(run: &str) -> String {
    format!("bench.records.{run}")
}

pub(crate) fn records_consumer(run: &str) -> String {
    format!("records-{run}")
}

pub(crate) fn run_subject(run: &str) -> String {
    format!("bench.runs.{run}")
}
