//! moto's S3-compatible server (PyPI `moto[server]`, pinned in
//! `tests/guests-python/requirements-server.txt`) on a free loopback port; killed when its
//! guard is dropped.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `moto_server`.
pub(crate) struct MotoServer {
    child: Child,
    port: u16,
}

impl MotoServer {
    /// Starts moto_server and waits until it accepts connections.
    pub(crate) fn start() -> MotoServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "moto_server runs (python3 -m pip install -r tests/guests-python/requirements-server.txt)",
            );
        let server = MotoServer { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "moto_server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// `http://127.0.0.1:<port>/`.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
