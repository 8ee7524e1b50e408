//! Reading what a run wrote: records, steps, JSON files and participant logs.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The records of a results directory, as JSON.
pub(crate) fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("records.ndjson"))
        .expect("records.ndjson exists")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

/// (participant, taskIndex) → how many records, and worker → how many records (a
/// distributed run's).
/// The records of one `bench run` of `task` (a component or a project) with `args`, every
/// task allowed to fail; the run must exit 0.
pub(crate) fn run_records(task: &Path, args: &[&str]) -> Vec<Value> {
    let dir = tempfile::TempDir::new().unwrap();
    let mut full = vec![
        "run",
        task.to_str().unwrap(),
        "--out",
        "results",
        "--allow-all-failed",
    ];
    full.extend_from_slice(args);
    let run = super::bench::run_bench(dir.path(), &full);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    records(&dir.path().join("results"))
}

pub(crate) fn task_tally(dir: &Path) -> (BTreeMap<(String, u64), usize>, BTreeMap<String, usize>) {
    let mut tasks = BTreeMap::new();
    let mut workers = BTreeMap::new();
    for record in records(dir) {
        let key = (
            record["participant"].as_str().unwrap().to_owned(),
            record["taskIndex"].as_u64().unwrap(),
        );
        *tasks.entry(key).or_default() += 1;
        let worker = record["worker"].as_str().unwrap_or("(none)").to_owned();
        *workers.entry(worker).or_default() += 1;
    }
    (tasks, workers)
}

/// The records of one participant, sorted by task index.
pub(crate) fn records_of(dir: &Path, participant: &str) -> Vec<Value> {
    let mut records: Vec<Value> = records(dir)
        .into_iter()
        .filter(|record| record["participant"] == participant)
        .collect();
    records.sort_by_key(|record| record["taskIndex"].as_u64());
    records
}

/// Step names of a record, in order.
pub(crate) fn step_names(record: &Value) -> Vec<&str> {
    record["steps"]
        .as_array()
        .expect("steps array")
        .iter()
        .map(|step| step["name"].as_str().expect("step name"))
        .collect()
}

/// The step called `name` in a record.
pub(crate) fn step<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["steps"]
        .as_array()
        .expect("steps array")
        .iter()
        .find(|step| step["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {record}"))
}

/// A JSON file, parsed.
pub(crate) fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The lines of a participant log without their timestamps (none when no log was written).
pub(crate) fn log_lines(results: &Path, participant: &str) -> Vec<String> {
    let log = std::fs::read_to_string(results.join("logs").join(format!("{participant}.log")))
        .unwrap_or_default();
    log.lines()
        .map(|line| match line.split_once(' ') {
            Some((stamp, rest)) if stamp.ends_with('Z') => rest.to_owned(),
            _ => line.to_owned(),
        })
        .collect()
}
