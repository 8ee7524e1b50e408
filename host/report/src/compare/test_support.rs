//! Results directories written for the unit tests.

use crate::results::RECORDS_NDJSON;
use bench_model::plan::test_manifest;
use serde_json::{json, Value};

/// Writes a results directory: `manifest_keys` on top of a test manifest planning a task
/// per record for each participant the records name, and one record per item of
/// `records`, whose keys replace those of a successful task of participant `a` taking 1 ms.
pub(crate) fn results_dir(manifest_keys: Value, records: &[Value]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut participants: Vec<&str> = Vec::new();
    for name in records
        .iter()
        .map(|record| record["participant"].as_str().unwrap_or("a"))
    {
        if !participants.contains(&name) {
            participants.push(name);
        }
    }
    let mut keys = json!({"iterations": records.len().max(1), "participants": participants});
    for (key, value) in manifest_keys.as_object().unwrap() {
        keys[key] = value.clone();
    }
    let manifest = test_manifest(keys);
    std::fs::write(dir.path().join("run.json"), manifest.to_json_text()).unwrap();
    let lines: Vec<String> = records
        .iter()
        .enumerate()
        .map(|(index, record)| {
            let mut line = json!({
                "participant": "a", "taskIndex": index, "status": "success",
                "startedAt": "s", "completedAt": "c", "latencyMs": 1, "steps": [],
            });
            for (key, value) in record.as_object().unwrap() {
                line[key] = value.clone();
            }
            format!("{line}\n")
        })
        .collect();
    std::fs::write(dir.path().join(RECORDS_NDJSON), lines.concat()).unwrap();
    dir
}

/// One record per latency, of `participant`, each with `data`.
pub(crate) fn timed(participant: &str, latencies: &[f64], data: Value) -> Vec<Value> {
    latencies
        .iter()
        .map(|ms| json!({"participant": participant, "latencyMs": ms, "data": data}))
        .collect()
}
