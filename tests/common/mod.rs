//! Shared helpers of the end-to-end tests: build real guest components once per test
//! binary, run the real `bench` binary, read what it wrote.

#![allow(dead_code)] // each test binary uses a different subset

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_owned()
}

/// Where guest components are built (shared by every test binary).
fn guest_target_dir() -> PathBuf {
    root().join("target").join("guests")
}

static BUILT: OnceLock<Mutex<HashMap<PathBuf, ()>>> = OnceLock::new();

/// Builds a guest project (once per test binary) in release mode for wasm32-wasip2.
fn build_guest_project(project: &Path) {
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if built.contains_key(project) {
        return;
    }
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--target", "wasm32-wasip2", "--quiet"])
        .current_dir(project)
        .env("CARGO_TARGET_DIR", guest_target_dir())
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "building guest project {} failed",
        project.display()
    );
    built.insert(project.to_owned(), ());
}

fn artifact(crate_name: &str) -> PathBuf {
    guest_target_dir()
        .join("wasm32-wasip2")
        .join("release")
        .join(format!("{}.wasm", crate_name.replace('-', "_")))
}

/// The component of `examples/<name>`, built from source.
pub fn example(name: &str) -> PathBuf {
    build_guest_project(&root().join("examples").join(name));
    artifact(name)
}

/// The component of `tests/guests/<name>`, built from source.
pub fn test_guest(name: &str) -> PathBuf {
    build_guest_project(&root().join("tests").join("guests"));
    artifact(name)
}

/// The `bench` binary with a shared compiled-component cache and a clean environment.
pub fn bench(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bench"));
    command
        .current_dir(cwd)
        .env("BENCH_CACHE_DIR", root().join("target").join("bench-cache"))
        .env("CARGO_TARGET_DIR", guest_target_dir())
        .env_remove("BENCHSDK_NO_INGEST")
        .env_remove("BENCHMARKS_PLATFORM_URL")
        .env_remove("BENCHMARKS_PLATFORM_API_KEY")
        .env_remove("BENCHMARKS_PLATFORM_TOKEN")
        .stdin(Stdio::null());
    command
}

/// What a `bench` invocation printed.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
}

/// Runs `bench` with these arguments in `cwd`.
pub fn run_bench(cwd: &Path, args: &[&str]) -> Run {
    let output: Output = bench(cwd).args(args).output().expect("bench runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The records of a results directory, as JSON.
pub fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("records.ndjson"))
        .expect("records.ndjson exists")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

/// The records of one participant, sorted by task index.
pub fn records_of(dir: &Path, participant: &str) -> Vec<Value> {
    let mut records: Vec<Value> = records(dir)
        .into_iter()
        .filter(|record| record["participant"] == participant)
        .collect();
    records.sort_by_key(|record| record["taskIndex"].as_u64());
    records
}

/// Step names of a record, in order.
pub fn step_names(record: &Value) -> Vec<&str> {
    record["steps"]
        .as_array()
        .expect("steps array")
        .iter()
        .map(|step| step["name"].as_str().expect("step name"))
        .collect()
}

/// The step called `name` in a record.
pub fn step<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["steps"]
        .as_array()
        .expect("steps array")
        .iter()
        .find(|step| step["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {record}"))
}

// ---------------------------------------------------------------------------------------
// Platform helpers: a `bench serve` child process, a fault-injecting proxy in front of it,
// and a minimal HTTP client. Everything listens on 127.0.0.1 only.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A running `bench serve` on 127.0.0.1.
pub struct Server {
    child: Child,
    /// Its port.
    pub port: u16,
    /// The API key created at first start.
    pub key: String,
    db: PathBuf,
}

impl Server {
    /// Starts `bench serve --db <dir>/platform.db --port 0 --create-key`.
    pub fn start(dir: &Path) -> Server {
        let db = dir.join("platform.db");
        let (child, port, key) = Self::spawn(&db, 0, true);
        Server {
            child,
            port,
            key: key.expect("an API key is printed"),
            db,
        }
    }

    fn spawn(db: &Path, port: u16, create_key: bool) -> (Child, u16, Option<String>) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bench"));
        command
            .args([
                "serve",
                "--db",
                db.to_str().unwrap(),
                "--port",
                &port.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if create_key {
            command.arg("--create-key");
        }
        let mut child = command.spawn().expect("bench serve starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let listening = lines.next().expect("a first line").unwrap();
        let port = listening
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("not a listening line: {listening}"));
        let key = create_key.then(|| {
            let line = lines.next().expect("a key line").unwrap();
            line.strip_prefix("API key: ")
                .unwrap_or_else(|| panic!("not a key line: {line}"))
                .to_owned()
        });
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        (child, port, key)
    }

    /// The platform root URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Kills the server (SIGKILL): no goodbye.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on the same port and database.
    pub fn restart(&mut self) {
        self.kill();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let (child, _, _) = Self::spawn(&self.db, self.port, false);
            self.child = child;
            std::thread::sleep(Duration::from_millis(100));
            if self.child.try_wait().unwrap().is_none() || Instant::now() > deadline {
                return;
            }
        }
    }

    /// `GET /api/v1<path>` with the server's key: status and JSON body.
    pub fn get(&self, path: &str) -> (u16, Value) {
        http_get(self.port, &format!("/api/v1{path}"), Some(&self.key))
    }

    /// The task records the server stored for a run (participant first, as in
    /// records.ndjson), per participant in arrival order.
    pub fn records(&self, slug: &str, run_id: &str) -> Vec<Value> {
        let (status, body) = self.get(&format!(
            "/benchmarks/{slug}/runs/{run_id}/iterations?type=tasks"
        ));
        assert_eq!(status, 200, "{body}");
        body["items"].as_array().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A minimal HTTP/1.1 GET (one request per connection).
pub fn http_get(port: u16, path: &str, key: Option<&str>) -> (u16, Value) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let auth = key
        .map(|key| format!("Authorization: Bearer {key}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// One request the proxy saw.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// HTTP method.
    pub method: String,
    /// Path and query.
    pub path: String,
    /// The request line and headers, as sent.
    pub head: String,
    /// Request body (JSON text for API calls).
    pub body: String,
    /// The status answered (0 when the connection was dropped).
    pub status: u16,
}

impl Exchange {
    /// The request body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

#[derive(Default)]
struct ProxyState {
    fail: Vec<(String, usize)>,
    delay: Duration,
    journal: Vec<Exchange>,
}

/// An HTTP proxy on 127.0.0.1 in front of a server: it records every request, and can
/// answer 500 instead of forwarding or delay each request.
pub struct Proxy {
    /// Its port.
    pub port: u16,
    state: Arc<Mutex<ProxyState>>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// A proxy forwarding to `127.0.0.1:upstream`.
    pub fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(ProxyState::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (accept_state, accept_stop) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let state = accept_state.clone();
                std::thread::spawn(move || proxy_connection(stream, upstream, &state));
            }
        });
        Proxy { port, state, stop }
    }

    /// The URL `bench` should use.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Answers 500 to the next `count` requests whose path contains `path_part`.
    pub fn fail_next(&self, path_part: &str, count: usize) {
        self.state
            .lock()
            .unwrap()
            .fail
            .push((path_part.to_owned(), count));
    }

    /// Delays every request by `delay` before forwarding it.
    pub fn set_delay(&self, delay: Duration) {
        self.state.lock().unwrap().delay = delay;
    }

    /// Every request so far.
    pub fn journal(&self) -> Vec<Exchange> {
        self.state.lock().unwrap().journal.clone()
    }

    /// Requests whose path ends with `suffix` (query ignored).
    pub fn requests(&self, method: &str, suffix: &str) -> Vec<Exchange> {
        self.journal()
            .into_iter()
            .filter(|e| e.method == method && e.path.split('?').next().unwrap().ends_with(suffix))
            .collect()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Reads one request (head and Content-Length body); `None` at end of stream.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<(String, Vec<u8>)> {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())
                .flatten()
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((head, body))
}

fn proxy_connection(client: TcpStream, upstream: u16, state: &Mutex<ProxyState>) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut client = client;
    while let Some((head, body)) = read_request(&mut reader) {
        let request_line = head.lines().next().unwrap_or_default().to_owned();
        let mut words = request_line.split(' ');
        let method = words.next().unwrap_or_default().to_owned();
        let path = words.next().unwrap_or_default().to_owned();
        let (fail, delay) = {
            let mut state = state.lock().unwrap();
            let rule = state
                .fail
                .iter_mut()
                .find(|(part, count)| *count > 0 && path.contains(part.as_str()));
            let fail = rule.map(|(_, count)| *count -= 1).is_some();
            (fail, state.delay)
        };
        std::thread::sleep(delay);
        let (status, response) = if fail {
            let text = r#"{"error":{"code":"internal","message":"injected failure"}}"#;
            let response = format!(
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}",
                text.len()
            );
            (500, Some(response.into_bytes()))
        } else {
            match forward(upstream, &head, &body) {
                Some(response) => {
                    let text = String::from_utf8_lossy(&response);
                    let status = text
                        .split(' ')
                        .nth(1)
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(0);
                    (status, Some(response))
                }
                None => (0, None),
            }
        };
        state.lock().unwrap().journal.push(Exchange {
            method,
            path,
            head: head.clone(),
            body: String::from_utf8_lossy(&body).into_owned(),
            status,
        });
        match response {
            Some(response) if client.write_all(&response).is_ok() => {}
            _ => return,
        }
    }
}

/// Sends one request upstream with `Connection: close` and returns the whole response.
fn forward(upstream: u16, head: &str, body: &[u8]) -> Option<Vec<u8>> {
    let mut server = TcpStream::connect(("127.0.0.1", upstream)).ok()?;
    let mut request: String = head
        .lines()
        .filter(|line| !line.to_ascii_lowercase().starts_with("connection:"))
        .map(|line| format!("{line}\r\n"))
        .collect();
    request.push_str("Connection: close\r\n\r\n");
    server.write_all(request.as_bytes()).ok()?;
    server.write_all(body).ok()?;
    let mut response = Vec::new();
    server.read_to_end(&mut response).ok()?;
    (!response.is_empty()).then_some(response)
}

/// `bench` reporting to `url` with `key`, its home in `cwd` (no saved credentials).
pub fn platform_bench(cwd: &Path, url: &str, key: &str) -> Command {
    let mut command = bench(cwd);
    command
        .env("HOME", cwd)
        .env("BENCHMARKS_PLATFORM_URL", url)
        .env("BENCHMARKS_PLATFORM_API_KEY", key)
        .env_remove("BENCHMARKS_PLATFORM_TOKEN")
        .env("BENCHMARK_METRICS_INTERVAL_MS", "0");
    command
}

/// Runs a prepared command to completion.
pub fn run_command(command: &mut Command) -> Run {
    let output = command.output().expect("bench runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The GitHub Actions variables `summary.json` records, pinned for tests.
pub const PINNED_GITHUB_ENV: [(&str, &str); 3] = [
    ("GITHUB_SHA", "0123abc"),
    ("GITHUB_REF_NAME", "main"),
    ("GITHUB_EVENT_NAME", "push"),
];

/// Runs `bench` with these arguments in `cwd` with [`PINNED_GITHUB_ENV`], no
/// `GITHUB_REF` and no step summary, then `env` on top.
pub fn run_bench_pinned(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = bench(cwd);
    command
        .env_remove("GITHUB_REF")
        .env_remove("GITHUB_STEP_SUMMARY")
        .envs(PINNED_GITHUB_ENV)
        .envs(env.iter().copied())
        .args(args);
    let output: Output = command.output().expect("bench runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A JSON file, parsed.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

static JS_TOOLCHAIN: OnceLock<()> = OnceLock::new();
static BUILT_PROJECTS: OnceLock<Mutex<HashMap<PathBuf, PathBuf>>> = OnceLock::new();

/// Installs the repository's JavaScript toolchain (`npm ci` at the root: esbuild,
/// componentize-js and the `@bench/task` workspace) unless it is already there.
pub fn ensure_js_toolchain() {
    JS_TOOLCHAIN.get_or_init(|| {
        let bin = root().join("node_modules").join(".bin");
        if bin.join("componentize-js").is_file() && bin.join("esbuild").is_file() {
            return;
        }
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(root())
            .stdin(Stdio::null())
            .status()
            .expect("npm runs (install Node.js and npm)");
        assert!(status.success(), "npm ci failed at the repository root");
    });
}

/// Panics with the install command unless componentize-py is on PATH.
pub fn ensure_python_toolchain() {
    let found = Command::new("componentize-py")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    assert!(
        found,
        "componentize-py is missing: pip install componentize-py==0.25.1 (see .ci/run)"
    );
}

/// Builds the task project at `relative` (from the repository root) with `bench build`,
/// once per test binary, and returns the component's path.
pub fn built_project(relative: &str) -> PathBuf {
    let project = root().join(relative);
    let mut built = BUILT_PROJECTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(component) = built.get(&project) {
        return component.clone();
    }
    if project.join("package.json").is_file() {
        ensure_js_toolchain();
    } else if project.join("app.py").is_file() {
        ensure_python_toolchain();
    }
    let run = run_bench(&root(), &["build", project.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "bench build {relative}: {}", run.stderr);
    let component = PathBuf::from(run.lines().last().expect("bench build prints the path"));
    assert!(component.is_file(), "{} is not a file", component.display());
    built.insert(project, component.clone());
    component
}

/// The lines of a participant log without their timestamps (none when no log was written).
pub fn log_lines(results: &Path, participant: &str) -> Vec<String> {
    let log = std::fs::read_to_string(results.join("logs").join(format!("{participant}.log")))
        .unwrap_or_default();
    log.lines()
        .map(|line| match line.split_once(' ') {
            Some((stamp, rest)) if stamp.ends_with('Z') => rest.to_owned(),
            _ => line.to_owned(),
        })
        .collect()
}
