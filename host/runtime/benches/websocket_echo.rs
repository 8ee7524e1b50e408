//! A local WebSocket echo server and a native tokio-tungstenite client, to compare guests'
//! WebSocket round trips with a native client's on the same server
//! (`scripts/bench-websocket.sh` runs them all).
//!
//! ```sh
//! cargo bench -p bench-runtime --bench websocket_echo -- serve        # prints the port
//! cargo bench -p bench-runtime --bench websocket_echo -- client URL N
//! ```
//!
//! The server echoes every text and binary message. The client opens one connection, sends
//! `N` short text messages one after the other, waits for each echo and prints one line:
//! the p50 round trip in microseconds and the process's CPU time per message in
//! microseconds (the measured loop only).

use futures_util::{SinkExt, StreamExt};
use std::time::Instant;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    match args.as_slice() {
        ["serve"] => runtime.block_on(serve()),
        ["client", url, count] => {
            let count = count.parse().expect("N is a positive integer");
            runtime.block_on(client(url, count));
        }
        _ => {
            eprintln!("usage: websocket_echo serve | client URL N");
            std::process::exit(2);
        }
    }
}

async fn serve() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    println!("{}", listener.local_addr().expect("an address").port());
    while let Ok((stream, _)) = listener.accept().await {
        stream.set_nodelay(true).expect("TCP_NODELAY");
        tokio::spawn(async move {
            let Ok(mut socket) = tokio_tungstenite::accept_async(stream).await else {
                return;
            };
            while let Some(Ok(message)) = socket.next().await {
                if (message.is_text() || message.is_binary()) && socket.send(message).await.is_err()
                {
                    return;
                }
            }
        });
    }
}

async fn client(url: &str, count: usize) {
    let address = url
        .strip_prefix("ws://")
        .and_then(|rest| rest.split('/').next())
        .expect("a ws://host:port/ URL");
    let stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("the server accepts");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let (mut socket, _) = tokio_tungstenite::client_async(url, stream)
        .await
        .expect("the handshake");
    let mut round_trips = Vec::with_capacity(count);
    let cpu = cpu_seconds();
    for index in 0..count {
        let text = index.to_string();
        let start = Instant::now();
        socket
            .send(Message::text(text.clone()))
            .await
            .expect("sent");
        match socket.next().await {
            Some(Ok(Message::Text(echo))) if echo.as_str() == text => {}
            other => panic!("a wrong echo: {other:?}"),
        }
        round_trips.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let cpu_per_message = (cpu_seconds() - cpu) * 1e6 / count as f64;
    let _ = socket.close(None).await;
    round_trips.sort_by(f64::total_cmp);
    println!("{:.1} {:.1}", round_trips[count / 2], cpu_per_message);
}

/// The process's CPU time (user and system) in seconds.
fn cpu_seconds() -> f64 {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}
