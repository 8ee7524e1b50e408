//! The size bounds of the platform API, one source for both sides: `bench serve` refuses
//! what lies past them (400 or 413, naming the bound) and the client checks a run against
//! them before it sends anything ([`check_run`]). Each bound is at least what `bench run`
//! produces — so whatever `bench run` accepts, the server stores — or `bench run` refuses
//! the run at its start with the bound's message.

use super::types::CreateRun;
use bench_report::input::MAX_LINE_BYTES;

/// Most tasks of one participant: what `bench run` plans at most (`iterations` and task
/// indexes are 32-bit).
pub(crate) const MAX_TASKS: u64 = u32::MAX as u64;

/// Most workers one participant's tasks may be split over.
pub(crate) const MAX_WORKERS: u64 = 1_000;

/// Most participants one run may have.
pub(crate) const MAX_PARTICIPANTS: usize = 1_000;

/// Most records one task-results batch may carry (spec §6.1).
pub(crate) const MAX_BATCH_RECORDS: usize = 5_000;

/// Largest JSON body of most routes (a run, a benchmark, a worker's claim…).
pub(crate) const MAX_JSON_BYTES: usize = 1 << 20;

/// Largest body of a task-results batch or a run summary: a record line of the longest
/// `records.ndjson` reads ([`MAX_LINE_BYTES`]) and its envelope.
pub(crate) const MAX_BATCH_BYTES: usize = MAX_LINE_BYTES + (1 << 20);

/// Largest artifact body: the client uploads at most this much of a file, the server
/// accepts no more.
pub(crate) const MAX_ARTIFACT_BYTES: usize = 32 << 20;

/// Refuses a number over its bound: `<field> must be at most <max> (got <value>)`.
pub(crate) fn at_most(field: &str, value: Option<u64>, max: u64) -> Result<(), String> {
    match value {
        Some(value) if value > max => Err(format!("{field} must be at most {max} (got {value})")),
        _ => Ok(()),
    }
}

/// Refuses a `createRun` body the platform would refuse, with the server's message.
pub(crate) fn check_run(body: &CreateRun) -> Result<(), String> {
    at_most("totalTasks", body.total_tasks, MAX_TASKS)?;
    at_most("workerCount", body.worker_count, MAX_WORKERS)?;
    let participants = body.participants.as_ref().map_or(0, Vec::len);
    at_most(
        "participants",
        Some(participants as u64),
        MAX_PARTICIPANTS as u64,
    )?;
    let bytes = serde_json::to_vec(body).map_or(0, |text| text.len());
    at_most("a run's body", Some(bytes as u64), MAX_JSON_BYTES as u64)
        .map_err(|message| format!("{message} bytes"))
}
