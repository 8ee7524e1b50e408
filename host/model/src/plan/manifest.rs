//! The run manifest, `run.json`: upstream's `runConfig` (spec §6.2) followed by this run's
//! identity, times, component, host, origin and task counts. Written when the run starts,
//! rewritten when it ends, and read back by `bench report` and `bench upload`.

use super::{LoadManifest, LoadModel, ResolvedRun};
use crate::config::{BenchmarkConfig, Declared, DisplaySection, GroupBy, ScoringSection};
use crate::js;
use crate::plan::InstrumentFloor;
use crate::plan::Shard;
use crate::record::TaskRecord;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What `run.json` holds, in its key order. Optional keys are absent, never `null`; keys
/// it does not know (from other versions) are ignored when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunManifest {
    /// Upstream's `runConfig`, its keys first and at the top level.
    #[serde(flatten)]
    pub run_config: RunConfig,
    /// The config's display manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<Declared<DisplaySection>>,
    /// The local run id (a UUIDv7: sortable by start time, 74 random bits).
    pub run_id: String,
    /// ISO start time.
    pub started_at: String,
    /// The task component that ran.
    pub component: ComponentInfo,
    /// The host that ran it.
    pub host: HostInfo,
    /// Where the run came from; a manifest without one counts as triggered manually.
    #[serde(default)]
    pub origin: Origin,
    /// ISO end time, once the run is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// How many tasks ran and failed, once the run is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<TaskCounts>,
    /// Participants whose log is not `logs/<name>.log` (a name that is not a safe file
    /// name), each with the file that holds it, relative to the results directory.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub log_files: BTreeMap<String, String>,
    /// Whether the run was stopped before its schedule ended (Ctrl-C); written only then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The static shard (`--shard i/N`) this run is; written only then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The load model, when not upstream's (bench's `executor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<LoadManifest>,
    /// `--warmup`: warm-up tasks per slot, recorded in phase `warmup` and left out of the
    /// summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<u32>,
    /// `--shuffle`: the seed of the participant order of every round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shuffle_seed: Option<u64>,
    /// What bench itself costs on the machine that ran it, measured at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instrument_floor: Option<InstrumentFloor>,
}

impl RunManifest {
    /// Marks the run as over at `completed_at` (ISO) with these counts.
    pub fn complete(&mut self, completed_at: String, tasks: TaskCounts) {
        self.completed_at = Some(completed_at);
        self.tasks = Some(tasks);
    }

    /// The text of `run.json`: pretty-printed with a final newline.
    pub fn to_json_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a run manifest serializes");
        text.push('\n');
        text
    }
}

/// Upstream's `runConfig`, JSON-normalized (spec §6.2): the body's `config` in `createRun`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunConfig {
    /// Platform slug.
    pub benchmark_slug: String,
    /// Display name.
    pub benchmark_name: String,
    /// Iterations of every phase, when `--iterations` resized evenly sized phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_iterations: Option<u32>,
    /// The phases, or the plain iteration count.
    #[serde(flatten)]
    pub length: RunLength,
    /// Max tasks in flight.
    pub concurrency: u32,
    /// Ramp delay in milliseconds.
    #[serde(serialize_with = "js::number_serde::serialize")]
    pub stagger_delay_ms: f64,
    /// Ordering across participants.
    pub group_by: GroupBy,
    /// Static tags for summary rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<Map<String, Value>>,
    /// The scoring spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring: Option<Declared<ScoringSection>>,
    /// The participants that run, in config order.
    pub participants: Vec<String>,
}

impl RunConfig {
    /// The `runConfig` of a validated config resolved for this run, with numbers as
    /// JavaScript prints them.
    pub fn new(config: &BenchmarkConfig, resolved: &ResolvedRun, participants: &[String]) -> Self {
        let length = match &config.phases {
            Some(phases) => RunLength::Phases {
                phases: phases
                    .iter()
                    .map(|phase| PhaseLength {
                        name: phase.name.clone(),
                        iterations: resolved.phase_iterations.or(phase.iterations),
                    })
                    .collect(),
            },
            // An arrival-rate run is due to start its arrivals.
            None => RunLength::Iterations {
                iterations: match &resolved.load {
                    LoadModel::ArrivalRate(arrivals) => {
                        u32::try_from(arrivals.profile.expected_tasks()).unwrap_or(u32::MAX)
                    }
                    _ => resolved.iterations,
                },
            },
        };
        Self {
            benchmark_slug: resolved.benchmark_slug.clone(),
            benchmark_name: resolved.benchmark_name.clone(),
            phase_iterations: resolved.phase_iterations,
            length,
            concurrency: resolved.concurrency,
            stagger_delay_ms: resolved.stagger_delay_ms,
            group_by: resolved.group_by,
            dimensions: config.dimensions.clone().map(|mut dimensions| {
                dimensions.values_mut().for_each(js::normalize_numbers);
                dimensions
            }),
            scoring: config
                .scoring
                .clone()
                .map(Declared::with_normalized_numbers),
            participants: participants.to_vec(),
        }
    }

    /// Tasks per participant: `iterations`, or the sum of the phases'.
    pub fn tasks_per_participant(&self) -> u64 {
        match &self.length {
            RunLength::Phases { phases } => phases
                .iter()
                .filter_map(|phase| phase.iterations)
                .map(u64::from)
                .sum(),
            RunLength::Iterations { iterations } => u64::from(*iterations),
        }
    }
}

/// How long a run is: named phases, or a plain iteration count (never both).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RunLength {
    /// `phases: [{name, iterations}]`.
    Phases {
        /// The phases in run order.
        phases: Vec<PhaseLength>,
    },
    /// `iterations`.
    Iterations {
        /// Tasks per participant.
        iterations: u32,
    },
}

/// One phase of the `runConfig`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseLength {
    /// Phase name.
    pub name: String,
    /// Its iterations (`phaseIterations` when set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
}

/// The task component of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentInfo {
    /// Where it was loaded from.
    pub path: String,
    /// sha256 of its bytes, hex.
    pub sha256: String,
    /// Size of its bytes.
    pub size_bytes: u64,
}

/// The host that ran a run: bench and wasmtime versions, Rust's OS and architecture names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostInfo {
    /// The `bench` version.
    pub bench_version: String,
    /// The wasmtime version that ran the guests.
    pub wasmtime_version: String,
    /// `std::env::consts::OS`.
    pub os: String,
    /// `std::env::consts::ARCH`.
    pub arch: String,
}

impl HostInfo {
    /// This process's host, for `bench` at `bench_version` running guests on wasmtime
    /// `wasmtime_version`.
    pub fn current(bench_version: &str, wasmtime_version: &str) -> Self {
        Self {
            bench_version: bench_version.to_owned(),
            wasmtime_version: wasmtime_version.to_owned(),
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
        }
    }
}

/// Where a run came from (spec §4.8): git commit and ref, and what triggered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    /// The commit, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_sha: Option<String>,
    /// The branch or ref, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// The CI event, or `manual` (also when a document leaves it out).
    #[serde(default = "manual_trigger")]
    pub triggered_by: String,
}

/// What triggered a run nobody says triggered.
fn manual_trigger() -> String {
    "manual".into()
}

impl Default for Origin {
    /// A manual run of unknown commit.
    fn default() -> Self {
        Self {
            git_sha: None,
            git_ref: None,
            triggered_by: manual_trigger(),
        }
    }
}

/// How many tasks a run ran and how many of them failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskCounts {
    /// Every record.
    pub total: u64,
    /// Records that are not a success.
    pub failed: u64,
}

impl TaskCounts {
    /// Counts one more record.
    pub fn add(&mut self, record: &TaskRecord) {
        self.total += 1;
        if !record.is_success() {
            self.failed += 1;
        }
    }
}

/// A manifest read from `extra`'s keys laid over a plain run's (no `origin`, no end).
#[cfg(any(test, feature = "test-support"))]
pub fn test_manifest(extra: Value) -> RunManifest {
    let mut manifest = serde_json::json!({
        "benchmarkSlug": "s", "benchmarkName": "n", "iterations": 1, "concurrency": 1,
        "staggerDelayMs": 0, "groupBy": "participant", "participants": ["a"],
        "runId": "20260101T000000Z-0001", "startedAt": "2026-01-01T00:00:00.000Z",
        "component": {"path": "task.wasm", "sha256": "00", "sizeBytes": 1},
        "host": {"benchVersion": "0.1.0", "wasmtimeVersion": "48.0.8", "os": "linux", "arch": "x86_64"},
    });
    for (key, value) in extra.as_object().expect("extra keys are an object") {
        manifest[key] = value.clone();
    }
    serde_json::from_value(manifest).expect("a valid test manifest")
}
