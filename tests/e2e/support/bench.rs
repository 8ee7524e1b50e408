//! Running the real `bench` binary and capturing what it printed.

use super::{guests, root};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// The `bench` binary with a shared compiled-component cache and a clean environment.
/// JavaScript tasks build without AOT (faster builds, the same components on every machine)
/// unless the test run sets `BENCH_WEVAL`; the AOT tests (`js_aot`) set it themselves.
pub(crate) fn bench(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bench"));
    if std::env::var_os("BENCH_WEVAL").is_none() {
        command.env("BENCH_WEVAL", "off");
    }
    command
        .current_dir(cwd)
        .env("BENCH_CACHE_DIR", root().join("target").join("bench-cache"))
        // The cache's key, outside the cache (as the user's is).
        .env(
            "BENCH_CACHE_KEY",
            root()
                .join("target")
                .join("bench-cache-key")
                .join("cache.key"),
        )
        .env("CARGO_TARGET_DIR", guests::target_dir())
        .env_remove("BENCHSDK_NO_INGEST")
        .env_remove("BENCHMARKS_PLATFORM_URL")
        .env_remove("BENCHMARKS_PLATFORM_API_KEY")
        .env_remove("BENCHMARKS_PLATFORM_TOKEN")
        .stdin(Stdio::null());
    command
}

/// [`bench`] started by a shell that first sets the open-file limit (soft and hard) to
/// `limit`; arguments added to the command go to `bench`.
pub(crate) fn bench_with_open_files(cwd: &Path, limit: u32) -> Command {
    let template = bench(cwd);
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
        .arg(template.get_program())
        .current_dir(cwd)
        .stdin(Stdio::null());
    for (key, value) in template.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
}

/// What a `bench` invocation printed.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// stdout lines.
    pub(crate) fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
}

impl From<Output> for Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// Runs a prepared command to completion.
pub(crate) fn run_command(command: &mut Command) -> Run {
    command.output().expect("bench runs").into()
}

/// Runs `bench` with these arguments in `cwd`.
pub(crate) fn run_bench(cwd: &Path, args: &[&str]) -> Run {
    run_command(bench(cwd).args(args))
}

/// The GitHub Actions variables `summary.json` records, pinned for tests.
const PINNED_GITHUB_ENV: [(&str, &str); 3] = [
    ("GITHUB_SHA", "0123abc"),
    ("GITHUB_REF_NAME", "main"),
    ("GITHUB_EVENT_NAME", "push"),
];

/// Runs `bench` with these arguments in `cwd` with [`PINNED_GITHUB_ENV`], no
/// `GITHUB_REF` and no step summary, then `env` on top.
pub(crate) fn run_bench_pinned(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_command(
        bench(cwd)
            .env_remove("GITHUB_REF")
            .env_remove("GITHUB_STEP_SUMMARY")
            .envs(PINNED_GITHUB_ENV)
            .envs(env.iter().copied())
            .args(args),
    )
}

/// Runs `component` into `<cwd>/<out>` with `--no-ingest` and pinned GitHub variables
/// (dispatched to the NATS server at `dispatch` when given).
pub(crate) fn run_into(
    cwd: &Path,
    component: &Path,
    out: &str,
    dispatch: Option<&str>,
    args: &[&str],
) -> Run {
    let mut full = vec![
        "run",
        component.to_str().unwrap(),
        "--out",
        out,
        "--no-ingest",
    ];
    if let Some(url) = dispatch {
        full.extend_from_slice(&["--dispatch", url]);
    }
    full.extend_from_slice(args);
    run_bench_pinned(cwd, &full, &[])
}

/// A `bench` process and the highest `VmHWM` seen in its `/proc/<pid>/status`.
pub(crate) struct Watched {
    /// What it printed.
    pub(crate) run: Run,
    /// Its peak resident memory.
    pub(crate) peak_rss_kib: u64,
}

/// The `VmHWM` (peak resident memory) of a running child, in KiB.
pub(crate) fn vm_hwm_kib(child: &Child) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `bench` to completion, sampling its peak resident memory every few milliseconds
/// (the high-water mark only grows, so any sample after the peak holds it).
pub(crate) fn watched(cwd: &Path, args: &[&str]) -> Watched {
    let stdout = cwd.join("stdout.txt");
    let stderr = cwd.join("stderr.txt");
    let mut child = bench(cwd)
        .args(args)
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let mut peak_rss_kib = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        peak_rss_kib = peak_rss_kib.max(vm_hwm_kib(&child).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(5));
    };
    Watched {
        run: Run {
            code: status.code(),
            stdout: std::fs::read_to_string(stdout).unwrap(),
            stderr: std::fs::read_to_string(stderr).unwrap(),
        },
        peak_rss_kib,
    }
}
