//! End-to-end: load models. An arrival-rate run starts its tasks on the rate's grid; when
//! the target stalls, the open model's response time shows it while a closed loop hides it;
//! arrivals with no free sandbox are dropped and counted, as are those past the host memory
//! budget (the sandbox that could not open fails once); ramping stages start the planned
//! count per stage; warm-up records are kept but not summarized; `--shuffle` changes the
//! round order and a seed repeats it; an uploaded arrival-rate run is complete with the
//! tasks it started; the records carry their start lag and stalled arrivals (the
//! process paused by the test) shows as late starts in the summary and a warning. The
//! latency is the test's: the `sleeper` guest's `--sleep-ms`, or a local HTTP server the
//! test stalls on purpose.

use crate::budgets::assert_unopened_past_the_budget;
use crate::support::{
    bench::{bench, run_bench, run_command, Run},
    guests::test_guest,
    platform::{platform_bench, run_id, Server},
    results::{read_json, records},
};
use chrono::DateTime;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Runs `guest` with `args` into `dir/out`, expecting success.
fn run_guest(guest: &str, dir: &Path, out: &str, args: &[&str]) -> (Run, PathBuf) {
    let wasm = test_guest(guest);
    let mut all = vec!["run", wasm.to_str().unwrap(), "--out", out];
    all.extend_from_slice(args);
    let run = run_bench(dir, &all);
    assert_eq!(
        run.code,
        Some(0),
        "stdout: {}\nstderr: {}",
        run.stdout,
        run.stderr
    );
    (run, dir.join(out))
}

/// Milliseconds since the epoch of an ISO timestamp.
fn epoch_ms(iso: &Value) -> i64 {
    DateTime::parse_from_rfc3339(iso.as_str().expect("an ISO time"))
        .expect("an RFC 3339 time")
        .timestamp_millis()
}

/// The summary's statistics of `metric` for the first participant.
fn metric(summary: &Value, name: &str) -> Value {
    summary["participants"][0]["metrics"]
        .as_array()
        .expect("metrics")
        .iter()
        .find(|metric| metric["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {summary}"))
        .clone()
}

/// The intended start of every record, in ms after the first, in task order.
fn intended_offsets(records: &[Value]) -> Vec<(u64, i64)> {
    let mut intended: Vec<(u64, i64)> = records
        .iter()
        .map(|record| {
            let index = record["taskIndex"].as_u64().unwrap();
            (index, epoch_ms(&record["arrival"]["intendedStartAt"]))
        })
        .collect();
    intended.sort();
    let first = intended[0].1;
    intended.iter().map(|(i, at)| (*i, at - first)).collect()
}

#[test]
fn a_constant_rate_starts_its_tasks_on_the_grid() {
    let dir = TempDir::new().unwrap();
    let args = [
        "--rate",
        "100/s",
        "--duration",
        "3s",
        "--pre-allocated",
        "4",
        "--max-sandboxes",
        "40",
        "--sleep-ms",
        "2",
    ];
    let (run, out) = run_guest("sleeper", dir.path(), "rate", &args);
    assert!(
        run.stdout.contains(
            "Load: constant-arrival-rate 100/s for 3s: 300 tasks per participant (open model), 4 to 40 sandboxes"
        ),
        "{}",
        run.stdout
    );
    let records = records(&out);
    assert!(
        (291..=309).contains(&records.len()),
        "≈300 tasks: {}",
        records.len()
    );
    // Every task was due on the 10 ms grid (timestamps have whole milliseconds).
    for (index, offset) in intended_offsets(&records) {
        let due = 10 * index as i64;
        assert!((offset - due).abs() <= 1, "task {index} due at {offset} ms");
    }
    let mut lags: Vec<f64> = records
        .iter()
        .map(|record| record["arrival"]["startLagMs"].as_f64().unwrap())
        .collect();
    lags.sort_by(f64::total_cmp);
    assert!(lags[lags.len() / 2] < 10.0, "median start lag {lags:?}");
    let summary = read_json(&out.join("summary.json"));
    let load = &summary["load"]["participants"][0];
    assert_eq!(load["intended"], 300);
    assert_eq!(load["dropped"], 0);
    assert_eq!(load["started"], records.len());
}

#[test]
fn start_lags_are_recorded_and_stalled_arrivals_are_reported() {
    let dir = TempDir::new().unwrap();
    let wasm = test_guest("sleeper");
    let out = dir.path().join("stalled");
    let child = bench(dir.path())
        .args([
            "run",
            wasm.to_str().unwrap(),
            "--out",
            "stalled",
            "--rate",
            "200/s",
        ])
        .args([
            "--duration",
            "2s",
            "--pre-allocated",
            "4",
            "--max-sandboxes",
            "100",
        ])
        .args(["--sleep-ms", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once arrivals are under way, stop the whole process (its arrival clock with it)
    // for 300 ms.
    let under_way = Instant::now();
    while std::fs::read_to_string(out.join("records.ndjson")).map_or(0, |text| text.lines().count())
        < 20
    {
        assert!(under_way.elapsed() < Duration::from_secs(120), "no records");
        std::thread::sleep(Duration::from_millis(5));
    }
    let signal = |name: &str| {
        let sent = std::process::Command::new("kill")
            .args([name, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    };
    signal("-STOP");
    std::thread::sleep(Duration::from_millis(300));
    signal("-CONT");
    let run = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    let lags: Vec<f64> = records(&out)
        .iter()
        .map(|record| {
            record["arrival"]["startLagMs"]
                .as_f64()
                .expect("a start lag")
        })
        .collect();
    let worst = lags.iter().copied().fold(0.0, f64::max);
    assert!(worst >= 250.0, "the pause shows in the lags: {worst}");
    let load = &read_json(&out.join("summary.json"))["load"]["participants"][0];
    assert_eq!(load["startLagMs"]["max"].as_f64(), Some(worst), "{load}");
    let late = load["lateStarts"].as_u64().unwrap();
    assert_eq!(late, lags.iter().filter(|lag| **lag > 10.0).count() as u64);
    assert!(
        late > 0 && load["startLagMs"]["p50"].as_f64().unwrap() < 10.0,
        "{load}"
    );
    assert!(stdout.contains("; start lag p50 "), "{stdout}");
    assert!(
        stderr.contains(&format!(
            "Warning: local: {late} of {} tasks started more than 10 ms after they were due (up to {} ms late)",
            lags.len(),
            js_number(worst),
        )),
        "{stderr}"
    );
    let floor = &read_json(&out.join("run.json"))["instrumentFloor"];
    assert!(floor["arrivalLagNs"].as_f64().unwrap() > 0.0, "{floor}");
}

/// A number as the console prints it (JavaScript's `String(n)` for these values).
fn js_number(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        value.to_string()
    }
}

/// A loopback HTTP/1.1 server that stalls for a second: a request that arrives between 1 s
/// and 2 s after the first one is answered a second late.
struct StallingServer {
    port: u16,
}

impl StallingServer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let first: Arc<OnceLock<Instant>> = Arc::default();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let first = first.clone();
                std::thread::spawn(move || serve(stream, &first));
            }
        });
        Self { port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    fn allow(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

fn serve(stream: TcpStream, first: &OnceLock<Instant>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                break;
            }
        }
        let since_first = first.get_or_init(Instant::now).elapsed();
        if (Duration::from_secs(1)..Duration::from_secs(2)).contains(&since_first) {
            std::thread::sleep(Duration::from_secs(1));
        }
        if writer
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            .is_err()
        {
            return;
        }
    }
}

#[test]
fn a_stall_shows_in_the_open_model_response_time_and_hides_in_a_closed_loop() {
    let dir = TempDir::new().unwrap();
    let server = StallingServer::start();
    let (url, allow) = (server.url(), server.allow());
    let target = [
        "--provider",
        "client",
        "--urls",
        &url,
        "--allow-host",
        &allow,
    ];
    let mut open = vec![
        "--rate",
        "100/s",
        "--duration",
        "3s",
        "--pre-allocated",
        "20",
        "--max-sandboxes",
        "200",
    ];
    open.extend(target);
    let (_, out) = run_guest("http-client", dir.path(), "open", &open);
    let summary = read_json(&out.join("summary.json"));
    let response = metric(&summary, "responseTimeMs");
    assert!(
        response["p99"].as_f64().unwrap() >= 1000.0,
        "the stall shows in the response time: {response}"
    );
    assert_eq!(summary["load"]["participants"][0]["dropped"], 0);

    // The same scenario in a closed loop: the one request in the stall holds the loop, the
    // tasks that were not sent meanwhile are never measured.
    let server = StallingServer::start();
    let (url, allow) = (server.url(), server.allow());
    let mut closed = vec!["--duration", "3s", "--concurrency", "1"];
    closed.extend([
        "--provider",
        "client",
        "--urls",
        &url,
        "--allow-host",
        &allow,
    ]);
    let (_, out) = run_guest("http-client", dir.path(), "closed", &closed);
    let summary = read_json(&out.join("summary.json"));
    let latency = metric(&summary, "latencyMs");
    assert!(
        latency["samples"].as_u64().unwrap() > 100,
        "enough tasks for a p99: {latency}"
    );
    assert!(
        latency["p99"].as_f64().unwrap() < 1000.0,
        "the closed loop hides the stall: {latency}"
    );
    let slowest = records(&out)
        .iter()
        .map(|record| record["latencyMs"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(slowest >= 1000.0, "yet one task did stall: {slowest}");
}

/// The `sleeper` guest at 50 arrivals/s for 1 s, 100 ms a task, one sandbox pre-allocated,
/// with `extra` flags.
fn run_sleepers_at_50_per_second(dir: &Path, out: &str, extra: &[&str]) -> (Run, PathBuf) {
    let mut args = vec![
        "--rate",
        "50/s",
        "--duration",
        "1s",
        "--pre-allocated",
        "1",
        "--sleep-ms",
        "100",
    ];
    args.extend_from_slice(extra);
    run_guest("sleeper", dir, out, &args)
}

/// The one participant's `load` summary and its started and dropped counts.
fn started_and_dropped(out: &Path) -> (Value, u64, u64) {
    let summary = read_json(&out.join("summary.json"));
    let load = summary["load"]["participants"][0].clone();
    let (started, dropped) = (
        load["started"].as_u64().unwrap(),
        load["dropped"].as_u64().unwrap(),
    );
    (load, started, dropped)
}

#[test]
fn arrivals_without_a_free_sandbox_are_dropped_and_counted() {
    let dir = TempDir::new().unwrap();
    let (run, out) =
        run_sleepers_at_50_per_second(dir.path(), "dropped", &["--max-sandboxes", "2"]);
    let (load, started, dropped) = started_and_dropped(&out);
    assert!(
        dropped >= 20,
        "two 100 ms sandboxes cannot take 50/s: {load}"
    );
    assert_eq!(started + dropped, 50, "{load}");
    assert_eq!(records(&out).len() as u64, started);
    let manifest = read_json(&out.join("run.json"));
    assert_eq!(manifest["load"]["dropped"]["local"], dropped);
    assert!(
        run.stdout.contains(&format!(
            "local: {started} of 50 tasks started, {dropped} dropped"
        )),
        "{}",
        run.stdout
    );
}

#[test]
fn past_the_host_memory_budget_arrivals_are_dropped_not_each_failed() {
    // 50/s of 100 ms tasks needs five sandboxes; 2 MiB of host memory holds one (a
    // sandbox's linear memory is about 1.1 MiB).
    let dir = TempDir::new().unwrap();
    let budget = ["--max-sandboxes", "10", "--max-host-memory", "2MiB"];
    let (_, out) = run_sleepers_at_50_per_second(dir.path(), "budget", &budget);
    let (load, started, dropped) = started_and_dropped(&out);
    assert_eq!(started + dropped, 50, "{load}");
    assert!(dropped >= 25, "one sandbox cannot take 50/s: {load}");
    let all = records(&out);
    let failed: Vec<&Value> = all.iter().filter(|r| r["status"] != "success").collect();
    // Once one sandbox is open, a pacer opens no other past the budget; one that tries before
    // (and fails) opens no more: at most one failure per pacer (one per slot thread).
    let pacers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(10);
    assert!(
        failed.len() <= pacers,
        "{} failed of {} started",
        failed.len(),
        all.len()
    );
    let failed_count = failed.len();
    for record in failed {
        assert_unopened_past_the_budget(record, 2 << 20);
    }
    assert!(
        all.len() - failed_count >= 5,
        "the sandbox that opened kept working: {failed_count} failed of {}",
        all.len()
    );
}

#[test]
fn ramping_stages_start_the_planned_count_per_stage() {
    let dir = TempDir::new().unwrap();
    let stages = [
        "--stages",
        "1s:20/s,1s:20/s,1s:0/s",
        "--max-sandboxes",
        "20",
    ];
    let wasm = test_guest("sleeper");
    let mut check = vec!["check", wasm.to_str().unwrap()];
    check.extend(stages);
    let plan = run_bench(dir.path(), &check);
    assert!(
        plan.stdout.contains(
            "ramping-arrival-rate from 0/s through 1s:20/s,1s:20/s,1s:0/s (10+20+10 per stage, peak 20/s): 40 tasks per participant"
        ),
        "{}",
        plan.stdout
    );
    let mut args = stages.to_vec();
    args.extend(["--sleep-ms", "1"]);
    let (_, out) = run_guest("sleeper", dir.path(), "ramp", &args);
    let offsets = intended_offsets(&records(&out));
    let in_stage = |from: i64, to: i64| {
        offsets
            .iter()
            .filter(|(_, at)| (from..to).contains(at))
            .count()
    };
    assert_eq!(
        [
            in_stage(0, 1000),
            in_stage(1000, 2000),
            in_stage(2000, 3000)
        ],
        [10, 20, 10],
        "{offsets:?}"
    );
}

#[test]
fn warm_up_records_are_kept_but_left_out_of_the_summary() {
    let dir = TempDir::new().unwrap();
    let args = ["--iterations", "5", "--warmup", "2", "--sleep-ms", "1"];
    let (_, out) = run_guest("sleeper", dir.path(), "warm", &args);
    let records = records(&out);
    let warm = records
        .iter()
        .filter(|record| record["data"]["phase"] == "warmup")
        .count();
    assert_eq!((records.len(), warm), (7, 2));
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["participants"][0]["tasks"], 5);
    assert_eq!(metric(&summary, "latencyMs")["samples"], 5);
    let manifest = read_json(&out.join("run.json"));
    assert_eq!(manifest["warmup"], 2);
    assert_eq!(manifest["tasks"]["total"], 5);
}

/// The participant order of each round of a shuffled round-mode run.
fn round_orders(dir: &Path, out: &str, seed: &str) -> (Run, Vec<Vec<String>>) {
    let args = [
        "--provider",
        "p000,p001,p002,p003,p004,p005",
        "--group-by",
        "round",
        "--iterations",
        "4",
        seed,
    ];
    let (run, out) = run_guest("crowd", dir, out, &args);
    let mut rounds: Vec<Vec<String>> = vec![Vec::new(); 4];
    // One task at a time: records are written in the order the tasks ran.
    for record in records(&out) {
        let round = record["taskIndex"].as_u64().unwrap() as usize;
        rounds[round].push(record["participant"].as_str().unwrap().to_owned());
    }
    (run, rounds)
}

#[test]
fn a_shuffle_changes_the_round_order_and_its_seed_repeats_it() {
    let dir = TempDir::new().unwrap();
    let (run, first) = round_orders(dir.path(), "a", "--shuffle=11");
    assert!(
        run.stdout.contains("(seed 11; --shuffle=11 repeats it)"),
        "{}",
        run.stdout
    );
    assert!(
        first.windows(2).any(|pair| pair[0] != pair[1]),
        "the order differs between rounds: {first:?}"
    );
    let (_, again) = round_orders(dir.path(), "b", "--shuffle=11");
    assert_eq!(first, again, "the same seed, the same orders");
    let (_, other) = round_orders(dir.path(), "c", "--shuffle=12");
    assert_ne!(first, other);
    assert_eq!(read_json(&dir.path().join("a/run.json"))["shuffleSeed"], 11);
}

#[test]
fn an_uploaded_arrival_rate_run_is_complete_with_the_tasks_it_started() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let args = [
        "--rate",
        "50/s",
        "--duration",
        "1s",
        "--pre-allocated",
        "1",
        "--max-sandboxes",
        "2",
        "--sleep-ms",
        "100",
    ];
    let (_, out) = run_guest("sleeper", dir.path(), "results", &args);
    let started = records(&out).len();
    assert!(started < 50, "some arrivals were dropped: {started}");
    let upload = run_command(
        platform_bench(dir.path(), &server.url(), &server.key).args(["upload", "results"]),
    );
    assert_eq!(upload.code, Some(0), "{}\n{}", upload.stdout, upload.stderr);
    assert!(!upload.stderr.contains("missing"), "{}", upload.stderr);
    let id = run_id(&upload);
    assert_eq!(server.records("sleeper", &id).len(), started);
    let (_, workers) = server.get(&format!(
        "/benchmarks/sleeper/runs/{id}/participants/local/workers"
    ));
    let worker = &workers["items"][0];
    assert_eq!(worker["status"], "completed", "{worker}");
}
