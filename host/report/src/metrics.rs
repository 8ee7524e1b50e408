//! System metrics (spec §7): samples of this process and its host, read from `/proc` and the
//! cgroup files, written to `metrics.jsonl` in the results directory (one compact JSON
//! object per line) and uploaded as the platform's `system-metrics` artifact.
//!
//! Node-only fields keep their key with a `null` value (`memHeapUsedMb`, `memHeapTotalMb`,
//! `memExternalMb`); the event-loop fields measure how late a 20 ms tokio timer fires, the
//! closest analogue of Node's event-loop delay histogram.

use crate::disk_budget::DiskBudget;
use crate::files;
use anyhow::Result;
use bench_model::config::GroupBy;
use bench_model::events::{RunEvent, RunObserver};
use bench_model::js;
use bench_model::machine::{
    cgroup_cpu_limit_cores, cgroup_mem_limit_bytes, cgroup_paths, meminfo_mb,
};
use serde_json::{json, Map, Value};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// The local file the samples go to.
pub const METRICS_FILE: &str = "metrics.jsonl";

/// Resolution of the event-loop delay probe.
const PROBE_INTERVAL: Duration = Duration::from_millis(20);

/// Least time between two samples a participant's start or end asks for: however many
/// participants a run has, the one sampler of the process takes at most ten samples a
/// second for them.
const MIN_PARTICIPANT_SAMPLE_GAP: Duration = Duration::from_millis(100);

/// Microseconds per clock tick (`CLK_TCK` assumed 100, as upstream).
const US_PER_TICK: u64 = 10_000;

/// Takes samples relative to the moment it was created.
pub(crate) struct Collector {
    started: Instant,
    cpu_baseline: (u64, u64),
    host_baseline: Option<Vec<u64>>,
    cgroup_mem_limit_mb: Option<f64>,
    cgroup_cpu_limit_cores: Option<f64>,
    delays_ns: Arc<Mutex<Vec<u64>>>,
    probe: tokio::task::JoinHandle<()>,
}

impl Collector {
    /// Starts collecting: reads the baselines and starts the delay probe on the current
    /// tokio runtime.
    pub(crate) fn start() -> Self {
        let delays_ns = Arc::new(Mutex::new(Vec::new()));
        let probe_delays = delays_ns.clone();
        let probe = tokio::spawn(async move {
            loop {
                let due = Instant::now() + PROBE_INTERVAL;
                tokio::time::sleep_until(due.into()).await;
                let late = Instant::now().saturating_duration_since(due);
                if let Ok(mut delays) = probe_delays.lock() {
                    delays.push(late.as_nanos() as u64);
                }
            }
        });
        let cgroups = read("/proc/self/cgroup").map(|text| cgroup_paths(&text));
        Self {
            started: Instant::now(),
            cpu_baseline: process_cpu_ticks().unwrap_or_default(),
            host_baseline: read("/proc/stat").and_then(|text| host_cpu_columns(&text)),
            cgroup_mem_limit_mb: cgroups
                .as_ref()
                .and_then(|c| cgroup_mem_limit_bytes(c, Path::new("/sys/fs/cgroup")))
                .map(|bytes| js::math_round(bytes / 1024.0 / 1024.0)),
            cgroup_cpu_limit_cores: cgroups
                .as_ref()
                .and_then(|c| cgroup_cpu_limit_cores(c, Path::new("/sys/fs/cgroup"))),
            delays_ns,
            probe,
        }
    }

    /// One sample, keys in upstream order; resets the delay histogram.
    pub(crate) fn sample(&self) -> Value {
        let (user, system) = process_cpu_ticks().unwrap_or(self.cpu_baseline);
        let delays = self
            .delays_ns
            .lock()
            .map(|mut delays| std::mem::take(&mut *delays))
            .unwrap_or_default();
        let (p50, p99, max) = delay_stats(delays);
        let load: Vec<f64> = read("/proc/loadavg")
            .map(|text| {
                text.split_whitespace()
                    .take(3)
                    .filter_map(|x| x.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        let meminfo = read("/proc/meminfo").map(|text| meminfo_mb(&text));
        let host = self.host_baseline.as_ref().and_then(|base| {
            let now = host_cpu_columns(&read("/proc/stat")?)?;
            host_cpu_delta(base, &now)
        });
        let mut sample = Map::new();
        let mut put = |key: &str, value: Value| {
            sample.insert(key.to_owned(), value);
        };
        put("ts", json!(js::iso_timestamp(SystemTime::now())));
        put("uptimeMs", json!(self.started.elapsed().as_millis() as u64));
        put(
            "cpuUserUs",
            json!(user.saturating_sub(self.cpu_baseline.0) * US_PER_TICK),
        );
        put(
            "cpuSystemUs",
            json!(system.saturating_sub(self.cpu_baseline.1) * US_PER_TICK),
        );
        put(
            "memRssMb",
            opt(rss_bytes().map(|b| js::math_round(b / 1048576.0))),
        );
        put("memHeapUsedMb", Value::Null);
        put("memHeapTotalMb", Value::Null);
        put("memExternalMb", Value::Null);
        put("eventLoopP50Ms", js::number(p50));
        put("eventLoopP99Ms", js::number(p99));
        put("eventLoopMaxMs", js::number(max));
        for (index, key) in ["loadavg1m", "loadavg5m", "loadavg15m"].iter().enumerate() {
            put(key, js::number(load.get(index).copied().unwrap_or(0.0)));
        }
        put(
            "openFds",
            opt(std::fs::read_dir("/proc/self/fd")
                .ok()
                .map(|dir| dir.count() as f64)),
        );
        put(
            "sockstat",
            read("/proc/net/sockstat").map_or(Value::Null, |text| Value::Object(sockstat(&text))),
        );
        let (total, available) = meminfo.flatten().unzip();
        put("hostMemTotalMb", opt(total));
        put("hostMemAvailableMb", opt(available));
        let (used, total) = host.unzip();
        put("hostCpuUsedUs", opt(used));
        put("hostCpuTotalUs", opt(total));
        put("cgroupMemLimitMb", opt(self.cgroup_mem_limit_mb));
        put("cgroupCpuLimitCores", opt(self.cgroup_cpu_limit_cores));
        Value::Object(sample)
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        self.probe.abort();
    }
}

/// The one sampler of a run's process, writing `metrics.jsonl`: at the start, every
/// `interval` (participant mode) or after every round (round mode), and when the run ends
/// ([`MetricsRecorder::sample`]); a participant's start and end add a sample only when the
/// last one is at least [`MIN_PARTICIPANT_SAMPLE_GAP`] old, so a run of many short
/// participants is not spent reading `/proc`. Cheap to clone; clones share the file.
#[derive(Clone)]
pub struct MetricsRecorder {
    inner: Arc<Mutex<Recorder>>,
}

struct Recorder {
    collector: Collector,
    file: File,
    path: PathBuf,
    budget: Arc<DiskBudget>,
    lines: usize,
    last_sample: Instant,
    /// Round mode: participants per round and tasks finished so far.
    round_width: usize,
    finished_tasks: usize,
}

impl MetricsRecorder {
    /// Creates `metrics.jsonl` in `dir` (appending to one a resumed run wrote), takes the
    /// baseline sample and, when `interval` is
    /// non-zero, samples every `interval` for as long as the recorder (or a clone) lives;
    /// what it writes counts against the run's disk `budget`.
    pub fn start(dir: &Path, interval: Duration, budget: Arc<DiskBudget>) -> Result<Self> {
        let path = dir.join(METRICS_FILE);
        let file = files::append(&path)?;
        let recorder = Self {
            inner: Arc::new(Mutex::new(Recorder {
                collector: Collector::start(),
                file,
                path,
                budget,
                lines: 0,
                last_sample: Instant::now(),
                round_width: 0,
                finished_tasks: 0,
            })),
        };
        recorder.sample();
        if !interval.is_zero() {
            let weak = Arc::downgrade(&recorder.inner);
            tokio::spawn(async move {
                let mut ticks = tokio::time::interval(interval);
                ticks.tick().await;
                loop {
                    ticks.tick().await;
                    let Some(shared) = weak.upgrade() else { break };
                    if let Ok(mut inner) = shared.lock() {
                        inner.sample();
                    };
                }
            });
        }
        Ok(recorder)
    }

    /// The periodic sampling interval: in participant mode `BENCHMARK_METRICS_INTERVAL_MS`
    /// (an integer >= 0, 0 disables), default 30 s; none in round mode (it samples after
    /// every round).
    pub fn interval(group_by: GroupBy) -> Duration {
        if group_by == GroupBy::Round {
            return Duration::ZERO;
        }
        let ms = std::env::var("BENCHMARK_METRICS_INTERVAL_MS")
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok())
            .unwrap_or(30_000);
        Duration::from_millis(ms)
    }

    /// Takes one sample now.
    pub fn sample(&self) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.sample();
        }
    }

    /// How many samples `metrics.jsonl` holds.
    pub fn lines(&self) -> usize {
        self.inner.lock().map(|inner| inner.lines).unwrap_or(0)
    }
}

impl Recorder {
    fn sample(&mut self) {
        let line = self.collector.sample().to_string();
        if writeln!(self.file, "{line}").is_err() {
            eprintln!("[bench] cannot write {}", self.path.display());
        }
        self.budget.charge(line.len() as u64 + 1);
        self.lines += 1;
        self.last_sample = Instant::now();
    }

    /// Samples unless the last sample is younger than [`MIN_PARTICIPANT_SAMPLE_GAP`].
    fn sample_unless_recent(&mut self) {
        if self.last_sample.elapsed() >= MIN_PARTICIPANT_SAMPLE_GAP {
            self.sample();
        }
    }
}

impl RunObserver for MetricsRecorder {
    /// Samples when a participant starts and finishes (unless a sample was just taken), and
    /// in round mode after every round.
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        match event {
            RunEvent::ParticipantStarted { .. } | RunEvent::ParticipantFinished { .. } => {
                if let Ok(mut inner) = self.inner.lock() {
                    inner.sample_unless_recent();
                }
            }
            RunEvent::TaskFinished { .. } => {
                if let Ok(mut inner) = self.inner.lock() {
                    inner.finished_tasks += 1;
                    if inner.round_width > 0 && inner.finished_tasks % inner.round_width == 0 {
                        inner.sample();
                    }
                }
            }
            RunEvent::RoundsStarted { participants, .. } => {
                if let Ok(mut inner) = self.inner.lock() {
                    inner.round_width = participants;
                }
            }
            RunEvent::TaskDropped { .. }
            | RunEvent::RoundParticipantFinished { .. }
            | RunEvent::Flush => {}
        }
        Ok(())
    }
}

fn opt(value: Option<f64>) -> Value {
    value.map_or(Value::Null, js::number)
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// `utime` and `stime` of this process, in clock ticks.
fn process_cpu_ticks() -> Option<(u64, u64)> {
    let stat = read("/proc/self/stat")?;
    // The command name may contain spaces: fields are counted after its closing `)`.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some((fields.get(11)?.parse().ok()?, fields.get(12)?.parse().ok()?))
}

fn rss_bytes() -> Option<f64> {
    let status = read("/proc/self/status")?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// p50, p99 and max of the probe delays, in milliseconds (0 without samples).
fn delay_stats(mut delays_ns: Vec<u64>) -> (f64, f64, f64) {
    if delays_ns.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    delays_ns.sort_unstable();
    let at = |p: f64| {
        let rank = ((p / 100.0) * delays_ns.len() as f64).ceil() as usize;
        delays_ns[rank.saturating_sub(1).min(delays_ns.len() - 1)] as f64 / 1e6
    };
    (
        at(50.0),
        at(99.0),
        *delays_ns.last().unwrap_or(&0) as f64 / 1e6,
    )
}

/// `/proc/net/sockstat`: `Section: k v k v` → `<section>_<k>` → integer.
fn sockstat(text: &str) -> Map<String, Value> {
    let mut out = Map::new();
    for line in text.lines() {
        let Some((section, rest)) = line.split_once(':') else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        for pair in words.chunks(2) {
            if let [key, value] = pair {
                if let Ok(value) = value.parse::<i64>() {
                    let key = format!("{}_{key}", section.trim().to_lowercase());
                    out.insert(key, json!(value));
                }
            }
        }
    }
    out
}

/// The columns of the aggregate `cpu ` line of `/proc/stat`, in jiffies.
fn host_cpu_columns(text: &str) -> Option<Vec<u64>> {
    let line = text.lines().find(|line| line.starts_with("cpu "))?;
    line.split_whitespace()
        .skip(1)
        .map(|x| x.parse().ok())
        .collect()
}

/// Used and total host CPU µs between two `/proc/stat` readings; used = user + nice +
/// system + irq + softirq + steal, total = every column.
fn host_cpu_delta(before: &[u64], now: &[u64]) -> Option<(f64, f64)> {
    if before.len() != now.len() || now.len() < 8 {
        return None;
    }
    let delta: Vec<u64> = now
        .iter()
        .zip(before)
        .map(|(n, b)| n.saturating_sub(*b))
        .collect();
    let used = [0, 1, 2, 5, 6, 7].iter().map(|&i| delta[i]).sum::<u64>();
    let total = delta.iter().sum::<u64>();
    Some(((used * US_PER_TICK) as f64, (total * US_PER_TICK) as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockstat_keys_are_section_prefixed() {
        let text = "sockets: used 153\nTCP: inuse 5 orphan 0 tw 2 alloc 9 mem 1\nUDP: inuse 1 mem 0\nFRAG: inuse 0 memory 0\n";
        let map = sockstat(text);
        assert_eq!(map["sockets_used"], 153);
        assert_eq!(map["tcp_inuse"], 5);
        assert_eq!(map["tcp_tw"], 2);
        assert_eq!(map["udp_mem"], 0);
        assert_eq!(map["frag_memory"], 0);
    }

    #[test]
    fn host_cpu_counts_busy_columns_including_steal() {
        let before = host_cpu_columns("cpu  10 0 5 100 2 1 1 0 0 0\ncpu0 1 1 1 1\n").unwrap();
        let now = host_cpu_columns("cpu  20 1 7 150 4 2 2 1 3 0\n").unwrap();
        // user 10 + nice 1 + system 2 + irq 1 + softirq 1 + steal 1 = 16 jiffies.
        assert_eq!(host_cpu_delta(&before, &now), Some((160_000.0, 710_000.0)));
        assert_eq!(host_cpu_delta(&before, &now[..9]), None);
    }

    #[test]
    fn delay_percentiles_use_nearest_rank() {
        let delays = (1..=100).map(|ms| ms * 1_000_000).collect();
        assert_eq!(delay_stats(delays), (50.0, 99.0, 100.0));
        assert_eq!(delay_stats(Vec::new()), (0.0, 0.0, 0.0));
    }

    #[tokio::test]
    async fn participants_starting_and_ending_in_quick_succession_share_samples() {
        let dir = tempfile::tempdir().unwrap();
        let mut recorder =
            MetricsRecorder::start(dir.path(), Duration::ZERO, DiskBudget::unlimited()).unwrap();
        assert_eq!(recorder.lines(), 1, "the baseline");
        let names: Vec<String> = (0..1000).map(|n| format!("p{n}")).collect();
        for name in &names {
            recorder
                .observe(RunEvent::ParticipantStarted { participant: name })
                .unwrap();
            recorder
                .observe(RunEvent::ParticipantFinished {
                    participant: name,
                    tasks: 0,
                    succeeded: 0,
                })
                .unwrap();
        }
        assert_eq!(recorder.lines(), 1, "no sample younger than the gap");
        std::thread::sleep(MIN_PARTICIPANT_SAMPLE_GAP);
        recorder
            .observe(RunEvent::ParticipantStarted {
                participant: "late",
            })
            .unwrap();
        recorder.sample();
        assert_eq!(
            recorder.lines(),
            3,
            "a due participant sample and the final one"
        );
        let written = std::fs::read_to_string(dir.path().join(METRICS_FILE)).unwrap();
        assert_eq!(written.lines().count(), 3);
    }

    #[tokio::test]
    async fn a_sample_has_every_upstream_key_in_order() {
        let collector = Collector::start();
        let sample = collector.sample();
        let keys: Vec<&str> = sample
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "ts",
                "uptimeMs",
                "cpuUserUs",
                "cpuSystemUs",
                "memRssMb",
                "memHeapUsedMb",
                "memHeapTotalMb",
                "memExternalMb",
                "eventLoopP50Ms",
                "eventLoopP99Ms",
                "eventLoopMaxMs",
                "loadavg1m",
                "loadavg5m",
                "loadavg15m",
                "openFds",
                "sockstat",
                "hostMemTotalMb",
                "hostMemAvailableMb",
                "hostCpuUsedUs",
                "hostCpuTotalUs",
                "cgroupMemLimitMb",
                "cgroupCpuLimitCores",
            ]
        );
        if cfg!(target_os = "linux") {
            assert!(sample["memRssMb"].as_f64().unwrap() > 0.0, "{sample}");
            assert!(sample["openFds"].as_u64().unwrap() > 0);
        }
    }
}
