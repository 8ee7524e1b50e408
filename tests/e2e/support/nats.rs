//! A nats-server with JetStream on a free loopback port and a temporary store, and `bench
//! worker` processes; each is killed when its guard is dropped.

use super::bench::bench;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// A running nats-server (`-js -sd <temp dir>`).
pub(crate) struct NatsServer {
    child: Child,
    port: u16,
    _store: TempDir,
}

impl NatsServer {
    /// Starts nats-server and waits until it accepts connections.
    pub(crate) fn start() -> NatsServer {
        let store = TempDir::new().unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("nats-server")
            .args(["-a", "127.0.0.1", "-p", &port.to_string(), "-js", "-sd"])
            .arg(store.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server runs (apt-get install nats-server)");
        let server = NatsServer {
            child,
            port,
            _store: store,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    /// `nats://127.0.0.1:<port>`.
    pub(crate) fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
        let log = std::fs::File::create(cwd.join(format!("{name}.log"))).unwrap();
        let served = env.iter().flat_map(|(key, _)| ["--serve-env", key]);
        let child = bench(cwd)
            .args(["worker", url, "--name", name, "--slots", &slots.to_string()])
            .arg("--trust-any")
            .args(served)
            .env_remove("BENCH_TEST_SECRET")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("bench worker starts");
        Worker { child }
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
