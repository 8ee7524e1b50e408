//! The streams, subjects, consumers, bucket and headers a distributed run uses.

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

/// The message id of a work unit: `<run>/<revision>/<participant #>/<first>/<step>`. A
/// resumed coordinator announces a new revision, so the units it publishes again are new
/// messages, never dropped as duplicates of the ones it replaced.
pub(crate) fn unit_message_id(
    run: &str,
    revision: u64,
    participant: usize,
    first: u32,
    step: u32,
) -> String {
    format!("{run}/{revision}/{participant}/{first}/{step}")
}

/// The message id of a record batch: `<run>/<participant #>/<first>-<last taskIndex>/
/// <delivery attempt>/<nonce>`. It names the batch's exact tasks, so JetStream drops a
/// batch only when it is the same batch sent again (a retried publish of one delivery);
/// the nonce, drawn per delivery, makes it unpredictable to anyone else.
pub(crate) fn batch_message_id(
    run: &str,
    participant: usize,
    (first, last): (u32, u32),
    attempt: i64,
    nonce: u64,
) -> String {
    format!("{run}/{participant}/{first}-{last}/{attempt}/{nonce:016x}")
}

/// The run, participant number and task range a batch's message id names (`None` when it
/// is not one).
pub(crate) fn batch_id_parts(id: &str) -> Option<(&str, usize, (u32, u32))> {
    let mut parts = id.split('/');
    let (run, participant, range, attempt, nonce) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if parts.next().is_some() || attempt.parse::<u32>().is_err() || nonce.len() != 16 {
        return None;
    }
    let (first, last) = range.split_once('-')?;
    Some((
        run,
        participant.parse().ok()?,
        (first.parse().ok()?, last.parse().ok()?),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_s_message_id_names_its_exact_tasks() {
        let id = batch_message_id("r1", 2, (64, 127), 3, 0xab);
        assert_eq!(id, "r1/2/64-127/3/00000000000000ab");
        assert_eq!(batch_id_parts(&id), Some(("r1", 2, (64, 127))));
        for bad in [
            "r1/2/64",
            "r1/2/64-127/3/ab",
            "r1/x/1-2/1/00000000000000ab",
            "r1/2/1-2/1/00000000000000ab/x",
        ] {
            assert_eq!(batch_id_parts(bad), None, "{bad}");
        }
        assert_eq!(unit_message_id("r1", 7, 0, 1, 3), "r1/7/0/1/3");
    }
}
