//! A `bench serve` child process on 127.0.0.1, a minimal HTTP client for its API, and
//! `bench` configured to report to a platform.

use super::bench::{bench, vm_hwm_kib, Run};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `bench serve` on 127.0.0.1.
pub(crate) struct Server {
    child: Child,
    /// Its port.
    pub(crate) port: u16,
    /// The API key created at first start.
    pub(crate) key: String,
    db: PathBuf,
    /// Its `--public-url`.
    public_url: Option<String>,
    /// More `bench serve` flags.
    flags: Vec<String>,
}

impl Server {
    /// Starts `bench serve --db <dir>/platform.db --port 0 --create-key`.
    pub(crate) fn start(dir: &Path) -> Server {
        Self::start_at(dir, None)
    }

    /// [`Server::start`] with `--public-url <public_url>` (e.g. a proxy in front of it).
    pub(crate) fn start_at(dir: &Path, public_url: Option<&str>) -> Server {
        Self::start_with(dir, public_url, &[])
    }

    /// [`Server::start_at`] with more `bench serve` flags (e.g. `--public-read`).
    pub(crate) fn start_with(dir: &Path, public_url: Option<&str>, flags: &[&str]) -> Server {
        let db = dir.join("platform.db");
        let public_url = public_url.map(str::to_owned);
        let flags: Vec<String> = flags.iter().map(|flag| flag.to_string()).collect();
        let (child, port, key) = Self::spawn(&db, 0, true, public_url.as_deref(), &flags);
        Server {
            child,
            port,
            key: key.expect("an API key is printed"),
            db,
            public_url,
            flags,
        }
    }

    fn spawn(
        db: &Path,
        port: u16,
        create_key: bool,
        public_url: Option<&str>,
        flags: &[String],
    ) -> (Child, u16, Option<String>) {
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
        if let Some(url) = public_url {
            command.args(["--public-url", url]);
        }
        command.args(flags);
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

    /// The server's peak resident memory so far (`VmHWM` of /proc/<pid>/status), in bytes.
    pub(crate) fn peak_rss(&self) -> u64 {
        vm_hwm_kib(&self.child).expect("a VmHWM line") * 1024
    }

    /// Its database file.
    pub(crate) fn db(&self) -> &Path {
        &self.db
    }

    /// The platform root URL.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Kills the server (SIGKILL): no goodbye.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on the same port and database.
    pub(crate) fn restart(&mut self) {
        self.kill();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let public_url = self.public_url.as_deref();
            let (child, _, _) = Self::spawn(&self.db, self.port, false, public_url, &self.flags);
            self.child = child;
            std::thread::sleep(Duration::from_millis(100));
            if self.child.try_wait().unwrap().is_none() || Instant::now() > deadline {
                return;
            }
        }
    }

    /// `GET /api/v1<path>` with the server's key: status and JSON body.
    pub(crate) fn get(&self, path: &str) -> (u16, Value) {
        http_get(self.port, &format!("/api/v1{path}"), &self.key)
    }

    /// The task records the server stored for a run (participant first, as in
    /// records.ndjson), per participant in arrival order.
    pub(crate) fn records(&self, slug: &str, run_id: &str) -> Vec<Value> {
        let mut records = Vec::new();
        let mut cursor = String::new();
        loop {
            let (status, body) = self.get(&format!(
                "/benchmarks/{slug}/runs/{run_id}/iterations?type=tasks&limit=5000{cursor}"
            ));
            assert_eq!(status, 200, "{body}");
            records.extend(body["items"].as_array().unwrap().iter().cloned());
            match body["nextCursor"].as_str() {
                Some(next) => cursor = format!("&cursor={next}"),
                None => return records,
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A minimal HTTP/1.1 GET with a bearer key (one request per connection).
fn http_get(port: u16, path: &str, key: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// `bench` reporting to `url` with `key`, its home in `cwd` (no saved credentials).
pub(crate) fn platform_bench(cwd: &Path, url: &str, key: &str) -> Command {
    let mut command = bench(cwd);
    command
        .env("HOME", cwd)
        .env("BENCHMARKS_PLATFORM_URL", url)
        .env("BENCHMARKS_PLATFORM_API_KEY", key)
        .env_remove("BENCHMARKS_PLATFORM_TOKEN")
        .env("BENCHMARK_METRICS_INTERVAL_MS", "0");
    command
}

/// The run id of the `Run created: <name> (<id>)` or `Shared run (…): <name> (<id>)` line.
pub(crate) fn run_id(run: &Run) -> String {
    let line = run
        .lines()
        .into_iter()
        .find(|line| line.starts_with("Run created: ") || line.starts_with("Shared run (key "))
        .unwrap_or_else(|| panic!("no run line in:\n{}\n{}", run.stdout, run.stderr));
    let open = line.rfind('(').unwrap();
    line[open + 1..line.len() - 1].to_owned()
}
