//! The delivery ledger, `platform.json` in the results directory: what the platform has
//! acknowledged so far, and the exact batch in flight. Records themselves are only in
//! `records.ndjson`; the ledger says how far each participant's have been delivered, so a
//! later `bench upload` sends the rest — every record exactly once, because a batch is
//! re-sent with the same `sequenceNumber` and the same records.

use super::api::types::{CreateRun, RunSummary, UpsertBenchmark};
use super::client::{Assignment, CreatedRun};
use super::files::{write_atomically, Access};
use anyhow::{Context as _, Result};
use bench_report::input::ResultsDir;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The ledger's file name.
pub(crate) const LEDGER_FILE: &str = "platform.json";

/// One batch of task results, fixed before it is first sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Batch {
    /// Its `sequenceNumber`.
    pub sequence_number: u64,
    /// The participant's records `delivered..end` are in it.
    pub end: usize,
    /// Its `isFinal`.
    pub is_final: bool,
}

/// Where one participant's delivery stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantLedger {
    /// Participant name.
    pub name: String,
    /// Its schedule length.
    pub total_tasks: u64,
    /// Registered in the run (`upsertParticipant` of a shared run; always true otherwise).
    pub registered: bool,
    /// The claimed worker.
    pub assignment: Option<Assignment>,
    /// The claim found no pending worker: this participant's records stay local.
    pub unassigned: bool,
    /// How many of its records (in `records.ndjson` order) the platform acknowledged.
    pub delivered: usize,
    /// `sequenceNumber` of its next new batch.
    pub next_sequence: u64,
    /// The batch sent but not yet acknowledged.
    pub in_flight: Option<Batch>,
    /// Its participant log was uploaded (or there was none).
    pub log_uploaded: bool,
    /// Participant mode: the lines of `metrics.jsonl` taken while it ran.
    pub metrics_lines: Option<(usize, usize)>,
    /// Its system-metrics artifact was uploaded (participant mode).
    pub metrics_uploaded: bool,
    /// Its worker was completed or failed.
    pub closed: bool,
}

impl ParticipantLedger {
    /// A participant nothing was delivered for yet; `registered` is false for shared runs.
    pub fn new(name: &str, total_tasks: u64, shared: bool) -> Self {
        Self {
            name: name.to_owned(),
            total_tasks,
            registered: !shared,
            assignment: None,
            unassigned: false,
            delivered: 0,
            next_sequence: 0,
            in_flight: None,
            log_uploaded: false,
            metrics_lines: None,
            metrics_uploaded: false,
            closed: false,
        }
    }
}

/// Everything needed to deliver one local run, and how far delivery got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    /// The platform the run belongs to.
    pub api_base_url: String,
    /// Benchmark slug.
    pub benchmark_slug: String,
    /// The local run id.
    pub local_run_id: String,
    /// 128 random bits naming this delivery: with the local run id, the root of every
    /// idempotency key, so two runs that share a run id never share a key. Empty in ledgers
    /// written before it existed.
    #[serde(default)]
    pub delivery_id: String,
    /// `participant` or `round`.
    pub group_by: String,
    /// The `upsertBenchmark` body still to send (`None` once sent, or when the identity is
    /// not ours).
    pub upsert: Option<UpsertBenchmark>,
    /// The `createRun` body.
    pub create_run: CreateRun,
    /// The platform run, once created.
    pub run: Option<CreatedRun>,
    /// Per participant, in config order.
    pub participants: Vec<ParticipantLedger>,
    /// Round mode: the shared system-metrics artifact was uploaded.
    pub shared_metrics_uploaded: bool,
    /// The run summary body still to send, once scoring produced one.
    pub summary: Option<RunSummary>,
    /// The run summary was acknowledged.
    pub summary_submitted: bool,
    /// The run had a load model (bench's `executor`): a participant's tasks are what it
    /// recorded, known when it finishes, not a planned count.
    #[serde(default)]
    pub time_bounded: bool,
    /// The run warmed up (`--warmup`): its warm-up records are not tasks of its plan (their
    /// indexes start from 0 on every slot) and are not delivered.
    #[serde(default)]
    pub warmed_up: bool,
}

/// A new delivery id: 128 bits from the operating system's generator, as hex.
pub(crate) fn new_delivery_id() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| anyhow::anyhow!("no random numbers: {error}"))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

impl Ledger {
    /// Whether the run is in round mode.
    pub(crate) fn is_round_mode(&self) -> bool {
        self.group_by == "round"
    }

    /// The ledger path of a results directory.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(LEDGER_FILE)
    }

    /// Reads a results directory's ledger, if it has one.
    pub fn load(dir: &Path) -> Result<Option<Self>> {
        ResultsDir::open(dir)?.read_json(LEDGER_FILE, "a delivery ledger")
    }

    /// Writes the ledger atomically, so a crash leaves either the old or the new state.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let path = Self::path(dir);
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        write_atomically(&path, text.as_bytes(), Access::Shared)
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_ledger_survives_a_save_and_load() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Ledger::load(dir.path()).unwrap(), None);
        let mut participant = ParticipantLedger::new("alpha", 3, true);
        participant.in_flight = Some(Batch {
            sequence_number: 2,
            end: 3,
            is_final: true,
        });
        let ledger = Ledger {
            api_base_url: "http://127.0.0.1:1/api/v1".into(),
            benchmark_slug: "s".into(),
            local_run_id: "20260101T000000Z-0001".into(),
            delivery_id: new_delivery_id().unwrap(),
            group_by: "participant".into(),
            upsert: Some(UpsertBenchmark {
                name: "S".into(),
                config: None,
            }),
            create_run: CreateRun::shared("k", json!({})),
            run: None,
            participants: vec![participant],
            shared_metrics_uploaded: false,
            summary: None,
            summary_submitted: false,
            time_bounded: false,
            warmed_up: false,
        };
        ledger.save(dir.path()).unwrap();
        let back = Ledger::load(dir.path()).unwrap().unwrap();
        assert_eq!(back, ledger);
        assert!(!back.participants[0].registered);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, [LEDGER_FILE], "no temporary file is left");
    }

    #[test]
    fn delivery_ids_are_128_random_bits() {
        let (a, b) = (new_delivery_id().unwrap(), new_delivery_id().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|byte| byte.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
