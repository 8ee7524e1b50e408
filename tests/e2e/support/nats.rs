//! A nats-server with JetStream on a free loopback port and a temporary store (optionally
//! with a configuration file: accounts, users, TLS), `bench worker` processes (each killed
//! when its guard is dropped) and dispatched runs.

use super::bench::{bench, run_bench_pinned};
use super::results::{read_json, task_tally};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// A running nats-server (`-js -sd <temp dir>`, and `-c <config>` when given one).
pub(crate) struct NatsServer {
    child: Option<Child>,
    port: u16,
    config: Option<PathBuf>,
    store: TempDir,
}

impl NatsServer {
    /// Starts nats-server and waits until it accepts connections.
    pub(crate) fn start() -> NatsServer {
        Self::launch(TempDir::new().unwrap(), None, &[])
    }

    /// Starts nats-server with the configuration `config`, these environment variables set
    /// (a configuration may name them as `$NAME`). A configuration with its own `jetstream`
    /// block names its store `{store}` (the temporary store is put there).
    pub(crate) fn with_config(config: &str, env: &[(&str, &str)]) -> NatsServer {
        let store = TempDir::new().unwrap();
        let path = store.path().join("nats-server.conf");
        let store_dir = store.path().join("jetstream");
        std::fs::write(
            &path,
            config.replace("{store}", store_dir.to_str().unwrap()),
        )
        .unwrap();
        Self::launch(store, Some(path), env)
    }

    /// Starts the server on a free port. The port is free when picked, not when the server
    /// binds it: a server of a test running beside this one may take it first, and this one
    /// then exits (while the port answers, for the other server); it is started again on
    /// another port.
    fn launch(store: TempDir, config: Option<PathBuf>, env: &[(&str, &str)]) -> NatsServer {
        let mut server = NatsServer {
            child: None,
            port: 0,
            config,
            store,
        };
        for _ in 0..5 {
            server.port = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            if server.run(true, env) {
                return server;
            }
        }
        panic!("nats-server exited at start five times (no free port?)");
    }

    /// Starts the process (with JetStream unless `jetstream` is false) and waits for it;
    /// false when it exited instead (its port was taken).
    fn run(&mut self, jetstream: bool, env: &[(&str, &str)]) -> bool {
        let mut command = Command::new("nats-server");
        command.args(["-a", "127.0.0.1", "-p", &self.port.to_string()]);
        let mut own_jetstream = false;
        if let Some(config) = &self.config {
            command.arg("-c").arg(config);
            own_jetstream = std::fs::read_to_string(config)
                .unwrap()
                .contains("jetstream");
        }
        if jetstream && !own_jetstream {
            command.arg("-js").arg("-sd").arg(self.store.path());
        }
        // The server writes its ports file once it listens: a port that answers may be
        // another test's server, the file is this one's.
        let ports = self.store.path().join("ports");
        std::fs::create_dir_all(&ports).unwrap();
        command.arg("--ports_file_dir").arg(&ports);
        let mut child = command
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server runs (apt-get install nats-server)");
        let ports_file = ports.join(format!("nats-server_{}.ports", child.id()));
        let deadline = Instant::now() + Duration::from_secs(10);
        let running = |child: &mut Child| child.try_wait().unwrap().is_none();
        let listening =
            || ports_file.exists() && TcpStream::connect(("127.0.0.1", self.port)).is_ok();
        while !listening() && running(&mut child) {
            assert!(Instant::now() < deadline, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        let started = running(&mut child);
        self.child = Some(child);
        started
    }

    /// Stops the server; `jetstream` says whether it comes back with JetStream (and the
    /// same store) or without it.
    pub(crate) fn restart(&mut self, jetstream: bool) {
        self.stop();
        assert!(
            self.run(jetstream, &[]),
            "nats-server did not start again on port {}",
            self.port
        );
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// `nats://127.0.0.1:<port>`.
    pub(crate) fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// `127.0.0.1:<port>`.
    pub(crate) fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A running `bench worker`; its stderr goes to `<cwd>/<name>.log`.
pub(crate) struct Worker {
    child: Child,
}

impl Worker {
    /// Starts worker `name` with `slots` slots, serving any run (`--trust-any`), with these
    /// extra environment variables (and serving them: `--serve-env`).
    pub(crate) fn start(
        cwd: &Path,
        url: &str,
        name: &str,
        slots: u32,
        env: &[(&str, &str)],
    ) -> Worker {
        let slots = slots.to_string();
        let mut args = vec!["--slots", &slots, "--trust-any"];
        for (key, _) in env {
            args.extend(["--serve-env", key]);
        }
        Self::spawn(cwd, url, name, &args, env)
    }

    /// Starts worker `name` with these flags and extra environment variables.
    pub(crate) fn spawn(
        cwd: &Path,
        url: &str,
        name: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Worker {
        let log = std::fs::File::create(cwd.join(format!("{name}.log"))).unwrap();
        let child = bench(cwd)
            .args(["worker", url, "--name", name])
            .args(args)
            .env_remove("BENCH_TEST_SECRET")
            .env_remove("NATS_CREDS")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("bench worker starts");
        Worker { child }
    }

    /// Waits up to `within` for the worker to exit; its exit code.
    pub(crate) fn exit_code(&mut self, within: Duration) -> Option<i32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// SIGKILLs the worker at once.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `bench run <component> --out <out> --no-ingest --dispatch <url> <args>` started in
/// `cwd`, its output piped.
pub(crate) fn spawn_dispatched(
    cwd: &Path,
    component: &Path,
    out: &str,
    url: &str,
    args: &[&str],
) -> Child {
    bench(cwd)
        .args([
            "run",
            component.to_str().unwrap(),
            "--out",
            out,
            "--no-ingest",
        ])
        .args(["--dispatch", url])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits up to a minute until `<dir>/records.ndjson` holds a record.
pub(crate) fn wait_for_records(dir: &Path) {
    let records = dir.join("records.ndjson");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&records).map_or(true, |text| text.is_empty()) {
        assert!(
            Instant::now() < deadline,
            "nothing recorded in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `bench run --resume results` in `cwd` succeeds, and `results` then holds every one of
/// `tasks` tasks exactly once and says so in `run.json`.
pub(crate) fn resume_to_every_task_once(cwd: &Path, tasks: usize) {
    let resumed = run_bench_pinned(cwd, &["run", "--resume", "results"], &[]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    let (recorded, _) = task_tally(&cwd.join("results"));
    assert_eq!(recorded.len(), tasks, "none lost");
    assert!(recorded.values().all(|count| *count == 1), "none twice");
    let manifest = read_json(&cwd.join("results").join("run.json"));
    assert_eq!(manifest["tasks"]["total"], tasks);
    assert!(cwd.join("results").join("summary.json").is_file());
}

/// The log of worker `name` so far.
pub(crate) fn worker_log(cwd: &Path, name: &str) -> String {
    std::fs::read_to_string(cwd.join(format!("{name}.log"))).unwrap_or_default()
}

/// Waits up to a minute until the log of worker `name` holds `text`.
pub(crate) fn wait_for_log(cwd: &Path, name: &str, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !worker_log(cwd, name).contains(text) {
        assert!(
            Instant::now() < deadline,
            "worker {name} never logged {text:?}: {}",
            worker_log(cwd, name)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
