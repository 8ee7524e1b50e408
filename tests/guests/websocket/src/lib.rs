//! A task talking to a WebSocket server through `bench_guest::websocket`, its URL given by
//! `--ws-url`: `--ws-mode echo` (the default) sends a text and a binary message, reports the
//! echoes and closes; `leave` sends one message, reads its echo and returns with the
//! connection open (the host closes it); `receive` waits for one message and reports it
//! (or fails with the host's error); `hoard` opens 16 connections, sleeps 2 s without
//! reading, then takes up to 64 messages from each (failing with the host's error, if any);
//! `--ws-count <n>` times n text round trips in a step
//! `round-trips` and reports their median in microseconds, `p50Us`
//! (scripts/bench-websocket.sh).

use bench_guest::websocket::{Message, WebSocket};
use bench_guest::{
    export_task, json, BenchmarkConfig, Context, Participant, Task, TaskError, TaskOutput,
    TaskResult,
};

/// Connections the `hoard` mode opens.
const HOARDED_CONNECTIONS: usize = 16;

struct Echo;

impl Task for Echo {
    fn config() -> BenchmarkConfig {
        BenchmarkConfig::new("websocket", "WebSocket")
            .participant(Participant::new("p"))
            .iterations(1)
            .custom_cli_flag("--ws-url")
            .custom_cli_flag("--ws-mode")
            .custom_cli_flag("--ws-count")
    }

    fn run(ctx: &Context) -> TaskResult {
        let url = ctx.arg("--ws-url").unwrap_or("ws://127.0.0.1:9/");
        let socket = WebSocket::connect(url)?;
        if let Some(count) = ctx.arg("--ws-count") {
            let count: u32 = count.parse().map_err(|_| TaskError::new("--ws-count"))?;
            let mut round_trips = ctx.step("round-trips", || {
                let mut round_trips = Vec::with_capacity(count as usize);
                for index in 0..count {
                    let text = index.to_string();
                    let start = std::time::Instant::now();
                    socket.send_text(&text)?;
                    if socket.receive()? != Message::Text(text) {
                        return Err(TaskError::new("a wrong echo"));
                    }
                    round_trips.push(start.elapsed().as_secs_f64() * 1e6);
                }
                Ok(round_trips)
            })?;
            socket.close(1000, "done")?;
            round_trips.sort_by(f64::total_cmp);
            let p50 = round_trips.get(round_trips.len() / 2).copied();
            return Ok(TaskOutput::new().data(json!({ "p50Us": p50 })));
        }
        match ctx.arg("--ws-mode").unwrap_or("echo") {
            "leave" => {
                socket.send_text("left open")?;
                let echo = describe(socket.receive()?);
                Ok(TaskOutput::new().data(json!({ "echo": echo })))
            }
            "hoard" => {
                // Connections the server floods while the task does not read: what the host
                // holds for them counts against the sandbox's memory.
                let mut hoard = vec![socket];
                while hoard.len() < HOARDED_CONNECTIONS {
                    hoard.push(WebSocket::connect(url)?);
                }
                std::thread::sleep(std::time::Duration::from_secs(2));
                for socket in &hoard {
                    for _ in 0..64 {
                        if socket.try_receive()?.is_none() {
                            break;
                        }
                    }
                }
                Ok(TaskOutput::new().data(json!({ "connections": hoard.len() })))
            }
            "receive" => {
                let message = describe(socket.receive()?);
                Ok(TaskOutput::new().data(json!({ "message": message })))
            }
            _ => {
                socket.send_text("hello")?;
                let text = describe(socket.receive()?);
                socket.send_binary(&[0, 1, 2, 255])?;
                let binary = describe(socket.receive()?);
                socket.close(1000, "done")?;
                let closed = describe(socket.receive()?);
                Ok(TaskOutput::new().data(json!({
                    "text": text, "binary": binary, "closed": closed,
                })))
            }
        }
    }
}

/// A message as the e2e tests compare it across languages.
fn describe(message: Message) -> bench_guest::Value {
    match message {
        Message::Text(text) => json!({ "text": text }),
        Message::Binary(data) => json!({ "binary": data }),
        Message::Closed(code, reason) => json!({ "code": code, "reason": reason }),
    }
}

export_task!(Echo);
